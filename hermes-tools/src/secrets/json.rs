//! JSON-aware redaction of an answer: the result is the same JSON document, valid, with every
//! credential masked.
//!
//! Redacting a JSON text with text patterns can break it: a value pattern that eats a `\"`
//! escape ends the string early. So a document is walked token by token instead: every string
//! (keys included) is decoded, redacted as text and re-encoded only if something changed, and
//! the value of a member whose key names a secret (`"password"`, `"api_key"`,
//! `"SecretAccessKey"`, `"Authorization"`, `"Cookie"`, … compared as
//! [`names_secret`](super::keys::names_secret) does) becomes `"***"` whole when it is a string
//! or a number; so do the strings and numbers of an array under such a key. Everything else (the
//! order of members, whitespace, numbers too large for an `f64`) is copied byte for byte.

use std::borrow::Cow;
use std::sync::LazyLock;

use serde::de::IgnoredAny;

use super::{engine, keys, prefilter, redact};

/// Redacts a JSON document, keeping it valid JSON; a text that is not JSON is redacted as text.
///
/// The prefilter runs over the raw text first: when no rule can match (the common case), the
/// text is returned borrowed, untouched, having cost one scan. A `\u` or `\/` escape could hide
/// a marker from that scan, so a document containing one always takes the full path.
pub fn redact_json(json: &str) -> Cow<'_, str> {
    let candidates = prefilter::candidates(json);
    if candidates.is_empty() && !has_hiding_escape(json.as_bytes()) {
        return Cow::Borrowed(json);
    }
    if serde_json::from_str::<IgnoredAny>(json).is_err() {
        return engine::redact_with(json, &candidates);
    }
    rewrite(json)
}

/// `\uXXXX` or `\/`: escapes a serializer may use for characters a marker is made of.
///
/// Two searches for the pairs, each matching both bytes at once, rather than a visit of every
/// backslash: text full of `\n` and `\"` (a file, a log) has one every few bytes, and visiting
/// them cost about a sixth of the prefilter's pass over a 20 MB answer, the searches about a
/// twentieth (`bench/README.md`, big inputs). A `\u` after an escaped backslash (`\\u`) is no
/// escape but is taken for one, as before: the document is then walked, slower, never wrong.
fn has_hiding_escape(bytes: &[u8]) -> bool {
    use memchr::memmem::Finder;
    // Built once: setting a finder up costs more than searching a small answer, which mostly
    // has no backslash at all.
    static PAIRS: LazyLock<[Finder<'static>; 2]> =
        LazyLock::new(|| [Finder::new(b"\\u"), Finder::new(b"\\/")]);
    let Some(first) = memchr::memchr(b'\\', bytes) else {
        return false;
    };
    PAIRS
        .iter()
        .any(|pair| pair.find(&bytes[first..]).is_some())
}

/// Where the walk is: inside an object (expecting a key or a value) or an array.
enum Frame {
    Object { expect_key: bool },
    Array { secret: bool },
}

/// The index just past the string token starting at `start` (a `"`).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// The text of a string token (with its quotes).
fn decode(token: &str) -> Cow<'_, str> {
    if !token.contains('\\') {
        return Cow::Borrowed(&token[1..token.len() - 1]);
    }
    // The document parsed, so its strings do.
    serde_json::from_str::<String>(token)
        .map_or_else(|_| Cow::Borrowed(&token[1..token.len() - 1]), Cow::Owned)
}

fn encode(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"***\"".to_owned())
}

/// Walks a valid document, splicing in what changed.
fn rewrite(json: &str) -> Cow<'_, str> {
    let bytes = json.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    // The next value belongs to a key naming a secret.
    let mut secret_value = false;
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut splice = |range: std::ops::Range<usize>, with: &str, out: &mut Option<String>| {
        let out = out.get_or_insert_with(|| String::with_capacity(json.len()));
        out.push_str(&json[copied..range.start]);
        out.push_str(with);
        copied = range.end;
    };
    let mut at = 0;
    while at < bytes.len() {
        let in_secret_array = matches!(stack.last(), Some(Frame::Array { secret: true }));
        match bytes[at] {
            b'{' => {
                stack.push(Frame::Object { expect_key: true });
                secret_value = false;
                at += 1;
            }
            b'[' => {
                stack.push(Frame::Array {
                    secret: std::mem::take(&mut secret_value),
                });
                at += 1;
            }
            b'}' | b']' => {
                stack.pop();
                at += 1;
            }
            b':' | b',' => {
                if let Some(Frame::Object { expect_key }) = stack.last_mut() {
                    *expect_key = bytes[at] == b',';
                }
                at += 1;
            }
            b'"' => {
                let end = string_end(bytes, at);
                let text = decode(&json[at..end]);
                let is_key = matches!(stack.last(), Some(Frame::Object { expect_key: true }));
                let masked_whole = !is_key
                    && (std::mem::take(&mut secret_value) || in_secret_array)
                    && !text.is_empty()
                    && !keys::is_mask(&text);
                if is_key {
                    secret_value = keys::names_secret(&text) || keys::is_credential_header(&text);
                }
                if masked_whole {
                    splice(at..end, "\"***\"", &mut out);
                } else if let Cow::Owned(redacted) = redact(&text) {
                    splice(at..end, &encode(&redacted), &mut out);
                }
                at = end;
            }
            b'-' | b'0'..=b'9' => {
                let end = bytes[at..]
                    .iter()
                    .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .map_or(bytes.len(), |n| at + n);
                if std::mem::take(&mut secret_value) || in_secret_array {
                    splice(at..end, "\"***\"", &mut out);
                }
                at = end;
            }
            b't' | b'f' | b'n' => {
                // true, false, null: never a secret.
                secret_value = false;
                at += bytes[at..]
                    .iter()
                    .position(|b| !b.is_ascii_alphabetic())
                    .unwrap_or(bytes.len() - at);
            }
            _ => at += 1,
        }
    }
    match out {
        None => Cow::Borrowed(json),
        Some(mut out) => {
            out.push_str(&json[copied..]);
            Cow::Owned(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::has_hiding_escape;

    #[test]
    fn a_hiding_escape_is_a_backslash_before_u_or_slash_anywhere() {
        // What the search stands for: a visit of every backslash.
        let visited = |bytes: &[u8]| {
            (0..bytes.len())
                .any(|at| bytes[at] == b'\\' && matches!(bytes.get(at + 1), Some(b'u' | b'/')))
        };
        let long = "x\\n".repeat(100);
        for text in [
            r"plain",
            r"\n\t\\",
            r"\u0041",
            r"a\/b",
            r"\\u",
            r"\",
            r"ends in \",
            r"\\\/",
            r"u/\ u",
            &long,
            &(long.clone() + r"\u0041"),
            &(long.clone() + r"\/"),
        ] {
            assert_eq!(
                has_hiding_escape(text.as_bytes()),
                visited(text.as_bytes()),
                "{text}"
            );
        }
    }
}
