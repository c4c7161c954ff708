//! `serve --http` as a plain HTTP/1.1 client meets it (not rmcp's client): one connection kept
//! alive, sequential `tools/call`s, each answer read to the end of its body. In both eras every
//! answer is right, and one that nothing needs to stream is one JSON body (one write: no small
//! writes for Nagle's algorithm to hold back); a call that reports progress keeps its SSE
//! stream with every event. Sequential calls cost a small multiple of the floor's (a minimal
//! JSON-RPC endpoint in this process), nowhere near a delayed acknowledgment's 40 ms each.

mod support;

use std::time::{Duration, Instant};

use hermes_tools_tests::load::{Client, floor};
use serde_json::json;
use support::HttpServer;

const ADD_SERVER: &str = env!("CARGO_BIN_EXE_add-server");

/// The median time of `calls` sequential `add`s on `client`, each answer checked (and JSON).
async fn median_call(client: &mut Client, calls: i64) -> Duration {
    let mut times = Vec::new();
    for b in 0..calls {
        let started = Instant::now();
        let answer = client.add(40, b).await.expect("the sum");
        times.push(started.elapsed());
        assert!(
            answer.is_json(),
            "call {b} was answered {:?}: {}",
            answer.content_type,
            String::from_utf8_lossy(&answer.body)
        );
    }
    times.sort_unstable();
    times[times.len() / 2]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sequential_calls_on_one_connection_are_json_and_unstalled_in_both_eras() {
    let server = HttpServer::start_with(ADD_SERVER, &[]);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bound");
    let floor_url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    tokio::spawn(floor::serve(listener));

    let mut legacy = Client::connect(&server.url).await.expect("connected");
    legacy.initialize().await.expect("a session");
    let mut modern = Client::connect(&server.url).await.expect("connected");
    let mut baseline = Client::connect(&floor_url).await.expect("connected");
    // Warmed up, then measured back to back.
    median_call(&mut legacy, 5).await;
    median_call(&mut modern, 5).await;
    median_call(&mut baseline, 5).await;
    let legacy_time = median_call(&mut legacy, 40).await;
    let modern_time = median_call(&mut modern, 40).await;
    let floor_time = median_call(&mut baseline, 40).await;
    // A debug build against the floor's bare parse: a generous bound, still far below what a
    // 40 ms stall per call would give (hundreds of times the floor).
    for (era, time) in [("legacy", legacy_time), ("modern", modern_time)] {
        let ratio = time.as_secs_f64() / floor_time.as_secs_f64();
        assert!(
            ratio < 40.0,
            "{era}: median call {time:?}, {ratio:.1}x the floor's {floor_time:?}"
        );
    }

    // A fresh session per call: initialize, the call, DELETE, on the same connection.
    for b in 0..3 {
        legacy.initialize().await.expect("a new session");
        assert!(legacy.add(1, b).await.expect("the sum").is_json());
        legacy.delete().await.expect("ended");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_reporting_progress_keeps_its_stream_with_every_event() {
    let server = HttpServer::start();
    let mut client = Client::connect(&server.url).await.expect("connected");
    client.initialize().await.expect("a session");
    for _ in 0..2 {
        let (id, answer) = client
            .call_raw("test_tool_with_progress", json!({}), Some("p1"))
            .await
            .expect("answered");
        assert_eq!(
            answer.content_type.as_deref(),
            Some("text/event-stream"),
            "{}",
            String::from_utf8_lossy(&answer.body)
        );
        let progress = answer
            .messages
            .iter()
            .filter(|message| message["method"] == "notifications/progress")
            .count();
        assert_eq!(progress, 3, "{:?}", answer.messages);
        assert!(answer.reply_to(id).is_some(), "{:?}", answer.messages);
        // The stream still opens with its priming event, which a client resumes from.
        assert!(answer.body.starts_with(b"data:"), "{:?}", answer.body);
        assert!(answer.body.windows(4).any(|w| w == b"id: "));
    }
    // And a quick call in the same session is JSON again.
    let (id, answer) = client
        .call_raw("test_simple_text", json!({}), None)
        .await
        .expect("answered");
    assert!(answer.is_json(), "{:?}", answer.content_type);
    assert!(answer.reply_to(id).is_some());
}
