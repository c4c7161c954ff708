//! The values of this concept: what is asked for ([`DefinitionsRequest`]) and what comes back
//! ([`Definitions`]). A leaf: the registry's cache holds these without depending on how they are
//! computed.

use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::formats::Format;
use crate::schema::ParameterSchema;
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
/// It dereferences to the provider-shaped `[Value]`; cloning it is one reference count.
#[derive(Clone)]
pub struct Definitions(pub(super) Arc<Listed>);

pub(super) struct Listed {
    pub(super) values: Box<[Value]>,
    /// Each listed tool and the parameter schema it showed: an override's, or its static one.
    pub(super) shown: HashMap<Arc<str>, Arc<ParameterSchema>>,
}

impl Definitions {
    /// Whether two lists are the same shared allocation (a cache hit).
    pub fn ptr_eq(&self, other: &Definitions) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Whether the tool `name` is in this list.
    pub fn contains(&self, name: &str) -> bool {
        self.0.shown.contains_key(name)
    }

    /// The names of the tools in this list, in no particular order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.shown.keys().map(|name| &**name)
    }

    /// The parameter schema the tool `name` showed in this list.
    pub(crate) fn shown(&self, name: &str) -> Option<&Arc<ParameterSchema>> {
        self.0.shown.get(name)
    }
}

impl PartialEq for Definitions {
    fn eq(&self, other: &Self) -> bool {
        self.0.values == other.0.values
    }
}

impl Deref for Definitions {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        &self.0.values
    }
}

impl fmt::Debug for Definitions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.values.iter()).finish()
    }
}

impl Serialize for Definitions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.values.serialize(serializer)
    }
}
