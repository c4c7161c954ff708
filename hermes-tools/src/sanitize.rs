//! What reaches the model is cleaned: error text is stripped of markup that could be read as a
//! tool call or a new turn, capped, and credentials are redacted.
//!
//! [`error_text`] follows Hermes 0.19's `_sanitize_tool_error` (role tags, code fences at line
//! edges, CDATA blocks, a 2,000-character cap, the `[TOOL_ERROR]` prefix) and adds what Hermes
//! leaves out: credentials in errors are redacted too ([`redact`]), including a bare
//! `Bearer …` and a `password=…` in the middle of a sentence.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// Longest error message kept, in characters (Hermes: `_TOOL_ERROR_MAX_LEN`).
pub const MAX_ERROR_CHARS: usize = 2000;

/// The prefix that marks an error for the model.
pub const ERROR_PREFIX: &str = "[TOOL_ERROR] ";

fn regex(pattern: &str) -> Regex {
    // The patterns are constants of this module, covered by its tests.
    Regex::new(pattern).unwrap_or_else(|err| panic!("invalid built-in pattern {pattern}: {err}"))
}

static ROLE_TAG: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"(?i)</?(?:tool_call|function_call|result|response|output|input|system|assistant|user)>")
});
static FENCE_OPEN: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?m)^\s*```(?:json|xml|html|markdown)?\s*"));
static FENCE_CLOSE: LazyLock<Regex> = LazyLock::new(|| regex(r"(?m)\s*```\s*$"));
static CDATA: LazyLock<Regex> = LazyLock::new(|| regex(r"(?s)<!\[CDATA\[.*?\]\]>"));

/// Sanitises an error message for the model: strip, cap, redact, prefix.
///
/// (Example: the unit test `error_text_example_holds`.)
pub fn error_text(message: &str) -> String {
    let text = ROLE_TAG.replace_all(message, "");
    let text = FENCE_OPEN.replace_all(&text, "");
    let text = FENCE_CLOSE.replace_all(&text, "");
    let text = CDATA.replace_all(&text, "");
    let text = redact(&text);
    let mut out = String::with_capacity(ERROR_PREFIX.len() + text.len().min(MAX_ERROR_CHARS * 4));
    out.push_str(ERROR_PREFIX);
    match text.char_indices().nth(MAX_ERROR_CHARS) {
        // Over the cap: keep 1,997 characters and an ellipsis, as Hermes does.
        Some(_) => {
            let cut = text
                .char_indices()
                .nth(MAX_ERROR_CHARS - 3)
                .map_or(text.len(), |(i, _)| i);
            out.push_str(&text[..cut]);
            out.push_str("...");
        }
        None => out.push_str(&text),
    }
    out
}

/// Vendor key prefixes, as in Hermes' `agent/redact.py`, whole-token matched.
static VENDOR_KEY: LazyLock<Regex> = LazyLock::new(|| {
    let prefixes = [
        r"sk-[A-Za-z0-9_-]{10,}",
        r"ghp_[A-Za-z0-9]{10,}",
        r"github_pat_[A-Za-z0-9_]{10,}",
        r"gh[ousr]_[A-Za-z0-9]{10,}",
        r"xapp-\d+-[A-Za-z0-9-]{10,}",
        r"xox[baprs]-[A-Za-z0-9-]{10,}",
        r"AIza[A-Za-z0-9_-]{30,}",
        r"AKIA[A-Z0-9]{16}",
        r"sk_(?:live|test)_[A-Za-z0-9]{10,}",
        r"rk_live_[A-Za-z0-9]{10,}",
        r"SG\.[A-Za-z0-9_-]{10,}",
        r"hf_[A-Za-z0-9]{10,}",
        r"npm_[A-Za-z0-9]{10,}",
        r"pypi-[A-Za-z0-9_-]{10,}",
        r"xai-[A-Za-z0-9]{30,}",
        r"gsk_[A-Za-z0-9]{10,}",
    ];
    // The regex crate has no look-behind: the boundary is captured and put back.
    regex(&format!(
        r"(^|[^A-Za-z0-9_-])({})($|[^A-Za-z0-9_-])",
        prefixes.join("|")
    ))
});
static AUTH_SCHEME: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/=-]{8,})"));
static SECRET_ASSIGN: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r#"(?i)\b([A-Za-z0-9_.-]*(?:api[_-]?key|token|secret|passwd|password|credential)[A-Za-z0-9_.-]*)(\s*[=:]\s*)(["']?)([^\s"'&,;]+)"#,
    )
});
static PRIVATE_KEY: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?-----END[A-Z ]*PRIVATE KEY-----")
});
static URL_PASSWORD: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b([a-z][a-z0-9+.-]*://[^:/\s@]+:)([^@\s]+)(@)"));

/// Hermes' mask: short secrets vanish, long ones keep their first 6 and last 4 characters.
fn mask(token: &str) -> String {
    let chars: Vec<char> = token.chars().collect();
    if chars.len() < 18 {
        return "***".to_owned();
    }
    let head: String = chars[..6].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}...{tail}")
}

/// Redacts credentials: vendor API keys, `Bearer …` tokens, `password=…`-style assignments,
/// private-key blocks and URL passwords. Text without any is returned borrowed.
///
/// ```
/// use hermes_tools::redact;
/// assert_eq!(redact("auth: Bearer abcdefghijklmnopqrstuvwxyz"), "auth: Bearer abcdef...wxyz");
/// assert_eq!(redact("login with password=hunter22 failed"), "login with password=*** failed");
/// assert_eq!(redact("nothing secret"), "nothing secret");
/// ```
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    let mut apply = |re: &Regex, replace: &dyn Fn(&Captures<'_>) -> String| {
        if re.is_match(&out) {
            out = Cow::Owned(
                re.replace_all(&out, |c: &Captures<'_>| replace(c))
                    .into_owned(),
            );
        }
    };
    apply(&PRIVATE_KEY, &|_| "[REDACTED PRIVATE KEY]".to_owned());
    apply(&VENDOR_KEY, &|c| {
        format!("{}{}{}", &c[1], mask(&c[2]), &c[3])
    });
    apply(&AUTH_SCHEME, &|c| {
        format!("{}{}{}", &c[1], &c[2], mask(&c[3]))
    });
    apply(&SECRET_ASSIGN, &|c| {
        // An already-masked value (from a pass above) is left alone.
        if c[4].contains("...") || &c[4] == "***" {
            c[0].to_owned()
        } else {
            format!("{}{}{}***", &c[1], &c[2], &c[3])
        }
    });
    apply(&URL_PASSWORD, &|c| format!("{}***{}", &c[1], &c[3]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_hermes_verified_example() {
        let input = "pre\n```json\n{\"a\":1}\n```\npost <![CDATA[\nzz]]>end <TOOL_CALL>x</Tool_Call> <invoke>";
        assert_eq!(
            error_text(input),
            "[TOOL_ERROR] pre\n{\"a\":1}\npost end x <invoke>"
        );
    }

    #[test]
    fn caps_at_2000_characters_on_char_boundaries() {
        let long = "é".repeat(2500);
        let text = error_text(&long);
        assert_eq!(text.chars().count(), ERROR_PREFIX.len() + 2000);
        assert!(text.ends_with("é..."));
        let exact = "x".repeat(2000);
        assert_eq!(error_text(&exact), format!("{ERROR_PREFIX}{exact}"));
    }

    #[test]
    fn redacts_each_credential_kind() {
        assert_eq!(
            redact("key sk-abcdefghijklmnopqrstuvwxyz!"),
            "key sk-abc...wxyz!"
        );
        assert_eq!(redact("ghp_abcdefghij12"), "***");
        assert_eq!(
            redact("Authorization: Bearer abcdefghijklmnopqrstuvwxyz"),
            "Authorization: Bearer abcdef...wxyz"
        );
        assert_eq!(
            redact("I have password=hunter2 here"),
            "I have password=*** here"
        );
        assert_eq!(
            redact("OPENAI_API_KEY=\"abc123def456\""),
            "OPENAI_API_KEY=\"***\""
        );
        assert_eq!(redact("postgres://u:pw@h/db"), "postgres://u:***@h/db");
        assert_eq!(
            redact("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"),
            "[REDACTED PRIVATE KEY]"
        );
        assert!(matches!(redact("plain words"), Cow::Borrowed(_)));
    }

    #[test]
    fn error_text_example_holds() {
        let text = crate::sanitize::error_text(
            "<tool_call>boom</tool_call> key sk-abcdefghijklmnopqrstuvwxyz",
        );
        assert_eq!(text, "[TOOL_ERROR] boom key sk-abc...wxyz");
    }
}
