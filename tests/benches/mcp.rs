//! MCP `tools/call` round trips, ours beside `rmcp`'s own server in the same run.
//!
//! In the first two groups one `rmcp` client calls the same two-argument tool (`add`, sync and
//! async), declared both ways in [`hermes_tools_tests::add_tools`]; every server answers `"42"`
//! before it is timed.
//!
//! Group `mcp_tools_call`: three servers, each over an in-memory `tokio::io::duplex` pipe
//! carrying newline-delimited JSON-RPC, exactly what stdio carries:
//!
//! - `rmcp_tool_router`: `rmcp`'s `#[tool_router]` server, served with `rmcp`'s own line
//!   transport (the peer to match);
//! - `ours_serve`: our [`ToolServer`] as an rmcp handler on the same `rmcp` transport;
//! - `ours_serve_connection`: [`ToolServer::serve_connection`], our own line transport (what
//!   `serve_stdio` runs), the path an MCP host that spawns `serve` takes.
//!
//! Group `mcp_stdio`: the same calls to child processes over real stdio pipes, spawned with
//! `rmcp`'s `TokioChildProcess`:
//!
//! - `ours_stdio`: `add-server serve`, our CLI's `serve` (`ToolServer::serve_stdio`);
//! - `rmcp_stdio`: `rmcp-add-server`, the `#[tool_router]` server on `rmcp::transport::stdio()`
//!   (tokio's blocking stdin/stdout, the way `rmcp` documents a stdio server);
//! - `rmcp_stdio_pipes`: `rmcp-add-server pipes`, the same on `rmcp::transport::stdio_pipes()`
//!   (the non-blocking pipe transport `serve_stdio` reads and writes through too).
//!
//! Group `mcp_http`: the same calls over Streamable HTTP on loopback, from rmcp's Streamable
//! HTTP client (reqwest), each server with its defaults (sessions, SSE answers):
//!
//! - `ours_http`: [`ToolServer::bind_http`], what `serve --http` runs (rmcp's service behind
//!   our gate: origin, body and session checks);
//! - `rmcp_http`: the `#[tool_router]` server in rmcp's `StreamableHttpService`, served by
//!   axum as rmcp's examples serve it.
//!
//! Group `mcp_http_modern`: the same calls in the 2026-07-28 era (rmcp's client with
//! `server/discover`, every request self-contained, no session) to the same two HTTP servers,
//! and `ours_http/mrtr`: `add_asked`, whose one question is a Multi Round-Trip Request (the call
//! answers `input_required` with a sealed `requestState`, the client answers the form and
//! retries, the server opens the state and runs the tool again): its cost beside `ours_http/async`
//! is the cost of one MRTR round.
//!
//! Group `mcp_session`: a whole session per iteration (begun with `initialize`, one `add`
//! called and checked, ended), over an in-memory pipe as in `mcp_tools_call`: `ours_serve`
//! (a clone of one [`ToolServer`] per session, as `serve --http` makes one) and
//! `rmcp_tool_router`, client and server on one current-thread runtime. It is what `bench/load`'s
//! `fresh` mode pays per call beyond HTTP and the gate: the session's work in the server's
//! handler and in rmcp's service loop, without the load bench's noise. (The same over
//! Streamable HTTP is not here: rmcp's client spends about 5 ms on a session of its own, which
//! hides the servers.)
//!
//! Group `mcp_call_paths`: one call in process through the pipeline, and through our MCP
//! client to a `serve` child process over real stdio (the conformance fixture
//! `test_simple_text` of the `conformance-server` binary).

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{
    BenchmarkGroup, Criterion, criterion_group, criterion_main, measurement::WallTime,
};
use hermes_tools::config::{Config, McpServerConfig};
use hermes_tools::mcp::client::McpClients;
use hermes_tools::mcp::server::ToolServer;
use hermes_tools::{ToolContext, ToolRegistry, tool::Tool, toolsets::Selection};
use hermes_tools_tests::add_tools::{RmcpServer, registry};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation, JsonObject, ProtocolVersion,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, RequestContext, RoleClient, RunningService,
};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ServiceExt};
use tokio::process::Command;
use tokio::runtime::Runtime;

/// The benches' client: it offers elicitation and answers every form with `{"b": 2}`, so
/// `add_asked` of 40 answers 42 like the other tools.
#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("hermes-tools-bench", "0"),
        )
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(serde_json::json!({"b": 2})))
    }
}

/// The arguments a call of `tool` sends: `{"a": 40, "b": 2}`, or `{"a": 40}` for
/// `add_asked`, which asks for `b`.
fn arguments(tool: &str) -> JsonObject {
    let mut args = JsonObject::new();
    args.insert("a".to_owned(), 40.into());
    if tool != "add_asked" {
        args.insert("b".to_owned(), 2.into());
    }
    args
}

type Session = RunningService<RoleClient, Client>;

/// A client session with one of the three servers, over a fresh in-memory pipe.
fn connect(runtime: &Runtime, server: &str) -> Session {
    runtime.block_on(duplex_session(server, &ToolServer::new(registry())))
}

fn call(runtime: &Runtime, session: &Session, tool: &'static str) -> String {
    runtime.block_on(call_in(session, tool))
}

/// One call of `tool` in `session`: its answer's text (an error answer fails the bench).
async fn call_in(session: &Session, tool: &'static str) -> String {
    let params = CallToolRequestParams::new(tool).with_arguments(arguments(tool));
    let result = session.call_tool(params).await.expect("the call succeeds");
    let text = result.content[0]
        .as_text()
        .map(|text| text.text.clone())
        .unwrap_or_default();
    assert!(result.is_error != Some(true), "{tool}: {text}");
    text
}

/// Times `add` and `add_async` on `session` with `server`, as `<server>/sync` and
/// `<server>/async`, then ends the session.
fn bench_session(
    group: &mut BenchmarkGroup<'_, WallTime>,
    runtime: &Runtime,
    server: &str,
    session: Session,
) {
    bench_tools(group, runtime, server, session, &["add", "add_async"]);
}

/// Times each of `tools` on `session` as `<server>/<kind>` (`sync`, `async`, `mrtr`), then
/// ends the session.
fn bench_tools(
    group: &mut BenchmarkGroup<'_, WallTime>,
    runtime: &Runtime,
    server: &str,
    session: Session,
    tools: &[&'static str],
) {
    for &tool in tools {
        // Every server gives the same answer before it is timed.
        assert_eq!(call(runtime, &session, tool), "42", "{server} {tool}");
        let kind = match tool {
            "add" => "sync",
            "add_async" => "async",
            _ => "mrtr",
        };
        group.bench_function(format!("{server}/{kind}"), |b| {
            b.iter(|| black_box(call(runtime, &session, tool)))
        });
    }
    runtime.block_on(async { drop(session.cancel().await) });
}

/// The runtime every group runs its client (and in-process servers) on: two workers.
fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

fn tools_call(c: &mut Criterion) {
    let runtime = runtime();
    let mut group = c.benchmark_group("mcp_tools_call");
    // rmcp's server between ours: a load that drifts during the run favours neither side.
    for server in ["ours_serve_connection", "rmcp_tool_router", "ours_serve"] {
        bench_session(&mut group, &runtime, server, connect(&runtime, server));
    }
    group.finish();
}

/// A client session with a server child process over its stdin and stdout.
fn spawn(runtime: &Runtime, server: &str) -> Session {
    runtime.block_on(async {
        let command = match server {
            "ours_stdio" => {
                let mut command = Command::new(env!("CARGO_BIN_EXE_add-server"));
                command.arg("serve");
                command
            }
            "rmcp_stdio" => Command::new(env!("CARGO_BIN_EXE_rmcp-add-server")),
            _ => {
                let mut command = Command::new(env!("CARGO_BIN_EXE_rmcp-add-server"));
                command.arg("pipes");
                command
            }
        };
        let child = TokioChildProcess::new(command).expect("the server starts");
        Client.serve(child).await.expect("the client initialises")
    })
}

fn stdio(c: &mut Criterion) {
    let runtime = runtime();
    let mut group = c.benchmark_group("mcp_stdio");
    for server in ["ours_stdio", "rmcp_stdio", "rmcp_stdio_pipes"] {
        // Closing stdin (when the session ends) ends the child.
        bench_session(&mut group, &runtime, server, spawn(&runtime, server));
    }
    group.finish();
}

/// A client session over Streamable HTTP with a server listening on loopback, begun the
/// `initialize` way.
fn over_http(runtime: &Runtime, server: &str) -> Session {
    over_http_in(runtime, server, ClientLifecycleMode::Initialize)
}

/// The same, begun as `lifecycle` says (`server/discover` for the 2026-07-28 era).
fn over_http_in(runtime: &Runtime, server: &str, lifecycle: ClientLifecycleMode) -> Session {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    // reqwest is built without a TLS provider of its own (hermes-tools installs ring when its
    // client connects); rmcp's client here builds one first.
    let _ = rustls::crypto::ring::default_provider().install_default();
    runtime.block_on(async {
        let url = if server == "ours_http" {
            let addr = "127.0.0.1:0".parse().expect("an address");
            let endpoint = ToolServer::new(registry())
                .bind_http(addr)
                .await
                .expect("bound");
            let url = endpoint.url();
            tokio::spawn(endpoint.serve());
            url
        } else {
            let service = StreamableHttpService::new(
                || Ok(RmcpServer),
                std::sync::Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default(),
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bound");
            let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
            tokio::spawn(async move { axum::serve(listener, router).await });
            url
        };
        let transport = StreamableHttpClientTransport::from_uri(url);
        Client
            .serve_with_lifecycle(transport, lifecycle)
            .await
            .expect("the client begins")
    })
}

fn http(c: &mut Criterion) {
    let runtime = runtime();
    let mut group = c.benchmark_group("mcp_http");
    for server in ["ours_http", "rmcp_http"] {
        bench_session(&mut group, &runtime, server, over_http(&runtime, server));
    }
    group.finish();
}

fn http_modern(c: &mut Criterion) {
    let runtime = runtime();
    let mut group = c.benchmark_group("mcp_http_modern");
    let modern = || ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let ours = over_http_in(&runtime, "ours_http", modern());
    bench_tools(
        &mut group,
        &runtime,
        "ours_http",
        ours,
        &["add", "add_async", "add_asked"],
    );
    let theirs = over_http_in(&runtime, "rmcp_http", modern());
    bench_session(&mut group, &runtime, "rmcp_http", theirs);
    group.finish();
}

fn simple_text_fixture() -> ToolRegistry {
    const TEXT: &str = "This is a simple text response for testing.";
    let registry = ToolRegistry::new();
    let tool = Tool::builder("test_simple_text", "conformance")
        .description("Return a simple text response, for the conformance suite.")
        .handler(|_args, _ctx| TEXT)
        .build();
    registry
        .register(tool)
        .expect("a fresh registry takes the fixture");
    registry
}

fn bench_in_process(group: &mut BenchmarkGroup<'_, WallTime>, runtime: &Runtime) {
    let local = simple_text_fixture();
    let ctx = ToolContext::new();
    group.bench_function("in_process_pipeline", |b| {
        b.iter(|| {
            runtime.block_on(async { black_box(local.call("test_simple_text", "{}", &ctx).await) })
        })
    });
}

/// One whole session with `server` (see [`duplex_session`]): begun, `add` called (its answer
/// checked), ended.
async fn one_session(server: &str, ours: &ToolServer) {
    let session = duplex_session(server, ours).await;
    assert_eq!(call_in(&session, "add").await, "42", "{server}");
    drop(session.cancel().await);
}

/// A session with `server` over a fresh in-memory pipe (`ours_serve` and
/// `ours_serve_connection`: a clone of `ours`; `rmcp_tool_router`: rmcp's); the server's task
/// ends with it.
async fn duplex_session(server: &str, ours: &ToolServer) -> Session {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let ours = ours.clone();
    match server {
        "rmcp_tool_router" => {
            tokio::spawn(async move {
                if let Ok(running) = RmcpServer.serve(server_io).await {
                    let _ = running.waiting().await;
                }
            });
        }
        "ours_serve" => {
            tokio::spawn(async move {
                if let Ok(running) = ours.serve(server_io).await {
                    let _ = running.waiting().await;
                }
            });
        }
        _ => {
            let (read, write) = tokio::io::split(server_io);
            tokio::spawn(ours.serve_connection(read, write));
        }
    }
    Client
        .serve(client_io)
        .await
        .expect("the client initialises")
}

fn sessions(c: &mut Criterion) {
    // One thread: a session's wall time is then the CPU its two sides spend, without the
    // wake-ups between workers that make a two-worker run vary by a quarter from run to run.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut group = c.benchmark_group("mcp_session");
    let ours = ToolServer::new(registry());
    for server in ["ours_serve", "rmcp_tool_router"] {
        group.bench_function(format!("{server}/duplex"), |b| {
            b.iter(|| runtime.block_on(one_session(server, &ours)))
        });
    }
    group.finish();
}

fn call_paths(c: &mut Criterion) {
    let runtime = runtime();
    let mut group = c.benchmark_group("mcp_call_paths");
    bench_in_process(&mut group, &runtime);

    let ctx = ToolContext::new();
    let remote = ToolRegistry::new();
    let config = Config {
        mcp_servers: BTreeMap::from([(
            "bench".to_owned(),
            McpServerConfig::stdio(env!("CARGO_BIN_EXE_conformance-server"), ["serve"]),
        )]),
        ..Config::default()
    };
    let clients = runtime.block_on(McpClients::start(&remote, &config, &Selection::default()));
    let answer = runtime.block_on(remote.call("mcp__bench__test_simple_text", "{}", &ctx));
    assert!(!answer.is_error(), "the stdio server answers: {answer}");
    group.bench_function("our_client_to_stdio_serve", |b| {
        b.iter(|| {
            runtime.block_on(async {
                black_box(
                    remote
                        .call("mcp__bench__test_simple_text", "{}", &ctx)
                        .await,
                )
            })
        })
    });
    group.finish();
    runtime.block_on(clients.shutdown());
}

criterion_group!(
    benches,
    tools_call,
    stdio,
    http,
    http_modern,
    sessions,
    call_paths
);
criterion_main!(benches);
