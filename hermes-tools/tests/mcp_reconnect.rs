//! A server lost under the client keeps its place while it reconnects: its tools stay listed,
//! a call in the gap is told which server, why and when to retry, and the registry changes
//! only when the tools that come back differ. Against the scripted server of
//! `servers/fake_server.py` and a real `mcp-server-time` process killed under the client (from
//! `bash .ci/test`, which exports `HERMES_PYTHON`).
#![cfg(feature = "mcp")]

#[path = "servers/fake.rs"]
mod fake;
#[path = "servers/third_party.rs"]
mod third_party;

use std::time::{Duration, Instant};

use fake::{Fake, config, eventually, server, set_env, tools_of};
use hermes_tools::mcp::client::{Backoff, McpClients, McpOptions, ServerState};
use hermes_tools::{DefinitionsRequest, Format, ToolContext, ToolRegistry, toolsets::Selection};
use serde_json::json;
use third_party::installed_python;

fn names(registry: &ToolRegistry, toolset: &str) -> Vec<String> {
    registry
        .snapshot()
        .tools()
        .filter(|tool| tool.toolset() == toolset)
        .map(|tool| tool.name().to_owned())
        .collect()
}

async fn call(registry: &ToolRegistry, name: &str, args: &str) -> hermes_tools::ToolAnswer {
    registry.call(name, args, &ToolContext::new()).await
}

fn reconnecting(clients: &McpClients, name: &str) -> bool {
    matches!(
        clients.status(name).unwrap().state,
        ServerState::Reconnecting { .. }
    )
}

fn running(clients: &McpClients, name: &str) -> bool {
    matches!(
        clients.status(name).unwrap().state,
        ServerState::Running { .. }
    )
}

/// The error text of an answer (and a failure naming the answer when it is none).
fn error_of(answer: &hermes_tools::ToolAnswer) -> String {
    assert!(answer.is_error(), "not an error: {answer}");
    let error = answer.to_value()["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error text in {answer}"))
        .to_owned();
    // The pipeline marks a tool's own error so; the text after the mark is the server's.
    error
        .strip_prefix("[TOOL_ERROR] ")
        .map_or(error.clone(), str::to_owned)
}

/// The N of "retry in N s." at the end of a reconnecting server's answer.
fn retry_secs(error: &str) -> u64 {
    error
        .rsplit_once("retry in ")
        .and_then(|(_, rest)| rest.strip_suffix(" s."))
        .and_then(|secs| secs.parse().ok())
        .unwrap_or_else(|| panic!("no \"retry in N s.\" at the end of {error:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_server_keeps_its_tools_while_it_reconnects_and_comes_back() {
    let fake = Fake::new();
    let registry = ToolRegistry::new();
    // The backoff is the window in which the test sees the server down: long enough that a
    // loaded machine does not miss it (500 ms did, under a parallel build).
    let options = McpOptions {
        backoff: Backoff {
            initial: Duration::from_secs(3),
            max: Duration::from_secs(3),
        },
        ..McpOptions::default()
    };
    let clients = McpClients::start_with(
        &registry,
        &config([("fake", fake.config())]),
        &Selection::default(),
        options,
    )
    .await;
    let tools = tools_of(&clients.status("fake").unwrap());
    let listed = names(&registry, "mcp-fake");
    let generation = registry.generation();

    let crashed = call(&registry, "mcp__fake__crash", "{}").await;
    assert!(crashed.is_error(), "{crashed}");
    eventually("the server is reconnecting", || {
        reconnecting(&clients, "fake")
    })
    .await;
    // Its tools stay, and nothing told the registry's readers that anything changed.
    assert_eq!(names(&registry, "mcp-fake"), listed);
    assert_eq!(registry.generation(), generation);
    // A call in the gap is told which server, why, and when to come back; none was made.
    let gap = call(&registry, "mcp__fake__echo", r#"{"text":"x"}"#).await;
    let error = error_of(&gap);
    assert!(
        error
            .starts_with(r#"MCP server "fake" is reconnecting (last error: the connection closed"#),
        "{error}"
    );
    // The backoff's 3 s, and the time the first connection took.
    let secs = retry_secs(&error);
    assert!((1..=3 + 60).contains(&secs), "{error}");
    assert_eq!(fake.count("call echo"), 0, "{:?}", fake.log());

    eventually("the server is back", || running(&clients, "fake")).await;
    assert_eq!(tools_of(&clients.status("fake").unwrap()), tools);
    assert_eq!(fake.count("start"), 2);
    // The same tools back: no change at all, so no `list_changed` for the clients of `serve`.
    assert_eq!(registry.generation(), generation);
    let echo = call(&registry, "mcp__fake__echo", r#"{"text":"again"}"#).await;
    assert_eq!(echo.to_value(), json!({"result": "again"}));

    clients.shutdown().await;
    eventually("the process saw its stdin close", || {
        fake.count("stdin closed") == 1
    })
    .await;
    assert!(names(&registry, "mcp-fake").is_empty());
    // Once the clients are gone, so is the explanation: the tool is simply unknown.
    let after = call(&registry, "mcp__fake__echo", r#"{"text":"x"}"#).await;
    assert!(after.as_str().contains("Unknown tool"), "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_back_with_other_tools_changes_the_listing_once() {
    let fake = Fake::new();
    let extra = fake.log_path().with_file_name("extra_tools");
    std::fs::write(&extra, "old\n").unwrap();
    let mut changing = fake.config();
    set_env(&mut changing, "FAKE_EXTRA_TOOLS", extra.to_str().unwrap());
    let registry = ToolRegistry::new();
    let options = McpOptions {
        backoff: Backoff {
            initial: Duration::from_millis(200),
            max: Duration::from_millis(200),
        },
        ..McpOptions::default()
    };
    let clients = McpClients::start_with(
        &registry,
        &config([("fake", changing)]),
        &Selection::default(),
        options,
    )
    .await;
    assert!(registry.get("mcp__fake__old").is_some());
    let mut changes = registry.subscribe();
    changes.borrow_and_update();
    let generation = registry.generation();

    // The next start lists "new" instead of "old".
    std::fs::write(&extra, "new\n").unwrap();
    let crashed = call(&registry, "mcp__fake__crash", "{}").await;
    assert!(crashed.is_error(), "{crashed}");
    eventually("the server is back with its new tools", || {
        registry.get("mcp__fake__new").is_some()
    })
    .await;
    assert_eq!(fake.count("start"), 2);
    assert!(registry.get("mcp__fake__old").is_none());
    assert_ne!(registry.generation(), generation);
    assert!(
        changes.has_changed().unwrap(),
        "the registry's watchers are told"
    );
    let tools = tools_of(&clients.status("fake").unwrap());
    assert!(tools.contains(&"mcp__fake__new".to_owned()), "{tools:?}");
    assert!(!tools.contains(&"mcp__fake__old".to_owned()), "{tools:?}");
    let new = call(&registry, "mcp__fake__new", "{}").await;
    assert_eq!(new.to_value(), json!({"result": "ok"}));
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn a_killed_time_server_keeps_its_tools_answers_reconnecting_then_answers_again() {
    let python = installed_python();
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    // The shell records the server's pid, then becomes the server.
    let script = format!(
        "echo $$ >> '{}' && exec '{}' -m mcp_server_time",
        pids.display(),
        python
    );
    let registry = ToolRegistry::new();
    let config = config([("time", server("sh", &["-c", &script]))]);
    // The real schedule's first wait is 1 s; 2 s leaves a loaded machine time to see the gap.
    let options = McpOptions {
        backoff: Backoff {
            initial: Duration::from_secs(2),
            max: Duration::from_secs(60),
        },
        ..McpOptions::default()
    };
    let clients = McpClients::start_with(&registry, &config, &Selection::default(), options).await;
    let tools = tools_of(&clients.status("time").unwrap());
    assert_eq!(
        tools,
        ["mcp__time__convert_time", "mcp__time__get_current_time"]
    );
    let generation = registry.generation();
    let read_pids = || -> Vec<String> {
        std::fs::read_to_string(&pids)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    };
    let pid = read_pids().pop().expect("the server's pid");
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &pid])
        .status()
        .unwrap();
    assert!(killed.success());

    eventually("the client notices the server gone", || {
        reconnecting(&clients, "time")
    })
    .await;
    let request = DefinitionsRequest {
        selection: Selection::default(),
        format: Format::Mcp,
        ..DefinitionsRequest::default()
    };
    let definitions = registry.definitions(&request).unwrap().to_vec();
    let listed: Vec<&str> = definitions
        .iter()
        .filter_map(|d| d["name"].as_str())
        .collect();
    assert!(
        listed.contains(&"mcp__time__get_current_time"),
        "{listed:?}"
    );
    let gap = call(
        &registry,
        "mcp__time__get_current_time",
        r#"{"timezone":"UTC"}"#,
    )
    .await;
    let asked = Instant::now();
    let error = error_of(&gap);
    assert!(
        error.starts_with(r#"MCP server "time" is reconnecting (last error: "#),
        "{error}"
    );
    let secs = retry_secs(&error);
    assert!(secs >= 1, "{error}");

    eventually("the server is back", || running(&clients, "time")).await;
    let back_after = asked.elapsed();
    eprintln!("told to retry in {secs} s; back after {back_after:?}");
    // The estimate is the backoff plus what the last start took: honest within a margin
    // for a loaded machine.
    assert!(
        back_after <= Duration::from_secs(secs + 10),
        "told {secs} s, back after {back_after:?}"
    );
    assert_eq!(read_pids().len(), 2, "started again, once");
    assert_eq!(tools_of(&clients.status("time").unwrap()), tools);
    assert_eq!(
        registry.generation(),
        generation,
        "the same tools: no change"
    );
    let first = call(
        &registry,
        "mcp__time__get_current_time",
        r#"{"timezone":"UTC"}"#,
    )
    .await;
    assert!(!first.is_error(), "{first}");
    assert!(first.as_str().contains("UTC"), "{first}");
    clients.shutdown().await;
}
