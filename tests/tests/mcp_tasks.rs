//! Tasks (`io.modelcontextprotocol/tasks`) served by `serve --http`, driven by rmcp 3.11's own
//! client in the 2026-07-28 era (`server/discover`, per-request capabilities declaring the
//! extension): a long call becomes a task polled to completion with its progress visible; a
//! question inside a task is answered with `tasks/update`; a cancelled task's processes are
//! gone; a task outlives its client and is fetched over a new connection; an expired or
//! unknown task id is -32602 naming it; a tool that panics fails its task, and a task-only
//! tool refuses a client without the extension (-32021). The servers are `conformance-server`
//! (fixtures `slow_steps`, `greet_in_task`, `protocol_error_job`, `failing_job`,
//! `test_tool_with_task`, which asks through a Multi Round-Trip Request before it becomes a
//! task) and `example-server` (`terminal`), run as a user would.
//!
//! (FastMCP 4.1.6's `Client` speaks the tasks extension once its `fastmcp-tasks` package is
//! imported (declaring it, polling `tasks/get`, answering with `tasks/update`); these tests
//! drive `serve` with rmcp's client. The Python SDK 2.3.0's client has no tasks of its own.)

mod support;

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, GetTaskResult, Implementation, ProtocolVersion, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};
use support::{EXAMPLE_SERVER, HttpServer, SERVER};

type Client = RunningService<RoleClient, ClientConfig>;

/// A 2026-07-28 client of `url` (rmcp's, `server/discover` first) declaring form elicitation,
/// and the tasks extension when `tasks`.
async fn connect(url: &str, tasks: bool) -> Client {
    // reqwest is built without a TLS provider of its own; rmcp's client needs one installed.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut capabilities = json!({"elicitation": {"form": {}}});
    if tasks {
        capabilities["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    }
    let capabilities: ClientCapabilities =
        serde_json::from_value(capabilities).expect("capabilities");
    let info = ClientConfig::new(capabilities, Implementation::new("tasks-test", "0"));
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    info.serve_with_lifecycle(StreamableHttpClientTransport::from_uri(url), lifecycle)
        .await
        .expect("the client discovers the server")
}

/// `tools/call` of `name` with `arguments`, one request (no rounds driven).
async fn call(client: &Client, name: &'static str, arguments: Value) -> CallToolResponse {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    client
        .call_tool_once(CallToolRequestParams::new(name).with_arguments(arguments))
        .await
        .expect("tools/call answers")
}

/// The id of the task `response` is; panics on any other answer.
fn task_id(response: &CallToolResponse) -> String {
    match response {
        CallToolResponse::Task(created) => {
            assert_eq!(created.task.status, TaskStatus::Working, "{created:?}");
            created.task.task_id.clone()
        }
        other => panic!("expected a task, got {other:?}"),
    }
}

async fn get(client: &Client, id: &str) -> GetTaskResult {
    client
        .get_task(GetTaskParams::new(id))
        .await
        .expect("tasks/get answers")
}

/// Polls task `id` until `done` holds of it (at most `limit`), returning every state seen.
async fn poll_until(
    client: &Client,
    id: &str,
    limit: Duration,
    done: impl Fn(&Value) -> bool,
) -> Vec<Value> {
    let start = Instant::now();
    let mut seen = Vec::new();
    loop {
        let state = serde_json::to_value(get(client, id).await).expect("serialisable");
        let finished = done(&state);
        seen.push(state);
        if finished {
            return seen;
        }
        assert!(
            start.elapsed() < limit,
            "task {id} not there within {limit:?}: {seen:#?}"
        );
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

/// What a `CallToolResult` (as JSON) of a tool returning a string says: its text, the
/// `{"result": ...}` object of a structured answer.
fn text(result: &Value) -> String {
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    let parsed: Value = serde_json::from_str(text).unwrap_or_default();
    parsed["result"].as_str().unwrap_or(text).to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_call_becomes_a_task_polled_to_completion_with_its_progress() {
    let server = HttpServer::start_with(SERVER, &["--task-after-secs", "1"]);
    let client = connect(&server.url, true).await;

    // A call shorter than the threshold answers as always.
    let quick = call(&client, "slow_steps", json!({"steps": 1, "step_ms": 10})).await;
    let CallToolResponse::Complete(result) = quick else {
        panic!("a quick call is not a task: {quick:?}")
    };
    assert_eq!(
        text(&serde_json::to_value(result).unwrap()),
        "finished 1 steps"
    );

    // 6 steps of 1.5 s: a task after 1 s, then polled. The handle comes at the threshold,
    // not at the end (9 s): a wide bound between them.
    let started = Instant::now();
    let response = call(&client, "slow_steps", json!({"steps": 6, "step_ms": 1500})).await;
    let answered = started.elapsed();
    let id = task_id(&response);
    assert!(
        answered < Duration::from_secs(6),
        "the task handle comes at the threshold, not at the end: {answered:?}"
    );
    assert!(id.len() >= 32, "an unguessable id: {id}");
    let seen = poll_until(&client, &id, Duration::from_secs(90), |state| {
        state["status"] == "completed"
    })
    .await;
    let progress: Vec<&str> = seen
        .iter()
        .filter(|state| state["status"] == "working")
        .filter_map(|state| state["statusMessage"].as_str())
        .collect();
    let distinct: std::collections::BTreeSet<_> = progress.iter().collect();
    assert!(
        distinct.len() >= 2 && distinct.iter().all(|m| m.starts_with("step ")),
        "progress shows while the task works: {progress:?}"
    );
    let last = seen.last().unwrap();
    assert_eq!(last["resultType"], "complete");
    assert_eq!(text(&last["result"]), "finished 6 steps");
    assert_eq!(last["taskId"], id.as_str());

    // A client that did not declare the extension waits for the result itself.
    let plain = connect(&server.url, false).await;
    let waited = call(&plain, "slow_steps", json!({"steps": 3, "step_ms": 400})).await;
    assert!(
        matches!(waited, CallToolResponse::Complete(_)),
        "no task for a client without the extension: {waited:?}"
    );
    let refused = plain.get_task(GetTaskParams::new(&id)).await;
    assert!(
        format!("{refused:?}").contains("-32021"),
        "tasks/get needs the declared extension: {refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_that_panics_fails_its_task_and_a_task_only_tool_needs_the_extension() {
    let server = HttpServer::start();
    let client = connect(&server.url, true).await;

    // A panic is no failure the tool reported: the task is `failed` with an internal error
    // naming the panic, not `completed` with `isError`.
    let id = task_id(&call(&client, "protocol_error_job", json!({})).await);
    let seen = poll_until(&client, &id, Duration::from_secs(10), |state| {
        state["status"] != "working"
    })
    .await;
    let last = seen.last().unwrap();
    assert_eq!(last["status"], "failed", "{last:#}");
    assert_eq!(last["error"]["code"], -32603, "{last:#}");
    let message = last["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("breaks on purpose"), "{last:#}");
    assert!(
        last.get("result").is_none(),
        "a failed task has no result: {last:#}"
    );

    // A failure the tool reports is a completed task whose result is an error.
    let id = task_id(&call(&client, "failing_job", json!({})).await);
    let seen = poll_until(&client, &id, Duration::from_secs(10), |state| {
        state["status"] != "working"
    })
    .await;
    let last = seen.last().unwrap();
    assert_eq!(last["status"], "completed", "{last:#}");
    assert_eq!(last["result"]["isError"], true, "{last:#}");

    // `failing_job` is task-only: a client without the extension is told to declare it.
    let plain = connect(&server.url, false).await;
    let Value::Object(arguments) = json!({}) else {
        unreachable!()
    };
    let refused = plain
        .call_tool_once(CallToolRequestParams::new("failing_job").with_arguments(arguments))
        .await;
    let refused = format!("{refused:?}");
    assert!(
        refused.contains("-32021") && refused.contains("io.modelcontextprotocol/tasks"),
        "a task-only tool refuses a client without the extension: {refused}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_inside_a_task_is_answered_with_tasks_update() {
    let server = HttpServer::start();
    let client = connect(&server.url, true).await;
    // `greet_in_task` is declared `#[tool(task)]`: a task at once, even under the threshold.
    let id = task_id(&call(&client, "greet_in_task", json!({})).await);
    let seen = poll_until(&client, &id, Duration::from_secs(10), |state| {
        state["status"] == "input_required"
    })
    .await;
    let requests = seen.last().unwrap()["inputRequests"]
        .as_object()
        .expect("inputRequests")
        .clone();
    assert_eq!(requests.len(), 1, "{requests:?}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create", "{request}");
    assert_eq!(request["params"]["message"], "Please enter your name.");

    let answer = json!({"action": "accept", "content": {"name": "Luca"}});
    let responses = [(key.clone(), answer), ("never-asked".into(), json!({}))]
        .into_iter()
        .collect();
    client
        .update_task(UpdateTaskParams::new(&id, responses))
        .await
        .expect("tasks/update is acknowledged (an unknown key is ignored)");
    let seen = poll_until(&client, &id, Duration::from_secs(10), |state| {
        state["status"] == "completed"
    })
    .await;
    assert_eq!(text(&seen.last().unwrap()["result"]), "Hello, Luca!");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_outlives_its_client_and_is_fetched_over_a_new_connection() {
    let server = HttpServer::start_with(SERVER, &["--task-after-secs", "0"]);
    let first = connect(&server.url, true).await;
    let id = task_id(&call(&first, "slow_steps", json!({"steps": 4, "step_ms": 300})).await);
    first.cancel().await.expect("the first client goes away");

    let second = connect(&server.url, true).await;
    let seen = poll_until(&second, &id, Duration::from_secs(15), |state| {
        state["status"] == "completed"
    })
    .await;
    assert_eq!(text(&seen.last().unwrap()["result"]), "finished 4 steps");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_or_unknown_task_is_invalid_params_naming_it() {
    let server =
        HttpServer::start_with(SERVER, &["--task-after-secs", "0", "--task-ttl-secs", "1"]);
    let client = connect(&server.url, true).await;
    let id = task_id(&call(&client, "slow_steps", json!({"steps": 1, "step_ms": 10})).await);
    let seen = poll_until(&client, &id, Duration::from_secs(5), |state| {
        state["status"] == "completed"
    })
    .await;
    assert_eq!(seen.last().unwrap()["ttlMs"], 1000);
    tokio::time::sleep(Duration::from_millis(1300)).await;
    for id in [id.as_str(), "0123456789abcdef0123456789abcdef"] {
        let gone = client.get_task(GetTaskParams::new(id)).await;
        let message = format!("{gone:?}");
        assert!(
            message.contains("-32602") && message.contains(id),
            "an expired or unknown task is -32602 naming it: {message}"
        );
        let cancel = client.cancel_task(CancelTaskParams::new(id)).await;
        assert!(format!("{cancel:?}").contains("-32602"), "{cancel:?}");
    }
}

/// The pids of processes whose command line contains `needle`.
fn pids_running(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(needle) {
            found.push(pid);
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_task_ends_cancelled_and_its_processes_are_gone() {
    // The operator lifts `terminal`'s approval (a served call has nobody to approve it).
    let config = tempfile::NamedTempFile::new().expect("a config file");
    std::fs::write(config.path(), "[tools.terminal]\napproval = false\n").expect("written");
    let config_path = config.path().to_string_lossy().into_owned();
    let dir = tempfile::tempdir().expect("a workspace");
    let workspace = dir.path().to_string_lossy().into_owned();
    let server = HttpServer::start_at_with_env(
        EXAMPLE_SERVER,
        "127.0.0.1:0",
        &["--task-after-secs", "1"],
        &[
            ("HERMES_TOOLS_CONFIG", &config_path),
            ("EXAMPLE_SERVER_WORKSPACE", &workspace),
        ],
    );
    let client = connect(&server.url, true).await;
    // A duration no other process runs with, to find this one's `sleep`.
    let seconds = format!("60.{}", std::process::id());
    let command = format!("sleep {seconds}");
    let id = task_id(&call(&client, "terminal", json!({"command": command})).await);
    let needle = format!("sleep {seconds}");
    let start = Instant::now();
    let pids = loop {
        let pids = pids_running(&needle);
        if !pids.is_empty() {
            break pids;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the command never started: {:?}",
            get(&client, &id).await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };

    client
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .expect("tasks/cancel is acknowledged");
    let seen = poll_until(&client, &id, Duration::from_secs(10), |state| {
        state["status"] == "cancelled"
    })
    .await;
    assert!(seen.last().unwrap().get("result").is_none());
    let start = Instant::now();
    while !pids_running(&needle).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the cancelled command's processes {pids:?} still run"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_that_asks_first_answers_input_required_then_a_task_on_the_retry() {
    let server = HttpServer::start();
    let client = connect(&server.url, true).await;
    // `test_tool_with_task` asks before it becomes a task (`asks_before_task`): round one is a
    // Multi Round-Trip Request, no task.
    let first = call(&client, "test_tool_with_task", json!({})).await;
    let CallToolResponse::InputRequired(first) = first else {
        panic!("expected input_required, got {first:?}")
    };
    let requests = first.input_requests.clone().expect("inputRequests");
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["user_name"]);
    let state = first.request_state.clone().expect("a sealed requestState");
    assert!(
        !serde_json::to_value(&first)
            .unwrap()
            .to_string()
            .contains("taskId"),
        "round one carries no task: {first:?}"
    );

    let answer = json!({"action": "accept", "content": {"name": "Ada"}});
    let responses: rmcp::model::InputResponses =
        [("user_name".to_owned(), answer)].into_iter().collect();
    let retry = |state: String| {
        CallToolRequestParams::new("test_tool_with_task")
            .with_arguments(serde_json::Map::new())
            .with_input_responses(responses.clone())
            .with_request_state(state)
    };
    // A state altered by the client is refused, naming it.
    // (A character in the middle: the last one of base64 may carry only padding bits.)
    let middle = state.len() / 2;
    let swapped = if &state[middle..=middle] == "A" {
        "B"
    } else {
        "A"
    };
    let forged = format!("{}{swapped}{}", &state[..middle], &state[middle + 1..]);
    let refused = client
        .call_tool_once(retry(forged))
        .await
        .expect_err("a forged requestState is refused")
        .to_string();
    assert!(refused.contains("requestState refused"), "{refused}");

    // The retry that answers the question gets the task handle, and no MRTR members.
    let second = client
        .call_tool_once(retry(state))
        .await
        .expect("the retry answers");
    let CallToolResponse::Task(created) = &second else {
        panic!("expected a task, got {second:?}")
    };
    let sent = serde_json::to_value(created).unwrap();
    assert!(
        sent.get("requestState").is_none() && sent.get("inputRequests").is_none(),
        "{sent}"
    );
    let id = task_id(&second);
    let seen = poll_until(&client, &id, Duration::from_secs(10), |state| {
        state["status"] == "completed"
    })
    .await;
    assert_eq!(text(&seen.last().unwrap()["result"]), "Hello, Ada!");

    // Task-only: a client without the extension is told to declare it.
    let plain = connect(&server.url, false).await;
    let refused = plain
        .call_tool_once(CallToolRequestParams::new("test_tool_with_task"))
        .await
        .expect_err("a client without the tasks extension is refused")
        .to_string();
    assert!(refused.contains("-32021"), "{refused}");
}
