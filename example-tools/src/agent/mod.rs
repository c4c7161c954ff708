//! `example-tools agent`: a tool-calling agent against any OpenAI-compatible chat completions
//! endpoint (feature `agent`).
//!
//! ```text
//! example-tools agent [--base-url URL] [--model M] [--max-turns N] [--tool-choice a,b]
//!                     [--toolsets a,b] [--defer all|a,b] [--pin a,b] [--max-tokens N] PROMPT
//! ```
//!
//! The loop, one model request per turn:
//!
//! 1. send the conversation with the definitions of the selected toolsets (OpenAI format),
//!    `tool_choice` forced to the `n`th name of `--tool-choice` on the `n`th request (`auto`
//!    after, and always without the flag), temperature 0;
//! 2. parse the tool calls out of the reply ([`hermes_tools::provider::parse_calls`]); none
//!    means a final answer: print it and exit 0;
//! 3. keep the assistant message as the model sent it (a null `content` sent back as `""`,
//!    which OpenAI takes too: llama-cpp-python's server refuses its own null), run the calls as one turn through the
//!    pipeline ([`ToolRegistry::run_turn`](hermes_tools::ToolRegistry::run_turn), as the
//!    agent loop, judged by the definitions shown), print each step as it goes
//!    (`→ read_file {"path":"notes.txt"}`, then `← ` and the answer, each on one line and
//!    cut to 200 characters), add the answers in OpenAI's shape
//!    ([`hermes_tools::provider::answer_messages`]) and go on;
//! 4. after `--max-turns` requests (default 10), one last request with `tool_choice: none`
//!    asks for the answer from what the calls returned (as Hermes does at its iteration
//!    limit); a model that still calls a tool then ends the run with status 3.
//!
//! The end of a run prints how the model's arguments fared (see [`tally`]): exact, repaired by
//! the pipeline, or failed.
//!
//! With `--defer` (or a config whose `[tool_search]` section defers tools), the deferred tools
//! are not sent: the list carries the bridge's `tool_search`, `tool_describe` and `tool_call`
//! instead (see [`hermes_tools::search`]), whose calls the turn answers like any other. A
//! deferred tool that a search or describe answer names is then **discovered**: from the next
//! request on it is appended to the list in full (after everything sent before, so the
//! provider's prompt cache holds), and the model may call it by its own name.
//!
//! Settings: `--base-url` (else `OPENAI_BASE_URL`, else `https://api.openai.com/v1`),
//! `--model` (else `HERMES_AGENT_MODEL`; one of the two is required), `OPENAI_API_KEY`
//! (optional: local servers need none; never printed). Tools run in the CLI's context: the
//! workspace is the current directory. The tools are the ones linked in, with the default
//! config (no config file, plugin or MCP server is loaded), and no approval gate is set: a
//! tool that needs approval (`terminal`) is refused, and the model is told so.
//!
//! Exit status: 0 on a final answer, 1 when the endpoint fails (unreachable, an HTTP error, a
//! reply that is not a chat completion), 2 on bad usage, 3 when the model still calls tools after the turn limit.

mod endpoint;
mod run;
pub mod tally;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use hermes_tools::search::Deferral;
use hermes_tools::{ToolContext, ToolRegistry};

use endpoint::Endpoint;
use run::{Ending, Settings};

/// The base URL when neither `--base-url` nor `OPENAI_BASE_URL` gives one.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// How much of an answer a step line shows, in characters.
pub const STEP_CHARS: usize = 200;

/// Exit status when the turn limit is reached without a final answer.
const TURN_LIMIT_EXIT: u8 = 3;

#[derive(Parser, Debug)]
#[command(
    name = "example-tools agent",
    bin_name = "example-tools agent",
    about = "Run a tool-calling agent against an OpenAI-compatible chat completions endpoint"
)]
struct Args {
    /// The API's base URL, up to before /chat/completions [env: OPENAI_BASE_URL] [default:
    /// https://api.openai.com/v1].
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The model to ask [env: HERMES_AGENT_MODEL].
    #[arg(long, value_name = "M")]
    model: Option<String>,
    /// The most model requests before giving up.
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..))]
    max_turns: u32,
    /// Make the first requests call these tools, one each in order (`tool_choice`); later
    /// requests are `auto`.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    tool_choice: Vec<String>,
    /// Comma-separated toolsets offered to the model (default: all).
    #[arg(long, value_delimiter = ',')]
    toolsets: Vec<String>,
    /// The most tokens each reply may take (`max_tokens`; default: the endpoint's).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_tokens: Option<u32>,
    /// Comma-separated tools (or `all`) to defer: found by the model through `tool_search`
    /// instead of sent in full (the config's `[tool_search]` section adds to this).
    #[arg(long, value_name = "TOOLS", value_delimiter = ',')]
    defer: Vec<String>,
    /// Comma-separated tools always sent in full, whatever `--defer` says.
    #[arg(long, value_name = "TOOLS", value_delimiter = ',')]
    pin: Vec<String>,
    /// What to ask the model.
    prompt: String,
}

/// Runs `example-tools agent ARGS` (`args` starts with the subcommand's name) with tools
/// running in `context`; returns the exit status (see the [module docs](self)).
pub fn main(args: impl IntoIterator<Item = OsString>, context: ToolContext) -> ExitCode {
    let args = match Args::try_parse_from(args) {
        Ok(args) => args,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let env = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
    let Some(model) = args.model.or_else(|| env("HERMES_AGENT_MODEL")) else {
        eprintln!("error: no model: pass --model or set HERMES_AGENT_MODEL");
        return ExitCode::from(2);
    };
    let base_url = args
        .base_url
        .or_else(|| env("OPENAI_BASE_URL"))
        .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        eprintln!(
            "error: the base URL {base_url:?} is not an http:// or https:// URL \
             (e.g. http://127.0.0.1:8080/v1)"
        );
        return ExitCode::from(2);
    }
    let settings = Settings {
        endpoint: Endpoint::new(&base_url, env("OPENAI_API_KEY")),
        model,
        max_turns: args.max_turns,
        tool_choice: args.tool_choice,
        toolsets: args.toolsets,
        deferral: deferral(&args.defer, &args.pin),
        max_tokens: args.max_tokens,
        prompt: args.prompt,
    };
    let runtime = match hermes_tools::cli::runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let registry = ToolRegistry::global();
    let mut out = std::io::stdout();
    match runtime.block_on(run::run(&settings, &registry, &context, &mut out)) {
        Ok(Ending::Answered) => ExitCode::SUCCESS,
        Ok(Ending::TurnLimit) => {
            eprintln!(
                "stopped: no final answer after {} turns (--max-turns): the model still \
                 called tools when told not to",
                settings.max_turns
            );
            ExitCode::from(TURN_LIMIT_EXIT)
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}

/// What `--defer` and `--pin` ask, with the config's `[tool_search]` section added.
fn deferral(defer: &[String], pin: &[String]) -> Deferral {
    let mut deferral = Deferral::default().from_config().pin(pin.iter().cloned());
    for name in defer {
        deferral = if name == "all" {
            deferral.all()
        } else {
            deferral.tools([name.clone()])
        };
    }
    deferral
}

/// The first `max_chars` characters of `text`, with `…` when cut.
pub fn shorten(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}
