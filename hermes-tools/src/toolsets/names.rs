//! Which strings may name a toolset: the rule of [`check_toolset_name`], which every toolset,
//! composite and alias name obeys.

use std::fmt;

/// The longest toolset name, in characters.
pub const MAX_TOOLSET_NAME_CHARS: usize = 64;

/// Why a string cannot name a toolset (see [`check_toolset_name`] for the rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolsetNameError {
    /// The name is empty.
    Empty,
    /// The name is `all` or `*`, which always mean every tool.
    Reserved,
    /// The name contains whitespace.
    Whitespace,
    /// The name contains a control character or an invisible formatting character.
    Control,
    /// The name contains a comma.
    Comma,
    /// The name is longer than [`MAX_TOOLSET_NAME_CHARS`] characters.
    TooLong,
}

/// The message of each rule, written once for [`ToolsetNameError::message`] and for the
/// compile-time error of [`toolset!`](crate::toolset!) (a `const` cannot format).
macro_rules! messages {
    ($($rule:ident => $text:literal,)*) => {
        impl ToolsetNameError {
            /// What is wrong and how to fix it, as one sentence fragment.
            pub const fn message(self) -> &'static str {
                match self {
                    $(Self::$rule => $text,)*
                }
            }

            /// The message prefixed with what it is about: the compile error
            /// [`toolset!`](crate::toolset!) raises.
            #[doc(hidden)]
            pub const fn compile_error_message(self) -> &'static str {
                match self {
                    $(Self::$rule => concat!("invalid toolset name: ", $text),)*
                }
            }
        }
    };
}

messages! {
    Empty => "it is empty; give the toolset a name",
    Reserved => "`all` and `*` are reserved (they select every tool); choose another name",
    Whitespace => "it contains whitespace; use '-' or '_' between words (like `web-search`)",
    Control => "it contains a control or invisible formatting character; use visible characters",
    Comma => "it contains a comma, which separates names in lists such as `--enable`; use '-' or '_'",
    TooLong => "it is longer than 64 characters; shorten it",
}

impl fmt::Display for ToolsetNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for ToolsetNameError {}

/// Checks that `name` may name a toolset, composite or alias.
///
/// A toolset name is typed by operators (`--enable web,files`, `enabled = ["web"]`), shown in
/// listings, and looked up exactly. So a name that could never be selected, or that reads as
/// something else, is refused where it is declared rather than discovered missing later:
///
/// 1. not empty;
/// 2. not `all` or `*`, which always mean every tool (a toolset of that name could never be
///    selected alone);
/// 3. no whitespace (`"my tools"` is two names in most shells), no control character, and no
///    invisible formatting character (zero-width spaces, bidirectional overrides: a name that
///    looks like another in a listing);
/// 4. no comma, which separates names in lists such as `--enable`;
/// 5. at most [`MAX_TOOLSET_NAME_CHARS`] characters.
///
/// The check is a `const fn`, so [`toolset!`](crate::toolset!) refuses a bad name at compile
/// time; the registry checks again at run time for names built then (plugins, MCP servers).
///
/// ```
/// use hermes_tools::toolsets::{ToolsetNameError, check_toolset_name};
///
/// assert_eq!(check_toolset_name("mcp-time"), Ok(()));
/// assert_eq!(check_toolset_name("all"), Err(ToolsetNameError::Reserved));
/// assert_eq!(check_toolset_name("my tools"), Err(ToolsetNameError::Whitespace));
/// ```
///
/// # Errors
///
/// The rule `name` breaks: the first in the order above, except that length is checked last
/// and, between rules 3 and 4, the first offending character decides.
pub const fn check_toolset_name(name: &str) -> Result<(), ToolsetNameError> {
    let bytes = name.as_bytes();
    if bytes.is_empty() {
        return Err(ToolsetNameError::Empty);
    }
    if is_reserved(bytes) {
        return Err(ToolsetNameError::Reserved);
    }
    let mut at = 0;
    let mut chars = 0;
    while at < bytes.len() {
        let (c, width) = decode(bytes, at);
        if c.is_whitespace() {
            return Err(ToolsetNameError::Whitespace);
        }
        if is_control(c) || is_invisible(c) {
            return Err(ToolsetNameError::Control);
        }
        if c == ',' {
            return Err(ToolsetNameError::Comma);
        }
        at += width;
        chars += 1;
    }
    if chars > MAX_TOOLSET_NAME_CHARS {
        return Err(ToolsetNameError::TooLong);
    }
    Ok(())
}

const fn is_reserved(bytes: &[u8]) -> bool {
    matches!(bytes, b"all" | b"*")
}

/// Unicode's `Cc`: C0, DEL and C1.
const fn is_control(c: char) -> bool {
    matches!(c, '\0'..='\x1f' | '\x7f'..='\u{9f}')
}

/// The `Cf` characters that change how text reads without showing: zero-width characters,
/// bidirectional marks, embeddings, overrides and isolates, the word joiner and the BOM.
const fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// The character starting at byte `at` of `bytes` (valid UTF-8, `at` on a boundary) and its
/// width in bytes: `str::chars` is not available in `const fn`.
const fn decode(bytes: &[u8], at: usize) -> (char, usize) {
    let first = bytes[at] as u32;
    let (code, width) = if first < 0x80 {
        (first, 1)
    } else if first < 0xe0 {
        (((first & 0x1f) << 6) | tail(bytes, at + 1), 2)
    } else if first < 0xf0 {
        let rest = (tail(bytes, at + 1) << 6) | tail(bytes, at + 2);
        (((first & 0x0f) << 12) | rest, 3)
    } else {
        let rest = (tail(bytes, at + 1) << 12) | (tail(bytes, at + 2) << 6) | tail(bytes, at + 3);
        (((first & 0x07) << 18) | rest, 4)
    };
    match char::from_u32(code) {
        Some(c) => (c, width),
        // Unreachable for a `&str`; a replacement character is refused by no rule.
        None => ('\u{fffd}', width),
    }
}

/// The six payload bits of the continuation byte at `at` (closures cannot run in `const fn`).
const fn tail(bytes: &[u8], at: usize) -> u32 {
    (bytes[at] as u32) & 0x3f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_names_pass() {
        for name in [
            "web",
            "mcp-time",
            "files_v2",
            "hermes.cli",
            "ünïcode",
            "日本語",
            "a:b",
        ] {
            assert_eq!(check_toolset_name(name), Ok(()), "{name:?}");
        }
        assert_eq!(check_toolset_name(&"x".repeat(64)), Ok(()));
        // Characters, not bytes: 64 three-byte characters pass.
        assert_eq!(check_toolset_name(&"語".repeat(64)), Ok(()));
    }

    #[test]
    fn each_rule_refuses_what_it_names() {
        let cases = [
            ("", ToolsetNameError::Empty),
            ("all", ToolsetNameError::Reserved),
            ("*", ToolsetNameError::Reserved),
            ("my tools", ToolsetNameError::Whitespace),
            (" web", ToolsetNameError::Whitespace),
            ("web\t", ToolsetNameError::Whitespace),
            ("web\n", ToolsetNameError::Whitespace),
            ("web\u{a0}x", ToolsetNameError::Whitespace),
            ("web\u{3000}x", ToolsetNameError::Whitespace),
            ("web\0", ToolsetNameError::Control),
            ("web\x1b[31m", ToolsetNameError::Control),
            ("web\u{85}", ToolsetNameError::Whitespace),
            ("web\u{9b}", ToolsetNameError::Control),
            ("we\u{200b}b", ToolsetNameError::Control),
            ("\u{202e}bew", ToolsetNameError::Control),
            ("web,files", ToolsetNameError::Comma),
            (&"x".repeat(65), ToolsetNameError::TooLong),
        ];
        for (name, expected) in cases {
            assert_eq!(check_toolset_name(name), Err(expected), "{name:?}");
        }
        // Only the exact reserved spellings are reserved.
        for name in ["All", "ALL", "all-tools", "**"] {
            assert_eq!(check_toolset_name(name), Ok(()), "{name:?}");
        }
    }

    #[test]
    fn the_const_decoder_agrees_with_chars() {
        let text = "a\u{7f}é\u{85}語\u{feff}😀\u{10ffff}z";
        let mut at = 0;
        for expected in text.chars() {
            let (c, width) = decode(text.as_bytes(), at);
            assert_eq!((c, width), (expected, expected.len_utf8()));
            at += width;
        }
        assert_eq!(at, text.len());
    }

    #[test]
    fn compile_errors_say_what_they_are_about() {
        assert_eq!(
            ToolsetNameError::Empty.compile_error_message(),
            "invalid toolset name: it is empty; give the toolset a name"
        );
    }

    #[test]
    fn the_rule_runs_at_compile_time() {
        const OK: Result<(), ToolsetNameError> = check_toolset_name("coding");
        const BAD: Result<(), ToolsetNameError> = check_toolset_name("all");
        assert_eq!((OK, BAD), (Ok(()), Err(ToolsetNameError::Reserved)));
    }

    #[test]
    fn messages_say_how_to_fix() {
        assert!(
            ToolsetNameError::Whitespace
                .to_string()
                .contains("'-' or '_'")
        );
        assert!(
            ToolsetNameError::Reserved
                .to_string()
                .contains("choose another name")
        );
    }
}
