//! Declare LLM-agent tools as plain Rust functions; describe and dispatch them safely.
//!
//! ```
//! use hermes_tools::{ToolContext, ToolRegistry, tool};
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
//! // The tool is in the global registry of every binary that links this crate:
//! let registry = ToolRegistry::global();
//! let answer = registry.dispatch("add", r#"{"a": 2, "b": "40"}"#, &ToolContext::new());
//! assert_eq!(answer.as_str(), "42");
//! assert_eq!(registry.get("add").unwrap().parameters()["properties"]["a"]["description"], "The first addend.");
//! ```
//!
//! The pieces, one module each: [`tool`](macro@tool) declares; [`discovery`] collects what is
//! linked; [`registry`] stores under the rules of registering; [`schema`] derives parameter
//! schemas; [`definitions`] shapes them for providers; [`dispatch`] calls one tool safely, with
//! [`coercion`] and [`validation`] for the model's arguments; [`bridge`] runs async tools from
//! sync code; [`sanitize`] cleans what reaches the model; [`context`] carries what tools borrow;
//! [`answer`] is what they return.

pub mod answer;
pub mod availability;
pub mod bridge;
pub mod budget;
#[cfg(feature = "cli")]
pub mod cli;
pub mod coercion;
pub mod config;
pub mod context;
pub mod definitions;
pub mod discovery;
pub mod dispatch;
pub mod formats;
pub mod hooks;
pub mod lint;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod pipeline;
pub mod plugins;
pub mod registry;
pub mod sanitize;
pub mod schema;
pub mod tool;
pub mod toolsets;
pub mod validation;

pub use answer::{ContentPart, IntoAnswer, ToolAnswer, ToolContent};
pub use context::ToolContext;
pub use discovery::{TOOLS, TOOLSETS, ToolsetDecl};
/// Declares a plugin's register function, loaded only when the operator enables the plugin.
///
/// See the [`plugins`] module.
pub use hermes_tools_macros::plugin;
/// Declares a plain function as an LLM tool.
///
/// See the [crate documentation](crate) for a tour and the README for every key.
pub use hermes_tools_macros::tool;
pub use plugins::{PluginContext, PluginManager};
pub use registry::{Conflict, RegisterError, Snapshot, ToolRegistry};
pub use tool::{
    Annotations, Arguments, ArgumentsRejected, Handler, Provenance, SchemaContext, SchemaOverride,
    StaticHandler, Tool, ToolBuilder, ToolDecl,
};
pub use toolsets::{Catalog, Composite, Selection, SelectionError};
pub use validation::ArgumentError;

/// What the `#[tool]` expansion names. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use futures_util::future::BoxFuture;
    pub use linkme;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    pub use crate::answer::{AnswerWrap, ViaIntoAnswer, ViaSerialize, ViaSerializeResult};
    pub use crate::discovery::{TOOLS, TOOLSETS};
    pub use crate::plugins::PLUGINS;
    pub use crate::schema;

    /// The answer when a `&T` parameter's extension is not in the context.
    pub fn missing_extension(tool: &str, param: &str, type_name: &str) -> crate::ToolAnswer {
        crate::ToolAnswer::error(format!(
            "Tool {tool:?} cannot run here: its parameter `{param}` needs a `{type_name}` that \
             this agent does not provide. Do not call it again in this session."
        ))
    }
}
