//! Between a provider's API and the registry: the tool calls in a model's reply (whole or
//! streamed), and the answers wrapped in the message shape that provider expects back.
//!
//! [`definitions`](crate::ToolRegistry::definitions) tells a model which tools exist, in a
//! [`Format`]; this module closes the loop in the same format. [`parse_calls`] finds the
//! calls in a reply, [`CallAccumulator`] assembles them from a stream, and [`answer_messages`]
//! turns each call's [`ToolAnswer`](crate::ToolAnswer) into what the next request carries:
//!
//! ```
//! use hermes_tools::provider::{answer_messages, parse_calls};
//! use hermes_tools::{Format, tool::Tool, ToolContext, ToolRegistry};
//! use serde_json::{Value, json};
//!
//! let registry = ToolRegistry::new();
//! let add = Tool::builder("add", "math")
//!     .description("Add two integers.")
//!     .parameters(json!({
//!         "type": "object",
//!         "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
//!         "required": ["a", "b"]
//!     }))
//!     .handler(|args: Value, _: &ToolContext| {
//!         json!(args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0))
//!     })
//!     .build();
//! registry.register(add).unwrap();
//!
//! // What Claude sent (a Messages API response, abridged):
//! let reply = json!({
//!     "role": "assistant",
//!     "content": [
//!         {"type": "text", "text": "Let me add those."},
//!         {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 2, "b": 40}}
//!     ]
//! });
//! let calls = parse_calls(Format::Anthropic, &reply).unwrap();
//! assert_eq!(calls[0].arguments, r#"{"a":2,"b":40}"#);
//!
//! let ctx = ToolContext::new();
//! let answers: Vec<_> = calls
//!     .iter()
//!     .map(|call| registry.call_blocking(&call.name, &call.arguments, &ctx))
//!     .collect();
//! let messages = answer_messages(Format::Anthropic, calls.iter().zip(&answers));
//! assert_eq!(
//!     messages,
//!     [json!({
//!         "role": "user",
//!         "content": [{
//!             "type": "tool_result",
//!             "tool_use_id": "toolu_01",
//!             "content": [{"type": "text", "text": "42"}],
//!             "is_error": false
//!         }]
//!     })]
//! );
//! ```
//!
//! # Calls in
//!
//! | [`Format`] | a reply is | a call is | [`ToolCall::id`] |
//! | --- | --- | --- | --- |
//! | `openai`, `openai-strict` | a chat completion (`choices[0].message`) or that message | an entry of `tool_calls`, `function.arguments` a string | `id` |
//! | `responses` | a response (`output`) or its `output` array | an item of `type: function_call` | `call_id` |
//! | `anthropic` | a message (`content`) | a block of `type: tool_use`, `input` an object | `id` |
//! | `gemini` | a `GenerateContentResponse` (`candidates[0].content.parts`) or a `Content` (`parts`) | a part's `functionCall`, `args` an object | `id`, or `call_<n>` when Gemini sends none |
//! | `mcp` | a JSON-RPC request, or a batch of them | a `tools/call` request, `params.arguments` an object | the JSON-RPC `id` as text |
//!
//! [`ToolCall::arguments`] is JSON text: OpenAI's string exactly as the model wrote it (so the
//! pipeline's repair sees the model's own mistakes), other providers' objects serialized.
//!
//! What is lenient, because refusing it would cost a working reply and accepting it costs
//! nothing:
//!
//! - arguments missing, `null`, or an empty (or blank) string are `{}`: a tool without
//!   parameters is called with none, and some servers send nothing for them;
//! - an OpenAI tool call without an `id` (some compatible servers omit it) gets `call_<n>`,
//!   `n` its position in `tool_calls`;
//! - OpenAI's legacy `function_call` (sent by older compatible servers, with no `tool_calls`)
//!   is one call with an empty id, answered with the legacy `role: function` message;
//! - Gemini parts in the Python SDK's snake_case (`function_call`) read like the REST
//!   API's camelCase (`functionCall`);
//! - items and blocks that are not ours are skipped: Responses messages, reasoning and
//!   built-in tool calls, Anthropic text and server tool blocks, Gemini text parts, JSON-RPC
//!   messages other than `tools/call`. A reply without calls (a final answer, a Gemini
//!   reply whose prompt was blocked) is an empty `Vec`.
//!
//! What is an error ([`ReplyError`], whose pointer says where): a reply that is not the
//! documented object at all (an Anthropic message handed to `openai` is one), a call with no
//! name or an empty one, arguments of the wrong JSON type (an OpenAI `arguments` object, an
//! Anthropic `input` or Gemini `args` that is not an object), a Responses call without its
//! `call_id` (the answer could not be matched), an OpenAI tool call of a type other than
//! `function` (it could not be answered here), a `tools/call` without an id (a notification
//! cannot be answered), and Gemini's partial arguments (Vertex AI's
//! `streamFunctionCallArguments`), which this module does not assemble.
//!
//! # Calls streamed in
//!
//! [`CallAccumulator`] takes a provider's stream events one by one, as the SDK or the SSE
//! `data:` lines give them, and [`finish`](CallAccumulator::finish)es with the calls in the
//! model's order:
//!
//! | [`Format`] | events | a call is opened by | grows with | ends with |
//! | --- | --- | --- | --- | --- |
//! | `openai`, `openai-strict` | chat completion chunks | a `choices[0].delta.tool_calls` fragment with an `index` not seen yet, carrying its `id` or `function.name` | `function.arguments` pieces for that index, concatenated | the stream's end |
//! | `responses` | `response.*` events | `response.output_item.added` with a `function_call` item | `response.function_call_arguments.delta` | `response.function_call_arguments.done` or `response.output_item.done` |
//! | `anthropic` | Messages stream events | `content_block_start` with a `tool_use` block | `content_block_delta` of `input_json_delta.partial_json` (none at all is `{}`) | `content_block_stop` |
//! | `gemini` | each chunk a whole `GenerateContentResponse` | a `functionCall` part, whole | — | — |
//! | `mcp` | each event a JSON-RPC message or batch | a `tools/call` request, whole | — | — |
//!
//! Calls of several tools may interleave (OpenAI's fragments by `index`, Anthropic's by block
//! `index`, Responses' by `output_index`). A fragment for a call that was never opened is an
//! error that names it, as is an `error` event of the stream itself;
//! [`finish`](CallAccumulator::finish) refuses a call that never received its id or name, or (Anthropic, Responses) whose end
//! never came: a cut stream gives truncated arguments, which must not run.
//!
//! # Answers out
//!
//! [`answer_messages`] gives, in the calls' order:
//!
//! | [`Format`] | messages | an error answer |
//! | --- | --- | --- |
//! | `openai`, `openai-strict` | one `{"role": "tool", "tool_call_id", "content": <answer JSON text>}` per call | the same, its text `{"error": …}` |
//! | `responses` | one `{"type": "function_call_output", "call_id", "output": <answer JSON text>}` per call | the same |
//! | `anthropic` | one `{"role": "user", "content": [tool_result, …]}`, each `{"type": "tool_result", "tool_use_id", "content": [blocks], "is_error"}` | `"is_error": true` |
//! | `gemini` | one `{"role": "user", "parts": [{"functionResponse": {"id"?, "name", "response"}}, …]}` | `response` is `{"error": …}` |
//! | `mcp` | one `CallToolResult` `{"content": [blocks], "isError"}` per call (and `structuredContent` for an object answer), as `serve` sends it | `"isError": true` |
//!
//! Gemini's `response` must be an object: an object answer goes as it is, any other answer as
//! `{"result": <answer>}` (an error as `{"error": <answer>}`). Its `id` is echoed when Gemini
//! sent one, and left out when the call's id is the generated `call_<n>`: Gemini sent none, and
//! an id it never issued matches none of its calls. With no calls, no message is made.
//!
//! A multimodal answer ([`ToolAnswer::content`](crate::ToolAnswer::content)) is carried as its
//! parts, not as its JSON (which would send every image to the model as base64 text), the way
//! each provider documents:
//!
//! | [`Format`] | text parts | images |
//! | --- | --- | --- |
//! | `openai`, `openai-strict` | the tool message's content, joined by newlines | chat tool messages take text only: one extra `role: user` message after all the tool messages, with a text part naming the call and the images as `image_url` data URLs; the tool message says they follow |
//! | `responses` | `output` becomes a list: `input_text` items | `input_image` items with a data URL |
//! | `anthropic` | `text` blocks in the `tool_result` | `image` blocks with a `base64` source, in the `tool_result` |
//! | `gemini` | `response: {"result": <texts joined by newlines>}` | `functionResponse.parts`, each `{"inlineData": {"mimeType", "data"}}` (multimodal function responses: Gemini 3 models) |
//! | `mcp` | `text` blocks | `image` blocks |
//!
//! An image of a type the provider does not take is left out, and a text part says so (the
//! model reads why an image is missing, rather than an empty answer): OpenAI and Anthropic take
//! `image/png`, `image/jpeg`, `image/gif` and `image/webp`; Gemini `image/png`, `image/jpeg`,
//! `image/webp`, `image/heic` and `image/heif`; MCP any. `image/jpg` is read as `image/jpeg`.

use std::fmt;

use crate::definitions::formats::Format;

mod at;
mod messages;
mod parse;
mod search;
mod stream;
#[cfg(test)]
mod tests;
pub(crate) mod turn;

pub use messages::answer_messages;
pub use parse::parse_calls;
pub use search::SEARCH_TOOL;
pub(crate) use search::found as search_answer;
pub use stream::CallAccumulator;
pub use turn::TurnCancel;

/// One tool call the model asked for, whatever the provider.
///
/// ```
/// use hermes_tools::provider::ToolCall;
///
/// let call = ToolCall::new("call_abc", "read_file", r#"{"path": "README.md"}"#);
/// assert_eq!(call.name, "read_file");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The provider's id for the call (OpenAI `id`, Responses `call_id`, Anthropic `id`,
    /// Gemini `id` or, when Gemini sends none, a generated `call_<index>`), echoed in the answer.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON text, exactly as the provider sent them (OpenAI's string as is,
    /// so the pipeline's repair sees what the model wrote; Anthropic/Gemini objects serialized).
    pub arguments: String,
}

impl ToolCall {
    /// A call of tool `name` with id `id` and the JSON text `arguments`.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// A reply that is not what the provider's API documents.
///
/// Displayed as `at <JSON pointer>: <what is wrong>`, the pointer (RFC 6901) into the reply
/// given to [`parse_calls`] or into the stream event given to [`CallAccumulator::push`]; the
/// whole document is shown as `at the top level`.
///
/// ```
/// use hermes_tools::Format;
/// use hermes_tools::provider::parse_calls;
/// use serde_json::json;
///
/// let reply = json!({"role": "assistant", "tool_calls": [
///     {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
/// ]});
/// let err = parse_calls(Format::OpenAi, &reply).unwrap_err();
/// assert_eq!(err.pointer(), "/tool_calls/0/function/arguments");
/// assert_eq!(
///     err.to_string(),
///     "at /tool_calls/0/function/arguments: expected a string, found an object"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyError {
    pointer: String,
    message: String,
}

impl fmt::Display for ReplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", Shown(&self.pointer), self.message)
    }
}

impl std::error::Error for ReplyError {}

impl ReplyError {
    /// The message is redacted: it may quote a provider's own words (a stream's error event)
    /// or the reply's values, and it reaches logs and the model.
    pub(crate) fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        let message = message.into();
        Self {
            pointer: pointer.into(),
            message: crate::secrets::redact(&message).into_owned(),
        }
    }

    /// Where in the reply (or the stream event): a JSON pointer, `""` for the whole document.
    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    /// What is wrong there, and what was expected.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error, said to be in stream event `event` (counted from 1).
    fn in_event(mut self, event: usize) -> Self {
        self.message = format!("stream event {event}: {}", self.message);
        self
    }
}

/// A pointer as the error shows it: the empty pointer (the whole document) in words.
struct Shown<'a>(&'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("the top level")
        } else {
            f.write_str(self.0)
        }
    }
}

/// The id given to the `index`th call of a reply whose provider sent none.
fn generated_id(index: usize) -> String {
    format!("call_{index}")
}

/// Whether `id` is one [`generated_id`] makes (and so must not be echoed to a provider that
/// matches ids it sent).
fn is_generated_id(id: &str) -> bool {
    id.strip_prefix("call_")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The formats whose replies and answers share one shape.
fn family(format: Format) -> Format {
    match format {
        Format::OpenAiStrict => Format::OpenAi,
        other => other,
    }
}
