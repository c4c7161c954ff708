//! The `[tool_search]` section: which tools an agent's lists defer, and how the bridge presents
//! the rest (see [`crate::search`]).

use serde::Deserialize;

/// Default estimated tokens of the bridge's manifest (in `tool_search`'s description).
pub const DEFAULT_MANIFEST_TOKENS: usize = 1_000;

/// Default number of tools one query of `tool_search` returns.
pub const DEFAULT_SEARCH_RESULTS: usize = 5;

/// The `[tool_search]` section of the config: what a list asked with
/// [`Deferral::from_config`](crate::search::Deferral::from_config) defers, beside what the
/// request itself says.
///
/// ```
/// # #[cfg(feature = "toml")] {
/// use hermes_tools::config::Config;
///
/// let config = Config::from_toml_str(r#"
///     [tool_search]
///     budget_tokens = 6000
///     defer_servers = ["github"]
///     pin = ["read_file", "terminal"]
/// "#).unwrap();
/// assert_eq!(config.tool_search.budget_tokens, Some(6000));
/// assert_eq!(config.tool_search.max_results, 5);
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ToolSearchConfig {
    /// The estimated tokens ([`estimate_tokens`](crate::search::estimate_tokens)) the tools sent
    /// in full may take; the tools past it (in name order, pinned ones counted first) are
    /// deferred.
    pub budget_tokens: Option<usize>,
    /// Defers every tool not pinned.
    pub defer_all: bool,
    /// Tools deferred by name.
    pub defer_tools: Vec<String>,
    /// Toolsets whose tools are deferred.
    pub defer_toolsets: Vec<String>,
    /// MCP servers (by configured name) whose tools are deferred.
    pub defer_servers: Vec<String>,
    /// Tools always sent in full.
    pub pin: Vec<String>,
    /// The estimated tokens the manifest of deferred tools may take in `tool_search`'s
    /// description: names with one short line each, degrading to names only, then to a count
    /// per toolset, as it would pass this.
    pub manifest_tokens: usize,
    /// How many tools one query of `tool_search` returns at most.
    pub max_results: usize,
}

impl Default for ToolSearchConfig {
    fn default() -> Self {
        Self {
            budget_tokens: None,
            defer_all: false,
            defer_tools: Vec::new(),
            defer_toolsets: Vec::new(),
            defer_servers: Vec::new(),
            pin: Vec::new(),
            manifest_tokens: DEFAULT_MANIFEST_TOKENS,
            max_results: DEFAULT_SEARCH_RESULTS,
        }
    }
}
