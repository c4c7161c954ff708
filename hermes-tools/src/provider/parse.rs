//! Tool calls out of a whole (non-streamed) reply, one function per provider family.

use serde_json::Value;

use super::at::{At, object_arguments, text_arguments};
use super::{ReplyError, SEARCH_TOOL, ToolCall, family, generated_id};
use crate::definitions::formats::Format;

/// Every tool call in a provider's (non-streamed) reply, in the model's order. Empty when the
/// reply has none (a final answer).
///
/// What each format's reply looks like, what is lenient and what is an error: see the
/// [module documentation](super).
///
/// ```
/// use hermes_tools::Format;
/// use hermes_tools::provider::{ToolCall, parse_calls};
/// use serde_json::json;
///
/// // A Responses API response: the reasoning item is skipped, the call's id is its `call_id`.
/// let response = json!({"output": [
///     {"type": "reasoning", "id": "rs_1", "summary": []},
///     {"type": "function_call", "id": "fc_1", "call_id": "call_1",
///      "name": "read_file", "arguments": "{\"path\":\"README.md\"}"}
/// ]});
/// assert_eq!(
///     parse_calls(Format::Responses, &response).unwrap(),
///     [ToolCall::new("call_1", "read_file", r#"{"path":"README.md"}"#)]
/// );
///
/// // A Gemini reply: `args` serialized, the missing id generated.
/// let reply = json!({"candidates": [{"content": {"role": "model", "parts": [
///     {"functionCall": {"name": "read_file", "args": {"path": "README.md"}}}
/// ]}}]});
/// assert_eq!(
///     parse_calls(Format::Gemini, &reply).unwrap(),
///     [ToolCall::new("call_0", "read_file", r#"{"path":"README.md"}"#)]
/// );
/// ```
pub fn parse_calls(format: Format, reply: &Value) -> Result<Vec<ToolCall>, ReplyError> {
    let root = At::root(reply);
    match family(format) {
        Format::Responses => responses(&root),
        Format::Anthropic => anthropic(&root),
        Format::Gemini => gemini(&root, 0),
        Format::Mcp => mcp(&root),
        _ => openai(&root),
    }
}

/// A chat completion, or the message of its first choice.
fn openai(root: &At<'_>) -> Result<Vec<ToolCall>, ReplyError> {
    root.object()?;
    if root.has("choices") {
        let choices = root
            .field("choices", "a chat completion has choices")?
            .array()?;
        let Some(first) = choices.first() else {
            return Err(root.error_at(
                "choices",
                "is empty: expected a choice with the assistant's message",
            ));
        };
        return openai_message(&first.field("message", "a choice holds the assistant's message")?);
    }
    // Without `role` this is no message at all (a reply of another format, say), and reading
    // it as one with no calls would hide the mistake.
    if !root.has("role") {
        return Err(
            root.error("expected a chat completion (with `choices`) or its message (with `role`)")
        );
    }
    openai_message(root)
}

/// The calls of an assistant message: its `tool_calls`, or else the legacy `function_call`.
fn openai_message(message: &At<'_>) -> Result<Vec<ToolCall>, ReplyError> {
    message.object()?;
    if let Some(tool_calls) = message.get("tool_calls") {
        let tool_calls = tool_calls.array()?;
        if !tool_calls.is_empty() {
            return tool_calls
                .iter()
                .enumerate()
                .map(|(index, call)| openai_call(index, call))
                .collect();
        }
    }
    match message.get("function_call") {
        Some(legacy) => Ok(vec![legacy_call(&legacy)?]),
        None => Ok(Vec::new()),
    }
}

/// One entry of `tool_calls`.
fn openai_call(index: usize, call: &At<'_>) -> Result<ToolCall, ReplyError> {
    call.object()?;
    if let Some(kind) = call.get("type") {
        let kind = kind.str()?;
        if kind != "function" {
            return Err(call.error_at(
                "type",
                format!(
                    "a {kind:?} tool call: only function calls can be answered here (these tools \
                     are published as functions)"
                ),
            ));
        }
    }
    let id = match call.get("id") {
        Some(id) if !id.str()?.is_empty() => id.str()?.to_owned(),
        _ => generated_id(index),
    };
    let function = call.field("function", "a tool call names its function")?;
    function.object()?;
    Ok(ToolCall {
        id,
        name: function
            .field("name", "a tool call needs the tool's name")?
            .name()?
            .to_owned(),
        arguments: text_arguments(function.get("arguments"))?,
    })
}

/// The legacy `function_call` of a message: one call with no id.
pub(super) fn legacy_call(function: &At<'_>) -> Result<ToolCall, ReplyError> {
    function.object()?;
    Ok(ToolCall {
        id: String::new(),
        name: function
            .field("name", "a function call needs the tool's name")?
            .name()?
            .to_owned(),
        arguments: text_arguments(function.get("arguments"))?,
    })
}

/// A Responses API response, or its `output` array.
fn responses(root: &At<'_>) -> Result<Vec<ToolCall>, ReplyError> {
    let output = if root.value().is_array() {
        root.clone()
    } else {
        root.object()?;
        root.field(
            "output",
            "expected a response (with `output`) or its output array",
        )?
    };
    let mut calls = Vec::new();
    for item in output.array()? {
        if let Some(call) = responses_item(&item)? {
            calls.push(call);
        }
    }
    Ok(calls)
}

/// The call of one output item, when it is a `function_call`.
pub(super) fn responses_item(item: &At<'_>) -> Result<Option<ToolCall>, ReplyError> {
    item.object()?;
    let kind = item.field("type", "every output item has a type")?.str()?;
    if kind == "tool_search_call" {
        return responses_search_call(item);
    }
    if kind != "function_call" {
        return Ok(None);
    }
    Ok(Some(ToolCall {
        id: responses_call_id(item)?.to_owned(),
        name: item
            .field("name", "a function call needs the tool's name")?
            .name()?
            .to_owned(),
        arguments: text_arguments(item.get("arguments"))?,
    }))
}

/// A Responses `tool_search_call` item as a call of [`SEARCH_TOOL`]; `None` for a search the
/// server ran (`execution: "server"`), which needs no answer.
pub(super) fn responses_search_call(item: &At<'_>) -> Result<Option<ToolCall>, ReplyError> {
    if let Some(execution) = item.get("execution")
        && execution.str()? != "client"
    {
        return Ok(None);
    }
    Ok(Some(ToolCall {
        id: responses_call_id(item)?.to_owned(),
        name: SEARCH_TOOL.to_owned(),
        arguments: object_arguments(item.get("arguments"))?,
    }))
}

/// The `call_id` of a `function_call` item, which its output must echo.
pub(super) fn responses_call_id<'a>(item: &At<'a>) -> Result<&'a str, ReplyError> {
    let id = item.field(
        "call_id",
        "a function call's output is matched to it by `call_id`",
    )?;
    let text = id.str()?;
    if text.is_empty() {
        return Err(id.error("is empty: a function call's output is matched to it by `call_id`"));
    }
    Ok(text)
}

/// An Anthropic message.
fn anthropic(root: &At<'_>) -> Result<Vec<ToolCall>, ReplyError> {
    root.object()?;
    let content = root.field("content", "expected a message (with `content`)")?;
    // A message written by hand (an assistant turn of `messages`) may be a plain string.
    if content.value().is_string() {
        return Ok(Vec::new());
    }
    let mut calls = Vec::new();
    for block in content.array()? {
        block.object()?;
        let kind = block
            .field("type", "every content block has a type")?
            .str()?;
        if kind == "tool_use" {
            calls.push(anthropic_tool_use(&block)?);
        }
    }
    Ok(calls)
}

/// A `tool_use` block: its `input` object is the arguments.
pub(super) fn anthropic_tool_use(block: &At<'_>) -> Result<ToolCall, ReplyError> {
    let id = block.field("id", "a tool_use block's result is matched to it by `id`")?;
    let id_text = id.str()?;
    if id_text.is_empty() {
        return Err(id.error("is empty: a tool_use block's result is matched to it by `id`"));
    }
    Ok(ToolCall {
        id: id_text.to_owned(),
        name: block
            .field("name", "a tool_use block needs the tool's name")?
            .name()?
            .to_owned(),
        arguments: object_arguments(block.get("input"))?,
    })
}

/// A Gemini `GenerateContentResponse` or `Content`; generated ids count from `first`.
pub(super) fn gemini(root: &At<'_>, first: usize) -> Result<Vec<ToolCall>, ReplyError> {
    root.object()?;
    let parts = if root.has("parts") {
        root.get("parts")
    } else if ["candidates", "promptFeedback", "prompt_feedback"]
        .iter()
        .any(|key| root.has(key))
    {
        first_candidate_parts(root)?
    } else {
        return Err(root.error(
            "expected a GenerateContentResponse (with `candidates`) or a Content (with `parts`)",
        ));
    };
    let Some(parts) = parts else {
        return Ok(Vec::new());
    };
    let mut calls = Vec::new();
    for part in parts.array()? {
        part.object()?;
        let Some(call) = part
            .get("functionCall")
            .or_else(|| part.get("function_call"))
        else {
            continue;
        };
        calls.push(gemini_call(&call, first + calls.len())?);
    }
    Ok(calls)
}

/// The parts of a response's first candidate; `None` when there are none: a blocked prompt has
/// no candidate, a candidate stopped for safety has no content, a content may have no parts.
fn first_candidate_parts<'a>(response: &At<'a>) -> Result<Option<At<'a>>, ReplyError> {
    let Some(candidates) = response.get("candidates") else {
        return Ok(None);
    };
    let Some(candidate) = candidates.array()?.into_iter().next() else {
        return Ok(None);
    };
    candidate.object()?;
    let Some(content) = candidate.get("content") else {
        return Ok(None);
    };
    content.object()?;
    Ok(content.get("parts"))
}

/// A `functionCall`: its `args` object is the arguments; `index` numbers it when it has no id.
fn gemini_call(call: &At<'_>, index: usize) -> Result<ToolCall, ReplyError> {
    call.object()?;
    for key in [
        "partialArgs",
        "partial_args",
        "willContinue",
        "will_continue",
    ] {
        if call
            .get(key)
            .is_some_and(|value| value.value() != &Value::Bool(false))
        {
            return Err(call.error_at(
                key,
                "streamed function-call arguments are not assembled here: leave \
                 `streamFunctionCallArguments` off, and each call arrives whole",
            ));
        }
    }
    let id = match call.get("id") {
        Some(id) if !id.str()?.is_empty() => id.str()?.to_owned(),
        _ => generated_id(index),
    };
    Ok(ToolCall {
        id,
        name: call
            .field("name", "a function call needs the tool's name")?
            .name()?
            .to_owned(),
        arguments: object_arguments(call.get("args"))?,
    })
}

/// A JSON-RPC message or batch: its `tools/call` requests.
pub(super) fn mcp(root: &At<'_>) -> Result<Vec<ToolCall>, ReplyError> {
    let messages = if root.value().is_array() {
        root.array()?
    } else {
        vec![root.clone()]
    };
    let mut calls = Vec::new();
    for message in &messages {
        message.object()?;
        let Some(method) = message.get("method") else {
            continue; // a response
        };
        if method.str()? != "tools/call" {
            continue;
        }
        let id = message.field(
            "id",
            "a tools/call without an id is a notification, which cannot be answered",
        )?;
        let id = match id.value() {
            Value::String(text) => text.clone(),
            Value::Number(number) => number.to_string(),
            _ => return Err(id.expected("a string or a number (a JSON-RPC id)")),
        };
        let params = message.field("params", "a tools/call names its tool in `params`")?;
        params.object()?;
        calls.push(ToolCall {
            id,
            name: params
                .field("name", "a tools/call needs the tool's name")?
                .name()?
                .to_owned(),
            arguments: object_arguments(params.get("arguments"))?,
        });
    }
    Ok(calls)
}
