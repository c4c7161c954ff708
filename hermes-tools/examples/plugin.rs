//! A compiled plugin: linked into the binary, loaded only when the operator enables it. Its
//! register function adds a tool and a hook; unloading it takes both away.
//!
//! `cargo run -p hermes-tools --example plugin`. A command plugin (a directory with a
//! `plugin.toml` and a program of any language) loads the same way: see the `plugins` docs and
//! `example-tools/plugins/word_count`.

use std::sync::atomic::{AtomicUsize, Ordering};

use hermes_tools::config::PluginsConfig;
use hermes_tools::plugins::{PluginContext, PluginManager};
use hermes_tools::{ToolContext, ToolRegistry, plugin};
use serde_json::json;

/// Calls of `greet` the plugin's hook has seen.
static GREETED: AtomicUsize = AtomicUsize::new(0);

/// A greeting tool, and a post-call hook that counts its calls.
#[plugin(name = "greeter")]
fn greeter(ctx: &mut PluginContext<'_>) {
    let tool = ctx
        .tool_builder("greet", "greetings")
        .description("Greet someone by their name.")
        .parameters(json!({
            "type": "object",
            "properties": {"name": {"type": "string", "description": "Who to greet."}},
            "required": ["name"]
        }))
        .handler(|args, _ctx| json!({ "greeting": format!("Hello, {}!", args["name"].as_str().unwrap_or("you")) }))
        .build();
    ctx.register_tool(tool).add_post_call(|record| {
        if record.name == "greet" {
            GREETED.fetch_add(1, Ordering::Relaxed);
        }
    });
}

fn main() {
    let registry = ToolRegistry::new();
    let mut plugins = PluginManager::new(&registry);

    // Linked is not loaded: without the operator's word, there is no `greet`.
    plugins.load(&PluginsConfig::default());
    let answer = registry.call_blocking("greet", r#"{"name": "Ada"}"#, &ToolContext::new());
    println!("before enabling: {answer}");
    assert!(answer.is_error());

    plugins.load(&PluginsConfig {
        enabled: vec!["greeter".into()],
        ..Default::default()
    });
    for info in plugins.plugins() {
        println!("plugin {info:?}");
    }
    let answer = registry.call_blocking("greet", r#"{"name": "Ada"}"#, &ToolContext::new());
    println!("after enabling: {answer}");
    assert_eq!(answer.to_value()["greeting"], "Hello, Ada!");
    assert_eq!(GREETED.load(Ordering::Relaxed), 1, "the hook saw the call");
}
