//! Keeping secrets out of logs and stderr: a writer that redacts what passes through it, and a
//! panic hook that redacts a panic's message.
//!
//! The runtime redacts what it logs at the call site (an error's text, an MCP server's stderr,
//! a failed plugin's output), but two things escape a call site. The first is a log line some
//! other code formats from a secret: [`RedactingWriter`] masks every event written through it,
//! whole, so a credential that spans two fields or two lines is still seen as one. The second
//! is Rust's own panic report: a tool that panics with `panic!("bad key {key}")` is answered
//! with a redacted error, but the default panic hook prints the message to stderr as it is.
//! [`redact_panic_messages`] installs a hook that prints a masked message instead, and hands
//! every panic with nothing to mask to the hook that was there before.
//!
//! The CLI ([`crate::cli`]) uses both. An embedding program that logs to a place others read
//! should do the same:
//!
//! ```
//! use std::io::Write;
//!
//! hermes_tools::secrets::redact_panic_messages();
//!
//! // With tracing-subscriber: `.with_writer(|| RedactingWriter::new(std::io::stderr()))`.
//! let mut out = hermes_tools::secrets::RedactingWriter::new(Vec::new());
//! write!(out, "connecting with password=hunter22")?;
//! assert_eq!(out.into_inner()?, b"connecting with password=***");
//! # Ok::<(), std::io::Error>(())
//! ```

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::Once;

use crate::secrets::redact;

/// A writer that redacts what is written through it before it reaches `W`.
///
/// It holds the text until [`flush`](Write::flush), [`into_inner`](Self::into_inner) or drop,
/// then writes it redacted in one piece. A logger that makes one writer per event (as
/// `tracing-subscriber`'s `MakeWriter` does) thus has each event redacted whole. Text that is
/// not UTF-8 is written with the invalid bytes replaced (`U+FFFD`).
#[derive(Debug)]
pub struct RedactingWriter<W: Write> {
    /// `None` only once `into_inner` has taken it.
    inner: Option<W>,
    pending: Vec<u8>,
}

impl<W: Write> RedactingWriter<W> {
    /// Redacts what is written through it into `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner: Some(inner),
            pending: Vec::new(),
        }
    }

    /// Writes what is pending and gives `inner` back.
    ///
    /// # Errors
    ///
    /// The error of writing the pending text to `inner`.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.emit()?;
        Ok(self.inner.take().expect("inner is taken only here"))
    }

    fn emit(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let Some(inner) = self.inner.as_mut() else {
            return Ok(());
        };
        let text = String::from_utf8_lossy(&self.pending);
        let masked = redact(&text);
        let result = inner.write_all(masked.as_bytes());
        self.pending.clear();
        result
    }
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.emit()?;
        match self.inner.as_mut() {
            Some(inner) => inner.flush(),
            None => Ok(()),
        }
    }
}

impl<W: Write> Drop for RedactingWriter<W> {
    fn drop(&mut self) {
        // Nowhere to report a failed log write from a drop: it is lost, as a failed eprintln
        // would be.
        let _ = self.emit();
    }
}

/// Installs (once per process) a panic hook that redacts a panic's message before it is
/// printed.
///
/// A panic whose message holds nothing to mask goes to the hook installed before (Rust's
/// default, or the program's own), unchanged. One whose message holds a credential is printed
/// as the default hook prints it (thread, location, message, and a backtrace when
/// `RUST_BACKTRACE` asks for one), with the message redacted. Call it early in `main`, after
/// installing any hook of your own.
pub fn redact_panic_messages() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info.payload_as_str().unwrap_or("");
            match redact(message) {
                Cow::Borrowed(_) => previous(info),
                Cow::Owned(masked) => {
                    let thread = std::thread::current();
                    let name = thread.name().unwrap_or("<unnamed>");
                    let at = info
                        .location()
                        .map(|location| format!(" at {location}"))
                        .unwrap_or_default();
                    let backtrace = std::backtrace::Backtrace::capture();
                    let mut stderr = io::stderr().lock();
                    // As the default hook, a failed write to stderr is not reported.
                    let _ = writeln!(stderr, "\nthread '{name}' panicked{at}:\n{masked}");
                    if backtrace.status() == std::backtrace::BacktraceStatus::Captured {
                        let _ = writeln!(stderr, "stack backtrace:\n{backtrace}");
                    }
                }
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-proj-Zx81QmW0pLr5TvYb3NcK7sDfGh2JkL4n";

    #[test]
    fn an_event_written_in_pieces_is_redacted_whole() {
        let mut out = RedactingWriter::new(Vec::new());
        // A logger writes a field name and its value in separate calls.
        write!(out, "WARN call failed reason=\"OPENAI_API_KEY=").unwrap();
        write!(out, "{}\"", &KEY[..10]).unwrap();
        writeln!(out, "{}\"", &KEY[10..]).unwrap();
        let written = String::from_utf8(out.into_inner().unwrap()).unwrap();
        assert!(!written.contains("Zx81QmW0pLr5"), "{written}");
        assert!(written.starts_with("WARN call failed reason="), "{written}");
    }

    #[test]
    fn flush_writes_what_is_pending_and_drop_what_is_left() {
        let mut sink = Vec::new();
        {
            let mut out = RedactingWriter::new(&mut sink);
            writeln!(out, "first: password=hunter22").unwrap();
            out.flush().unwrap();
            writeln!(out, "second: {KEY}").unwrap();
        }
        let written = String::from_utf8(sink).unwrap();
        assert_eq!(written, "first: password=***\nsecond: sk-pro...kL4n\n");
    }

    #[test]
    fn clean_text_passes_unchanged_and_invalid_utf8_is_replaced_not_dropped() {
        let mut out = RedactingWriter::new(Vec::new());
        out.write_all(b"plain line \xff end\n").unwrap();
        assert_eq!(
            out.into_inner().unwrap(),
            "plain line \u{fffd} end\n".as_bytes()
        );
    }
}
