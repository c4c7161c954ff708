//! Our MCP client following tasks (`io.modelcontextprotocol/tasks`) in the 2026-07-28 era,
//! against `serve --http` (`conformance-server`, fixtures `slow_steps` and `greet_in_task`):
//! a long call the server turns into a task is polled to its result with its progress
//! reaching the caller; a task's question is answered through the agent's asker and sent with
//! `tasks/update`; a call given up on cancels its task at the server (seen there by rmcp's
//! own client).

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hermes_tools::ToolContext;
use rmcp::model::{
    ClientCapabilities, ClientConfig, GetTaskParams, Implementation, ProtocolVersion, TaskStatus,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use support::{Answering, HttpServer, SERVER, modern_client, recording_progress};

#[tokio::test(flavor = "multi_thread")]
async fn a_long_call_run_as_a_task_is_followed_to_its_result_with_its_progress() {
    // `--task-after-secs 0`: every call of a client that declared tasks becomes one.
    let server = HttpServer::start_with(SERVER, &["--task-after-secs", "0"]);
    let (registry, clients) = modern_client("conf", &server.url, Arc::default(), 60).await;
    let (ctx, reports) = recording_progress();
    let answer = registry
        .call(
            "mcp__conf__slow_steps",
            r#"{"steps": 4, "step_ms": 400}"#,
            &ctx,
        )
        .await;
    assert!(!answer.is_error(), "{answer}");
    assert!(answer.as_str().contains("finished 4 steps"), "{answer}");
    let reports = reports.lock().unwrap().clone();
    assert!(
        reports
            .first()
            .is_some_and(|first| first.starts_with("the server runs this call as task ")),
        "{reports:?}"
    );
    let steps = reports.iter().filter(|r| r.starts_with("step ")).count();
    assert!(steps >= 2, "the steps reached the caller: {reports:?}");
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tasks_question_is_answered_through_the_asker() {
    let server = HttpServer::start();
    let asker = Arc::new(Answering::default());
    let (registry, clients) = modern_client("conf", &server.url, Arc::clone(&asker), 60).await;
    let answer = registry
        .call("mcp__conf__greet_in_task", "{}", &ToolContext::new())
        .await;
    assert!(!answer.is_error(), "{answer}");
    assert!(answer.as_str().contains("Hello, Ada!"), "{answer}");
    assert_eq!(
        asker.questions.lock().unwrap().as_slice(),
        ["Please enter your name."],
        "asked once, through the asker"
    );
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_given_up_on_cancels_its_task_at_the_server() {
    let server = HttpServer::start_with(SERVER, &["--task-after-secs", "0"]);
    let (registry, clients) = modern_client("conf", &server.url, Arc::default(), 60).await;
    let ids = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&ids);
    let ctx = ToolContext::new().with_progress(move |p| {
        if let Some(id) = p
            .message
            .as_deref()
            .and_then(|m| m.strip_prefix("the server runs this call as task "))
        {
            sink.lock().unwrap().push(id.to_owned());
        }
    });
    // 50 steps of 200 ms; the caller gives up after 1.5 s.
    let call = registry.call(
        "mcp__conf__slow_steps",
        r#"{"steps": 50, "step_ms": 200}"#,
        &ctx,
    );
    let gave_up = tokio::time::timeout(Duration::from_millis(1_500), call).await;
    assert!(gave_up.is_err(), "the call was still running");
    let id = ids
        .lock()
        .unwrap()
        .first()
        .cloned()
        .expect("the task was named");

    // rmcp's own client, asking the server about that task.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let capabilities: ClientCapabilities =
        serde_json::from_value(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
            .unwrap();
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let observer = ClientConfig::new(capabilities, Implementation::new("observer", "0"))
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(server.url.clone()),
            lifecycle,
        )
        .await
        .expect("rmcp's client discovers the server");
    let mut status = TaskStatus::Working;
    for _ in 0..50 {
        let got = observer
            .get_task(GetTaskParams::new(id.clone()))
            .await
            .unwrap();
        status = got.task.status();
        if status == TaskStatus::Cancelled {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, TaskStatus::Cancelled, "task {id}");
    clients.shutdown().await;
}
