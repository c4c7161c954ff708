//! The bridge: how a list defers tools for a provider without native search, and how the
//! calls of its meta-tools are answered.
//!
//! A list that defers tools carries three meta-tools instead of them: search (its description
//! holds the manifest of what can be found), describe and call. Their calls are answered here
//! (search and describe) or resolved to the real tool (call), which then goes through the
//! whole pipeline under its own name.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::selection::{BridgeNames, Deferral};
use super::text::strings;
use crate::ToolRegistry;
use crate::call::answer::ToolAnswer;
use crate::config::Config;
use crate::definitions::formats::{self, Format};
use crate::definitions::list::{Definitions, DefinitionsRequest, Shown};
use crate::toolsets::nearest::nearest;

/// Most tools one query may ask for.
const MAX_LIMIT: usize = 20;
/// Most queries one search answers (more are refused, naming the bound).
const MAX_QUERIES: usize = 10;
/// The manifest's one line per tool, at most this many characters.
const MANIFEST_SUMMARY_CHARS: usize = 60;

/// The deferral a request means once the config's `[tool_search]` section is added.
fn resolved(request: &DefinitionsRequest, config: &Config) -> Deferral {
    let mut deferral = request.deferral.clone();
    if deferral.from_config {
        let section = &config.tool_search;
        deferral.all |= section.defer_all;
        deferral.tools.extend(section.defer_tools.iter().cloned());
        deferral
            .toolsets
            .extend(section.defer_toolsets.iter().cloned());
        deferral
            .servers
            .extend(section.defer_servers.iter().cloned());
        deferral.pinned.extend(section.pin.iter().cloned());
        deferral.budget_tokens = match (deferral.budget_tokens, section.budget_tokens) {
            (Some(mine), Some(theirs)) => Some(mine.min(theirs)),
            (mine, theirs) => mine.or(theirs),
        };
        deferral.from_config = false;
    }
    deferral
}

/// Decides which of `entries` (every selected, available tool, in name order, all `sent`) are
/// deferred, and returns what the list sends, in order: the tools sent in full, then the
/// meta-tools, then the discovered tools. `taken` says whether a name is a registered tool.
pub(crate) fn arrange(
    request: &DefinitionsRequest,
    config: &Config,
    entries: &mut [Shown],
    taken: impl Fn(&str) -> bool,
) -> (Vec<Arc<Value>>, Option<BridgeNames>) {
    let all = |entries: &[Shown]| entries.iter().map(|e| Arc::clone(&e.definition)).collect();
    let deferral = resolved(request, config);
    if deferral.is_empty() {
        return (all(entries), None);
    }
    let mut any = false;
    for entry in entries.iter_mut() {
        if deferral.defers(&entry.name, &entry.toolset) {
            entry.sent = false;
            any = true;
        }
    }
    if let Some(budget) = deferral.budget_tokens {
        let pinned = |e: &Shown| deferral.pinned.contains(&*e.name);
        let mut used: usize = entries
            .iter()
            .filter(|e| e.sent && pinned(e))
            .map(|e| super::estimate_tokens(&e.definition))
            .sum();
        let mut over = false;
        for entry in entries.iter_mut().filter(|e| e.sent && !pinned(e)) {
            used += super::estimate_tokens(&entry.definition);
            over |= used > budget;
            if over {
                entry.sent = false;
                any = true;
            }
        }
    }
    if !any {
        return (all(entries), None);
    }
    // A provider that loads deferred tools itself gets them marked, and its own search tool
    // (unless a registered tool has that name: then the bridge, whose names step aside).
    if request.format.searches_natively() && !taken(formats::native::SEARCH_TOOL) {
        return (super::native::arrange(request.format, entries), None);
    }
    let Some(names) = [BridgeNames::default(), BridgeNames::prefixed("hermes_")]
        .into_iter()
        .find(|names| !names.iter().any(&taken))
    else {
        tracing::warn!(
            "tools named tool_search/hermes_tool_search (or describe, call) are registered: \
             the bridge cannot be named, so nothing is deferred"
        );
        for entry in entries.iter_mut() {
            entry.sent = true;
        }
        return (all(entries), None);
    };
    let mut values: Vec<Arc<Value>> = entries
        .iter()
        .filter(|e| e.sent)
        .map(|e| Arc::clone(&e.definition))
        .collect();
    let manifest = manifest(
        entries.iter().filter(|e| !e.sent),
        config.tool_search.manifest_tokens,
    );
    values.extend(meta_definitions(request.format, &names, &manifest));
    for name in &request.discovered {
        if let Ok(at) = entries.binary_search_by(|e| (*e.name).cmp(name))
            && !entries[at].sent
        {
            entries[at].sent = true;
            values.push(Arc::clone(&entries[at].definition));
        }
    }
    (values, Some(names))
}

/// The manifest of the deferred tools, per toolset in name order: each tool's name and one
/// short line; if that passes `budget_tokens`, names only; then a count per toolset; then as
/// many toolsets' counts as fit.
pub(crate) fn manifest<'e>(
    deferred: impl Iterator<Item = &'e Shown>,
    budget_tokens: usize,
) -> String {
    let mut by_toolset: BTreeMap<&str, Vec<&Shown>> = BTreeMap::new();
    for entry in deferred {
        by_toolset.entry(&entry.toolset).or_default().push(entry);
    }
    let budget_bytes = budget_tokens.saturating_mul(4);
    let lines = |line: &dyn Fn(&str, &[&Shown]) -> String| -> String {
        by_toolset
            .iter()
            .map(|(toolset, tools)| line(toolset, tools))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let with_summaries = lines(&|toolset, tools| {
        let listed: Vec<String> = tools
            .iter()
            .map(|e| {
                let summary = super::summary_within(description_of(e), MANIFEST_SUMMARY_CHARS);
                if summary.is_empty() {
                    e.name.to_string()
                } else {
                    format!("{} ({summary})", e.name)
                }
            })
            .collect();
        format!("- {toolset}: {}", listed.join("; "))
    });
    if with_summaries.len() <= budget_bytes {
        return with_summaries;
    }
    let names_only = lines(&|toolset, tools| {
        let names: Vec<&str> = tools.iter().map(|e| &*e.name).collect();
        format!("- {toolset}: {}", names.join(", "))
    });
    if names_only.len() <= budget_bytes {
        return names_only;
    }
    let mut counts = String::new();
    let total = by_toolset.len();
    for (shown, (toolset, tools)) in by_toolset.iter().enumerate() {
        let line = format!("- {toolset}: {} tools\n", tools.len());
        let rest = format!("- and {} more toolsets", total - shown);
        if counts.len() + line.len() + rest.len() > budget_bytes {
            counts.push_str(&rest);
            return counts;
        }
        counts.push_str(&line);
    }
    counts.trim_end().to_owned()
}

/// The description in a tool's definition, whatever the format's shape.
fn description_of(entry: &Shown) -> &str {
    let value = &*entry.definition;
    value
        .get("description")
        .or_else(|| value.get("function").and_then(|f| f.get("description")))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The three meta-tools' definitions in `format`.
pub(crate) fn meta_definitions(
    format: Format,
    names: &BridgeNames,
    manifest: &str,
) -> [Arc<Value>; 3] {
    let search = format!(
        "Find tools that are not in your list: more tools exist than are shown, and their \
         definitions are sent on request. Give one or more short queries saying what you need \
         (several at once are fine), or \"select:name1,name2\" for exact names. You get \
         names with one line each; then get a tool's parameters with {describe} and run it \
         with {call}.\n\nTools you can find, by toolset:\n{manifest}",
        describe = names.describe,
        call = names.call,
    );
    let search_parameters = json!({
        "type": "object",
        "properties": {
            "queries": {
                "type": "array",
                "items": {"type": "string"},
                "description": "What you need, in a few words each (\"read a file\", \"open a github issue\"), or \"select:name1,name2\"."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "description": "At most this many tools per query (default 5)."
            }
        },
        "required": ["queries"]
    });
    let describe = format!(
        "Get the full definitions (description and parameters) of tools found with {}, \
         before you run them with {}.",
        names.search, names.call
    );
    let describe_parameters = json!({
        "type": "object",
        "properties": {
            "names": {
                "type": "array",
                "items": {"type": "string"},
                "description": "The tools' exact names."
            }
        },
        "required": ["names"]
    });
    let call = format!(
        "Run a tool found with {} by name, with its arguments as {} describes them.",
        names.search, names.describe
    );
    let call_parameters = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The tool's exact name."},
            "arguments": {
                "type": "object",
                "description": "The tool's arguments, as its parameters say."
            }
        },
        "required": ["name", "arguments"]
    });
    [
        (&names.search, search, search_parameters),
        (&names.describe, describe, describe_parameters),
        (&names.call, call, call_parameters),
    ]
    .map(|(name, description, parameters)| {
        Arc::new(formats::definition(format, name, &description, &parameters))
    })
}

/// What a call of `name` is, under the definitions the model was given.
pub(crate) enum Route {
    /// Not a meta-tool: the tool `name` itself.
    Direct,
    /// The call meta-tool: this tool, with these arguments, through the whole pipeline.
    Via {
        /// The real tool's name.
        name: String,
        /// Its arguments as JSON text.
        args: String,
    },
    /// The search or describe meta-tool (or a malformed call): answered here.
    Answer(ToolAnswer),
}

/// Routes a call of `name` with `args` under `shown` (the definitions the model was given).
pub(crate) fn route(
    registry: &ToolRegistry,
    name: &str,
    args: &str,
    shown: Option<&Definitions>,
) -> Route {
    if let Some(definitions) = shown.filter(|d| d.searches_natively()) {
        return if name == formats::native::SEARCH_TOOL {
            Route::Answer(super::native::search(registry, definitions, args))
        } else {
            Route::Direct
        };
    }
    let Some((definitions, names)) = shown.and_then(|d| Some((d, d.bridge()?))) else {
        return Route::Direct;
    };
    if name == names.search {
        Route::Answer(search(registry, definitions, names, args))
    } else if name == names.describe {
        Route::Answer(describe(definitions, names, args))
    } else if name == names.call {
        via(names, args)
    } else {
        Route::Direct
    }
}

/// The meta-tool call's arguments as an object, or the error that says what to send.
fn object(args: &str, tool: &str, example: &str) -> Result<Map<String, Value>, ToolAnswer> {
    match serde_json::from_str::<Value>(args) {
        Ok(Value::Object(object)) => Ok(object),
        _ => Err(ToolAnswer::error(format!(
            "The arguments of {tool} must be a JSON object, such as {example}."
        ))),
    }
}

fn search(
    registry: &ToolRegistry,
    shown: &Definitions,
    names: &BridgeNames,
    args: &str,
) -> ToolAnswer {
    let example = r#"{"queries": ["read a file"]}"#;
    let object = match object(args, &names.search, example) {
        Ok(object) => object,
        Err(answer) => return answer,
    };
    let queries = strings(&object, &["queries", "query"]);
    if queries.is_empty() {
        return ToolAnswer::error(format!(
            "{} needs \"queries\": a list of short descriptions of what you need, such as {example}.",
            names.search
        ));
    }
    if queries.len() > MAX_QUERIES {
        return ToolAnswer::error(format!(
            "{} takes at most {MAX_QUERIES} queries at once; you sent {}.",
            names.search,
            queries.len()
        ));
    }
    let default = registry.config().tool_search.max_results.max(1);
    let limit = object
        .get("limit")
        .and_then(Value::as_u64)
        .map_or(default, |n| usize::try_from(n).unwrap_or(MAX_LIMIT))
        .clamp(1, MAX_LIMIT);
    let index = registry.search_index();
    let searchable = |name: &str| shown.entry(name).is_some();
    let results: Vec<Value> = queries
        .iter()
        .map(|query| {
            let found = index.query_in(query, limit, searchable);
            let tools: Vec<Value> = found
                .hits
                .iter()
                .map(|hit| {
                    json!({
                        "name": &*hit.name,
                        "toolset": &*hit.toolset,
                        "summary": &*hit.summary,
                        "deferred": shown.is_deferred(&hit.name),
                    })
                })
                .collect();
            let mut result = json!({"query": query, "tools": tools});
            if !found.unknown.is_empty() {
                result["unknown"] = found
                    .unknown
                    .iter()
                    .map(|u| json!({"name": u.name, "did_you_mean": u.nearest}))
                    .collect();
            }
            if found.hits.is_empty() {
                result["note"] = Value::from(
                    "Nothing relevant: try other words, or a name from the list in this tool's \
                     description.",
                );
            }
            result
        })
        .collect();
    let next = format!(
        "For a deferred tool, get its parameters with {} {{\"names\": [...]}}, then run it with \
         {} {{\"name\": ..., \"arguments\": {{...}}}}. A tool not deferred is in your list: call it directly.",
        names.describe, names.call
    );
    ToolAnswer::json(&json!({"results": results, "next": next}))
}

fn describe(shown: &Definitions, names: &BridgeNames, args: &str) -> ToolAnswer {
    let example = r#"{"names": ["read_file"]}"#;
    let object = match object(args, &names.describe, example) {
        Ok(object) => object,
        Err(answer) => return answer,
    };
    let asked = strings(&object, &["names", "name"]);
    if asked.is_empty() {
        return ToolAnswer::error(format!(
            "{} needs \"names\": the tools' exact names, such as {example}.",
            names.describe
        ));
    }
    let mut tools = Vec::new();
    let mut unknown = Vec::new();
    for name in &asked {
        match shown.full_definition(name) {
            Some(definition) => tools.push(definition.clone()),
            None => {
                let near = nearest(name, shown.entries().iter().map(|e| &*e.name));
                unknown.push(json!({"name": name, "did_you_mean": near}));
            }
        }
    }
    let mut answer = json!({
        "tools": tools,
        "next": format!("Run one with {} {{\"name\": ..., \"arguments\": {{...}}}}.", names.call),
    });
    if !unknown.is_empty() {
        answer["unknown"] = Value::Array(unknown);
    }
    if tools_is_empty(&answer) {
        return ToolAnswer::error_with(
            format!(
                "No tool of that name can be described. Find names with {}.",
                names.search
            ),
            answer.as_object().cloned().unwrap_or_default(),
        );
    }
    ToolAnswer::json(&answer)
}

fn tools_is_empty(answer: &Value) -> bool {
    answer["tools"].as_array().is_none_or(Vec::is_empty)
}

fn via(names: &BridgeNames, args: &str) -> Route {
    let example = r#"{"name": "read_file", "arguments": {"path": "notes.txt"}}"#;
    let mut object = match object(args, &names.call, example) {
        Ok(object) => object,
        Err(answer) => return Route::Answer(answer),
    };
    // Models name the two fields in several ways; the tool's name is the only string needed.
    let name = ["name", "tool", "tool_name"]
        .iter()
        .find_map(|key| match object.get(*key) {
            Some(Value::String(name)) => Some((*key, name.clone())),
            _ => None,
        });
    let Some((key, name)) = name else {
        return Route::Answer(ToolAnswer::error(format!(
            "{} needs \"name\", the tool to run, and \"arguments\", such as {example}.",
            names.call
        )));
    };
    object.remove(key);
    if names.contains(&name) {
        return Route::Answer(ToolAnswer::error(format!(
            "{} runs the tools you found, not {name}: call {name} directly.",
            names.call
        )));
    }
    let given = ["arguments", "args", "parameters", "input"]
        .iter()
        .find_map(|key| object.remove(*key));
    let args = match given {
        // No arguments field: the other fields are the arguments (a model flattened them).
        None => Value::Object(object).to_string(),
        Some(Value::Null) => "{}".to_owned(),
        // A model may send the arguments as JSON text, as function calling sends them.
        Some(Value::String(text)) => text,
        Some(value) => value.to_string(),
    };
    Route::Via { name, args }
}

/// Whether a call of `name` with `args` may run beside others in a turn: a search or describe
/// may; a call through the bridge as its real tool.
pub(crate) fn parallel_safe(
    registry: &ToolRegistry,
    name: &str,
    args: &str,
    shown: Option<&Definitions>,
) -> bool {
    if shown.is_some_and(Definitions::searches_natively) && name == formats::native::SEARCH_TOOL {
        return true;
    }
    let names = shown.and_then(Definitions::bridge);
    match names {
        Some(names) if name == names.search || name == names.describe => true,
        Some(names) if name == names.call => match via(names, args) {
            Route::Via { name, .. } => registry.get(&name).is_some_and(|t| t.is_parallel_safe()),
            _ => true,
        },
        _ => registry.get(name).is_some_and(|t| t.is_parallel_safe()),
    }
}

/// The answer to a direct call of a tool `shown` defers: how to reach it.
pub(crate) fn deferred_direct_call(name: &str, names: &BridgeNames) -> ToolAnswer {
    ToolAnswer::error(format!(
        "Tool {name:?} is deferred: its definition was not sent to you. Get its parameters with \
         {} {{\"names\": [{name:?}]}}, then run it with {} {{\"name\": {name:?}, \"arguments\": {{...}}}}.",
        names.describe, names.call
    ))
}
