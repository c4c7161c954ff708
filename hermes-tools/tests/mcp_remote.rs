//! The MCP client against real remote servers on loopback, over Streamable HTTP: npm
//! `@modelcontextprotocol/server-everything` in its `streamableHttp` mode, and the official
//! Python SDK's `MCPServer` (FastMCP) refusing requests without a bearer token
//! (`tests/servers/bearer_server.py`).
//!
//! The servers come from `bash .ci/test`, which installs them pinned and exports
//! `HERMES_PYTHON` and `HERMES_NODE_MODULES`; without them these tests fail and say so.
#![cfg(feature = "mcp-remote")]

use hermes_tools::config::{McpServerConfig, McpTransport};
use hermes_tools::mcp::client::{McpClients, ServerState, ServerStatus};
use hermes_tools::mcp::server::ToolServer;
use hermes_tools::{ToolContext, ToolRegistry, toolsets::Selection};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "servers/fake.rs"]
mod fake;
#[path = "servers/third_party.rs"]
mod third_party;

use fake::config;
use third_party::{Remote, free_port};

fn remote(url: &str, headers: &[(&str, &str)]) -> McpServerConfig {
    let mut server = McpServerConfig::http(url);
    let McpTransport::Http { headers: set, .. } = &mut server.transport else {
        unreachable!("`http` makes a remote server")
    };
    for (name, value) in headers {
        set.insert((*name).to_owned(), (*value).to_owned());
    }
    server.connect_timeout_secs = 20;
    server.call_timeout_secs = 20;
    server
}

fn tools_of(status: &ServerStatus) -> &[String] {
    match &status.state {
        ServerState::Running { tools } => tools,
        other => panic!("server {} is not running: {other}", status.name),
    }
}

fn failure_of(status: &ServerStatus) -> &str {
    match &status.state {
        ServerState::Failed { reason } => reason,
        other => panic!("server {} did not fail: {other}", status.name),
    }
}

async fn call(registry: &ToolRegistry, name: &str, args: &str) -> hermes_tools::ToolAnswer {
    registry.call(name, args, &ToolContext::new()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn server_everything_over_streamable_http_is_a_toolset_whose_tools_answer() {
    let everything = Remote::everything();
    let registry = ToolRegistry::new();
    let config = config([("everything", remote(&everything.url(), &[]))]);
    let clients = McpClients::start(&registry, &config, &Selection::default()).await;

    let status = clients.status("everything").expect("reported");
    assert_eq!(status.endpoint, everything.url());
    let tools = tools_of(&status);
    assert!(
        tools.iter().any(|tool| tool == "mcp__everything__echo"),
        "{tools:?}"
    );
    assert!(tools.len() >= 10, "{tools:?}");

    let echo = call(&registry, "mcp__everything__echo", r#"{"message":"hi"}"#).await;
    assert_eq!(echo.to_value(), json!({"result": "Echo: hi"}));
    let sum = call(
        &registry,
        "mcp__everything__get_sum",
        r#"{"a": 2, "b": "40"}"#,
    )
    .await;
    assert!(sum.as_str().contains("42"), "{sum}");
    clients.shutdown().await;
    assert!(registry.get("mcp__everything__echo").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn a_bearer_token_in_the_headers_opens_a_server_that_refuses_requests_without_it() {
    let token = "hermes-test-token-7f3a9c2e41d8b6";
    let server = Remote::bearer(token);
    let registry = ToolRegistry::new();
    let bearer = format!("Bearer {token}");
    let config = config([
        (
            "with_token",
            remote(&server.url(), &[("Authorization", &bearer)]),
        ),
        ("without", remote(&server.url(), &[])),
        (
            "wrong",
            remote(&server.url(), &[("Authorization", "Bearer not-the-token")]),
        ),
    ]);
    let clients = McpClients::start(&registry, &config, &Selection::default()).await;

    let with_token = clients.status("with_token").expect("reported");
    assert_eq!(
        tools_of(&with_token),
        [
            "mcp__with_token__add",
            "mcp__with_token__get_prompt",
            "mcp__with_token__list_prompts",
            "mcp__with_token__list_resources",
            "mcp__with_token__read_resource",
            "mcp__with_token__shout"
        ]
    );
    let sum = call(&registry, "mcp__with_token__add", r#"{"a": 40, "b": 2}"#).await;
    assert!(!sum.is_error(), "{sum}");
    assert!(sum.as_str().contains("42"), "{sum}");
    // Its resource and its prompt, through the utility tools, over HTTP.
    let read = call(
        &registry,
        "mcp__with_token__read_resource",
        r#"{"uri": "notes://today"}"#,
    )
    .await;
    assert_eq!(
        read.to_value(),
        json!({"result": "[resource notes://today]\nWater the plants."})
    );
    let prompt = call(
        &registry,
        "mcp__with_token__get_prompt",
        r#"{"name": "greet", "arguments": {"name": "Ada"}}"#,
    )
    .await;
    assert_eq!(
        prompt.to_value()["messages"],
        json!([{"role": "user", "content": "Say hello to Ada."}]),
        "{prompt}"
    );

    for name in ["without", "wrong"] {
        let status = clients.status(name).expect("reported");
        let reason = failure_of(&status);
        assert!(reason.contains(&server.url()), "{name}: {reason}");
        assert!(
            reason.contains("add an Authorization header"),
            "{name}: {reason}"
        );
        // The status and the log never carry a header's value.
        assert!(
            !reason.contains(token) && !reason.contains("not-the-token"),
            "{reason}"
        );
        let answer = call(&registry, &format!("mcp__{name}__add"), "{}").await;
        assert!(answer.is_error(), "{answer}");
        assert!(answer.as_str().contains("failed to start"), "{answer}");
    }
    let report = format!("{:?}", clients.report());
    assert!(!report.contains(token), "{report}");
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn a_legacy_sse_server_is_reached_with_transport_sse() {
    let token = "sse-token-0c4f7a9e";
    let server = Remote::bearer_sse(token);
    let registry = ToolRegistry::new();
    let bearer = format!("Bearer {token}");
    let sse = |headers: &[(&str, &str)]| {
        let mut config = McpServerConfig::sse(server.sse_url());
        if let McpTransport::Sse { headers: set, .. } = &mut config.transport {
            for (name, value) in headers {
                set.insert((*name).to_owned(), (*value).to_owned());
            }
        }
        config
    };
    let config = config([
        ("legacy", sse(&[("Authorization", &bearer)])),
        ("refused", sse(&[])),
    ]);
    let clients = McpClients::start(&registry, &config, &Selection::default()).await;
    let legacy = clients.status("legacy").expect("reported");
    assert_eq!(legacy.endpoint, server.sse_url());
    assert!(
        tools_of(&legacy).contains(&"mcp__legacy__add".to_owned()),
        "{legacy:?}"
    );
    let sum = call(&registry, "mcp__legacy__add", r#"{"a": 40, "b": 2}"#).await;
    assert!(sum.as_str().contains("42"), "{sum}");
    let read = call(
        &registry,
        "mcp__legacy__read_resource",
        r#"{"uri": "notes://today"}"#,
    )
    .await;
    assert!(read.as_str().contains("Water the plants."), "{read}");

    let refused = clients.status("refused").expect("reported");
    let reason = failure_of(&refused);
    assert!(reason.contains("HTTP 401"), "{reason}");
    assert!(reason.contains("add an Authorization header"), "{reason}");
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn a_remote_server_gone_silently_is_noticed_by_the_keepalive_ping() {
    let token = "keepalive-token-2b8d";
    let first = Remote::bearer(token);
    let bearer = format!("Bearer {token}");
    let mut server = remote(&first.url(), &[("Authorization", &bearer)]);
    server.keepalive_secs = 1;
    let registry = ToolRegistry::new();
    let clients = McpClients::start(
        &registry,
        &config([("remote", server)]),
        &Selection::default(),
    )
    .await;
    assert!(!tools_of(&clients.status("remote").expect("reported")).is_empty());

    // No call is made: only the ping can notice.
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(20);
    let last_error = loop {
        if let ServerState::Reconnecting { last_error, .. } =
            clients.status("remote").expect("reported").state
        {
            break last_error;
        }
        assert!(Instant::now() < deadline, "the server still looks running");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(last_error.contains("keepalive ping"), "{last_error}");
    let answer = call(&registry, "mcp__remote__add", r#"{"a": 1, "b": 2}"#).await;
    assert!(answer.as_str().contains("reconnecting"), "{answer}");
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn an_unset_variable_in_a_header_fails_the_server_naming_header_and_variable() {
    let server = Remote::bearer("unused-token");
    let registry = ToolRegistry::new();
    let config = config([(
        "remote",
        remote(
            &server.url(),
            &[("Authorization", "Bearer ${HERMES_TEST_TOKEN_NEVER_SET}")],
        ),
    )]);
    let clients = McpClients::start(&registry, &config, &Selection::default()).await;
    let status = clients.status("remote").expect("reported");
    let reason = failure_of(&status);
    assert!(reason.contains("`Authorization`"), "{reason}");
    assert!(reason.contains("HERMES_TEST_TOKEN_NEVER_SET"), "{reason}");
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn an_oauth_server_without_an_authorizer_fails_saying_what_is_missing_beside_one_that_runs() {
    let token = "t0k3n-for-oauth-test";
    let guarded = Remote::bearer(token);
    let open = Remote::bearer(token);
    let mut oauth = remote(&guarded.url(), &[]);
    oauth.oauth = Some(hermes_tools::config::OAuthConfig::default());
    let bearer = format!("Bearer {token}");
    let registry = ToolRegistry::new();
    let config = config([
        ("guarded", oauth),
        ("open", remote(&open.url(), &[("Authorization", &bearer)])),
    ]);
    // No `McpOptions::authorizer`: nobody can approve an authorization.
    let clients = McpClients::start(&registry, &config, &Selection::default()).await;
    let status = clients.status("guarded").expect("reported");
    let reason = failure_of(&status);
    assert!(reason.contains("no authorizer"), "{reason}");
    assert!(reason.contains(&guarded.url()), "{reason}");
    assert!(!reason.contains(token), "{reason}");
    let open = clients.status("open").expect("reported");
    assert!(!tools_of(&open).is_empty());
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_listening_at_the_url_fails_the_server_saying_where() {
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let registry = ToolRegistry::new();
    let mut server = remote(&url, &[]);
    server.connect_timeout_secs = 5;
    let clients = McpClients::start(
        &registry,
        &config([("gone", server)]),
        &Selection::default(),
    )
    .await;
    let status = clients.status("gone").expect("reported");
    let reason = failure_of(&status);
    assert!(reason.contains(&url), "{reason}");
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn a_remote_server_that_restarts_is_reached_again() {
    let token = "restart-token-5d1c8e";
    let first = Remote::bearer(token);
    let url = first.url();
    let port = first.port();
    let registry = ToolRegistry::new();
    let bearer = format!("Bearer {token}");
    let config = config([("remote", remote(&url, &[("Authorization", &bearer)]))]);
    let clients = McpClients::start(&registry, &config, &Selection::default()).await;
    let sum = call(&registry, "mcp__remote__add", r#"{"a": 1, "b": 2}"#).await;
    assert!(sum.as_str().contains('3'), "{sum}");

    drop(first);
    let down = call(&registry, "mcp__remote__add", r#"{"a": 1, "b": 2}"#).await;
    assert!(down.is_error(), "{down}");
    assert!(
        down.as_str().contains("could not run \\\"add\\\""),
        "{down}"
    );
    // The same server again (a deploy, say): a new process that knows no session of ours.
    let _second = Remote::bearer_on(token, port);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let again = call(&registry, "mcp__remote__add", r#"{"a": 1, "b": 2}"#).await;
        if !again.is_error() {
            assert!(again.as_str().contains('3'), "{again}");
            break;
        }
        assert!(Instant::now() < deadline, "never reached again: {again}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    clients.shutdown().await;
}

/// The options of this process's TCP sockets connected to `peer`: whether each sets
/// `TCP_NODELAY`.
fn nodelay_of_sockets_to(peer: std::net::SocketAddr) -> Vec<bool> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc/self/fd").expect("this process's descriptors") {
        let Some(raw) = entry
            .ok()
            .and_then(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: the descriptor is only asked for its peer and an option, never closed (a
        // `SockRef` does not own it); one closed meanwhile answers EBADF and is skipped.
        #[allow(unsafe_code)]
        let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(raw) };
        let socket = socket2::SockRef::from(&fd);
        let connected_to_peer = socket
            .peer_addr()
            .is_ok_and(|addr| addr.as_socket() == Some(peer));
        if connected_to_peer && let Ok(nodelay) = socket.tcp_nodelay() {
            found.push(nodelay);
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_connection_the_client_opens_sets_tcp_nodelay() {
    // Our own endpoint in this process, whose tool `peek` looks, while its call is in flight,
    // at the sockets connected to the endpoint: the client's (the endpoint's own have it as
    // their local address, not their peer).
    let endpoint_addr = Arc::new(std::sync::OnceLock::<std::net::SocketAddr>::new());
    let seen = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let served = ToolRegistry::new();
    let (addr_of, record) = (Arc::clone(&endpoint_addr), Arc::clone(&seen));
    served
        .register(
            hermes_tools::tool::Tool::builder("peek", "test")
                .description("Looks at the client's sockets.")
                .handler(move |_, _| {
                    let sockets = nodelay_of_sockets_to(*addr_of.get().expect("bound"));
                    record.lock().push(sockets);
                    "looked"
                })
                .build(),
        )
        .expect("registered");
    let endpoint = ToolServer::new(served)
        .bind_http("127.0.0.1:0".parse().expect("an address"))
        .await
        .expect("bound");
    let url = endpoint.url();
    endpoint_addr.set(endpoint.local_addr()).expect("set once");
    tokio::spawn(endpoint.serve());

    let registry = ToolRegistry::new();
    let clients = McpClients::start(
        &registry,
        &config([("ours", remote(&url, &[]))]),
        &Selection::default(),
    )
    .await;
    for _ in 0..2 {
        let answer = call(&registry, "mcp__ours__peek", "{}").await;
        assert!(answer.as_str().contains("looked"), "{answer}");
    }
    let seen = seen.lock().clone();
    assert_eq!(seen.len(), 2);
    for sockets in seen {
        assert!(!sockets.is_empty(), "no connection of the client's found");
        assert!(sockets.iter().all(|nodelay| *nodelay), "{sockets:?}");
    }
    clients.shutdown().await;
}
