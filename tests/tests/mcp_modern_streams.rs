//! What the 2026-07-28 era sends beside a request's answer, over `serve --http` of the
//! conformance fixture, by raw HTTP: a `subscriptions/listen` stream carries the updates of the
//! resources its filter names and no others, and a call's `notifications/message` come only at
//! or above the `_meta` `logLevel` of that request (none without one), whatever level a session
//! of the `initialize` era set.

mod support;

use std::io::Read;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::HttpServer;

/// The `_meta` of a 2026-07-28 request, with `extra` keys beside the version and the client.
fn meta(extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let (Some(meta), Value::Object(extra)) = (meta.as_object_mut(), extra) {
        meta.extend(extra);
    }
    meta
}

/// An answer read as it comes: its head, then the JSON-RPC messages of its body (one JSON
/// body, or the `data:` of each SSE event), through HTTP/1.1 chunked framing when used.
struct Answer {
    stream: TcpStream,
    raw: Vec<u8>,
    head: Option<String>,
    /// The body, de-chunked, not yet cut into messages.
    body: String,
}

impl Answer {
    /// POSTs the JSON-RPC `body` (method `method`, named `name` for the `Mcp-Name` header) to
    /// `url` in the 2026-07-28 era.
    fn post(url: &str, method: &str, name: Option<&str>, body: &Value) -> Self {
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", method),
        ];
        if let Some(name) = name {
            headers.push(("Mcp-Name", name));
        }
        let stream = support::raw_send(url, "POST", &headers, &body.to_string());
        Self {
            stream,
            raw: Vec::new(),
            head: None,
            body: String::new(),
        }
    }

    /// The next message, or `None` once the answer ended (or nothing came within 10 s).
    fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(message) = self.take_message() {
                return Some(message);
            }
            let mut buffer = [0u8; 8192];
            match self.stream.read(&mut buffer) {
                Ok(0) | Err(_) => return self.take_last(),
                Ok(n) => self.raw.extend_from_slice(&buffer[..n]),
            }
            self.decode();
        }
    }

    /// Every message until the answer ends.
    fn all(mut self) -> Vec<Value> {
        std::iter::from_fn(|| self.next()).collect()
    }

    /// Moves what arrived from `raw` to `head` and `body`.
    fn decode(&mut self) {
        if self.head.is_none() {
            let Some(end) = self.raw.windows(4).position(|w| w == b"\r\n\r\n") else {
                return;
            };
            self.head = Some(String::from_utf8_lossy(&self.raw[..end]).to_ascii_lowercase());
            self.raw.drain(..end + 4);
        }
        let chunked = self
            .head
            .as_deref()
            .is_some_and(|head| head.contains("transfer-encoding: chunked"));
        if !chunked {
            self.body.push_str(&String::from_utf8_lossy(&self.raw));
            self.raw.clear();
            return;
        }
        // Chunks: a hexadecimal size line, that many bytes, CRLF.
        while let Some(line) = self.raw.windows(2).position(|w| w == b"\r\n") {
            let size = String::from_utf8_lossy(&self.raw[..line]);
            let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
            if self.raw.len() < line + 2 + size + 2 {
                return;
            }
            let chunk = self.raw[line + 2..line + 2 + size].to_vec();
            self.body.push_str(&String::from_utf8_lossy(&chunk));
            self.raw.drain(..line + 2 + size + 2);
        }
    }

    /// The next complete SSE event's message, if one arrived.
    fn take_message(&mut self) -> Option<Value> {
        loop {
            let end = self.body.find("\n\n")?;
            let event: String = self.body.drain(..end + 2).collect();
            let data: String = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            if !data.is_empty() {
                return Some(serde_json::from_str(&data).expect("an event's data is JSON"));
            }
        }
    }

    /// A JSON body (not SSE), once the answer ended.
    fn take_last(&mut self) -> Option<Value> {
        let rest = std::mem::take(&mut self.body);
        let rest = rest.trim();
        if rest.is_empty() {
            return None;
        }
        if rest.starts_with('{') {
            return Some(serde_json::from_str(rest).expect("a JSON body"));
        }
        self.body = format!("{rest}\n\n");
        self.take_message()
    }
}

fn method_of(message: &Value) -> &str {
    message["method"].as_str().unwrap_or_default()
}

/// A 2026-07-28 `tools/call` of `tool` with `arguments` and these `_meta` keys: every message
/// of its answer, the result last.
fn call(url: &str, tool: &str, arguments: Value, extra_meta: Value) -> Vec<Value> {
    let request = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"_meta": meta(extra_meta), "name": tool, "arguments": arguments},
    });
    Answer::post(url, "tools/call", Some(tool), &request).all()
}

#[test]
fn a_listen_stream_carries_updates_of_the_uris_it_names_and_no_others() {
    let server = HttpServer::start();
    let listen = json!({
        "jsonrpc": "2.0", "id": 41, "method": "subscriptions/listen",
        "params": {
            "_meta": meta(json!({})),
            "notifications": {
                "toolsListChanged": true,
                "resourcesListChanged": true,
                "resourceSubscriptions": ["test://watched-resource", "test://no-such-resource"],
            },
        },
    });
    let mut stream = Answer::post(&server.url, "subscriptions/listen", None, &listen);
    let ack = stream.next().expect("an acknowledgment");
    assert_eq!(
        method_of(&ack),
        "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    // What is honoured: the tool list, and the one URI that names a resource. The lists of
    // `#[resource]`s are fixed at link time, so their changes are not offered.
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["test://watched-resource"]}),
        "{ack}"
    );

    // An update of a URI the stream does not name goes first: had it been sent, it would
    // arrive before the one that is.
    for uri in ["test://static-text", "test://watched-resource"] {
        let answer = call(
            &server.url,
            "touch_resource",
            json!({"uri": uri}),
            json!({}),
        );
        let result = answer.last().expect("an answer");
        assert_eq!(result["result"]["isError"], false, "{result}");
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    let update = loop {
        let message = stream
            .next()
            .expect("the stream stays open with its update");
        if method_of(&message) == "notifications/resources/updated" {
            break message;
        }
        assert!(Instant::now() < deadline, "no update on the stream");
    };
    assert_eq!(
        update["params"]["uri"], "test://watched-resource",
        "{update}"
    );
    assert_eq!(
        update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 41,
        "{update}"
    );

    // The same stream still carries tool list changes.
    call(&server.url, "add_fixture_tool", json!({}), json!({}));
    let changed = stream.next().expect("a list change");
    assert_eq!(
        method_of(&changed),
        "notifications/tools/list_changed",
        "{changed}"
    );
}

#[test]
fn a_call_logs_only_at_or_above_its_own_log_level_and_not_at_all_without_one() {
    let server = HttpServer::start();
    let logs = |extra_meta: Value| -> Vec<Value> {
        let answer = call(&server.url, "test_tool_with_logging", json!({}), extra_meta);
        let result = answer.last().expect("an answer");
        assert_eq!(result["result"]["isError"], false, "{result}");
        answer
            .into_iter()
            .filter(|message| method_of(message) == "notifications/message")
            .collect()
    };
    let info = logs(json!({"io.modelcontextprotocol/logLevel": "info"}));
    let said: Vec<&str> = info
        .iter()
        .map(|message| message["params"]["data"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        said,
        [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed"
        ],
        "{info:?}"
    );
    assert!(
        info.iter()
            .all(|message| message["params"]["level"] == "info")
    );
    assert_eq!(
        logs(json!({"io.modelcontextprotocol/logLevel": "debug"})).len(),
        3
    );
    // The tool logs at `info`: nothing at or above `warning`, and nothing without a level.
    let warning = logs(json!({"io.modelcontextprotocol/logLevel": "warning"}));
    assert!(warning.is_empty(), "{warning:?}");
    let unasked = logs(json!({}));
    assert!(unasked.is_empty(), "{unasked:?}");

    let refused = call(
        &server.url,
        "test_tool_with_logging",
        json!({}),
        json!({"io.modelcontextprotocol/logLevel": "loud"}),
    );
    let error = &refused.last().expect("an answer")["error"];
    assert_eq!(error["code"], -32602, "{refused:?}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or_default()
            .contains("\"warning\""),
        "{error}"
    );
}

/// Every line `serve` (on stdio) writes until the answer with id `id`, that answer included.
fn until_answer(lines: &std::sync::mpsc::Receiver<Value>, id: u64) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("no answer {id} within 10 s after {seen:?}"));
        let done = line["id"] == id;
        seen.push(line);
        if done {
            return seen;
        }
    }
}

#[test]
fn the_level_a_legacy_client_set_never_reaches_a_modern_request() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    // On stdio one server answers every line, of either era.
    let mut child = Command::new(support::SERVER)
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("conformance-server starts");
    let stdout = child.stdout.take().expect("piped");
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(value) = serde_json::from_str::<Value>(&line) {
                let _ = send.send(value);
            }
        }
    });
    let mut stdin = child.stdin.take().expect("piped");
    let mut write = |message: Value| {
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .and_then(|()| stdin.flush())
            .expect("the server reads");
    };
    write(serde_json::from_str(support::INITIALIZE).unwrap());
    until_answer(&lines, 1);
    write(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    write(
        json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "debug"}}),
    );
    until_answer(&lines, 2);
    let logged = |messages: &[Value]| {
        messages
            .iter()
            .filter(|message| method_of(message) == "notifications/message")
            .count()
    };

    // The legacy client asked for them: it gets them.
    write(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                 "params": {"name": "test_tool_with_logging", "arguments": {}}}));
    let legacy = until_answer(&lines, 3);
    assert_eq!(logged(&legacy), 3, "{legacy:?}");
    // A request of the 2026-07-28 era that sets no level gets none.
    write(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                 "params": {"_meta": meta(json!({})), "name": "test_tool_with_logging", "arguments": {}}}));
    let modern = until_answer(&lines, 4);
    assert!(modern.last().unwrap().get("result").is_some(), "{modern:?}");
    assert_eq!(logged(&modern), 0, "{modern:?}");
    // One that sets `warning` gets none of the tool's `info` messages either.
    write(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                 "params": {"_meta": meta(json!({"io.modelcontextprotocol/logLevel": "warning"})),
                            "name": "test_tool_with_logging", "arguments": {}}}));
    let warning = until_answer(&lines, 5);
    assert_eq!(logged(&warning), 0, "{warning:?}");
    let _ = child.kill();
    let _ = child.wait();
}
