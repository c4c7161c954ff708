//! From the registry's values to MCP's: tool definitions, annotations, call results.

use std::sync::Arc;

use rmcp::model::{
    CallToolResult, ContentBlock, JsonObject, Resource, ResourceContents, Tool as McpTool,
    ToolAnnotations,
};
use serde_json::Value;

use crate::answer::{ContentPart, ToolAnswer};
use crate::tool::Tool;

/// The dialect of every parameter schema the registry publishes (schemars' Draft 2020-12).
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The MCP annotations of `tool`: the one place its hints are derived from its declaration.
///
/// `#[tool(read_only)]` gives `readOnlyHint: true`; `#[tool(destructive)]` gives
/// `readOnlyHint: false, destructiveHint: true`. A tool declaring neither gets no annotations,
/// and clients assume the cautious defaults (may write, may destroy).
pub fn annotations(tool: &Tool) -> Option<ToolAnnotations> {
    let declared = tool.annotations();
    if declared.read_only {
        Some(ToolAnnotations::new().read_only(true))
    } else if declared.destructive {
        Some(ToolAnnotations::new().read_only(false).destructive(true))
    } else {
        None
    }
}

/// One `tools/list` entry from a [`Format::Mcp`](crate::formats::Format::Mcp) definition.
pub(super) fn tool(definition: &Value, declared: Option<&Tool>) -> McpTool {
    let name = definition["name"].as_str().unwrap_or_default().to_owned();
    let description = definition["description"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let mut schema: JsonObject = match &definition["inputSchema"] {
        Value::Object(schema) => schema.clone(),
        _ => JsonObject::new(),
    };
    // Said outright: a client that assumes another draft would misread `$defs` and
    // `prefixItems` (and the conformance suite checks that the dialect is declared).
    schema
        .entry("$schema")
        .or_insert_with(|| Value::String(DIALECT.to_owned()));
    let mut tool = McpTool::new(name, description, Arc::new(schema));
    tool.annotations = declared.and_then(annotations);
    tool
}

/// The `tools/call` result of an answer.
///
/// Text answers are the answer's JSON as one text block, exactly what an in-process agent
/// gets; an object answer is also `structuredContent`, so a client that wants data need not
/// parse text. Multimodal answers are their parts (the JSON would repeat the images). An error
/// answer is `isError: true` with the same content, for the client's model to read.
pub(super) fn call_result(answer: &ToolAnswer) -> CallToolResult {
    let content = match answer.content() {
        Some(parts) => parts.iter().map(content_block).collect(),
        None => vec![ContentBlock::text(answer.as_str())],
    };
    if answer.is_error() {
        return CallToolResult::error(content);
    }
    let mut result = CallToolResult::success(content);
    // Only an object is parsed back (a number or a string answer costs no parse).
    if answer.content().is_none()
        && answer.as_str().trim_start().starts_with('{')
        && let value @ Value::Object(_) = answer.to_value()
    {
        result.structured_content = Some(value);
    }
    result
}

fn content_block(part: &ContentPart) -> ContentBlock {
    match part {
        ContentPart::Text { text } => ContentBlock::text(text.as_str()),
        ContentPart::Image { data, mime_type } => {
            ContentBlock::image(data.as_str(), mime_type.as_str())
        }
        ContentPart::Audio { data, mime_type } => {
            ContentBlock::audio(data.as_str(), mime_type.as_str())
        }
        ContentPart::Resource {
            uri,
            mime_type,
            text,
            blob,
        } => {
            let contents = match (text, blob) {
                (Some(text), _) => ResourceContents::text(text.as_str(), uri.as_str()),
                (None, blob) => {
                    ResourceContents::blob(blob.as_deref().unwrap_or_default(), uri.as_str())
                }
            };
            ContentBlock::resource(contents.with_mime_type(mime_type.as_str()))
        }
        ContentPart::ResourceLink {
            uri,
            name,
            mime_type,
        } => {
            let mut resource = Resource::new(uri.as_str(), name.as_str());
            if let Some(mime_type) = mime_type {
                resource = resource.with_mime_type(mime_type.as_str());
            }
            ContentBlock::resource_link(resource)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::answer::{IntoAnswer, ToolContent};
    use crate::tool::Annotations;

    fn as_json(result: &CallToolResult) -> Value {
        serde_json::to_value(result).unwrap_or_default()
    }

    #[test]
    fn object_answers_are_text_and_structured() {
        let result = call_result(&ToolAnswer::json(&json!({"lines": 3})));
        let wire = as_json(&result);
        assert_eq!(
            wire["content"],
            json!([{"type": "text", "text": r#"{"lines":3}"#}])
        );
        assert_eq!(wire["structuredContent"], json!({"lines": 3}));
        assert_eq!(wire["isError"], false);
    }

    #[test]
    fn non_object_answers_are_text_only() {
        let wire = as_json(&call_result(&ToolAnswer::json(&json!([1, 2]))));
        assert_eq!(wire["content"][0]["text"], "[1,2]");
        assert!(wire.get("structuredContent").is_none());
    }

    #[test]
    fn errors_set_is_error_and_keep_the_message() {
        let wire = as_json(&call_result(&ToolAnswer::error("no such file")));
        assert_eq!(wire["isError"], true);
        let text = wire["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains("no such file"), "{text}");
        assert!(wire.get("structuredContent").is_none());
    }

    #[test]
    fn multimodal_parts_become_text_and_image_blocks() {
        let answer = ToolContent::new()
            .text("a red dot")
            .image("iVBORw0KGgo=", "image/png")
            .into_answer();
        let wire = as_json(&call_result(&answer));
        assert_eq!(
            wire["content"],
            json!([
                {"type": "text", "text": "a red dot"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
            ])
        );
        assert!(wire.get("structuredContent").is_none());
    }

    #[test]
    fn definitions_declare_their_dialect_and_annotations() {
        let declared = Tool::builder("write", "files")
            .annotations(Annotations {
                read_only: false,
                destructive: true,
                parallel: None,
            })
            .build();
        let definition = json!({
            "name": "write",
            "description": "Write a file.",
            "inputSchema": {"type": "object", "properties": {}}
        });
        let wire = serde_json::to_value(tool(&definition, Some(&declared))).unwrap_or_default();
        assert_eq!(wire["inputSchema"]["$schema"], DIALECT);
        assert_eq!(
            wire["annotations"],
            json!({"readOnlyHint": false, "destructiveHint": true})
        );
        let plain = Tool::builder("plain", "misc").build();
        assert_eq!(annotations(&plain), None);
    }
}
