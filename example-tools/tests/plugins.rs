//! The shipped plugins end to end: the real `example-tools` binary with a config file enabling
//! the command plugin `word_count` and the compiled plugin `fortune`; and `fortune` in process.

mod common;

use common::{cli_with_config, stdout};

use std::path::{Path, PathBuf};
use std::process::Command;

use example_tools::fortune::{FORTUNES, observed_calls};
use hermes_tools::config::PluginsConfig;
use hermes_tools::plugins::{PluginManager, PluginStatus};
use hermes_tools::{ToolContext, ToolRegistry};
use serde_json::{Value, json};

/// `example-tools/plugins`, absolute.
fn plugins_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("plugins")
}

/// A temp dir holding `hermes.toml` with the `[plugins]` table `plugins`.
fn config(plugins: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hermes.toml");
    std::fs::write(&file, format!("[plugins]\n{plugins}\n")).unwrap();
    (dir, file)
}

fn enabled(names: &str) -> String {
    format!(
        "enabled = [{names}]\ndir = {:?}",
        plugins_dir().display().to_string()
    )
}

/// The block `plugins` prints for one plugin: its header line and the indented lines after.
/// The number of tools `list` reports, from its first line.
fn tool_count(list: &str) -> usize {
    let first = list.lines().next().unwrap_or_default();
    let (count, rest) = first.split_once(' ').unwrap_or_else(|| panic!("{first:?}"));
    assert!(rest.starts_with("tools"), "{first:?}");
    count.parse().unwrap()
}

/// The row `list` prints for `tool`.
fn list_row<'a>(list: &'a str, tool: &str) -> Option<&'a str> {
    list.lines()
        .find(|line| line.split_whitespace().nth(1) == Some(tool))
}

fn block<'a>(listing: &'a str, header: &str) -> Vec<&'a str> {
    let mut lines = listing.lines().skip_while(|line| *line != header);
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("{header:?} in {listing}"));
    std::iter::once(first)
        .chain(lines.take_while(|line| line.starts_with("  ")))
        .collect()
}

#[test]
fn call_word_count_runs_the_command_plugin() {
    let (_dir, file) = config(&enabled(r#""word_count""#));
    let output = cli_with_config(&file, &["call", "word_count", r#"{"text":"a b c"}"#]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        stdout(&output),
        "{\"words\":3,\"lines\":1,\"characters\":5}\n"
    );
}

#[test]
fn the_config_can_come_from_the_environment() {
    let (_dir, file) = config(&enabled(r#""word_count""#));
    let output = Command::new(env!("CARGO_BIN_EXE_example-tools"))
        .args(["call", "word_count", r#"{"text":"one\ntwo"}"#])
        .env("HERMES_TOOLS_CONFIG", &file)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        stdout(&output),
        "{\"words\":2,\"lines\":2,\"characters\":7}\n"
    );
}

#[test]
fn plugins_lists_what_each_loaded_plugin_added() {
    let (_dir, file) = config(&enabled(r#""word_count", "fortune""#));
    let output = cli_with_config(&file, &["plugins"]);
    assert!(output.status.success(), "{output:?}");
    let text = stdout(&output);
    assert!(
        text.starts_with("2 plugins: 2 loaded, 0 failed\n"),
        "{text}"
    );
    let manifest = plugins_dir().join("word_count/plugin.toml");
    assert_eq!(
        block(&text, "word_count (command): loaded"),
        [
            "word_count (command): loaded",
            &format!("  source: {}", manifest.display()),
            "  tools: word_count",
            "  hooks: none",
            "  toolsets: none",
        ]
    );
    let fortune = block(&text, "fortune (compiled): loaded");
    assert_eq!(fortune.len(), 5, "{fortune:?}");
    assert!(
        fortune[1].starts_with("  source: example_tools::fortune (example-tools/src/fortune.rs:"),
        "{fortune:?}"
    );
    assert_eq!(
        fortune[2..],
        ["  tools: fortune", "  hooks: post_call", "  toolsets: none"]
    );
}

#[test]
fn list_and_call_see_plugin_tools() {
    let (_none, without) = config("");
    let (_dir, file) = config(&enabled(r#""word_count", "fortune""#));
    let before = tool_count(&stdout(&cli_with_config(&without, &["list"])));
    let list = stdout(&cli_with_config(&file, &["list"]));
    assert_eq!(tool_count(&list), before + 2, "{list}");
    let row = list_row(&list, "word_count").unwrap_or_else(|| panic!("word_count in {list}"));
    let columns: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(columns[..5], ["🔢", "word_count", "text", "-", "available"]);
    let row = list_row(&list, "fortune").unwrap_or_else(|| panic!("fortune in {list}"));
    assert!(
        row.contains("fortune (example-tools/src/fortune.rs:"),
        "{row}"
    );

    let output = cli_with_config(&file, &["call", "fortune", r#"{"seed": 11}"#]);
    assert!(output.status.success(), "{output:?}");
    let answer: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(answer, json!({"fortune": FORTUNES[3], "index": 3}));
}

#[test]
fn a_disabled_plugin_is_not_loaded() {
    let (_dir, file) = config(&format!(
        "{}\ndisabled = [\"word_count\"]",
        enabled(r#""word_count""#)
    ));
    let text = stdout(&cli_with_config(&file, &["plugins"]));
    assert_eq!(
        block(&text, "word_count (command): disabled")[0],
        "word_count (command): disabled"
    );
    assert!(
        text.contains("\nfortune (compiled): not enabled\n"),
        "{text}"
    );
    let output = cli_with_config(&file, &["call", "word_count", r#"{"text":"a"}"#]);
    assert!(!output.status.success());
    assert!(stdout(&output).contains("Unknown tool"), "{output:?}");
}

#[test]
fn plugins_not_enabled_are_listed_but_not_loaded() {
    let (_dir, file) = config(&format!("dir = {:?}", plugins_dir().display().to_string()));
    let output = cli_with_config(&file, &["plugins"]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(
        text.starts_with("2 plugins: 0 loaded, 0 failed\n"),
        "{text}"
    );
    assert!(
        text.contains("\nword_count (command): not enabled\n"),
        "{text}"
    );
    assert!(
        text.contains("\nfortune (compiled): not enabled\n"),
        "{text}"
    );
    let list = stdout(&cli_with_config(&file, &["list"]));
    assert_eq!(list_row(&list, "word_count"), None, "{list}");
    assert_eq!(list_row(&list, "fortune"), None, "{list}");
}

#[test]
fn a_failed_plugin_is_listed_with_its_reason_and_fails_the_command() {
    let (_dir, file) = config(&enabled(r#""word_count", "ghost""#));
    let output = cli_with_config(&file, &["plugins"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.starts_with("3 plugins: 1 loaded, 1 failed\n"),
        "{text}"
    );
    let expected = format!(
        "ghost (unknown): failed: no compiled plugin is named \"ghost\", and {} does not exist",
        plugins_dir().join("ghost/plugin.toml").display()
    );
    assert_eq!(block(&text, &expected), [expected.as_str()]);
}

#[test]
fn a_relative_plugins_dir_is_relative_to_the_config_file() {
    let (dir, file) = config("enabled = [\"word_count\"]\ndir = \"my-plugins\"");
    let copy = dir.path().join("my-plugins/word_count");
    std::fs::create_dir_all(&copy).unwrap();
    for name in ["plugin.toml", "count.py"] {
        std::fs::copy(plugins_dir().join("word_count").join(name), copy.join(name)).unwrap();
    }
    let output = cli_with_config(&file, &["call", "word_count", r#"{"text":""}"#]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        stdout(&output),
        "{\"words\":0,\"lines\":0,\"characters\":0}\n"
    );
}

#[test]
fn a_bad_config_file_stops_the_command() {
    let (_dir, file) = config("enabeld = [\"word_count\"]");
    let output = cli_with_config(&file, &["list"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("hermes.toml"), "{stderr}");
    assert!(stderr.contains("enabeld"), "{stderr}");
}

#[test]
fn fortune_loads_only_when_enabled_and_counts_calls_through_the_pipeline() {
    let registry = ToolRegistry::new();
    let mut plugins = PluginManager::new(&registry);
    plugins.load(&PluginsConfig::default());
    assert_eq!(
        plugins.get("fortune").unwrap().status,
        PluginStatus::NotEnabled
    );
    assert!(registry.get("fortune").is_none());

    plugins.load(&PluginsConfig {
        enabled: vec!["fortune".into()],
        ..PluginsConfig::default()
    });
    assert_eq!(plugins.get("fortune").unwrap().status, PluginStatus::Loaded);
    let ctx = ToolContext::new();
    let before = observed_calls();
    let first = registry.call_blocking("fortune", "{}", &ctx);
    let second = registry.call_blocking("fortune", "{}", &ctx);
    let seeded = registry.call_blocking("fortune", r#"{"seed": 5}"#, &ctx);
    assert_eq!(
        first.to_value(),
        json!({"fortune": FORTUNES[0], "index": 0})
    );
    assert_eq!(
        second.to_value(),
        json!({"fortune": FORTUNES[1], "index": 1})
    );
    assert_eq!(
        seeded.to_value(),
        json!({"fortune": FORTUNES[5], "index": 5})
    );
    assert_eq!(observed_calls() - before, 3);

    plugins.unload("fortune").unwrap();
    assert!(registry.get("fortune").is_none());
    assert!(registry.hooks().is_empty());
}
