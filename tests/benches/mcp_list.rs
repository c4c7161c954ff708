//! MCP `tools/list` at 1,000 and 10,000 tools, ours beside `rmcp`'s `ToolRouter` in one run.
//!
//! Both servers hold the same generated tools ([`hermes_tools_tests::many_tools`]: the same
//! names, descriptions and two-parameter schemas) and are served by `rmcp`'s own service over
//! the same in-memory `tokio::io::duplex` pipe carrying newline-delimited JSON-RPC (what stdio
//! carries), to one `rmcp` client. Group `mcp_tools_list/<n>`:
//!
//! - `rmcp_tool_router`: `rmcp`'s server whose `tools/list` is `ToolRouter::list_all` (what
//!   `#[tool_handler]` generates), every tool in one answer;
//! - `ours_one_page`: our [`ToolServer`] with `page_size(0)`, every tool in one answer (the
//!   same work as rmcp's);
//! - `ours_paged_walk`: our server with its default page size ([`DEFAULT_PAGE_SIZE`]), the
//!   client following every `nextCursor` (`list_all_tools`): one request at 1,000 tools, ten at
//!   10,000;
//! - `ours_first_page`: the first page alone of that walk (what a client that reads one page
//!   pays).
//!
//! Every server is checked to list all `n` tools before it is timed, and the bytes of JSON its
//! tools make are printed.

use std::hint::black_box;

use criterion::{
    BenchmarkGroup, Criterion, criterion_group, criterion_main, measurement::WallTime,
};
use hermes_tools::mcp::server::{DEFAULT_PAGE_SIZE, ToolServer};
use hermes_tools_tests::many_tools::{self, RmcpMany};
use rmcp::model::{ClientConfig, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use tokio::runtime::Runtime;

/// The benches' client, of the `initialize` era (a session, as most clients today).
#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default().with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }
}

type Session = RunningService<RoleClient, Client>;

/// A client session with `server` over a fresh in-memory pipe: rmcp's server of `n` tools, or
/// ours of `n` tools with pages of `page_size`.
fn connect(runtime: &Runtime, server: &str, n: usize, page_size: usize) -> Session {
    runtime.block_on(async {
        // Wide enough that a 10,000-tool answer is not throttled by the pipe's buffer.
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        if server == "rmcp_tool_router" {
            let rmcp = RmcpMany::new(n);
            tokio::spawn(async move {
                if let Ok(running) = rmcp.serve(server_io).await {
                    let _ = running.waiting().await;
                }
            });
        } else {
            let ours = ToolServer::new(many_tools::registry(n)).page_size(page_size);
            tokio::spawn(async move {
                if let Ok(running) = ours.serve(server_io).await {
                    let _ = running.waiting().await;
                }
            });
        }
        Client
            .serve(client_io)
            .await
            .expect("the client initialises")
    })
}

/// Times one way of listing on `session`, after checking that it lists `expected` tools.
fn bench_listing(
    group: &mut BenchmarkGroup<'_, WallTime>,
    runtime: &Runtime,
    id: String,
    session: &Session,
    walk: bool,
    expected: usize,
) {
    let list = || {
        runtime.block_on(async {
            if walk {
                session.list_all_tools().await.expect("listed")
            } else {
                session.list_tools(None).await.expect("listed").tools
            }
        })
    };
    let tools = list();
    assert_eq!(tools.len(), expected, "{id}");
    // What each side sends decides much of what its client parses: printed beside the times.
    let bytes = serde_json::to_string(&tools)
        .expect("tools serialize")
        .len();
    println!(
        "{id}: {expected} tools, {bytes} bytes of JSON ({} a tool)",
        bytes / expected
    );
    group.bench_function(id, |b| b.iter(|| black_box(list())));
}

fn tools_list(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    for n in [1_000, 10_000] {
        let mut group = c.benchmark_group(format!("mcp_tools_list/{n}"));
        if n >= 10_000 {
            group.sample_size(20);
        }
        let rmcp = connect(&runtime, "rmcp_tool_router", n, 0);
        let whole = connect(&runtime, "ours", n, 0);
        let paged = connect(&runtime, "ours", n, DEFAULT_PAGE_SIZE);
        // rmcp's between ours: a load that drifts during the run favours neither side.
        bench_listing(
            &mut group,
            &runtime,
            "ours_one_page".into(),
            &whole,
            false,
            n,
        );
        bench_listing(
            &mut group,
            &runtime,
            "rmcp_tool_router".into(),
            &rmcp,
            false,
            n,
        );
        bench_listing(
            &mut group,
            &runtime,
            "ours_paged_walk".into(),
            &paged,
            true,
            n,
        );
        let first = n.min(DEFAULT_PAGE_SIZE);
        bench_listing(
            &mut group,
            &runtime,
            "ours_first_page".into(),
            &paged,
            false,
            first,
        );
        group.finish();
        for session in [rmcp, whole, paged] {
            runtime.block_on(async { drop(session.cancel().await) });
        }
    }
}

criterion_group!(benches, tools_list);
criterion_main!(benches);
