//! Plugins: tools, hooks and toolsets that load only when the operator enables them.
//!
//! A plugin is written one of two ways:
//!
//! * **compiled**: a function marked [`#[plugin]`](macro@crate::plugin) receiving a
//!   [`PluginContext`], linked into the binary like a `#[tool]` (collected in [`PLUGINS`]);
//! * **command**: a directory under `plugins.dir` with a `plugin.toml` ([`Manifest`]) whose
//!   tools run a program, written in any language, with no rebuild (see below).
//!
//! # Loading
//!
//! The [`PluginManager`] follows Hermes' rules:
//!
//! * plugins are opt-in: only those named in `plugins.enabled` load; the others are reported
//!   [`NotEnabled`](PluginStatus::NotEnabled);
//! * `plugins.disabled` always wins ([`Disabled`](PluginStatus::Disabled));
//! * a plugin that fails (a refused registration, a panic in its register function, an
//!   invalid manifest) is reported [`Failed`](PluginStatus::Failed) with the reason, and
//!   everything it registered is rolled back; the other plugins load;
//! * a plugin tool replaces an existing tool only when it declares `overrides` and the operator
//!   lists the plugin in `plugins.allow_tool_override` (see [`PluginContext`]);
//! * [`unload`](PluginManager::unload) takes a plugin's tools, hooks and toolsets away (the
//!   registry's generation changes when it had tools or toolsets).
//!
//! The manager records what each plugin added ([`PluginInfo`]); hooks are registered with the
//! plugin as their owner.
//!
//! # Compiled plugins
//!
//! ```
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use hermes_tools::plugins::{PluginContext, PluginManager};
//! use hermes_tools::{ToolContext, ToolRegistry, config::PluginsConfig, plugin};
//!
//! /// Shouts what it is given, and counts the calls.
//! #[plugin(name = "shout")]
//! fn shout(ctx: &mut PluginContext<'_>) {
//!     let tool = ctx.tool_builder("shout", "text")
//!         .description("Return the text in capitals.")
//!         .parameters(serde_json::json!({
//!             "type": "object",
//!             "properties": {"text": {"type": "string", "description": "What to shout."}},
//!             "required": ["text"]
//!         }))
//!         .handler(|args, _ctx| args["text"].as_str().unwrap_or_default().to_uppercase())
//!         .build();
//!     let calls = Arc::new(AtomicUsize::new(0));
//!     ctx.register_tool(tool)
//!         .add_post_call(move |_record| { calls.fetch_add(1, Ordering::Relaxed); });
//! }
//!
//! let registry = ToolRegistry::new();
//! let mut plugins = PluginManager::new(&registry);
//! plugins.load(&PluginsConfig { enabled: vec!["shout".into()], ..Default::default() });
//! let answer = registry.call_blocking("shout", r#"{"text": "hi"}"#, &ToolContext::new());
//! assert_eq!(answer.as_str(), r#"{"result":"HI"}"#);
//! assert_eq!(plugins.get("shout").unwrap().hooks.len(), 1);
//! ```
//!
//! A plugin's tools are built with [`PluginContext::tool_builder`] (or
//! [`Tool::builder`](crate::tool::Tool::builder)), which takes every option `#[tool]` has, or
//! declared with `#[tool(unlisted)]` and registered with
//! `ctx.register_tool(Tool::from_decl(&FOO_TOOL))`: a plain `#[tool]` lands in the linked
//! slice and would be registered whether or not the plugin is enabled.
//!
//! # Command plugins
//!
//! They need the `command-plugins` feature (on by default; it adds tokio's process support and
//! the toml parser). Without it the manager still finds their directories, and reports an
//! enabled one [`Failed`](PluginStatus::Failed), saying which feature it needs.
//!
//! ```toml
//! # plugins/word_count/plugin.toml: the name is the directory's
//! name = "word_count"
//! description = "Counts words."
//!
//! [[tools]]
//! name = "word_count"
//! toolset = "text"
//! description = "Count the words, lines and characters of a text."
//! emoji = "🔢"                       # optional
//! command = ["python3", "count.py"]  # run in the plugin's directory
//! timeout_secs = 30                  # optional
//! output = "json"                    # or "text"; optional
//! parameters = { type = "object", properties = { text = { type = "string", description = "The text to count." } }, required = ["text"] }
//! ```
//!
//! Also optional per tool: `overrides`, `needs_approval`, `max_result_chars`,
//! `requires_env`. A call writes the arguments as one JSON object to the command's stdin;
//! its stdout is the answer. With `output = "json"` (the default) stdout must be one JSON
//! document; with `"text"` it is kept when it is JSON and sent as `{"result": text}` when
//! not. A non-zero exit, a timeout or an unusable stdout is an error answer with the exit
//! status and the end of stderr. A bad manifest fails the plugin with an error naming the
//! file, the line and the field ([`ManifestError`]).

#[cfg(feature = "command-plugins")]
mod command;
mod compiled;
mod context;
mod manager;
#[cfg(feature = "command-plugins")]
mod manifest;

pub use compiled::{PLUGINS, PluginDecl};
pub use context::{PluginContext, PluginError};
pub use manager::{PluginInfo, PluginKind, PluginManager, PluginStatus};
#[cfg(feature = "command-plugins")]
#[cfg_attr(docsrs, doc(cfg(feature = "command-plugins")))]
pub use manifest::{Manifest, ManifestError, OutputFormat, ToolManifest};

/// The manifest's file name inside a command plugin's directory.
pub const MANIFEST_FILE: &str = "plugin.toml";
