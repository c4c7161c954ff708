//! The stdio transport: newline-delimited JSON-RPC in which every line gets an answer.
//!
//! `rmcp`'s own line transport drops what it cannot parse and skips a line over its size limit
//! without a word, so a client that sent one waits forever. This one reads the same framing
//! (one message per line, `\r\n` and a byte-order mark tolerated) and answers as
//! [`jsonrpc`](super::jsonrpc) says: `-32700` for text that is not JSON, `-32600` for JSON that
//! is not a message and for a line over the limit (with the request's id when it can be read
//! from the start of the line, so the client's call fails at once).
//!
//! The limit bounds memory: a line is never buffered past it. The rest of an oversize line is
//! read and thrown away as it arrives, and the answer is sent before the line has ended.
//!
//! Writes go through one lock that owns the output, so that an answer sent while reading (an
//! error reply) and the service's own messages never interleave mid-line. The sender writes
//! its line itself, as `rmcp`'s transport does: a writer task behind a queue cost every
//! message a task wake-up (1-3 µs of a `tools/call` round trip in `benches/mcp.rs`).

use std::io;
use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::jsonrpc::{self, Incoming};

/// A buffer grown past this by one large message is released rather than kept for the next.
const KEEP_CAPACITY: usize = 1 << 20;

/// How long closing waits for queued messages to be written.
const FLUSH_PATIENCE: Duration = Duration::from_secs(5);

/// A line-framed JSON-RPC transport over any byte stream (stdin/stdout, a socket, a pipe).
pub(super) struct LineTransport<R> {
    reader: BufReader<R>,
    /// The line read so far.
    line: Vec<u8>,
    /// The longest message read, in bytes (without its newline).
    limit: usize,
    /// Inside an oversize line: its remaining bytes are dropped up to the newline.
    discarding: bool,
    /// An error answer to send before reading on.
    reply: Option<Vec<u8>>,
    /// A reply was handed to the output but may not be written yet (its write was cancelled).
    unflushed: bool,
    out: Arc<Mutex<Output>>,
}

/// The output: whole lines, one writer at a time (a full pipe makes the writer wait).
struct Output {
    write: Box<dyn AsyncWrite + Send + Unpin>,
    /// Lines not yet written, from `written` on: a write cancelled halfway leaves the rest of
    /// its line here, and the next write finishes it first, so lines never interleave.
    pending: Vec<u8>,
    written: usize,
    /// A write failed (the client is gone) or the transport closed: later sends fail.
    closed: bool,
}

impl Output {
    /// Queues `line` and writes everything pending.
    async fn send(&mut self, line: &[u8]) -> io::Result<()> {
        self.check_open()?;
        self.pending.extend_from_slice(line);
        self.drain().await
    }

    /// Serializes `message` as a line straight into the pending bytes (no buffer of its own),
    /// then writes everything pending.
    async fn send_message(&mut self, message: &ServerJsonRpcMessage) -> io::Result<()> {
        self.check_open()?;
        let start = self.pending.len();
        if let Err(err) = serde_json::to_writer(&mut self.pending, message) {
            self.pending.truncate(start);
            return Err(io::Error::other(err));
        }
        self.pending.push(b'\n');
        self.drain().await
    }

    fn check_open(&self) -> io::Result<()> {
        if self.closed {
            Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the MCP connection is closed",
            ))
        } else {
            Ok(())
        }
    }

    /// Writes and flushes what is pending; the first error closes the output.
    async fn drain(&mut self) -> io::Result<()> {
        let written = async {
            while self.written < self.pending.len() {
                match self.write.write(&self.pending[self.written..]).await? {
                    0 => return Err(io::ErrorKind::WriteZero.into()),
                    n => self.written += n,
                }
            }
            self.write.flush().await
        }
        .await;
        if let Err(err) = written {
            tracing::debug!(%err, "the MCP client's end of the connection is closed");
            self.closed = true;
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the MCP client's end of the connection is closed",
            ));
        }
        if self.pending.capacity() > KEEP_CAPACITY {
            self.pending = Vec::new();
        } else {
            self.pending.clear();
        }
        self.written = 0;
        Ok(())
    }
}

/// How reading a line ended.
enum Line {
    /// A whole line is in the buffer.
    Complete,
    /// The line was over the limit; its answer is queued.
    Oversize,
    /// The client closed its end.
    End,
    Failed(io::Error),
}

impl<R: AsyncRead + Send + Unpin> LineTransport<R> {
    /// Reads from `read`, writes to `write`.
    pub(super) fn new<W>(read: R, write: W, limit: usize) -> Self
    where
        W: AsyncWrite + Send + Unpin + 'static,
    {
        Self {
            reader: BufReader::new(read),
            line: Vec::new(),
            limit,
            discarding: false,
            reply: None,
            unflushed: false,
            out: Arc::new(Mutex::new(Output {
                write: Box::new(write),
                pending: Vec::new(),
                written: 0,
                closed: false,
            })),
        }
    }

    /// Reads up to the next newline without ever holding more than the limit. Cancel-safe:
    /// bytes are taken from the reader only in the synchronous step after `fill_buf`.
    async fn next_line(&mut self) -> Line {
        loop {
            let available = match self.reader.fill_buf().await {
                Ok([]) => return Line::End,
                Ok(available) => available,
                Err(err) => return Line::Failed(err),
            };
            let newline = available.iter().position(|&b| b == b'\n');
            let taken = newline.map_or(available.len(), |at| at + 1);
            if self.discarding {
                self.discarding = newline.is_none();
                self.reader.consume(taken);
                continue;
            }
            // The line ending (`\n` or `\r\n`) does not count against the limit; until the
            // newline comes, one more byte may be the `\r` of one.
            let length = self.line.len() + newline.unwrap_or(available.len());
            let allowed = match newline {
                Some(0) if self.line.last() == Some(&b'\r') => self.limit + 1,
                Some(at) if at > 0 && available[at - 1] == b'\r' => self.limit + 1,
                Some(_) => self.limit,
                None => self.limit + 1,
            };
            if length > allowed {
                let keep = jsonrpc::id_search_bytes(self.limit).saturating_sub(self.line.len());
                self.line
                    .extend_from_slice(&available[..keep.min(available.len())]);
                let answer = jsonrpc::oversize(&self.line, self.limit);
                tracing::warn!(
                    limit = self.limit,
                    id = %answer.id,
                    "refused an MCP message over the size limit"
                );
                self.reply = Some(answer.to_line());
                self.release_line();
                self.discarding = newline.is_none();
                self.reader.consume(taken);
                return Line::Oversize;
            }
            self.line.extend_from_slice(&available[..taken]);
            self.reader.consume(taken);
            if newline.is_some() {
                return Line::Complete;
            }
        }
    }

    /// Empties the line buffer, releasing it when one large message grew it.
    fn release_line(&mut self) {
        if self.line.capacity() > KEEP_CAPACITY {
            self.line = Vec::new();
        } else {
            self.line.clear();
        }
    }
}

impl<R: AsyncRead + Send + Unpin> Transport<RoleServer> for LineTransport<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let out = Arc::clone(&self.out);
        async move { out.lock().await.send_message(&item).await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if self.reply.is_some() || self.unflushed {
                // Cancel-safe: until the lock is held the reply stays here; once handed over,
                // `unflushed` makes the next call finish writing it.
                let mut out = self.out.lock().await;
                self.unflushed = true;
                let sent = match self.reply.take() {
                    Some(reply) => out.send(&reply).await,
                    None => out.drain().await,
                };
                self.unflushed = false;
                sent.ok()?;
            }
            match self.next_line().await {
                Line::Complete => {}
                Line::Oversize => continue,
                Line::End => return None,
                Line::Failed(err) => {
                    tracing::warn!(%err, "cannot read from the MCP client; closing the connection");
                    return None;
                }
            }
            let incoming = jsonrpc::read_message(&self.line);
            self.release_line();
            match incoming {
                Incoming::Message(message) => return Some(*message),
                Incoming::Ignored => {}
                Incoming::Refused(answer) => {
                    tracing::debug!(%answer, "answered a message that is not JSON-RPC");
                    self.reply = Some(answer.to_line());
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        // After the sends already waiting for the output (the lock is fair), and what is
        // pending, the output closes.
        let out = Arc::clone(&self.out);
        let closing = async move {
            let mut out = out.lock().await;
            if !out.closed {
                let _ = out.drain().await;
                out.closed = true;
                let _ = out.write.shutdown().await;
            }
        };
        if tokio::time::timeout(FLUSH_PATIENCE, closing).await.is_err() {
            tracing::warn!("the MCP client did not read its last messages; closing anyway");
            // The abandoned write released the lock: no later send waits on that client.
            if let Ok(mut out) = self.out.try_lock() {
                out.closed = true;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use super::*;

    /// A transport over an in-memory pipe, and the client's ends of it.
    fn pipe(
        limit: usize,
    ) -> (
        LineTransport<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
        tokio::io::WriteHalf<tokio::io::DuplexStream>,
        BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    ) {
        let (server, client) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let (client_read, client_write) = tokio::io::split(client);
        (
            LineTransport::new(server_read, server_write, limit),
            client_write,
            BufReader::new(client_read),
        )
    }

    async fn answer(reader: &mut (impl AsyncBufReadExt + Unpin)) -> Value {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(5), reader.read_line(&mut line))
            .await
            .expect("answered in time")
            .expect("reads");
        serde_json::from_str(&line).expect("a JSON line")
    }

    #[tokio::test]
    async fn bad_lines_are_answered_and_the_next_message_still_arrives() {
        let (mut transport, mut client, mut replies) = pipe(1024);
        client
            .write_all(b"not json\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
            .await
            .expect("writes");
        let message = transport.receive().await.expect("the ping arrives");
        assert!(matches!(message, ClientJsonRpcMessage::Request(_)));
        let parse_error = answer(&mut replies).await;
        assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
        assert_eq!(parse_error["id"], Value::Null);
    }

    #[tokio::test]
    async fn an_oversize_line_is_answered_with_its_id_before_it_ends() {
        let (mut transport, mut client, mut replies) = pipe(256);
        let head = br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":""#;
        client.write_all(head).await.expect("writes");
        client.write_all(&[b'a'; 2000]).await.expect("writes");
        // The line has not ended, yet the client hears why it will not be read.
        let receiving = tokio::spawn(async move {
            let message = transport.receive().await;
            (transport, message)
        });
        let refused = answer(&mut replies).await;
        assert_eq!(refused["id"], json!(9), "{refused}");
        assert_eq!(refused["error"]["code"], -32600);
        assert!(
            refused["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("256 bytes")),
            "{refused}"
        );
        client
            .write_all(b"aaaa\"}}}\n{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}\n")
            .await
            .expect("writes");
        let (_transport, message) = receiving.await.expect("joins");
        let Some(ClientJsonRpcMessage::Request(request)) = message else {
            panic!("the next message arrives: {message:?}");
        };
        assert_eq!(request.id, rmcp::model::RequestId::Number(10));
    }

    #[tokio::test]
    async fn a_line_of_exactly_the_limit_is_read_whatever_its_line_ending() {
        let message = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        for (ending, split) in [(&b"\n"[..], false), (b"\r\n", false), (b"\r\n", true)] {
            let (mut transport, mut client, _replies) = pipe(message.len());
            client.write_all(message).await.expect("writes");
            if split {
                // The `\r` ends one read and the `\n` starts the next.
                client.write_all(b"\r").await.expect("writes");
                client.flush().await.expect("flushes");
                tokio::task::yield_now().await;
            }
            client
                .write_all(&ending[usize::from(split)..])
                .await
                .expect("writes");
            let received = tokio::time::timeout(Duration::from_secs(5), transport.receive())
                .await
                .expect("read, not refused");
            assert!(received.is_some(), "{ending:?}");
        }
        // One byte more is over the limit.
        let (mut transport, mut client, mut replies) = pipe(message.len() - 1);
        client.write_all(message).await.expect("writes");
        client.write_all(b"\n").await.expect("writes");
        client.shutdown().await.expect("closes");
        let ended = tokio::time::timeout(Duration::from_secs(5), transport.receive()).await;
        assert!(ended.expect("ends").is_none(), "nothing is delivered");
        assert_eq!(answer(&mut replies).await["error"]["code"], -32600);
    }

    #[tokio::test]
    async fn a_send_cancelled_halfway_is_finished_by_the_next_so_lines_stay_whole() {
        // A pipe with room for 8 bytes, not yet read: no line fits at once.
        let (server, client) = tokio::io::duplex(8);
        let (server_read, server_write) = tokio::io::split(server);
        let (client_read, _client_write) = tokio::io::split(client);
        let mut transport = LineTransport::new(server_read, server_write, 1024);
        let response = |id| {
            ServerJsonRpcMessage::response(
                rmcp::model::ServerResult::empty(()),
                rmcp::model::RequestId::Number(id),
            )
        };
        let first = transport.send(response(1));
        // Polled once (8 bytes go out, then the pipe is full), then dropped.
        tokio::select! {
            biased;
            _ = first => panic!("a full pipe cannot take the whole line"),
            () = tokio::task::yield_now() => {}
        }
        let second = tokio::spawn(transport.send(response(2)));
        let mut replies = BufReader::new(client_read);
        assert_eq!(answer(&mut replies).await["id"], 1);
        assert_eq!(answer(&mut replies).await["id"], 2);
        second.await.expect("joins").expect("sent");
    }

    #[tokio::test]
    async fn sent_messages_are_lines_and_closing_flushes_them() {
        let (mut transport, client, mut replies) = pipe(1024);
        let pong = ServerJsonRpcMessage::response(
            rmcp::model::ServerResult::empty(()),
            rmcp::model::RequestId::Number(3),
        );
        transport.send(pong).await.expect("sends");
        transport.close().await.expect("closes");
        let value = answer(&mut replies).await;
        assert_eq!(value["id"], 3, "{value}");
        drop(client);
    }
}
