//! A stdio server's stdout as the MCP session reads it: JSON-RPC lines pass, anything else is
//! kept aside and reported.
//!
//! Stdout is the protocol's channel, yet servers print banners and logs there. rmcp skips a
//! line that is not JSON, so such a server works, and one that prints *only* that (a wrong
//! command, a crash report, a `--help` text) looks like a server that never answers: the
//! client waits out its timeout and says "it did not finish initialising". [`JsonLines`]
//! passes every line whose first non-blank byte opens a JSON value (`{` or `[`) and keeps
//! the others in a [`Stray`] report, so the failure says what the server printed instead.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use crate::sync::Mutex;
use tokio::io::{AsyncRead, ReadBuf};

/// Stray lines kept, for the report.
const KEPT_LINES: usize = 3;
/// Longest stray line kept, in bytes.
const KEPT_LINE_BYTES: usize = 300;

/// The lines of a server's stdout that were not JSON-RPC.
#[derive(Debug, Default)]
pub(super) struct Stray {
    first: Vec<String>,
    count: usize,
}

impl Stray {
    /// `; it wrote N lines that are not JSON-RPC on stdout …`, or nothing when it wrote none.
    pub(super) fn describe(&self) -> String {
        if self.count == 0 {
            return String::new();
        }
        let shown: Vec<String> = self.first.iter().map(|line| format!("{line:?}")).collect();
        format!(
            "; it wrote {} line(s) on stdout that are not JSON-RPC (stdout carries the protocol; \
             logs belong on stderr), the first: {}",
            self.count,
            shown.join(", ")
        )
    }

    fn record(&mut self, line: &[u8], server: &str) {
        self.count += 1;
        let text = String::from_utf8_lossy(line).trim_end().to_owned();
        // A server may print its own credentials.
        let text = crate::secrets::redact(&text).into_owned();
        if self.count == 1 {
            tracing::warn!(server, line = %text, "MCP server wrote a line that is not JSON-RPC on stdout; skipped");
        } else {
            tracing::debug!(server, line = %text, "MCP server wrote a line that is not JSON-RPC on stdout; skipped");
        }
        if self.first.len() < KEPT_LINES {
            self.first.push(text);
        }
    }
}

/// Where the reader is in the current line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    /// At its start, or in its leading blanks (held in `blanks`).
    Start,
    /// A JSON line: passed through to its end.
    Json,
    /// Anything else: kept aside to its end.
    Stray,
}

/// `inner` with every line that does not start a JSON value taken out (see the module docs).
pub(super) struct JsonLines<R> {
    inner: R,
    server: String,
    stray: Arc<Mutex<Stray>>,
    line: Line,
    /// Leading blanks of the current line, passed on if it turns out to be JSON.
    blanks: Vec<u8>,
    /// The current stray line, up to [`KEPT_LINE_BYTES`].
    stray_line: Vec<u8>,
    /// Bytes read and filtered, not yet handed to the reader.
    out: Vec<u8>,
    out_at: usize,
}

impl<R> JsonLines<R> {
    /// Filters `inner`, the stdout of server `server`, recording stray lines in `stray`.
    pub(super) fn new(inner: R, server: &str, stray: Arc<Mutex<Stray>>) -> Self {
        Self {
            inner,
            server: server.to_owned(),
            stray,
            line: Line::Start,
            blanks: Vec::new(),
            stray_line: Vec::new(),
            out: Vec::new(),
            out_at: 0,
        }
    }

    /// Sorts `bytes` into `out` (JSON lines) and the stray report.
    fn filter(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            match self.line {
                Line::Json => {
                    // The common case: copy up to and including the end of the line at once.
                    let end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |at| at + 1);
                    self.out.extend_from_slice(&bytes[..end]);
                    if bytes[end - 1] == b'\n' {
                        self.line = Line::Start;
                    }
                    bytes = &bytes[end..];
                }
                Line::Stray => {
                    let end = memchr::memchr(b'\n', bytes);
                    let part = &bytes[..end.unwrap_or(bytes.len())];
                    let room = KEPT_LINE_BYTES.saturating_sub(self.stray_line.len());
                    self.stray_line
                        .extend_from_slice(&part[..part.len().min(room)]);
                    match end {
                        Some(at) => {
                            self.stray.lock().record(&self.stray_line, &self.server);
                            self.stray_line.clear();
                            self.line = Line::Start;
                            bytes = &bytes[at + 1..];
                        }
                        None => bytes = &[],
                    }
                }
                Line::Start => {
                    let byte = bytes[0];
                    bytes = &bytes[1..];
                    match byte {
                        b' ' | b'\t' | b'\r' => self.blanks.push(byte),
                        // A UTF-8 byte order mark, which rmcp's reader strips, at a line's start.
                        0xEF | 0xBB | 0xBF if self.blanks.len() < 3 => self.blanks.push(byte),
                        b'\n' => {
                            // A blank line: harmless, and the protocol reader skips it.
                            self.blanks.clear();
                            self.out.push(b'\n');
                        }
                        b'{' | b'[' => {
                            self.out.append(&mut self.blanks);
                            self.out.push(byte);
                            self.line = Line::Json;
                        }
                        _ => {
                            self.blanks.clear();
                            self.stray_line.push(byte);
                            self.line = Line::Stray;
                        }
                    }
                }
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for JsonLines<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.out_at < this.out.len() {
                let ready = &this.out[this.out_at..];
                let n = ready.len().min(buf.remaining());
                buf.put_slice(&ready[..n]);
                this.out_at += n;
                if this.out_at == this.out.len() {
                    this.out.clear();
                    this.out_at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 8192];
            let mut read = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            let n = read.filled().len();
            if n == 0 {
                // The end of stdout: a stray last line without its newline still counts.
                if this.line == Line::Stray {
                    this.stray.lock().record(&this.stray_line, &this.server);
                    this.stray_line.clear();
                    this.line = Line::Start;
                }
                return Poll::Ready(Ok(()));
            }
            this.filter(&chunk[..n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    async fn filtered(chunks: &[&[u8]]) -> (String, Stray) {
        let mut builder = chunked(chunks);
        let stray = Arc::new(Mutex::new(Stray::default()));
        let mut lines = JsonLines::new(&mut builder, "s", Arc::clone(&stray));
        let mut out = String::new();
        lines.read_to_string(&mut out).await.unwrap();
        drop(lines);
        let stray = std::mem::take(&mut *stray.lock());
        (out, stray)
    }

    /// A reader that yields `chunks` one read at a time, as a pipe may.
    fn chunked(chunks: &[&[u8]]) -> impl AsyncRead + Unpin {
        let bytes: Vec<u8> = chunks.concat();
        let cuts: Vec<usize> = chunks.iter().map(|chunk| chunk.len()).collect();
        Chunked { bytes, cuts, at: 0 }
    }

    struct Chunked {
        bytes: Vec<u8>,
        cuts: Vec<usize>,
        at: usize,
    }

    impl AsyncRead for Chunked {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            if self.cuts.is_empty() {
                return Poll::Ready(Ok(()));
            }
            let len = self.cuts.remove(0).min(buf.remaining());
            let at = self.at;
            buf.put_slice(&self.bytes[at..at + len]);
            self.at += len;
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn json_lines_pass_and_the_rest_is_reported() {
        let (out, stray) = filtered(&[
            b"Starting server v1.2 on stdio...\n{\"jsonrpc\":\"2.0\"}\n",
            b"  [1,2]\n\nDEBUG: x\n",
        ])
        .await;
        assert_eq!(out, "{\"jsonrpc\":\"2.0\"}\n  [1,2]\n\n");
        assert_eq!(stray.count, 2);
        let report = stray.describe();
        assert!(report.contains("2 line(s)"), "{report}");
        assert!(
            report.contains("\"Starting server v1.2 on stdio...\""),
            "{report}"
        );
    }

    #[tokio::test]
    async fn a_byte_order_mark_before_a_json_line_passes_with_it() {
        let (out, stray) = filtered(&[b"\xEF\xBB\xBF{\"a\":1}\n"]).await;
        assert_eq!(out.as_bytes(), b"\xEF\xBB\xBF{\"a\":1}\n");
        assert_eq!(stray.count, 0);
    }

    #[tokio::test]
    async fn lines_split_across_reads_are_judged_whole() {
        let (out, stray) = filtered(&[
            b" ",
            b" {\"a\":",
            b"1}\nusage: ser",
            b"ver [--help]",
            b"\n{}",
        ])
        .await;
        assert_eq!(out, "  {\"a\":1}\n{}");
        assert_eq!(stray.first, ["usage: server [--help]"]);
    }

    #[tokio::test]
    async fn a_stray_last_line_without_newline_counts_and_nothing_stray_says_nothing() {
        let (out, stray) = filtered(&[b"{}\nTraceback (most recent call last):"]).await;
        assert_eq!(out, "{}\n");
        assert_eq!(stray.count, 1);
        let (_, clean) = filtered(&[b"{}\n"]).await;
        assert_eq!(clean.describe(), "");
    }
}
