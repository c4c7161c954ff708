//! Tool search and deferred loading: many tools, few tokens.
//!
//! An agent with example-tools, a few plugins and three MCP servers would show the model every
//! definition on every request: thousands of tokens a turn, and a model that chooses worse.
//! Here a [`DefinitionsRequest`](crate::DefinitionsRequest) may **defer** tools (a
//! [`Deferral`]: by name, toolset, MCP server, all, or all past a token budget; pinned tools
//! are always sent). A deferred tool is not sent in full; the list carries a **bridge** of three
//! meta-tools instead:
//!
//! - `tool_search`: queries in (several at once; `select:name1,name2` for exact names), names
//!   and one line each out. Its description holds the **manifest** of what can be found: per
//!   toolset or MCP server, each tool's name and a short line, degrading to names only, then to
//!   a count per toolset, as it would pass its budget (`[tool_search] manifest_tokens`);
//! - `tool_describe`: names in, their full definitions out, in the list's format, with the real
//!   schema (a dynamic override's, if the tool has one);
//! - `tool_call`: `{name, arguments}` in, the real tool's answer out.
//!
//! ```
//! use hermes_tools::search::Deferral;
//! use hermes_tools::tool::Tool;
//! use hermes_tools::{CallOptions, DefinitionsRequest, ToolContext, ToolRegistry};
//! use serde_json::{Value, json};
//!
//! let registry = ToolRegistry::new();
//! for (name, description) in [
//!     ("read_file", "Read a text file, a page of lines at a time."),
//!     ("send_email", "Send an email to one or more recipients."),
//!     ("resize_image", "Resize an image to a width and height in pixels."),
//! ] {
//!     let tool = Tool::builder(name, "demo")
//!         .description(description)
//!         .parameters(json!({"type": "object", "properties": {"to": {"type": "string"}}}))
//!         .handler(move |args: Value, _: &ToolContext| json!({"ran": name, "args": args}))
//!         .build();
//!     registry.register(tool).unwrap();
//! }
//! let request = DefinitionsRequest::all().defer(Deferral::default().all().pin(["read_file"]));
//! let shown = registry.definitions(&request).unwrap();
//! // read_file in full, then the bridge: the other two are deferred.
//! let names: Vec<&str> = shown.iter().map(|d| d["function"]["name"].as_str().unwrap()).collect();
//! assert_eq!(names, ["read_file", "tool_search", "tool_describe", "tool_call"]);
//! assert!(shown.is_deferred("send_email"));
//!
//! // The model searches, then calls through the bridge: the real tool runs, judged by its schema.
//! let ctx = ToolContext::new();
//! let options = CallOptions::new().definitions(shown);
//! let found = registry.call_blocking_with(
//!     "tool_search",
//!     r#"{"queries": ["email someone"]}"#,
//!     &ctx,
//!     &options,
//! );
//! assert_eq!(found.to_value()["results"][0]["tools"][0]["name"], "send_email");
//! let sent = registry.call_blocking_with(
//!     "tool_call",
//!     r#"{"name": "send_email", "arguments": {"to": "ada@example.org"}}"#,
//!     &ctx,
//!     &options,
//! );
//! assert_eq!(sent.to_value()["ran"], "send_email");
//! ```
//!
//! # Search
//!
//! [`SearchIndex`] ranks tools with BM25F: each field (name, toolset or server, description,
//! parameter names, parameter descriptions) weighs its matches, normalised for its length, so a
//! word of a tool's name counts twice one of its description. Words are split at `_`,
//! `-` and case changes (`mcp__github__listIssues` is `mcp github list issues`), lower-cased,
//! rid of stop words, and stemmed with the Snowball English stemmer of `rust-stemmers` (the
//! algorithm Hermes uses through `snowballstemmer`; a pure-Rust crate whose only dependency,
//! serde, is already in the build). The stemmer is the feature `stemmer`, on by default (the
//! crate compiles every Snowball language, seconds of build a library of tools does not
//! need); without it words are matched as written, lower-cased. BM25 itself is a few lines over our own
//! postings: a search engine crate (tantivy and the like) would cost minutes of build for
//! what a tool catalogue needs. A **relevance floor** keeps noise out: a query of stop words
//! or unknown words finds nothing, the best hit must match 15% of the query's words, a
//! term held by most tools of a large registry finds nothing alone, and hits under 30% of the
//! best are dropped.
//!
//! The registry builds the index once per generation ([`ToolRegistry::search_index`]) and every
//! search of that generation shares it.
//!
//! # Not a bypass
//!
//! A call through `tool_call` goes through the whole pipeline as the real tool: the agent-loop
//! rule, pre-call hooks (which see the real name and arguments), the approval gate, the
//! timeout, redaction, post-call hooks, transforms and the answer budget; its arguments are
//! repaired and validated against the real tool's schema (the one it showed in the list, which
//! the provider never saw); in a turn ([`run_turn`](crate::ToolRegistry::run_turn)) its parallel
//! safety is the real tool's; an unknown name gets the nearest names. A deferred tool called by
//! its own name (not through `tool_call`) is refused with the way to reach it.
//!
//! # Byte-stable lists
//!
//! A list is a function of the request and the registry: tools in name order, then the
//! meta-tools, then the [`discovered`](crate::DefinitionsRequest::discovered) tools in discovery
//! order; no map with a random order, no timestamp. A tool discovered during a conversation is
//! appended, and never reorders what was sent. Over a conversation whose registry changes (an
//! MCP server's list, a plugin), a [`Conversation`] keeps every definition where it was first
//! sent, appends what is new, and keeps the manifest as first sent.
//!
//! # Names
//!
//! The meta-tools' names must not shadow a real tool: when `tool_search`, `tool_describe` or
//! `tool_call` is a registered tool, all three are named `hermes_tool_search`, ... instead
//! ([`BridgeNames`]), and if those are taken too nothing is deferred.

pub(crate) mod bridge;
mod conversation;
mod index;
pub(crate) mod native;
mod selection;
mod text;

use serde_json::Value;

use crate::ToolRegistry;

pub use conversation::Conversation;
pub use index::{Hit, QueryResult, SearchIndex, UnknownName};
pub use selection::{BridgeNames, Deferral};

/// A search hit's summary is the first sentence of the tool's description, at most this many
/// characters.
pub const SUMMARY_MAX_CHARS: usize = 120;

/// The tokens a definition is estimated to take: its compact JSON's bytes divided by four
/// (close to what BPE tokenizers make of English and JSON; the benches count real tokens).
pub fn estimate_tokens(definition: &Value) -> usize {
    serde_json::to_string(definition).map_or(0, |text| text.len().div_ceil(4))
}

/// The first sentence of `description` (to a `.` followed by a space, or a line break), at
/// most [`SUMMARY_MAX_CHARS`] characters (cut at a word, with `…`).
///
/// ```
/// use hermes_tools::search::summary;
///
/// assert_eq!(summary("Read a file. Pages of 500 lines."), "Read a file.");
/// assert!(summary(&"word ".repeat(100)).ends_with('…'));
/// ```
pub fn summary(description: &str) -> String {
    summary_within(description, SUMMARY_MAX_CHARS)
}

/// [`summary`] within `max` characters.
pub(crate) fn summary_within(description: &str, max: usize) -> String {
    let text = description.trim();
    let mut end = text.find('\n').unwrap_or(text.len());
    if let Some(stop) = text[..end].find(". ") {
        end = stop + 1;
    }
    let sentence = text[..end].trim();
    if sentence.chars().count() <= max {
        return sentence.to_owned();
    }
    let cut: String = sentence.chars().take(max.saturating_sub(1)).collect();
    let cut = match cut.rfind(' ') {
        Some(space) if space > cut.len() / 2 => &cut[..space],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
}

impl ToolRegistry {
    /// The search index of the registry's tools, built on first use and shared until the
    /// registry changes (a tool registered or removed, an MCP server's list changed).
    ///
    /// ```
    /// use hermes_tools::ToolRegistry;
    /// use hermes_tools::tool::Tool;
    /// use serde_json::json;
    ///
    /// let registry = ToolRegistry::new();
    /// let tool = Tool::builder("list_issues", "mcp-github")
    ///     .description("List the issues of a repository, newest first.")
    ///     .parameters(json!({"type": "object", "properties": {"repo": {"type": "string"}}}))
    ///     .build();
    /// registry.register(tool).unwrap();
    /// let index = registry.search_index();
    /// let found = index.query("show me open issues on github", 5);
    /// assert_eq!(&*found.hits[0].name, "list_issues");
    /// assert!(index.query("the of and", 5).hits.is_empty());
    /// assert!(index.query("asdf qwerty", 5).hits.is_empty());
    /// ```
    pub fn search_index(&self) -> SearchIndex {
        let generation = self.generation();
        let mut slot = self.search_slot().lock();
        if let Some(index) = slot.as_ref().filter(|i| i.generation() == generation) {
            return index.clone();
        }
        // Built under the lock: concurrent first searches wait for one build, not race.
        let snapshot = self.snapshot();
        let index = SearchIndex::build(snapshot.tools().map(|tool| &**tool), snapshot.generation());
        *slot = Some(index.clone());
        index
    }

    /// Runs several queries over every registered tool (see [`SearchIndex::query_in`]), at most
    /// `limit` hits each.
    ///
    /// ```
    /// use hermes_tools::ToolRegistry;
    ///
    /// let results = ToolRegistry::new().search(&["read a file", "select:read_file"], 5);
    /// assert_eq!(results.len(), 2);
    /// assert_eq!(results[1].unknown[0].name, "read_file");
    /// ```
    pub fn search<S: AsRef<str>>(&self, queries: &[S], limit: usize) -> Vec<QueryResult> {
        let index = self.search_index();
        queries
            .iter()
            .map(|query| index.query(query.as_ref(), limit))
            .collect()
    }
}
