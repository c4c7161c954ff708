//! Resting servers: stopped when idle (`idle_timeout_secs`) or past their lifetime
//! (`max_lifetime_secs`), their tools kept, started again by the next call. Against the
//! scripted server of `servers/fake_server.py`, whose log shows each start and stop.
#![cfg(feature = "mcp")]

#[path = "servers/fake.rs"]
mod fake;

use std::time::{Duration, Instant};

use fake::{Fake, config};
use hermes_tools::config::McpServerConfig;
use hermes_tools::mcp::client::{McpClients, ServerState};
use hermes_tools::{ToolContext, ToolRegistry, toolsets::Selection};

async fn call(registry: &ToolRegistry, name: &str, args: &str) -> hermes_tools::ToolAnswer {
    registry.call(name, args, &ToolContext::new()).await
}

/// The fake server, configured by `configure`, started in a fresh registry.
async fn started(
    fake: &Fake,
    configure: impl FnOnce(&mut McpServerConfig),
) -> (ToolRegistry, McpClients) {
    let mut server = fake.config();
    configure(&mut server);
    let registry = ToolRegistry::new();
    let clients = McpClients::start(
        &registry,
        &config([("fake", server)]),
        &Selection::default(),
    )
    .await;
    (registry, clients)
}

/// Waits for the server to rest; returns why.
async fn rested(clients: &McpClients) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let ServerState::Resting { reason } = clients.status("fake").expect("reported").state {
            return reason;
        }
        assert!(Instant::now() < deadline, "the server never rested");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_server_rests_keeps_its_tools_and_the_next_call_starts_it() {
    let fake = Fake::new();
    let (registry, clients) = started(&fake, |server| server.idle_timeout_secs = 1).await;
    let echo = call(&registry, "mcp__fake__echo", r#"{"text":"one"}"#).await;
    assert!(echo.as_str().contains("one"), "{echo}");
    let generation = registry.generation();

    let reason = rested(&clients).await;
    assert_eq!(reason, "no call for 1 s");
    // The process is gone (its stdin closed), its tools are not.
    let deadline = Instant::now() + Duration::from_secs(10);
    while fake.count("stdin closed") < 1 {
        assert!(
            Instant::now() < deadline,
            "the process never stopped: {:?}",
            fake.log()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(registry.get("mcp__fake__echo").is_some());
    assert_eq!(registry.generation(), generation, "no definition changed");

    let echo = call(&registry, "mcp__fake__echo", r#"{"text":"two"}"#).await;
    assert!(echo.as_str().contains("two"), "{echo}");
    assert_eq!(fake.count("start"), 2, "{:?}", fake.log());
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_past_its_lifetime_is_renewed_but_not_under_a_call() {
    let fake = Fake::new();
    let (registry, clients) = started(&fake, |server| server.max_lifetime_secs = 1).await;
    // A call that outlives the lifetime is not cut: the server rests once it has answered.
    let started = Instant::now();
    let slept = call(&registry, "mcp__fake__sleep", r#"{"seconds": 2}"#).await;
    assert_eq!(slept.as_str(), r#"{"result":"slept"}"#);
    assert!(started.elapsed() >= Duration::from_secs(2));
    let reason = rested(&clients).await;
    assert_eq!(reason, "renewed after its lifetime of 1 s");
    // Renewed: a new process, whose count starts again.
    let count = call(&registry, "mcp__fake__count", "{}").await;
    assert!(count.as_str().contains('1'), "{count}");
    assert_eq!(fake.count("start"), 2, "{:?}", fake.log());
    clients.shutdown().await;
}
