//! The tools a client is shown, as one request sees them: what `tools/list` renders and what
//! `tools/call` is judged by.

use std::sync::Arc;

use serde_json::Value;

use crate::config::Config;
use crate::definitions::Definitions;

/// The tools a client is shown: the registry's shared, cached definitions, less the hidden
/// ones (filtered on the fly, so the common case copies nothing).
#[derive(Clone)]
pub(super) struct Listing {
    pub(super) definitions: Definitions,
    /// The config whose agent-loop tools are hidden; `None` when they are served.
    pub(super) hiding: Option<Arc<Config>>,
}

impl Listing {
    /// The tools hidden from the client.
    pub(super) fn hidden(&self) -> &[String] {
        self.hiding
            .as_deref()
            .map_or(&[], |config| &config.agent_loop_tools)
    }

    /// Each listed definition with its name, in the list's order (a list that defers tools
    /// carries the bridge's meta-tools, which are no tools of the registry).
    pub(super) fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        let hidden = self.hidden();
        self.definitions
            .iter()
            .filter_map(|definition| Some((definition.get("name")?.as_str()?, definition)))
            .filter(move |(name, _)| !hidden.iter().any(|hidden| hidden == name))
    }

    /// Whether `name` may be called: listed, a meta-tool of the bridge, or deferred (the
    /// pipeline says how to reach it); then not one of the hidden few.
    pub(super) fn contains(&self, name: &str) -> bool {
        self.definitions.reachable(name) && !self.hidden().iter().any(|hidden| hidden == name)
    }
}

impl PartialEq for Listing {
    /// The same tools shown: what a change announcement is about.
    fn eq(&self, other: &Self) -> bool {
        self.definitions == other.definitions && self.hidden() == other.hidden()
    }
}
