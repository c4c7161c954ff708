//! Tool calls assembled from a provider's stream, fragment by fragment.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use serde_json::Value;

use super::at::{At, or_empty_object};
use super::parse::{self, anthropic_tool_use, responses_call_id};
use super::{ReplyError, ToolCall, family};
use crate::definitions::formats::Format;

/// Streaming: assembles calls from a provider's stream events.
///
/// Push each event as it arrives (the JSON of an SSE `data:` line, or an SDK event as JSON),
/// then [`finish`](Self::finish). Which events each format takes and what ends a call: see the
/// [module documentation](super#calls-streamed-in).
///
/// ```
/// use hermes_tools::Format;
/// use hermes_tools::provider::{CallAccumulator, ToolCall};
/// use serde_json::json;
///
/// // Two OpenAI chat calls, their fragments interleaved by `index`.
/// let chunk = |tool_calls| json!({"choices": [{"index": 0, "delta": {"tool_calls": tool_calls}}]});
/// let mut calls = CallAccumulator::new(Format::OpenAi);
/// for event in [
///     chunk(json!([{"index": 0, "id": "call_a", "type": "function",
///                   "function": {"name": "read_file", "arguments": ""}}])),
///     chunk(json!([{"index": 1, "id": "call_b", "type": "function",
///                   "function": {"name": "search_files", "arguments": "{\"pattern\":"}}])),
///     chunk(json!([{"index": 0, "function": {"arguments": "{\"path\":\"a.txt\"}"}}])),
///     chunk(json!([{"index": 1, "function": {"arguments": "\"TODO\"}"}}])),
/// ] {
///     calls.push(&event).unwrap();
/// }
/// assert_eq!(
///     calls.finish().unwrap(),
///     [
///         ToolCall::new("call_a", "read_file", r#"{"path":"a.txt"}"#),
///         ToolCall::new("call_b", "search_files", r#"{"pattern":"TODO"}"#),
///     ]
/// );
/// ```
#[derive(Debug, Clone)]
pub struct CallAccumulator {
    events: usize,
    state: State,
}

#[derive(Debug, Clone)]
enum State {
    /// OpenAI chat: calls by `index`, and the legacy `function_call` (which has none).
    Chat {
        calls: BTreeMap<u64, Partial>,
        legacy: Option<Partial>,
    },
    /// Anthropic content blocks by `index`; `None` for a block that is not a `tool_use`.
    Anthropic(BTreeMap<u64, Option<Partial>>),
    /// Responses output items by `output_index`; `None` for an item that is not a call.
    Responses(BTreeMap<u64, Option<Partial>>),
    /// Gemini and MCP, whose calls arrive whole.
    Whole(Format, Vec<ToolCall>),
}

/// A call being assembled.
#[derive(Debug, Clone, Default)]
struct Partial {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
    /// The arguments to use when no fragment brings any (Anthropic's `input` at the block's
    /// start, which is `{}` in a stream but may be whole from a proxy that does not stream).
    initial: Option<String>,
    /// Whether the provider said the call is complete.
    ended: bool,
}

impl CallAccumulator {
    /// An empty accumulator for `format`'s stream.
    pub fn new(format: Format) -> Self {
        let state = match family(format) {
            Format::Anthropic => State::Anthropic(BTreeMap::new()),
            Format::Responses => State::Responses(BTreeMap::new()),
            Format::Gemini => State::Whole(Format::Gemini, Vec::new()),
            Format::Mcp => State::Whole(Format::Mcp, Vec::new()),
            _ => State::Chat {
                calls: BTreeMap::new(),
                legacy: None,
            },
        };
        Self { events: 0, state }
    }

    /// Takes one stream event. An error names the event (counted from 1) and the place in it.
    pub fn push(&mut self, event: &Value) -> Result<(), ReplyError> {
        self.events += 1;
        let at = At::root(event);
        let pushed = match &mut self.state {
            State::Chat { calls, legacy } => chat_event(calls, legacy, &at),
            State::Anthropic(blocks) => anthropic_event(blocks, &at),
            State::Responses(items) => responses_event(items, &at),
            State::Whole(format, calls) => whole_event(*format, calls, &at),
        };
        pushed.map_err(|err| err.in_event(self.events))
    }

    /// Every call of the stream, in the model's order, once each is complete.
    ///
    /// An error when a call never received its id or name, or (Anthropic, Responses) never
    /// ended: its arguments would be cut short.
    pub fn finish(self) -> Result<Vec<ToolCall>, ReplyError> {
        match self.state {
            State::Chat { calls, legacy } => {
                if calls.is_empty()
                    && let Some(legacy) = legacy
                {
                    return Ok(vec![complete(legacy, "the function call", false)?]);
                }
                calls
                    .into_iter()
                    .map(|(index, call)| complete(call, &format!("tool call {index}"), false))
                    .collect()
            }
            State::Anthropic(blocks) => blocks
                .into_iter()
                .filter_map(|(index, block)| Some((index, block?)))
                .map(|(index, call)| complete(call, &format!("tool_use block {index}"), true))
                .collect(),
            State::Responses(items) => items
                .into_iter()
                .filter_map(|(index, item)| Some((index, item?)))
                .map(|(index, call)| {
                    complete(call, &format!("function_call output item {index}"), true)
                })
                .collect(),
            State::Whole(_, calls) => Ok(calls),
        }
    }
}

/// The call `call` once the stream is over, or why it is not one.
fn complete(call: Partial, what: &str, needs_end: bool) -> Result<ToolCall, ReplyError> {
    let incomplete = |missing: &str| {
        ReplyError::new(
            "",
            format!("the stream ended with {what} incomplete: {missing}"),
        )
    };
    let id = call
        .id
        .ok_or_else(|| incomplete("it never received an id"))?;
    let name = call
        .name
        .ok_or_else(|| incomplete("it never received the tool's name"))?;
    if needs_end && !call.ended {
        return Err(incomplete(&format!(
            "{id} never ended, so its arguments may be cut short"
        )));
    }
    let arguments = match call.initial {
        Some(initial) if call.arguments.is_empty() => initial,
        _ => or_empty_object(call.arguments),
    };
    Ok(ToolCall {
        id,
        name,
        arguments,
    })
}

/// The error a stream reports in place of more events.
fn stream_error(error: &At<'_>) -> ReplyError {
    let text = |key: &str| error.value().get(key).and_then(Value::as_str);
    // Anthropic and OpenAI chat name the kind in `type`, Gemini in `status`; a Responses
    // `error` event's `type` is the event's own, and its `code` says what happened.
    let kind = text("code")
        .or(text("type").filter(|kind| *kind != "error"))
        .or(text("status"));
    let what = match (kind, text("message")) {
        (Some(kind), Some(message)) => format!("{kind}: {message}"),
        (None, Some(message)) => message.to_owned(),
        _ => error.value().to_string(),
    };
    error.error(format!("the stream reported an error: {what}"))
}

/// The `type` of a typed stream event.
fn event_type<'a>(event: &At<'a>) -> Result<&'a str, ReplyError> {
    event.object()?;
    event.field("type", "every stream event has a type")?.str()
}

/// A chat completion chunk.
fn chat_event(
    calls: &mut BTreeMap<u64, Partial>,
    legacy: &mut Option<Partial>,
    event: &At<'_>,
) -> Result<(), ReplyError> {
    event.object()?;
    if let Some(error) = event.get("error") {
        return Err(stream_error(&error));
    }
    let choices = event.field(
        "choices",
        "expected a chat completion chunk (with `choices`)",
    )?;
    for choice in choices.array()? {
        choice.object()?;
        // With `n` > 1 each choice is another answer to the same request: the first is the one
        // a turn runs, as in `parse_calls`.
        if let Some(index) = choice.get("index")
            && index.index()? != 0
        {
            continue;
        }
        let Some(delta) = choice.get("delta") else {
            if choice.has("message") {
                return Err(choice.error_at(
                    "message",
                    "a whole message where a chunk has a `delta`: read a whole reply with \
                     parse_calls",
                ));
            }
            continue;
        };
        delta.object()?;
        if let Some(fragments) = delta.get("tool_calls") {
            for fragment in fragments.array()? {
                chat_fragment(calls, &fragment)?;
            }
        }
        if let Some(function) = delta.get("function_call") {
            function.object()?;
            let call = legacy.get_or_insert_with(|| Partial {
                id: Some(String::new()),
                ..Partial::default()
            });
            if let Some(name) = function.get("name") {
                grow_name(call, &name, "the function call")?;
            }
            if let Some(arguments) = function.get("arguments") {
                call.arguments.push_str(arguments.str()?);
            }
        }
    }
    Ok(())
}

/// One entry of a chunk's `delta.tool_calls`.
fn chat_fragment(calls: &mut BTreeMap<u64, Partial>, fragment: &At<'_>) -> Result<(), ReplyError> {
    fragment.object()?;
    let index = fragment
        .field(
            "index",
            "a tool call fragment says which call it belongs to",
        )?
        .index()?;
    if let Some(kind) = fragment.get("type")
        && kind.str()? != "function"
    {
        return Err(kind.error(format!(
            "a {:?} tool call: only function calls can be answered here",
            kind.str()?
        )));
    }
    let id = match fragment.get("id") {
        Some(id) if !id.str()?.is_empty() => Some(id),
        _ => None,
    };
    let function = fragment.get("function");
    if let Some(function) = &function {
        function.object()?;
    }
    let name = function
        .as_ref()
        .and_then(|function| function.get("name"))
        .filter(|name| name.value().as_str() != Some(""));
    let what = format!("tool call {index}");
    let call = match calls.entry(index) {
        Entry::Occupied(entry) => entry.into_mut(),
        Entry::Vacant(entry) => {
            if id.is_none() && name.is_none() {
                return Err(fragment.error_at(
                    "index",
                    format!(
                        "a fragment of tool call {index}, which no earlier fragment opened (a \
                         call's first fragment carries its id and name)"
                    ),
                ));
            }
            entry.insert(Partial::default())
        }
    };
    if let Some(id) = id {
        let id_text = id.str()?;
        match &call.id {
            None => call.id = Some(id_text.to_owned()),
            Some(known) if known == id_text => {}
            Some(known) => {
                return Err(id.error(format!(
                    "{what} was opened as {known:?}, and this fragment says {id_text:?}"
                )));
            }
        }
    }
    if let Some(name) = name {
        grow_name(call, &name, &what)?;
    }
    if let Some(arguments) = function
        .as_ref()
        .and_then(|function| function.get("arguments"))
    {
        call.arguments.push_str(arguments.str()?);
    }
    Ok(())
}

/// Sets the name of `call` from a fragment; a repeat of it is fine, another name is not.
fn grow_name(call: &mut Partial, name: &At<'_>, what: &str) -> Result<(), ReplyError> {
    let text = name.str()?;
    match &call.name {
        _ if text.is_empty() => {}
        None => call.name = Some(text.to_owned()),
        Some(known) if known == text => {}
        Some(known) => {
            return Err(name.error(format!(
                "{what} was opened as a call of {known:?}, and this fragment names {text:?}"
            )));
        }
    }
    Ok(())
}

/// The call at `index` of `slots`, for a fragment: an error when nothing opened it, `None`
/// when it is not a call (its fragments are not ours).
fn open_slot<'s>(
    slots: &'s mut BTreeMap<u64, Option<Partial>>,
    index: u64,
    index_at: &At<'_>,
    what: &str,
    opener: &str,
) -> Result<Option<&'s mut Partial>, ReplyError> {
    let Some(slot) = slots.get_mut(&index) else {
        return Err(index_at.error(format!(
            "a fragment of {what} {index}, which no {opener} opened"
        )));
    };
    let Some(call) = slot else {
        return Ok(None);
    };
    if call.ended {
        let id = call.id.as_deref().unwrap_or_default();
        return Err(index_at.error(format!(
            "a fragment of {what} {index} ({id}), which had already ended"
        )));
    }
    Ok(Some(call))
}

/// An Anthropic Messages stream event.
fn anthropic_event(
    blocks: &mut BTreeMap<u64, Option<Partial>>,
    event: &At<'_>,
) -> Result<(), ReplyError> {
    const BLOCK: &str = "content block";
    const OPENER: &str = "content_block_start";
    let index_at = || event.field("index", "a content block event says which block");
    match event_type(event)? {
        "content_block_start" => {
            let index_at = index_at()?;
            let index = index_at.index()?;
            let block = event.field("content_block", "a content_block_start holds the block")?;
            block.object()?;
            let kind = block
                .field("type", "every content block has a type")?
                .str()?;
            let call = if kind == "tool_use" {
                let call = anthropic_tool_use(&block)?;
                Some(Partial {
                    id: Some(call.id),
                    name: Some(call.name),
                    // `{}` in a stream: the input comes in deltas.
                    initial: Some(call.arguments),
                    ..Partial::default()
                })
            } else {
                None
            };
            if blocks.insert(index, call).is_some() {
                return Err(index_at.error(format!("content block {index} started twice")));
            }
        }
        "content_block_delta" => {
            let index_at = index_at()?;
            let index = index_at.index()?;
            let delta = event.field("delta", "a content_block_delta holds the delta")?;
            let kind = event_type(&delta)?;
            if let Some(call) = open_slot(blocks, index, &index_at, BLOCK, OPENER)?
                && kind == "input_json_delta"
            {
                let piece = delta.field("partial_json", "an input_json_delta holds JSON text")?;
                call.arguments.push_str(piece.str()?);
            }
        }
        "content_block_stop" => {
            let index_at = index_at()?;
            let index = index_at.index()?;
            if let Some(call) = open_slot(blocks, index, &index_at, BLOCK, OPENER)? {
                call.ended = true;
            }
        }
        "error" => {
            return Err(stream_error(
                &event.field("error", "an error event says what went wrong")?,
            ));
        }
        // message_start, message_delta, message_stop, ping, and events newer than this code.
        _ => {}
    }
    Ok(())
}

/// A Responses API stream event.
fn responses_event(
    items: &mut BTreeMap<u64, Option<Partial>>,
    event: &At<'_>,
) -> Result<(), ReplyError> {
    const ITEM: &str = "output item";
    const OPENER: &str = "response.output_item.added";
    let index_at = || event.field("output_index", "an output item event says which item");
    match event_type(event)? {
        "response.output_item.added" => {
            let index_at = index_at()?;
            let index = index_at.index()?;
            let item = event.field("item", "an output_item.added event holds the item")?;
            let call = responses_partial(&item)?;
            if items.insert(index, call).is_some() {
                return Err(index_at.error(format!("output item {index} was added twice")));
            }
        }
        "response.function_call_arguments.delta" => {
            let index_at = index_at()?;
            let index = index_at.index()?;
            if let Some(call) = open_slot(items, index, &index_at, ITEM, OPENER)? {
                let piece = event.field("delta", "an arguments delta holds JSON text")?;
                call.arguments.push_str(piece.str()?);
            }
        }
        "response.function_call_arguments.done" => {
            let index_at = index_at()?;
            let index = index_at.index()?;
            if let Some(call) = open_slot(items, index, &index_at, ITEM, OPENER)? {
                // The whole text, which the deltas only foreshadowed.
                let arguments = event.field("arguments", "the done event holds the arguments")?;
                call.arguments = arguments.str()?.to_owned();
                call.ended = true;
            }
        }
        "response.output_item.done" => {
            let index = index_at()?.index()?;
            let item = event.field("item", "an output_item.done event holds the item")?;
            // The item is whole: it completes the call, or is the call when its start was missed.
            if let Some(mut call) = responses_partial(&item)? {
                call.ended = true;
                items.insert(index, Some(call));
            }
        }
        "error" => return Err(stream_error(event)),
        "response.failed" => {
            let response = event.field("response", "a response.failed event holds the response")?;
            return Err(match response.get("error") {
                Some(error) => stream_error(&error),
                None => response.error("the stream reported that the response failed"),
            });
        }
        _ => {}
    }
    Ok(())
}

/// The call an output item starts (or, when done, is), or `None` for an item that is no call.
fn responses_partial(item: &At<'_>) -> Result<Option<Partial>, ReplyError> {
    item.object()?;
    let kind = item.field("type", "every output item has a type")?.str()?;
    if kind == "tool_search_call" {
        // A search call has no argument events: its item carries the arguments, whole when
        // the item is done (which ends it).
        return Ok(parse::responses_search_call(item)?.map(|call| Partial {
            id: Some(call.id),
            name: Some(call.name),
            arguments: call.arguments,
            ..Partial::default()
        }));
    }
    if kind != "function_call" {
        return Ok(None);
    }
    let name = match item.get("name") {
        Some(name) => Some(name.name()?.to_owned()),
        None => None,
    };
    let arguments = match item.get("arguments") {
        Some(arguments) => arguments.str()?.to_owned(),
        None => String::new(),
    };
    Ok(Some(Partial {
        id: Some(responses_call_id(item)?.to_owned()),
        name,
        arguments,
        ..Partial::default()
    }))
}

/// A Gemini chunk or an MCP message: its calls are whole.
fn whole_event(
    format: Format,
    calls: &mut Vec<ToolCall>,
    event: &At<'_>,
) -> Result<(), ReplyError> {
    let more = if format == Format::Gemini {
        event.object()?;
        if let Some(error) = event.get("error") {
            return Err(stream_error(&error));
        }
        // Generated ids go on counting across chunks: each is a position in the whole turn.
        parse::gemini(event, calls.len())?
    } else {
        parse::mcp(event)?
    };
    calls.extend(more);
    Ok(())
}
