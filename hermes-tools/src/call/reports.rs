//! What a tool reports while it runs, beside its answer: how far it has come
//! ([`ToolContext::progress`](crate::ToolContext::progress)) and log messages
//! ([`ToolContext::log`](crate::ToolContext::log)). Over MCP they become
//! `notifications/progress` and `notifications/message`.

/// How far a call has come, as its tool reports it with
/// [`ToolContext::progress`](crate::ToolContext::progress).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// What is done so far; it grows with every report.
    pub done: f64,
    /// What there is to do in all, when known.
    pub total: Option<f64>,
    /// What is happening now, if the tool said.
    pub message: Option<String>,
}

/// The severity of a tool's log message, the syslog levels MCP uses (RFC 5424), least severe
/// first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A component failed.
    Critical,
    /// Action is needed now.
    Alert,
    /// The system is unusable.
    Emergency,
}
