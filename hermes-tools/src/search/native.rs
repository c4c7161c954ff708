//! Native search: how a list defers tools for a provider that loads deferred tools itself
//! (Anthropic, the OpenAI Responses API), and how its model's searches are answered.
//!
//! Where the bridge sends three meta-tools, a native list sends every selected tool: the
//! deferred ones marked `defer_loading` (on Responses, in a `namespace` per toolset or MCP
//! server) after the tools sent in full and one search tool our client answers (the shapes:
//! [`definitions::formats::native`](crate::definitions::formats::native)). The provider shows
//! the model the deferred tools' names (Responses: its namespaces' names and descriptions)
//! until a search loads them; the model then calls them by their own names, and they run as
//! any tool, through the whole pipeline. Nothing is appended when a tool is found (a
//! request's [`discovered`](crate::DefinitionsRequest::discovered) names change nothing): the
//! provider loads it at the end of the context, so the list, and the prompt cache, stay as
//! they were.
//!
//! A search runs the registry's [`SearchIndex`](super::SearchIndex), as the bridge's does, over
//! the deferred tools only (a tool sent in full needs no loading, and Anthropic refuses a
//! reference to one), and answers with the found tools' definitions exactly as the list
//! carries them; [`answer_messages`](crate::provider::answer_messages) turns that answer into
//! `tool_reference` blocks or a `tool_search_output` item.
//!
//! The search tool is named `tool_search` (a Responses `tool_search_call` is read under that
//! name). When a registered tool has that name, the list uses the bridge instead, whose names
//! step aside.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::ToolRegistry;
use crate::call::answer::ToolAnswer;
use crate::definitions::formats::Format;
use crate::definitions::formats::native::{self as shapes, SEARCH_TOOL};
use crate::definitions::list::{Definitions, Shown};

/// Most tools one query loads.
const MAX_LIMIT: usize = 20;
/// Most queries one search answers.
const MAX_QUERIES: usize = 10;

/// What a native list sends, in order: the tools sent in full (name order), the search tool,
/// then the deferred tools marked (Anthropic: by name; Responses: one namespace per toolset, by
/// namespace name, its tools by name).
pub(crate) fn arrange(format: Format, entries: &[Shown]) -> Vec<Arc<Value>> {
    let mut values: Vec<Arc<Value>> = entries
        .iter()
        .filter(|e| e.sent)
        .map(|e| Arc::clone(&e.definition))
        .collect();
    values.extend(shapes::search_tool(format).map(Arc::new));
    let deferred = entries.iter().filter(|e| !e.sent);
    if format == Format::Responses {
        for (name, (toolset, tools)) in namespaces(deferred) {
            let description =
                shapes::namespace_description(toolset, tools.iter().map(|e| &*e.name));
            let marked = tools
                .iter()
                .map(|e| shapes::deferred(&e.definition))
                .collect();
            values.push(Arc::new(shapes::namespace(&name, description, marked)));
        }
    } else {
        values.extend(deferred.map(|e| Arc::new(shapes::deferred(&e.definition))));
    }
    values
}

/// Tools by namespace (name order), each with its toolset and its tools in the given order.
fn namespaces<'e>(
    tools: impl Iterator<Item = &'e Shown>,
) -> BTreeMap<String, (&'e str, Vec<&'e Shown>)> {
    let mut by_namespace: BTreeMap<String, (&str, Vec<&Shown>)> = BTreeMap::new();
    for entry in tools {
        by_namespace
            .entry(shapes::namespace_name(&entry.toolset))
            .or_insert_with(|| (&entry.toolset, Vec::new()))
            .1
            .push(entry);
    }
    by_namespace
}

/// The answer to the model's search under `shown` (a native list): the deferred tools found,
/// as the list carries them (on Responses, in their namespaces, each described as listed).
pub(crate) fn search(registry: &ToolRegistry, shown: &Definitions, args: &str) -> ToolAnswer {
    let example = r#"{"query": "send an email"}"#;
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(args) else {
        return ToolAnswer::error(format!(
            "The arguments of {SEARCH_TOOL} must be a JSON object, such as {example}."
        ));
    };
    let queries = queries(&object);
    if queries.is_empty() {
        return ToolAnswer::error(format!(
            "{SEARCH_TOOL} needs \"query\": a few words saying what the tool you need does, \
             such as {example}, or \"select:NAME\"."
        ));
    }
    if queries.len() > MAX_QUERIES {
        return ToolAnswer::error(format!(
            "{SEARCH_TOOL} takes at most {MAX_QUERIES} queries at once; you sent {}.",
            queries.len()
        ));
    }
    let limit = registry
        .config()
        .tool_search
        .max_results
        .clamp(1, MAX_LIMIT);
    let index = registry.search_index();
    let mut found: Vec<&Shown> = Vec::new();
    for query in &queries {
        let result = index.query_in(query, limit, |name| shown.is_deferred(name));
        for hit in &result.hits {
            if let Some(entry) = shown.entry(&hit.name)
                && !found.iter().any(|e| e.name == entry.name)
            {
                found.push(entry);
            }
        }
    }
    let tools = if shown.format() == Format::Responses {
        namespaces(found.into_iter())
            .into_iter()
            .map(|(name, (toolset, tools))| {
                let listed = shown
                    .entries()
                    .iter()
                    .filter(|e| !e.sent && shapes::namespace_name(&e.toolset) == name);
                let description = shapes::namespace_description(toolset, listed.map(|e| &*e.name));
                let marked = tools
                    .iter()
                    .map(|e| shapes::deferred(&e.definition))
                    .collect();
                shapes::namespace(&name, description, marked)
            })
            .collect()
    } else {
        found
            .iter()
            .map(|e| shapes::deferred(&e.definition))
            .collect()
    };
    crate::provider::search_answer(tools)
}

/// The queries of a search's arguments: `query` (the native tool's parameter) or `queries`
/// (the bridge's), each a string or a list of strings.
fn queries(object: &Map<String, Value>) -> Vec<String> {
    super::text::strings(object, &["query", "queries"])
}
