//! A tool's definition in each provider format, rendered once: a leaf beside the tool, so
//! that a tool owns its renderings without depending on how lists of them are computed.

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::Tool;
use crate::formats::{self, Format};

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
            Arc::new(formats::definition(
                format,
                tool.name(),
                tool.description(),
                tool.parameters(),
            ))
        }))
    }
}
