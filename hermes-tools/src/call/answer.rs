//! What a tool answers: always a JSON string, optionally with multimodal parts.
//!
//! The rules are documented on [`ToolAnswer`], where users read them.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::answer_text::AnswerText;
use crate::secrets;

/// The deepest nesting of arrays and objects an answer may have and still be sent as raw JSON.
///
/// serde_json's default recursion limit is 128, and it counts the container that would open a
/// 128th level: 127 levels parse, 128 do not. Clients in other languages have limits of the
/// same order (Python's `json` is bounded by its recursion limit), so this is the line.
pub(crate) const MAX_ANSWER_DEPTH: usize = 127;

/// Whether the JSON text `json` nests arrays and objects deeper than `limit`. One pass over the
/// bytes, jumping over strings (whose brackets are text) with memchr: no recursion, no allocation, about
/// 1.5 to 2 GB/s (faster than serde_json's own pass that checked the text is JSON).
fn nests_deeper_than(json: &str, limit: usize) -> bool {
    // Each level takes at least one byte: short text cannot be deep.
    if json.len() <= limit {
        return false;
    }
    let bytes = json.as_bytes();
    let mut depth = 0_usize;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                // To the closing quote, stepping over each escape: `\"` does not close. The
                // text between is skipped with memchr (a 20 MB string answer is mostly that).
                at += 1;
                loop {
                    let rest = bytes.get(at..).unwrap_or_default();
                    let Some(found) = memchr::memchr2(b'"', b'\\', rest) else {
                        // An unclosed string: nothing after it nests.
                        return false;
                    };
                    at += found;
                    if bytes[at] == b'"' {
                        break;
                    }
                    at += 2;
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    false
}

/// `json` as `{"result": "<json>"}` when it nests too deep for strict parsers, else as it is.
fn shallow(json: String) -> String {
    if nests_deeper_than(&json, MAX_ANSWER_DEPTH) {
        wrapped(&json)
    } else {
        json
    }
}

/// The length of `text` escaped as a JSON string's content, as serde_json escapes it: `"`, `\`
/// and the control characters with a short escape (`\n`) take two bytes, the other control
/// characters six (`\u001f`). Sizing the buffer exactly costs a pass at about 3 GB/s; growing
/// it by doubling cost a copy and a peak of twice the answer, and a guess that falls short
/// on text dense with escapes (code, logs) costs the same.
fn escaped_len(text: &str) -> usize {
    /// The bytes `byte` takes beyond one, branch-free so the loops below vectorize.
    fn extra(byte: u8) -> u8 {
        let control = u8::from(byte < 0x20);
        // \b \t \n \f \r: 8 to 13, but not 11 (vertical tab, written `\u000b`).
        let short = u8::from(byte.wrapping_sub(8) <= 5) & u8::from(byte != 11);
        control * 5 - short * 4 + u8::from(byte == b'"') + u8::from(byte == b'\\')
    }
    const LANES: usize = 32;
    // A lane adds at most 5 per round: 51 rounds fill a `u8` (255) without overflow.
    const ROUNDS: usize = 51;
    let mut blocks = text.as_bytes().chunks_exact(LANES * ROUNDS);
    let mut total = text.len();
    for block in &mut blocks {
        let mut lanes = [0u8; LANES];
        for round in block.chunks_exact(LANES) {
            for (lane, &byte) in lanes.iter_mut().zip(round) {
                *lane += extra(byte);
            }
        }
        total += lanes.iter().map(|&lane| usize::from(lane)).sum::<usize>();
    }
    let rest = blocks.remainder().iter();
    total + rest.map(|&byte| usize::from(extra(byte))).sum::<usize>()
}

/// `text` as the JSON text `{"result": "<text>"}`, one level deep. Written straight into a
/// buffer of its exact size: built as a `Value` and serialized, a 20 MB answer grew its buffer
/// by doubling from 128 bytes, and was then scanned for depth (about a sixth of echoing a
/// 20 MB argument, `bench/README.md`).
fn wrapped(text: &str) -> String {
    #[derive(Serialize)]
    struct Wrapped<'a> {
        result: &'a str,
    }
    let mut out = Vec::with_capacity(r#"{"result":""}"#.len() + escaped_len(text));
    // Neither can fail: a `&str` always serializes, a `Vec` always takes the bytes, and
    // serde_json writes UTF-8.
    serde_json::to_writer(&mut out, &Wrapped { result: text }).expect("a string serializes");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// What a tool answers: always a JSON string, optionally with multimodal parts.
///
/// A `#[tool]` function may return anything that becomes a [`ToolAnswer`]:
///
/// | return type | answer |
/// |---|---|
/// | `String`, `&str` | the text as is when it is JSON, else `{"result": text}` |
/// | [`serde_json::Value`] | the value |
/// | any `T: Serialize` | `T` serialized |
/// | [`ToolContent`] | `{"content": [parts]}`, with the parts kept for providers that take images |
/// | `Result<T, E>` with `E: Display` | `T` as above, or `{"error": e}` (sanitised) |
/// | `()` | `{"result": "ok"}` |
///
/// The model never receives a string that is not JSON: text that is not JSON is wrapped.
///
/// Nor JSON that a strict parser refuses: an answer nested deeper than 127
/// levels of arrays and objects (what serde_json's default parser accepts) is sent as text,
/// `{"result": "<its JSON>"}`, whether it came from a `String`, a `Value`, a serialized type,
/// an MCP server or a hook's replacement. The depth is measured by one scan of the text,
/// without recursion, so a result nested ten thousand levels deep cannot overflow the stack.
///
/// The answer of one tool call, as sent back to the model.
///
/// Its text is always valid JSON. Errors are JSON objects with an `"error"` member and are
/// marked by [`is_error`](Self::is_error), so MCP can set `isError` without parsing.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolAnswer {
    json: AnswerText,
    is_error: bool,
    content: Option<Vec<ContentPart>>,
    /// Whether the tool panicked (an error answer): the tool did not report a failure, it
    /// broke, which an MCP task reports as `failed` rather than as a tool error.
    panicked: bool,
}

impl ToolAnswer {
    /// An answer serialized from `value`; a value that cannot be serialized becomes an error answer.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Self {
        match AnswerText::serialize(value) {
            Ok(AnswerText::Heap(json)) => Self::ok_json(json),
            // At most 23 bytes nest at most 11 levels deep: no depth to check.
            Ok(inline) => Self::ok(inline),
            Err(err) => Self::error(format!("the tool's result could not be serialized: {err}")),
        }
    }

    /// An answer from text: kept as is when it is a JSON document that strict parsers read
    /// (nested at most 127 levels deep), else sent as `{"result": text}`.
    ///
    /// ```
    /// use hermes_tools::ToolAnswer;
    ///
    /// assert_eq!(ToolAnswer::text(r#"{"a":1}"#).as_str(), r#"{"a":1}"#);
    /// assert_eq!(ToolAnswer::text("plain").as_str(), r#"{"result":"plain"}"#);
    /// // Valid JSON, but deeper than serde_json (and so many clients) will parse:
    /// let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    /// assert_eq!(ToolAnswer::text(deep.clone()).to_value()["result"], deep);
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        let text = text.into();
        // `IgnoredAny` parses without recursion and without serde_json's depth limit; the
        // depth is then checked by `ok_json`.
        if serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok() {
            Self::ok_json(text)
        } else {
            Self::ok_wrapped(&text)
        }
    }

    /// An error answer, `{"error": message}`, with the message sanitised (see [`crate::secrets`]).
    pub fn error(message: impl fmt::Display) -> Self {
        Self::error_with(message, Map::new())
    }

    /// An error answer with more members beside `"error"` (such as `"suggestions"`).
    ///
    /// String members are sanitised like the message.
    pub fn error_with(message: impl fmt::Display, extra: Map<String, Value>) -> Self {
        let mut object = Map::with_capacity(extra.len() + 1);
        object.insert(
            "error".into(),
            Value::String(secrets::error_text(&message.to_string())),
        );
        for (key, value) in extra {
            let value = match value {
                Value::String(text) => Value::String(secrets::redact(&text).into_owned()),
                other => other,
            };
            object.insert(key, value);
        }
        Self {
            json: Value::Object(object).to_string().into(),
            is_error: true,
            content: None,
            panicked: false,
        }
    }

    /// A refusal, `{"error": message}`, as Hermes' pipeline sends it: redacted but not
    /// prefixed, because the message is written for the model (a hook's block message).
    pub fn refusal(message: impl fmt::Display) -> Self {
        let message = message.to_string();
        Self {
            json: json!({ "error": secrets::redact(&message) })
                .to_string()
                .into(),
            is_error: true,
            content: None,
            panicked: false,
        }
    }

    /// The same answer (error or not) with its text replaced by `json`, which must be JSON
    /// (sent as text when too deep); multimodal parts are dropped, since the text no longer
    /// carries them whole.
    pub(crate) fn with_text(self, json: String) -> Self {
        Self {
            json: shallow(json).into(),
            is_error: self.is_error,
            content: None,
            panicked: self.panicked,
        }
    }

    /// The same answer with every credential masked, in its JSON text and in the text of its
    /// parts (text, an embedded text resource, a resource's URI and name; images, audio and
    /// binary resources are left as they are). An answer holding none is returned as it was,
    /// having cost one scan of the text.
    pub(crate) fn redacted(mut self) -> Self {
        if let Cow::Owned(json) = secrets::redact_json(&self.json) {
            self.json = json.into();
        }
        let mask = |text: &mut String| {
            if let Cow::Owned(masked) = secrets::redact(text) {
                *text = masked;
            }
        };
        for part in self.content.iter_mut().flatten() {
            match part {
                ContentPart::Text { text } => mask(text),
                ContentPart::Resource { uri, text, .. } => {
                    mask(uri);
                    text.iter_mut().for_each(mask);
                }
                ContentPart::ResourceLink { uri, name, .. } => {
                    mask(uri);
                    mask(name);
                }
                ContentPart::Image { .. } | ContentPart::Audio { .. } => {}
            }
        }
        self
    }

    /// `{"result": text}`, not an error (one level deep: no depth to check).
    fn ok_wrapped(text: &str) -> Self {
        Self::ok(wrapped(text).into())
    }

    /// A successful answer of the JSON text `json`, sent as text when too deep.
    fn ok_json(json: String) -> Self {
        Self::ok(shallow(json).into())
    }

    /// A successful answer of `json`, as it is.
    fn ok(json: AnswerText) -> Self {
        Self {
            json,
            is_error: false,
            content: None,
            panicked: false,
        }
    }

    /// The JSON text sent to the model.
    pub fn as_str(&self) -> &str {
        &self.json
    }

    /// The JSON text sent to the model, owned.
    pub fn into_string(self) -> String {
        self.json.into_string()
    }

    /// Whether this answer reports an error.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// The same error answer, marked as a tool that panicked (see [`panicked`](Self::panicked)).
    pub(crate) fn into_panic(mut self) -> Self {
        self.panicked = true;
        self
    }

    /// Whether the tool panicked rather than answered (the answer is then an error saying
    /// so): a broken tool, not a failure it reported.
    pub fn panicked(&self) -> bool {
        self.panicked
    }

    /// The multimodal parts, when the tool returned [`ToolContent`].
    pub fn content(&self) -> Option<&[ContentPart]> {
        self.content.as_deref()
    }

    /// The answer parsed back into a JSON value (it is always valid JSON).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.json).unwrap_or(Value::Null)
    }
}

impl fmt::Display for ToolAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.json)
    }
}

/// Multimodal content: text, images, audio, embedded resources and links to resources, for
/// tools that say more than JSON. Over MCP each part is the content block of its kind; to a
/// model provider, images go as images and the rest as text (an embedded text resource's text,
/// a note naming the audio, the binary resource or the link).
///
/// ```
/// use hermes_tools::{call::ContentPart, call::ToolContent};
///
/// let content = ToolContent::new()
///     .text("a red dot")
///     .image("iVBORw0KGgo=", "image/png")
///     .resource_text("file:///notes.md", "text/markdown", "# Notes")
///     .resource_link("file:///big.csv", "big.csv", Some("text/csv"));
/// assert_eq!(content.parts().len(), 4);
/// assert!(matches!(content.parts()[1], ContentPart::Image { .. }));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ToolContent {
    parts: Vec<ContentPart>,
}

/// One part of [`ToolContent`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentPart {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// The image bytes, base64-encoded.
        data: String,
        /// The image's media type, such as `image/png`.
        mime_type: String,
    },
    /// A sound, base64-encoded.
    Audio {
        /// The audio bytes, base64-encoded.
        data: String,
        /// The audio's media type, such as `audio/wav`.
        mime_type: String,
    },
    /// A resource's content, embedded: its text, or its bytes base64-encoded.
    Resource {
        /// The resource's URI.
        uri: String,
        /// Its media type.
        mime_type: String,
        /// Its text, for a text resource.
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Its bytes, base64-encoded, for a binary resource.
        #[serde(skip_serializing_if = "Option::is_none")]
        blob: Option<String>,
    },
    /// A link to a resource the client may read, not its content.
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// Its media type, if known.
        #[serde(skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
}

impl ToolContent {
    /// Content with no parts.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a text part.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.parts.push(ContentPart::Text { text: text.into() });
        self
    }

    /// Appends an image part from base64 data and its media type.
    pub fn image(mut self, base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        self.parts.push(ContentPart::Image {
            data: base64.into(),
            mime_type: mime_type.into(),
        });
        self
    }

    /// Appends an audio part from base64 data and its media type.
    pub fn audio(mut self, base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        self.parts.push(ContentPart::Audio {
            data: base64.into(),
            mime_type: mime_type.into(),
        });
        self
    }

    /// Appends an embedded text resource.
    pub fn resource_text(
        mut self,
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        self.parts.push(ContentPart::Resource {
            uri: uri.into(),
            mime_type: mime_type.into(),
            text: Some(text.into()),
            blob: None,
        });
        self
    }

    /// Appends an embedded binary resource from base64 data.
    pub fn resource_blob(
        mut self,
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        base64: impl Into<String>,
    ) -> Self {
        self.parts.push(ContentPart::Resource {
            uri: uri.into(),
            mime_type: mime_type.into(),
            text: None,
            blob: Some(base64.into()),
        });
        self
    }

    /// Appends a link to a resource.
    pub fn resource_link(
        mut self,
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: Option<&str>,
    ) -> Self {
        self.parts.push(ContentPart::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            mime_type: mime_type.map(str::to_owned),
        });
        self
    }

    /// The parts, in order.
    pub fn parts(&self) -> &[ContentPart] {
        &self.parts
    }
}

/// Conversion of a tool's return value into its [`ToolAnswer`].
///
/// Implemented for the types in the [table of `ToolAnswer`](crate::ToolAnswer); any other `T: Serialize` is handled
/// by the `#[tool]` expansion without needing this trait.
pub trait IntoAnswer {
    /// Converts `self` into the answer sent to the model.
    fn into_answer(self) -> ToolAnswer;
}

impl IntoAnswer for ToolAnswer {
    fn into_answer(self) -> ToolAnswer {
        self
    }
}

impl IntoAnswer for String {
    fn into_answer(self) -> ToolAnswer {
        ToolAnswer::text(self)
    }
}

impl IntoAnswer for &str {
    fn into_answer(self) -> ToolAnswer {
        ToolAnswer::text(self)
    }
}

impl IntoAnswer for Value {
    fn into_answer(self) -> ToolAnswer {
        ToolAnswer::ok_json(self.to_string())
    }
}

impl IntoAnswer for () {
    fn into_answer(self) -> ToolAnswer {
        ToolAnswer::ok_json(r#"{"result":"ok"}"#.to_owned())
    }
}

impl IntoAnswer for ToolContent {
    fn into_answer(self) -> ToolAnswer {
        let mut answer = ToolAnswer::json(&json!({ "content": &self.parts }));
        if !answer.is_error {
            answer.content = Some(self.parts);
        }
        answer
    }
}

impl<T: IntoAnswer, E: fmt::Display> IntoAnswer for Result<T, E> {
    fn into_answer(self) -> ToolAnswer {
        match self {
            Ok(value) => value.into_answer(),
            Err(err) => ToolAnswer::error(err),
        }
    }
}

/// Picks, at the `#[tool]` expansion's call site, the most specific conversion of a return value.
///
/// This is autoref specialisation: `(&&&AnswerWrap::new(v)).__hermes_answer()` resolves to
/// [`IntoAnswer`] when `v` implements it, else to `Result<T: Serialize, E: Display>`, else to
/// plain `Serialize`. It works because the expansion's call site is never generic.
#[doc(hidden)]
pub struct AnswerWrap<T>(Cell<Option<T>>);

impl<T> AnswerWrap<T> {
    #[doc(hidden)]
    pub fn new(value: T) -> Self {
        Self(Cell::new(Some(value)))
    }

    fn take(&self) -> Option<T> {
        self.0.take()
    }
}

fn already_taken() -> ToolAnswer {
    ToolAnswer::error("internal error: a tool result was converted twice")
}

#[doc(hidden)]
pub trait ViaIntoAnswer {
    fn __hermes_answer(&self) -> ToolAnswer;
}

impl<T: IntoAnswer> ViaIntoAnswer for &&AnswerWrap<T> {
    fn __hermes_answer(&self) -> ToolAnswer {
        self.take()
            .map_or_else(already_taken, IntoAnswer::into_answer)
    }
}

#[doc(hidden)]
pub trait ViaSerializeResult {
    fn __hermes_answer(&self) -> ToolAnswer;
}

impl<T: Serialize, E: fmt::Display> ViaSerializeResult for &AnswerWrap<Result<T, E>> {
    fn __hermes_answer(&self) -> ToolAnswer {
        match self.take() {
            Some(Ok(value)) => ToolAnswer::json(&value),
            Some(Err(err)) => ToolAnswer::error(err),
            None => already_taken(),
        }
    }
}

#[doc(hidden)]
pub trait ViaSerialize {
    fn __hermes_answer(&self) -> ToolAnswer;
}

impl<T: Serialize> ViaSerialize for AnswerWrap<T> {
    fn __hermes_answer(&self) -> ToolAnswer {
        self.take()
            .map_or_else(already_taken, |value| ToolAnswer::json(&value))
    }
}

/// Converts a tool's return value into a [`ToolAnswer`] (used by the `#[tool]` expansion).
#[doc(hidden)]
#[macro_export]
macro_rules! __answer {
    ($value:expr) => {{
        #[allow(unused_imports)]
        use $crate::__private::{ViaIntoAnswer as _, ViaSerialize as _, ViaSerializeResult as _};
        (&&&$crate::__private::AnswerWrap::new($value)).__hermes_answer()
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Point {
        x: i32,
    }

    #[test]
    fn a_short_answer_reads_as_any_other() {
        let short = ToolAnswer::json(&42);
        assert_eq!(short, ToolAnswer::text("42"));
        assert_eq!(short.to_value(), json!(42));
        assert_eq!(short.to_string(), "42");
        assert_eq!(short.clone().into_string(), "42");
        assert!(format!("{short:?}").contains(r#"json: "42""#), "{short:?}");
    }

    #[test]
    fn each_return_type_becomes_json() {
        assert_eq!(
            crate::__answer!(String::from("plain")).as_str(),
            r#"{"result":"plain"}"#
        );
        assert_eq!(
            crate::__answer!(String::from(r#"{"a":1}"#)).as_str(),
            r#"{"a":1}"#
        );
        assert_eq!(crate::__answer!(json!([1, 2])).as_str(), "[1,2]");
        assert_eq!(crate::__answer!(Point { x: 3 }).as_str(), r#"{"x":3}"#);
        assert_eq!(crate::__answer!(()).as_str(), r#"{"result":"ok"}"#);
        let ok: Result<Point, String> = Ok(Point { x: 1 });
        assert_eq!(crate::__answer!(ok).as_str(), r#"{"x":1}"#);
        let err: Result<String, String> = Err("no such file".into());
        let answer = crate::__answer!(err);
        assert!(answer.is_error());
        assert_eq!(answer.to_value()["error"], "[TOOL_ERROR] no such file");
    }

    #[test]
    fn content_keeps_parts() {
        let answer = crate::__answer!(ToolContent::new().text("hi").image("AA==", "image/png"));
        assert_eq!(answer.content().map(<[_]>::len), Some(2));
        assert_eq!(answer.to_value()["content"][1]["type"], "image");
        assert_eq!(answer.to_value()["content"][0]["text"], "hi");
    }

    #[test]
    fn the_escaped_length_is_what_serde_json_writes() {
        let every_byte: String = (0..128u8).map(char::from).collect();
        // Longer than a block (32 × 51 bytes), every lane at its most (six-byte escapes).
        let dense = "\u{1}".repeat(32 * 51 * 2 + 7);
        for text in [every_byte.as_str(), "", "plain", "é🦀\"\\", &dense] {
            let written = serde_json::to_string(text).unwrap();
            assert_eq!(escaped_len(text), written.len() - 2, "{text:?}");
        }
    }

    #[test]
    fn text_that_is_not_json_is_wrapped_as_serde_json_writes_it() {
        let texts = [
            String::new(),
            "plain".to_owned(),
            "quotes \" and \\ backslashes, a tab\t, a newline\n, NUL \u{0}, é, 🦀".to_owned(),
            // Dense in escapes: every byte takes two.
            "\n".repeat(10_000),
            "{unclosed".to_owned(),
        ];
        for text in texts {
            let answer = ToolAnswer::text(text.clone());
            assert_eq!(answer.as_str(), json!({ "result": text }).to_string());
            assert!(!answer.is_error());
        }
    }

    /// `depth` arrays, one inside the other.
    fn nested_text(depth: usize) -> String {
        format!("{}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn the_depth_limit_is_serde_jsons() {
        let parses = |text: &str| serde_json::from_str::<Value>(text).is_ok();
        assert!(parses(&nested_text(MAX_ANSWER_DEPTH)));
        assert!(!parses(&nested_text(MAX_ANSWER_DEPTH + 1)));
        assert_eq!(
            ToolAnswer::text(nested_text(MAX_ANSWER_DEPTH)).as_str(),
            nested_text(MAX_ANSWER_DEPTH)
        );
    }

    #[test]
    fn json_text_too_deep_for_strict_parsers_is_sent_as_text() {
        for depth in [MAX_ANSWER_DEPTH + 1, 129, 200, 10_000] {
            let deep = nested_text(depth);
            for answer in [
                crate::__answer!(deep.clone()),
                crate::__answer!(deep.as_str()),
                ToolAnswer::text(deep.clone()),
            ] {
                let value: Value = serde_json::from_str(answer.as_str())
                    .unwrap_or_else(|err| panic!("depth {depth}: {err}"));
                assert_eq!(value, json!({ "result": deep }), "depth {depth}");
                assert!(!answer.is_error());
            }
        }
    }

    #[test]
    fn values_and_serialized_types_too_deep_are_sent_as_text() {
        let mut value = json!(1);
        for _ in 0..200 {
            value = json!({ "a": value });
        }
        let answer = crate::__answer!(value.clone());
        let sent: Value = serde_json::from_str(answer.as_str()).expect("strict parsers read it");
        assert_eq!(sent["result"], value.to_string());
        let serialized = crate::__answer!(Ok::<_, String>(vec![value.clone()]));
        assert!(serde_json::from_str::<Value>(serialized.as_str()).is_ok());
        let replaced = ToolAnswer::error("x").with_text(nested_text(300));
        assert!(replaced.is_error(), "the error flag survives");
        assert_eq!(replaced.to_value()["result"], nested_text(300));
    }

    #[test]
    fn brackets_inside_strings_do_not_count() {
        // Brackets in strings, an escaped quote before them, an escaped backslash before a
        // closing quote: none opens a level.
        let text =
            json!({"a": "[".repeat(500), "b": format!("\"{}\\", "{".repeat(500))}).to_string();
        assert!(text.contains(r#"\"{{{"#) && text.contains(r#"\\""#));
        assert!(serde_json::from_str::<Value>(&text).is_ok());
        assert_eq!(ToolAnswer::text(text.clone()).as_str(), text);
        assert!(!nests_deeper_than(&text, 2));
        assert!(nests_deeper_than(r#"[{"a":[[1]]}]"#, 3));
        assert!(!nests_deeper_than(r#"[{"a":[[1]]}]"#, 4));
    }

    #[test]
    fn credentials_in_resources_and_links_are_masked_and_media_left_alone() {
        let key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        let answer = ToolContent::new()
            .resource_text("file:///env", "text/plain", format!("OPENAI_API_KEY={key}"))
            .resource_link(format!("https://h/x?api_key={key}"), "x", None)
            .audio("UklGRg==", "audio/wav")
            .into_answer()
            .redacted();
        let parts = answer.content().expect("parts");
        let shown = format!("{parts:?} {}", answer.as_str());
        assert!(!shown.contains(key), "{shown}");
        assert!(matches!(&parts[2], ContentPart::Audio { data, .. } if data == "UklGRg=="));
    }

    #[test]
    fn unserializable_value_is_an_error_answer() {
        let mut map = std::collections::HashMap::new();
        map.insert((1, 2), 3);
        let answer = crate::__answer!(map);
        assert!(answer.is_error());
    }
}
