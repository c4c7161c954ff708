//! The rules of registering, the generation counter, duplicate declarations, and concurrency.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use hermes_tools::{ToolContext, ToolRegistry, registry::RegisterError, tool, tool::Tool};
use serde_json::json;

fn tool(name: &str, toolset: &str) -> Tool {
    let answer = toolset.to_owned();
    Tool::builder(name, toolset)
        .description("A test tool.")
        .handler(move |_, _| json!({ "from": answer }))
        .build()
}

fn from(registry: &ToolRegistry, name: &str) -> String {
    registry
        .call_blocking(name, "{}", &ToolContext::new())
        .to_value()["from"]
        .as_str()
        .unwrap_or("missing")
        .to_owned()
}

#[test]
fn same_toolset_replaces_and_bumps_the_generation() {
    let registry = ToolRegistry::new();
    assert_eq!(registry.generation(), 0);
    assert!(registry.register(tool("t", "a")).unwrap().is_none());
    assert_eq!(registry.generation(), 1);
    let replaced = registry.register(tool("t", "a")).unwrap();
    assert_eq!(
        replaced.map(|t| t.toolset().to_owned()),
        Some("a".to_owned())
    );
    assert_eq!(registry.generation(), 2);
}

#[test]
fn another_toolset_is_refused_without_overrides_and_the_generation_stays() {
    let registry = ToolRegistry::new();
    registry.register(tool("t", "a")).unwrap();
    let before = registry.generation();
    let err = registry.register(tool("t", "b")).unwrap_err();
    assert!(
        matches!(err, RegisterError::Shadowing { ref existing_toolset, .. } if existing_toolset == "a")
    );
    assert!(err.to_string().contains("overrides"), "{err}");
    assert_eq!(registry.generation(), before);
    assert_eq!(from(&registry, "t"), "a");

    let overriding = Tool::builder("t", "b")
        .overrides(true)
        .handler(|_, _| json!({"from": "b"}))
        .build();
    registry.register(overriding).unwrap();
    assert_eq!(from(&registry, "t"), "b");
    assert_eq!(registry.generation(), before + 1);
}

#[test]
fn mcp_toolsets_replace_each_other_but_never_a_builtin() {
    let registry = ToolRegistry::new();
    registry.register(tool("m", "mcp-one")).unwrap();
    registry.register(tool("m", "mcp-two")).unwrap();
    assert_eq!(from(&registry, "m"), "mcp-two");

    registry.register(tool("b", "files")).unwrap();
    let before = registry.generation();
    let sneaky = Tool::builder("b", "mcp-evil").overrides(true).build();
    assert!(matches!(
        registry.register(sneaky),
        Err(RegisterError::McpOverBuiltin { .. })
    ));
    assert_eq!(registry.generation(), before);
    assert_eq!(from(&registry, "b"), "files");
}

#[test]
fn invalid_names_are_refused() {
    let registry = ToolRegistry::new();
    for name in ["", "has space", "ünïcode", &"x".repeat(65)] {
        assert!(
            matches!(
                registry.register(tool(name, "a")),
                Err(RegisterError::InvalidName { .. })
            ),
            "{name:?}"
        );
    }
    assert_eq!(registry.generation(), 0);
}

#[test]
fn a_tool_is_checked_before_the_rules_name_then_toolset_then_schema() {
    let registry = ToolRegistry::new();
    let all_wrong = Tool::builder("has space", "all")
        .parameters(json!({"type": "array"}))
        .build();
    assert!(matches!(
        registry.register(all_wrong),
        Err(RegisterError::InvalidName { .. })
    ));
    let bad_toolset = Tool::builder("ok", "all")
        .parameters(json!({"type": "array"}))
        .build();
    assert!(matches!(
        registry.register(bad_toolset),
        Err(RegisterError::InvalidToolset { .. })
    ));
    let bad_schema = Tool::builder("ok", "fine")
        .parameters(json!({"type": "array"}))
        .build();
    assert!(matches!(
        registry.register(bad_schema),
        Err(RegisterError::InvalidSchema { .. })
    ));
    // A refused replacement keeps the tool in place, as any refusal does.
    registry.register(tool("ok", "fine")).unwrap();
    let before = registry.generation();
    let broken = Tool::builder("ok", "fine").parameters(json!(null)).build();
    assert!(registry.register(broken).is_err());
    assert_eq!(registry.generation(), before);
    assert_eq!(from(&registry, "ok"), "fine");
}

#[test]
fn deregister_changes_the_generation_only_when_it_removes() {
    let registry = ToolRegistry::new();
    registry.register(tool("t", "a")).unwrap();
    let before = registry.generation();
    assert!(registry.deregister("nope").is_none());
    assert_eq!(registry.generation(), before);
    assert!(registry.deregister("t").is_some());
    assert_eq!(registry.generation(), before + 1);
    assert!(registry.get("t").is_none());
}

mod first {
    use hermes_tools::tool;

    /// The first declaration of a duplicated name.
    #[tool(toolset = "dupes", name = "duplicated")]
    pub fn one() -> &'static str {
        "first"
    }
}

mod second {
    use hermes_tools::tool;

    /// The second declaration of a duplicated name.
    #[tool(toolset = "dupes", name = "duplicated")]
    pub fn two() -> &'static str {
        "second"
    }
}

/// Declared with `overrides`: wins over a same-named tool whatever the order.
#[tool(toolset = "winners", name = "contested", overrides)]
fn contested_override() -> &'static str {
    "override"
}

/// Declared without `overrides`.
#[tool(toolset = "losers", name = "contested")]
fn contested_plain() -> &'static str {
    "plain"
}

#[test]
fn duplicate_declarations_have_one_deterministic_winner_and_are_reported() {
    let registry = ToolRegistry::global();
    let answer = registry.call_blocking("duplicated", "{}", &ToolContext::new());
    // `registry::first` sorts before `registry::second`.
    assert_eq!(answer.to_value(), json!({"result": "first"}));
    let answer = registry.call_blocking("contested", "{}", &ToolContext::new());
    assert_eq!(answer.to_value(), json!({"result": "override"}));
    let conflicts = registry.conflicts();
    let names: Vec<_> = conflicts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["contested", "duplicated"]);
    assert_eq!(conflicts[1].dropped.1.module_path, "registry::second");
    assert_eq!(conflicts[0].dropped.0, "losers");
    // Building again from the same slice gives the same outcome.
    let again = ToolRegistry::linked();
    assert_eq!(again.conflicts(), conflicts);
    let _ = (
        first::one(),
        second::two(),
        contested_override(),
        contested_plain(),
    );
}

#[test]
fn a_handler_may_call_back_into_the_registry() {
    let registry = ToolRegistry::new();
    registry.register(tool("inner", "a")).unwrap();
    let handle = registry.clone();
    let outer = Tool::builder("outer", "a")
        .handler(move |_, ctx| {
            // Register and call from inside a handler: no lock is held while it runs.
            handle.register(tool("added_by_handler", "a")).unwrap();
            handle.call_blocking("inner", "{}", ctx).to_value()
        })
        .build();
    registry.register(outer).unwrap();
    assert_eq!(from(&registry, "outer"), "a");
    assert!(registry.get("added_by_handler").is_some());
}

#[test]
fn concurrent_dispatch_while_registering_and_deregistering_finishes() {
    let registry = ToolRegistry::new();
    registry.register(tool("stable", "a")).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let registry = registry.clone();
            thread::spawn(move || {
                for i in 0..300 {
                    let name = format!("churn_{w}_{}", i % 7);
                    let _ = registry.register(tool(&name, "a"));
                    registry.deregister(&name);
                }
            })
        })
        .collect();
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let registry = registry.clone();
            let calls = Arc::clone(&calls);
            thread::spawn(move || {
                for _ in 0..300 {
                    assert_eq!(from(&registry, "stable"), "a");
                    let _ = registry.call_blocking("churn_0_3", "{}", &ToolContext::new());
                    calls.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for handle in writers.into_iter().chain(readers) {
        handle.join().unwrap();
    }
    assert_eq!(calls.load(Ordering::Relaxed), 900);
    // Every register was followed by its deregister.
    assert_eq!(registry.snapshot().names().collect::<Vec<_>>(), ["stable"]);
    assert_eq!(registry.generation(), 1 + 2 * 2 * 300);
}

/// A tool only a plugin registers.
#[tool(toolset = "plugin_only", unlisted)]
fn unlisted_tool() -> &'static str {
    "registered by hand"
}

#[test]
fn an_unlisted_tool_is_not_collected_but_can_be_registered() {
    assert!(ToolRegistry::global().get("unlisted_tool").is_none());
    assert!(
        ToolRegistry::linked().get("unlisted_tool").is_none(),
        "not in the linked slice"
    );
    assert_eq!(UNLISTED_TOOL_TOOL.name, "unlisted_tool");
    let _ = unlisted_tool();
    let registry = ToolRegistry::new();
    registry
        .register(Tool::from_decl(&UNLISTED_TOOL_TOOL))
        .unwrap();
    let answer = registry.call_blocking("unlisted_tool", "{}", &ToolContext::new());
    assert_eq!(answer.to_value(), json!({"result": "registered by hand"}));
}

#[test]
fn deregister_exact_takes_back_only_what_it_added() {
    let registry = ToolRegistry::new();
    let mine = Arc::new(tool("shared_name", "mcp-a"));
    registry.register(Arc::clone(&mine)).unwrap();
    let theirs = Arc::new(tool("shared_name", "mcp-b"));
    registry.register(Arc::clone(&theirs)).unwrap();
    let before = registry.generation();
    assert!(
        !registry.deregister_exact(&mine),
        "replaced since: not mine to remove"
    );
    assert_eq!(registry.generation(), before);
    assert!(registry.deregister_exact(&theirs));
    assert!(registry.get("shared_name").is_none());
}

#[test]
fn toolsets_and_aliases_bump_the_generation_only_when_they_change() {
    let registry = ToolRegistry::new();
    let coding = hermes_tools::toolsets::Composite::new("coding", "Files and a shell.")
        .with_includes(["files"]);
    registry.register_toolset(coding.clone()).unwrap();
    registry.register_alias("time", "mcp-time").unwrap();
    let before = registry.generation();
    registry.register_toolset(coding.clone()).unwrap();
    registry.register_alias("time", "mcp-time").unwrap();
    assert_eq!(
        registry.generation(),
        before,
        "the same declarations again change nothing"
    );
    registry
        .register_toolset(coding.with_includes(["terminal"]))
        .unwrap();
    assert_eq!(registry.generation(), before + 1);
    assert!(registry.deregister_alias("time").is_some());
    assert_eq!(registry.generation(), before + 2);
}

#[tokio::test(flavor = "current_thread")]
async fn subscribers_are_woken_by_every_change_and_only_by_changes() {
    let registry = ToolRegistry::new();
    let mut changes = registry.subscribe();
    registry.register(tool("a", "x")).unwrap();
    changes.changed().await.unwrap();
    assert_eq!(*changes.borrow_and_update(), registry.generation());
    assert!(registry.register(tool("a", "y")).is_err());
    assert!(registry.deregister("missing").is_none());
    assert!(
        !changes.has_changed().unwrap(),
        "refusals and no-ops send nothing"
    );
    registry.deregister("a");
    changes.changed().await.unwrap();
    assert_eq!(*changes.borrow(), registry.generation());
}
