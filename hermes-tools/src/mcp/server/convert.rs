//! From the registry's values to MCP's: tool definitions, annotations, call results.

use std::sync::Arc;

use rmcp::model::{
    CallToolResult, ContentBlock, JsonObject, Resource, ResourceContents, Tool as McpTool,
    ToolAnnotations,
};
use serde_json::Value;

use crate::call::answer::{ContentPart, ToolAnswer};
use crate::tool::Tool;

/// The dialect of every parameter schema the registry publishes (schemars' Draft 2020-12).
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The MCP annotations of `tool` (see [`Annotations::mcp_hints`](crate::tool::Annotations::mcp_hints)).
pub fn annotations(tool: &Tool) -> Option<ToolAnnotations> {
    hints(tool.annotations().mcp_hints().as_ref())
}

/// rmcp's annotations from their JSON.
fn hints(value: Option<&Value>) -> Option<ToolAnnotations> {
    value.and_then(|hints| serde_json::from_value(hints.clone()).ok())
}

/// One `tools/list` entry from a [`Format::Mcp`](crate::definitions::formats::Format::Mcp) definition,
/// which carries the tool's annotations and output schema.
pub(super) fn tool(definition: &Value) -> McpTool {
    let name = definition["name"].as_str().unwrap_or_default().to_owned();
    let description = definition["description"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let mut tool = McpTool::new(
        name,
        description,
        Arc::new(dialect_declared(&definition["inputSchema"])),
    );
    tool.annotations = hints(definition.get("annotations"));
    tool.output_schema = definition
        .get("outputSchema")
        .map(|schema| Arc::new(dialect_declared(schema)));
    tool
}

/// `schema` as an object, saying its dialect outright where the dialect changes what it
/// means: a client that assumes draft-07 (the common reading before MCP 2025-11-25 made 2020-12
/// the default) would misread `$defs`, `prefixItems` or a `$ref` with siblings, and the
/// conformance suite checks that such a schema declares its dialect. A schema of none of
/// those keywords means the same in every draft a client may assume, so it goes without:
/// 55 bytes (about a dozen tokens) less for each such tool in every `tools/list`.
fn dialect_declared(schema: &Value) -> JsonObject {
    let declare = reads_by_dialect(schema);
    let mut schema: JsonObject = match schema {
        Value::Object(schema) => schema.clone(),
        _ => JsonObject::new(),
    };
    if declare {
        schema
            .entry("$schema")
            .or_insert_with(|| Value::String(DIALECT.to_owned()));
    }
    schema
}

/// The keywords whose meaning differs between JSON Schema draft-07 and 2020-12 (or that a
/// draft-07 reader does not know), and those that name other schemas.
const DIALECT_KEYWORDS: [&str; 20] = [
    "$ref",
    "$defs",
    "definitions",
    "$id",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "$vocabulary",
    "prefixItems",
    "additionalItems",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "unevaluatedProperties",
    "unevaluatedItems",
    "minContains",
    "maxContains",
    "contentSchema",
];

/// Whether `schema` holds, at any depth, a keyword of [`DIALECT_KEYWORDS`] or an array-form
/// `items` (a tuple in draft-07, an error in 2020-12).
fn reads_by_dialect(schema: &Value) -> bool {
    match schema {
        Value::Object(members) => members.iter().any(|(key, value)| {
            DIALECT_KEYWORDS.contains(&key.as_str())
                || (key == "items" && value.is_array())
                || reads_by_dialect(value)
        }),
        Value::Array(items) => items.iter().any(reads_by_dialect),
        _ => false,
    }
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

/// `result` held to the tool's output `schema`: a successful result whose structured content
/// is missing or does not match (its answer was cut to fit the answer budget, or a hook
/// rewrote it) becomes an error result that says so, with the answer's text after it. A
/// client holds a server to the schema it published, so it must never get such a result as a
/// success.
pub(super) fn held_to(result: CallToolResult, schema: Option<&Value>) -> CallToolResult {
    let Some(schema) = schema else {
        return result;
    };
    if result.is_error == Some(true) {
        return result;
    }
    let fault = match &result.structured_content {
        None => "it is not a JSON object".to_owned(),
        Some(value) => match crate::call::validation::validate(value, schema) {
            Ok(()) => return result,
            Err(err) => err.to_string(),
        },
    };
    let mut content = vec![ContentBlock::text(format!(
        "The answer does not match the tool's output schema ({fault}); it may have been cut \
         to fit the answer budget. The answer as it is follows."
    ))];
    content.extend(result.content);
    CallToolResult::error(content)
}

/// The MCP content block of one part of an answer (or of a prompt's message).
pub(super) fn content_block(part: &ContentPart) -> ContentBlock {
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

// Logging is deprecated by the 2026 specification (SEP-2577), and rmcp marks its types so;
// clients of the 2025 versions still set a level and read tools' messages, so we serve it.
#[allow(deprecated)]
/// MCP's name for a log level.
pub(super) fn level_of(level: crate::call::LogLevel) -> rmcp::model::LoggingLevel {
    use crate::call::LogLevel as L;
    match level {
        L::Debug => rmcp::model::LoggingLevel::Debug,
        L::Info => rmcp::model::LoggingLevel::Info,
        L::Notice => rmcp::model::LoggingLevel::Notice,
        L::Warning => rmcp::model::LoggingLevel::Warning,
        L::Error => rmcp::model::LoggingLevel::Error,
        L::Critical => rmcp::model::LoggingLevel::Critical,
        L::Alert => rmcp::model::LoggingLevel::Alert,
        L::Emergency => rmcp::model::LoggingLevel::Emergency,
    }
}

// Logging is deprecated by the 2026 specification (SEP-2577), and rmcp marks its types so;
// clients of the 2025 versions still set a level and read tools' messages, so we serve it.
#[allow(deprecated)]
/// Ours for MCP's log level.
pub(super) fn level_from(level: rmcp::model::LoggingLevel) -> crate::call::LogLevel {
    use crate::call::LogLevel as L;
    match level {
        rmcp::model::LoggingLevel::Debug => L::Debug,
        rmcp::model::LoggingLevel::Info => L::Info,
        rmcp::model::LoggingLevel::Notice => L::Notice,
        rmcp::model::LoggingLevel::Warning => L::Warning,
        rmcp::model::LoggingLevel::Error => L::Error,
        rmcp::model::LoggingLevel::Critical => L::Critical,
        rmcp::model::LoggingLevel::Alert => L::Alert,
        rmcp::model::LoggingLevel::Emergency => L::Emergency,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::call::answer::{IntoAnswer, ToolContent};
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
    fn results_are_held_to_the_output_schema() {
        let schema = json!({
            "type": "object",
            "properties": {"lines": {"type": "integer"}},
            "required": ["lines"]
        });
        let fits = call_result(&ToolAnswer::json(&json!({"lines": 3})));
        assert_eq!(held_to(fits.clone(), Some(&schema)), fits);
        assert_eq!(held_to(fits.clone(), None), fits);
        for (answer, says) in [
            (ToolAnswer::json(&json!({"lines": "three"})), "lines"),
            (ToolAnswer::json(&json!("cut")), "not a JSON object"),
        ] {
            let wire = as_json(&held_to(call_result(&answer), Some(&schema)));
            assert_eq!(wire["isError"], true, "{wire}");
            assert!(wire.get("structuredContent").is_none(), "{wire}");
            let first = wire["content"][0]["text"].as_str().unwrap_or_default();
            assert!(
                first.contains("output schema") && first.contains(says),
                "{first}"
            );
            assert_eq!(wire["content"][1]["text"], answer.as_str());
        }
        let failed = call_result(&ToolAnswer::error("boom"));
        assert_eq!(held_to(failed.clone(), Some(&schema)), failed);
    }

    #[test]
    fn definitions_declare_their_dialect_where_it_matters_annotations_and_output_schema() {
        let declared = Tool::builder("write", "files")
            .annotations(Annotations {
                read_only: false,
                destructive: true,
                parallel: None,
            })
            .parameters(json!({
                "type": "object",
                "properties": {"to": {"$ref": "#/$defs/path"}},
                "$defs": {"path": {"type": "string"}}
            }))
            .output_schema(json!({"type": "object", "properties": {"bytes": {"type": "integer"}}}))
            .build();
        let definition = crate::tool::rendered_definition(
            crate::Format::Mcp,
            &declared,
            "Write a file.",
            declared.parameters(),
        );
        let wire = serde_json::to_value(tool(&definition)).unwrap_or_default();
        assert_eq!(wire["inputSchema"]["$schema"], DIALECT);
        assert_eq!(
            wire["annotations"],
            json!({"readOnlyHint": false, "destructiveHint": true})
        );
        assert_eq!(
            wire["outputSchema"]["properties"]["bytes"]["type"],
            "integer"
        );
        // A schema every draft reads alike goes without the 55 bytes.
        assert_eq!(wire["outputSchema"].get("$schema"), None);
        let plain_schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        assert!(!dialect_declared(&plain_schema).contains_key("$schema"));
        for schema in [
            json!({"type": "array", "items": [{"type": "string"}]}),
            json!({"type": "array", "prefixItems": [{"type": "string"}]}),
            json!({"anyOf": [{"unevaluatedProperties": false}]}),
            json!({"type": "object", "dependentRequired": {"a": ["b"]}}),
        ] {
            assert_eq!(dialect_declared(&schema)["$schema"], DIALECT, "{schema}");
        }
        let plain = Tool::builder("plain", "misc")
            .output_schema(json!({"type": "string"}))
            .build();
        assert_eq!(annotations(&plain), None);
        assert_eq!(
            plain.output_schema(),
            None,
            "only an object schema is published"
        );
        let wire = serde_json::to_value(tool(&crate::tool::rendered_definition(
            crate::Format::Mcp,
            &plain,
            "",
            plain.parameters(),
        )))
        .unwrap_or_default();
        assert_eq!(wire.get("annotations"), None);
        assert_eq!(wire.get("outputSchema"), None);
    }
}
