//! `example-tools serve`: the real binary as an MCP server, driven by the official Python SDK
//! (PyPI `mcp`, pinned in `.ci/requirements.txt`) through `tests/interop/python_client.py`.
//!
//! The Python tests need `HERMES_PYTHON`, which `bash .ci/test` sets after installing the
//! pinned packages; without it they fail and say so.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{drain, wait};

/// The workspace root, where the server runs (its file tools are confined there).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("the workspace root exists")
}

fn python() -> PathBuf {
    let Some(python) = std::env::var_os("HERMES_PYTHON") else {
        panic!(
            "HERMES_PYTHON is not set: this test drives the server with the official Python MCP \
             SDK. Run `bash .ci/test`, which installs the pinned .ci/requirements.txt into a \
             virtualenv under target/ and sets HERMES_PYTHON to its python."
        );
    };
    let python = PathBuf::from(python);
    assert!(
        python.exists(),
        "HERMES_PYTHON={} does not exist; run `bash .ci/test` to install it",
        python.display()
    );
    python
}

/// Runs one scenario of the Python client against `example-tools serve`; returns its stdout.
fn python_scenario(scenario: &str) -> String {
    let root = root();
    let mut child = Command::new(python())
        .arg(root.join("tests/interop/python_client.py"))
        .arg(scenario)
        .arg(&root)
        .arg(env!("CARGO_BIN_EXE_example-tools"))
        .arg("serve")
        .current_dir(&root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the Python client starts");
    let (stdout, stderr) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let status = wait(&mut child, Duration::from_secs(60));
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    match status {
        Some(status) if status.success() => stdout,
        Some(status) => panic!("{scenario} failed ({status}):\n{stdout}\n{stderr}"),
        None => panic!("{scenario} did not finish within 60 s:\n{stdout}\n{stderr}"),
    }
}

#[test]
#[ignore = "needs the Python MCP SDK that `bash .ci/test` installs"]
fn python_client_session_lists_reads_and_sees_errors_over_stdio() {
    let out = python_scenario("stdio-session");
    assert!(
        out.contains("ok: initialized, protocol 2025-11-25, server hermes-tools"),
        "{out}"
    );
    assert!(
        out.contains("ok: read_file README.md -> '1|# hermes-tools'"),
        "{out}"
    );
    assert!(out.contains("ok: a failing call is isError"), "{out}");
}

#[test]
#[ignore = "needs the Python MCP SDK that `bash .ci/test` installs"]
fn python_client_that_probes_server_discover_first_connects_over_stdio() {
    let out = python_scenario("stdio-auto");
    assert!(out.contains("ok: connected after server/discover"), "{out}");
    assert!(out.contains("ok: a failing call is isError"), "{out}");
}

#[test]
#[ignore = "needs the Python MCP SDK that `bash .ci/test` installs"]
fn served_again_mcp_tools_keep_their_annotations_and_output_schema() {
    let out = python_scenario("reserved-time");
    assert!(
        out.contains("get_current_time keeps readOnlyHint and its outputSchema"),
        "{out}"
    );
    assert!(
        out.contains(
            "ok: a call answers structuredContent that matches: \
             ['datetime', 'day_of_week', 'is_dst', 'timezone']"
        ),
        "{out}"
    );
}

#[test]
fn serve_http_refuses_a_non_loopback_address() {
    let output = Command::new(env!("CARGO_BIN_EXE_example-tools"))
        .args(["serve", "--http", "0.0.0.0:8080"])
        .current_dir(root())
        .output()
        .expect("the example-tools binary runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("refusing to serve MCP on 0.0.0.0:8080"),
        "{stderr}"
    );
    assert!(stderr.contains("loopback"), "{stderr}");
}

#[test]
fn serve_http_prints_the_bound_endpoint() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_example-tools"))
        .args(["serve", "--http", "127.0.0.1:0"])
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example-tools binary runs");
    let mut stderr = child.stderr.take().expect("piped");
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    // Reads the first line only: the server keeps running until killed.
    while stderr.read(&mut byte).map(|n| n == 1).unwrap_or(false) && byte[0] != b'\n' {
        seen.push(byte[0]);
    }
    let _ = child.kill();
    let _ = child.wait();
    let line = String::from_utf8_lossy(&seen);
    let url = line
        .strip_prefix("listening on http://127.0.0.1:")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"));
    let port = url.strip_suffix("/mcp").expect("the endpoint is /mcp");
    assert!(port.parse::<u16>().is_ok_and(|port| port > 0), "{line}");
}

/// `serve --http` started on a terminal (a pseudo-terminal made by util-linux `script`): a
/// remote client's `clarify` is never asked on that terminal, and is answered at once.
#[test]
fn a_remote_callers_question_never_reaches_the_serving_terminal() {
    use std::io::{BufRead, BufReader, Write};
    let command = format!(
        "exec {} serve --http 127.0.0.1:0",
        env!("CARGO_BIN_EXE_example-tools")
    );
    let mut child = Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("util-linux `script` runs (it makes the terminal)");
    let stdout = child.stdout.take().expect("piped");
    let (sender, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let mut url = None;
    while url.is_none() {
        let line = lines
            .recv_timeout(Duration::from_secs(30))
            .expect("the server prints its endpoint on its terminal");
        url = line.trim().strip_prefix("listening on ").map(str::to_owned);
    }
    let url = url.unwrap_or_default();
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .expect("an http URL")
        .to_owned();
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "remote", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
            "name": "clarify",
            "arguments": {"question": "Where should I deploy?"},
        },
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: clarify\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = std::net::TcpStream::connect(&authority).expect("the server listens");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a timeout");
    stream.write_all(request.as_bytes()).expect("sent");
    let mut answer = String::new();
    // Answered within the timeout (a question put to the terminal would hang here).
    let _ = stream.read_to_string(&mut answer);
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        answer.contains("Clarify tool is not available in this execution context"),
        "{answer}"
    );
    let printed: Vec<String> = lines.try_iter().collect();
    assert!(
        !printed
            .iter()
            .any(|line| line.contains("Where should I deploy")),
        "the question reached the serving terminal: {printed:?}"
    );
}
