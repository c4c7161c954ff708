//! What an error may say back of a caller's own words: an unknown tool's name (through `call`
//! or `serve`), an unknown method, prompt or resource URI. The client sent them, but a log or a model reads the error,
//! so they are redacted like every answer; and they are cut short, so a 2 MB name is not sent
//! back whole.

/// Longest part of a client's word an error echoes, in characters.
pub(crate) const ECHOED_CHARS: usize = 64;

/// Room around the cut for redaction: a credential that starts before the cut is seen whole
/// (up to this many characters) before the cut falls inside it.
const REDACTED_CHARS: usize = 256;

/// `text` as an error may echo it: credentials masked, and at most [`ECHOED_CHARS`] characters
/// of it, followed by `… (N characters)` when it was longer.
pub(crate) fn echoed(text: &str) -> String {
    let head = match text.char_indices().nth(REDACTED_CHARS) {
        Some((at, _)) => &text[..at],
        None => text,
    };
    let redacted = crate::secrets::redact(head);
    let shown = match redacted.char_indices().nth(ECHOED_CHARS) {
        Some((at, _)) => &redacted[..at],
        None => &redacted,
    };
    if shown.len() == redacted.len() && head.len() == text.len() {
        return redacted.into_owned();
    }
    format!("{shown}… ({} characters)", text.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_is_redacted_and_cut_short() {
        assert_eq!(echoed("search_files"), "search_files");
        let name = format!("x{}", "y".repeat(2 << 20));
        let echo = echoed(&name);
        assert!(echo.starts_with(&format!("x{}…", "y".repeat(ECHOED_CHARS - 1))));
        assert!(
            echo.ends_with(&format!("({} characters)", name.len())),
            "{echo}"
        );
        let secret = "sk-proj-Zx81QmW0pLr5TvYb3NcK7sDfGh2JkL4n";
        assert_eq!(echoed(secret), "sk-pro...kL4n");
        // A long token is masked before the cut, and the note still says how long it was.
        let glued = format!("{secret}{}", "x".repeat(1000));
        assert_eq!(echoed(&glued), "sk-pro...xxxx… (1040 characters)");
        let long = format!("{}{secret}{}", "a ".repeat(25), "b".repeat(300));
        assert!(!echoed(&long).contains("Zx81QmW0"), "{}", echoed(&long));
    }
}
