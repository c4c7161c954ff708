//! An answer's JSON text, kept inline when it is short.
//!
//! Most cheap tools answer with a few bytes (`42`, `true`, a short string). Serialized with
//! `serde_json::to_string`, each answer is a heap block of 128 bytes; a turn keeps every answer
//! of its batch until the model is sent them, and 64 blocks alive at once, freed together, cost
//! the allocator about a tenth of a batch of trivial calls (`bench/README.md`, `--bench turn`),
//! where a loop dropping each answer reuses one block. An answer of up to
//! [`INLINE`] bytes is written on the stack and kept inline ([`SmolStr`]), with no allocation;
//! a longer one spills into a `Vec` that becomes its `String`, as before.

use std::fmt;
use std::io;
use std::ops::Deref;

use serde::Serialize;
use smol_str::SmolStr;

/// The longest text kept inline: 23 bytes.
const INLINE: usize = SmolStr::INLINE_CAP;

/// The first capacity of a text that spills (serde_json's `to_string` starts at 128 bytes).
const FIRST_SPILL: usize = 128;

/// The JSON text of a [`ToolAnswer`](super::answer::ToolAnswer).
#[derive(Clone)]
pub(crate) enum AnswerText {
    /// At most [`INLINE`] bytes, without an allocation.
    Inline(SmolStr),
    /// Anything else, as written.
    Heap(String),
}

impl AnswerText {
    /// `value` as JSON text: inline when it fits.
    pub(crate) fn serialize<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Self> {
        let mut out = Spilling {
            inline: [0; INLINE],
            len: 0,
            heap: Vec::new(),
        };
        serde_json::to_writer(&mut out, value)?;
        Ok(if out.heap.capacity() == 0 {
            let text =
                std::str::from_utf8(&out.inline[..out.len]).expect("serde_json writes UTF-8");
            Self::Inline(SmolStr::new_inline(text))
        } else {
            Self::Heap(String::from_utf8(out.heap).expect("serde_json writes UTF-8"))
        })
    }

    /// The text.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Self::Inline(text) => text.as_str(),
            Self::Heap(text) => text,
        }
    }

    /// The text, owned (an inline text is copied out).
    pub(crate) fn into_string(self) -> String {
        match self {
            Self::Inline(text) => text.as_str().to_owned(),
            Self::Heap(text) => text,
        }
    }
}

impl From<String> for AnswerText {
    /// Kept as it is: a `String` already made is not copied to be made smaller.
    fn from(text: String) -> Self {
        Self::Heap(text)
    }
}

impl Deref for AnswerText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for AnswerText {
    /// As the text's `Debug`: where it is kept is no part of the answer.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for AnswerText {
    /// Texts are equal when they read the same, wherever they are kept.
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

/// serde_json's output: on the stack while it fits in [`INLINE`] bytes, then in a `Vec`.
struct Spilling {
    inline: [u8; INLINE],
    /// The bytes of `inline` written (no longer read once the output has spilled).
    len: usize,
    /// Without capacity until the output outgrows `inline`: its capacity is what says that
    /// the output spilled, so no flag can disagree with it.
    heap: Vec<u8>,
}

impl io::Write for Spilling {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if self.heap.capacity() != 0 {
            self.heap.extend_from_slice(buf);
        } else if let Some(room) = self.inline.get_mut(self.len..self.len + buf.len()) {
            room.copy_from_slice(buf);
            self.len += buf.len();
        } else {
            self.heap
                .reserve(FIRST_SPILL.max((self.len + buf.len()).next_power_of_two()));
            self.heap.extend_from_slice(&self.inline[..self.len]);
            self.heap.extend_from_slice(buf);
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn short_answers_are_inline_and_longer_ones_spill_whole() {
        let short = json!({"a": 1, "b": "xyz"});
        let longer = json!({"a": 1, "b": "a string that does not fit"});
        let cases: [(&Value, bool); 6] = [
            (&json!(42), true),
            (&json!(true), true),
            (&json!("é, and \"quoted\""), true),
            (&short, true),
            (&longer, false),
            (&json!("x".repeat(10_000)), false),
        ];
        for (value, inline) in cases {
            let text = AnswerText::serialize(value).unwrap();
            assert_eq!(text.as_str(), value.to_string(), "{value}");
            assert_eq!(matches!(text, AnswerText::Inline(_)), inline, "{value}");
            assert_eq!(text.clone().into_string(), value.to_string());
        }
    }

    #[test]
    fn a_text_of_exactly_the_inline_size_stays_inline_and_one_more_byte_spills() {
        // A string's JSON is its content and two quotes.
        let fits = "x".repeat(INLINE - 2);
        let over = "x".repeat(INLINE - 1);
        assert!(matches!(
            AnswerText::serialize(&fits).unwrap(),
            AnswerText::Inline(text) if text.len() == INLINE
        ));
        match AnswerText::serialize(&over).unwrap() {
            AnswerText::Heap(text) => assert_eq!(text, format!("\"{over}\"")),
            AnswerText::Inline(_) => panic!("{} bytes kept inline", INLINE + 1),
        }
    }

    #[test]
    fn a_first_write_longer_than_the_inline_size_spills_whole() {
        // serde_json writes a raw value in one write.
        let raw =
            serde_json::value::RawValue::from_string(format!("[{}1]", "1,".repeat(15))).unwrap();
        match AnswerText::serialize(&raw).unwrap() {
            AnswerText::Heap(text) => assert_eq!(text, raw.get()),
            AnswerText::Inline(_) => panic!("{} bytes kept inline", raw.get().len()),
        }
    }

    #[test]
    fn the_debug_of_a_text_is_the_texts_wherever_it_is_kept() {
        let inline = AnswerText::serialize("hi").unwrap();
        assert!(matches!(inline, AnswerText::Inline(_)));
        assert_eq!(format!("{inline:?}"), format!("{:?}", r#""hi""#));
        let heap = AnswerText::from(r#""hi""#.to_owned());
        assert_eq!(format!("{heap:?}"), format!("{inline:?}"));
    }

    #[test]
    fn texts_compare_by_what_they_read() {
        let inline = AnswerText::serialize(&42).unwrap();
        assert_eq!(inline, AnswerText::from("42".to_owned()));
        assert_ne!(inline, AnswerText::from("43".to_owned()));
    }

    #[test]
    fn a_value_that_fails_to_serialize_is_an_error() {
        let mut map = std::collections::HashMap::new();
        map.insert(vec![1], 2);
        assert!(AnswerText::serialize(&map).is_err());
    }
}
