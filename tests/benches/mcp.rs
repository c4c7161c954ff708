//! One tool call three ways: in process through the pipeline; through `serve`'s `tools/call`
//! (an rmcp client and our `ToolServer` over an in-memory pipe); and through our MCP client to
//! a `serve` child process over stdio. The tool is the conformance fixture `test_simple_text`,
//! served by the `conformance-server` binary of this crate.

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hermes_tools::config::{Config, McpServerConfig};
use hermes_tools::mcp::client::McpClients;
use hermes_tools::mcp::server::ToolServer;
use hermes_tools::{Selection, Tool, ToolContext, ToolRegistry};
use rmcp::model::CallToolRequestParams;
use rmcp::{ClientHandler, ServiceExt};

const TEXT: &str = "This is a simple text response for testing.";

fn fixture() -> ToolRegistry {
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

#[derive(Clone)]
struct Client;

impl ClientHandler for Client {}

fn calls(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let ctx = ToolContext::new();
    let mut group = c.benchmark_group("mcp_call_simple_text");

    let local = fixture();
    group.bench_function("in_process_pipeline", |b| {
        b.iter(|| {
            runtime.block_on(async { black_box(local.call("test_simple_text", "{}", &ctx).await) })
        })
    });

    let session = runtime.block_on(async {
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let server = ToolServer::new(fixture());
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        Client
            .serve(client_io)
            .await
            .expect("the client initialises")
    });
    group.bench_function("serve_tools_call_in_memory", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let params = CallToolRequestParams::new("test_simple_text".to_owned());
                black_box(session.call_tool(params).await.expect("the call succeeds"))
            })
        })
    });

    let remote = ToolRegistry::new();
    let config = Config {
        mcp_servers: BTreeMap::from([(
            "bench".to_owned(),
            McpServerConfig {
                command: env!("CARGO_BIN_EXE_conformance-server").to_owned(),
                args: vec!["serve".to_owned()],
                env: BTreeMap::new(),
                include: Vec::new(),
                exclude: Vec::new(),
                connect_timeout_secs: 30,
                call_timeout_secs: 30,
            },
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

criterion_group!(benches, calls);
criterion_main!(benches);
