//! What a [`DefinitionsRequest`](crate::DefinitionsRequest) says about deferral, and the names of
//! the bridge's meta-tools: values only, so the request and the list that carries them depend on
//! nothing that computes them.

use std::collections::BTreeSet;

/// Which tools of a selection are **deferred**: not sent in full, but found by search and
/// called through the bridge (see the [module docs](super)). Pinned tools are always sent in
/// full.
///
/// A tool is deferred when it is not pinned and [`all`](Self::all) is set, or its name is in
/// [`tools`](Self::tools), its toolset in [`toolsets`](Self::toolsets), or it is a tool of an MCP
/// server in [`servers`](Self::servers) (toolset `mcp-<server>`). Then, with a
/// [`budget_tokens`](Self::budget_tokens), the tools still to send are taken in name order
/// (pinned ones first) while their definitions' estimated tokens
/// ([`estimate_tokens`](super::estimate_tokens)) fit, and the rest are deferred too.
///
/// ```
/// use hermes_tools::search::Deferral;
///
/// let deferral = Deferral::default().servers(["github"]).budget(4_000).pin(["read_file"]);
/// assert!(!deferral.is_empty());
/// assert!(Deferral::default().is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Deferral {
    /// Tools deferred by name.
    pub tools: BTreeSet<String>,
    /// Toolsets whose tools are deferred.
    pub toolsets: BTreeSet<String>,
    /// MCP servers (by their configured name) whose tools are deferred.
    pub servers: BTreeSet<String>,
    /// Every tool not pinned is deferred.
    pub all: bool,
    /// The estimated tokens the tools sent in full may take; the tools past it are deferred.
    pub budget_tokens: Option<usize>,
    /// Tools always sent in full, whatever else says.
    pub pinned: BTreeSet<String>,
    /// The registry config's `[tool_search]` section adds to this deferral
    /// ([`ToolSearchConfig`](crate::config::ToolSearchConfig)).
    pub from_config: bool,
}

impl Deferral {
    /// Defers these tools by name.
    pub fn tools<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.tools.extend(names.into_iter().map(Into::into));
        self
    }

    /// Defers the tools of these toolsets.
    pub fn toolsets<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.toolsets.extend(names.into_iter().map(Into::into));
        self
    }

    /// Defers the tools of these MCP servers (by configured name: `github` for `mcp-github`).
    pub fn servers<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.servers.extend(names.into_iter().map(Into::into));
        self
    }

    /// Defers every tool not pinned.
    pub fn all(mut self) -> Self {
        self.all = true;
        self
    }

    /// Defers the tools past this many estimated tokens of definitions.
    pub fn budget(mut self, tokens: usize) -> Self {
        self.budget_tokens = Some(tokens);
        self
    }

    /// Always sends these tools in full.
    pub fn pin<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.pinned.extend(names.into_iter().map(Into::into));
        self
    }

    /// Adds the registry config's `[tool_search]` section when the list is computed.
    pub fn from_config(mut self) -> Self {
        self.from_config = true;
        self
    }

    /// Whether this defers nothing (before the config is read, if [`from_config`](Self::from_config)).
    pub fn is_empty(&self) -> bool {
        !self.all
            && !self.from_config
            && self.tools.is_empty()
            && self.toolsets.is_empty()
            && self.servers.is_empty()
            && self.budget_tokens.is_none()
    }

    /// Whether a tool of this name and toolset is deferred by name, toolset, server or `all`
    /// (the budget aside).
    pub(crate) fn defers(&self, name: &str, toolset: &str) -> bool {
        if self.pinned.contains(name) {
            return false;
        }
        self.all
            || self.tools.contains(name)
            || self.toolsets.contains(toolset)
            || toolset
                .strip_prefix("mcp-")
                .is_some_and(|server| self.servers.contains(server))
    }
}

/// The names of the bridge's three meta-tools in one list.
///
/// They are `tool_search`, `tool_describe` and `tool_call`, unless a tool of the registry has one
/// of these names: then all three are prefixed `hermes_` (`hermes_tool_search`, ...), and if one
/// of those is taken too, nothing is deferred (the list is sent in full, with a warning in the
/// log) rather than shadow a real tool.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BridgeNames {
    /// The search meta-tool: queries in, names and one line each out.
    pub search: String,
    /// The describe meta-tool: names in, full definitions out.
    pub describe: String,
    /// The call meta-tool: `{name, arguments}` in, the real tool's answer out.
    pub call: String,
}

impl Default for BridgeNames {
    fn default() -> Self {
        Self::prefixed("")
    }
}

impl BridgeNames {
    pub(crate) fn prefixed(prefix: &str) -> Self {
        Self {
            search: format!("{prefix}tool_search"),
            describe: format!("{prefix}tool_describe"),
            call: format!("{prefix}tool_call"),
        }
    }

    /// The three names, search first.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        [&self.search, &self.describe, &self.call]
            .into_iter()
            .map(String::as_str)
    }

    /// Whether `name` is one of them.
    pub fn contains(&self, name: &str) -> bool {
        self.iter().any(|own| own == name)
    }
}
