//! Definitions: the tool list a provider's API takes, computed once and shared.
//!
//! [`ToolRegistry::definitions`] resolves a [`Selection`] of toolsets, keeps the available
//! tools, applies each tool's dynamic schema override, and shapes every tool for a provider
//! [`Format`]. The result is an immutable [`Definitions`] (an `Arc`): the next caller gets the
//! same list, and no caller can change it (Hermes lost a week to a mutated cached list).
//!
//! ```
//! use hermes_tools::ToolRegistry;
//! use hermes_tools::definitions::DefinitionsRequest;
//! use hermes_tools::formats::Format;
//!
//! let registry = ToolRegistry::global();
//! let request = DefinitionsRequest::all().format(Format::Anthropic);
//! let first = registry.definitions(&request).unwrap();
//! let again = registry.definitions(&request).unwrap();
//! assert!(first.ptr_eq(&again), "served from the cache");
//! ```
//!
//! The cache key is the selection and format; an entry holds while the registry generation
//! and the config version are those it was computed at, and while every availability answer it
//! used holds (see [`crate::availability`]). The cache is bounded ([`CACHE_CAPACITY`]).
//!
//! A dynamic override is evaluated on each computation: its description replaces the static
//! one, its parameter fields are merged over the static schema (`properties` by name), and an
//! override that panics or yields a schema that is not an object schema falls back to the
//! static definition. An override cannot rename a tool: [`SchemaOverride`] has no name.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::fmt;
use std::ops::Deref;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::formats::{self, Format};
use crate::registry::ToolRegistry;
use crate::schema::ParameterSchema;
use crate::tool::{SchemaContext, SchemaOverride, Tool};
use crate::toolsets::{Selection, SelectionError};

/// How many selections the definitions cache keeps.
pub const CACHE_CAPACITY: usize = 64;

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

/// An immutable, shared list of tool definitions, ordered by tool name.
#[derive(Clone, PartialEq)]
pub struct Definitions(Arc<[Value]>);

impl Definitions {
    /// Whether two lists are the same shared allocation (a cache hit).
    pub fn ptr_eq(&self, other: &Definitions) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for Definitions {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        &self.0
    }
}

impl fmt::Debug for Definitions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

impl Serialize for Definitions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

struct Entry {
    freshness: Freshness,
    valid_until: Option<Instant>,
    definitions: Definitions,
    /// What each dynamic tool showed the model in this list, re-applied on a hit so dispatch
    /// validates against the list the model was last given.
    shown: Vec<Shown>,
}

/// A dynamic tool and the parameter schema it showed (`None`: its static one).
type Shown = (Arc<Tool>, Option<Arc<ParameterSchema>>);

/// What a cached list was computed at; a lookup must match all of it.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Freshness {
    generation: u64,
    config_version: u64,
    availability_epoch: u64,
}

/// The bounded cache of computed definitions.
#[derive(Default)]
pub(crate) struct DefinitionsCache {
    entries: Mutex<(
        HashMap<DefinitionsRequest, Entry>,
        VecDeque<DefinitionsRequest>,
    )>,
}

impl fmt::Debug for DefinitionsCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DefinitionsCache")
            .field("entries", &self.entries.lock().0.len())
            .finish()
    }
}

impl DefinitionsCache {
    fn get(
        &self,
        request: &DefinitionsRequest,
        freshness: Freshness,
        now: Instant,
    ) -> Option<Definitions> {
        let (definitions, shown) = {
            let entries = self.entries.lock();
            let entry = entries.0.get(request)?;
            let fresh =
                entry.freshness == freshness && entry.valid_until.is_none_or(|until| now < until);
            if !fresh {
                return None;
            }
            (entry.definitions.clone(), entry.shown.clone())
        };
        for (tool, schema) in shown {
            tool.set_effective_parameters(schema);
        }
        Some(definitions)
    }

    fn put(&self, request: DefinitionsRequest, entry: Entry) {
        let mut guard = self.entries.lock();
        let (entries, order) = &mut *guard;
        if entries.insert(request.clone(), entry).is_none() {
            order.push_back(request);
            while order.len() > CACHE_CAPACITY {
                if let Some(oldest) = order.pop_front() {
                    entries.remove(&oldest);
                }
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.lock().0.len()
    }
}

impl ToolRegistry {
    /// The definitions of the available tools `request` selects, shaped for its format.
    ///
    /// # Errors
    ///
    /// A [`SelectionError`] when the selection names an unknown toolset (with the nearest
    /// known names) or names one toolset in both lists.
    ///
    /// Dispatch validates a dynamic tool's arguments against the list last returned: with
    /// selections computed concurrently, the last one wins.
    pub fn definitions(&self, request: &DefinitionsRequest) -> Result<Definitions, SelectionError> {
        let snapshot = self.snapshot();
        let freshness = Freshness {
            generation: snapshot.generation(),
            config_version: crate::config::version(),
            availability_epoch: self.availability().epoch(),
        };
        let now = self.availability().now();
        if let Some(hit) = self.definitions_cache().get(request, freshness, now) {
            return Ok(hit);
        }
        let selected = snapshot.with_catalog(|catalog| catalog.select(&request.selection))?;
        let mut probe = self.availability().probe();
        let tools: Vec<&Arc<Tool>> = selected
            .iter()
            .filter_map(|name| snapshot.get(name))
            .filter(|tool| probe.check(tool).is_ok())
            .collect();
        let available: BTreeSet<String> = tools.iter().map(|tool| tool.name().to_owned()).collect();
        let context = SchemaContext::new(&available);
        let mut shown = Vec::new();
        let definitions: Vec<Value> = tools
            .iter()
            .map(|tool| {
                let (description, parameters, schema) = effective(tool, &context);
                if tool.dynamic_schema().is_some() {
                    // Dispatch repairs and validates against what the model saw.
                    tool.set_effective_parameters(schema.clone());
                    shown.push((Arc::clone(tool), schema));
                }
                formats::definition(request.format, tool.name(), &description, &parameters)
            })
            .collect();
        let definitions = Definitions(definitions.into());
        self.definitions_cache().put(
            request.clone(),
            Entry {
                freshness,
                valid_until: probe.valid_until(),
                definitions: definitions.clone(),
                shown,
            },
        );
        Ok(definitions)
    }
}

/// The description and parameters the model sees for `tool`, override applied, with the
/// override's parameter schema for dispatch (`None`: the static one).
fn effective<'t>(
    tool: &'t Tool,
    context: &SchemaContext<'_>,
) -> (Cow<'t, str>, Cow<'t, Value>, Option<Arc<ParameterSchema>>) {
    let description = Cow::Borrowed(tool.description());
    let Some(dynamic) = tool.dynamic_schema() else {
        return (description, Cow::Borrowed(tool.parameters()), None);
    };
    let Ok(SchemaOverride {
        description: new_description,
        parameters,
    }) = catch_unwind(AssertUnwindSafe(|| dynamic(context)))
    else {
        tracing::warn!(
            tool = tool.name(),
            "dynamic schema panicked; using the static definition"
        );
        return (description, Cow::Borrowed(tool.parameters()), None);
    };
    let description = new_description
        .filter(|text| !text.trim().is_empty())
        .map_or(description, Cow::Owned);
    match parameters.map(|fields| merge(tool.parameters(), fields)) {
        Some(Ok(merged)) => {
            let schema = Tool::override_schema(merged.clone());
            (description, Cow::Owned(merged), Some(schema))
        }
        Some(Err(why)) => {
            tracing::warn!(
                tool = tool.name(),
                why,
                "invalid dynamic schema; using the static parameters"
            );
            (description, Cow::Borrowed(tool.parameters()), None)
        }
        None => (description, Cow::Borrowed(tool.parameters()), None),
    }
}

/// Merges override `fields` over the static parameter schema; `properties` merge by name.
fn merge(base: &Value, fields: Value) -> Result<Value, &'static str> {
    let Value::Object(fields) = fields else {
        return Err("the parameters override is not a JSON object");
    };
    let mut merged: Map<String, Value> = base.as_object().cloned().unwrap_or_default();
    for (key, value) in fields {
        match (key.as_str(), merged.get_mut(&key), value) {
            ("properties", Some(Value::Object(properties)), Value::Object(more)) => {
                properties.extend(more)
            }
            (_, _, value) => {
                merged.insert(key, value);
            }
        }
    }
    let is_object_schema = merged.get("type").and_then(Value::as_str) == Some("object")
        && merged.get("properties").is_some_and(Value::is_object);
    if is_object_schema {
        Ok(Value::Object(merged))
    } else {
        Err("the merged parameters are not an object schema with properties")
    }
}
