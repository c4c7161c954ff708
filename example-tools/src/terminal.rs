//! `terminal`: run a shell command in the [`Workspace`] root, with a timeout.
//!
//! The command runs as `sh -c COMMAND` with stdin closed. Its stdout and stderr share one
//! pipe, so the output keeps the order in which the command wrote it. Output is processed as
//! Hermes 0.19 does: cut to 50,000 characters (the first 40% and the last 60%, with a
//! marker), ANSI escapes stripped, trimmed, and credentials redacted.
//!
//! The command runs in its own process group; on timeout the whole group is killed, so
//! children such as a `sleep` under the shell do not outlive it.
//!
//! The working directory is the workspace root, but a shell is not a sandbox: the command can
//! reach anything the agent's user can.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::LazyLock;
use std::time::Duration;

use hermes_tools::redact;
use hermes_tools::{SchemaContext, SchemaOverride, tool};
use regex::Regex;
use serde::Serialize;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::time::{Instant, sleep_until, timeout_at};

use crate::workspace::Workspace;

/// Seconds a command may run when the model gives no timeout.
pub const DEFAULT_TIMEOUT_SECS: u64 = 180;
/// The longest timeout allowed, in seconds.
pub const MAX_TIMEOUT_SECS: u64 = 600;
/// Most output characters returned; longer output keeps its head and tail.
pub const MAX_OUTPUT_CHARS: usize = 50_000;
const HEAD_CHARS: usize = MAX_OUTPUT_CHARS * 2 / 5;
const TAIL_CHARS: usize = MAX_OUTPUT_CHARS - HEAD_CHARS;
/// After the shell exits, how long to wait for more output from children it left running.
const DRAIN_IDLE: Duration = Duration::from_millis(250);
/// Characters of output kept in a timeout error.
const TIMEOUT_OUTPUT_CHARS: usize = 1000;

/// What a command did, in Hermes' shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommandOutput {
    /// Stdout and stderr as written, processed as the module docs say.
    pub output: String,
    /// The exit code; a command killed by a signal reports minus the signal number.
    pub exit_code: i32,
    /// Always `null` for a command that ran (Hermes' shape keeps the member).
    pub error: Option<String>,
}

/// Why a command did not finish.
#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    /// It ran longer than its timeout and was killed.
    #[error(
        "Command timed out after {seconds}s and was killed. Give it a larger timeout (at most \
         600), or make it finish sooner (for example, limit its output or run fewer things \
         at once).{}",
        output_tail(.output)
    )]
    TimedOut {
        /// The timeout, in seconds.
        seconds: u64,
        /// What it printed before it was killed (processed like normal output).
        output: String,
    },
    /// The timeout asked for is over the maximum.
    #[error(
        "Foreground timeout {0}s exceeds the maximum of 600s. Split the work into shorter commands."
    )]
    TimeoutTooLong(u64),
    /// The shell could not be started.
    #[error("Failed to execute command: {0}")]
    Spawn(io::Error),
}

fn output_tail(output: &str) -> String {
    if output.is_empty() {
        return String::new();
    }
    let skip = output.chars().count().saturating_sub(TIMEOUT_OUTPUT_CHARS);
    let tail: String = output.chars().skip(skip).collect();
    format!("\nLast output before the timeout:\n{tail}")
}

/// Whether a POSIX shell is available: `sh` on the `PATH`, or `/bin/sh`.
pub fn shell_available() -> bool {
    shell().is_some()
}

fn shell() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("sh"))
            .find(|candidate| is_executable(candidate))
    });
    on_path.or_else(|| {
        let fallback = PathBuf::from("/bin/sh");
        is_executable(&fallback).then_some(fallback)
    })
}

fn is_executable(path: &Path) -> bool {
    let Ok(metadata) = path.metadata() else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        metadata.is_file()
    }
}

/// Run a shell command in the workspace root and return its output and exit code.
///
/// The command runs with `sh -c` and no input; stdout and stderr are combined. Use it to build,
/// test, run programs, use git and install packages. Long output is cut in the middle. A
/// command still running after `timeout` seconds is killed; do not start servers or watchers
/// that never exit.
///
/// # Arguments
/// * `command` - The command line to run, such as 'cargo test 2>&1 | tail -20'.
/// * `timeout` - Seconds to wait before killing the command (default 180, at most 600).
#[tool(
    toolset = "terminal",
    emoji = "💻",
    check = shell_available,
    max_result_chars = 100_000,
    dynamic_schema = point_at_file_tools,
    destructive
)]
pub async fn terminal(
    command: String,
    #[arg(default = 180, minimum = 1, maximum = 600)] timeout: u64,
    workspace: &Workspace,
) -> Result<CommandOutput, TerminalError> {
    // Hermes treats a zero timeout as "use the default".
    let seconds = if timeout == 0 {
        DEFAULT_TIMEOUT_SECS
    } else {
        timeout
    };
    if seconds > MAX_TIMEOUT_SECS {
        return Err(TerminalError::TimeoutTooLong(seconds));
    }
    run(&command, workspace.root(), seconds).await
}

/// The file tools do their jobs better than shell commands; the description says so only when
/// the model is given them (a static description must not name tools that may be absent).
fn point_at_file_tools(ctx: &SchemaContext<'_>) -> SchemaOverride {
    let present: Vec<&str> = ["read_file", "write_file", "search_files"]
        .into_iter()
        .filter(|name| ctx.selected.contains(*name))
        .collect();
    if present.is_empty() {
        return SchemaOverride::default();
    }
    SchemaOverride {
        description: Some(format!(
            "{}\n\nDo not use it to read, write or search files: {} do that better.",
            TERMINAL_TOOL.description,
            present.join(", ")
        )),
        parameters: None,
    }
}

async fn run(command: &str, dir: &Path, seconds: u64) -> Result<CommandOutput, TerminalError> {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (mut child, mut chunks) = spawn(command, dir).map_err(TerminalError::Spawn)?;
    let mut output = OutputBuffer::default();
    let mut open = true;
    let status = loop {
        tokio::select! {
            status = child.wait() => break Some(status.map_err(TerminalError::Spawn)?),
            chunk = chunks.recv(), if open => match chunk {
                Some(bytes) => output.push(&bytes),
                None => open = false,
            },
            () = sleep_until(deadline) => break None,
        }
    };
    let Some(status) = status else {
        kill_group(&mut child).await;
        // What already arrived belongs in the error; waiting for more could block.
        while let Ok(bytes) = chunks.try_recv() {
            output.push(&bytes);
        }
        return Err(TerminalError::TimedOut {
            seconds,
            output: finish_output(&output.into_text()),
        });
    };
    drain(&mut chunks, &mut output, deadline).await;
    Ok(CommandOutput {
        output: finish_output(&output.into_text()),
        exit_code: exit_code(status),
        error: None,
    })
}

/// Starts `sh -c command` in its own process group, stdout and stderr on one pipe read by a
/// thread of its own.
///
/// A plain thread, not tokio's blocking pool: a child left running in the background keeps
/// the pipe open, and a blocking-pool task stuck on it would stall the runtime's shutdown.
fn spawn(
    command: &str,
    dir: &Path,
) -> io::Result<(tokio::process::Child, UnboundedReceiver<Vec<u8>>)> {
    let shell = shell()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no `sh` on PATH or at /bin/sh"))?;
    let (reader, writer) = io::pipe()?;
    let mut cmd = tokio::process::Command::new(shell);
    cmd.arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    let child = cmd.spawn()?;
    // Our copies of the pipe's write end must close, or the reader never sees the end.
    drop(cmd);
    let (sender, receiver) = unbounded_channel();
    std::thread::Builder::new()
        .name("terminal-output".into())
        .spawn(move || {
            let mut reader = reader;
            let mut buffer = [0u8; 8192];
            loop {
                match reader.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => {
                        if sender.send(buffer[..n].to_vec()).is_err() {
                            break;
                        }
                    }
                    Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        })?;
    Ok((child, receiver))
}

/// Reads what the shell wrote before exiting. Children it left in the background may hold
/// the pipe open: stop once no output came for [`DRAIN_IDLE`], or at the deadline.
async fn drain(
    chunks: &mut UnboundedReceiver<Vec<u8>>,
    output: &mut OutputBuffer,
    deadline: Instant,
) {
    loop {
        let idle = (Instant::now() + DRAIN_IDLE).min(deadline);
        match timeout_at(idle, chunks.recv()).await {
            Ok(Some(bytes)) => output.push(&bytes),
            Ok(None) | Err(_) => return,
        }
    }
}

/// Kills the command's process group (the shell and everything it started), then the shell.
async fn kill_group(child: &mut tokio::process::Child) {
    #[cfg(unix)]
    if let (Some(pid), Some(shell)) = (child.id(), shell()) {
        // std has no killpg and this crate forbids unsafe code, so ask the shell's `kill`.
        // Best effort: the group may already be gone.
        let _ = tokio::process::Command::new(shell)
            .arg("-c")
            .arg(format!("kill -s KILL -- -{pid}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await;
    }
    // Best effort, and kill_on_drop covers it as well.
    let _ = child.start_kill();
    let _ = child.wait().await;
}

fn exit_code(status: ExitStatus) -> i32 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return -signal;
        }
    }
    status.code().unwrap_or(-1)
}

/// Command output kept in bounded memory: the first bytes, the last bytes, and a character
/// count, which is all the head-and-tail cut needs however much the command prints.
#[derive(Default)]
struct OutputBuffer {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    /// Characters seen: UTF-8 bytes that do not continue a character.
    chars: usize,
    /// Whether bytes between head and tail were dropped.
    dropped: bool,
}

/// A UTF-8 character is at most four bytes, so these hold at least the characters kept.
const HEAD_BYTES: usize = HEAD_CHARS * 4;
const TAIL_BYTES: usize = TAIL_CHARS * 4;

impl OutputBuffer {
    fn push(&mut self, bytes: &[u8]) {
        self.chars += bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count();
        let to_head = bytes.len().min(HEAD_BYTES - self.head.len());
        self.head.extend_from_slice(&bytes[..to_head]);
        self.tail.extend(&bytes[to_head..]);
        if self.tail.len() > TAIL_BYTES {
            self.tail.drain(..self.tail.len() - TAIL_BYTES);
            self.dropped = true;
        }
    }

    /// The output as text, already cut as Hermes cuts it when it is too long.
    fn into_text(self) -> String {
        let mut tail = Vec::from(self.tail);
        if !self.dropped {
            let mut all = self.head;
            all.append(&mut tail);
            return truncate_middle(&String::from_utf8_lossy(&all));
        }
        // The tail may start inside a character: skip its continuation bytes.
        let start = tail
            .iter()
            .position(|&b| b & 0xC0 != 0x80)
            .unwrap_or(tail.len());
        let head = String::from_utf8_lossy(&self.head);
        let tail = String::from_utf8_lossy(&tail[start..]);
        let tail_skip = tail.chars().count().saturating_sub(TAIL_CHARS);
        join_cut(
            head.chars().take(HEAD_CHARS).collect(),
            tail.chars().skip(tail_skip).collect(),
            self.chars,
        )
    }
}

/// Hermes' cut: over [`MAX_OUTPUT_CHARS`], keep the first 40% and the last 60%.
fn truncate_middle(text: &str) -> String {
    let total = text.chars().count();
    if total <= MAX_OUTPUT_CHARS {
        return text.to_owned();
    }
    join_cut(
        text.chars().take(HEAD_CHARS).collect(),
        text.chars().skip(total - TAIL_CHARS).collect(),
        total,
    )
}

fn join_cut(head: String, tail: String, total: usize) -> String {
    let omitted = total.saturating_sub(HEAD_CHARS + TAIL_CHARS);
    format!(
        "{head}\n\n... [OUTPUT TRUNCATED - {omitted} chars omitted out of {total} total] ...\n\n{tail}"
    )
}

/// Hermes' ECMA-48 escape pattern (`tools/ansi_strip.py`).
static ANSI_ESCAPE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\x1b(?:\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]",
        r"|\][\s\S]*?(?:\x07|\x1b\\)",
        r"|[PX^_][\s\S]*?\x1b\\",
        r"|[\x20-\x2f]+[\x30-\x7e]",
        r"|[\x30-\x7e])",
        r"|\x{9b}[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]",
        r"|\x{9d}[\s\S]*?(?:\x07|\x{9c})",
        r"|[\x{80}-\x{9f}]",
    ))
    .ok()
});

/// Strips ANSI escapes, trims, and redacts credentials, as Hermes does after the cut.
fn finish_output(text: &str) -> String {
    let stripped = match ANSI_ESCAPE.as_ref() {
        Some(pattern) => pattern.replace_all(text, ""),
        None => text.into(),
    };
    redact(stripped.trim()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermes_tools::{ToolContext, ToolRegistry};
    use serde_json::json;
    use tempfile::TempDir;

    fn workspace() -> (TempDir, Workspace) {
        let dir = TempDir::new().unwrap();
        let workspace = Workspace::new(dir.path());
        (dir, workspace)
    }

    #[tokio::test]
    async fn output_and_exit_code() {
        let (_dir, ws) = workspace();
        let result = terminal("echo out; echo err >&2; echo again; exit 3".into(), 10, &ws)
            .await
            .unwrap();
        assert_eq!(
            result,
            CommandOutput {
                output: "out\nerr\nagain".into(),
                exit_code: 3,
                error: None
            }
        );
    }

    #[tokio::test]
    async fn runs_in_the_workspace_root() {
        let (dir, ws) = workspace();
        std::fs::write(dir.path().join("marker.txt"), "here").unwrap();
        let result = terminal("pwd; cat marker.txt".into(), 10, &ws)
            .await
            .unwrap();
        assert_eq!(result.output, format!("{}\nhere", ws.root().display()));
        assert_eq!(result.exit_code, 0);
    }

    #[tokio::test]
    async fn timeout_kills_the_command_and_its_children() {
        let (dir, ws) = workspace();
        let started = std::time::Instant::now();
        // The second command would only run if the group survived the kill.
        let err = terminal("echo started; sleep 5; touch survived".into(), 1, &ws)
            .await
            .unwrap_err();
        let elapsed = started.elapsed();
        assert!(elapsed < Duration::from_secs(4), "took {elapsed:?}");
        assert!(
            matches!(&err, TerminalError::TimedOut { seconds: 1, output } if output == "started")
        );
        assert!(
            err.to_string()
                .starts_with("Command timed out after 1s and was killed.")
        );
        assert!(
            err.to_string()
                .ends_with("\nLast output before the timeout:\nstarted")
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!dir.path().join("survived").exists());
    }

    #[tokio::test]
    async fn signals_and_background_children() {
        let (_dir, ws) = workspace();
        let killed = terminal("kill -s TERM $$".into(), 10, &ws).await.unwrap();
        assert_eq!(killed.exit_code, -15);
        // A child left running in the background must not hold the answer until it exits.
        let started = std::time::Instant::now();
        let background = terminal("sleep 3 & echo done".into(), 10, &ws)
            .await
            .unwrap();
        assert_eq!(background.output, "done");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }

    #[tokio::test]
    async fn timeout_bounds() {
        let (_dir, ws) = workspace();
        let err = terminal("true".into(), 601, &ws).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "Foreground timeout 601s exceeds the maximum of 600s. Split the work into shorter commands."
        );
        assert_eq!(
            terminal("echo ok".into(), 0, &ws).await.unwrap().output,
            "ok"
        );
    }

    #[tokio::test]
    async fn long_output_keeps_head_and_tail() {
        let (_dir, ws) = workspace();
        // 70,000 characters: 'a' * 30,000 then 'b' * 40,000.
        let command = "head -c 30000 /dev/zero | tr '\\0' a; head -c 40000 /dev/zero | tr '\\0' b";
        let result = terminal(command.into(), 30, &ws).await.unwrap();
        let expected = format!(
            "{}\n\n... [OUTPUT TRUNCATED - 20000 chars omitted out of 70000 total] ...\n\n{}",
            "a".repeat(20_000),
            "b".repeat(30_000)
        );
        assert_eq!(result.output, expected);
    }

    #[test]
    fn buffer_bounds_memory_and_cuts_like_hermes() {
        let mut buffer = OutputBuffer::default();
        for _ in 0..100 {
            buffer.push("é".repeat(5_000).as_bytes());
        }
        buffer.push(b"END");
        assert!(buffer.head.len() + buffer.tail.len() <= HEAD_BYTES + TAIL_BYTES);
        let text = buffer.into_text();
        let total = 500_003;
        let expected = format!(
            "{}\n\n... [OUTPUT TRUNCATED - {} chars omitted out of {total} total] ...\n\n{}END",
            "é".repeat(HEAD_CHARS),
            total - MAX_OUTPUT_CHARS,
            "é".repeat(TAIL_CHARS - 3)
        );
        assert_eq!(text, expected);
        assert_eq!(truncate_middle("short"), "short");
        let exact = "x".repeat(MAX_OUTPUT_CHARS);
        assert_eq!(truncate_middle(&exact), exact);
    }

    #[test]
    fn finishing_strips_ansi_trims_and_redacts() {
        assert_eq!(
            finish_output(
                "  \x1b[31mred\x1b[0m \x1b]0;title\x07key sk-abcdefghijklmnopqrstuvwxyz\n"
            ),
            "red key sk-abc...wxyz"
        );
    }

    #[test]
    fn dispatch_from_sync_code() {
        let (_dir, ws) = workspace();
        let ctx = ToolContext::new().with_extension(ws);
        let answer = ToolRegistry::global().call_blocking(
            "terminal",
            r#"{"command":"printf hi; exit 2"}"#,
            &ctx,
        );
        assert_eq!(
            answer.to_value(),
            json!({"output": "hi", "exit_code": 2, "error": null})
        );
        let timed_out = ToolRegistry::global().call_blocking(
            "terminal",
            r#"{"command":"sleep 5","timeout":1}"#,
            &ctx,
        );
        assert!(timed_out.is_error());
        assert_eq!(
            timed_out.to_value()["error"],
            "[TOOL_ERROR] Command timed out after 1s and was killed. Give it a larger timeout (at \
             most 600), or make it finish sooner (for example, limit its output or run fewer \
             things at once)."
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn async_call_and_missing_workspace() {
        let registry = ToolRegistry::global();
        let missing = registry
            .call("terminal", r#"{"command":"echo hi"}"#, &ToolContext::new())
            .await;
        assert_eq!(
            missing.to_value()["error"],
            "[TOOL_ERROR] Tool \"terminal\" cannot run here: its parameter `workspace` needs a \
             `example_tools::workspace::Workspace` that this agent does not provide. Do not call \
             it again in this session."
        );
        let (_dir, ws) = workspace();
        let ctx = ToolContext::new().with_extension(ws);
        let answer = registry
            .call("terminal", r#"{"command":"echo hi"}"#, &ctx)
            .await;
        assert_eq!(
            answer.to_value(),
            json!({"output": "hi", "exit_code": 0, "error": null})
        );
    }

    #[test]
    fn declared_as_hermes_declares_it() {
        assert!(shell_available());
        let tool = ToolRegistry::global().get("terminal").unwrap();
        assert_eq!((tool.toolset(), tool.emoji()), ("terminal", "💻"));
        assert!(tool.is_async());
        assert!(tool.check().is_some_and(|check| check()));
        let props = &tool.parameters()["properties"];
        assert_eq!(props["timeout"]["default"], 180);
        assert_eq!(props["timeout"]["maximum"], 600);
    }
}
