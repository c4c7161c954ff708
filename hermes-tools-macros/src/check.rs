//! Compile-time rules on attribute values: each returns an error spanned at the value at fault.

use proc_macro2::Span;
use syn::{LitInt, LitStr};
use unicode_segmentation::UnicodeSegmentation;

/// The rule every provider applies to tool names: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn tool_name(name: &str, span: Span) -> syn::Result<()> {
    let valid = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if valid {
        Ok(())
    } else {
        Err(syn::Error::new(
            span,
            format!(
                "invalid tool name {name:?}: providers accept 1 to 64 characters from \
                 a-z, A-Z, 0-9, '_' and '-'"
            ),
        ))
    }
}

/// Toolset and plugin names follow the tool-name rule, so they can be used in the same
/// places (config lists, aliases, hook owners). `kind` names what is checked in the error.
pub fn name_of(kind: &str, lit: &LitStr) -> syn::Result<()> {
    let value = lit.value();
    tool_name(&value, lit.span()).map_err(|_| {
        syn::Error::new(
            lit.span(),
            format!(
                "invalid {kind} {value:?}: use 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'"
            ),
        )
    })
}

/// An emoji is shown in one terminal cell: exactly one grapheme cluster.
pub fn emoji(emoji: &LitStr) -> syn::Result<String> {
    let value = emoji.value();
    let count = value.graphemes(true).count();
    if count == 1 {
        Ok(value)
    } else {
        Err(syn::Error::new(
            emoji.span(),
            format!("emoji must be exactly one grapheme, found {count} in {value:?}"),
        ))
    }
}

/// An environment variable name that `std::env::var` can look up.
pub fn env_var(var: &LitStr) -> syn::Result<()> {
    let value = var.value();
    if value.is_empty() || value.contains(['=', '\0']) {
        Err(syn::Error::new(
            var.span(),
            format!("invalid environment variable name {value:?}"),
        ))
    } else {
        Ok(())
    }
}

/// A positive count of characters.
pub fn max_result_chars(lit: &LitInt) -> syn::Result<usize> {
    match lit.base10_parse::<usize>() {
        Ok(0) | Err(_) => Err(syn::Error::new(
            lit.span(),
            "max_result_chars must be a positive whole number of characters",
        )),
        Ok(n) => Ok(n),
    }
}

/// A positive number of seconds.
pub fn timeout_secs(lit: &LitInt) -> syn::Result<u64> {
    match lit.base10_parse::<u64>() {
        Ok(0) | Err(_) => Err(syn::Error::new(
            lit.span(),
            "timeout_secs must be a positive whole number of seconds",
        )),
        Ok(n) => Ok(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(tool_name("read_file", Span::call_site()).is_ok());
        assert!(tool_name("mcp-time_get", Span::call_site()).is_ok());
        assert!(tool_name("", Span::call_site()).is_err());
        assert!(tool_name("has space", Span::call_site()).is_err());
        assert!(tool_name(&"a".repeat(65), Span::call_site()).is_err());
    }

    #[test]
    fn emojis() {
        let lit = |s: &str| LitStr::new(s, Span::call_site());
        assert!(emoji(&lit("❓")).is_ok());
        assert!(emoji(&lit("👨‍👩‍👧")).is_ok(), "a ZWJ family is one grapheme");
        assert!(emoji(&lit("❓❓")).is_err());
        assert!(emoji(&lit("")).is_err());
    }
}
