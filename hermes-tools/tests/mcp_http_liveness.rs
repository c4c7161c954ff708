//! No answer lost, no connection held forever, over `serve --http`, spoken to in raw HTTP/1.1:
//! a call or an open stream keeps its session past the idle timeout; a client that disconnects
//! mid-call can resume its answer until that timeout, after which the call is cancelled and its
//! process killed (at once in the 2026-07-28 era); idle connections are bounded by the header
//! read timeout and the connection cap, while other clients are served.

#![cfg(all(feature = "mcp", target_os = "linux"))]

mod mcp_common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hermes_tools::mcp::server::ToolServer;
use hermes_tools::{ToolRegistry, tool::Tool};
use mcp_common::initialize;
use parking_lot::Mutex;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// The guard against a hang: far past any bound a test waits for.
const PATIENCE: Duration = Duration::from_secs(30);

/// The pids of the processes the `child` tool started.
type Pids = Arc<Mutex<Vec<u32>>>;

/// A registry with `slow` (sleeps `ms`, answers `"done"`) and `child` (runs `sleep SECONDS`
/// as a child process, killed if the call's future is dropped; answers `"exited"`).
fn registry() -> (ToolRegistry, Pids) {
    let registry = ToolRegistry::new();
    let pids = Pids::default();
    let slow = Tool::builder("slow", "demo")
        .description("Sleep for a while, then answer.")
        .parameters(json!({"type": "object", "properties": {
            "ms": {"type": "integer", "description": "Milliseconds to sleep."}}}))
        .async_handler(|args, _ctx| async move {
            let ms = args["ms"].as_u64().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            json!({"slept": "done"})
        });
    let started = Arc::clone(&pids);
    let child = Tool::builder("child", "demo")
        .description("Run sleep as a child process.")
        .parameters(json!({"type": "object", "properties": {
            "seconds": {"type": "integer", "description": "Seconds to sleep."}}}))
        .async_handler(move |args, _ctx| {
            let started = Arc::clone(&started);
            async move {
                let seconds = args["seconds"].as_u64().unwrap_or(1).to_string();
                let mut child = tokio::process::Command::new("sleep")
                    .arg(seconds)
                    .kill_on_drop(true)
                    .spawn()
                    .map_err(|err| err.to_string())?;
                started.lock().push(child.id().unwrap_or_default());
                child.wait().await.map_err(|err| err.to_string())?;
                Ok::<_, String>(json!({"child": "exited"}))
            }
        });
    for tool in [slow, child] {
        registry.register(tool.build()).expect("registers");
    }
    (registry, pids)
}

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

/// A request sent, its answer read as it comes.
struct Exchange {
    stream: TcpStream,
    raw: Vec<u8>,
}

impl Exchange {
    /// Sends `method /mcp` with `headers` and `body` (`Connection: close`).
    async fn send(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> Self {
        let mut stream = TcpStream::connect(addr).await.expect("connects");
        let mut head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        head.push_str(body);
        stream.write_all(head.as_bytes()).await.expect("writes");
        Self {
            stream,
            raw: Vec::new(),
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }

    /// Reads until the text read so far contains `needle`; false if the answer ended first.
    async fn until(&mut self, needle: &str) -> bool {
        let deadline = Instant::now() + PATIENCE;
        while !self.text().contains(needle) {
            let mut buf = [0; 8192];
            let read = tokio::time::timeout_at(deadline, self.stream.read(&mut buf))
                .await
                .unwrap_or_else(|_| panic!("no {needle:?} in {PATIENCE:?}: {}", self.text()));
            match read {
                Ok(0) | Err(_) => return false,
                Ok(n) => self.raw.extend_from_slice(&buf[..n]),
            }
        }
        true
    }

    /// Reads the whole answer.
    async fn finish(mut self) -> String {
        tokio::time::timeout(PATIENCE, self.stream.read_to_end(&mut self.raw))
            .await
            .expect("the answer ends in time")
            .expect("reads");
        self.text()
    }
}

/// The status of an HTTP answer's text.
fn status(text: &str) -> u16 {
    text.split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {text:?}"))
}

/// The headers of a request in `session` (of the 2025-11-25 protocol).
fn in_session(session: &str) -> Vec<(&str, &str)> {
    vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25"),
    ]
}

fn call(id: u64, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

/// Opens a session; returns its id.
async fn open_session(addr: SocketAddr) -> String {
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let answer = Exchange::send(addr, "POST", &headers, &initialize(1).to_string())
        .await
        .finish()
        .await;
    assert_eq!(status(&answer), 200, "{answer}");
    let session = answer
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = Exchange::send(
        addr,
        "POST",
        &in_session(&session),
        &initialized.to_string(),
    )
    .await
    .finish()
    .await;
    assert_eq!(status(&accepted), 202, "{accepted}");
    session
}

/// The status of a quick call in `session`: 200 while it lives, 404 once it ended.
async fn session_status(addr: SocketAddr, session: &str) -> u16 {
    let answer = Exchange::send(
        addr,
        "POST",
        &in_session(session),
        &call(90, "slow", json!({})),
    )
    .await
    .finish()
    .await;
    status(&answer)
}

/// Waits until `session`, idle for `idle`, has ended (its id answers 404). Each look is a
/// request, which restarts the session's clock: the looks are ever further apart.
async fn ended(addr: SocketAddr, session: &str, idle: Duration) {
    let deadline = Instant::now() + PATIENCE;
    let mut pause = idle * 2;
    loop {
        tokio::time::sleep(pause).await;
        if session_status(addr, session).await == 404 {
            return;
        }
        assert!(Instant::now() < deadline, "the session never ended");
        pause *= 2;
    }
}

/// Whether process `pid` runs (a zombie does not).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X'))
    })
}

/// The pid of the first `child` process, once started.
async fn first_pid(pids: &Pids) -> u32 {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(pid) = pids.lock().first() {
            return *pid;
        }
        assert!(
            Instant::now() < deadline,
            "the tool never started its child"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Waits until process `pid` is gone.
async fn gone(pid: u32) {
    let deadline = Instant::now() + PATIENCE;
    while running(pid) {
        assert!(Instant::now() < deadline, "process {pid} still runs");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_longer_than_the_idle_timeout_is_answered_and_the_session_kept() {
    let (registry, _) = registry();
    let idle = Duration::from_millis(300);
    let addr = start(ToolServer::new(registry).session_idle_timeout(idle)).await;
    let session = open_session(addr).await;
    // Five idle timeouts without a message on the session: the call keeps it.
    let answer = Exchange::send(
        addr,
        "POST",
        &in_session(&session),
        &call(2, "slow", json!({"ms": 1500})),
    )
    .await
    .finish()
    .await;
    assert_eq!(status(&answer), 200, "{answer}");
    assert!(answer.contains(r#"\"slept\":\"done\""#), "{answer}");
    assert_eq!(session_status(addr, &session).await, 200);
    // Once nothing keeps it, idleness ends it.
    ended(addr, &session, idle).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_get_stream_keeps_its_session_until_it_closes() {
    let (registry, _) = registry();
    let idle = Duration::from_millis(300);
    let addr = start(ToolServer::new(registry).session_idle_timeout(idle)).await;
    let session = open_session(addr).await;
    let mut headers = in_session(&session);
    headers.retain(|(name, _)| *name != "Content-Type");
    headers[0] = ("Accept", "text/event-stream");
    let mut stream = Exchange::send(addr, "GET", &headers, "").await;
    assert!(stream.until("\r\n\r\n").await, "{}", stream.text());
    assert_eq!(status(&stream.text()), 200, "{}", stream.text());
    tokio::time::sleep(idle * 4).await;
    assert_eq!(
        session_status(addr, &session).await,
        200,
        "kept by its stream"
    );
    drop(stream);
    ended(addr, &session, idle).await;
}

/// A `child` call in `session`, read up to its first event; the id of that event.
async fn call_child(addr: SocketAddr, session: &str, seconds: u64) -> (Exchange, String) {
    let mut exchange = Exchange::send(
        addr,
        "POST",
        &in_session(session),
        &call(3, "child", json!({"seconds": seconds})),
    )
    .await;
    assert!(exchange.until("retry:").await, "{}", exchange.text());
    let text = exchange.text();
    let event = text
        .lines()
        .find_map(|line| line.strip_prefix("id:"))
        .expect("the priming event has an id")
        .trim()
        .to_owned();
    (exchange, event)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_disconnects_mid_call_resumes_its_answer_within_the_idle_timeout() {
    let (registry, pids) = registry();
    let addr = start(ToolServer::new(registry).session_idle_timeout(Duration::from_secs(10))).await;
    let session = open_session(addr).await;
    let (exchange, event) = call_child(addr, &session, 1).await;
    let pid = first_pid(&pids).await;
    drop(exchange);
    // The call runs on without its client, to its end...
    gone(pid).await;
    // ...and its answer waits for the client, who resumes the stream.
    let mut headers = in_session(&session);
    headers.retain(|(name, _)| *name != "Content-Type");
    headers[0] = ("Accept", "text/event-stream");
    headers.push(("Last-Event-ID", &event));
    let resumed = Exchange::send(addr, "GET", &headers, "")
        .await
        .finish()
        .await;
    assert_eq!(status(&resumed), 200, "{resumed}");
    assert!(resumed.contains(r#"\"child\":\"exited\""#), "{resumed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_nobody_comes_back_for_is_cancelled_with_its_session_and_its_process_killed() {
    let (registry, pids) = registry();
    let idle = Duration::from_secs(3);
    let addr = start(ToolServer::new(registry).session_idle_timeout(idle)).await;
    let session = open_session(addr).await;
    let (exchange, _) = call_child(addr, &session, 600).await;
    let pid = first_pid(&pids).await;
    let left = Instant::now();
    drop(exchange);
    tokio::time::sleep(Duration::from_millis(200)).await;
    if left.elapsed() < idle {
        assert!(
            running(pid),
            "the call is kept for its client until the idle timeout"
        );
    }
    gone(pid).await;
    assert!(
        left.elapsed() >= idle,
        "killed only once the idle timeout passed ({:?})",
        left.elapsed()
    );
    ended(addr, &session, idle).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessionless_call_whose_client_disconnects_is_cancelled_at_once() {
    let (registry, pids) = registry();
    // An idle timeout no wait below comes near: the 2026-07-28 era has no session to wait on.
    let addr =
        start(ToolServer::new(registry).session_idle_timeout(Duration::from_secs(3600))).await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"_meta": meta, "name": "child", "arguments": {"seconds": 600}}});
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "child"),
    ];
    let exchange = Exchange::send(addr, "POST", &headers, &body.to_string()).await;
    let pid = first_pid(&pids).await;
    assert!(running(pid));
    drop(exchange);
    // Far below the hour of idle timeout: the disconnect itself cancels the call.
    gone(pid).await;
}

/// Whether `stream` is open with nothing sent on it.
fn open_and_silent(stream: &TcpStream) -> bool {
    let mut buf = [0; 1];
    matches!(stream.try_read(&mut buf), Err(err) if err.kind() == std::io::ErrorKind::WouldBlock)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hundred_idle_connections_are_held_while_other_clients_are_served() {
    let (registry, _) = registry();
    let addr = start(ToolServer::new(registry)).await;
    let mut idle = Vec::new();
    for _ in 0..500 {
        idle.push(TcpStream::connect(addr).await.expect("connects"));
    }
    for _ in 0..3 {
        let session = open_session(addr).await;
        assert_eq!(session_status(addr, &session).await, 200);
    }
    let silent = idle.iter().filter(|stream| open_and_silent(stream)).count();
    assert_eq!(
        silent, 500,
        "each idle connection is held, neither answered nor closed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_sends_nothing_is_closed_after_the_header_read_timeout() {
    let (registry, _) = registry();
    let timeout = Duration::from_millis(500);
    let addr = start(ToolServer::new(registry).header_read_timeout(timeout)).await;
    let opened = Instant::now();
    let mut silent = TcpStream::connect(addr).await.expect("connects");
    // A keep-alive connection, idle after its first answer.
    let mut kept = TcpStream::connect(addr).await.expect("connects");
    let request =
        format!("GET /.well-known/oauth-protected-resource HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    kept.write_all(request.as_bytes()).await.expect("writes");
    let mut first = [0; 12];
    kept.read_exact(&mut first).await.expect("an answer");
    assert_eq!(&first, b"HTTP/1.1 404");
    for stream in [&mut silent, &mut kept] {
        let mut rest = Vec::new();
        // Closed by the server (a reset counts too): the read ends instead of waiting.
        let _ = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut rest))
            .await
            .expect("the server closed the idle connection");
    }
    assert!(opened.elapsed() >= timeout, "not closed before its timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_connection_cap_a_connection_is_answered_503_with_retry_after() {
    let (registry, _) = registry();
    let addr = start(ToolServer::new(registry).max_connections(2)).await;
    let first = TcpStream::connect(addr).await.expect("connects");
    let _second = TcpStream::connect(addr).await.expect("connects");
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let refused = Exchange::send(addr, "POST", &headers, &initialize(1).to_string())
        .await
        .finish()
        .await;
    assert_eq!(status(&refused), 503, "{refused}");
    let lower = refused.to_ascii_lowercase();
    assert!(lower.contains("\r\nretry-after: 1\r\n"), "{refused}");
    assert!(lower.contains("\r\nconnection: close\r\n"), "{refused}");
    let body: Value = serde_json::from_str(refused.split("\r\n\r\n").nth(1).unwrap_or_default())
        .unwrap_or_else(|err| panic!("{err}: {refused}"));
    assert_eq!(body["error"]["code"], -32000, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("at most 2 HTTP connections"), "{message}");
    // A place freed is taken again.
    drop(first);
    let deadline = Instant::now() + PATIENCE;
    loop {
        let answer = Exchange::send(addr, "POST", &headers, &initialize(2).to_string())
            .await
            .finish()
            .await;
        if status(&answer) == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "never served again: {answer}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
