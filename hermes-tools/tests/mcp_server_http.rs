//! The MCP server over Streamable HTTP, spoken to in raw HTTP/1.1 as any client (or a hostile
//! web page) could: JSON-RPC errors for bad bodies, `Origin` checks, per-session state,
//! idle expiry, the session cap and DELETE.

#![cfg(feature = "mcp")]

mod mcp_common;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hermes_tools::mcp::server::{ServeError, ToolServer};
use mcp_common::{initialize, structured, todo_call};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const PATIENCE: Duration = Duration::from_secs(10);

/// A server bound on a free loopback port, served until the test ends.
async fn start(server: ToolServer) -> SocketAddr {
    let endpoint = server
        .bind_http("127.0.0.1:0".parse().expect("an address"))
        .await
        .expect("binds");
    let addr = endpoint.local_addr();
    tokio::spawn(endpoint.serve());
    addr
}

/// One HTTP answer: status, headers (names lowercase) and body.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The body as JSON: the JSON body itself, or the first `data:` event of an SSE stream.
    fn json(&self) -> Value {
        let text = if self
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
        {
            self.body
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim)
                .find(|data| !data.is_empty())
                .unwrap_or_default()
                .to_owned()
        } else {
            self.body.clone()
        };
        serde_json::from_str(&text).unwrap_or_else(|err| panic!("{err}: {self:?}"))
    }

    fn error_code(&self) -> i64 {
        self.json()["error"]["code"].as_i64().unwrap_or_default()
    }
}

/// A request to `/mcp`: method, extra headers, body.
async fn send(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
    send_to(addr, method, "/mcp", headers, body).await
}

/// A request to `path`: method, extra headers, body.
async fn send_to(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Answer {
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.expect("writes");
    // A body the server refuses early may not be read whole: a reset is then no error.
    let _ = stream.write_all(body).await;
    let mut raw = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut raw))
        .await
        .expect("the server answers in time")
        .expect("reads");
    parse(&raw)
}

fn parse(raw: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(name, value)| name == "transfer-encoding" && value.contains("chunked"));
    let body = if chunked {
        unchunk(body)
    } else {
        body.to_owned()
    };
    Answer {
        status,
        headers,
        body,
    }
}

fn unchunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || after.len() < size {
            break;
        }
        body.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    body
}

const JSON_HEADERS: [(&str, &str); 2] = [
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
];

/// POSTs one JSON-RPC message, in `session` if given.
async fn post(addr: SocketAddr, session: Option<&str>, message: &Value) -> Answer {
    let mut headers = JSON_HEADERS.to_vec();
    if let Some(session) = session {
        headers.push(("Mcp-Session-Id", session));
        headers.push(("MCP-Protocol-Version", "2025-11-25"));
    }
    send(addr, "POST", &headers, message.to_string().as_bytes()).await
}

/// Opens a session (`initialize` and `notifications/initialized`); returns its id.
async fn open_session(addr: SocketAddr) -> String {
    let answer = post(addr, None, &initialize(1)).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = post(addr, Some(&session), &initialized).await;
    assert_eq!(accepted.status, 202, "{accepted:?}");
    session
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_not_json_is_a_json_rpc_parse_error() {
    let (registry, _) = mcp_common::registry();
    let addr = start(mcp_common::server(&registry)).await;
    let answer = send(
        addr,
        "POST",
        &JSON_HEADERS,
        b"{\"jsonrpc\": \"2.0\", \"id\": 1,",
    )
    .await;
    assert_eq!(answer.status, 400, "{answer:?}");
    assert_eq!(answer.header("content-type"), Some("application/json"));
    assert_eq!(answer.error_code(), -32700, "{answer:?}");
    assert_eq!(answer.json()["id"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_that_is_not_a_message_is_invalid_request() {
    let (registry, _) = mcp_common::registry();
    let addr = start(mcp_common::server(&registry)).await;
    for body in [
        r#"{"id": 3, "method": "initialize"}"#,
        "[]",
        "\"initialize\"",
    ] {
        let answer = send(addr, "POST", &JSON_HEADERS, body.as_bytes()).await;
        assert_eq!(answer.status, 400, "{body}: {answer:?}");
        assert_eq!(answer.error_code(), -32600, "{body}: {answer:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_refusals_keep_their_status_with_a_json_rpc_body() {
    let (registry, _) = mcp_common::registry();
    let addr = start(mcp_common::server(&registry)).await;
    let body = initialize(1).to_string();
    let wrong_type = send(
        addr,
        "POST",
        &[("Content-Type", "text/plain"), JSON_HEADERS[1]],
        body.as_bytes(),
    )
    .await;
    assert_eq!(wrong_type.status, 415, "{wrong_type:?}");
    assert_eq!(wrong_type.error_code(), -32600);
    assert_eq!(wrong_type.json()["id"], 1, "the request's id is kept");
    let unknown = post(addr, Some("no-such-session"), &todo_call(2, None)).await;
    assert_eq!(unknown.status, 404, "{unknown:?}");
    assert_eq!(unknown.header("content-type"), Some("application/json"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_endpoint_and_its_metadata_paths_are_served() {
    let (registry, _) = mcp_common::registry();
    let addr = start(mcp_common::server(&registry)).await;
    for path in ["/", "/mcp/", "/mcp/extra", "/other", "/.well-known/other"] {
        let answer = send_to(addr, "POST", path, &JSON_HEADERS, b"{}").await;
        assert_eq!(answer.status, 404, "{path}: {answer:?}");
    }
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        // Without OAuth there is no metadata to give.
        let get = send_to(addr, "GET", path, &[], b"").await;
        assert_eq!(get.status, 404, "{path}: {get:?}");
        let post = send_to(addr, "POST", path, &JSON_HEADERS, b"{}").await;
        assert_eq!(post.status, 405, "{path}: {post:?}");
        assert_eq!(post.header("allow"), Some("GET,HEAD"), "{post:?}");
    }
    // The endpoint itself, found by its path (and its query ignored).
    let body = initialize(1).to_string();
    let answer = send_to(addr, "POST", "/mcp?x=1", &JSON_HEADERS, body.as_bytes()).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.json()["id"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversize_body_is_413_with_a_json_rpc_error_naming_the_limit() {
    let (registry, _) = mcp_common::registry();
    let addr = start(mcp_common::server(&registry).max_message_bytes(2048)).await;
    let session = open_session(addr).await;
    let big = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                     "params": {"name": "echo", "arguments": {"text": "a".repeat(5000)}}});
    let answer = post(addr, Some(&session), &big).await;
    assert_eq!(answer.status, 413, "{answer:?}");
    assert_eq!(answer.error_code(), -32600);
    assert_eq!(answer.json()["id"], 4);
    let text = answer.json()["error"]["message"].to_string();
    assert!(text.contains("2048 bytes"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_origin_is_refused_with_403_and_a_json_body() {
    let (registry, _) = mcp_common::registry();
    let server = mcp_common::server(&registry).allow_origins(["https://app.example.com"]);
    let addr = start(server).await;
    let body = initialize(1).to_string();
    let with_origin = |origin: &'static str| {
        let mut headers = JSON_HEADERS.to_vec();
        headers.push(("Origin", origin));
        headers
    };
    for origin in [
        "http://evil.example.com",
        "null",
        "https://app.example.com:8443",
    ] {
        let answer = send(addr, "POST", &with_origin(origin), body.as_bytes()).await;
        assert_eq!(answer.status, 403, "{origin}: {answer:?}");
        assert_eq!(answer.header("content-type"), Some("application/json"));
        let message = answer.json()["error"]["message"].to_string();
        assert!(message.contains("not accepted"), "{origin}: {message}");
        // Refused before anything runs: no session was opened.
        assert!(answer.header("mcp-session-id").is_none());
    }
    // The DELETE and GET of a page on another origin are refused too.
    let delete = send(addr, "DELETE", &with_origin("http://evil.example.com"), b"").await;
    assert_eq!(delete.status, 403, "{delete:?}");
    for origin in [
        "http://localhost:5173",
        "http://127.0.0.1:9",
        "https://app.example.com",
    ] {
        let answer = send(addr, "POST", &with_origin(origin), body.as_bytes()).await;
        assert_eq!(answer.status, 200, "{origin}: {answer:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_origin_that_is_not_an_origin_is_refused_at_bind() {
    let (registry, _) = mcp_common::registry();
    let refused = mcp_common::server(&registry)
        .allow_origins(["app.example.com"])
        .bind_http("127.0.0.1:0".parse().expect("an address"))
        .await;
    let Err(err @ ServeError::Origin(_)) = refused else {
        panic!("expected an origin error, got {refused:?}");
    };
    assert!(err.to_string().contains("\"app.example.com\""), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_http_session_has_its_own_state() {
    let (registry, _) = mcp_common::registry();
    let addr = start(mcp_common::server(&registry)).await;
    let (a, b) = (open_session(addr).await, open_session(addr).await);
    post(addr, Some(&a), &todo_call(2, Some("a's note"))).await;
    post(addr, Some(&b), &todo_call(2, Some("b's note"))).await;
    let read_a = post(addr, Some(&a), &todo_call(3, None)).await.json();
    let read_b = post(addr, Some(&b), &todo_call(3, None)).await.json();
    assert_eq!(
        structured(&read_a)["notes"],
        json!(["a's note"]),
        "{read_a}"
    );
    assert_eq!(
        structured(&read_b)["notes"],
        json!(["b's note"]),
        "{read_b}"
    );
    let (id_a, id_b) = (
        &structured(&read_a)["session"],
        &structured(&read_b)["session"],
    );
    assert_ne!(id_a, id_b);
    assert_ne!(
        id_a.as_str(),
        Some(a.as_str()),
        "tools never see the HTTP session id"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_outside_any_session_gets_no_session_state() {
    let (registry, _) = mcp_common::registry();
    let addr = start(mcp_common::server(&registry)).await;
    // The 2026-07-28 protocol has no session: each request stands alone.
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "todo", "arguments": {"add": "lost?"}, "_meta": meta
    }});
    let mut headers = JSON_HEADERS.to_vec();
    headers.push(("MCP-Protocol-Version", "2026-07-28"));
    headers.push(("Mcp-Method", "tools/call"));
    headers.push(("Mcp-Name", "todo"));
    let answer = send(addr, "POST", &headers, call.to_string().as_bytes()).await;
    let value = answer.json();
    assert_eq!(value["result"]["isError"], true, "{answer:?}");
    assert!(value.to_string().contains("no session"), "{value}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_expires_and_its_state_is_dropped() {
    let (registry, dropped) = mcp_common::registry();
    let server = mcp_common::server(&registry).session_idle_timeout(Duration::from_millis(300));
    let addr = start(server).await;
    let session = open_session(addr).await;
    let noted = post(addr, Some(&session), &todo_call(2, Some("soon gone"))).await;
    assert_eq!(noted.status, 200, "{noted:?}");
    // Activity keeps it alive past the timeout...
    for id in 3..6 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let read = post(addr, Some(&session), &todo_call(id, None)).await;
        assert_eq!(read.status, 200, "{read:?}");
    }
    // ...idleness ends it.
    mcp_common::wait_for(&dropped, 1).await;
    let late = post(addr, Some(&session), &todo_call(9, None)).await;
    assert_eq!(late.status, 404, "{late:?}");
    assert_eq!(late.header("content-type"), Some("application/json"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_cap_refuses_the_next_initialize_until_one_ends() {
    let (registry, _) = mcp_common::registry();
    let addr = start(mcp_common::server(&registry).max_sessions(2)).await;
    let first = open_session(addr).await;
    let _second = open_session(addr).await;
    let refused = post(addr, None, &initialize(7)).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.error_code(), -32000);
    assert_eq!(refused.json()["id"], 7);
    let message = refused.json()["error"]["message"].to_string();
    assert!(message.contains("at most 2 MCP sessions"), "{message}");
    assert!(refused.header("mcp-session-id").is_none());
    // Live sessions are untouched.
    let still = post(addr, Some(&first), &todo_call(2, None)).await;
    assert_eq!(still.status, 200, "{still:?}");

    let ended = send(addr, "DELETE", &[("Mcp-Session-Id", &first)], b"").await;
    assert_eq!(ended.status, 204, "{ended:?}");
    open_session(addr).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_ends_a_session_with_204_and_an_unknown_one_is_404() {
    let (registry, dropped) = mcp_common::registry();
    let addr = start(mcp_common::server(&registry)).await;
    let session = open_session(addr).await;
    post(addr, Some(&session), &todo_call(2, Some("note"))).await;
    let ended = send(addr, "DELETE", &[("Mcp-Session-Id", &session)], b"").await;
    assert_eq!(ended.status, 204, "{ended:?}");
    mcp_common::wait_for(&dropped, 1).await;
    assert_eq!(dropped.load(Ordering::SeqCst), 1);
    let again = send(addr, "DELETE", &[("Mcp-Session-Id", &session)], b"").await;
    assert_eq!(again.status, 404, "{again:?}");
    assert_eq!(again.error_code(), -32600);
    let after = post(addr, Some(&session), &todo_call(3, None)).await;
    assert_eq!(after.status, 404, "{after:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_call_with_bad_params_is_invalid_params_over_http_too() {
    let (registry, _) = mcp_common::registry();
    let addr = start(mcp_common::server(&registry)).await;
    let session = open_session(addr).await;
    let cases = [
        (json!({"name": 5}), "\"name\" must be a string"),
        (json!({}), "\"name\" is missing"),
        (json!("todo"), "params must be an object"),
    ];
    for (id, (params, says)) in (10..).zip(cases) {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let answer = post(addr, Some(&session), &call).await;
        let json = answer.json();
        assert_eq!(answer.error_code(), -32602, "{params}: {json}");
        assert_eq!(json["id"], id, "{json}");
        let message = json["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{params}: {message}");
    }
}
