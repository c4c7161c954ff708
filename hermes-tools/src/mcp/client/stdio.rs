//! Servers the client starts: the process, its environment, and its stderr.
//!
//! The process is started with a filtered environment, as the official Python SDK does: only
//! `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`, `LANG`, `LC_ALL` and `TMPDIR` are inherited
//! (a value starting with `()`, an exported shell function, is not), plus the server's own `env`.
//! API keys in the agent's environment stay there. Its stderr is read line by line into
//! `tracing` (debug level), and the last lines are kept: when a server fails to start, they
//! usually say why, so they end the reported reason. Its stdout carries the session; lines
//! there that are not JSON-RPC are skipped and reported (see [`super::stdout`]).

use std::collections::{BTreeMap, VecDeque};
use std::ffi::OsString;
use std::future::Future;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use crate::sync::Mutex;
use rmcp::service::{ClientServiceExt, RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use super::session::{Failure, Handler, Lifecycle, Running, initialised};
use super::stdout::{JsonLines, Stray};

/// Variables a server inherits from the agent's environment.
const INHERITED_ENV: &[&str] = &[
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR",
];
/// How long a closing server may take to exit before it is killed.
const EXIT_WAIT: Duration = Duration::from_secs(2);
/// Lines of a server's stderr kept for error messages.
const STDERR_LINES: usize = 8;
/// Longest piece of a stderr line read at once, in bytes (a longer line reads as several).
const STDERR_READ_LIMIT: u64 = 64 * 1024;
/// Longest stderr line kept, in characters.
const STDERR_LINE_CHARS: usize = 400;

/// Starts the process and begins the MCP session as `lifecycle` says, within `limit`.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site, each argument a plain part"
)]
pub(super) async fn connect(
    name: &str,
    endpoint: &str,
    handler: Handler,
    lifecycle: &Lifecycle,
    limit: Duration,
    program: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
) -> Result<Running, Failure> {
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(inherited_env())
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // The last resort against orphans: whatever path drops the child kills it.
        .kill_on_drop(true);
    // Its own process group, so that closing kills what it started too (`npx`, `uvx` and
    // `sh -c` start the real server as a grandchild).
    #[cfg(unix)]
    command.process_group(0);
    let mut child = command
        .spawn()
        .map_err(|err| format!("cannot start `{endpoint}`: {err}"))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(format!("`{endpoint}` started without its stdin or stdout").into());
    };
    let stderr = StderrTail::follow(child.stderr.take(), name);
    let stray = Arc::new(Mutex::new(Stray::default()));
    let group = child.id().and_then(|pid| i32::try_from(pid).ok());
    let transport = ChildTransport {
        rw: AsyncRwTransport::new_client(JsonLines::new(stdout, name, Arc::clone(&stray)), stdin),
        child,
        group,
    };
    let serve = handler.serve_with_lifecycle(transport, lifecycle.mode.clone());
    let failure = match initialised(limit, lifecycle, serve).await {
        Ok(running) => return Ok(running),
        Err(failure) => failure,
    };
    let stray = stray.lock().describe();
    let stderr = stderr.describe().await;
    Err(failure.map(|failure| format!("{failure}{stray}{stderr}")))
}

/// The session's transport over the child's stdin and (filtered) stdout, owning the child
/// and its process group.
struct ChildTransport {
    rw: AsyncRwTransport<RoleClient, JsonLines<ChildStdout>, ChildStdin>,
    child: Child,
    /// The child's process group (its pid), on unix.
    group: Option<i32>,
}

impl ChildTransport {
    /// Kills what is left of the child's process group.
    fn kill_group(&self) {
        #[cfg(unix)]
        if let Some(group) = self.group {
            // ESRCH (nothing left) is the usual answer after a clean exit.
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(group),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

impl Drop for ChildTransport {
    fn drop(&mut self) {
        // Only while the leader runs: once it is reaped its pid (the group's id) may be reused.
        if matches!(self.child.try_wait(), Ok(None)) {
            self.kill_group();
        }
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.rw.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.rw.receive()
    }

    /// The stdio shutdown of the MCP specification: close the server's stdin, give it a
    /// moment to exit, then kill it, and what it started.
    async fn close(&mut self) -> Result<(), Self::Error> {
        let closed = self.rw.close().await;
        let exited = tokio::time::timeout(EXIT_WAIT, self.child.wait()).await;
        self.kill_group();
        if exited.is_err() {
            self.child.kill().await?;
        }
        closed
    }
}

fn inherited_env() -> impl Iterator<Item = (&'static str, OsString)> {
    INHERITED_ENV.iter().filter_map(|&key| {
        let value = std::env::var_os(key)?;
        // Bash exports functions as `() { ...`: never hand those to another program.
        (!value.as_encoded_bytes().starts_with(b"()")).then_some((key, value))
    })
}

/// The last lines a server wrote to stderr, while it logs the rest to `tracing`.
struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    reader: Option<tokio::task::JoinHandle<()>>,
}

impl StderrTail {
    fn follow(stderr: Option<ChildStderr>, server: &str) -> Self {
        let lines = Arc::new(Mutex::new(VecDeque::new()));
        let reader = stderr.map(|stderr| {
            let (lines, server) = (Arc::clone(&lines), server.to_owned());
            tokio::spawn(async move {
                // Bytes, not `lines()`: a line that is not UTF-8 would end the reader, close
                // the pipe, and kill a server that writes to it next (SIGPIPE). Bounded too.
                let mut reader = BufReader::new(stderr);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match (&mut reader)
                        .take(STDERR_READ_LIMIT)
                        .read_until(b'\n', &mut buf)
                        .await
                    {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                    let line = String::from_utf8_lossy(&buf);
                    let line = line.trim_end();
                    // A server may print its own credentials on stderr.
                    tracing::debug!(server = %server, "stderr: {}", crate::secrets::redact(line));
                    let mut lines = lines.lock();
                    if lines.len() == STDERR_LINES {
                        lines.pop_front();
                    }
                    lines.push_back(line.chars().take(STDERR_LINE_CHARS).collect());
                }
            })
        });
        Self { lines, reader }
    }

    /// `; stderr: …` with the last lines, once the process has closed stderr (or after a
    /// moment, for a process that is still running), or nothing when it wrote nothing.
    async fn describe(mut self) -> String {
        if let Some(reader) = self.reader.take() {
            let _ = tokio::time::timeout(Duration::from_millis(500), reader).await;
        }
        let lines = self.lines.lock();
        if lines.is_empty() {
            String::new()
        } else {
            let text: Vec<&str> = lines.iter().map(|line| line.trim_end()).collect();
            format!("; its stderr ends with: {}", text.join(" | "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exported_shell_functions_are_not_inherited() {
        // Only reads the environment; the variables named are standard ones.
        for (key, value) in inherited_env() {
            assert!(INHERITED_ENV.contains(&key));
            assert!(!value.as_encoded_bytes().starts_with(b"()"));
        }
    }
}
