//! Answers wrapped in the message shape each provider expects after its tool calls.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::{ToolCall, family, is_generated_id, search};
use crate::call::answer::{ContentPart, ToolAnswer};
use crate::definitions::formats::Format;

/// The images OpenAI takes (chat completions and Responses alike), and Anthropic.
const OPENAI_IMAGES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];
const ANTHROPIC_IMAGES: &[&str] = OPENAI_IMAGES;
const GEMINI_IMAGES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/webp",
    "image/heic",
    "image/heif",
];

/// The messages that carry the answers back, in the provider's shape, in the model's order
/// (OpenAI: one `role: tool` message per call; Anthropic: one `role: user` message of
/// `tool_result` blocks; Gemini: one `role: user` content of `functionResponse` parts;
/// Responses: one `function_call_output` item per call; MCP: CallToolResult per call).
///
/// Multimodal answers, unsupported images and Gemini's object-only `response`: see the
/// [module documentation](super#answers-out).
///
/// ```
/// use hermes_tools::provider::{ToolCall, answer_messages};
/// use hermes_tools::{Format, ToolAnswer};
/// use serde_json::json;
///
/// let call = ToolCall::new("call_1", "read_file", r#"{"path":"missing.txt"}"#);
/// let answer = ToolAnswer::error("no such file: missing.txt");
/// let messages = answer_messages(Format::OpenAi, [(&call, &answer)]);
/// assert_eq!(
///     messages,
///     [json!({
///         "role": "tool",
///         "tool_call_id": "call_1",
///         "content": answer.as_str(),
///     })]
/// );
///
/// // `call_0` is the id `parse_calls` gives a Gemini call that came without one: not echoed.
/// let call = ToolCall::new("call_0", "read_file", r#"{"path":"missing.txt"}"#);
/// let messages = answer_messages(Format::Gemini, [(&call, &answer)]);
/// let response = &messages[0]["parts"][0]["functionResponse"];
/// assert_eq!(response.get("id"), None);
/// assert_eq!(response["name"], "read_file");
/// assert!(response["response"]["error"].as_str().unwrap().contains("no such file"));
/// ```
pub fn answer_messages<'a>(
    format: Format,
    answered: impl IntoIterator<Item = (&'a ToolCall, &'a ToolAnswer)>,
) -> Vec<Value> {
    let answered = answered.into_iter();
    match family(format) {
        Format::Responses => answered
            .map(|(call, answer)| {
                search::responses_output(call, answer).unwrap_or_else(|| responses((call, answer)))
            })
            .collect(),
        Format::Anthropic => one_message(
            answered
                .map(|(call, answer)| {
                    search::anthropic_result(call, answer)
                        .unwrap_or_else(|| anthropic((call, answer)))
                })
                .collect(),
            |blocks| json!({"role": "user", "content": blocks}),
        ),
        Format::Gemini => one_message(
            answered.map(gemini).collect(),
            |parts| json!({"role": "user", "parts": parts}),
        ),
        Format::Mcp => answered.map(|(_, answer)| mcp(answer)).collect(),
        _ => openai(answered),
    }
}

/// `items` wrapped in one message, or no message when there is none.
fn one_message(items: Vec<Value>, wrap: impl FnOnce(Vec<Value>) -> Value) -> Vec<Value> {
    if items.is_empty() {
        Vec::new()
    } else {
        vec![wrap(items)]
    }
}

/// One part of a multimodal answer, as a provider takes it.
enum Piece<'a> {
    Text(Cow<'a, str>),
    Image { data: &'a str, mime_type: String },
}

/// The parts of a multimodal answer, with the images whose type is not in `accepts` (all are
/// accepted when it is `None`) replaced by a note naming `provider`; `None` for an answer that
/// is its JSON text alone.
fn pieces<'a>(
    answer: &'a ToolAnswer,
    accepts: Option<&[&str]>,
    provider: &str,
) -> Option<Vec<Piece<'a>>> {
    let parts = answer.content().filter(|parts| !parts.is_empty())?;
    let pieces = parts
        .iter()
        .filter_map(|part| match part {
            // Providers refuse empty text blocks (Anthropic does), and they say nothing.
            ContentPart::Text { text } if text.is_empty() => None,
            ContentPart::Text { text } => Some(Piece::Text(Cow::Borrowed(text))),
            ContentPart::Image { data, mime_type } => {
                let mime_type = media_type(mime_type);
                Some(match accepts {
                    Some(accepted) if !accepted.contains(&mime_type.as_str()) => {
                        Piece::Text(Cow::Owned(format!(
                            "[an image of type {mime_type} was left out: {provider} takes {}]",
                            accepted.join(", ")
                        )))
                    }
                    _ => Piece::Image { data, mime_type },
                })
            }
            other => described(other).map(|text| Piece::Text(Cow::Owned(text))),
        })
        .collect();
    Some(pieces)
}

/// A part providers take no block for, as text: an embedded text resource's text, a note
/// naming the audio, the binary resource or the link.
fn described(part: &ContentPart) -> Option<String> {
    Some(match part {
        ContentPart::Resource {
            uri,
            text: Some(text),
            ..
        } => format!("[resource {uri}]\n{text}"),
        ContentPart::Resource { uri, mime_type, .. } => {
            format!("[a binary resource of type {mime_type} was left out: {uri}]")
        }
        ContentPart::Audio { mime_type, .. } => {
            format!("[an audio clip of type {mime_type} was left out: the model takes no audio]")
        }
        ContentPart::ResourceLink { uri, name, .. } => format!("[resource link: {name} <{uri}>]"),
        _ => return None,
    })
}

/// A media type as providers compare it: lower case, and `image/jpg` (a common slip) as
/// `image/jpeg`.
fn media_type(mime_type: &str) -> String {
    let mime_type = mime_type.trim().to_ascii_lowercase();
    if mime_type == "image/jpg" {
        "image/jpeg".to_owned()
    } else {
        mime_type
    }
}

fn data_url(data: &str, mime_type: &str) -> String {
    format!("data:{mime_type};base64,{data}")
}

/// "1 image" or "3 images".
fn images(count: usize) -> String {
    if count == 1 {
        "1 image".to_owned()
    } else {
        format!("{count} images")
    }
}

/// The text pieces of `pieces`, and the number of images among them.
fn texts_and_images<'p>(pieces: &'p [Piece<'_>]) -> (Vec<&'p str>, Vec<(&'p str, &'p str)>) {
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => texts.push(text.as_ref()),
            Piece::Image { data, mime_type } => images.push((*data, mime_type.as_str())),
        }
    }
    (texts, images)
}

/// OpenAI chat: a tool message per call, then one user message with every image, since a
/// tool message takes text only.
fn openai<'a>(answered: impl Iterator<Item = (&'a ToolCall, &'a ToolAnswer)>) -> Vec<Value> {
    let mut messages = Vec::new();
    let mut image_parts = Vec::new();
    for (call, answer) in answered {
        let content = match pieces(answer, Some(OPENAI_IMAGES), "OpenAI") {
            None => answer.as_str().to_owned(),
            Some(pieces) => {
                let (mut lines, found) = texts_and_images(&pieces);
                let note;
                if !found.is_empty() {
                    note = format!(
                        "[{} attached to the user message after the tool results]",
                        images(found.len())
                    );
                    lines.push(&note);
                    image_parts.push(json!({
                        "type": "text",
                        "text": format!(
                            "The {} returned by tool call {} ({}):",
                            images(found.len()),
                            call.id,
                            call.name
                        ),
                    }));
                    image_parts.extend(found.iter().map(|(data, mime_type)| {
                        json!({"type": "image_url", "image_url": {"url": data_url(data, mime_type)}})
                    }));
                }
                lines.join("\n")
            }
        };
        messages.push(if call.id.is_empty() {
            // The legacy `function_call` has no id: its answer is the legacy message.
            json!({"role": "function", "name": call.name, "content": content})
        } else {
            json!({"role": "tool", "tool_call_id": call.id, "content": content})
        });
    }
    if !image_parts.is_empty() {
        messages.push(json!({"role": "user", "content": image_parts}));
    }
    messages
}

/// Responses: a `function_call_output` item, whose `output` is a list of input parts when
/// the answer has images.
fn responses((call, answer): (&ToolCall, &ToolAnswer)) -> Value {
    let output = match pieces(answer, Some(OPENAI_IMAGES), "OpenAI") {
        None => Value::String(answer.as_str().to_owned()),
        Some(pieces) => pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => json!({"type": "input_text", "text": text}),
                Piece::Image { data, mime_type } => {
                    json!({"type": "input_image", "image_url": data_url(data, mime_type)})
                }
            })
            .collect(),
    };
    json!({"type": "function_call_output", "call_id": call.id, "output": output})
}

/// Anthropic: a `tool_result` block, images inside it.
fn anthropic((call, answer): (&ToolCall, &ToolAnswer)) -> Value {
    let content: Vec<Value> = match pieces(answer, Some(ANTHROPIC_IMAGES), "Anthropic") {
        None => vec![json!({"type": "text", "text": answer.as_str()})],
        Some(pieces) => pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => json!({"type": "text", "text": text}),
                Piece::Image { data, mime_type } => json!({
                    "type": "image",
                    "source": {"type": "base64", "media_type": mime_type, "data": data},
                }),
            })
            .collect(),
    };
    json!({
        "type": "tool_result",
        "tool_use_id": call.id,
        "content": content,
        "is_error": answer.is_error(),
    })
}

/// Gemini: a `functionResponse` part, its `response` an object, images in its `parts`.
fn gemini((call, answer): (&ToolCall, &ToolAnswer)) -> Value {
    let mut function_response = Map::with_capacity(4);
    if !call.id.is_empty() && !is_generated_id(&call.id) {
        function_response.insert("id".into(), Value::String(call.id.clone()));
    }
    function_response.insert("name".into(), Value::String(call.name.clone()));
    match pieces(answer, Some(GEMINI_IMAGES), "Gemini") {
        None => {
            function_response.insert("response".into(), gemini_response(answer));
        }
        Some(pieces) => {
            let (texts, found) = texts_and_images(&pieces);
            let result = if texts.is_empty() {
                format!("{} attached", images(found.len()))
            } else {
                texts.join("\n")
            };
            function_response.insert("response".into(), json!({ "result": result }));
            if !found.is_empty() {
                let parts = found
                    .iter()
                    .map(|(data, mime_type)| {
                        json!({"inlineData": {"mimeType": mime_type, "data": data}})
                    })
                    .collect();
                function_response.insert("parts".into(), Value::Array(parts));
            }
        }
    }
    json!({ "functionResponse": function_response })
}

/// A `response` object: the answer's object as it is, anything else wrapped.
fn gemini_response(answer: &ToolAnswer) -> Value {
    match answer.to_value() {
        object @ Value::Object(_) => object,
        other if answer.is_error() => json!({ "error": other }),
        other => json!({ "result": other }),
    }
}

/// MCP: the `CallToolResult` the `serve` command sends for the same answer.
fn mcp(answer: &ToolAnswer) -> Value {
    let mut result = Map::with_capacity(3);
    let content: Vec<Value> = match pieces(answer, None, "MCP") {
        None => vec![json!({"type": "text", "text": answer.as_str()})],
        Some(pieces) => pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => json!({"type": "text", "text": text}),
                Piece::Image { data, mime_type } => {
                    json!({"type": "image", "data": data, "mimeType": mime_type})
                }
            })
            .collect(),
    };
    result.insert("content".into(), Value::Array(content));
    // An object answer is also structured data, so a client that wants data need not parse
    // text (only an object is parsed back: other answers cost no parse).
    if !answer.is_error()
        && answer.content().is_none()
        && answer.as_str().trim_start().starts_with('{')
        && let object @ Value::Object(_) = answer.to_value()
    {
        result.insert("structuredContent".into(), object);
    }
    result.insert("isError".into(), Value::Bool(answer.is_error()));
    Value::Object(result)
}
