//! What the model receives for an MCP `tools/call` result.
//!
//! | result | answer |
//! |---|---|
//! | text parts | `{"result": "<parts joined with newlines>"}` |
//! | `structuredContent`, with no text or with the text being its JSON | `{"result": <structured>}` |
//! | `structuredContent` and different text | `{"result": "<text>", "structured": <structured>}` |
//! | `structuredContent` of a tool that declares an `outputSchema` | `<structured>`, as it is |
//! | an image among the parts | `{"content": [parts]}`, the images kept for providers that take them |
//! | `isError` | `{"error": "<text>"}`, sanitised and with credentials redacted |
//!
//! The MCP specification asks servers that return `structuredContent` to repeat it as JSON
//! text for older clients; sending both would give the model every value twice, so the
//! duplicate text is dropped. Audio, embedded resources and resource links become text that
//! says what they are: a model cannot use the bytes, and silently dropping a part (as Hermes
//! long did) reads as an empty answer.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Map, Value, json};

use crate::call::answer::{IntoAnswer, ToolAnswer, ToolContent};

/// The answer for `result`, the result of tool `tool` of server `server`; `typed` when the
/// tool declares an output schema: its structured result is then the answer as it is, so
/// that the tool, served again with that schema, answers what the schema says.
pub(super) fn from_result(
    server: &str,
    tool: &str,
    result: CallToolResult,
    typed: bool,
) -> ToolAnswer {
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for block in result.content {
        match block {
            ContentBlock::Image(image) => {
                images.push((texts.len(), image.data, image.mime_type));
            }
            other => texts.push(describe(other)),
        }
    }
    let text = texts.join("\n");
    if result.is_error == Some(true) {
        let message = if text.trim().is_empty() {
            format!("MCP tool {tool:?} of server {server:?} failed without saying why")
        } else {
            text
        };
        return ToolAnswer::error(message);
    }
    if !images.is_empty() {
        return with_images(texts, images, result.structured_content);
    }
    if typed && let Some(structured @ Value::Object(_)) = result.structured_content {
        return structured.into_answer();
    }
    let mut answer = Map::new();
    match result.structured_content {
        Some(structured) if text.trim().is_empty() || repeats(&text, &structured) => {
            answer.insert("result".into(), structured);
        }
        Some(structured) => {
            answer.insert("result".into(), Value::String(text));
            answer.insert("structured".into(), structured);
        }
        None => {
            answer.insert("result".into(), Value::String(text));
        }
    }
    Value::Object(answer).into_answer()
}

/// A content part as text: text as it is, anything else said for what it is. (Images are
/// kept as images where the answer can carry them; here they are said too.)
pub(super) fn describe(block: ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text,
        ContentBlock::Image(image) => format!(
            "[image ({}), {} base64 characters, not shown]",
            image.mime_type,
            image.data.len()
        ),
        ContentBlock::Audio(audio) => format!(
            "[audio ({}), {} base64 characters, not shown]",
            audio.mime_type,
            audio.data.len()
        ),
        ContentBlock::Resource(embedded) => match embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("[resource {uri}]\n{text}")
            }
            ResourceContents::BlobResourceContents { uri, mime_type, .. } => format!(
                "[resource {uri} ({}), binary, not shown]",
                mime_type.as_deref().unwrap_or("unknown type")
            ),
            // A kind of resource newer than this client: say so rather than drop it.
            _ => "[an embedded resource of a kind this client cannot show]".to_owned(),
        },
        ContentBlock::ResourceLink(link) => {
            format!("[resource link {}: {}]", link.name, link.uri)
        }
        _ => "[a content part of a kind this client cannot show]".to_owned(),
    }
}

/// Whether `text` is `structured` written as JSON (the backwards-compatible copy).
fn repeats(text: &str, structured: &Value) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|parsed| parsed == *structured)
}

/// Text and images in their order, as multimodal content.
fn with_images(
    texts: Vec<String>,
    images: Vec<(usize, String, String)>,
    structured: Option<Value>,
) -> ToolAnswer {
    let mut content = ToolContent::new();
    let mut images = images.into_iter().peekable();
    for (index, text) in texts.into_iter().enumerate() {
        while let Some((_, data, mime)) = images.next_if(|(at, _, _)| *at == index) {
            content = content.image(data, mime);
        }
        content = content.text(text);
    }
    for (_, data, mime) in images {
        content = content.image(data, mime);
    }
    if let Some(structured) = structured {
        content = content.text(json!({ "structured": structured }).to_string());
    }
    content.into_answer()
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CallToolResult, ContentBlock};
    use serde_json::json;

    use super::*;
    use crate::call::ContentPart;

    fn result(
        content: Vec<ContentBlock>,
        structured: Option<Value>,
        is_error: bool,
    ) -> CallToolResult {
        let mut result = CallToolResult::default();
        result.content = content;
        result.structured_content = structured;
        result.is_error = Some(is_error);
        result
    }

    fn answer(content: Vec<ContentBlock>, structured: Option<Value>) -> Value {
        from_result("s", "t", result(content, structured, false), false).to_value()
    }

    #[test]
    fn text_parts_are_joined_with_newlines() {
        let parts = vec![ContentBlock::text("one"), ContentBlock::text("two")];
        assert_eq!(answer(parts, None), json!({"result": "one\ntwo"}));
        assert_eq!(answer(vec![], None), json!({"result": ""}));
    }

    #[test]
    fn structured_content_replaces_its_own_json_copy() {
        let structured = json!({"timezone": "UTC", "is_dst": false});
        let copy = ContentBlock::text(r#"{"is_dst": false, "timezone": "UTC"}"#);
        assert_eq!(
            answer(vec![copy], Some(structured.clone())),
            json!({"result": structured})
        );
        assert_eq!(
            answer(vec![], Some(structured.clone())),
            json!({"result": structured})
        );
        let prose = ContentBlock::text("It is noon in UTC.");
        assert_eq!(
            answer(vec![prose], Some(structured.clone())),
            json!({"result": "It is noon in UTC.", "structured": structured})
        );
    }

    #[test]
    fn a_typed_tools_structured_result_is_its_answer_as_it_is() {
        let structured = json!({"timezone": "UTC", "is_dst": false});
        let prose = ContentBlock::text("It is noon in UTC.");
        let typed = from_result(
            "s",
            "t",
            result(vec![prose.clone()], Some(structured.clone()), false),
            true,
        );
        assert_eq!(typed.to_value(), structured);
        // Without a structured result, a typed tool's text is answered as any other.
        let text_only = from_result("s", "t", result(vec![prose], None, false), true);
        assert_eq!(
            text_only.to_value(),
            json!({"result": "It is noon in UTC."})
        );
    }

    #[test]
    fn is_error_is_an_error_answer_with_credentials_redacted() {
        let failed = result(
            vec![ContentBlock::text(
                "upstream refused: api_key=abc123 invalid",
            )],
            None,
            true,
        );
        let answer = from_result("s", "t", failed, false);
        assert!(answer.is_error());
        assert_eq!(
            answer.to_value(),
            json!({"error": "[TOOL_ERROR] upstream refused: api_key=*** invalid"})
        );
        let silent = from_result("s", "t", result(vec![], None, true), false);
        assert_eq!(
            silent.to_value()["error"],
            "[TOOL_ERROR] MCP tool \"t\" of server \"s\" failed without saying why"
        );
    }

    #[test]
    fn images_keep_their_place_among_the_text() {
        let parts = vec![
            ContentBlock::text("before"),
            ContentBlock::image("AAAA", "image/png"),
            ContentBlock::text("after"),
        ];
        let answer = from_result("s", "t", result(parts, None, false), false);
        let kinds: Vec<&str> = answer
            .content()
            .unwrap_or_default()
            .iter()
            .map(|part| match part {
                ContentPart::Text { .. } => "text",
                ContentPart::Image { .. } => "image",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["text", "image", "text"]);
        assert_eq!(answer.to_value()["content"][1]["mime_type"], "image/png");
    }

    #[test]
    fn links_and_resources_are_described() {
        let embedded = ContentBlock::Resource(rmcp::model::EmbeddedResource::new(
            ResourceContents::text("hello", "file:///a.txt"),
        ));
        assert_eq!(
            answer(vec![embedded], None),
            json!({"result": "[resource file:///a.txt]\nhello"})
        );
    }
}
