//! Dispatch of a tool with a rich signature, from arbitrary argument bytes, through the whole
//! call pipeline. Properties: the answer is always JSON; an error answer has an `error`
//! member; the fast and the slow path of argument judging never disagree.

#![no_main]

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};

use hermes_tools::{tool::Tool, ToolContext, ToolRegistry, tool};
use libfuzzer_sys::fuzz_target;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// A point.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// Across.
    pub x: f64,
    /// Down, when known.
    pub y: Option<i32>,
}

/// How to go about it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Quickly.
    Fast,
    /// With care.
    Careful,
}

/// Do something with every kind of parameter.
#[tool(toolset = "fuzz")]
fn rich(
    /// A name.
    name: String,
    /// How many (clamped to 1..=100).
    #[arg(minimum = 1, maximum = 100, clamp)]
    count: u32,
    /// How.
    mode: Mode,
    /// Labels.
    #[arg(max_items = 8)]
    tags: Vec<String>,
    /// Where.
    point: Option<Point>,
    /// A ratio.
    ratio: Option<f64>,
    /// Switches by name.
    flags: Option<BTreeMap<String, bool>>,
    /// A signed offset.
    offset: Option<i64>,
) -> String {
    format!("{name} {count} {mode:?} {tags:?} {point:?} {ratio:?} {flags:?} {offset:?}")
}

static REGISTRY: LazyLock<(ToolRegistry, Arc<Tool>)> = LazyLock::new(|| {
    let registry = ToolRegistry::linked();
    let tool = registry.get("rich").expect("the fuzz tool is linked");
    (registry, tool)
});

fuzz_target!(|data: &[u8]| {
    let (registry, tool) = &*REGISTRY;
    let text = String::from_utf8_lossy(data);
    let answer = registry.call_blocking("rich", &text, &ToolContext::new());
    let value: Value = serde_json::from_str(answer.as_str()).expect("the answer is always JSON");
    if answer.is_error() {
        assert!(value.get("error").is_some(), "an error without `error`: {answer}");
    }
    let fast = hermes_tools::__private::judge_arguments(tool, &text, false);
    let slow = hermes_tools::__private::judge_arguments(tool, &text, true);
    match (&fast, &slow) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "the paths judged {text:?} differently"),
        (Err(_), Err(_)) => {}
        _ => panic!("fast {fast:?} and slow {slow:?} disagree on {text:?}"),
    }
});
