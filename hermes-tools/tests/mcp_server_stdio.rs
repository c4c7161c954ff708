//! The MCP server on its line transport (what `serve_stdio` runs), driven as a client would
//! drive stdin/stdout: every line gets an answer, oversize lines included, and each
//! connection is a session of its own whose state ends with it.

#![cfg(feature = "mcp")]

mod mcp_common;

use std::time::Duration;

use hermes_tools::mcp::server::ToolServer;
use mcp_common::{initialize, structured, todo_call};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

const PATIENCE: Duration = Duration::from_secs(10);

/// The client's ends of one connection to a server.
struct Connection {
    write: WriteHalf<DuplexStream>,
    read: BufReader<ReadHalf<DuplexStream>>,
    served: tokio::task::JoinHandle<Result<(), hermes_tools::mcp::server::ServeError>>,
}

impl Connection {
    fn open(server: ToolServer) -> Self {
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_io);
        let served = tokio::spawn(server.serve_connection(server_read, server_write));
        let (read, write) = tokio::io::split(client_io);
        Self {
            write,
            read: BufReader::new(read),
            served,
        }
    }

    async fn send_raw(&mut self, bytes: &[u8]) {
        self.write.write_all(bytes).await.expect("writes");
    }

    async fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.send_raw(line.as_bytes()).await;
    }

    /// The next message from the server that is not a notification.
    async fn answer(&mut self) -> Value {
        loop {
            let mut line = String::new();
            let read = tokio::time::timeout(PATIENCE, self.read.read_line(&mut line))
                .await
                .expect("the server answers in time")
                .expect("reads");
            assert!(read > 0, "the server closed the connection");
            let value: Value = serde_json::from_str(&line).expect("each answer is a JSON line");
            if value.get("id").is_some() {
                return value;
            }
        }
    }

    async fn request(&mut self, message: Value) -> Value {
        self.send(&message).await;
        let answer = self.answer().await;
        assert_eq!(answer["id"], message["id"], "{answer}");
        answer
    }

    /// `initialize` and `notifications/initialized`.
    async fn handshake(&mut self) {
        let answer = self.request(initialize(0)).await;
        assert!(answer.get("result").is_some(), "{answer}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }

    /// Closes the client's side and waits for the server to finish.
    async fn close(self) {
        drop(self.write);
        drop(self.read);
        let served = tokio::time::timeout(PATIENCE, self.served)
            .await
            .expect("the server ends when the client leaves")
            .expect("joins");
        served.expect("serves without error");
    }
}

fn error_code(answer: &Value) -> i64 {
    answer["error"]["code"].as_i64().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_that_is_not_json_gets_a_parse_error_and_the_connection_goes_on() {
    let (registry, _) = mcp_common::registry();
    let mut client = Connection::open(mcp_common::server(&registry));
    client.handshake().await;
    for garbage in [
        &b"{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"tools/list\"\n"[..],
        b"hello\n",
        b"\xff\xfe\n",
    ] {
        client.send_raw(garbage).await;
        let answer = client.answer().await;
        assert_eq!(error_code(&answer), -32700, "{answer}");
        assert_eq!(answer["id"], Value::Null, "{answer}");
    }
    let listed = client
        .request(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}))
        .await;
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_that_is_not_a_request_gets_invalid_request_with_its_id() {
    let (registry, _) = mcp_common::registry();
    let mut client = Connection::open(mcp_common::server(&registry));
    client.handshake().await;
    let cases = [
        (
            json!({"id": 7, "method": "tools/list"}),
            json!(7),
            "\"jsonrpc\"",
        ),
        (
            json!([{"jsonrpc": "2.0", "id": 8, "method": "ping"}]),
            Value::Null,
            "batch",
        ),
        (
            json!({"jsonrpc": "2.0", "id": "x", "method": 3}),
            json!("x"),
            "\"method\"",
        ),
        (json!(17), Value::Null, "JSON object"),
    ];
    for (message, id, says) in cases {
        client.send(&message).await;
        let answer = client.answer().await;
        assert_eq!(error_code(&answer), -32600, "{message}: {answer}");
        assert_eq!(answer["id"], id, "{message}: {answer}");
        let text = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(text.contains(says), "{message}: {text}");
    }
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversize_message_is_answered_with_its_id_and_the_limit() {
    let (registry, _) = mcp_common::registry();
    let server = mcp_common::server(&registry).max_message_bytes(4096);
    let mut client = Connection::open(server);
    client.handshake().await;
    let big = json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call",
                     "params": {"name": "echo", "arguments": {"text": "a".repeat(10_000)}}});
    let answer = client.request(big).await;
    assert_eq!(error_code(&answer), -32600, "{answer}");
    let text = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(text.contains("limit of 4096 bytes"), "{text}");
    // Under the limit, on the same connection: served.
    let small = json!({"jsonrpc": "2.0", "id": 12, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"text": "a".repeat(1000)}}});
    let answer = client.request(small).await;
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_over_the_default_16_mib_is_answered_not_dropped() {
    let (registry, _) = mcp_common::registry();
    let mut client = Connection::open(mcp_common::server(&registry));
    client.handshake().await;
    let text = "a".repeat(hermes_tools::mcp::server::DEFAULT_MAX_MESSAGE_BYTES);
    let big = json!({"jsonrpc": "2.0", "id": 21, "method": "tools/call",
                     "params": {"name": "echo", "arguments": {"text": text}}});
    let answer = client.request(big).await;
    assert_eq!(error_code(&answer), -32600, "{answer}");
    let listed = client
        .request(json!({"jsonrpc": "2.0", "id": 22, "method": "tools/list"}))
        .await;
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_connection_is_a_session_whose_state_ends_with_it() {
    let (registry, dropped) = mcp_common::registry();
    let server = mcp_common::server(&registry);
    // Clones of one server: each connection is still a session of its own.
    let mut first = Connection::open(server.clone());
    let mut second = Connection::open(server);
    first.handshake().await;
    second.handshake().await;
    first.request(todo_call(1, Some("first's note"))).await;
    second.request(todo_call(1, Some("second's note"))).await;
    let first_read = first.request(todo_call(2, None)).await;
    let second_read = second.request(todo_call(2, None)).await;
    assert_eq!(structured(&first_read)["notes"], json!(["first's note"]));
    assert_eq!(structured(&second_read)["notes"], json!(["second's note"]));
    let (a, b) = (
        structured(&first_read)["session"]
            .as_str()
            .unwrap_or_default(),
        structured(&second_read)["session"]
            .as_str()
            .unwrap_or_default(),
    );
    assert!(
        a.starts_with("mcp-") && b.starts_with("mcp-") && a != b,
        "{a} {b}"
    );

    assert_eq!(dropped.load(std::sync::atomic::Ordering::SeqCst), 0);
    first.close().await;
    mcp_common::wait_for(&dropped, 1).await;
    // The other session keeps its state.
    let still = second.request(todo_call(3, None)).await;
    assert_eq!(structured(&still)["notes"], json!(["second's note"]));
    second.close().await;
    mcp_common::wait_for(&dropped, 2).await;
}
