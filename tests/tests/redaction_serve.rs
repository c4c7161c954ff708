//! Every credential of the catalogue, in every position a client reads, masked over a real
//! `serve` (stdio) and through `call` (issue 24): a tool's result and error, terminal output, a
//! file read, a prompt, a resource, an unknown tool's name and an unknown method, which the
//! server echoes in its error (message and `data`), cut short.
//!
//! The server is `redaction-server` (tests/src/bin), the CLI over the example tools and a
//! tool, prompt and resource that give back what they are handed.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use tempfile::TempDir;

#[path = "../../hermes-tools/src/secrets/tests/catalogue.rs"]
mod catalogue;

use catalogue::CATALOGUE;

const BINARY: &str = env!("CARGO_BIN_EXE_redaction-server");

/// A hang guard, far above what an answer takes (milliseconds) on a loaded machine.
const ANSWER_LIMIT: Duration = Duration::from_secs(120);

/// A workspace holding each row's sample as `secrets/ROW.txt`, and a config lifting the
/// terminal's approval (an operator of a disposable container would).
fn workspace() -> TempDir {
    let dir = TempDir::new().unwrap();
    std::fs::create_dir(dir.path().join("secrets")).unwrap();
    for (i, (_, sample, _)) in CATALOGUE.iter().enumerate() {
        std::fs::write(dir.path().join(format!("secrets/{i}.txt")), sample).unwrap();
    }
    std::fs::write(
        dir.path().join("config.toml"),
        "[tools.terminal]\napproval = false\n",
    )
    .unwrap();
    dir
}

fn command(dir: &Path) -> Command {
    let mut command = Command::new(BINARY);
    command
        .env("REDACTION_SERVER_WORKSPACE", dir)
        .env("HERMES_TOOLS_CONFIG", dir.join("config.toml"))
        .current_dir(dir);
    command
}

/// Every string of `value` (keys too), decoded, one a line: a secret may hide in either the
/// raw text or the decoded one.
fn strings(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(members) => members.iter().for_each(|(k, v)| {
            out.push_str(k);
            out.push('\n');
            strings(v, out);
        }),
        _ => {}
    }
}

/// `serve` over stdio, spoken to line by line.
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl Server {
    fn start(dir: &Path) -> Self {
        let mut child = command(dir)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("redaction-server starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Self {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let init = server.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "redaction-test", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its answer's raw line (notifications before it skipped).
    fn raw(&mut self, method: &str, params: Value) -> String {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(ANSWER_LIMIT)
                .unwrap_or_else(|_| panic!("no answer to {method} within {ANSWER_LIMIT:?}"));
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return line;
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        serde_json::from_str(&self.raw(method, params)).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The positions of one row over `serve`: (position, method, params).
fn serve_positions(row: usize, sample: &str) -> Vec<(&'static str, &'static str, Value)> {
    let call = |name: &str, arguments: Value| json!({"name": name, "arguments": arguments});
    vec![
        (
            "result",
            "tools/call",
            call("echo_text", json!({"text": sample})),
        ),
        (
            "error",
            "tools/call",
            call("fail_with", json!({"text": sample})),
        ),
        (
            "terminal",
            "tools/call",
            call(
                "terminal",
                json!({"command": format!("cat secrets/{row}.txt")}),
            ),
        ),
        (
            "read_file",
            "tools/call",
            call("read_file", json!({"path": format!("secrets/{row}.txt")})),
        ),
        (
            "prompt",
            "prompts/get",
            json!({"name": "echo_prompt", "arguments": {"text": sample}}),
        ),
        (
            "resource",
            "resources/read",
            json!({"uri": format!("redaction://sample/{row}")}),
        ),
        ("unknown tool", "tools/call", call(sample, json!({}))),
    ]
}

#[test]
fn no_credential_survives_any_position_over_serve() {
    let dir = workspace();
    let mut server = Server::start(dir.path());
    let mut leaked = Vec::new();
    for (row, (name, sample, secret)) in CATALOGUE.iter().enumerate() {
        let mut answers = Vec::new();
        for (position, method, params) in serve_positions(row, sample) {
            answers.push((position, server.raw(method, params)));
        }
        // A method no server has, named by the sample.
        answers.push(("unknown method", server.raw(sample, json!({}))));
        for (position, raw) in answers {
            let answer: Value = serde_json::from_str(&raw).unwrap();
            let mut text = raw.clone();
            strings(&answer, &mut text);
            if text.contains(secret) {
                leaked.push(format!("{name} ({position}): {raw}"));
            }
        }
    }
    assert!(leaked.is_empty(), "leaked:\n{}", leaked.join("\n"));
}

#[test]
fn the_positions_answer_what_they_should() {
    // The test above would pass on a server that answered nothing; this one says each position
    // really carried the sample (its harmless parts) or the error it should.
    let dir = workspace();
    let mut server = Server::start(dir.path());
    let row = CATALOGUE
        .iter()
        .position(|(name, _, _)| *name == "GitHub classic token")
        .unwrap();
    let (_, sample, secret) = CATALOGUE[row];
    for (position, method, params) in serve_positions(row, sample) {
        let answer = server.request(method, params);
        let mut text = String::new();
        strings(&answer, &mut text);
        let masked = "ghp_Q5...aUNT";
        match position {
            "unknown tool" => {
                assert_eq!(answer["error"]["code"], -32602, "{answer}");
                assert!(
                    answer["error"]["data"]["tool"]
                        .as_str()
                        .unwrap()
                        .contains(masked)
                );
            }
            _ => assert!(
                text.contains("remote:") && text.contains(masked),
                "{position}: {answer}"
            ),
        }
        assert!(!text.contains(secret), "{position}: {answer}");
    }
    let unknown = server.request(sample, json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    assert_eq!(unknown["error"]["data"]["method"], "remote: ghp_Q5...aUNT");
}

#[test]
fn a_long_unknown_name_is_echoed_cut_short() {
    let dir = workspace();
    let mut server = Server::start(dir.path());
    let name = format!(
        "sk-proj-Zx81QmW0pLr5TvYb3NcK7sDfGh2JkL4n{}",
        "x".repeat(200_000)
    );
    for (method, params, field) in [
        ("tools/call", json!({"name": name, "arguments": {}}), "tool"),
        (name.as_str(), json!({}), "method"),
    ] {
        let raw = server.raw(method, params);
        assert!(raw.len() < 2_000, "{} bytes echoed", raw.len());
        let answer: Value = serde_json::from_str(&raw).unwrap();
        let echoed = answer["error"]["data"][field].as_str().unwrap();
        assert!(echoed.ends_with("… (200040 characters)"), "{echoed}");
        assert!(!raw.contains("Zx81QmW0pLr5"), "{raw}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains(echoed),
            "{raw}"
        );
    }
}

#[test]
fn no_credential_survives_a_call_through_the_cli() {
    let dir = workspace();
    let mut leaked = Vec::new();
    for (row, (name, sample, secret)) in CATALOGUE.iter().enumerate() {
        for (position, tool, arguments) in [
            ("result", "echo_text", json!({"text": sample})),
            ("error", "fail_with", json!({"text": sample})),
            (
                "terminal",
                "terminal",
                json!({"command": format!("cat secrets/{row}.txt")}),
            ),
        ] {
            let output = command(dir.path())
                .args(["call", tool, &arguments.to_string(), "--yes"])
                .stdin(Stdio::null())
                .output()
                .expect("redaction-server call runs");
            let stdout = String::from_utf8_lossy(&output.stdout);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(!stdout.is_empty(), "{tool} answered nothing: {stderr}");
            let mut text = format!("{stdout}\n{stderr}\n");
            if let Ok(answer) = serde_json::from_str::<Value>(&stdout) {
                strings(&answer, &mut text);
            }
            if text.contains(secret) {
                leaked.push(format!("{name} ({position}): {stdout} {stderr}"));
            }
        }
    }
    assert!(leaked.is_empty(), "leaked:\n{}", leaked.join("\n"));
}
