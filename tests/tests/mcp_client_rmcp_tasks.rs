//! Our MCP client following tasks (`io.modelcontextprotocol/tasks`) in the 2026-07-28 era
//! against rmcp 3.11's own task support (`rmcp-task-server`: rmcp's `TaskManager` behind its
//! Streamable HTTP service): a task's progress and result reach the caller; a question asked
//! inside a task is answered through the agent's asker (`tasks/update`); a call dropped, or
//! past `call_timeout_secs`, cancels its task at the server, seen there (`seen_cancels`).

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hermes_tools::{ToolContext, ToolRegistry};
use support::{Answering, HttpServer, modern_client, recording_progress};

/// rmcp's task server.
const RMCP_TASKS: &str = env!("CARGO_BIN_EXE_rmcp-task-server");

/// The task id our client reports first, as progress.
const TASK_PREFIX: &str = "the server runs this call as task ";

/// The text of a tool's answer (the registry's `{"result": TEXT}`).
fn text_of(answer: &str) -> String {
    let answer: serde_json::Value = serde_json::from_str(answer).expect("a JSON answer");
    answer["result"].as_str().unwrap_or_default().to_owned()
}

/// The task id among `reports`.
fn task_id(reports: &Mutex<Vec<String>>) -> String {
    let reports = reports.lock().unwrap();
    reports
        .iter()
        .find_map(|r| r.strip_prefix(TASK_PREFIX))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("the task was named: {reports:?}"))
}

/// Waits (up to 10 s) until the server says the work of task `id` stopped at a cancel.
async fn assert_cancel_seen(registry: &ToolRegistry, id: &str) {
    let mut seen = String::new();
    for _ in 0..100 {
        let answer = registry
            .call("mcp__rmcp__seen_cancels", "{}", &ToolContext::new())
            .await;
        assert!(!answer.is_error(), "{answer}");
        seen = answer.as_str().to_owned();
        if seen.contains(id) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the server never saw task {id} cancelled; it saw {seen}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_rmcp_task_is_followed_to_its_result_with_its_progress() {
    let server = HttpServer::start_with(RMCP_TASKS, &[]);
    let (registry, clients) = modern_client("rmcp", &server.url, Arc::default(), 60).await;
    let (ctx, reports) = recording_progress();
    let answer = registry
        .call(
            "mcp__rmcp__slow_steps",
            r#"{"steps": 4, "step_ms": 400}"#,
            &ctx,
        )
        .await;
    assert!(!answer.is_error(), "{answer}");
    assert_eq!(text_of(answer.as_str()), "finished 4 steps");
    let reports = reports.lock().unwrap().clone();
    assert!(
        reports.first().is_some_and(|r| r.starts_with(TASK_PREFIX)),
        "{reports:?}"
    );
    let steps: Vec<&String> = reports.iter().filter(|r| r.starts_with("step ")).collect();
    assert!(
        steps.len() >= 2,
        "the steps reached the caller: {reports:?}"
    );
    let mut sorted = steps.clone();
    sorted.sort();
    assert_eq!(steps, sorted, "in order, each once: {reports:?}");
    sorted.dedup();
    assert_eq!(steps.len(), sorted.len(), "each once: {reports:?}");
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_rmcp_tasks_question_is_answered_through_the_asker() {
    let server = HttpServer::start_with(RMCP_TASKS, &[]);
    let asker = Arc::new(Answering::default());
    let (registry, clients) = modern_client("rmcp", &server.url, Arc::clone(&asker), 60).await;
    let (ctx, reports) = recording_progress();
    let answer = registry.call("mcp__rmcp__greet_in_task", "{}", &ctx).await;
    assert!(!answer.is_error(), "{answer}");
    assert_eq!(text_of(answer.as_str()), "Hello, Ada!");
    assert_eq!(
        asker.questions.lock().unwrap().as_slice(),
        ["What is your name?"],
        "asked once, through the asker"
    );
    task_id(&reports);
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dropped_call_cancels_its_rmcp_task() {
    let server = HttpServer::start_with(RMCP_TASKS, &[]);
    let (registry, clients) = modern_client("rmcp", &server.url, Arc::default(), 60).await;
    let (ctx, reports) = recording_progress();
    // 100 steps of 200 ms; the caller gives up after 1.5 s.
    let call = registry.call(
        "mcp__rmcp__slow_steps",
        r#"{"steps": 100, "step_ms": 200}"#,
        &ctx,
    );
    let gave_up = tokio::time::timeout(Duration::from_millis(1_500), call).await;
    assert!(gave_up.is_err(), "the call was still running");
    assert_cancel_seen(&registry, &task_id(&reports)).await;
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_past_its_timeout_cancels_its_rmcp_task() {
    let server = HttpServer::start_with(RMCP_TASKS, &[]);
    let (registry, clients) = modern_client("rmcp", &server.url, Arc::default(), 1).await;
    let (ctx, reports) = recording_progress();
    // 100 steps of 200 ms: far past the call's 1 s.
    let answer = registry
        .call(
            "mcp__rmcp__slow_steps",
            r#"{"steps": 100, "step_ms": 200}"#,
            &ctx,
        )
        .await;
    assert!(answer.is_error(), "{answer}");
    assert!(
        answer.as_str().contains("did not answer within 1 s"),
        "{answer}"
    );
    assert_cancel_seen(&registry, &task_id(&reports)).await;
    clients.shutdown().await;
}
