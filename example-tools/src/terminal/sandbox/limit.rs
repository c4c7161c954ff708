//! How many processes a sandboxed command may have at once: a fork bomb stays contained.
//!
//! Best first:
//! - a pids cgroup of the call's own (cgroup v1 `pids` hierarchy, or v2 with the `pids`
//!   controller), under the agent's own cgroup, when the agent may create one there: it counts
//!   exactly the call's processes, and it binds root too. The command joins it before
//!   bubblewrap starts (a one-line `sh` wrapper writes its own pid to `cgroup.procs`, then
//!   `exec`s bubblewrap: the crate forbids `unsafe`, so no `pre_exec`), so nothing the
//!   command starts is outside it. The cgroup is removed when the call ends;
//! - else `RLIMIT_NPROC` through util-linux's `prlimit`: the kernel counts every process of
//!   the agent's user against it (so a user already running many processes has fewer left for
//!   the command), and ignores it for root;
//! - else (root with no writable pids cgroup) no bound, which `list` says.

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// How long removing a call's cgroup may wait for its killed processes to leave it.
const REMOVE_LIMIT: Duration = Duration::from_secs(2);

/// What bounds the process count here.
#[derive(Debug)]
enum Kind {
    /// Calls get a child of this pids cgroup directory.
    Cgroup(PathBuf),
    /// `prlimit` at this path sets `RLIMIT_NPROC`.
    Prlimit(PathBuf),
}

/// Found once per process: the cgroup layout and the agent's user do not change.
fn kind() -> Option<&'static Kind> {
    static KIND: OnceLock<Option<Kind>> = OnceLock::new();
    KIND.get_or_init(|| {
        if let Some(dir) = pids_cgroup() {
            return Some(Kind::Cgroup(dir));
        }
        let root = fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
        if root {
            return None;
        }
        super::find_on_path(Path::new("prlimit")).map(Kind::Prlimit)
    })
    .as_ref()
}

/// The agent's own pids cgroup directory, if a child of it can be made and bounded.
fn pids_cgroup() -> Option<PathBuf> {
    let own = fs::read_to_string("/proc/self/cgroup").ok()?;
    let mounts = fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut candidates = Vec::new();
    for line in own.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let v1 = controllers.split(',').any(|c| c == "pids");
        let v2 = controllers.is_empty();
        if !(v1 || v2) {
            continue;
        }
        for mount in mounts.lines() {
            // `ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - FSTYPE SOURCE SUPEROPTIONS`
            let Some((before, after)) = mount.split_once(" - ") else {
                continue;
            };
            let before: Vec<&str> = before.split(' ').collect();
            let after: Vec<&str> = after.split(' ').collect();
            let (Some(root), Some(point), Some(fstype)) =
                (before.get(3), before.get(4), after.first())
            else {
                continue;
            };
            let matches = if v1 {
                *fstype == "cgroup"
                    && after
                        .get(2)
                        .is_some_and(|opts| opts.split(',').any(|o| o == "pids"))
            } else {
                *fstype == "cgroup2"
            };
            if !matches {
                continue;
            }
            let inside = path.strip_prefix(root).unwrap_or(path);
            let dir = Path::new(point).join(inside.trim_start_matches('/'));
            candidates.push(dir);
        }
    }
    candidates.into_iter().find(|dir| {
        let probe = dir.join(format!("hermes-terminal-probe-{}", std::process::id()));
        let usable =
            fs::create_dir(&probe).is_ok() && fs::write(probe.join("pids.max"), "64").is_ok();
        let _ = fs::remove_dir(&probe);
        usable
    })
}

/// A call's own pids cgroup: its processes are killed and it is removed when it is dropped.
#[derive(Debug)]
pub(in crate::terminal) struct Cgroup {
    dir: PathBuf,
}

impl Cgroup {
    fn create(parent: &Path, name: &str, max: u32) -> io::Result<Self> {
        let dir = parent.join(name);
        fs::create_dir(&dir)?;
        let cgroup = Self { dir };
        fs::write(cgroup.dir.join("pids.max"), max.to_string())?;
        Ok(cgroup)
    }

    fn procs(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    /// Sends `SIGKILL` to every process in it, in rounds until none is left to kill (a process
    /// forked during a round is listed in the next). Whether it is empty.
    pub(in crate::terminal) fn kill_all(&self) -> bool {
        for _ in 0..64 {
            let Ok(text) = fs::read_to_string(self.procs()) else {
                return true;
            };
            let pids: Vec<i32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
            if pids.is_empty() {
                return true;
            }
            for pid in pids {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
        false
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // A killed process leaves the cgroup once it is dead; rmdir fails until then.
        let until = Instant::now() + REMOVE_LIMIT;
        loop {
            self.kill_all();
            if fs::remove_dir(&self.dir).is_ok() || Instant::now() >= until {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// What bounds a sandboxed command's process count.
pub(in crate::terminal) struct Bound;

impl Bound {
    /// What bounds it here (`None`: nothing can), in a few words for `list`.
    pub(super) fn describe() -> Option<&'static str> {
        kind().map(|kind| match kind {
            Kind::Cgroup(_) => "pids cgroup",
            Kind::Prlimit(_) => "RLIMIT_NPROC",
        })
    }

    /// Wraps `program args` so that it runs with at most `max` processes: the program to
    /// start, its arguments, and the call's cgroup (to drop when the call ends). `shell`
    /// writes the command into its cgroup. `Err` when the cgroup could not be made.
    pub(in crate::terminal) fn wrap(
        shell: &Path,
        program: PathBuf,
        args: Vec<std::ffi::OsString>,
        max: u32,
        call_id: &str,
    ) -> io::Result<(PathBuf, Vec<std::ffi::OsString>, Option<Cgroup>)> {
        match kind() {
            Some(Kind::Cgroup(parent)) => {
                let cgroup = Cgroup::create(parent, &format!("hermes-terminal-{call_id}"), max)?;
                let mut wrapped: Vec<std::ffi::OsString> = vec![
                    "-c".into(),
                    // Join the cgroup, then become bubblewrap; never run outside it.
                    "echo $$ > \"$0\" && exec \"$@\"".into(),
                    cgroup.procs().into(),
                    program.into(),
                ];
                wrapped.extend(args);
                Ok((shell.to_path_buf(), wrapped, Some(cgroup)))
            }
            Some(Kind::Prlimit(prlimit)) => {
                let mut wrapped: Vec<std::ffi::OsString> =
                    vec![format!("--nproc={max}").into(), "--".into(), program.into()];
                wrapped.extend(args);
                Ok((prlimit.clone(), wrapped, None))
            }
            None => Ok((program, args, None)),
        }
    }
}
