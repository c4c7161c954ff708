//! `${NAME}` in a remote server's header values and OAuth client secret: replaced by the
//! environment variable `NAME` when the client connects (or authorizes), so the configuration
//! file holds no secret. An unset variable is an error naming the setting and the variable,
//! never a value.

/// `value` with every `${NAME}` replaced by the environment variable `NAME`; `setting` names
/// where the value is written, for the errors (``header `Authorization` ``).
pub(super) fn expand(setting: &str, value: &str) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!(
                "{setting} opens `${{` without a closing `}}`: write `${{NAME}}`"
            ));
        };
        let name = &after[..end];
        if name.is_empty() {
            return Err(format!("{setting} holds `${{}}`: name a variable"));
        }
        match std::env::var(name) {
            Ok(found) => out.push_str(&found),
            Err(_) => {
                return Err(format!(
                    "{setting} names the environment variable {name}, which is not set \
                     (or not UTF-8)"
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_expanded_and_a_missing_one_is_named_without_any_value() {
        // PATH is set in every environment the tests run in.
        let path = std::env::var("PATH").expect("PATH is set");
        assert_eq!(
            expand("header `X`", "a ${PATH} b").unwrap(),
            format!("a {path} b")
        );
        assert_eq!(
            expand("header `X`", "no $VARS {here}").unwrap(),
            "no $VARS {here}"
        );
        let missing = expand(
            "header `Authorization`",
            "Bearer ${HERMES_SURELY_UNSET_VAR}",
        )
        .unwrap_err();
        assert!(missing.contains("`Authorization`"), "{missing}");
        assert!(missing.contains("HERMES_SURELY_UNSET_VAR"), "{missing}");
        let open = expand("header `X`", "${PATH").unwrap_err();
        assert!(open.contains("without a closing"), "{open}");
        assert!(
            expand("header `X`", "${}")
                .unwrap_err()
                .contains("name a variable")
        );
    }
}
