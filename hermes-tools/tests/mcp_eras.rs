//! The MCP client in both eras of the protocol (`protocol = "auto" | "modern" | "legacy"`):
//! against FastMCP 4.1.6 in the 2026-07-28 era, over stdio and Streamable HTTP (a call, a
//! question answered through the agent's asker as Multi Round-Trip Requests, `ttlMs`), and
//! against the scripted server of `servers/fake_server.py`, which knows only `initialize`.
//!
//! FastMCP comes from `bash .ci/test` (HERMES_PYTHON); the scripted server needs any Python 3.
#![cfg(feature = "mcp")]

#[path = "servers/fake.rs"]
mod fake;
#[path = "servers/third_party.rs"]
mod third_party;

use std::sync::Arc;
use std::time::{Duration, Instant};

use fake::{Fake, config, set_env};
use hermes_tools::call::{
    AskError, Asker, BoxFuture, Elicitation, ElicitationReply, Sampling, SamplingReply,
};
use hermes_tools::config::{McpProtocol, McpServerConfig};
use hermes_tools::mcp::client::{Era, McpClients, McpOptions, ServerState};
use hermes_tools::{ToolContext, ToolRegistry, toolsets::Selection};
use parking_lot::Mutex;
use serde_json::{Map, Value, json};
use third_party::{Remote, fastmcp_script, installed_python};

/// Answers every question: elicitation with `{"name": "Ada"}`, sampling with a haiku by
/// `test-model`; keeps what it was asked.
#[derive(Debug, Default)]
struct Answering {
    questions: Mutex<Vec<String>>,
}

impl Asker for Answering {
    fn can_elicit(&self) -> bool {
        true
    }

    fn can_sample(&self) -> bool {
        true
    }

    fn elicit(
        &self,
        request: Elicitation,
    ) -> BoxFuture<'static, Result<ElicitationReply, AskError>> {
        self.questions.lock().push(format!(
            "{} (from {:?})",
            request.message,
            request.server.as_deref()
        ));
        let mut values = Map::new();
        values.insert("name".into(), json!("Ada"));
        Box::pin(async move { Ok(ElicitationReply::Accept(values)) })
    }

    fn sample(&self, request: Sampling) -> BoxFuture<'static, Result<SamplingReply, AskError>> {
        let asked = request.messages.last().map(|m| m.text.clone());
        self.questions.lock().push(asked.unwrap_or_default());
        Box::pin(async move { Ok(SamplingReply::new("leaves fall / quietly", "test-model")) })
    }
}

async fn started(
    server: McpServerConfig,
    asker: Option<Arc<Answering>>,
) -> (ToolRegistry, McpClients) {
    let options = McpOptions {
        asker: asker.map(|asker| asker as Arc<dyn Asker>),
        ..McpOptions::default()
    };
    let registry = ToolRegistry::new();
    let config = config([("s", server)]);
    let clients = McpClients::start_with(&registry, &config, &Selection::default(), options).await;
    (registry, clients)
}

async fn call(registry: &ToolRegistry, name: &str, args: Value) -> hermes_tools::ToolAnswer {
    registry
        .call(name, &args.to_string(), &ToolContext::new())
        .await
}

fn era(clients: &McpClients) -> Option<Era> {
    clients.status("s").expect("configured").era
}

fn modern() -> Option<Era> {
    Some(Era::Modern {
        version: "2026-07-28".into(),
    })
}

fn fastmcp_stdio() -> McpServerConfig {
    let script = fastmcp_script();
    let mut server = fake::server(installed_python(), &[script.to_str().unwrap()]);
    server.protocol = McpProtocol::Modern;
    server
}

fn fastmcp_http(remote: &Remote) -> McpServerConfig {
    let mut server = McpServerConfig::http(remote.url());
    server.connect_timeout_secs = 60;
    server.call_timeout_secs = 30;
    server
}

/// A call, a question answered by the asker, a sampling request, in the modern era.
async fn check_the_modern_era(server: McpServerConfig, transport: &str) {
    let asker = Arc::new(Answering::default());
    let (registry, clients) = started(server, Some(Arc::clone(&asker))).await;
    let status = clients.status("s").unwrap();
    assert!(
        matches!(status.state, ServerState::Running { .. }),
        "{transport}: {status}"
    );
    assert_eq!(era(&clients), modern(), "{transport}: {status}");
    assert!(
        status
            .to_string()
            .contains("(MCP 2026-07-28 via server/discover)"),
        "{status}"
    );

    let sum = call(&registry, "mcp__s__add", json!({"a": 40, "b": 2})).await;
    assert!(
        !sum.is_error() && sum.as_str().contains("42"),
        "{transport}: {sum}"
    );

    let greeting = call(&registry, "mcp__s__greet", json!({})).await;
    assert!(
        !greeting.is_error() && greeting.as_str().contains("Hello, Ada! (state asked-name)"),
        "{transport}: {greeting}"
    );
    let poem = call(&registry, "mcp__s__haiku", json!({"topic": "autumn"})).await;
    assert!(
        poem.as_str()
            .contains("test-model wrote: leaves fall / quietly"),
        "{transport}: {poem}"
    );
    assert_eq!(
        *asker.questions.lock(),
        [
            "What is your name? (from Some(\"s\"))".to_owned(),
            "A haiku about autumn".to_owned()
        ],
        "{transport}"
    );
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs FastMCP from PyPI that `bash .ci/test` installs"]
async fn fastmcp_in_the_modern_era_over_stdio_lists_calls_and_asks_through_the_asker() {
    check_the_modern_era(fastmcp_stdio(), "stdio").await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs FastMCP from PyPI that `bash .ci/test` installs"]
async fn fastmcp_in_the_modern_era_over_http_lists_calls_and_asks_through_the_asker() {
    let remote = Remote::fastmcp(&[]);
    // `auto`, the default, finds the modern era on its own.
    check_the_modern_era(fastmcp_http(&remote), "http").await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs FastMCP from PyPI that `bash .ci/test` installs"]
async fn a_question_nobody_can_answer_fails_the_call_saying_why() {
    let (registry, clients) = started(fastmcp_stdio(), None).await;
    let answer = call(&registry, "mcp__s__greet", json!({})).await;
    assert!(answer.is_error(), "{answer}");
    assert!(
        answer.as_str().contains("does not offer elicitation"),
        "{answer}"
    );
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs FastMCP from PyPI that `bash .ci/test` installs"]
async fn the_same_server_in_the_legacy_era_when_asked_for() {
    let remote = Remote::fastmcp(&[]);
    let mut server = fastmcp_http(&remote);
    server.protocol = McpProtocol::Legacy;
    let (registry, clients) = started(server, None).await;
    let Some(Era::Legacy { version }) = era(&clients) else {
        panic!("{}", clients.status("s").unwrap());
    };
    assert_eq!(version, "2025-11-25");
    let sum = call(&registry, "mcp__s__add", json!({"a": 1, "b": 2})).await;
    assert!(sum.as_str().contains('3'), "{sum}");
    clients.shutdown().await;
}

/// The scripted server's log lines, once `line` has been logged `times` times (or after 20 s).
async fn logged(fake: &Fake, line: &str, times: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    while fake.count(line) < times && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    fake.log()
}

#[tokio::test(flavor = "multi_thread")]
async fn auto_falls_back_to_initialize_for_a_server_that_knows_no_discover() {
    let fake = Fake::new();
    let (registry, clients) = started(fake.config(), None).await;
    let status = clients.status("s").unwrap();
    assert!(
        matches!(status.state, ServerState::Running { .. }),
        "{status}"
    );
    assert_eq!(
        status.era,
        Some(Era::Legacy {
            version: "2025-11-25".into()
        })
    );
    assert!(
        status
            .to_string()
            .contains("(MCP 2025-11-25 via initialize)"),
        "{status}"
    );
    // Probed, refused, then the handshake, on the same connection.
    let log = fake.log();
    assert_eq!(
        log[..3],
        ["start", "discover", "initialize 2025-11-25"],
        "{log:?}"
    );
    let echo = call(&registry, "mcp__s__echo", json!({"text": "hi"})).await;
    assert_eq!(echo.as_str(), r#"{"result":"hi"}"#);
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn auto_reconnects_through_initialize_when_discover_names_only_earlier_versions() {
    let fake = Fake::new();
    let mut server = fake.config();
    set_env(&mut server, "FAKE_DISCOVER", "old");
    let (registry, clients) = started(server, None).await;
    let status = clients.status("s").unwrap();
    assert!(
        matches!(status.state, ServerState::Running { .. }),
        "{status}"
    );
    let log = fake.log();
    assert_eq!(
        log[..4],
        ["start", "discover", "start", "initialize 2025-11-25"],
        "{log:?}"
    );
    assert!(registry.get("mcp__s__echo").is_some());
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn modern_refuses_a_server_that_knows_no_discover_saying_what_to_change() {
    for old in [false, true] {
        let fake = Fake::new();
        let mut server = fake.config();
        server.protocol = McpProtocol::Modern;
        if old {
            set_env(&mut server, "FAKE_DISCOVER", "old");
        }
        let (registry, clients) = started(server, None).await;
        let ServerState::Failed { reason } = clients.status("s").unwrap().state else {
            panic!("{}", clients.status("s").unwrap());
        };
        assert!(
            reason.contains("does not speak MCP 2026-07-28")
                && reason.contains("give `protocol = \"auto\"`"),
            "{reason}"
        );
        assert!(registry.get("mcp__s__echo").is_none());
        assert_eq!(fake.count("initialize 2025-11-25"), 0, "{:?}", fake.log());
        clients.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_never_probes_and_a_pinned_version_is_offered() {
    let fake = Fake::new();
    let mut server = fake.config();
    server.protocol = McpProtocol::Legacy;
    server.protocol_version = Some("2025-06-18".into());
    let (_registry, clients) = started(server, None).await;
    assert_eq!(
        era(&clients),
        Some(Era::Legacy {
            version: "2025-06-18".into()
        })
    );
    assert_eq!(fake.log()[..2], ["start", "initialize 2025-06-18"]);
    assert_eq!(fake.count("discover"), 0);
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tools_are_listed_again_when_their_ttl_lapses() {
    let fake = Fake::new();
    let mut server = fake.config();
    set_env(&mut server, "FAKE_TTL_MS", "300");
    let (_registry, clients) = started(server, None).await;
    // Listed at start, then again as each listing lapses.
    let log = logged(&fake, "list", 3).await;
    assert!(fake.count("list") >= 3, "{log:?}");
    clients.shutdown().await;

    // Without a hint: listed once, and again only on a list change.
    let fake = Fake::new();
    let (_registry, clients) = started(fake.config(), None).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(fake.count("list"), 1, "{:?}", fake.log());
    clients.shutdown().await;
}
