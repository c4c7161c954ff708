//! The CLI end to end: the real `example-tools` binary, run as a subprocess from the workspace root.

mod common;

use common::{cli, cli_command, stdout};

use std::io::Write;
use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

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

/// The answer `example-tools call NAME ARGUMENTS` prints, as JSON.
fn answer_of_call(name: &str, arguments: &str) -> Value {
    let output = cli(&["call", name, arguments]);
    serde_json::from_str(&stdout(&output)).unwrap()
}

#[test]
fn call_with_null_or_the_string_null_or_empty_calls_with_no_arguments() {
    for arguments in ["null", r#""null""#, r#""""#] {
        let output = cli(&["call", "todo", arguments]);
        assert!(output.status.success(), "{arguments}: {}", stdout(&output));
        let answer: Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(answer["todos"], json!([]), "{arguments}: {answer}");
        assert_eq!(answer["summary"]["total"], 0, "{arguments}: {answer}");
        // A tool with a required parameter names it.
        let answer = answer_of_call("clarify", arguments);
        let error = answer["error"].as_str().unwrap();
        assert!(
            error.contains(r#"missing required argument "/question""#),
            "{arguments}: {error}"
        );
    }
}

#[test]
fn call_wraps_a_broken_json_array_string_only_where_a_string_item_fits() {
    // `choices` is a list of strings: "[bad" becomes ["[bad"] and the call reaches the tool,
    // which then refuses the blank question (its own check, after the arguments' judgement).
    let answer = answer_of_call("clarify", r#"{"question": " ", "choices": "[bad"}"#);
    assert_eq!(answer["error"], "[TOOL_ERROR] Question text is required.");
    // `todos` is a list of objects: "[bad" is no item of it, so the arguments are refused.
    let answer = answer_of_call("todo", r#"{"todos": "[bad"}"#);
    let error = answer["error"].as_str().unwrap();
    assert!(error.contains(r#"argument "/todos""#), "{error}");
    assert!(error.contains(r#"the string "[bad""#), "{error}");
}

#[test]
fn call_drops_schema_keywords_sent_as_arguments_and_says_so() {
    let arguments = r#"{"type": "object", "path": "README.md", "limit": 2,
        "required": ["path"], "properties": {"path": {"type": "string"}}}"#;
    let output = cli(&["call", "read_file", arguments]);
    assert!(output.status.success(), "{}", stdout(&output));
    let answer: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let first = readme.lines().next().unwrap();
    assert!(
        answer["content"]
            .as_str()
            .unwrap()
            .starts_with(&format!("1|{first}\n2|")),
        "{answer}"
    );
    assert_eq!(
        answer["notice"],
        r#"dropped schema keywords sent as arguments: "type", "required", "properties""#
    );
    // Any other unknown key is still refused, naming the parameters.
    let answer = answer_of_call(
        "read_file",
        r#"{"path": "README.md", "colour": 1, "type": "object"}"#,
    );
    let error = answer["error"].as_str().unwrap();
    assert!(
        error.contains(r#"Unknown argument "colour" for tool "read_file": it takes "path""#),
        "{error}"
    );
}

/// Runs `example-tools ARGS` in `dir`, with `input` written to its stdin.
fn cli_in(dir: &Path, args: &[&str], input: Vec<u8>) -> Output {
    let mut command = cli_command(args);
    command.current_dir(dir);
    common::run_fed(command, input)
}

/// 20 MB of text that is not one byte repeated, so a reordered or cut copy shows.
fn twenty_megabytes() -> String {
    let mut text = String::with_capacity(20_000_000);
    let mut line = 0_u64;
    while text.len() < 20_000_000 {
        text.push_str(&format!("{line:09} the quick brown fox\n"));
        line += 1;
    }
    text.truncate(20_000_000);
    text
}

/// Asserts that `write_file` answered having written `content` whole to `dir/big.txt`.
fn assert_written(output: &Output, dir: &Path, content: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let answer: Value = serde_json::from_str(&stdout(output)).unwrap();
    assert_eq!(answer["bytes_written"], 20_000_000, "{answer}");
    let written = std::fs::read_to_string(dir.join("big.txt")).unwrap();
    assert!(written == content, "the file holds what was sent");
}

#[test]
fn call_reads_20_mb_of_arguments_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let content = twenty_megabytes();
    let arguments = json!({"path": "big.txt", "content": content}).to_string();
    let output = cli_in(
        dir.path(),
        &["call", "write_file", "-"],
        arguments.into_bytes(),
    );
    assert_written(&output, dir.path(), &content);
}

#[test]
fn call_reads_20_mb_of_arguments_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let content = twenty_megabytes();
    let mut file = tempfile::NamedTempFile::new().unwrap();
    let arguments = json!({"path": "big.txt", "content": content}).to_string();
    file.write_all(arguments.as_bytes()).unwrap();
    let at_file = format!("@{}", file.path().display());
    let output = cli_in(dir.path(), &["call", "write_file", &at_file], Vec::new());
    assert_written(&output, dir.path(), &content);
}

#[test]
fn a_missing_arguments_file_is_named_with_a_failing_status() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-arguments.json");
    let output = cli(&["call", "read_file", &format!("@{}", missing.display())]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "cannot read the arguments from the file {:?}",
            missing.display().to_string()
        )),
        "{stderr}"
    );
    assert!(stdout(&output).is_empty(), "no call was made");
}

#[test]
fn arguments_from_stdin_leave_no_one_to_approve_a_call_unless_yes_is_passed() {
    let dir = tempfile::tempdir().unwrap();
    let arguments = br#"{"command": "echo approved"}"#.to_vec();
    let output = cli_in(dir.path(), &["call", "terminal", "-"], arguments.clone());
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("stdin carried the arguments"), "{stderr}");
    assert!(stderr.contains("Pass --yes"), "{stderr}");
    assert!(
        !stdout(&output).contains("approved\n"),
        "the command did not run"
    );

    let output = cli_in(dir.path(), &["call", "terminal", "-", "--yes"], arguments);
    assert!(output.status.success(), "{output:?}");
    let answer: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(answer["output"], "approved", "{answer}");
}

#[test]
fn lint_exits_0_with_delegate_task_strict_mode_acknowledged() {
    let output = cli(&["lint"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("no findings (1 acknowledged"), "{text}");
    let all = stdout(&cli(&["lint", "--all"]));
    let line = all
        .lines()
        .find(|line| line.contains("tool `delegate_task` [strict-mode]"))
        .unwrap_or_else(|| panic!("{all}"));
    assert!(line.starts_with("example-tools/src/delegate.rs:"), "{line}");
    assert!(
        line.contains("(acknowledged: each call's `arguments`"),
        "{line}"
    );
}

#[test]
fn serve_refuses_a_worker_count_it_cannot_use_and_serves_on_one_it_can() {
    // `serve`, and the agent loop this binary adds, build their runtime the same way.
    let agent = [
        "agent",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "hi",
    ];
    for args in [&["serve"][..], &agent[..]] {
        for bad in ["0", "", "two"] {
            let output = cli_command(args)
                .env("TOKIO_WORKER_THREADS", bad)
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(2), "{args:?} {bad:?}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains(&format!("TOKIO_WORKER_THREADS is {bad:?}"))
                    && stderr.contains("at least 1")
                    && !stderr.contains("panicked"),
                "{args:?} {bad:?}: {stderr}"
            );
        }
    }

    // On one worker thread, a stdio session is served and ends with its input.
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "cli-test", "version": "1"},
        },
    });
    let output = {
        let mut child = cli_command(&["serve"])
            .env("TOKIO_WORKER_THREADS", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{initialize}").unwrap();
        drop(stdin);
        child.wait_with_output().unwrap()
    };
    let answer: Value = serde_json::from_str(stdout(&output).lines().next().unwrap()).unwrap();
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(
        answer["result"]["serverInfo"]["name"].is_string(),
        "{answer}"
    );
    assert!(output.status.success(), "{:?}", output.status);
}
