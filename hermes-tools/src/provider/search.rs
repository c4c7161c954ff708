//! Native tool search traffic: the search call a provider's model makes, and the answer in the
//! shape that provider loads tools from.
//!
//! Anthropic's model calls the search tool like any other (a `tool_use` block), and the answer
//! is a `tool_result` whose content is one `tool_reference` block per tool found: the API then
//! expands each into the deferred tool's definition. The Responses API's model makes a
//! `tool_search_call` item (`execution: "client"`: we run the search), answered by a
//! `tool_search_output` item holding the found tools' definitions. Both calls are read as a
//! [`ToolCall`] of [`SEARCH_TOOL`], so a turn runs them with the other calls, in order.

use serde_json::{Map, Value, json};

use super::ToolCall;
use crate::call::answer::ToolAnswer;

pub use crate::definitions::formats::native::SEARCH_TOOL;

/// The member of a search answer that lists the tools found, each a definition in the
/// provider's shape.
const FOUND: &str = "tools";

/// The answer to a native search that found `tools` (definitions in the provider's shape, in
/// the order found); an empty list is "nothing matched".
pub(crate) fn found(tools: Vec<Value>) -> ToolAnswer {
    ToolAnswer::json(&json!({ FOUND: tools }))
}

/// The tools a native search answer found: `Some` only for a call of [`SEARCH_TOOL`] whose
/// answer is the one [`found`] makes.
fn found_in(call: &ToolCall, answer: &ToolAnswer) -> Option<Vec<Value>> {
    if call.name != SEARCH_TOOL || answer.is_error() || answer.content().is_some() {
        return None;
    }
    match answer.to_value() {
        Value::Object(mut object) if object.len() == 1 => match object.remove(FOUND) {
            Some(Value::Array(tools)) => Some(tools),
            _ => None,
        },
        _ => None,
    }
}

/// Anthropic: the `tool_result` of a search, one `tool_reference` per tool found; `None` when
/// the call was no native search (it is answered as any call).
pub(super) fn anthropic_result(call: &ToolCall, answer: &ToolAnswer) -> Option<Value> {
    let tools = found_in(call, answer)?;
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|tool| tool.get("name").and_then(Value::as_str))
        .collect();
    let content: Vec<Value> = if names.is_empty() {
        // A result of references only is expanded by the API; with none, the model reads why.
        vec![json!({
            "type": "text",
            "text": "No deferred tool matched. Try other words, or `select:NAME` for a tool \
                     whose name you know.",
        })]
    } else {
        names
            .iter()
            .map(|name| json!({"type": "tool_reference", "tool_name": name}))
            .collect()
    };
    Some(json!({
        "type": "tool_result",
        "tool_use_id": call.id,
        "content": content,
        "is_error": false,
    }))
}

/// Responses: the `tool_search_output` item answering a `tool_search_call`. An error answer
/// (arguments the search could not read) loads nothing: the item has no place for a message.
pub(super) fn responses_output(call: &ToolCall, answer: &ToolAnswer) -> Option<Value> {
    if call.name != SEARCH_TOOL {
        return None;
    }
    let tools = match found_in(call, answer) {
        Some(tools) => tools,
        None if answer.is_error() => Vec::new(),
        None => return None,
    };
    let mut item = Map::with_capacity(4);
    item.insert("type".into(), json!("tool_search_output"));
    item.insert("call_id".into(), json!(call.id));
    item.insert("execution".into(), json!("client"));
    item.insert(FOUND.into(), Value::Array(tools));
    Some(Value::Object(item))
}
