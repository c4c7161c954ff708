//! The CLI end to end: the real `example-tools` binary, run as a subprocess from the workspace root.

mod common;

use common::{cli, stdout};

use std::path::Path;

use serde_json::Value;

#[test]
fn list_shows_every_tool_with_emoji_toolsets_and_availability() {
    let output = cli(&["list"]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.starts_with("7 tools ("), "{text}");
    for (emoji, name, toolset, included_in) in [
        ("❓", "clarify", "clarify", "-"),
        ("📋", "todo", "todo", "coding"),
        ("📖", "read_file", "files", "coding"),
        ("🔎", "search_files", "files", "coding"),
        ("💻", "terminal", "terminal", "coding"),
        ("🔀", "delegate_task", "delegation", "-"),
    ] {
        let line = text
            .lines()
            .find(|line| line.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("{name} listed in {text}"));
        let columns: Vec<_> = line.split_whitespace().collect();
        assert_eq!(columns[0], emoji, "{line}");
        assert_eq!(columns[2], toolset, "{line}");
        assert_eq!(
            columns[3], included_in,
            "composites including it, in {line}"
        );
        assert_eq!(columns[4], "available", "{line}");
        assert!(line.contains("example_tools::"), "provenance in {line}");
    }
    assert!(!text.contains("warning:"), "{text}");
}

#[test]
fn definitions_of_clarify_is_one_valid_draft_2020_12_schema_with_parameter_docs() {
    let output = cli(&["definitions", "--toolsets", "clarify"]);
    assert!(output.status.success());
    let definitions: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let definitions = definitions.as_array().unwrap();
    assert_eq!(definitions.len(), 1);
    let function = &definitions[0]["function"];
    assert_eq!(definitions[0]["type"], "function");
    assert_eq!(function["name"], "clarify");
    let parameters = &function["parameters"];
    let meta = jsonschema::draft202012::meta::validate(parameters);
    assert!(meta.is_ok(), "not a Draft 2020-12 schema: {meta:?}");
    let properties = parameters["properties"].as_object().unwrap();
    assert_eq!(
        properties.keys().collect::<Vec<_>>(),
        ["question", "choices"]
    );
    for (name, property) in properties {
        let description = property["description"].as_str().unwrap_or_default();
        assert!(!description.is_empty(), "{name} has a description");
    }
    assert_eq!(properties["choices"]["maxItems"], 4);
    assert_eq!(parameters["required"], serde_json::json!(["question"]));
}

#[test]
fn call_read_file_with_a_string_limit_returns_the_first_three_lines() {
    let output = cli(&["call", "read_file", r#"{"path":"README.md","limit":"3"}"#]);
    assert!(output.status.success(), "{}", stdout(&output));
    let answer: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let expected: Vec<String> = readme
        .lines()
        .take(3)
        .enumerate()
        .map(|(i, line)| format!("{}|{line}", i + 1))
        .collect();
    assert_eq!(answer["content"], expected.join("\n"));
    assert_eq!(answer["truncated"], true);
}

#[test]
fn bad_input_gives_a_clear_error_and_a_failing_status() {
    let output = cli(&["call", "read_fil", "{}"]);
    assert_eq!(output.status.code(), Some(1));
    let answer: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(answer["suggestions"][0], "read_file");

    let output = cli(&["call", "read_file", "not json"]);
    assert_eq!(output.status.code(), Some(1));
    let answer: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert!(answer["error"].as_str().unwrap().contains("not valid JSON"));

    let output = cli(&["definitions", "--toolsets", "clarfy"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unknown toolset \"clarfy\""), "{stderr}");
    assert!(stderr.contains("did you mean clarify"), "{stderr}");
}
