//! A tool's definition in each provider format, rendered once: a leaf beside the tool, so
//! that a tool owns its renderings without depending on how lists of them are computed.

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::Tool;
use crate::definitions::formats::{self, Format};

/// A tool's static definition in each [`Format`], rendered on first use and then shared by
/// every list that includes the tool: computing a list assembles `Arc`s instead of rebuilding
/// (and, for `openai-strict` and `gemini`, rewriting) every schema.
#[derive(Default)]
pub(crate) struct Rendered([OnceLock<Arc<Value>>; Format::ALL.len()]);

impl Rendered {
    /// The tool's static definition in `format`.
    pub(crate) fn get(&self, format: Format, tool: &Tool) -> Arc<Value> {
        let slot = &self.0[format as usize];
        Arc::clone(slot.get_or_init(|| {
            Arc::new(definition(
                format,
                tool,
                tool.description(),
                tool.parameters(),
            ))
        }))
    }
}

/// `tool`'s definition in `format` with this description and these parameters; in the `mcp`
/// format with what `tools/list` says beside them, its annotations and its output schema, so
/// that `definitions --format mcp` and a served listing agree.
pub(crate) fn definition(
    format: Format,
    tool: &Tool,
    description: &str,
    parameters: &Value,
) -> Value {
    let mut value = formats::definition(format, tool.name(), description, parameters);
    if format == Format::Mcp
        && let Value::Object(fields) = &mut value
    {
        if let Some(hints) = tool.annotations().mcp_hints() {
            fields.insert("annotations".into(), hints);
        }
        if let Some(schema) = tool.output_schema() {
            fields.insert("outputSchema".into(), schema.clone());
        }
    }
    value
}
