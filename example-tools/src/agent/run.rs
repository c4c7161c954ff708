//! The agent loop: request, parse the calls, run them as a turn, answer, repeat.

use std::fmt;
use std::io::{self, Write};

use hermes_tools::provider::{ReplyError, ToolCall, answer_messages, parse_calls};
use hermes_tools::search::Deferral;
use hermes_tools::{
    CallOptions, DefinitionsRequest, Format, ToolContext, ToolRegistry, Turn,
    definitions::Definitions, toolsets::SelectionError,
};
use serde_json::{Value, json};

use super::endpoint::{Endpoint, EndpointError};
use super::tally::Tally;
use super::{STEP_CHARS, shorten};

/// What a run needs beside the registry and the context.
#[derive(Debug)]
pub struct Settings {
    /// Where the model is.
    pub endpoint: Endpoint,
    /// The model's name, sent as `model`.
    pub model: String,
    /// The most model requests.
    pub max_turns: u32,
    /// The tools the first requests force, one each in order.
    pub tool_choice: Vec<String>,
    /// The toolsets offered (empty: all).
    pub toolsets: Vec<String>,
    /// The tools deferred (found through the bridge's `tool_search`).
    pub deferral: Deferral,
    /// The most tokens each reply may take, if bounded.
    pub max_tokens: Option<u32>,
    /// The user's message.
    pub prompt: String,
}

/// How a run ended without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The model gave a final answer.
    Answered,
    /// `max_turns` requests were made, and the model still called tools when the last
    /// request told it not to (`tool_choice: none`).
    TurnLimit,
}

/// Why a run stopped early.
#[derive(Debug)]
pub enum AgentError {
    /// The settings cannot work (an unknown toolset, a forced tool that is not offered).
    Usage(String),
    /// The request failed.
    Endpoint(EndpointError),
    /// The endpoint's reply is JSON but not a chat completion.
    Reply {
        /// The endpoint's URL.
        url: String,
        /// Where and what.
        error: ReplyError,
    },
    /// Writing the transcript failed.
    Output(io::Error),
    /// A bug: the request's thread panicked.
    Internal(String),
}

impl AgentError {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            AgentError::Usage(_) => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::Usage(message) => f.write_str(message),
            AgentError::Endpoint(err) => err.fmt(f),
            AgentError::Reply { url, error } => {
                write!(
                    f,
                    "{url} sent a reply that is not a chat completion: {error}"
                )
            }
            AgentError::Output(err) => write!(f, "cannot write the transcript: {err}"),
            AgentError::Internal(message) => f.write_str(message),
        }
    }
}

impl From<io::Error> for AgentError {
    fn from(err: io::Error) -> Self {
        AgentError::Output(err)
    }
}

/// Runs the conversation started by `settings.prompt` to its end, printing each step to `out`
/// and, at the end, how the calls' arguments fared.
pub async fn run(
    settings: &Settings,
    registry: &ToolRegistry,
    ctx: &ToolContext,
    out: &mut dyn Write,
) -> Result<Ending, AgentError> {
    let shown = offered(registry, settings, &[])?;
    check_forced(&shown, settings)?;
    let mut tally = Tally::new(&shown);
    let ending = converse(settings, registry, ctx, shown, &mut tally, out).await;
    // The counts matter most when the run went wrong, so they are printed either way.
    if tally.calls() > 0 || ending.is_ok() {
        writeln!(out, "{tally}")?;
        out.flush()?;
    }
    ending
}

/// The definitions of the selected toolsets, deferring what `settings` defers, with the tools
/// `discovered` so far appended in full.
fn offered(
    registry: &ToolRegistry,
    settings: &Settings,
    discovered: &[String],
) -> Result<Definitions, AgentError> {
    let request = DefinitionsRequest::all()
        .enable(settings.toolsets.iter().cloned())
        .format(Format::OpenAi)
        .defer(settings.deferral.clone())
        .discovered(discovered.iter().cloned());
    registry
        .definitions(&request)
        .map_err(|err: SelectionError| AgentError::Usage(format!("--toolsets: {err}")))
}

/// Every `--tool-choice` name is a tool the model can be made to call: one in the list, one of
/// the bridge's meta-tools, or a deferred tool (forced once a search has found it).
fn check_forced(shown: &Definitions, settings: &Settings) -> Result<(), AgentError> {
    let known = |name: &str| {
        shown.contains(name)
            || shown.is_deferred(name)
            || shown.bridge().is_some_and(|bridge| bridge.contains(name))
    };
    let Some(forced) = settings.tool_choice.iter().find(|name| !known(name)) else {
        return Ok(());
    };
    let mut names: Vec<&str> = shown.names().collect();
    if let Some(bridge) = shown.bridge() {
        names.extend(bridge.iter());
    }
    Err(AgentError::Usage(format!(
        "--tool-choice {forced}: no such tool is offered; the selected toolsets offer: {}",
        if names.is_empty() {
            "no tools".to_owned()
        } else {
            names.join(", ")
        }
    )))
}

/// Whether `name` is in the list sent (a tool in full, or a meta-tool of the bridge).
fn listed(shown: &Definitions, name: &str) -> bool {
    shown.contains(name) || shown.bridge().is_some_and(|bridge| bridge.contains(name))
}

/// The deferred tools a bridge answer names: the hits of a `tool_search` that are deferred, the
/// tools a `tool_describe` described.
fn found_in(
    shown: &Definitions,
    call: &ToolCall,
    answer: &hermes_tools::ToolAnswer,
) -> Vec<String> {
    let Some(bridge) = shown.bridge() else {
        return Vec::new();
    };
    if answer.is_error() {
        return Vec::new();
    }
    let value = answer.to_value();
    let names: Vec<&Value> = if call.name == bridge.search {
        value["results"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|result| result["tools"].as_array().into_iter().flatten())
            .map(|tool| &tool["name"])
            .collect()
    } else if call.name == bridge.describe {
        value["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|tool| &tool["function"]["name"])
            .collect()
    } else {
        Vec::new()
    };
    names
        .into_iter()
        .filter_map(Value::as_str)
        .filter(|name| shown.is_deferred(name))
        .map(str::to_owned)
        .collect()
}

async fn converse(
    settings: &Settings,
    registry: &ToolRegistry,
    ctx: &ToolContext,
    mut shown: Definitions,
    tally: &mut Tally,
    out: &mut dyn Write,
) -> Result<Ending, AgentError> {
    let mut discovered: Vec<String> = Vec::new();
    let mut messages = vec![json!({"role": "user", "content": settings.prompt})];
    for request in 0..settings.max_turns {
        let tools: Vec<Value> = shown.iter().cloned().collect();
        let turn = Turn::new().options(
            CallOptions::new()
                .from_agent_loop()
                .definitions(shown.clone()),
        );
        let mut body = request_body(settings, &messages);
        // An empty `tools` array is refused by OpenAI: with nothing offered, send none.
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools);
            // A forced tool not in the list yet (a deferred tool no search has found) is not
            // forced: the endpoint would refuse a choice of a function it was not given.
            let forced = usize::try_from(request)
                .ok()
                .and_then(|n| settings.tool_choice.get(n))
                .filter(|name| listed(&shown, name));
            body["tool_choice"] = match forced {
                Some(name) => json!({"type": "function", "function": {"name": name}}),
                None => json!("auto"),
            };
        }
        let (calls, mut message) = ask(settings, body).await?;
        let text = text_of(&message);
        if calls.is_empty() {
            print_answer(out, text)?;
            return Ok(Ending::Answered);
        }
        if !text.is_empty() {
            writeln!(out, "{text}")?;
        }
        // The assistant message goes back as the model sent it, but for a null `content`:
        // OpenAI takes "" as well, and llama-cpp-python's server (0.3.36) refuses its own null
        // with a 500.
        if message.get("content").is_some_and(Value::is_null) {
            message["content"] = json!("");
        }
        messages.push(message);
        for call in &calls {
            writeln!(out, "→ {} {}", call.name, step(&call.arguments))?;
        }
        out.flush()?;
        let answers = registry.run_turn(&calls, ctx, &turn).await;
        let before = discovered.len();
        for (call, answer) in calls.iter().zip(&answers) {
            tally.record(call, answer);
            writeln!(out, "← {}", step(answer.as_str()))?;
            for name in found_in(&shown, call, answer) {
                if !discovered.contains(&name) {
                    discovered.push(name);
                }
            }
        }
        out.flush()?;
        messages.extend(answer_messages(Format::OpenAi, calls.iter().zip(&answers)));
        if discovered.len() > before {
            writeln!(out, "(discovered: {})", discovered[before..].join(", "))?;
            shown = offered(registry, settings, &discovered)?;
            tally.learn(&shown);
        }
    }
    let tools: Vec<Value> = shown.iter().cloned().collect();
    // The limit: one last request that may not call a tool asks for the answer from what the
    // calls returned (as Hermes does at its iteration limit), so the work done is not lost.
    let mut body = request_body(settings, &messages);
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
        body["tool_choice"] = json!("none");
    }
    writeln!(
        out,
        "(turn limit: {} requests; asking for an answer without tools)",
        settings.max_turns
    )?;
    let (calls, message) = ask(settings, body).await?;
    if !calls.is_empty() {
        // The endpoint ignored `tool_choice: none`.
        return Ok(Ending::TurnLimit);
    }
    print_answer(out, text_of(&message))?;
    Ok(Ending::Answered)
}

/// A request's body before its tools: the model, the conversation, temperature 0, and
/// `max_tokens` when bounded.
fn request_body(settings: &Settings, messages: &[Value]) -> Value {
    let mut body = json!({
        "model": settings.model,
        "messages": messages,
        "temperature": 0,
    });
    if let Some(max_tokens) = settings.max_tokens {
        body["max_tokens"] = json!(max_tokens);
    }
    body
}

/// One request: the reply's tool calls and its message.
async fn ask(settings: &Settings, body: Value) -> Result<(Vec<ToolCall>, Value), AgentError> {
    let reply = complete(&settings.endpoint, body).await?;
    let calls = parse_calls(Format::OpenAi, &reply).map_err(|error| AgentError::Reply {
        url: settings.endpoint.url().to_owned(),
        error,
    })?;
    // `parse_calls` took the reply: a chat completion, or (from some servers) its bare message.
    let message = reply
        .pointer("/choices/0/message")
        .unwrap_or(&reply)
        .clone();
    Ok((calls, message))
}

/// A message's text, trimmed ("" when it has none).
fn text_of(message: &Value) -> &str {
    message
        .get("content")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or("")
}

fn print_answer(out: &mut dyn Write, text: &str) -> io::Result<()> {
    if text.is_empty() {
        writeln!(out, "(the model answered with no text)")
    } else {
        writeln!(out, "{text}")
    }
}

/// A step line's text: on one line, cut to [`STEP_CHARS`] characters (a `write_file` call
/// carries a whole file).
fn step(text: &str) -> String {
    shorten(&text.trim().replace(['\n', '\r'], " "), STEP_CHARS)
}

/// One request, on tokio's blocking pool (the HTTP client is blocking).
async fn complete(endpoint: &Endpoint, body: Value) -> Result<Value, AgentError> {
    let endpoint = endpoint.clone();
    tokio::task::spawn_blocking(move || endpoint.complete(&body))
        .await
        .map_err(|join| AgentError::Internal(format!("the request's thread failed: {join}")))?
        .map_err(AgentError::Endpoint)
}
