//! Plugins: opt-in loading, what each plugin added, unloading, the override permission,
//! isolation of failures, and command plugins (manifests and runs).
//!
//! The compiled plugins are declared here with `#[plugin]`; every test loads the ones it
//! enables into a fresh registry, so tests do not see each other's plugins.
//!
//! Built with the `command-plugins` feature (on by default), which its command plugins need.
#![cfg(feature = "command-plugins")]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hermes_tools::config::PluginsConfig;
use hermes_tools::hooks::{Directive, HookKind};
use hermes_tools::plugins::{Manifest, PluginContext, PluginKind, PluginManager, PluginStatus};
use hermes_tools::{ToolContext, ToolRegistry, plugin, tool, tool::Tool, toolsets::Composite};
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// Compiled plugins under test

/// Echoes, with one hook of each kind and a toolset.
#[plugin(name = "alpha")]
fn alpha(ctx: &mut PluginContext<'_>) {
    let echo = ctx
        .tool_builder("alpha_echo", "alpha")
        .description("Return the text it is given.")
        .parameters(json!({
            "type": "object",
            "properties": {"text": {"type": "string", "description": "What to return."}},
            "required": ["text"]
        }))
        .handler(|args, _ctx| args["text"].clone())
        .build();
    ctx.register_tool(echo)
        .add_pre_call(|call| {
            (call.args["text"] == "forbidden").then(|| Directive::Block("alpha says no".into()))
        })
        .add_post_call(|_record| {})
        .add_transform(|record| (record.result == r#""shout""#).then(|| r#""SHOUT""#.into()))
        .register_toolset(
            Composite::new("alpha_bundle", "Alpha's tools.").with_tools(["alpha_echo"]),
        );
}

/// A plain tool, to show that other plugins load when one fails.
#[plugin(name = "beta")]
fn beta(ctx: &mut PluginContext<'_>) {
    let tool = ctx
        .tool_builder("beta_tool", "beta")
        .description("Answer beta.")
        .handler(|_, _| "beta")
        .build();
    ctx.register_tool(tool);
}

/// Replaces the tool `shared` of another toolset.
#[plugin(name = "overrider")]
fn overrider(ctx: &mut PluginContext<'_>) {
    let tool = ctx
        .tool_builder("shared", "overrider")
        .description("The overrider's shared tool.")
        .overrides(true)
        .handler(|_, _| "overridden")
        .build();
    ctx.register_tool(tool);
}

/// Registers a tool and a hook, then a refused override: both must be rolled back.
#[plugin(name = "partial")]
fn partial(ctx: &mut PluginContext<'_>) {
    let first = ctx
        .tool_builder("partial_first", "partial")
        .description("Registered before the refusal.")
        .build();
    let second = ctx
        .tool_builder("shared", "partial")
        .description("Refused without permission.")
        .overrides(true)
        .build();
    let after = ctx
        .tool_builder("partial_after", "partial")
        .description("Never registered: registration stops at the first refusal.")
        .build();
    ctx.register_tool(first)
        .add_post_call(|_| {})
        .register_tool(second)
        .register_tool(after);
}

/// Takes the name of a tool of its own toolset without declaring `overrides`.
#[plugin(name = "sneaky")]
fn sneaky(ctx: &mut PluginContext<'_>) {
    let tool = ctx
        .tool_builder("shared", "base")
        .description("Silently swapped in.")
        .build();
    ctx.register_tool(tool);
}

/// Registers a tool, then panics.
#[plugin(name = "panicky")]
fn panicky(ctx: &mut PluginContext<'_>) {
    let tool = ctx
        .tool_builder("panicky_tool", "panicky")
        .description("Registered before the panic.")
        .build();
    ctx.register_tool(tool);
    panic!("boom");
}

/// Overrides the linked `#[tool]` `linked_tool`.
#[plugin(name = "linked_override")]
fn linked_override(ctx: &mut PluginContext<'_>) {
    let tool = ctx
        .tool_builder("linked_tool", "plugin_side")
        .description("The plugin's linked_tool.")
        .overrides(true)
        .handler(|_, _| "from the plugin")
        .build();
    ctx.register_tool(tool);
}

/// A linked tool a plugin overrides and, unloaded, gives back.
#[tool(toolset = "linked")]
fn linked_tool() -> &'static str {
    "linked"
}

// ---------------------------------------------------------------------------------------------
// Helpers

fn config(enabled: &[&str]) -> PluginsConfig {
    PluginsConfig {
        enabled: enabled.iter().map(|name| (*name).to_owned()).collect(),
        ..PluginsConfig::default()
    }
}

fn status(manager: &PluginManager, name: &str) -> PluginStatus {
    manager
        .get(name)
        .unwrap_or_else(|| panic!("plugin {name} is reported"))
        .status
        .clone()
}

fn call(registry: &ToolRegistry, name: &str, args: &str) -> String {
    registry
        .call_blocking(name, args, &ToolContext::new())
        .into_string()
}

/// A registry holding the tool `shared` of toolset `base`.
fn registry_with_shared() -> ToolRegistry {
    let registry = ToolRegistry::new();
    let base = Tool::builder("shared", "base")
        .description("The base shared tool.")
        .handler(|_, _| "base")
        .build();
    registry.register(base).unwrap();
    registry
}

/// A directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("hermes-plugins-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    /// Writes `root/name/plugin.toml`; returns the plugin's directory.
    fn plugin(&self, name: &str, manifest: &str) -> PathBuf {
        let dir = self.0.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("plugin.toml"), manifest).unwrap();
        dir
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------------------------------------------
// Compiled plugins

#[test]
fn an_enabled_plugin_loads_and_its_tools_hooks_and_toolsets_are_tracked() {
    let registry = ToolRegistry::new();
    let mut manager = PluginManager::new(&registry);
    manager.load(&config(&["alpha"]));

    let info = manager.get("alpha").unwrap();
    assert_eq!(info.status, PluginStatus::Loaded);
    assert_eq!(info.kind, PluginKind::Compiled);
    assert_eq!(
        info.description,
        "Echoes, with one hook of each kind and a toolset."
    );
    assert_eq!(info.tools, ["alpha_echo"]);
    assert_eq!(info.toolsets, ["alpha_bundle"]);
    let kinds: Vec<HookKind> = info.hooks.iter().map(|(_, kind)| *kind).collect();
    assert_eq!(
        kinds,
        [HookKind::PreCall, HookKind::PostCall, HookKind::Transform]
    );

    let hooks = registry.hooks().snapshot();
    let ids: Vec<_> = hooks.iter().map(|hook| hook.id()).collect();
    assert_eq!(
        ids,
        info.hooks.iter().map(|(id, _)| *id).collect::<Vec<_>>()
    );
    assert!(hooks.iter().all(|hook| hook.owner() == Some("alpha")));
    assert!(
        registry
            .snapshot()
            .composites()
            .contains_key("alpha_bundle")
    );

    let tool = registry.get("alpha_echo").unwrap();
    assert_eq!(tool.provenance().crate_name, "alpha");
    assert_eq!(tool.provenance().file, "hermes-tools/tests/plugins.rs");
    assert_eq!(call(&registry, "alpha_echo", r#"{"text":"hi"}"#), r#""hi""#);

    // The hooks run in the pipeline.
    let ctx = ToolContext::new();
    let blocked = registry.call_blocking("alpha_echo", r#"{"text":"forbidden"}"#, &ctx);
    assert_eq!(blocked.as_str(), r#"{"error":"alpha says no"}"#);
    let shouted = registry.call_blocking("alpha_echo", r#"{"text":"shout"}"#, &ctx);
    assert_eq!(shouted.as_str(), r#""SHOUT""#);
}

#[test]
fn plugins_not_enabled_are_reported_and_not_loaded() {
    let registry = ToolRegistry::new();
    let mut manager = PluginManager::new(&registry);
    manager.load(&PluginsConfig::default());

    let names: Vec<&str> = manager.plugins().map(|info| info.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "alpha",
            "beta",
            "linked_override",
            "overrider",
            "panicky",
            "partial",
            "sneaky"
        ]
    );
    assert!(
        manager
            .plugins()
            .all(|info| info.status == PluginStatus::NotEnabled)
    );
    assert_eq!(registry.snapshot().tools().len(), 0);
    assert!(registry.hooks().is_empty());
}

#[test]
fn disabled_wins_over_enabled() {
    let registry = ToolRegistry::new();
    let mut manager = PluginManager::new(&registry);
    manager.load(&PluginsConfig {
        enabled: vec!["alpha".into(), "beta".into()],
        disabled: vec!["alpha".into()],
        ..PluginsConfig::default()
    });
    assert_eq!(status(&manager, "alpha"), PluginStatus::Disabled);
    assert_eq!(status(&manager, "beta"), PluginStatus::Loaded);
    assert_eq!(status(&manager, "panicky"), PluginStatus::NotEnabled);
    assert!(registry.get("alpha_echo").is_none());
    assert!(registry.get("beta_tool").is_some());
}

#[test]
fn an_enabled_name_found_nowhere_is_reported_as_failed() {
    let registry = ToolRegistry::new();
    let mut manager = PluginManager::new(&registry);
    manager.load(&config(&["ghost"]));
    let info = manager.get("ghost").unwrap();
    assert_eq!(info.kind, PluginKind::Unknown);
    assert_eq!(
        info.status,
        PluginStatus::Failed(
            "no compiled plugin is named \"ghost\", and plugins.dir is not set, so there are \
             no command plugins"
                .into()
        )
    );
}

#[test]
fn unloading_removes_tools_hooks_and_toolsets_and_changes_the_generation() {
    let registry = ToolRegistry::new();
    let mut manager = PluginManager::new(&registry);
    manager.load(&config(&["alpha", "beta"]));
    let before = registry.generation();

    manager.unload("alpha").unwrap();

    assert_ne!(registry.generation(), before);
    assert!(registry.get("alpha_echo").is_none());
    assert!(
        !registry
            .snapshot()
            .composites()
            .contains_key("alpha_bundle")
    );
    assert!(registry.hooks().is_empty());
    let info = manager.get("alpha").unwrap();
    assert_eq!(info.status, PluginStatus::Unloaded);
    assert!(info.tools.is_empty() && info.hooks.is_empty() && info.toolsets.is_empty());
    // The other plugin is untouched.
    assert_eq!(call(&registry, "beta_tool", "{}"), r#"{"result":"beta"}"#);

    assert_eq!(
        manager.unload("alpha").unwrap_err().to_string(),
        r#"plugin "alpha" is not loaded"#
    );
    assert_eq!(
        manager.unload("nope").unwrap_err().to_string(),
        r#"no plugin is named "nope""#
    );

    // Loading again brings it back.
    manager.load(&config(&["alpha", "beta"]));
    assert_eq!(status(&manager, "alpha"), PluginStatus::Loaded);
    assert_eq!(
        call(&registry, "alpha_echo", r#"{"text":"again"}"#),
        r#""again""#
    );
}

#[test]
fn an_override_without_permission_fails_and_the_other_plugins_load() {
    let registry = registry_with_shared();
    let mut manager = PluginManager::new(&registry);
    manager.load(&config(&["overrider", "beta"]));

    assert_eq!(
        status(&manager, "overrider"),
        PluginStatus::Failed(
            "plugin \"overrider\" may not override tool \"shared\": add \"overrider\" to \
             plugins.allow_tool_override in the config to allow it"
                .into()
        )
    );
    assert_eq!(registry.get("shared").unwrap().toolset(), "base");
    assert_eq!(status(&manager, "beta"), PluginStatus::Loaded);
}

#[test]
fn a_refused_registration_rolls_back_what_the_plugin_registered_before() {
    let registry = registry_with_shared();
    let mut manager = PluginManager::new(&registry);
    let generation = registry.generation();
    manager.load(&config(&["partial"]));

    assert!(
        matches!(status(&manager, "partial"), PluginStatus::Failed(reason)
        if reason.starts_with("plugin \"partial\" may not override tool \"shared\""))
    );
    assert!(registry.get("partial_first").is_none());
    assert!(registry.get("partial_after").is_none());
    assert!(registry.hooks().is_empty());
    assert_eq!(registry.get("shared").unwrap().toolset(), "base");
    // Registered, then deregistered: two changes.
    assert_eq!(registry.generation(), generation + 2);
}

#[test]
fn an_override_with_permission_replaces_the_tool() {
    let registry = registry_with_shared();
    let mut manager = PluginManager::new(&registry);
    manager.load(&PluginsConfig {
        allow_tool_override: vec!["overrider".into()],
        ..config(&["overrider"])
    });
    assert_eq!(status(&manager, "overrider"), PluginStatus::Loaded);
    assert_eq!(registry.get("shared").unwrap().toolset(), "overrider");
    assert_eq!(
        call(&registry, "shared", "{}"),
        r#"{"result":"overridden"}"#
    );
}

#[test]
fn unloading_an_override_gives_back_the_linked_tool() {
    // A registry of the linked tools (independent of the global one), `linked_tool` only.
    let registry = ToolRegistry::linked();
    let others: Vec<String> = registry
        .snapshot()
        .names()
        .filter(|name| *name != "linked_tool")
        .map(str::to_owned)
        .collect();
    for name in others {
        registry.deregister(&name);
    }
    assert_eq!(registry.get("linked_tool").unwrap().toolset(), "linked");
    let mut manager = PluginManager::new(&registry);
    manager.load(&PluginsConfig {
        allow_tool_override: vec!["linked_override".into()],
        ..config(&["linked_override"])
    });
    assert_eq!(
        call(&registry, "linked_tool", "{}"),
        r#"{"result":"from the plugin"}"#
    );

    manager.unload("linked_override").unwrap();
    assert_eq!(registry.get("linked_tool").unwrap().toolset(), "linked");
    assert_eq!(
        call(&registry, "linked_tool", "{}"),
        r#"{"result":"linked"}"#
    );
}

#[test]
fn replacing_a_tool_of_the_same_toolset_needs_overrides_too() {
    let registry = registry_with_shared();
    let mut manager = PluginManager::new(&registry);
    manager.load(&config(&["sneaky"]));
    assert_eq!(
        status(&manager, "sneaky"),
        PluginStatus::Failed(
            "plugin \"sneaky\" registers tool \"shared\", which would replace the tool of \
             toolset \"base\" declared at runtime (<runtime>); rename it, or declare it with \
             `overrides` (the operator must also allow the plugin in plugins.allow_tool_override)"
                .into()
        )
    );
    assert_eq!(call(&registry, "shared", "{}"), r#"{"result":"base"}"#);
}

#[test]
fn a_panicking_register_is_isolated_and_rolled_back() {
    let registry = ToolRegistry::new();
    let mut manager = PluginManager::new(&registry);
    manager.load(&config(&["panicky", "beta"]));
    assert_eq!(
        status(&manager, "panicky"),
        PluginStatus::Failed(r#"plugin "panicky" panicked while registering: boom"#.into())
    );
    assert!(registry.get("panicky_tool").is_none());
    assert_eq!(status(&manager, "beta"), PluginStatus::Loaded);
    let snapshot = registry.snapshot();
    assert_eq!(snapshot.names().collect::<Vec<_>>(), ["beta_tool"]);
}

// ---------------------------------------------------------------------------------------------
// Command plugins: manifests

const GOOD_TOOL: &str = r#"
[[tools]]
name = "echo_args"
toolset = "cmd"
description = "Return the arguments."
command = ["sh", "-c", "cat"]
"#;

fn manifest_error(text: &str) -> String {
    Manifest::from_toml_str(text, Path::new("plugins/p/plugin.toml"))
        .unwrap_err()
        .to_string()
}

#[test]
fn a_manifest_that_is_not_toml_is_reported_with_file_and_line() {
    assert_eq!(
        manifest_error("name = \n"),
        "plugins/p/plugin.toml:1: string values must be quoted, expected literal string"
    );
}

#[test]
fn a_missing_field_is_reported_with_file_line_and_field() {
    let text = "name = \"p\"\n[[tools]]\nname = \"t\"\ntoolset = \"cmd\"\ndescription = \"T.\"\n";
    assert_eq!(
        manifest_error(text),
        "plugins/p/plugin.toml:2: tools[0]: missing field `command`"
    );
    assert_eq!(
        manifest_error(GOOD_TOOL),
        "plugins/p/plugin.toml:1: missing field `name`"
    );
}

#[test]
fn an_unknown_field_is_reported_with_file_line_and_field() {
    let text = format!("name = \"p\"\n{GOOD_TOOL}colour = \"red\"\n");
    assert_eq!(
        manifest_error(&text),
        "plugins/p/plugin.toml:8: tools[0].colour: unknown field `colour`, expected one of \
         `name`, `toolset`, `description`, `emoji`, `command`, `timeout_secs`, `parameters`, \
         `output`, `overrides`, `needs_approval`, `max_result_chars`, `requires_env`"
    );
}

#[test]
fn bad_values_are_reported_with_the_field() {
    assert_eq!(
        manifest_error(&format!("name = \"word count\"\n{GOOD_TOOL}")),
        "plugins/p/plugin.toml:1: name: \"word count\" is invalid: use 1 to 64 characters from \
         a-z, A-Z, 0-9, '_' and '-'"
    );
    let string_command = GOOD_TOOL.replace(r#"["sh", "-c", "cat"]"#, r#""sh -c cat""#);
    assert_eq!(
        manifest_error(&format!("name = \"p\"\n{string_command}")),
        "plugins/p/plugin.toml:7: tools[0].command: must be a non-empty list of strings"
    );
    let empty_command = GOOD_TOOL.replace(r#"["sh", "-c", "cat"]"#, "[]");
    assert_eq!(
        manifest_error(&format!("name = \"p\"\n{empty_command}")),
        "plugins/p/plugin.toml:7: tools[0].command: must be a non-empty list of strings"
    );
    let not_object = format!("name = \"p\"\n{GOOD_TOOL}parameters = {{ type = \"array\" }}\n");
    assert_eq!(
        manifest_error(&not_object),
        "plugins/p/plugin.toml:8: tools[0].parameters.type: must be \"object\" (tool arguments \
         are an object), found \"array\""
    );
    let bad_output = format!("name = \"p\"\n{GOOD_TOOL}output = \"xml\"\n");
    assert_eq!(
        manifest_error(&bad_output),
        "plugins/p/plugin.toml:8: tools[0].output: unknown variant `xml`, expected `json` or `text`"
    );
}

#[test]
fn a_manifest_must_be_named_after_its_directory_and_fails_its_plugin() {
    let root = TempDir::new("misnamed");
    root.plugin("misnamed", &format!("name = \"other\"\n{GOOD_TOOL}"));
    let registry = ToolRegistry::new();
    let mut manager = PluginManager::new(&registry);
    manager.load(&PluginsConfig {
        dir: Some(root.0.clone()),
        ..config(&["misnamed"])
    });
    let manifest = root.0.join("misnamed/plugin.toml");
    assert_eq!(
        status(&manager, "misnamed"),
        PluginStatus::Failed(format!(
            "{}:1: name: \"other\" is not the name of the plugin's directory (\"misnamed\"); \
             they must match",
            manifest.display()
        ))
    );
    assert!(registry.get("echo_args").is_none());
}

// ---------------------------------------------------------------------------------------------
// Command plugins: runs

/// A plugin `cmd` whose tools show each outcome of a run.
fn command_plugin(test: &str) -> (TempDir, ToolRegistry) {
    let root = TempDir::new(test);
    let dir = root.plugin(
        "cmd",
        &format!(
            r#"
name = "cmd"
description = "Outcomes of a command."
{GOOD_TOOL}
parameters = {{ type = "object", properties = {{ text = {{ type = "string", description = "Some text." }} }}, required = ["text"] }}

[[tools]]
name = "script"
toolset = "cmd"
description = "Run the plugin's own script, by a relative path."
command = ["./count.sh"]

[[tools]]
name = "plain"
toolset = "cmd"
description = "Print text."
command = ["sh", "-c", "echo plain words"]
output = "text"

[[tools]]
name = "fail"
toolset = "cmd"
description = "Exit 3."
command = ["sh", "-c", "echo first >&2; echo oops >&2; exit 3"]

[[tools]]
name = "slow"
toolset = "cmd"
description = "Take too long."
command = ["sh", "-c", "echo started >&2; exec sleep 10"]
timeout_secs = 1

[[tools]]
name = "garbage"
toolset = "cmd"
description = "Print text that is not JSON."
command = ["sh", "-c", "echo not json"]
"#
        ),
    );
    let script = dir.join("count.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf '{\"bytes\": %s}' \"$(wc -c | tr -d ' ')\"\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let registry = ToolRegistry::new();
    let mut manager = PluginManager::new(&registry);
    manager.load(&PluginsConfig {
        dir: Some(root.0.clone()),
        ..config(&["cmd"])
    });
    let info = manager.get("cmd").unwrap();
    assert_eq!(info.status, PluginStatus::Loaded);
    assert_eq!(info.kind, PluginKind::Command);
    assert_eq!(info.description, "Outcomes of a command.");
    assert_eq!(
        info.tools,
        ["echo_args", "script", "plain", "fail", "slow", "garbage"]
    );
    (root, registry)
}

#[test]
fn a_command_tool_answers_its_stdout() {
    let (root, registry) = command_plugin("success");
    assert_eq!(
        call(&registry, "echo_args", r#"{"text":"a b"}"#),
        r#"{"text":"a b"}"#
    );
    assert_eq!(call(&registry, "script", "{}"), r#"{"bytes":2}"#);
    assert_eq!(
        call(&registry, "plain", "{}"),
        r#"{"result":"plain words"}"#
    );
    let tool = registry.get("echo_args").unwrap();
    assert_eq!(tool.provenance().crate_name, "cmd");
    assert_eq!(
        tool.provenance().file,
        root.0.join("cmd/plugin.toml").display().to_string()
    );
    // The manifest's schema is enforced before the command runs.
    let answer = registry.call_blocking("echo_args", r#"{}"#, &ToolContext::new());
    assert!(answer.is_error(), "{answer}");
}

#[test]
fn a_non_zero_exit_is_an_error_with_the_status_and_stderr() {
    let (_root, registry) = command_plugin("exit");
    let answer = registry.call_blocking("fail", "{}", &ToolContext::new());
    assert!(answer.is_error());
    assert_eq!(
        answer.to_value()["error"],
        "[TOOL_ERROR] Tool \"fail\" failed: it exited with status 3; stderr ends: first\noops"
    );
}

#[test]
fn a_timeout_kills_the_command_and_is_an_error() {
    let (_root, registry) = command_plugin("timeout");
    let started = Instant::now();
    // Raw dispatch: the command's own timeout, not the pipeline's (of the same length).
    let answer = registry.dispatch_unguarded_blocking("slow", "{}", &ToolContext::new());
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(answer.is_error());
    assert_eq!(
        answer.to_value()["error"],
        "[TOOL_ERROR] Tool \"slow\" failed: it timed out after 1 s and was killed; stderr ends: \
         started"
    );
}

#[test]
fn output_that_is_not_json_is_an_error() {
    let (_root, registry) = command_plugin("garbage");
    let answer = registry.call_blocking("garbage", "{}", &ToolContext::new());
    assert!(answer.is_error());
    assert_eq!(
        answer.to_value()["error"],
        "[TOOL_ERROR] Tool \"garbage\" failed: its output is not one JSON document (expected \
         ident at line 1 column 2); it begins \"not json\\n\"; stderr was empty"
    );
}

#[test]
fn command_plugins_follow_the_enabled_and_disabled_lists() {
    let root = TempDir::new("lists");
    root.plugin("one", &format!("name = \"one\"\n{GOOD_TOOL}"));
    root.plugin(
        "two",
        &format!(
            "name = \"two\"\n{}",
            GOOD_TOOL.replace("echo_args", "echo_two")
        ),
    );
    let registry = ToolRegistry::new();
    let mut manager = PluginManager::new(&registry);
    manager.load(&PluginsConfig {
        enabled: vec!["one".into(), "two".into()],
        disabled: vec!["two".into()],
        dir: Some(root.0.clone()),
        ..PluginsConfig::default()
    });
    assert_eq!(status(&manager, "one"), PluginStatus::Loaded);
    assert_eq!(status(&manager, "two"), PluginStatus::Disabled);
    assert!(registry.get("echo_args").is_some());
    assert!(registry.get("echo_two").is_none());

    let registry = ToolRegistry::new();
    let mut manager = PluginManager::new(&registry);
    manager.load(&PluginsConfig {
        dir: Some(root.0.clone()),
        ..PluginsConfig::default()
    });
    assert_eq!(status(&manager, "one"), PluginStatus::NotEnabled);
    assert_eq!(registry.snapshot().tools().len(), 0);
}

#[test]
fn a_second_plugin_of_a_loaded_name_fails() {
    let root = TempDir::new("duplicate");
    root.plugin("beta", &format!("name = \"beta\"\n{GOOD_TOOL}"));
    let registry = ToolRegistry::new();
    let mut manager = PluginManager::new(&registry);
    manager.load(&PluginsConfig {
        dir: Some(root.0.clone()),
        ..config(&["beta"])
    });
    let betas: Vec<(PluginKind, PluginStatus)> = manager
        .plugins()
        .filter(|info| info.name == "beta")
        .map(|info| (info.kind, info.status.clone()))
        .collect();
    let compiled_source = BETA_PLUGIN.provenance.to_string();
    assert_eq!(
        betas,
        [
            (PluginKind::Compiled, PluginStatus::Loaded),
            (
                PluginKind::Command,
                PluginStatus::Failed(format!(
                    "another plugin of this name is loaded, declared at {compiled_source}"
                ))
            ),
        ]
    );
    assert_eq!(manager.get("beta").unwrap().kind, PluginKind::Compiled);
    assert!(registry.get("echo_args").is_none());
}
