//! MCP servers through the real CLI: `--config` naming PyPI `mcp-server-time` makes its tools
//! part of `list`, `call` and `definitions`, and a disabled server is never started.
//!
//! The server comes from `bash .ci/test`, which installs it pinned and exports `HERMES_PYTHON`;
//! without it these tests fail and say so.

mod common;

use common::{cli_with_config, stdout};

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const INSTALL: &str =
    "run `bash .ci/test` (it installs .ci/requirements.txt and exports HERMES_PYTHON)";

/// The virtualenv python with `mcp-server-time`, or a failure saying how to get it.
fn venv_python() -> PathBuf {
    let python = std::env::var_os("HERMES_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("HERMES_PYTHON is not set: {INSTALL}"));
    let probe = Command::new(&python)
        .args(["-c", "import mcp_server_time"])
        .output()
        .unwrap_or_else(|err| {
            panic!(
                "cannot run HERMES_PYTHON {}: {err}; {INSTALL}",
                python.display()
            )
        });
    assert!(
        probe.status.success(),
        "mcp-server-time is not installed for {}: {INSTALL}",
        python.display()
    );
    python
}

/// A TOML (basic) string: JSON's escapes are TOML's.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// A config whose server `time` records each start in `marker`, then runs mcp-server-time.
fn time_config(dir: &Path, extra: &str) -> PathBuf {
    let python = venv_python();
    let marker = dir.join("time-started");
    let script = format!(
        "echo started >> {} && exec {} -m mcp_server_time",
        quoted(&marker.display().to_string()),
        quoted(&python.display().to_string())
    );
    let config = format!(
        "[mcp_servers.time]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n{extra}",
        quoted(&script)
    );
    let path = dir.join("hermes.toml");
    std::fs::write(&path, config).unwrap();
    path
}

fn started(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("time-started"))
        .map(|text| text.lines().count())
        .unwrap_or(0)
}

fn tool_names(definitions: &str) -> Vec<String> {
    let definitions: Value = serde_json::from_str(definitions).unwrap();
    definitions
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn list_shows_the_servers_toolset_tools_and_state() {
    let dir = tempfile::tempdir().unwrap();
    let config = time_config(dir.path(), "");
    let output = cli_with_config(&config, &["list"]);
    assert!(output.status.success(), "{output:?}");
    let text = stdout(&output);
    for name in ["mcp__time__convert_time", "mcp__time__get_current_time"] {
        let line = text
            .lines()
            .find(|line| line.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("{name} listed in {text}"));
        let columns: Vec<_> = line.split_whitespace().collect();
        assert_eq!(columns[2], "mcp-time", "{line}");
        assert_eq!(columns[3], "-", "{line}");
        assert_eq!(columns[4], "available", "{line}");
        assert!(line.contains("mcp:time (sh -c "), "provenance in {line}");
    }
    assert!(
        text.ends_with("1 MCP servers\ntime (mcp-time): running, 2 tools\n"),
        "{text}"
    );
    assert_eq!(started(dir.path()), 1);
}

#[test]
fn call_answers_through_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let config = time_config(dir.path(), "");
    let output = cli_with_config(
        &config,
        &[
            "call",
            "mcp__time__get_current_time",
            r#"{"timezone":"UTC"}"#,
        ],
    );
    assert!(output.status.success(), "{output:?}");
    let answer: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(answer["result"]["timezone"], "UTC", "{answer}");
    assert!(
        answer["result"]["datetime"]
            .as_str()
            .unwrap()
            .ends_with("+00:00")
    );
}

#[test]
fn a_disabled_server_is_neither_listed_nor_started() {
    let dir = tempfile::tempdir().unwrap();
    let config = time_config(dir.path(), "");
    for disable in ["time", "mcp-time"] {
        let output = cli_with_config(&config, &["definitions", "--disable", disable]);
        assert!(output.status.success(), "{output:?}");
        let names = tool_names(&stdout(&output));
        assert!(names.iter().any(|name| name == "read_file"), "{names:?}");
        assert!(
            !names.iter().any(|name| name.starts_with("mcp__")),
            "{names:?}"
        );
    }
    let output = cli_with_config(&config, &["definitions", "--toolsets", "files"]);
    assert_eq!(
        tool_names(&stdout(&output)),
        ["read_file", "search_files", "write_file"]
    );
    assert_eq!(started(dir.path()), 0, "the server was started");

    // The control: enabled, it is started and described.
    let output = cli_with_config(&config, &["definitions", "--toolsets", "time"]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        tool_names(&stdout(&output)),
        ["mcp__time__convert_time", "mcp__time__get_current_time"]
    );
    assert_eq!(started(dir.path()), 1);
}

#[test]
fn a_server_that_cannot_start_is_reported_and_the_others_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let ghost = "[mcp_servers.ghost]\ncommand = \"/nonexistent/mcp-ghost\"\n";
    let config = time_config(dir.path(), ghost);
    let output = cli_with_config(&config, &["list"]);
    assert!(output.status.success(), "{output:?}");
    let text = stdout(&output);
    assert!(text.contains("mcp__time__get_current_time"), "{text}");
    assert!(
        text.contains(
            "ghost (mcp-ghost): failed: cannot start `/nonexistent/mcp-ghost`: No such file or directory"
        ),
        "{text}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("MCP server failed to start"), "{stderr}");
}
