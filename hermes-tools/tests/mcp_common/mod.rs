//! What the MCP server tests over stdio and HTTP share: a registry with a tool that keeps
//! per-session state (named `todo`, so it is an agent-loop tool), and a count of the session
//! states dropped.

#![allow(dead_code, reason = "each test file uses its part")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use hermes_tools::mcp::server::ToolServer;
use hermes_tools::{ToolRegistry, tool::Tool};
use parking_lot::Mutex;
use serde_json::{Value, json};

/// The state the `todo` fixture keeps in its session; counts itself when dropped.
#[derive(Default)]
pub struct Notes {
    items: Mutex<Vec<String>>,
    dropped: OnceLock<Arc<AtomicUsize>>,
}

impl Drop for Notes {
    fn drop(&mut self) {
        if let Some(dropped) = self.dropped.get() {
            dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// A registry with `todo` (`{"add": TEXT}` appends; answers the session id and its notes)
/// and `echo`; the counter counts the session states dropped.
pub fn registry() -> (ToolRegistry, Arc<AtomicUsize>) {
    let registry = ToolRegistry::new();
    let dropped = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&dropped);
    let todo = Tool::builder("todo", "demo")
        .description("Keep notes for this session.")
        .parameters(json!({
            "type": "object",
            "properties": {"add": {"type": "string", "description": "A note to add."}}
        }))
        .handler(move |args, ctx| {
            let Some(notes) = ctx.session_state::<Notes>() else {
                return Err("no session".to_owned());
            };
            notes.dropped.get_or_init(|| Arc::clone(&counter));
            let mut items = notes.items.lock();
            if let Some(text) = args["add"].as_str() {
                items.push(text.to_owned());
            }
            Ok(json!({"session": ctx.session_id(), "notes": *items}))
        });
    let echo = Tool::builder("echo", "demo")
        .description("Return the text it is given.")
        .parameters(json!({
            "type": "object",
            "properties": {"text": {"type": "string", "description": "What to echo."}},
            "required": ["text"]
        }))
        .handler(|args, _ctx| json!({"echo": args["text"]}));
    for tool in [todo, echo] {
        registry.register(tool.build()).expect("registers");
    }
    (registry, dropped)
}

/// A server over `registry` that serves `todo`.
pub fn server(registry: &ToolRegistry) -> ToolServer {
    ToolServer::new(registry.clone())
        .agent_loop_tools(true)
        .poll_interval(Duration::from_millis(20))
}

/// Waits until `counter` reaches `expected` (session ends are asynchronous), at most 5 s.
pub async fn wait_for(counter: &AtomicUsize, expected: usize) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while counter.load(Ordering::SeqCst) < expected {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{} of {expected} session states dropped after 5 s",
            counter.load(Ordering::SeqCst)
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The `tools/call` request for `todo`, adding `note` if given.
pub fn todo_call(id: u64, note: Option<&str>) -> Value {
    let arguments = note.map_or_else(|| json!({}), |note| json!({"add": note}));
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "todo", "arguments": arguments}})
}

/// The `initialize` request of the 2025-11-25 protocol.
pub fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}
    }})
}

/// The structured answer of a `tools/call` response.
pub fn structured(response: &Value) -> &Value {
    &response["result"]["structuredContent"]
}
