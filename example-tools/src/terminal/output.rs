//! What the model reads of a command's output: Hermes' processing.
//!
//! Cut to [`MAX_OUTPUT_CHARS`] (the first 40% and the last 60%, with a marker), ANSI escapes
//! stripped, trimmed, and credentials redacted. The output is held in bounded memory however
//! much the command prints.

use std::collections::VecDeque;
use std::sync::LazyLock;

use hermes_tools::secrets::redact;
use regex::Regex;

use super::MAX_OUTPUT_CHARS;

pub(super) const HEAD_CHARS: usize = MAX_OUTPUT_CHARS * 2 / 5;
pub(super) const TAIL_CHARS: usize = MAX_OUTPUT_CHARS - HEAD_CHARS;

/// Command output kept in bounded memory: the first bytes, the last bytes, and a character
/// count, which is all the head-and-tail cut needs however much the command prints.
#[derive(Default)]
pub(super) struct OutputBuffer {
    pub(super) head: Vec<u8>,
    pub(super) tail: VecDeque<u8>,
    /// Characters seen: UTF-8 bytes that do not continue a character.
    chars: usize,
    /// Whether bytes between head and tail were dropped.
    dropped: bool,
}

/// A UTF-8 character is at most four bytes, so these hold at least the characters kept.
pub(super) const HEAD_BYTES: usize = HEAD_CHARS * 4;
pub(super) const TAIL_BYTES: usize = TAIL_CHARS * 4;

impl OutputBuffer {
    pub(super) fn push(&mut self, bytes: &[u8]) {
        self.chars += bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count();
        let to_head = bytes.len().min(HEAD_BYTES - self.head.len());
        self.head.extend_from_slice(&bytes[..to_head]);
        self.tail.extend(&bytes[to_head..]);
        if self.tail.len() > TAIL_BYTES {
            self.tail.drain(..self.tail.len() - TAIL_BYTES);
            self.dropped = true;
        }
    }

    /// The output as text, already cut as Hermes cuts it when it is too long.
    pub(super) fn into_text(self) -> String {
        let mut tail = Vec::from(self.tail);
        if !self.dropped {
            let mut all = self.head;
            all.append(&mut tail);
            return truncate_middle(&String::from_utf8_lossy(&all));
        }
        // The tail may start inside a character: skip its continuation bytes.
        let start = tail
            .iter()
            .position(|&b| b & 0xC0 != 0x80)
            .unwrap_or(tail.len());
        let head = String::from_utf8_lossy(&self.head);
        let tail = String::from_utf8_lossy(&tail[start..]);
        let tail_skip = tail.chars().count().saturating_sub(TAIL_CHARS);
        join_cut(
            head.chars().take(HEAD_CHARS).collect(),
            tail.chars().skip(tail_skip).collect(),
            self.chars,
        )
    }
}

/// Hermes' cut: over [`MAX_OUTPUT_CHARS`], keep the first 40% and the last 60%.
pub(super) fn truncate_middle(text: &str) -> String {
    let total = text.chars().count();
    if total <= MAX_OUTPUT_CHARS {
        return text.to_owned();
    }
    join_cut(
        text.chars().take(HEAD_CHARS).collect(),
        text.chars().skip(total - TAIL_CHARS).collect(),
        total,
    )
}

fn join_cut(head: String, tail: String, total: usize) -> String {
    let omitted = total.saturating_sub(HEAD_CHARS + TAIL_CHARS);
    format!(
        "{head}\n\n... [OUTPUT TRUNCATED - {omitted} chars omitted out of {total} total] ...\n\n{tail}"
    )
}

/// Hermes' ECMA-48 escape pattern (`tools/ansi_strip.py`).
static ANSI_ESCAPE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\x1b(?:\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]",
        r"|\][\s\S]*?(?:\x07|\x1b\\)",
        r"|[PX^_][\s\S]*?\x1b\\",
        r"|[\x20-\x2f]+[\x30-\x7e]",
        r"|[\x30-\x7e])",
        r"|\x{9b}[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]",
        r"|\x{9d}[\s\S]*?(?:\x07|\x{9c})",
        r"|[\x{80}-\x{9f}]",
    ))
    .ok()
});

/// Strips ANSI escapes, trims, and (unless `redacting` is off) redacts credentials, as Hermes
/// does after the cut.
pub(super) fn finish_output(text: &str, redacting: bool) -> String {
    let stripped = match ANSI_ESCAPE.as_ref() {
        Some(pattern) => pattern.replace_all(text, ""),
        None => text.into(),
    };
    let trimmed = stripped.trim();
    if redacting {
        redact(trimmed).into_owned()
    } else {
        trimmed.to_owned()
    }
}
