//! Private key blocks: where one that begins ends.
//!
//! With an END line, the block ends there. Without one (a truncated paste, a `head` of the file,
//! a tool's output cut at a limit) it runs over what looks like its body, line by line, and
//! stops at the first line that does not: a key is masked whole and the text after it is kept.
//! Lines may carry a tool's gutter (`read_file`'s `  12|`, `cat -n`, `grep -n`) and may be
//! separated by real or JSON-escaped newlines.

use std::sync::LazyLock;

use regex::Regex;

use super::catalogue::PEM_END;

static END_LINE: LazyLock<Regex> = LazyLock::new(|| {
    // A constant of the catalogue, covered by its tests.
    Regex::new(PEM_END).unwrap_or_else(|err| panic!("invalid built-in pattern {PEM_END}: {err}"))
});

/// Where a private key block that begins at `begin_end` (the end of its BEGIN line) ends.
///
/// `no_end_after` remembers the first position after which no END line exists, so a text of
/// many BEGIN lines and no END is searched once, not once per BEGIN.
pub(super) fn block_end(text: &str, begin_end: usize, no_end_after: &mut Option<usize>) -> usize {
    if no_end_after.is_none_or(|from| begin_end < from) {
        match END_LINE.find_at(text, begin_end) {
            Some(end) => return end.end(),
            None => *no_end_after = Some(begin_end),
        }
    }
    body_end(text, begin_end)
}

/// The end of a block without an END line (a truncated paste, a `head` of the file): the rest
/// of the BEGIN line if it is base64, then lines (real or JSON-escaped newlines) of base64,
/// `Name: value` headers before the first of them, and blank lines between them. The first
/// line that is none of these ends the block, before its line break.
fn body_end(text: &str, begin_end: usize) -> usize {
    fn is_base64(line: &str) -> bool {
        let body = line.trim_end_matches('=');
        !body.is_empty()
            && line.len() - body.len() <= 2
            && body
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/'))
    }
    fn is_header(line: &str) -> bool {
        line.split_once(": ").is_some_and(|(name, _)| {
            name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
    }
    // Real line breaks, then those of a JSON string (`\n` written as backslash and `n`).
    const BREAKS: [&str; 6] = ["\r\n", "\n", "\r", "\\r\\n", "\\n", "\\r"];
    // One line: up to a real line break or the backslash of an escaped one.
    let line_len = |rest: &str| rest.find(['\n', '\r', '\\']).unwrap_or(rest.len());
    let mut end = begin_end;
    let mut rest = &text[begin_end..];
    // The rest of the BEGIN line: its base64 words, up to the first that is not.
    let first = &rest[..line_len(rest)];
    let mut words_end = 0;
    loop {
        let word_start = first.len() - first[words_end..].trim_start().len();
        if word_start == first.len() {
            // Only whitespace is left: the whole line goes.
            words_end = first.len();
            break;
        }
        // A word ends at whitespace or at a quote (the end of a quoted value).
        let word_len = first[word_start..]
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
            .unwrap_or(first.len() - word_start);
        if word_len == 0 || !is_base64(&first[word_start..word_start + word_len]) {
            break;
        }
        words_end = word_start + word_len;
    }
    end += words_end;
    rest = &rest[words_end..];
    let (mut at, mut headers_allowed, mut width) = (end, true, None);
    let mut last_seen = false;
    while let Some(brk) = BREAKS.into_iter().find(|b| rest.starts_with(b)) {
        let line = &rest[brk.len()..];
        let content = &line[..line_len(line)];
        let trimmed = strip_gutter(content).trim();
        // After the first body line, a line is the body's only if it is as wide, or is its
        // last line: narrower, and 16 characters or more, or whole base64 quads (PEM pads)
        // that look random; nothing comes after it. A short word on its own line after a key
        // (`let`, `keyboard`) is text.
        let fits = width.is_none_or(|width| {
            let len = trimmed.len();
            let random = |line: &str| {
                let has = |test: fn(&u8) -> bool| line.as_bytes().iter().any(test);
                has(u8::is_ascii_digit)
                    || has(|b| matches!(b, b'+' | b'/' | b'='))
                    || (has(u8::is_ascii_uppercase) && has(u8::is_ascii_lowercase))
            };
            !last_seen
                && (len == width
                    || (len < width && (len >= 16 || (len.is_multiple_of(4) && random(trimmed)))))
        });
        if fits && is_base64(trimmed) {
            headers_allowed = false;
            last_seen |= width.is_some_and(|width| trimmed.len() < width);
            width.get_or_insert(trimmed.len());
        } else if !(trimmed.is_empty() || (headers_allowed && is_header(trimmed))) {
            // A body line with text after it on the same line (a paste cut short and followed
            // by prose): its base64 is masked too when it is a full-width line, the padded last
            // line of the body, or, as the first body line, as wide as a PEM line (44 or more).
            let body = strip_gutter(content);
            let word = body.split(char::is_whitespace).next().unwrap_or("");
            let body_like = match width {
                Some(width) => word.len() == width || (word.ends_with('=') && word.len() <= width),
                None => word.len() >= 44,
            };
            if body_like && is_base64(word) {
                end = at + brk.len() + (content.len() - body.len()) + word.len();
            }
            break;
        }
        at += brk.len() + content.len();
        rest = &line[content.len()..];
        if !trimmed.is_empty() {
            end = at;
        }
    }
    end
}

/// A line without the gutter a tool put before it: `  12|`, `12:`, `12<tab>` (`read_file`,
/// `cat -n`), `path:12:` or `path-12-` (`grep -n`).
pub(super) fn strip_gutter(line: &str) -> &str {
    let numbered = |text: &str, marks: &[char]| -> Option<usize> {
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        let mark = text[digits..].chars().next()?;
        (digits > 0 && marks.contains(&mark)).then_some(digits + mark.len_utf8())
    };
    let indented = line.trim_start();
    if let Some(n) = numbered(indented, &['|', ':', '\t', '→']) {
        let rest = &indented[n..];
        return rest.strip_prefix(' ').unwrap_or(rest);
    }
    // `path:12:` / `path-12-`: a path (no spaces), a line number, the same mark again.
    let path_end = line.find(char::is_whitespace).unwrap_or(line.len());
    for (at, mark) in line[..path_end].char_indices() {
        if at > 0 && (mark == ':' || mark == '-') {
            let rest = &line[at + 1..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 && rest[digits..].starts_with(mark) {
                return &rest[digits + 1..];
            }
        }
    }
    line
}

/// Compiles the END pattern (for the tests that compile every pattern).
#[cfg(test)]
pub(super) fn compile() {
    LazyLock::force(&END_LINE);
}
