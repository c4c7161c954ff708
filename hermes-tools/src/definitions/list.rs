//! The values of this concept: what is asked for ([`DefinitionsRequest`]) and what comes back
//! ([`Definitions`]). A leaf: the registry's cache holds these without depending on how they are
//! computed.

use std::fmt;
use std::ops::{Deref, Index};
use std::sync::{Arc, OnceLock};

use serde::Serialize;
use serde_json::Value;

use crate::definitions::formats::Format;
use crate::search::{BridgeNames, Deferral};
use crate::tool::schema::ParameterSchema;
use crate::toolsets::Selection;

/// Which tools to describe, and for which provider.
///
/// With a [`Deferral`], some tools are not sent in full: the list carries the bridge's
/// meta-tools instead (see [`crate::search`]), and the tools the conversation has
/// [`discovered`](Self::discovered) are appended in full, in discovery order, after everything
/// sent before them, so a provider's prompt cache keeps holding.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct DefinitionsRequest {
    /// Enabled and disabled toolsets.
    pub selection: Selection,
    /// The provider's shape.
    pub format: Format,
    /// Which tools are deferred (none by default).
    pub deferral: Deferral,
    /// Deferred tools found during the conversation, in the order found: sent in full, after
    /// the rest of the list (a name that is not deferred, or not selected, is skipped).
    pub discovered: Vec<String>,
}

impl DefinitionsRequest {
    /// Every toolset, in the OpenAI format.
    pub fn all() -> Self {
        Self::default()
    }

    /// Enables these toolsets (nothing enabled means every toolset).
    pub fn enable<S: Into<String>>(mut self, toolsets: impl IntoIterator<Item = S>) -> Self {
        self.selection
            .enabled
            .extend(toolsets.into_iter().map(Into::into));
        self
    }

    /// Disables these toolsets.
    pub fn disable<S: Into<String>>(mut self, toolsets: impl IntoIterator<Item = S>) -> Self {
        self.selection
            .disabled
            .extend(toolsets.into_iter().map(Into::into));
        self
    }

    /// Sets the provider format.
    pub fn format(mut self, format: Format) -> Self {
        self.format = format;
        self
    }

    /// Defers tools: see [`Deferral`].
    pub fn defer(mut self, deferral: Deferral) -> Self {
        self.deferral = deferral;
        self
    }

    /// Appends deferred tools found during the conversation (kept once each, in the order
    /// first found).
    pub fn discovered<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        for name in names {
            let name = name.into();
            if !self.discovered.contains(&name) {
                self.discovered.push(name);
            }
        }
        self
    }
}

/// An immutable, shared list of tool definitions, that remembers what each tool showed the
/// model.
///
/// The list is in tool-name order; with a [`Deferral`], the tools sent in full come first in
/// name order, then the bridge's meta-tools, then the discovered tools in discovery order. The
/// deferred tools are not in the list, but it remembers them: they can be described and called
/// through the bridge, and only through it.
///
/// Cloning it is one reference count. Each definition is shared, not copied: a tool renders its
/// definition in each format once, and every list it appears in holds that same [`Arc<Value>`].
/// [`iter`](Self::iter), [`len`](Self::len), [`get`](Self::get), indexing (`definitions[0]`),
/// comparison and serialization read the shared definitions directly. It also dereferences to
/// a `[Value]` slice for the rest of the slice API; that slice is a copy made on the first such
/// use and kept with the list, so prefer the methods above on a hot path.
#[derive(Clone)]
pub struct Definitions(pub(super) Arc<Listed>);

pub(super) struct Listed {
    /// What is sent, in order.
    pub(super) values: Box<[Arc<Value>]>,
    /// Each tool listed or deferred, sorted by name.
    pub(super) shown: Arc<[Shown]>,
    /// The definitions as one owned slice, for [`Deref`]: made on first use only.
    pub(super) slice: OnceLock<Box<[Value]>>,
    /// The format of the definitions.
    pub(super) format: Format,
    /// The names of the bridge's meta-tools, when tools are deferred.
    pub(super) bridge: Option<BridgeNames>,
    /// Whether the deferred tools are marked for the provider's own search (Anthropic,
    /// Responses) rather than behind the bridge.
    pub(super) native: bool,
}

/// One tool of a list: sent in full or deferred.
pub(crate) struct Shown {
    pub(crate) name: Arc<str>,
    /// The parameter schema it shows (an override's, or its static one).
    pub(crate) schema: Arc<ParameterSchema>,
    /// Its definition in the list's format (sent, or given by the bridge's describe).
    pub(crate) definition: Arc<Value>,
    /// Its toolset.
    pub(crate) toolset: Arc<str>,
    /// Whether it is sent in full (else deferred).
    pub(crate) sent: bool,
}

impl Definitions {
    /// Whether two lists are the same shared allocation (a cache hit).
    pub fn ptr_eq(&self, other: &Definitions) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// How many definitions the list holds.
    pub fn len(&self) -> usize {
        self.0.values.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.0.values.is_empty()
    }

    /// The definitions, in tool-name order, without copying any.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Value> + DoubleEndedIterator + Clone {
        self.0.values.iter().map(|value| &**value)
    }

    /// The definition at `index`, if there is one.
    pub fn get(&self, index: usize) -> Option<&Value> {
        self.0.values.get(index).map(|value| &**value)
    }

    /// The definitions as shared values: cloning one is a reference count.
    pub fn shared(&self) -> &[Arc<Value>] {
        &self.0.values
    }

    /// Whether the tool `name` is sent in full in this list (a deferred tool is not).
    pub fn contains(&self, name: &str) -> bool {
        self.entry(name).is_some_and(|shown| shown.sent)
    }

    /// The names of the tools sent in full in this list, in name order (the bridge's
    /// meta-tools are not tools of the registry, and not among them).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0
            .shown
            .iter()
            .filter(|shown| shown.sent)
            .map(|shown| &*shown.name)
    }

    /// The names of the deferred tools of this list, in name order: not sent, but searchable
    /// and callable through the bridge.
    pub fn deferred(&self) -> impl Iterator<Item = &str> {
        self.0
            .shown
            .iter()
            .filter(|shown| !shown.sent)
            .map(|shown| &*shown.name)
    }

    /// Whether the tool `name` is deferred in this list.
    pub fn is_deferred(&self, name: &str) -> bool {
        self.entry(name).is_some_and(|shown| !shown.sent)
    }

    /// The names of the bridge's meta-tools in this list, when it defers tools.
    pub fn bridge(&self) -> Option<&BridgeNames> {
        self.0.bridge.as_ref()
    }

    /// Whether this list defers tools to the provider's own search ([`Format::Anthropic`],
    /// [`Format::Responses`]; see [`Format::searches_natively`]): the deferred tools are in it,
    /// marked `defer_loading`, with a search tool the client answers (see
    /// [`crate::search`]), instead of the bridge's meta-tools.
    pub fn searches_natively(&self) -> bool {
        self.0.native
    }

    /// Whether the model may call the tool `name` by its own name under this list: it is sent
    /// in full, or (native search) deferred, since the provider lets the model call it once a
    /// search has loaded it. A tool behind the bridge is called through it instead.
    pub fn callable(&self, name: &str) -> bool {
        self.entry(name)
            .is_some_and(|shown| shown.sent || self.0.native)
    }

    /// Whether a call of `name` is for this list to answer: a tool of it (sent or deferred),
    /// or one of its bridge's meta-tools.
    #[cfg(feature = "mcp")]
    pub(crate) fn reachable(&self, name: &str) -> bool {
        self.entry(name).is_some() || self.bridge().is_some_and(|names| names.contains(name))
    }

    /// The format the definitions are in.
    pub fn format(&self) -> Format {
        self.0.format
    }

    /// The parameter schema the tool `name` showed (or, deferred, would show) in this list.
    pub(crate) fn shown(&self, name: &str) -> Option<&Arc<ParameterSchema>> {
        Some(&self.entry(name)?.schema)
    }

    /// The tool `name`, sent or deferred.
    pub(crate) fn entry(&self, name: &str) -> Option<&Shown> {
        Some(&self.0.shown[self.position(name)?])
    }

    /// Every tool, sent or deferred, in name order.
    pub(crate) fn entries(&self) -> &[Shown] {
        &self.0.shown
    }

    /// The definition of the tool `name` in this list (a binary search, no copy).
    ///
    /// ```
    /// use hermes_tools::{DefinitionsRequest, Format, tool::Tool, ToolContext, ToolRegistry};
    /// use serde_json::{Value, json};
    ///
    /// let registry = ToolRegistry::new();
    /// let stat = Tool::builder("stat", "files")
    ///     .description("Size of a file.")
    ///     .parameters(json!({"type": "object", "properties": {}}))
    ///     .output_schema(json!({"type": "object", "properties": {"bytes": {"type": "integer"}}}))
    ///     .handler(|_: Value, _: &ToolContext| json!({"bytes": 3}))
    ///     .build();
    /// registry.register(stat).unwrap();
    /// let request = DefinitionsRequest { format: Format::Mcp, ..DefinitionsRequest::all() };
    /// let listed = registry.definitions(&request).unwrap();
    /// let stat = listed.definition("stat").unwrap();
    /// assert_eq!(stat["outputSchema"]["properties"]["bytes"]["type"], "integer");
    /// assert!(listed.definition("nope").is_none());
    /// ```
    pub fn definition(&self, name: &str) -> Option<&Value> {
        self.entry(name)
            .filter(|shown| shown.sent)
            .map(|shown| &*shown.definition)
    }

    /// The full definition of the tool `name`, sent or deferred: what the bridge's describe
    /// gives the model.
    pub fn full_definition(&self, name: &str) -> Option<&Value> {
        self.entry(name).map(|shown| &*shown.definition)
    }

    /// The same list with its definitions sent in another order (`values`: a permutation of
    /// this list's, which a conversation keeps as first sent).
    pub(crate) fn reordered(&self, values: Vec<Arc<Value>>) -> Definitions {
        Definitions(Arc::new(Listed {
            values: values.into(),
            shown: Arc::clone(&self.0.shown),
            slice: OnceLock::new(),
            format: self.0.format,
            bridge: self.0.bridge.clone(),
            native: self.0.native,
        }))
    }

    /// Where the tool `name` is in `shown`.
    fn position(&self, name: &str) -> Option<usize> {
        self.0
            .shown
            .binary_search_by(|shown| (*shown.name).cmp(name))
            .ok()
    }
}

impl PartialEq for Definitions {
    fn eq(&self, other: &Self) -> bool {
        let (mine, theirs) = (&self.0.values, &other.0.values);
        // Lists computed from the same tools share their definitions: equal by pointer.
        mine.len() == theirs.len()
            && mine
                .iter()
                .zip(theirs.iter())
                .all(|(a, b)| Arc::ptr_eq(a, b) || a == b)
    }
}

impl Index<usize> for Definitions {
    type Output = Value;
    fn index(&self, index: usize) -> &Value {
        &self.0.values[index]
    }
}

impl<'a> IntoIterator for &'a Definitions {
    type Item = &'a Value;
    type IntoIter = std::iter::Map<std::slice::Iter<'a, Arc<Value>>, fn(&Arc<Value>) -> &Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.values.iter().map(|value| &**value)
    }
}

impl Deref for Definitions {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        self.0.slice.get_or_init(|| self.iter().cloned().collect())
    }
}

impl fmt::Debug for Definitions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Definitions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}
