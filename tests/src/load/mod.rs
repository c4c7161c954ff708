//! A plain HTTP/1.1 MCP client over Streamable HTTP, as most HTTP stacks are: one connection
//! kept alive, each answer read to the end of its body. What the load bench
//! (`src/bin/load.rs`, run by `bench/load`) drives servers with, and what the keep-alive tests
//! call `serve --http` with. It is not rmcp's client: rmcp's hides how an answer is written.
//!
//! Three ways of calling ([`Mode`]): in a session of the `initialize` era (`2025-11-25`), kept
//! for every call; in the 2026-07-28 era, with no session (each request carries its version and
//! client in `_meta`); and with a fresh session per call (initialize, call, DELETE).

pub mod floor;

use std::fmt;
use std::net::SocketAddr;

use axum::body::{Body, Bytes};
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;

/// The protocol version of a session of the `initialize` era.
pub const LEGACY_VERSION: &str = "2025-11-25";

/// The first protocol version without sessions.
pub const MODERN_VERSION: &str = "2026-07-28";

/// The longest answer read.
const ANSWER_BYTES: usize = 1 << 20;

/// How a client calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One `initialize`-era session per client, kept for all its calls.
    Legacy,
    /// 2026-07-28 requests, no session.
    Modern,
    /// A fresh `initialize`-era session per call: initialize, initialized, call, DELETE.
    Fresh,
}

impl Mode {
    /// The mode named `name` (`legacy`, `modern`, `fresh`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "legacy" => Some(Self::Legacy),
            "modern" => Some(Self::Modern),
            "fresh" => Some(Self::Fresh),
            _ => None,
        }
    }
}

/// What went wrong with a request.
#[derive(Debug)]
pub struct LoadError(pub String);

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LoadError {}

fn fail(what: impl fmt::Display) -> LoadError {
    LoadError(what.to_string())
}

/// An answer: its status, media type, headers of interest, and the JSON-RPC messages of its
/// body (one JSON body, or each SSE event's data).
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: StatusCode,
    /// The `Content-Type`, if any.
    pub content_type: Option<String>,
    /// The `Mcp-Session-Id`, if any.
    pub session: Option<String>,
    /// The messages of the body.
    pub messages: Vec<Value>,
    /// The body as it came (its SSE framing, when SSE).
    pub body: Bytes,
}

impl Answer {
    /// The message answering request `id` (a result or an error), if the body has one.
    pub fn reply_to(&self, id: u64) -> Option<&Value> {
        self.messages.iter().find(|message| {
            message.get("id") == Some(&json!(id))
                && (message.get("result").is_some() || message.get("error").is_some())
        })
    }

    /// Whether the body was one JSON document (not an SSE stream).
    pub fn is_json(&self) -> bool {
        self.content_type
            .as_deref()
            .is_some_and(|media| media.starts_with("application/json"))
    }
}

/// One keep-alive HTTP/1.1 connection to a Streamable HTTP endpoint.
pub struct Client {
    addr: SocketAddr,
    authority: String,
    path: String,
    sender: SendRequest<Body>,
    session: Option<String>,
    next_id: u64,
    /// The `Accept` header sent with each POST.
    pub accept: String,
}

impl Client {
    /// Connects to `url` (`http://HOST:PORT/PATH`), with `TCP_NODELAY` as an HTTP stack
    /// sets it.
    ///
    /// # Errors
    ///
    /// A URL that is not `http://` with an IP address and port, or a failed connection.
    pub async fn connect(url: &str) -> Result<Self, LoadError> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| fail(format!("{url} is not an http:// URL")))?;
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let addr: SocketAddr = authority
            .parse()
            .map_err(|_| fail(format!("{authority} is not IP:PORT")))?;
        let sender = open(addr).await?;
        Ok(Self {
            addr,
            authority: authority.to_owned(),
            path: format!("/{path}"),
            sender,
            session: None,
            next_id: 0,
            accept: "application/json, text/event-stream".to_owned(),
        })
    }

    /// Opens a new connection in place of the current one (after a failure).
    ///
    /// # Errors
    ///
    /// A failed connection.
    pub async fn reconnect(&mut self) -> Result<(), LoadError> {
        self.sender = open(self.addr).await?;
        Ok(())
    }

    /// The session this client holds, if any.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// Opens a session of the `initialize` era: `initialize`, then `notifications/initialized`.
    ///
    /// # Errors
    ///
    /// A failed request, or an answer without a session or a result.
    pub async fn initialize(&mut self) -> Result<(), LoadError> {
        self.session = None;
        let id = self.id();
        let body = json!({
            "jsonrpc": "2.0", "id": id, "method": "initialize",
            "params": {
                "protocolVersion": LEGACY_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "load", "version": "1"},
            },
        });
        let answer = self.post(&body, LEGACY_VERSION, "initialize", None).await?;
        if answer
            .reply_to(id)
            .and_then(|reply| reply.get("result"))
            .is_none()
        {
            return Err(fail(format!(
                "initialize was answered {} without a result: {}",
                answer.status,
                String::from_utf8_lossy(&answer.body)
            )));
        }
        self.session = Some(
            answer
                .session
                .ok_or_else(|| fail("initialize was answered without Mcp-Session-Id"))?,
        );
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let answer = self
            .post(
                &initialized,
                LEGACY_VERSION,
                "notifications/initialized",
                None,
            )
            .await?;
        if !answer.status.is_success() {
            return Err(fail(format!(
                "notifications/initialized was answered {}",
                answer.status
            )));
        }
        Ok(())
    }

    /// Ends the session this client holds (HTTP DELETE), if any.
    ///
    /// # Errors
    ///
    /// A failed request, or a status other than 2xx.
    pub async fn delete(&mut self) -> Result<(), LoadError> {
        let Some(session) = self.session.take() else {
            return Ok(());
        };
        let request = Request::delete(&self.path)
            .header("host", &self.authority)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", LEGACY_VERSION)
            .body(Body::empty())
            .map_err(fail)?;
        let answer = self.send(request).await?;
        if !answer.status.is_success() {
            return Err(fail(format!("DELETE was answered {}", answer.status)));
        }
        Ok(())
    }

    /// Calls tool `tool` with `arguments` (asking for progress with `progress_token`): in the
    /// client's session if it holds one, else as a 2026-07-28 request. The id sent, and the
    /// answer whole.
    ///
    /// # Errors
    ///
    /// A failed request.
    pub async fn call_raw(
        &mut self,
        tool: &str,
        arguments: Value,
        progress_token: Option<&str>,
    ) -> Result<(u64, Answer), LoadError> {
        let id = self.id();
        let mut params = json!({"name": tool, "arguments": arguments, "_meta": {}});
        if let Some(token) = progress_token {
            params["_meta"]["progressToken"] = json!(token);
        }
        let version = if self.session.is_some() {
            LEGACY_VERSION
        } else {
            params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!(MODERN_VERSION);
            params["_meta"]["io.modelcontextprotocol/clientInfo"] =
                json!({"name": "load", "version": "1"});
            params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
            MODERN_VERSION
        };
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let answer = self.post(&body, version, "tools/call", Some(tool)).await?;
        Ok((id, answer))
    }

    /// Calls `add` with `a` and `b` and checks that the answer is their sum, as text.
    ///
    /// # Errors
    ///
    /// A failed request, or an answer that is not the sum.
    pub async fn add(&mut self, a: i64, b: i64) -> Result<Answer, LoadError> {
        let (id, answer) = self.call_raw("add", json!({"a": a, "b": b}), None).await?;
        let text = answer
            .reply_to(id)
            .and_then(|reply| reply.pointer("/result/content/0/text"))
            .and_then(Value::as_str);
        if text != Some((a + b).to_string().as_str()) {
            return Err(fail(format!(
                "add({a}, {b}) was answered {}: {}",
                answer.status,
                String::from_utf8_lossy(&answer.body)
            )));
        }
        Ok(answer)
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    async fn post(
        &mut self,
        body: &Value,
        version: &str,
        method: &str,
        name: Option<&str>,
    ) -> Result<Answer, LoadError> {
        let mut request = Request::post(&self.path)
            .header("host", &self.authority)
            .header("content-type", "application/json")
            .header("accept", &self.accept)
            .header("mcp-protocol-version", version)
            .header("mcp-method", method);
        if let Some(name) = name {
            request = request.header("mcp-name", name);
        }
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let request = request.body(Body::from(body.to_string())).map_err(fail)?;
        self.send(request).await
    }

    async fn send(&mut self, request: Request<Body>) -> Result<Answer, LoadError> {
        self.sender.ready().await.map_err(fail)?;
        let response = self.sender.send_request(request).await.map_err(fail)?;
        let (parts, body) = response.into_parts();
        let header = |name: &str| {
            parts
                .headers
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        };
        let content_type = header("content-type");
        let session = header("mcp-session-id");
        let body = axum::body::to_bytes(Body::new(body), ANSWER_BYTES)
            .await
            .map_err(fail)?;
        let messages = messages(content_type.as_deref(), &body);
        Ok(Answer {
            status: parts.status,
            content_type,
            session,
            messages,
            body,
        })
    }
}

/// A new keep-alive connection to `addr`, its driver spawned.
async fn open(addr: SocketAddr) -> Result<SendRequest<Body>, LoadError> {
    let stream = TcpStream::connect(addr).await.map_err(fail)?;
    stream.set_nodelay(true).map_err(fail)?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(fail)?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(sender)
}

/// The JSON-RPC messages of a body of media type `content_type`.
fn messages(content_type: Option<&str>, body: &[u8]) -> Vec<Value> {
    let text = String::from_utf8_lossy(body);
    if content_type.is_some_and(|media| media.starts_with("text/event-stream")) {
        // Events end at a blank line; a message is the data of one event.
        text.replace("\r\n", "\n")
            .split("\n\n")
            .filter_map(|event| {
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(|data| data.strip_prefix(' ').unwrap_or(data))
                    .collect();
                serde_json::from_str(&data.join("\n")).ok()
            })
            .collect()
    } else {
        serde_json::from_str(&text).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_and_json_bodies_are_read_as_messages() {
        let sse = b"data: \nid: 0/1\nretry: 3000\n\ndata: {\"id\":1,\"result\":{}}\nid: 1/1\n\n";
        let read = messages(Some("text/event-stream"), sse);
        assert_eq!(read, vec![json!({"id": 1, "result": {}})]);
        let json = messages(Some("application/json"), br#"{"id":2,"result":{}}"#);
        assert_eq!(json, vec![json!({"id": 2, "result": {}})]);
        assert!(messages(Some("application/json"), b"").is_empty());
    }
}
