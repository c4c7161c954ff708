//! `terminal`: run a shell command in the [`Workspace`] root, with a timeout.
//!
//! ```no_run
//! use example_tools::Workspace;
//! use hermes_tools::{config::Config, ToolContext, ToolRegistry};
//!
//! let registry = ToolRegistry::linked();
//! // The shell needs approval; an operator whose agent runs in a disposable container lifts it.
//! registry.set_config(Config::from_toml_str(r#"
//!     [tools.terminal]
//!     approval = false
//!     env_allow = ["CARGO_HOME", "RUSTUP_*"]
//! "#).unwrap());
//! let ctx = ToolContext::new().with_extension(Workspace::new("."));
//! let answer = registry.call_blocking("terminal", r#"{"command": "cargo --version"}"#, &ctx);
//! println!("{answer}"); // {"output": "cargo 1.95.0 ...", "exit_code": 0, "error": null}
//! ```
//!
//! # Approval, and the sandbox
//!
//! The tool is declared `needs_approval`: every call goes to the registry's approval gate (no
//! gate: refused), until the operator lifts it with `[tools.terminal] approval = false`.
//!
//! Where the machine has a working bubblewrap (Linux), the shell runs in a sandbox by default
//! (`[tools.terminal] sandbox = "auto"`): its own PID namespace and `/proc` (the agent, whose
//! environment holds the API keys, is invisible), the workspace the only writable path, system
//! directories read-only, the home directory and other secrets not mounted, no network unless
//! allowed, a bounded process count, and the whole namespace killed when the call ends. See
//! the `sandbox` module for the settings (`sandbox = "required"` makes the tool unavailable
//! where bubblewrap cannot run; `"off"` runs it as below). `list` and the tool's description
//! say which mode is in force.
//!
//! Unsandboxed, the command runs as the agent's user and can reach everything that user can:
//! the file tools' confinement to the workspace does not apply to it (the working directory
//! is the workspace root, nothing more). Approval is then the fence; what follows only narrows
//! what a command approved by mistake can take or leave behind.
//!
//! # The environment
//!
//! The command does not inherit the agent's environment, which holds its API keys: it gets
//! `PATH`, `HOME`, `USER`, `LOGNAME`, `SHELL`, `TERM`, `TZ`, `TMPDIR`, `LANG`, `LANGUAGE` and
//! `LC_*` when set, plus the operator's `[tools.terminal] env_allow` list of names and `NAME_*`
//! prefixes (a prefix never lets through a name that looks like a credential, such as
//! `*_KEY`, `*_TOKEN`, `*_SECRET`: name those exactly to pass them). A malformed list is an
//! error answer naming the key.
//!
//! # No process outlives its call
//!
//! The command runs as `sh -c COMMAND` with stdin closed, in a process group of its own, with
//! `HERMES_CALL_ID=<random>` in its environment. Its stdout and stderr share one pipe (so the
//! output keeps the order in which the command wrote it), read with async I/O: no thread per
//! call. When the shell exits, when the timeout expires, and when the call's future is dropped
//! (a cancelled turn or MCP call), every process of the call is killed
//! (`SIGKILL`): the process group, and on Linux every process that left it (`setsid`, `nohup
//! ... &`, a daemon's double fork) but still carries the marker in its environment or the
//! output pipe among its open files. Background jobs therefore end with the command: do not
//! start servers or watchers expecting them to stay.
//!
//! An MCP client of `serve --http` that disconnects mid-call does not kill the command at once
//! in a session (the `initialize` era): the command runs on and its answer is kept for the
//! client to resume, until the session has been idle for its timeout (`--session-idle-secs`,
//! 30 minutes); then the call is cancelled and its processes killed. A call of the 2026-07-28
//! era, which has no session to come back to, is cancelled as soon as the disconnect is seen
//! (the rule: `hermes_tools::mcp::server`, "Disconnects").
//!
//! On Linux the first call makes the agent a child subreaper (`PR_SET_CHILD_SUBREAPER`), so a
//! killed process whose parent is gone is re-parented to the agent, which reaps it, instead of
//! to PID 1, which in a container often reaps nothing. This is process-wide: orphans of the
//! agent's other subprocesses come to it too. Those of a call are reaped when it ends; an
//! orphan of something else (a server that daemonizes) stays a zombie of the agent until the
//! agent exits, as it would have stayed one of a non-reaping PID 1.
//!
//! Limits, all on Linux (elsewhere only the process group is killed):
//! - a process that clears its environment (`env -i`), leaves the process group and closes or
//!   redirects the output pipe escapes: nothing marks it as the call's any more;
//! - a process running as another user (`sudo`, a setuid program) cannot be read or killed;
//! - a zombie of the call re-parented to the agent is recognised by its process group, or by
//!   having left the agent's session after the call started; a child that another part of the
//!   agent started through a `setsid` wrapper and has not waited for yet could match that
//!   second rule, and would then be reaped under it.
//!
//! # Output
//!
//! Processed as Hermes 0.19 does: cut to 50,000 characters (the first 40% and the last 60%,
//! with a marker), ANSI escapes stripped, trimmed, and credentials redacted. The tool redacts
//! its own output (as Hermes' does), besides the pipeline's redaction of every answer, so that
//! the plain function and raw dispatch are safe too; both are off only where the config says
//! this tool's answers reach the model raw (`raw_output`, or `redact_answers = false`).

mod env;
mod output;
#[cfg(unix)]
mod process;
#[cfg(target_os = "linux")]
mod procfs;
#[cfg(unix)]
pub mod sandbox;
#[cfg(test)]
mod tests;

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::Duration;

use hermes_tools::{ToolContext, tool, tool::SchemaContext, tool::SchemaOverride};
use serde::Serialize;

pub use env::INHERITED as INHERITED_ENV;
#[cfg(unix)]
pub use process::CALL_ID_VAR;

use crate::workspace::Workspace;
use env::EnvFilter;
use output::{OutputBuffer, finish_output};

/// Seconds a command may run when the model gives no timeout.
pub const DEFAULT_TIMEOUT_SECS: u64 = 180;
/// The longest timeout allowed, in seconds.
pub const MAX_TIMEOUT_SECS: u64 = 600;
/// Most output characters returned; longer output keeps its head and tail.
pub const MAX_OUTPUT_CHARS: usize = 50_000;
/// After the command ends and its processes are killed, how long to wait for the rest of the
/// output while none arrives: a process that escaped the kill may hold the pipe open.
#[cfg(unix)]
const DRAIN_IDLE: Duration = Duration::from_millis(250);
/// The longest the rest of the output is read after the command ends, however much arrives.
#[cfg(unix)]
const DRAIN_LIMIT: Duration = Duration::from_secs(2);
/// Characters of output kept in a timeout error.
const TIMEOUT_OUTPUT_CHARS: usize = 1000;

/// What a command did, in Hermes' shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommandOutput {
    /// Stdout and stderr as written, processed as the module docs say.
    pub output: String,
    /// The exit code; a command killed by a signal reports minus the signal number, or in the
    /// sandbox 128 plus it (bubblewrap passes the status on as a shell does).
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
    /// The tool's settings in the configuration are malformed.
    #[error(
        "The terminal is misconfigured: {0}. Nothing was run; tell the user, who must fix the \
         configuration."
    )]
    Config(String),
    /// The shell could not be started.
    #[error("Failed to execute command: {0}")]
    Spawn(io::Error),
    /// The configuration requires the sandbox, and it cannot run here.
    #[error(
        "The terminal is unavailable: {0}. Nothing was run; tell the user, who must install \
         bubblewrap or change the configuration."
    )]
    SandboxUnavailable(String),
}

fn output_tail(output: &str) -> String {
    if output.is_empty() {
        return String::new();
    }
    let skip = output.chars().count().saturating_sub(TIMEOUT_OUTPUT_CHARS);
    let tail: String = output.chars().skip(skip).collect();
    format!("\nLast output before the timeout:\n{tail}")
}

/// Whether a POSIX shell is available: `sh` on the `PATH`, or `/bin/sh` (Unix only).
pub fn shell_available() -> bool {
    cfg!(unix) && shell().is_some()
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
/// Runs `sh -c` with no input; stdout and stderr combined, long output cut in the middle. Use
/// it to build, test, run programs, use git and install packages. After `timeout` seconds the
/// command is killed with everything it started; background jobs end with the call, so do not
/// start servers or watchers.
///
/// Each call may need the user's approval. Only PATH, HOME and the locale are passed on; API
/// keys are not.
///
/// # Arguments
/// * `command` - The command line to run, such as 'cargo test 2>&1 | tail -20'.
/// * `timeout` - Seconds to wait before killing the command (default 180, at most 600).
#[tool(
    toolset = "terminal",
    emoji = "💻",
    check = shell_available,
    config_check = sandbox_mode,
    max_result_chars = 100_000,
    dynamic_schema = describe_the_shell,
    destructive,
    needs_approval,
    // Past the longest `timeout` a call may ask for, so the command's own timeout (which kills
    // and reports its output) fires before the pipeline's.
    timeout_secs = 630
)]
pub async fn terminal(
    command: String,
    #[arg(default = 180, minimum = 1, maximum = 600)] timeout: u64,
    workspace: &Workspace,
    ctx: &ToolContext,
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
    let config = ctx.config();
    let filter = EnvFilter::from_config(&config).map_err(TerminalError::Config)?;
    let redacting = config.redacts_answers_of(TERMINAL_TOOL.name, false);
    let env = filter.apply(std::env::vars_os());
    #[cfg(unix)]
    {
        let plan = sandbox::Settings::from_config(&config)
            .map_err(TerminalError::Config)?
            .plan()
            .map_err(TerminalError::SandboxUnavailable)?;
        let sandbox = match &plan {
            sandbox::Plan::Sandboxed(sandbox) => {
                if let Some(missing) = sandbox.missing_paths() {
                    return Err(TerminalError::Config(missing));
                }
                Some(sandbox)
            }
            sandbox::Plan::Unsandboxed { .. } => None,
        };
        run(&command, workspace.root(), env, seconds, redacting, sandbox).await
    }
    #[cfg(not(unix))]
    run(&command, workspace.root(), env, seconds, redacting).await
}

/// The tool's availability under the registry's configuration: a malformed sandbox setting
/// or a required sandbox that cannot run is the reason it is unavailable; otherwise the note
/// says how the shell runs (what `list` shows).
#[cfg(unix)]
fn sandbox_mode(config: &hermes_tools::config::Config) -> Result<Option<String>, String> {
    let plan = sandbox::Settings::from_config(config)?.plan()?;
    Ok(plan.note())
}

#[cfg(not(unix))]
fn sandbox_mode(_config: &hermes_tools::config::Config) -> Result<Option<String>, String> {
    Ok(None)
}

/// The description says whether the sandbox is in force, and points at the file tools, which
/// do their jobs better than shell commands, only when the model is given them (a static
/// description must not name tools that may be absent).
fn describe_the_shell(ctx: &SchemaContext<'_>) -> SchemaOverride {
    let mut description = TERMINAL_TOOL.description.to_owned();
    #[cfg(unix)]
    if let Ok(plan) = sandbox::Settings::from_config(ctx.config()).and_then(|s| s.plan()) {
        description.push_str("\n\n");
        description.push_str(&plan.describe());
    }
    let present: Vec<&str> = ["read_file", "write_file", "search_files"]
        .into_iter()
        .filter(|name| ctx.selected.contains(*name))
        .collect();
    if !present.is_empty() {
        description.push_str(&format!(
            "\n\nDo not use it to read, write or search files: {} do that better.",
            present.join(", ")
        ));
    }
    SchemaOverride {
        description: Some(description),
        parameters: None,
    }
}

#[cfg(unix)]
async fn run(
    command: &str,
    dir: &Path,
    env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    seconds: u64,
    redacting: bool,
    sandbox: Option<&sandbox::Sandbox>,
) -> Result<CommandOutput, TerminalError> {
    use tokio::io::AsyncReadExt;
    use tokio::time::{Instant, sleep_until};

    let deadline = Instant::now() + Duration::from_secs(seconds);
    let shell = shell()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no `sh` on PATH or at /bin/sh"))
        .map_err(TerminalError::Spawn)?;
    let process::Running {
        mut child,
        output: mut pipe,
        mut fence,
    } = process::start(&shell, command, dir, env, sandbox).map_err(TerminalError::Spawn)?;
    let mut output = OutputBuffer::default();
    let mut chunk = vec![0u8; 8192];
    let mut open = true;
    let status = loop {
        tokio::select! {
            status = child.wait() => break Some(status),
            read = pipe.read(&mut chunk), if open => match read {
                Ok(0) => open = false,
                Ok(n) => output.push(&chunk[..n]),
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => open = false,
            },
            () = sleep_until(deadline) => break None,
        }
    };
    // The shell is done (or out of time): so is everything it started.
    fence.kill_all();
    if status.is_none() {
        // Killed with its group above (this is for a shell whose pid could not be read).
        let _ = child.start_kill();
        let _ = child.wait().await;
    }
    if open {
        drain(&mut pipe, &mut chunk, &mut output).await;
    }
    fence.reap().await;
    let text = finish_output(&output.into_text(), redacting);
    match status {
        None => Err(TerminalError::TimedOut {
            seconds,
            output: text,
        }),
        Some(status) => Ok(CommandOutput {
            output: text,
            exit_code: exit_code(status.map_err(TerminalError::Spawn)?),
            error: None,
        }),
    }
}

#[cfg(not(unix))]
async fn run(
    _command: &str,
    _dir: &Path,
    _env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    _seconds: u64,
    _redacting: bool,
) -> Result<CommandOutput, TerminalError> {
    Err(TerminalError::Spawn(io::Error::new(
        io::ErrorKind::Unsupported,
        "the terminal tool runs on Unix only",
    )))
}

/// Reads the rest of the output once the call's processes are killed, until the pipe closes.
/// A process that escaped the kill may hold it open: stop once none came for [`DRAIN_IDLE`],
/// and after [`DRAIN_LIMIT`] in any case.
#[cfg(unix)]
async fn drain(
    pipe: &mut tokio::net::unix::pipe::Receiver,
    chunk: &mut [u8],
    output: &mut OutputBuffer,
) {
    use tokio::io::AsyncReadExt;
    use tokio::time::{Instant, timeout_at};

    let limit = Instant::now() + DRAIN_LIMIT;
    loop {
        let idle = (Instant::now() + DRAIN_IDLE).min(limit);
        match timeout_at(idle, pipe.read(chunk)).await {
            Ok(Ok(n)) if n > 0 => output.push(&chunk[..n]),
            Ok(Err(err)) if err.kind() == io::ErrorKind::Interrupted => {}
            _ => return,
        }
    }
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
