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
//! The root holds what a first program uses: the attributes [`tool`](macro@tool),
//! [`toolset!`], [`plugin`](macro@plugin), [`resource`](macro@resource) and
//! [`prompt`](macro@prompt); the [`ToolRegistry`] that holds the tools and its [`ToolContext`],
//! [`CallOptions`] and [`ToolAnswer`] for calling them; [`DefinitionsRequest`] and [`Format`]
//! for describing them; [`Turn`] for running a model's reply. What is linked is collected at
//! start-up: **a binary must name the crate of tools it links** (`use my_tools as _;`), or its
//! tools are silently missing.
//!
//! The modules follow a tool's life:
//!
//! | stage | module | what is there |
//! |---|---|---|
//! | declare | [`tool`](mod@tool) | [`Tool`](tool::Tool) and [`ToolBuilder`](tool::ToolBuilder) for tools made at run time, annotations, schema overrides |
//! | | [`registry`] | the rules of registering, snapshots, conflicts |
//! | describe | [`definitions`] | what the model is shown, per provider; the `lint` (feature `lint`) |
//! | | [`toolsets`] | selections of tools, composites, [`availability`](toolsets::availability) checks |
//! | call | [`call`] | what a running tool is given (session, progress, asking the user or the model through an [`Asker`](call::Asker)) and gives back |
//! | | [`hooks`] | pre-call, post-call and transform hooks, the approval gate |
//! | | [`secrets`] | redaction of credentials from answers and logs |
//! | | [`provider`] | a provider's reply parsed into calls, the answers shaped back, streamed calls accumulated |
//! | serve and consume | [`mcp`] | resources and prompts; MCP servers' tools as toolsets and the registry served over MCP (feature `mcp`) |
//! | | `cli` | the command line (feature `cli`) |
//! | operate | [`config`] | what an operator tunes; [`plugins`] load tools at run time |
//!
//! # Features
//!
//! Without features the crate declares, describes, validates, redacts and dispatches tools,
//! with the programmatic [`Config`](config::Config) and compiled plugins: what a library of tools
//! needs. Such a library should depend on `hermes-tools` with `default-features = false` and
//! leave the rest to the binary that links it.
//!
//! | feature | default | what it adds | what it costs to build |
//! |---|---|---|---|
//! | `cli` | on | the `cli` module (the `hermes-tools` command line); implies `toml`, `command-plugins` and `lint` | clap, tracing-subscriber |
//! | `toml` | on | `Config::from_toml_str` and `Config::load` | the toml crate |
//! | `command-plugins` | on | [`plugins`] written as a `plugin.toml` and a program; implies `toml` | tokio's process and I/O support |
//! | `lint` | on | the `definitions::lint` module and `ToolRegistry::lint`: descriptions and parameters checked against the rules | its own code only |
//! | `regex-full` | on | regex's optimisations and every Unicode table: faster redaction, and tool schemas' `pattern`s may use any Unicode class | regex's lazy DFA, one-pass and backtracking engines, Unicode tables |
//! | `mcp` | off | `mcp::client` and `mcp::server`: MCP servers' tools as toolsets, the registry served over MCP | rmcp, axum, hyper, tokio's networking |
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
#![warn(unreachable_pub, unnameable_types)]

pub mod call;
#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
pub mod cli;
pub mod config;
pub mod definitions;
pub mod hooks;
pub mod mcp;
pub mod plugins;
pub mod provider;
pub mod registry;
pub mod secrets;
pub mod tool;
pub mod toolsets;

pub use call::answer::ToolAnswer;
pub use call::context::ToolContext;
pub use call::pipeline::CallOptions;
pub use definitions::formats::Format;
pub use definitions::list::DefinitionsRequest;
/// Declares a plugin's register function, loaded only when the operator enables the plugin.
///
/// See the [`plugins`] module.
pub use hermes_tools_macros::plugin;
/// Declares a prompt an MCP client may fetch: see the [`mcp::prompts`] module.
pub use hermes_tools_macros::prompt;
/// Declares a resource an MCP client may read: see the [`mcp::resources`] module.
pub use hermes_tools_macros::resource;
/// Declares a plain function as an LLM tool.
///
/// See the [crate documentation](crate) for a tour and the [`tool`](mod@tool) module for every key.
pub use hermes_tools_macros::tool;
pub use provider::turn::Turn;
pub use registry::handle::ToolRegistry;

/// What the `#[tool]` expansion names. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use linkme;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    pub use crate::ToolAnswer;
    pub use crate::call::answer::{AnswerWrap, ViaIntoAnswer, ViaSerialize, ViaSerializeResult};
    pub use crate::call::combinators::BoxFuture;
    pub use crate::call::context::ToolContext;
    pub use crate::call::dispatch::judge_arguments;
    pub use crate::mcp::prompts::{
        IntoPrompt, PROMPTS, Prompt, PromptArgumentDecl, PromptDecl, argument as prompt_argument,
    };
    pub use crate::mcp::resources::{IntoResource, RESOURCES, ResourceBody, ResourceDecl};
    pub use crate::plugins::{PLUGINS, PluginContext, PluginDecl};
    pub use crate::secrets::redact_json;
    pub use crate::tool::discovery::{TOOLS, TOOLSETS, ToolsetDecl};
    pub use crate::tool::schema::generate as schema_for;
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
