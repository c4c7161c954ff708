//! `fortune`: a compiled plugin, after the example of Hermes' plugin guide: a tool telling a
//! fortune from a fixed list, and a post-call hook counting the calls.
//!
//! Linked is not loaded: it loads only when the config enables it.
//!
//! ```toml
//! [plugins]
//! enabled = ["fortune"]
//! ```
//!
//! ```
//! use hermes_tools::{ToolContext, ToolRegistry, config::PluginsConfig, plugins::PluginManager};
//!
//! let registry = ToolRegistry::new();
//! let mut plugins = PluginManager::new(&registry);
//! plugins.load(&PluginsConfig { enabled: vec!["fortune".into()], ..Default::default() });
//! let answer = registry.call_blocking("fortune", r#"{"seed": 9}"#, &ToolContext::new());
//! assert_eq!(answer.to_value()["fortune"], example_tools::fortune::FORTUNES[1]);
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use hermes_tools::plugin;
use hermes_tools::plugins::PluginContext;
use serde_json::json;

/// The fortunes, in the order the tool tells them.
pub const FORTUNES: [&str; 8] = [
    "A journey of a thousand miles begins with a single step.",
    "You will find a bug where you least expect it.",
    "Fortune favours the prepared mind.",
    "The best time to write a test was yesterday; the next best is now.",
    "Simplicity is the ultimate sophistication.",
    "An unexpected message will bring good news.",
    "Measure twice, cut once.",
    "Today is a good day to read the error message.",
];

/// Calls of `fortune` the hook has seen through the call pipeline, in every load in this
/// process (`dispatch_unguarded` runs no hooks, so it does not count).
static OBSERVED: AtomicU64 = AtomicU64::new(0);

/// How many `fortune` calls the plugin's post-call hook has seen.
pub fn observed_calls() -> u64 {
    OBSERVED.load(Ordering::Relaxed)
}

/// Fortunes from a fixed list, and a count of the calls.
#[plugin(name = "fortune")]
pub fn fortune(ctx: &mut PluginContext<'_>) {
    // Per load, so the first call after loading always tells the first fortune.
    let next = Arc::new(AtomicUsize::new(0));
    let tool = ctx
        .tool_builder("fortune", "fun")
        .description(
            "Tell a fortune from a fixed list: the next one in turn, or the one a seed picks.",
        )
        .emoji("🥠")
        .parameters(json!({
            "type": "object",
            "properties": {
                "seed": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "Picks the fortune: the same seed tells the same fortune. \
                                    Omit it for the next fortune in turn."
                }
            }
        }))
        .handler(move |args, _ctx| {
            let index = match args["seed"].as_u64() {
                // The remainder is below the list's length, so it fits a usize.
                Some(seed) => (seed % FORTUNES.len() as u64) as usize,
                None => next.fetch_add(1, Ordering::Relaxed) % FORTUNES.len(),
            };
            json!({"fortune": FORTUNES[index], "index": index})
        })
        .build();
    ctx.register_tool(tool).add_post_call(|record| {
        if record.name == "fortune" {
            OBSERVED.fetch_add(1, Ordering::Relaxed);
        }
    });
}
