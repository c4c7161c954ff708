//! Definitions: the tool list in the shape a provider's API takes.
//!
//! This module gives the OpenAI chat-completions shape,
//! `{"type":"function","function":{"name","description","parameters"}}`, for a selection of
//! toolsets. Names in the selection are checked: an unknown toolset is an error that names the
//! nearest known ones, never silently ignored.

use serde_json::{Value, json};

use crate::dispatch::nearest;
use crate::registry::ToolRegistry;
use crate::tool::Tool;

/// A toolset name in a selection matched no toolset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown toolset {name:?}{}", suggestion_text(.suggestions))]
pub struct UnknownToolset {
    /// The name given.
    pub name: String,
    /// The nearest known toolsets.
    pub suggestions: Vec<String>,
}

fn suggestion_text(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", suggestions.join(", "))
    }
}

/// The OpenAI function definition of `tool`.
pub fn openai(tool: &Tool) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": tool.name(),
            "description": tool.description(),
            "parameters": tool.parameters(),
        }
    })
}

impl ToolRegistry {
    /// Every toolset name, sorted.
    pub fn toolsets(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .snapshot()
            .tools()
            .map(|tool| tool.toolset().to_owned())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The OpenAI definitions of the tools in `toolsets` (every tool for `None`), sorted by name.
    ///
    /// `all` and `*` select every toolset.
    pub fn openai_definitions(
        &self,
        toolsets: Option<&[String]>,
    ) -> Result<Vec<Value>, UnknownToolset> {
        let snapshot = self.snapshot();
        let selected = match toolsets {
            None => None,
            Some(names) if names.iter().any(|n| n == "all" || n == "*") => None,
            Some(names) => {
                let known = self.toolsets();
                for name in names {
                    if !known.contains(name) {
                        return Err(UnknownToolset {
                            name: name.clone(),
                            suggestions: nearest(name, known.iter().map(String::as_str)),
                        });
                    }
                }
                Some(names)
            }
        };
        Ok(snapshot
            .tools()
            .filter(|tool| selected.is_none_or(|names| names.iter().any(|n| n == tool.toolset())))
            .map(|tool| openai(tool))
            .collect())
    }
}
