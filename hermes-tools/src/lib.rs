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
//! | | [`search`] | tool search, deferred tools and the search/describe/call bridge |
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
//! | `multi-thread` | on | a sync tool (and `block_on`) on a multi-thread runtime runs in `block_in_place` | tokio's rt-multi-thread |
//! | `cli` | on | the `cli` module (the `hermes-tools` command line); implies `multi-thread`, `toml`, `command-plugins`, `lint` and `stemmer` | clap, tracing-subscriber |
//! | `toml` | on | `Config::from_toml_str` and `Config::load` | the toml crate |
//! | `command-plugins` | on | [`plugins`] written as a `plugin.toml` and a program; implies `toml` | tokio's process and I/O support |
//! | `lint` | on | the `definitions::lint` module and `ToolRegistry::lint`: descriptions and parameters checked against the rules; the `definitions::lock` module and `ToolRegistry::check_lock`: the schema lock | its own code only |
//! | `regex-full` | on | regex's optimisations: faster redaction and argument validation | regex's lazy DFA, one-pass and backtracking engines, literal prefilters |
//! | `stemmer` | on | tool search stems words (Snowball English), so "reading" finds `read_file`; without it words match as written | rust-stemmers (every Snowball language) |
//! | `mcp` | off | `mcp::client` and `mcp::server`: MCP servers' tools as toolsets, the registry served over MCP | rmcp, axum, hyper, tokio's networking |
//! | `mcp-remote` | off | remote MCP servers (`url = ...`): Streamable HTTP and the legacy SSE transport, TLS, the OAuth 2.1 client; `serve --http --oauth-issuer` | reqwest, rustls (ring), oauth2 |
//!
//! Without `command-plugins`, an enabled command plugin is reported
//! [`Failed`](plugins::PluginStatus::Failed), naming the feature. Without `regex-full`,
//! redaction matches the same text, more slowly; a schema `pattern` may use any Unicode class
//! in every configuration.
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
pub mod search;
pub mod secrets;
mod sync;
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
/// ```
/// use hermes_tools::{ToolContext, ToolRegistry, tool};
///
/// /// Whether the build is green here.
/// fn ci_reachable() -> bool {
///     true
/// }
///
/// /// Read a file of the workspace, a page of lines at a time.
/// ///
/// /// # Arguments
/// /// * `path` - The file, relative to the workspace.
/// #[tool(toolset = "files", emoji = "📖", check = ci_reachable, read_only, timeout_secs = 30)]
/// fn read_page(
///     path: String,
///     /// The first line to read, from 1.
///     #[arg(minimum = 1, default = 1)]
///     offset: u32,
///     /// How many lines, at most 2000 (more is clamped, with a notice).
///     #[arg(minimum = 1, maximum = 2000, default = 500, clamp)]
///     limit: u32,
/// ) -> Result<String, String> {
///     Ok(format!("{path}: lines {offset} to {}", offset + limit - 1))
/// }
///
/// let answer = ToolRegistry::global().call_blocking(
///     "read_page",
///     r#"{"path": "notes.txt", "limit": 5000}"#,
///     &ToolContext::new(),
/// );
/// assert_eq!(answer.to_value()["notice"], "limit was 5000; clamped to the maximum 2000");
/// ```
///
/// # The attribute's keys
///
/// | key | what it does |
/// |---|---|
/// | `toolset = "files"` | required: the toolset the tool belongs to |
/// | `emoji = "📖"` | one grapheme, shown by `list` (default ⚡) |
/// | `name = "read_file"` | the tool's name (default: the function's); `^[a-zA-Z0-9_-]{1,64}$` |
/// | `description = "…"` | the description, instead of the doc comment |
/// | `check = path` | a `fn() -> bool`: is the tool usable here? (cached, see [`toolsets::availability`]) |
/// | `config_check = path` | a `fn(&Config) -> Result<Option<String>, String>`: is it usable under the registry's config? `Err` is the reason, `Ok(Some(note))` how it runs; `list` shows either |
/// | `requires_env = ["HOME"]` | unavailable unless every variable is set |
/// | `max_result_chars = 100_000` | the answer's budget |
/// | `dynamic_schema = path` | a `fn(&SchemaContext) -> SchemaOverride`: description or parameters at run time ([`tool::SchemaOverride`]) |
/// | `overrides` | may replace a tool of the same name in another toolset |
/// | `timeout_secs = 60` | the call's timeout (default 300; the config can override it) |
/// | `needs_approval` | every call goes through the approval gate ([`hooks`]) |
/// | `blocking` | a sync tool that may block long: the blocking pool, an enforced timeout |
/// | `task` | served over MCP, a call by a client that declared the tasks extension is a task at once (`mcp::server::tasks`) |
/// | `raw_output` | answers reach the model unredacted ([`secrets`]) |
/// | `read_only` / `destructive` | MCP annotations |
/// | `parallel` / `parallel = false` | whether calls may overlap in a turn (default: as `read_only`) |
/// | `unlisted` | not collected at link time: a plugin registers it |
/// | `crate = ::hermes_tools` | the runtime's path, for a renamed dependency |
///
/// # Parameters
///
/// - The description is the doc comment (or `description`); a `# Arguments` section
///   (`` * `name` - text ``) describes the parameters and is left out of the description, and a
///   `///` on a parameter wins over it.
/// - Owned parameters that implement `Deserialize + JsonSchema` are the model's arguments, in
///   declaration order; `Option<T>` is optional. `#[arg(...)]` adds `max_items`, `min_items`,
///   `max_length`, `min_length`, `minimum`, `maximum`, `pattern`, `default = expr` (the
///   parameter becomes optional and takes that value), `rename = "…"`, `description = "…"` and
///   `clamp` (with `minimum`/`maximum`: out-of-range numbers are clamped with a notice).
///   Alternatively one parameter marked `#[args]`, of a type deriving `Deserialize +
///   JsonSchema`, is the whole argument object.
/// - Reference parameters are injected from the call's [`ToolContext`] and never shown to the
///   model: `&ToolContext` (recognised by type, so an alias works), `&T` (an extension the
///   caller must provide: without it the model is told, and the function is not called),
///   `Option<&T>` (an extension that may be absent).
/// - The return type is anything that becomes an answer ([`ToolAnswer`] has the table); `async
///   fn` works too.
///
/// # What it generates
///
/// Beside the untouched function, `NAME_TOOL` (for `fn name`), the static declaration
/// ([`tool::ToolDecl`]: name, toolset, description, schema builder, wrapper, provenance) in a
/// `linkme` distributed slice that [`ToolRegistry::global`] reads at start-up. The expansion
/// names runtime items only through `::hermes_tools::__private` and binds its own names
/// hygienically, so a tool crate needs no direct serde, schemars or linkme dependency, and a
/// parameter may be named like anything. Mistakes are compile errors, all reported at once,
/// each at the token at fault; with errors, the function and a placeholder `NAME_TOOL` are still
/// emitted, so code naming them gets no second error.
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
    pub use crate::config::Config;
    pub use crate::mcp::prompts::{
        IntoPrompt, PROMPTS, Prompt, PromptArgumentDecl, PromptDecl, argument as prompt_argument,
    };
    pub use crate::mcp::resources::{IntoResource, RESOURCES, ResourceBody, ResourceDecl};
    pub use crate::plugins::{PLUGINS, PluginContext, PluginDecl};
    pub use crate::secrets::redact_json;
    pub use crate::tool::ToolsetDecl;
    pub use crate::tool::decl::{
        ArgumentsRejected, AsyncCall, Inject, InjectContext, InjectExtension, StaticHandler,
        SyncCall, args, parse_arguments, parse_only,
    };
    pub use crate::tool::discovery::{TOOLS, TOOLSETS};
    pub use crate::tool::output::{NoOutputSchema, OutputProbe, OutputSchemaOf, OutputSchemaOfOk};
    pub use crate::tool::schema::generate as schema_for;
    pub use crate::tool::{Annotations, Provenance, SchemaContext, SchemaOverride, ToolDecl};

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
