//! Native tool search in a tool list: deferred tools, and the search tool, in the shape of the
//! providers whose API loads deferred tools itself (Anthropic, the OpenAI Responses API).
//!
//! | [`Format`] | a deferred tool | grouped | the search tool |
//! | --- | --- | --- | --- |
//! | `anthropic` | its definition with `"defer_loading": true` | no | a custom tool `tool_search`, answered with `tool_reference` blocks |
//! | `responses` | its function with `"defer_loading": true` | in a `namespace` per toolset (an MCP server's tools are its toolset `mcp-<name>`) | `{"type": "tool_search", "execution": "client"}`, answered with a `tool_search_output` item |
//!
//! Every other format gets the local bridge instead (search, describe and call meta-tools).
//! The list is built from sorted inputs only, so the same selection gives the same bytes:
//! pinned tools first (as without deferral), then the search tool, then the deferred tools (by
//! name; on Responses by namespace, then by name within it).

use serde_json::{Map, Value, json};

use super::Format;

/// The name of the search tool a provider's model calls to find deferred tools: the custom
/// tool Anthropic is given, and the name a Responses `tool_search_call` is read under (see
/// [`provider`](crate::provider)).
pub const SEARCH_TOOL: &str = "tool_search";

/// What the search tool tells the model.
pub(crate) const SEARCH_DESCRIPTION: &str = "Search the deferred tools, which are listed by \
     name only until found: by what they do (a few words, e.g. \"read a file\"), or \
     `select:NAME` (comma-separated names) for tools you know by name. The tools found become \
     callable.";

/// The longest namespace name we make (the limit OpenAI gives tool names).
const MAX_NAMESPACE_CHARS: usize = 64;

impl Format {
    /// Whether the provider loads deferred tools itself ([`Format::Anthropic`],
    /// [`Format::Responses`]): a list that defers tools then marks them `defer_loading` and
    /// adds a search tool the client answers, instead of the local bridge's meta-tools.
    ///
    /// ```
    /// use hermes_tools::Format;
    ///
    /// assert!(Format::Anthropic.searches_natively());
    /// assert!(!Format::Gemini.searches_natively());
    /// ```
    pub fn searches_natively(self) -> bool {
        matches!(self, Format::Anthropic | Format::Responses)
    }
}

/// The parameters of the search tool.
pub(crate) fn search_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "What the tool you need does, in a few words; or \
                                `select:NAME[,NAME...]` for tools whose names you know."
            }
        },
        "required": ["query"]
    })
}

/// The search tool in `format`'s list; `None` for a format without native search.
pub(crate) fn search_tool(format: Format) -> Option<Value> {
    match format {
        Format::Anthropic => Some(json!({
            "name": SEARCH_TOOL,
            "description": SEARCH_DESCRIPTION,
            "input_schema": search_parameters(),
        })),
        Format::Responses => Some(json!({
            "type": "tool_search",
            "execution": "client",
            "description": SEARCH_DESCRIPTION,
            "parameters": search_parameters(),
        })),
        _ => None,
    }
}

/// `definition` (a tool's definition in `format`) marked deferred: the provider shows the model
/// its name (Responses: and description) until a search loads it.
pub(crate) fn deferred(definition: &Value) -> Value {
    let mut marked = match definition {
        Value::Object(map) => map.clone(),
        other => return other.clone(),
    };
    marked.insert("defer_loading".into(), Value::Bool(true));
    Value::Object(marked)
}

/// The namespace a toolset's deferred tools go in on Responses: the toolset's name with every
/// character a tool name cannot hold (outside `A-Z a-z 0-9 _ -`) as `_`, at most 64 characters.
pub(crate) fn namespace_name(toolset: &str) -> String {
    let mut name: String = toolset
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAMESPACE_CHARS)
        .collect();
    if name.is_empty() {
        name.push('_');
    }
    name
}

/// What a Responses namespace says of itself before its tools are loaded (the model sees only
/// this and the namespace's name): whose tools they are, and their names, so a search can aim
/// at them.
pub(crate) fn namespace_description<'n>(
    toolset: &str,
    names: impl IntoIterator<Item = &'n str>,
) -> String {
    let whose = match toolset.strip_prefix("mcp-") {
        Some(server) => format!("The tools of the MCP server {server}"),
        None => format!("The {toolset} tools"),
    };
    let names: Vec<&str> = names.into_iter().collect();
    format!("{whose}: {}.", names.join(", "))
}

/// A Responses `namespace` of deferred functions (`tools` already marked [`deferred`]).
pub(crate) fn namespace(name: &str, description: String, tools: Vec<Value>) -> Value {
    let mut namespace = Map::with_capacity(4);
    namespace.insert("type".into(), json!("namespace"));
    namespace.insert("name".into(), json!(name));
    namespace.insert("description".into(), Value::String(description));
    namespace.insert("tools".into(), Value::Array(tools));
    Value::Object(namespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_names_keep_what_a_tool_name_may_hold() {
        assert_eq!(namespace_name("mcp-github"), "mcp-github");
        assert_eq!(namespace_name("web search"), "web_search");
        assert_eq!(namespace_name("é.x"), "__x");
        assert_eq!(namespace_name(""), "_");
        assert_eq!(namespace_name(&"a".repeat(80)).len(), 64);
    }

    #[test]
    fn a_namespace_says_whose_tools_it_holds_and_names_them() {
        assert_eq!(
            namespace_description("mcp-github", ["list_issues", "create_issue"]),
            "The tools of the MCP server github: list_issues, create_issue."
        );
        assert_eq!(
            namespace_description("mail", ["send_email"]),
            "The mail tools: send_email."
        );
    }

    #[test]
    fn a_deferred_tool_is_its_definition_marked() {
        let definition =
            json!({"name": "f", "description": "d", "input_schema": {"type": "object"}});
        let marked = deferred(&definition);
        assert_eq!(marked["defer_loading"], true);
        assert_eq!(marked["input_schema"], definition["input_schema"]);
    }

    #[test]
    fn only_anthropic_and_responses_have_a_native_search_tool() {
        for format in Format::ALL {
            assert_eq!(
                search_tool(format).is_some(),
                format.searches_natively(),
                "{format}"
            );
        }
        assert_eq!(search_tool(Format::Anthropic).unwrap()["name"], SEARCH_TOOL);
        assert_eq!(
            search_tool(Format::Responses).unwrap()["execution"],
            "client"
        );
    }
}
