//! Declare LLM-agent tools as plain Rust functions; describe them to any provider and call
//! them safely.
//!
//! ```
//! use hermes_tools::{DefinitionsRequest, Format, ToolContext, ToolRegistry, tool};
//!
//! /// Add two integers.
//! ///
//! /// # Arguments
//! /// * `a` - The first addend.
//! /// * `b` - The second addend.
//! #[tool(toolset = "math", emoji = "➕")]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! // The function is untouched:
//! assert_eq!(add(2, 3), 5);
//!
//! // The tool is in the global registry of every binary that links this crate.
//! let registry = ToolRegistry::global();
//!
//! // What the model is shown, in the provider's shape:
//! let definitions = registry.definitions(&DefinitionsRequest::all().format(Format::OpenAi)).unwrap();
//! assert!(definitions.iter().any(|d| d["function"]["name"] == "add"));
//!
//! // What the model asked for, through the whole pipeline (hooks, approval, timeout, budget);
//! // arguments are repaired ("40" is an integer here) and validated:
//! let answer = registry.call_blocking("add", r#"{"a": 2, "b": "40"}"#, &ToolContext::new());
//! assert_eq!(answer.as_str(), "42");
//! ```
//!
//! From async code (an agent loop), `registry.call(name, args, &ctx).await` is the same call;
//! [`CallOptions`] carries the rest (the definitions the model was shown, the turn's budget,
//! whether the agent loop itself is calling).
//!
//! # What is where
//!
//! - [`tool`](macro@tool) declares a tool; [`toolset!`] a composite toolset; [`plugin`](macro@plugin)
//!   a plugin. What is linked is collected at start-up: **a binary must name the crate of tools
//!   it links** (`use my_tools as _;`), or its tools are silently missing.
//!   [`resource`](macro@resource) and [`prompt`](macro@prompt) declare what an MCP client may
//!   read and fetch beside the tools ([`resources`], [`prompts`]).
//! - A running tool reports through its [`ToolContext`] ([`progress`](ToolContext::progress),
//!   [`log`](ToolContext::log)) and asks the caller's user and model
//!   ([`elicit`](ToolContext::elicit), [`sample`](ToolContext::sample); see [`Asker`]); a long
//!   one lets its client go and come back for the answer ([`close_stream`](ToolContext::close_stream)).
//! - [`ToolRegistry`] holds the tools (a cheap `Clone` handle); its methods [`call`](ToolRegistry::call)
//!   and [`definitions`](ToolRegistry::definitions) are what an agent uses.
//! - [`hooks`] wrap calls; [`toolsets`] select tools; [`availability`] caches check functions;
//!   [`config`] is what an operator tunes; [`plugins`] load tools at run time; `lint` (feature
//!   `lint`) checks declarations; `cli` (feature `cli`) and `mcp` (feature `mcp`) are the
//!   command line and MCP in both directions.
//!
//! # Features
//!
//! Without features the crate declares, describes, validates, redacts and dispatches tools,
//! with the programmatic [`Config`] and compiled plugins: what a library of tools needs. Such a library should depend on `hermes-tools` with `default-features = false` and
//! leave the rest to the binary that links it.
//!
//! | feature | default | what it adds | what it costs to build |
//! |---|---|---|---|
//! | `cli` | on | the `cli` module (the `hermes-tools` command line); implies `toml`, `command-plugins` and `lint` | clap, tracing-subscriber |
//! | `toml` | on | `Config::from_toml_str` and `Config::load` | the toml crate |
//! | `command-plugins` | on | [`plugins`] written as a `plugin.toml` and a program; implies `toml` | tokio's process and I/O support |
//! | `lint` | on | the `lint` module and `ToolRegistry::lint`: descriptions and parameters checked against the rules | its own code only |
//! | `regex-full` | on | regex's optimisations and every Unicode table: faster redaction, and tool schemas' `pattern`s may use any Unicode class | regex's lazy DFA, one-pass and backtracking engines, Unicode tables |
//! | `mcp` | off | the `mcp` module: MCP servers' tools as toolsets, the registry served over MCP | rmcp, axum, hyper, tokio's networking |
//!
//! Without `command-plugins`, an enabled command plugin is reported
//! [`Failed`](plugins::PluginStatus::Failed), naming the feature. Without `regex-full`,
//! redaction matches the same text, more slowly, and a schema `pattern` with a Unicode class
//! other than `\w`, `\d`, `\s` cannot be compiled and is not checked.
//!
//! # Calling from sync and async code
//!
//! A sync tool runs where it is called. An async tool called from sync code
//! ([`call_blocking`](ToolRegistry::call_blocking)) is driven to completion: outside a runtime
//! on a thread-local current-thread runtime; inside a multi-thread runtime with
//! `block_in_place`; inside a current-thread runtime on a scoped helper thread with its own
//! runtime. Agents should call the async entry point.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod answer;
mod asking;
pub mod availability;
mod bridge;
mod budget;
#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
pub mod cli;
mod coercion;
mod combinators;
pub mod config;
mod context;
mod definitions;
mod discovery;
mod dispatch;
mod formats;
pub mod hooks;
#[cfg(feature = "lint")]
#[cfg_attr(docsrs, doc(cfg(feature = "lint")))]
pub mod lint;
pub mod logs;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;
mod nearest;
mod pipeline;
pub mod plugins;
pub mod prompts;
pub mod provider;
mod registry;
mod reports;
pub mod resources;
mod sanitize;
mod schema;
mod tool;
pub mod toolsets;
mod turn;
pub mod validation;

pub use answer::{ContentPart, IntoAnswer, ToolAnswer, ToolContent};
pub use asking::{
    AskError, Asker, Elicitation, ElicitationReply, Sampling, SamplingMessageText, SamplingReply,
    SamplingRole,
};
pub use budget::{TurnBudget, readable_spill_file};
pub use combinators::BoxFuture;
pub use config::Config;
pub use context::{LogLevel, Progress, Session, ToolContext};
pub use definitions::{Definitions, DefinitionsRequest};
pub use formats::{Format, UnknownFormat};
/// Declares a plugin's register function, loaded only when the operator enables the plugin.
///
/// See the [`plugins`] module.
pub use hermes_tools_macros::plugin;
/// Declares a prompt an MCP client may fetch: see the [`prompts`] module.
pub use hermes_tools_macros::prompt;
/// Declares a resource an MCP client may read: see the [`resources`] module.
pub use hermes_tools_macros::resource;
/// Declares a plain function as an LLM tool.
///
/// See the [crate documentation](crate) for a tour and the README for every key.
pub use hermes_tools_macros::tool;
pub use hooks::Hooks;
pub use pipeline::CallOptions;
pub use prompts::{Prompt, PromptRole};
pub use provider::{CallAccumulator, ReplyError, ToolCall};
pub use registry::{Conflict, RegisterError, Snapshot, ToolRegistry};
pub use resources::ResourceBody;
pub use sanitize::redact;
pub use tool::{Annotations, Provenance, SchemaContext, SchemaOverride, Tool, ToolBuilder};
pub use toolsets::{Composite, Selection, SelectionError};
pub use turn::{Turn, TurnCancel};
pub use validation::ArgumentError;

/// What the `#[tool]` expansion names. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use linkme;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    pub use crate::ToolAnswer;
    pub use crate::answer::{AnswerWrap, ViaIntoAnswer, ViaSerialize, ViaSerializeResult};
    pub use crate::combinators::BoxFuture;
    pub use crate::context::ToolContext;
    pub use crate::discovery::{TOOLS, TOOLSETS, ToolsetDecl};
    pub use crate::dispatch::judge_arguments;
    pub use crate::plugins::{PLUGINS, PluginContext, PluginDecl};
    pub use crate::prompts::{
        IntoPrompt, PROMPTS, Prompt, PromptArgumentDecl, PromptDecl, argument as prompt_argument,
    };
    pub use crate::resources::{IntoResource, RESOURCES, ResourceBody, ResourceDecl};
    pub use crate::sanitize::redact_json;
    pub use crate::schema::generate as schema_for;
    pub use crate::tool::{
        Annotations, ArgumentsRejected, AsyncCall, Inject, InjectContext, InjectExtension,
        NoOutputSchema, OutputProbe, OutputSchemaOf, OutputSchemaOfOk, Provenance, SchemaContext,
        SchemaOverride, StaticHandler, SyncCall, ToolDecl, args, parse_arguments, parse_only,
    };

    /// The MCP client's input-schema repair and its check, for the fuzz targets.
    #[cfg(feature = "mcp")]
    pub use crate::mcp::client::normalise::{
        check as check_mcp_schema, normalise as normalise_mcp_schema,
    };

    /// The answer when a `&T` parameter's extension is not in the context.
    pub fn missing_extension(tool: &str, param: &str, type_name: &str) -> crate::ToolAnswer {
        crate::ToolAnswer::error(format!(
            "Tool {tool:?} cannot run here: its parameter `{param}` needs a `{type_name}` that \
             this agent does not provide. Do not call it again in this session."
        ))
    }
}
