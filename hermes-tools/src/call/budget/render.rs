//! Rendering an answer as pageable text, the spill file's content (see the
//! [module docs](super), "Rendering").

use serde_json::Value;

pub(super) fn render_value(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(members) if !members.is_empty() => {
            for (key, member) in members {
                push_member(&mut out, &Value::from(key.as_str()).to_string(), member);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (index, item) in items.iter().enumerate() {
                push_member(&mut out, &format!("[{index}]"), item);
            }
        }
        Value::String(text) => push_section(&mut out, None, "string", text),
        other => push_section(&mut out, None, "json", &format!("{other:#}")),
    }
    out
}

pub(super) fn render_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 32);
    push_section(&mut out, None, "text", text);
    out
}

fn push_member(out: &mut String, label: &str, value: &Value) {
    match value {
        Value::String(text) => push_section(out, Some(label), "string", text),
        other => push_section(out, Some(label), "json", &format!("{other:#}")),
    }
}

pub(super) fn push_section(out: &mut String, label: Option<&str>, kind: &str, body: &str) {
    push_header(out, label, kind, count_newlines(body) + 1);
    out.push_str(body);
    out.push('\n');
}

/// A section's header line, for a body of `lines` lines.
pub(super) fn push_header(out: &mut String, label: Option<&str>, kind: &str, lines: usize) {
    use std::fmt::Write as _;
    let unit = if lines == 1 { "line" } else { "lines" };
    // Writing to a `String` cannot fail.
    let _ = match label {
        Some(label) => writeln!(out, "== {label}: {kind}, {lines} {unit} =="),
        None => writeln!(out, "== {kind}, {lines} {unit} =="),
    };
}

pub(super) fn count_newlines(text: &str) -> usize {
    // In chunks counted in a byte, which the compiler turns into wide compares: a plain
    // `filter().count()` went a byte at a time, a pass as slow as parsing the answer.
    text.as_bytes()
        .chunks(u8::MAX as usize)
        .map(|chunk| {
            let newlines = chunk
                .iter()
                .fold(0u8, |n, &byte| n + u8::from(byte == b'\n'));
            usize::from(newlines)
        })
        .sum()
}

/// Whether `value`, parsed from `json`, holds all of it: parsing drops duplicate keys and
/// rounds numbers past 64 bits, and then the compact text differs from `json`'s canonical form.
pub(super) fn round_trips(json: &str, value: &Value) -> bool {
    // Compared as text: `Value == String` would compare with a JSON string value instead.
    let compact = value.to_string();
    canonical(json).is_some_and(|canonical| canonical == compact)
}

/// `json` without whitespace between tokens and with every string escaped as serde_json does,
/// so that text from other serializers (`", "`, `\u00e9`) compares equal to serde_json's.
fn canonical(json: &str) -> Option<String> {
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(c) = rest.chars().next() {
        let taken = match c {
            ' ' | '\t' | '\n' | '\r' => 1,
            '"' => {
                let end = string_token_len(rest)?;
                let text: String = serde_json::from_str(rest.get(..end)?).ok()?;
                out.push_str(&Value::String(text).to_string());
                end
            }
            _ => {
                out.push(c);
                c.len_utf8()
            }
        };
        rest = rest.get(taken..)?;
    }
    Some(out)
}

/// The byte length of the string token at the start of `text`, quotes included.
fn string_token_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 1;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}
