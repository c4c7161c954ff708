//! The values of this concept: what is asked for ([`DefinitionsRequest`]) and what comes back
//! ([`Definitions`]). A leaf: the registry's cache holds these without depending on how they are
//! computed.

use std::fmt;
use std::ops::{Deref, Index};
use std::sync::{Arc, OnceLock};

use serde::Serialize;
use serde_json::Value;

use crate::definitions::formats::Format;
use crate::tool::schema::ParameterSchema;
use crate::toolsets::Selection;

/// Which tools to describe, and for which provider.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct DefinitionsRequest {
    /// Enabled and disabled toolsets.
    pub selection: Selection,
    /// The provider's shape.
    pub format: Format,
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
}

/// An immutable, shared list of tool definitions, ordered by tool name, that remembers what
/// each tool showed the model.
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
    pub(super) values: Box<[Arc<Value>]>,
    /// Each listed tool and the parameter schema it showed (an override's, or its static one),
    /// sorted by name, as `values` is.
    pub(super) shown: Box<[(Arc<str>, Arc<ParameterSchema>)]>,
    /// The definitions as one owned slice, for [`Deref`]: made on first use only.
    pub(super) slice: OnceLock<Box<[Value]>>,
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

    /// Whether the tool `name` is in this list.
    pub fn contains(&self, name: &str) -> bool {
        self.shown(name).is_some()
    }

    /// The names of the tools in this list, in name order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.shown.iter().map(|(name, _)| &**name)
    }

    /// The parameter schema the tool `name` showed in this list.
    pub(crate) fn shown(&self, name: &str) -> Option<&Arc<ParameterSchema>> {
        Some(&self.0.shown[self.position(name)?].1)
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
        Some(&self.0.values[self.position(name)?])
    }

    /// Where the tool `name` is in this list (`shown` and `values` are in the same order).
    fn position(&self, name: &str) -> Option<usize> {
        self.0
            .shown
            .binary_search_by(|(listed, _)| (**listed).cmp(name))
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
