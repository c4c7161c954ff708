//! A crate of tools, as you would write one: a tool with a struct parameter, a tool that
//! needs something from the agent (an extension of the call's context), a tool that can fail,
//! and their tests.
//!
//! `cargo run -p hermes-tools --example tool_crate` prints what the model is shown and calls
//! each tool; `cargo test -p hermes-tools --example tool_crate` runs the tests at the bottom.
//!
//! In a crate of your own, this file is `src/lib.rs` (without `main`), with
//! `hermes-tools = { version = "0.1", default-features = false }`, serde (derive) and
//! schemars in `[dependencies]`, and the binary that links it says `use my_tools as _;`.

use std::collections::BTreeMap;
use std::sync::Mutex;

use hermes_tools::{DefinitionsRequest, Format, ToolContext, ToolRegistry, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A line of a shopping list.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct Item {
    /// What to buy.
    pub name: String,
    /// How many (at least 1).
    #[schemars(range(min = 1))]
    pub quantity: u32,
}

/// Where the lists live: the agent provides it, the model never sees it.
#[derive(Default)]
pub struct Lists(Mutex<BTreeMap<String, Vec<Item>>>);

/// Add items to a shopping list, creating the list if it is new.
///
/// # Arguments
/// * `list` - The list's name.
/// * `items` - What to add.
#[tool(toolset = "shopping", emoji = "🛒")]
pub fn add_items(list: String, #[arg(min_items = 1)] items: Vec<Item>, lists: &Lists) -> usize {
    let mut lists = lists
        .0
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let entry = lists.entry(list).or_default();
    entry.extend(items);
    entry.len()
}

/// Show a shopping list.
///
/// # Arguments
/// * `list` - The list's name.
#[tool(toolset = "shopping", emoji = "📋", read_only)]
pub fn show_list(list: String, lists: &Lists) -> Result<serde_json::Value, String> {
    let lists = lists
        .0
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let items = lists
        .get(&list)
        .ok_or_else(|| format!("There is no list {list:?}: add items to create it."))?;
    Ok(serde_json::json!({ "list": list, "items": items }))
}

fn main() {
    let registry = ToolRegistry::global();
    let shown = registry
        .definitions(
            &DefinitionsRequest::all()
                .enable(["shopping"])
                .format(Format::OpenAiStrict),
        )
        .expect("the toolset exists");
    println!("{}", serde_json::to_string_pretty(&shown).expect("JSON"));

    let ctx = ToolContext::new().with_extension(Lists::default());
    for (name, args) in [
        (
            "add_items",
            r#"{"list": "weekend", "items": [{"name": "eggs", "quantity": "12"}]}"#,
        ),
        ("show_list", r#"{"list": "weekend"}"#),
        ("show_list", r#"{"list": "monday"}"#),
    ] {
        let answer = registry.call_blocking(name, args, &ctx);
        println!("{name} {args}\n  -> {answer}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The functions are plain functions: test them directly.
    #[test]
    fn adding_items_counts_the_list() {
        let lists = Lists::default();
        let eggs = Item {
            name: "eggs".into(),
            quantity: 12,
        };
        assert_eq!(add_items("weekend".into(), vec![eggs], &lists), 1);
        assert!(show_list("monday".into(), &lists).is_err());
    }

    /// And through the registry, as the model calls them: arguments repaired and validated,
    /// the context's extension injected.
    #[test]
    fn the_model_calls_reach_the_tools_through_the_pipeline() {
        let registry = ToolRegistry::global();
        let ctx = ToolContext::new().with_extension(Lists::default());
        let added = registry.call_blocking(
            "add_items",
            r#"{"list": "weekend", "items": [{"name": "eggs", "quantity": "12"}]}"#,
            &ctx,
        );
        assert_eq!(added.as_str(), "1", "{added}");
        let shown = registry.call_blocking("show_list", r#"{"list": "weekend"}"#, &ctx);
        assert_eq!(shown.to_value()["items"][0]["quantity"], 12);

        let refused = registry.call_blocking("add_items", r#"{"list": "x", "items": []}"#, &ctx);
        assert!(refused.is_error(), "{refused}");
        let missing = registry.call_blocking("show_list", r#"{"list": "monday"}"#, &ctx);
        assert!(missing.as_str().contains("There is no list"), "{missing}");
    }

    /// Without the extension the tool is not run, and the model is told why.
    #[test]
    fn a_missing_extension_is_an_answer_not_a_panic() {
        let answer = ToolRegistry::global().call_blocking(
            "show_list",
            r#"{"list": "weekend"}"#,
            &ToolContext::new(),
        );
        assert!(answer.is_error(), "{answer}");
        assert!(answer.as_str().contains("Lists"), "{answer}");
    }
}
