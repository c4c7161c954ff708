//! Starting a command, and the [`Fence`] that makes sure nothing it started outlives its call.
//!
//! The shell runs in a process group of its own, marked by a variable unique to the call
//! ([`CALL_ID_VAR`]), with stdout and stderr on one pipe that the call reads with async I/O
//! (no thread per call: a background child holding the pipe open costs nothing). When the
//! shell exits, when the timeout expires, or when the call's future is dropped, the fence kills
//! the group and every process that escaped it (on Linux, found through `/proc` by the marker
//! or the pipe; see `procfs`), then reaps what came back to the agent.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs::File;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::net::unix::pipe;

#[cfg(target_os = "linux")]
use super::procfs;
use super::sandbox::{Sandbox, limit::Bound, limit::Cgroup};

/// The variable that marks every process of one call: `HERMES_CALL_ID=<32 hex digits>`.
pub const CALL_ID_VAR: &str = "HERMES_CALL_ID";

/// How long the fence waits for killed processes to die and be reaped, at most. `SIGKILL` takes
/// microseconds; only a process stuck in the kernel (uninterruptible I/O) takes longer.
const REAP_LIMIT: Duration = Duration::from_secs(2);
/// What a dropped call spends reaping on the dropping thread before handing over the rest.
const REAP_ON_DROP: Duration = Duration::from_millis(50);
const REAP_POLL: Duration = Duration::from_millis(2);

/// A command started: the shell, its output, and the fence around its processes.
pub(super) struct Running {
    pub(super) child: tokio::process::Child,
    pub(super) output: pipe::Receiver,
    pub(super) fence: Fence,
}

/// Starts `shell -c command` in `dir` with exactly the environment `env` (and the call's
/// marker), stdin closed, stdout and stderr on one pipe; inside `sandbox` when given.
pub(super) fn start(
    shell: &Path,
    command: &str,
    dir: &Path,
    env: Vec<(OsString, OsString)>,
    sandbox: Option<&Sandbox>,
) -> io::Result<Running> {
    let call_id = new_call_id();
    let (reader, writer) = io::pipe()?;
    let reader = File::from(OwnedFd::from(reader));
    let pipe_inode = reader.metadata()?.ino();
    let output = pipe::Receiver::from_owned_fd(OwnedFd::from(reader))?;
    let (program, args, cgroup) = match sandbox {
        Some(sandbox) => {
            let home = env
                .iter()
                .find(|(name, _)| name == "HOME")
                .map(|(_, value)| Path::new(value));
            let (bwrap, args) = sandbox.command(shell, command, dir, home);
            Bound::wrap(shell, bwrap, args, sandbox.max_processes(), &call_id)?
        }
        None => (
            shell.to_path_buf(),
            vec![OsString::from("-c"), command.into()],
            None,
        ),
    };
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env_clear()
        .envs(env)
        .env(CALL_ID_VAR, &call_id)
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .process_group(0)
        .kill_on_drop(true);
    #[cfg(target_os = "linux")]
    let _ = procfs::become_subreaper();
    #[cfg(target_os = "linux")]
    let child = procfs::spawn_shell(&mut cmd)?;
    #[cfg(not(target_os = "linux"))]
    let child = cmd.spawn()?;
    // Our copies of the pipe's write end must close, or the output never ends.
    drop(cmd);
    let mut fence = Fence::new(child.id(), &call_id, pipe_inode);
    fence.cgroup = cgroup;
    Ok(Running {
        child,
        output,
        fence,
    })
}

/// 128 bits, unique per call: the process id, a counter, the time, through std's randomly
/// keyed hasher (unpredictability is not needed, only that two calls never share one).
fn new_call_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let half = |salt: u64| {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(salt);
        hasher.write_u32(std::process::id());
        hasher.write_u64(count);
        hasher.write_u128(nanos);
        hasher.finish()
    };
    format!("{:016x}{:016x}", half(1), half(2))
}

/// Kills everything a call started when the call ends, however it ends.
///
/// [`kill_all`](Self::kill_all) then [`reap`](Self::reap) on the normal paths; dropped while
/// armed (the call's future was dropped), it does both on the spot.
pub(super) struct Fence {
    /// The shell's pid and process group; `None` if it could not be read (then only the
    /// marker and the pipe identify the call's processes).
    shell: Option<i32>,
    /// `HERMES_CALL_ID=<id>`, as an entry of `/proc/PID/environ`.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    marker: Vec<u8>,
    /// `pipe:[INODE]`, as a `/proc/PID/fd/N` link to the output pipe reads.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pipe: String,
    /// When the shell started, in clock ticks since boot (Linux).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    since: u64,
    /// Killed processes (and adopted zombies of the call) to reap.
    pending: BTreeSet<i32>,
    /// A sandboxed call's pids cgroup: killed with the rest, removed when the fence is done.
    cgroup: Option<Cgroup>,
    /// Whether the shell is listed among the calls in flight (`procfs::spawn_shell`) by this
    /// fence, which takes it off when dropped.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    listed: bool,
    armed: bool,
}

impl Fence {
    fn new(shell: Option<u32>, call_id: &str, pipe_inode: u64) -> Self {
        let shell = shell.and_then(|pid| i32::try_from(pid).ok());
        #[cfg(target_os = "linux")]
        let since = shell
            .and_then(procfs::stat)
            .map_or(0, |process| process.start);
        #[cfg(not(target_os = "linux"))]
        let since = 0;
        Self {
            shell,
            marker: format!("{CALL_ID_VAR}={call_id}").into_bytes(),
            pipe: format!("pipe:[{pipe_inode}]"),
            since,
            pending: BTreeSet::new(),
            cgroup: None,
            listed: shell.is_some(),
            armed: true,
        }
    }

    /// Kills the call's process group and every process that left it but carries the call's
    /// marker or output pipe. Call it again at will: it only kills what still runs.
    pub(super) fn kill_all(&mut self) {
        if let Some(shell) = self.shell {
            // ESRCH: the group is already empty.
            let _ = killpg(Pid::from_raw(shell), Signal::SIGKILL);
        }
        #[cfg(target_os = "linux")]
        {
            let call = procfs::Call {
                shell: self.shell.unwrap_or(-1),
                marker: &self.marker,
                pipe: &self.pipe,
                since: self.since,
            };
            procfs::kill_everything(&call, &mut self.pending);
        }
        if let Some(cgroup) = &self.cgroup {
            cgroup.kill_all();
        }
    }

    /// Waits (at most [`REAP_LIMIT`]) until the killed processes are dead and those that came
    /// back to the agent are reaped, and disarms the fence.
    pub(super) async fn reap(mut self) {
        let deadline = tokio::time::Instant::now() + REAP_LIMIT;
        while !self.reap_once() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(REAP_POLL).await;
        }
        drop(self.cgroup.take());
        self.armed = false;
    }

    /// One round of reaping; whether nothing is left to wait for.
    fn reap_once(&mut self) -> bool {
        #[cfg(target_os = "linux")]
        procfs::reap(&mut self.pending, self.shell.unwrap_or(-1));
        #[cfg(not(target_os = "linux"))]
        self.pending.clear();
        self.pending.is_empty()
    }
}

impl Drop for Fence {
    /// The call's future was dropped mid-run (a cancelled turn, a disconnected MCP client):
    /// kill now, reap briefly here, and leave any straggler to a short-lived thread.
    fn drop(&mut self) {
        // Done with the shell: tokio has waited for it (or, for a dropped call, will reap it
        // as an orphan, which no longer needs it kept from other fences).
        #[cfg(target_os = "linux")]
        if let (Some(shell), true) = (self.shell, self.listed) {
            procfs::shell_done(shell);
        }
        if !self.armed {
            return;
        }
        self.kill_all();
        let until = std::time::Instant::now() + REAP_ON_DROP;
        while !self.reap_once() && std::time::Instant::now() < until {
            std::thread::sleep(REAP_POLL);
        }
        if self.pending.is_empty() {
            return;
        }
        let mut rest = Fence {
            shell: self.shell,
            marker: Vec::new(),
            pipe: String::new(),
            since: self.since,
            pending: std::mem::take(&mut self.pending),
            cgroup: self.cgroup.take(),
            listed: false,
            armed: false,
        };
        let _ = std::thread::Builder::new()
            .name("terminal-reaper".into())
            .spawn(move || {
                let until = std::time::Instant::now() + REAP_LIMIT;
                while !rest.reap_once() && std::time::Instant::now() < until {
                    std::thread::sleep(REAP_POLL);
                }
            });
    }
}
