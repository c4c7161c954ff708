//! The agent loop: request, parse the calls, run them as a turn, answer, repeat.

use std::fmt;
use std::io::{self, Write};

use hermes_tools::provider::{ReplyError, ToolCall, answer_messages, parse_calls};
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
    /// The tool the first request forces, if any.
    pub tool_choice: Option<String>,
    /// The toolsets offered (empty: all).
    pub toolsets: Vec<String>,
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
    let shown = offered(registry, settings)?;
    let mut tally = Tally::new(&shown);
    let ending = converse(settings, registry, ctx, &shown, &mut tally, out).await;
    // The counts matter most when the run went wrong, so they are printed either way.
    if tally.calls() > 0 || ending.is_ok() {
        writeln!(out, "{tally}")?;
        out.flush()?;
    }
    ending
}

/// The definitions of the selected toolsets, checked against `--tool-choice`.
fn offered(registry: &ToolRegistry, settings: &Settings) -> Result<Definitions, AgentError> {
    let request = DefinitionsRequest::all()
        .enable(settings.toolsets.iter().cloned())
        .format(Format::OpenAi);
    let shown = registry
        .definitions(&request)
        .map_err(|err: SelectionError| AgentError::Usage(format!("--toolsets: {err}")))?;
    if let Some(forced) = &settings.tool_choice
        && !shown.contains(forced)
    {
        let names: Vec<&str> = shown.names().collect();
        return Err(AgentError::Usage(format!(
            "--tool-choice {forced}: no such tool is offered; the selected toolsets offer: {}",
            if names.is_empty() {
                "no tools".to_owned()
            } else {
                names.join(", ")
            }
        )));
    }
    Ok(shown)
}

async fn converse(
    settings: &Settings,
    registry: &ToolRegistry,
    ctx: &ToolContext,
    shown: &Definitions,
    tally: &mut Tally,
    out: &mut dyn Write,
) -> Result<Ending, AgentError> {
    let tools: Vec<Value> = shown.iter().cloned().collect();
    let turn = Turn::new().options(
        CallOptions::new()
            .from_agent_loop()
            .definitions(shown.clone()),
    );
    let mut messages = vec![json!({"role": "user", "content": settings.prompt})];
    for request in 0..settings.max_turns {
        let mut body = json!({
            "model": settings.model,
            "messages": messages,
            "temperature": 0,
        });
        // An empty `tools` array is refused by OpenAI: with nothing offered, send none.
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools.clone());
            body["tool_choice"] = match (&settings.tool_choice, request) {
                (Some(name), 0) => json!({"type": "function", "function": {"name": name}}),
                _ => json!("auto"),
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
        for (call, answer) in calls.iter().zip(&answers) {
            tally.record(call, answer);
            writeln!(out, "← {}", step(answer.as_str()))?;
        }
        out.flush()?;
        messages.extend(answer_messages(Format::OpenAi, calls.iter().zip(&answers)));
    }
    // The limit: one last request that may not call a tool asks for the answer from what the
    // calls returned (as Hermes does at its iteration limit), so the work done is not lost.
    let mut body = json!({
        "model": settings.model,
        "messages": messages,
        "temperature": 0,
    });
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
