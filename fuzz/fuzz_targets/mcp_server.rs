//! The MCP server's handling of arbitrary messages on a line transport (what `serve` speaks on
//! stdio), after a real handshake. Properties: every line out is a JSON-RPC message; every
//! input line that is not JSON gets a parse error (-32700); every request gets its answer
//! (unless the client cancelled it); the session ends when the client closes its end.

#![no_main]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;
use std::time::Duration;

use hermes_tools::mcp::server::ToolServer;
use hermes_tools::{ToolRegistry, tool};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Answer the text given.
#[tool(toolset = "fuzz")]
fn echo(
    /// The text.
    text: String,
) -> String {
    text
}

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
});

const HANDSHAKE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);

/// What the input lines call for: how many parse errors, which request ids must be answered.
fn expected(lines: &[&str]) -> (usize, BTreeSet<String>) {
    let mut parse_errors = 0;
    let mut ids: BTreeMap<String, usize> = BTreeMap::new();
    let mut cancelled = BTreeSet::new();
    for line in lines {
        // The server's rule (`jsonrpc::read_message`): a BOM off, then ASCII whitespace. Not
        // `str::trim`, which also takes a vertical tab (U+000B) or a NEL off the ends: JSON
        // does not, so the server rightly answers such a line with a parse error.
        let text = line
            .trim_start_matches('\u{feff}')
            .trim_matches(|c: char| c.is_ascii_whitespace());
        if text.is_empty() {
            continue;
        }
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            parse_errors += 1;
            continue;
        };
        if value["method"] == "notifications/cancelled" {
            cancelled.insert(value["params"]["requestId"].to_string());
        }
        let is_request = value["jsonrpc"] == "2.0"
            && value["method"].is_string()
            && (value["id"].is_string() || value["id"].is_i64() || value["id"].is_u64());
        if is_request {
            *ids.entry(value["id"].to_string()).or_default() += 1;
        }
    }
    // An id used twice, or cancelled, has no single answer to look for.
    let answered = ids
        .into_iter()
        .filter(|(id, n)| *n == 1 && !cancelled.contains(id) && id != "\"init\"")
        .map(|(id, _)| id)
        .collect();
    (parse_errors, answered)
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // One message per line: a line may not hold a newline of its own.
    let lines: Vec<&str> = text.split('\n').collect();
    let (parse_errors, mut waiting) = expected(&lines);
    RUNTIME.block_on(async {
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        let serving = tokio::spawn(
            ToolServer::new(ToolRegistry::linked()).serve_connection(server_read, server_write),
        );
        let (client_read, mut client_write) = tokio::io::split(client);
        client_write.write_all(HANDSHAKE.as_bytes()).await.unwrap();
        client_write.write_all(text.as_bytes()).await.unwrap();
        client_write.write_all(b"\n").await.unwrap();
        let mut out = BufReader::new(client_read).lines();
        let mut seen_parse_errors = 0;
        let read = tokio::time::timeout(Duration::from_secs(10), async {
            while seen_parse_errors < parse_errors || !waiting.is_empty() {
                let Some(line) = out.next_line().await.unwrap() else {
                    break;
                };
                let message: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|err| panic!("a line out is not JSON ({err}): {line}"));
                assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC: {line}");
                if message["error"]["code"] == -32700 {
                    assert!(message["id"].is_null(), "a parse error with an id: {line}");
                    seen_parse_errors += 1;
                }
                waiting.remove(&message["id"].to_string());
            }
        })
        .await;
        assert!(
            read.is_ok(),
            "no answer within 10 s: {} parse errors of {parse_errors} seen, waiting for {waiting:?}",
            seen_parse_errors
        );
        assert_eq!(seen_parse_errors, parse_errors, "parse errors answered");
        assert!(waiting.is_empty(), "requests never answered: {waiting:?}");
        drop(client_write);
        drop(out);
        let ended = tokio::time::timeout(Duration::from_secs(10), serving).await;
        assert!(ended.is_ok(), "the session outlived its client");
    });
});
