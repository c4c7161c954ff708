//! One conversation's tool list: what was sent stays where it was sent.

use std::collections::HashMap;
use std::sync::Arc;

use crate::sync::Mutex;
use serde_json::Value;

use super::selection::BridgeNames;
use crate::ToolRegistry;
use crate::definitions::Definitions;
use crate::definitions::list::DefinitionsRequest;
use crate::toolsets::SelectionError;

/// The tool list of one conversation, kept byte-stable for the provider's prompt cache.
///
/// [`ToolRegistry::definitions`] computes a list from the registry as it is now: a tool an MCP
/// server adds sorts into the middle, and the manifest in `tool_search`'s description follows
/// the deferred tools. Over one conversation that would change bytes the provider has cached.
/// A `Conversation` renders the same request, but keeps every definition it sent in the
/// position it was first sent: a tool that appears since (registered, discovered) is appended,
/// one that disappears leaves its place, one sent in full stays sent in full (a token budget
/// that a newcomer fills does not withdraw it), and the bridge's meta-tools keep the definitions
/// (and so the manifest) they were first sent with; a tool registered since is still found by
/// search, and a definition whose content changes (a dynamic schema) changes in its place.
///
/// ```
/// use hermes_tools::search::{Conversation, Deferral};
/// use hermes_tools::tool::Tool;
/// use hermes_tools::{DefinitionsRequest, ToolRegistry};
/// use serde_json::json;
///
/// let registry = ToolRegistry::new();
/// let tool = |name: &str| {
///     Tool::builder(name, "mcp-notes")
///         .description("A note tool.")
///         .parameters(json!({"type": "object", "properties": {}}))
///         .build()
/// };
/// registry.register(tool("notes_write")).unwrap();
/// let conversation = Conversation::new(DefinitionsRequest::all());
/// let first = serde_json::to_string(&conversation.definitions(&registry).unwrap()).unwrap();
/// // The server adds a tool that sorts first: it is appended, what was sent keeps its bytes.
/// registry.register(tool("notes_archive")).unwrap();
/// let second = serde_json::to_string(&conversation.definitions(&registry).unwrap()).unwrap();
/// assert!(second.starts_with(&first[..first.len() - 1]));
/// ```
#[derive(Debug)]
pub struct Conversation {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    request: DefinitionsRequest,
    /// The names of what was sent, in the order sent.
    order: Vec<String>,
    /// The meta-tools' definitions as first sent, under their names then.
    meta: Option<(BridgeNames, HashMap<String, Arc<Value>>)>,
}

impl Conversation {
    /// A conversation whose lists answer `request` (its `discovered` tools included).
    pub fn new(request: DefinitionsRequest) -> Self {
        Self {
            state: Mutex::new(State {
                request,
                order: Vec::new(),
                meta: None,
            }),
        }
    }

    /// The request the lists answer, with every tool discovered so far.
    pub fn request(&self) -> DefinitionsRequest {
        self.state.lock().request.clone()
    }

    /// Records deferred tools found in the conversation (by the model's search, or a native
    /// provider's): the next list sends them in full, after everything sent before.
    pub fn discover<S: Into<String>>(&self, names: impl IntoIterator<Item = S>) {
        let mut state = self.state.lock();
        let request = std::mem::take(&mut state.request);
        state.request = request.discovered(names);
    }

    /// The list to send now: the registry's current list for the request, with what was sent
    /// before in its place and anything new at the end.
    ///
    /// # Errors
    ///
    /// The [`SelectionError`] of [`ToolRegistry::definitions`].
    pub fn definitions(&self, registry: &ToolRegistry) -> Result<Definitions, SelectionError> {
        let mut state = self.state.lock();
        let current = registry.definitions(&state.request)?;
        // What was sent in full stays sent: a budget that a newcomer would push it past does
        // not withdraw it (pins are counted first).
        let sent: Vec<String> = current
            .names()
            .filter(|name| !state.request.deferral.pinned.contains(*name))
            .map(str::to_owned)
            .collect();
        if !state.request.deferral.is_empty() {
            state.request.deferral.pinned.extend(sent);
        }
        let mut values: Vec<(String, Arc<Value>)> = current
            .shared()
            .iter()
            .enumerate()
            .map(|(i, value)| {
                let name = name_of(value).map_or_else(|| format!("#{i}"), str::to_owned);
                (name, Arc::clone(value))
            })
            .collect();
        // The meta-tools keep their first definitions (the manifest as first sent).
        match (&state.meta, current.bridge()) {
            (Some((names, first)), Some(now)) if names == now => {
                for (name, value) in &mut values {
                    if let Some(kept) = first.get(name.as_str()) {
                        *value = Arc::clone(kept);
                    }
                }
            }
            (_, Some(now)) => {
                let first = values
                    .iter()
                    .filter(|(name, _)| now.contains(name))
                    .map(|(name, value)| (name.clone(), Arc::clone(value)))
                    .collect();
                state.meta = Some((now.clone(), first));
            }
            (_, None) => {}
        }
        let position: HashMap<&str, usize> = values
            .iter()
            .enumerate()
            .map(|(i, (name, _))| (name.as_str(), i))
            .collect();
        let mut order: Vec<usize> = state
            .order
            .iter()
            .filter_map(|name| position.get(name.as_str()).copied())
            .collect();
        let mut taken = vec![false; values.len()];
        for &i in &order {
            taken[i] = true;
        }
        order.extend((0..values.len()).filter(|&i| !taken[i]));
        state.order = order.iter().map(|&i| values[i].0.clone()).collect();
        let unchanged = order.iter().enumerate().all(|(at, &i)| at == i)
            && values
                .iter()
                .zip(current.shared())
                .all(|((_, mine), theirs)| Arc::ptr_eq(mine, theirs));
        if unchanged {
            return Ok(current);
        }
        Ok(current.reordered(order.iter().map(|&i| Arc::clone(&values[i].1)).collect()))
    }
}

/// The tool name in a definition of any format (`name`, or OpenAI's `function.name`).
fn name_of(definition: &Value) -> Option<&str> {
    definition
        .get("name")
        .or_else(|| definition.get("function").and_then(|f| f.get("name")))
        .and_then(Value::as_str)
}
