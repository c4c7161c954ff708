//! Rendering an over-size answer straight from its JSON text (see the [module docs](super),
//! "Rendering"), in one pass over it: each top-level member (or item) is read in turn, a
//! string decoded straight into the rendering, any other value parsed alone.
//!
//! The general path parses the whole answer into a `Value`, writes it back and compares that
//! with the text made canonical (to catch what parsing loses), then renders the `Value`: about
//! six passes over a 20 MB answer and three copies of it alive at once. Here a string member,
//! which is what makes answers big (a file, a command's output), costs one decoding pass and
//! one copy, the rendering itself. Whatever this path is not sure of (a duplicate key, a value
//! that would not round trip, a surrogate escape, nesting near serde_json's limit, text that
//! is not JSON, an empty object or array) it leaves to the general path, which decides
//! exactly; so where it answers, it answers what the general path would.

use std::collections::HashSet;

use serde_json::Value;

use super::render::{push_header, push_section, round_trips};

/// The deepest a member's value may nest here: serde_json refuses documents nested deeper
/// than 127 levels, and the member sits one level down.
const MAX_MEMBER_DEPTH: usize = 126;

/// An answer rendered, and whether it is error-shaped (an `"error"` member that is not
/// `null`, `false` or `""`).
pub(super) struct Scanned {
    pub rendering: String,
    pub is_error: bool,
}

/// The rendering of `json`, when it is an object or array with members (or a string) whose
/// rendering this path can tell for sure; `None` leaves the answer to the general path.
pub(super) fn render(json: &str) -> Option<Scanned> {
    let mut scan = Scanner { text: json, at: 0 };
    let mut out = String::with_capacity(json.len() + 64);
    scan.ws();
    let is_error = match scan.peek()? {
        b'{' => object(&mut scan, &mut out)?,
        b'[' => {
            array(&mut scan, &mut out)?;
            false
        }
        b'"' => {
            let string = scan.string()?;
            string_section(&mut out, None, string)?;
            false
        }
        _ => return None,
    };
    scan.ws();
    (scan.at == json.len()).then_some(Scanned {
        rendering: out,
        is_error,
    })
}

/// The members of the object at the scanner, rendered; whether its `"error"` member makes it
/// error-shaped.
fn object(scan: &mut Scanner<'_>, out: &mut String) -> Option<bool> {
    scan.eat(b'{')?;
    let mut seen: HashSet<String, foldhash::fast::RandomState> = HashSet::default();
    let mut is_error = false;
    loop {
        scan.ws();
        let mut key = String::new();
        decode(scan.string()?.body, &mut key)?;
        scan.ws();
        scan.eat(b':')?;
        scan.ws();
        let label = Value::from(key.as_str()).to_string();
        let error = member(scan, out, &label)?;
        if key == "error" {
            is_error = error;
        }
        // A duplicate key is dropped by parsing: the general path renders the text as is.
        if !seen.insert(key) {
            return None;
        }
        scan.ws();
        match scan.next()? {
            b',' => {}
            b'}' => return Some(is_error),
            _ => return None,
        }
    }
}

/// The items of the array at the scanner, rendered.
fn array(scan: &mut Scanner<'_>, out: &mut String) -> Option<()> {
    scan.eat(b'[')?;
    for index in 0usize.. {
        scan.ws();
        member(scan, out, &format!("[{index}]"))?;
        scan.ws();
        match scan.next()? {
            b',' => {}
            b']' => return Some(()),
            _ => return None,
        }
    }
    None
}

/// Renders the value at the scanner as the section `label`; whether it is one that makes an
/// `"error"` member error-shaped (anything but `null`, `false` and `""`).
fn member(scan: &mut Scanner<'_>, out: &mut String, label: &str) -> Option<bool> {
    if scan.peek()? == b'"' {
        let string = scan.string()?;
        return string_section(out, Some(label), string);
    }
    let (text, depth) = scan.value()?;
    if depth > MAX_MEMBER_DEPTH {
        return None;
    }
    let value: Value = serde_json::from_str(text).ok()?;
    if !round_trips(text, &value) {
        return None;
    }
    push_section(out, Some(label), "json", &format!("{value:#}"));
    Some(!matches!(value, Value::Null | Value::Bool(false)))
}

/// Decodes a string token into a `string` section of `out`; whether the string is not empty.
fn string_section(out: &mut String, label: Option<&str>, string: Token<'_>) -> Option<bool> {
    push_header(out, label, "string", string.newlines + 1);
    let start = out.len();
    decode(string.body, out)?;
    let empty = out.len() == start;
    out.push('\n');
    Some(!empty)
}

/// Appends the text of a JSON string token's `body` to `out`, as serde_json decodes it;
/// `None` for a body serde_json would refuse, and for surrogate escapes (left to the general
/// path).
fn decode(body: &str, out: &mut String) -> Option<()> {
    let mut rest = body;
    while let Some(at) = memchr::memchr(b'\\', rest.as_bytes()) {
        push_raw(out, &rest[..at])?;
        let c = match rest.as_bytes().get(at + 1)? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hex = rest.get(at + 2..at + 6)?;
                if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return None;
                }
                // A surrogate (paired or not) is no `char`: the general path decides.
                out.push(char::from_u32(u32::from_str_radix(hex, 16).ok()?)?);
                rest = &rest[at + 6..];
                continue;
            }
            _ => return None,
        };
        out.push(c);
        rest = &rest[at + 2..];
    }
    push_raw(out, rest)
}

/// Appends text that holds no escape; `None` if it holds a control character, which a JSON
/// string may not.
fn push_raw(out: &mut String, raw: &str) -> Option<()> {
    if raw.bytes().any(|b| b < 0x20) {
        return None;
    }
    out.push_str(raw);
    Some(())
}

/// A string token: its body between the quotes, escapes as written, and the newlines it
/// decodes to (its `\n` and `\u000a` escapes: a JSON string holds no raw newline).
#[derive(Clone, Copy)]
struct Token<'a> {
    body: &'a str,
    newlines: usize,
}

/// A cursor over JSON text.
struct Scanner<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
    }

    /// Skips JSON whitespace.
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// The string token at the cursor, the cursor moved past it.
    fn string(&mut self) -> Option<Token<'a>> {
        self.eat(b'"')?;
        let start = self.at;
        let mut newlines = 0;
        loop {
            let bytes = self.text.as_bytes().get(self.at..)?;
            let found = memchr::memchr2(b'"', b'\\', bytes)?;
            self.at += found;
            if bytes[found] == b'"' {
                let body = self.text.get(start..self.at)?;
                self.at += 1;
                return Some(Token { body, newlines });
            }
            // An escape: the backslash and the character it escapes (a `\u`'s digits hold no
            // quote or backslash).
            let escaped = &bytes[found + 1..];
            if escaped.first() == Some(&b'n')
                || escaped
                    .get(..5)
                    .is_some_and(|u| u.eq_ignore_ascii_case(b"u000a"))
            {
                newlines += 1;
            }
            self.at += 2;
        }
    }

    /// The text of the value at the cursor, which is not a string (an object, an array, a
    /// number, a literal), and how deep it nests; the cursor moved past it. Not checked
    /// here: the caller parses it.
    fn value(&mut self) -> Option<(&'a str, usize)> {
        let start = self.at;
        let (mut depth, mut deepest) = (0usize, 0usize);
        loop {
            match self.peek() {
                Some(b'"') if depth > 0 => {
                    self.string()?;
                    continue;
                }
                Some(b'{' | b'[') => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                Some(b'}' | b']') if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        self.at += 1;
                        break;
                    }
                }
                Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') | None if depth == 0 => {
                    break;
                }
                None => return None,
                Some(_) => {}
            }
            self.at += 1;
        }
        let text = self.text.get(start..self.at)?;
        (!text.is_empty()).then_some((text, deepest))
    }
}
