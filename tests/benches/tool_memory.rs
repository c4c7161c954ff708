//! Memory per registered tool: N generated tools registered through the runtime's API
//! ([`Tool::builder`](hermes_tools::tool::Tool::builder) and `ToolRegistry::register`) beside
//! the same N tools in `rmcp`'s `ToolRouter`, each in a process of its own, measured two ways:
//!
//! - **heap**: the bytes of the allocations alive after registering, less those alive before,
//!   counted by this program's global allocator (exact; the allocator's own per-block
//!   overhead, about 8 to 16 bytes, is not counted, so the block count is shown too);
//! - **RSS**: the resident set growth (`/proc/self/statm`), what the operating system sees,
//!   allocator slack included.
//!
//! Both are also measured after one client listed the tools through the server (over an
//! in-memory pipe): ours keeps each tool's MCP definition, rendered once, and the rendered list
//! its sessions share; rmcp renders nothing ahead and keeps nothing.
//!
//! `cargo bench -p hermes-tools-tests --bench tool_memory` (sizes 1,000 and 10,000; `-- N...`
//! for others). The tools are those of [`hermes_tools_tests::many_tools`].

// A counting allocator implements `GlobalAlloc`, an unsafe trait: it forwards every call to
// the system allocator unchanged and only adds to counters.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::process::Command;
use std::sync::atomic::{AtomicIsize, Ordering};

use hermes_tools_tests::many_tools;

/// The bytes and blocks alive.
static BYTES: AtomicIsize = AtomicIsize::new(0);
static BLOCKS: AtomicIsize = AtomicIsize::new(0);

/// The system allocator, counting.
struct Counting;

// SAFETY: each method calls the system allocator with the caller's own arguments, so it keeps
// every promise the system allocator keeps; the counters are plain atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, passed on.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize, 1);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, passed on.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count(layout.size() as isize, 1);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's block and layout, passed on.
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as isize), -1);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's block, layout and size, passed on.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        if !moved.is_null() {
            count(new_size as isize - layout.size() as isize, 0);
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn count(bytes: isize, blocks: isize) {
    BYTES.fetch_add(bytes, Ordering::Relaxed);
    BLOCKS.fetch_add(blocks, Ordering::Relaxed);
}

/// What is alive: (heap bytes, heap blocks, resident bytes).
fn alive() -> (isize, isize, isize) {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: isize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|pages| pages.parse().ok())
        .unwrap_or(0);
    (
        BYTES.load(Ordering::Relaxed),
        BLOCKS.load(Ordering::Relaxed),
        pages * 4096,
    )
}

/// One measurement, in this process: prints `heap blocks rss` growth for `what` of `n` tools
/// when registered, then after one client listed them through the server.
fn measure(what: &str, n: usize) {
    // Warm what a first registration or route sets up once (tracing's callsites, statics).
    black_box(many_tools::registry(1));
    black_box(many_tools::router(1));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let before = alive();
    let grown = |at: (isize, isize, isize)| {
        format!(
            "{} {} {}",
            at.0 - before.0,
            at.1 - before.1,
            at.2 - before.2
        )
    };
    if what == "rmcp" {
        let server = many_tools::RmcpMany::new(n);
        println!("{}", grown(alive()));
        assert_eq!(runtime.block_on(list_once(server.clone())), n);
        println!("{}", grown(alive()));
        black_box(&server);
    } else {
        let registry = many_tools::registry(n);
        println!("{}", grown(alive()));
        let server = hermes_tools::mcp::server::ToolServer::new(registry.clone());
        assert_eq!(runtime.block_on(list_once(server)), n);
        println!("{}", grown(alive()));
        black_box(&registry);
    }
}

/// Lists the tools of `server` once over an in-memory pipe, as a client would; what the server
/// keeps afterwards (with its registry) is what a served listing costs.
async fn list_once<S: rmcp::ServerHandler>(server: S) -> usize {
    use rmcp::ServiceExt;

    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let serving = tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("the client initialises");
    let listed = client.list_all_tools().await.expect("listed").len();
    drop(client.cancel().await);
    drop(serving.await);
    listed
}

/// Runs one measurement in a child process of this program (a fresh heap and RSS).
fn in_child(what: &str, n: usize) -> Vec<[isize; 3]> {
    let exe = std::env::current_exe().expect("this program");
    let output = Command::new(exe)
        .args(["--measure", what, &n.to_string()])
        .output()
        .expect("the child runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| {
            let mut fields = line
                .split_whitespace()
                .map(|field| field.parse().unwrap_or(0));
            [(); 3].map(|()| fields.next().unwrap_or(0))
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, what, n] = &args[..]
        && flag == "--measure"
    {
        measure(what, n.parse().expect("a count"));
        return;
    }
    let sizes: Vec<usize> = args.iter().filter_map(|arg| arg.parse().ok()).collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000]
    } else {
        sizes
    };
    let per_tool = |bytes: isize, n: usize| bytes as f64 / n as f64;
    println!("| tools | what | heap per tool | blocks per tool | RSS per tool |");
    println!("|---|---|---|---|---|");
    for n in sizes {
        let ours = in_child("ours", n);
        let rmcp = in_child("rmcp", n);
        let rows = [
            ("ours, registered", ours[0]),
            ("rmcp ToolRouter, registered", rmcp[0]),
            ("ours, after one tools/list", ours[1]),
            ("rmcp, after one tools/list", rmcp[1]),
        ];
        for (what, [heap, blocks, rss]) in rows {
            println!(
                "| {n} | {what} | {:.0} B | {:.1} | {:.0} B |",
                per_tool(heap, n),
                per_tool(blocks, n),
                per_tool(rss, n)
            );
        }
        for (when, at) in [("registered", 0), ("after one tools/list", 1)] {
            let ratio = |field: usize| ours[at][field] as f64 / rmcp[at][field] as f64;
            println!(
                "| {n} | ours / rmcp, {when} | {:.2}× | {:.2}× | {:.2}× |",
                ratio(0),
                ratio(1),
                ratio(2)
            );
        }
    }
}
