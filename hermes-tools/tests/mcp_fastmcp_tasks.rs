//! The MCP client following FastMCP 4's background tasks (`io.modelcontextprotocol/tasks`,
//! its `fastmcp-tasks` package) in the 2026-07-28 era over Streamable HTTP, against
//! `servers/fastmcp_tasks_server.py`: a plain call stays a plain call; a task is polled to its
//! result with its progress reaching the caller; a call given up on cancels its task, whose
//! run FastMCP then cancels (seen through the server's `seen_cancels`).
//!
//! FastMCP and its tasks package come from `bash .ci/test` (HERMES_PYTHON).
#![cfg(feature = "mcp-remote")]

#[path = "servers/fake.rs"]
mod fake;
#[path = "servers/third_party.rs"]
mod third_party;

use std::sync::Arc;
use std::time::Duration;

use hermes_tools::config::{Config, McpProtocol, McpServerConfig};
use hermes_tools::mcp::client::{McpClients, ServerState};
use hermes_tools::{ToolContext, ToolRegistry, toolsets::Selection};
use parking_lot::Mutex;
use serde_json::Value;
use third_party::Remote;

/// The task id our client reports first, as progress.
const TASK_PREFIX: &str = "the server runs this call as task ";

/// Our client of `remote` in the modern era; the registry holding its tools.
async fn started(remote: &Remote) -> (ToolRegistry, McpClients) {
    let mut server = McpServerConfig::http(remote.url());
    server.protocol = McpProtocol::Modern;
    server.connect_timeout_secs = 60;
    server.call_timeout_secs = 60;
    let registry = ToolRegistry::new();
    // Answers unredacted: a task id (43 characters of base64url, random) now and then looks
    // like a secret and is masked, and these tests find the ids in FastMCP's answers.
    registry.set_config(Config {
        redact_answers: false,
        ..Config::default()
    });
    let config = fake::config([("s", server)]);
    let clients = McpClients::start(&registry, &config, &Selection::default()).await;
    let status = clients.status("s").unwrap();
    assert!(
        matches!(status.state, ServerState::Running { .. }),
        "{status}"
    );
    (registry, clients)
}

/// A context recording every progress message the call reports.
fn recording() -> (ToolContext, Arc<Mutex<Vec<String>>>) {
    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&reports);
    let ctx = ToolContext::new().with_progress(move |p| {
        sink.lock().push(p.message.clone().unwrap_or_default());
    });
    (ctx, reports)
}

/// The text of a tool's answer (the registry's `{"result": TEXT}`).
fn text_of(answer: &hermes_tools::ToolAnswer) -> String {
    let answer: Value = serde_json::from_str(answer.as_str()).expect("a JSON answer");
    answer["result"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs FastMCP and fastmcp-tasks from PyPI that `bash .ci/test` installs"]
async fn a_plain_call_to_a_fastmcp_server_with_tasks_stays_plain() {
    let remote = Remote::fastmcp_tasks();
    let (registry, clients) = started(&remote).await;
    let (ctx, reports) = recording();
    let sum = registry
        .call("mcp__s__add", r#"{"a": 1, "b": 2}"#, &ctx)
        .await;
    assert!(!sum.is_error(), "{sum}");
    assert_eq!(text_of(&sum), "3");
    assert!(reports.lock().is_empty(), "no task: {:?}", reports.lock());
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs FastMCP and fastmcp-tasks from PyPI that `bash .ci/test` installs"]
async fn a_fastmcp_task_is_polled_to_its_result_with_its_progress() {
    let remote = Remote::fastmcp_tasks();
    let (registry, clients) = started(&remote).await;
    let (ctx, reports) = recording();
    let answer = registry
        .call(
            "mcp__s__slow_steps",
            r#"{"steps": 6, "step_ms": 400}"#,
            &ctx,
        )
        .await;
    assert!(!answer.is_error(), "{answer}");
    assert_eq!(text_of(&answer), "finished 6 steps");
    let reports = reports.lock().clone();
    assert!(
        reports.first().is_some_and(|r| r.starts_with(TASK_PREFIX)),
        "{reports:?}"
    );
    let steps: Vec<&String> = reports.iter().filter(|r| r.starts_with("step ")).collect();
    assert!(
        steps.len() >= 2,
        "the steps reached the caller: {reports:?}"
    );
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs FastMCP and fastmcp-tasks from PyPI that `bash .ci/test` installs"]
async fn a_call_given_up_on_cancels_its_fastmcp_task() {
    let remote = Remote::fastmcp_tasks();
    let (registry, clients) = started(&remote).await;
    let (ctx, reports) = recording();
    // 100 steps of 200 ms; the caller gives up after 3 s.
    let call = registry.call(
        "mcp__s__slow_steps",
        r#"{"steps": 100, "step_ms": 200}"#,
        &ctx,
    );
    let gave_up = tokio::time::timeout(Duration::from_secs(3), call).await;
    assert!(gave_up.is_err(), "the call was still running");
    let id = {
        let reports = reports.lock();
        reports
            .iter()
            .find_map(|r| r.strip_prefix(TASK_PREFIX))
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("the task was named: {reports:?}"))
    };
    let mut seen = String::new();
    for _ in 0..100 {
        let answer = registry
            .call("mcp__s__seen_cancels", "{}", &ToolContext::new())
            .await;
        assert!(!answer.is_error(), "{answer}");
        seen = text_of(&answer);
        if seen.contains(&id) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        seen.contains(&id),
        "FastMCP cancelled task {id}'s run: {seen}"
    );
    clients.shutdown().await;
}
