//! Finding, killing and reaping a call's processes through `/proc` (Linux).
//!
//! A process belongs to a call when it is in the call's process group, when its environment
//! holds the call's marker, or when it descends from the agent and holds the write end of the
//! call's output pipe open. Once the agent is a subreaper, every process a call started stays
//! in the agent's tree, so only descendants are read (a sweep reads every `/proc/PID/stat`,
//! and the environment and open files of the agent's descendants only). [`kill_everything`]
//! sends `SIGKILL` to each, in rounds, until a whole round finds none it had not already
//! killed: a process cannot fork once `SIGKILL` is pending, and a child forked before that is
//! in `/proc` before the signal is sent, so the next round sees it.
//!
//! The agent is made a child subreaper ([`become_subreaper`]), so a killed process whose parent
//! died comes back to the agent rather than to PID 1 (which in a container may never reap it).
//! [`reap`] reaps those, and only those: a zombie child that tokio or another part of the
//! agent is waiting for must be left to it, or its `wait` fails. The shells of the calls in
//! flight are such children ([`spawn_shell`]): a sandboxed shell runs in a session of its own,
//! so without that list one call's fence would take another call's exited shell for an
//! adopted orphan and reap it, and that call's `wait` would fail with `ECHILD`.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::io;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{Pid, getsid};

/// A process, as `/proc/PID/stat` describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stat {
    pub(super) pid: i32,
    ppid: i32,
    pgid: i32,
    sid: i32,
    /// `R`, `S`, `D`, `Z`...
    state: u8,
    /// When it started, in clock ticks since boot.
    pub(super) start: u64,
}

impl Stat {
    fn is_zombie(&self) -> bool {
        self.state == b'Z'
    }
}

/// Reads `/proc/PID/stat`; `None` when the process is gone.
pub(super) fn stat(pid: i32) -> Option<Stat> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &text)
}

/// Parses a stat line. The command name (second field) is in parentheses and may itself hold
/// spaces and parentheses, so the fields are counted from the last `)`.
fn parse_stat(pid: i32, text: &str) -> Option<Stat> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    // After the name: state (field 3), ppid, pgrp, session, ..., starttime (field 22).
    Some(Stat {
        pid,
        state: *fields.first()?.as_bytes().first()?,
        ppid: fields.get(1)?.parse().ok()?,
        pgid: fields.get(2)?.parse().ok()?,
        sid: fields.get(3)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

/// Every process visible in `/proc`.
fn processes() -> Vec<Stat> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(stat)
        .collect()
}

/// This process's pid, as the kernel's `pid_t`.
pub(super) fn own_pid() -> i32 {
    Pid::this().as_raw()
}

/// Makes the agent a child subreaper, once: orphans of its descendants are re-parented to it
/// instead of to PID 1. Best effort: where the kernel refuses, orphans go to PID 1 as before
/// (they are still killed; PID 1 reaps them, or not). Returns whether the agent is one.
pub(super) fn become_subreaper() -> bool {
    static SUBREAPER: OnceLock<bool> = OnceLock::new();
    *SUBREAPER.get_or_init(|| nix::sys::prctl::set_child_subreaper(true).is_ok())
}

/// The shells of the calls in flight: direct children whose exit tokio waits for.
static SHELLS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn shells() -> MutexGuard<'static, BTreeSet<i32>> {
    // The set stays consistent whatever panicked while it was held.
    SHELLS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Spawns a call's shell and lists it among the calls in flight, both under the list's lock,
/// so no fence can see the shell exited before it is listed.
pub(super) fn spawn_shell(
    command: &mut tokio::process::Command,
) -> io::Result<tokio::process::Child> {
    let mut shells = shells();
    let child = command.spawn()?;
    if let Some(pid) = child.id().and_then(|pid| i32::try_from(pid).ok()) {
        shells.insert(pid);
    }
    Ok(child)
}

/// Takes a call's shell off the list of calls in flight, once its call is done with it.
pub(super) fn shell_done(pid: i32) {
    shells().remove(&pid);
}

/// How one call's processes are recognised.
pub(super) struct Call<'a> {
    /// The shell's pid, which is also the call's process group id.
    pub(super) shell: i32,
    /// `HERMES_CALL_ID=...`, as it appears in `/proc/PID/environ`.
    pub(super) marker: &'a [u8],
    /// The output pipe, as `/proc/PID/fd/N` links name it: `pipe:[INODE]`.
    pub(super) pipe: &'a str,
    /// When the shell started (clock ticks since boot).
    pub(super) since: u64,
}

/// Rounds of [`kill_everything`] before it gives up on a process tree that keeps forking
/// (each round kills what it finds, so this only bounds a pathological race).
const MAX_ROUNDS: usize = 32;

/// Kills every live process of `call` and adds to `pending` the ones to reap later: those
/// killed, and the call's zombies (in its group, children of a process killed, or re-parented
/// to the agent after leaving its session). The shell itself is never added: tokio reaps it.
pub(super) fn kill_everything(call: &Call<'_>, pending: &mut BTreeSet<i32>) {
    let me = own_pid();
    let my_session = getsid(None).map_or(-1, Pid::as_raw);
    let subreaper = become_subreaper();
    let mut killed = BTreeSet::new();
    for _ in 0..MAX_ROUNDS {
        let table = processes();
        let descendants = descendants(me, &table);
        let mut found_new = false;
        for process in table.iter().filter(|p| p.pid != me && !p.is_zombie()) {
            // A subreaper's orphans stay in its tree, so only the agent's descendants can be
            // the call's; otherwise an orphan may be anywhere, and only the marker finds it.
            let descends = descendants.contains(&process.pid);
            let marked = || (descends || !subreaper) && has_marker(process.pid, call.marker);
            let piped = || descends && writes_to(process.pid, call.pipe);
            if process.pgid == call.shell || marked() || piped() {
                // ESRCH (it just exited) and EPERM (it changed user) leave nothing to do.
                let _ = kill(Pid::from_raw(process.pid), Signal::SIGKILL);
                found_new |= killed.insert(process.pid);
            }
        }
        // A zombie's environment and open files are gone: these are the marks it keeps.
        let shells = shells();
        for zombie in table
            .iter()
            .filter(|p| p.is_zombie() && p.pid != call.shell)
        {
            let adopted = zombie.ppid == me
                && zombie.sid != my_session
                && zombie.start >= call.since
                && !shells.contains(&zombie.pid);
            if zombie.pgid == call.shell || killed.contains(&zombie.ppid) || adopted {
                pending.insert(zombie.pid);
            }
        }
        drop(shells);
        if !found_new {
            break;
        }
    }
    killed.remove(&call.shell);
    pending.extend(killed);
}

/// The pids descending from `root` in `table`.
fn descendants(root: i32, table: &[Stat]) -> BTreeSet<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for process in table {
        children.entry(process.ppid).or_default().push(process.pid);
    }
    let mut found = BTreeSet::new();
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        for &child in children.get(&pid).into_iter().flatten() {
            if found.insert(child) {
                stack.push(child);
            }
        }
    }
    found
}

/// Whether the environment of `pid` holds `marker` as a whole entry. Another user's process
/// cannot be read, and is not ours to kill anyway.
fn has_marker(pid: i32, marker: &[u8]) -> bool {
    fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|environ| environ.split(|&b| b == 0).any(|entry| entry == marker))
}

/// Whether `pid` has the write end of `target` (`pipe:[INODE]`) open: what the call's processes
/// write their output to. The read end is the agent's alone, yet not only the agent holds it: a
/// child the agent forked holds every file the agent has open until it runs its program
/// (close-on-exec closes them only at `exec`), as each command the agent starts does for a
/// moment; taking such a child for the call's (by the pipe alone) killed another call's shell
/// as it started, and that call answered an empty output.
fn writes_to(pid: i32, target: &str) -> bool {
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(Result::ok)
        .filter(|fd| fs::read_link(fd.path()).is_ok_and(|link| link.as_os_str() == target))
        .any(|fd| {
            let info =
                fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", fd.file_name().display()));
            info.ok()
                .and_then(|info| access_mode(&info))
                .is_some_and(|mode| mode != 0)
        })
}

/// The access mode (`O_RDONLY` 0, `O_WRONLY` 1, `O_RDWR` 2) of a `/proc/PID/fdinfo/N` text,
/// whose `flags:` are octal.
fn access_mode(fdinfo: &str) -> Option<u32> {
    let flags = fdinfo
        .lines()
        .find_map(|line| line.strip_prefix("flags:"))?;
    u32::from_str_radix(flags.trim(), 8)
        .ok()
        .map(|flags| flags & 0o3)
}

/// Reaps the processes of `pending` that died and came back to the agent, and forgets those
/// that are gone or that a living parent outside the call will reap. What is left is still
/// dying, or is the zombie of a dying parent (one of `pending`, or the call's `shell`), on its
/// way back to the agent.
pub(super) fn reap(pending: &mut BTreeSet<i32>, shell: i32) {
    let me = own_pid();
    let snapshot: Vec<i32> = pending.iter().copied().collect();
    // Held over the waits: a listed shell is another call's, for its own `wait`.
    let shells = shells();
    for pid in snapshot {
        if shells.contains(&pid) {
            pending.remove(&pid);
            continue;
        }
        let Some(process) = stat(pid) else {
            pending.remove(&pid);
            continue;
        };
        if !process.is_zombie() {
            continue;
        }
        if process.ppid == me {
            let status = waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG));
            // StillAlive: it died between the read and the wait; the next round reaps it.
            if !matches!(status, Ok(WaitStatus::StillAlive)) {
                pending.remove(&pid);
            }
        } else if process.ppid != shell && !pending.contains(&process.ppid) {
            pending.remove(&pid);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_fence_leaves_another_calls_exited_shell_to_its_wait() {
        // A shell in a session of its own, as a sandboxed one is (`setsid` runs in place: the
        // child leads no process group), exited and not yet waited for.
        let mut command = tokio::process::Command::new("setsid");
        command.args(["sh", "-c", "exit 3"]);
        let mut child = spawn_shell(&mut command).expect("setsid and sh run");
        let pid = i32::try_from(child.id().expect("running")).expect("a pid");
        let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !stat(pid).is_some_and(|process| process.is_zombie()) {
            assert!(std::time::Instant::now() < until, "{pid} never exited");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_ne!(stat(pid).map(|p| p.sid), getsid(None).ok().map(Pid::as_raw));
        // Another call's fence, ending (a call started before this shell): it finds the
        // zombie a child of the agent from another session, and still leaves it.
        let other = Call {
            shell: -1,
            marker: b"HERMES_CALL_ID=another-call",
            pipe: "pipe:[0]",
            since: 0,
        };
        let mut pending = BTreeSet::new();
        kill_everything(&other, &mut pending);
        assert!(!pending.contains(&pid), "{pending:?}");
        let mut listed = BTreeSet::from([pid]);
        reap(&mut listed, -1);
        assert!(listed.is_empty());
        // So the call's own wait gets its status, where it got ECHILD.
        let status = child.wait().await.expect("the shell's status");
        assert_eq!(status.code(), Some(3));
        shell_done(pid);
    }

    #[test]
    fn a_fence_kills_a_writer_of_its_pipe_and_spares_a_child_forked_holding_the_read_end() {
        use std::os::fd::AsRawFd as _;
        use std::os::unix::fs::MetadataExt as _;
        use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
        // The call's output pipe: its write end given to the call's command (in no group or
        // session of the call's, with no marker: found by the pipe alone), its read end kept
        // by the agent (close-on-exec), as `start` leaves them.
        let (reader, writer) = io::pipe().expect("a pipe");
        let reader = fs::File::from(std::os::fd::OwnedFd::from(reader));
        let inode = reader.metadata().expect("the pipe's inode").ino();
        let mut escaped = std::process::Command::new("sleep")
            .arg("30")
            .stdout(writer)
            .spawn()
            .expect("sleep runs");
        // Another command starting meanwhile: forked, holding every file of the agent (the
        // read end among them), and not yet `exec`ed (its `pre_exec` signals, then waits).
        let (mut told, ready) = io::pipe().expect("a pipe");
        let ready_fd = ready.as_raw_fd();
        let mut starting = std::process::Command::new("true");
        // SAFETY: `write` and `nanosleep` are async-signal-safe, all a forked child may call.
        #[allow(unsafe_code)]
        unsafe {
            starting.pre_exec(move || {
                nix::unistd::write(std::os::fd::BorrowedFd::borrow_raw(ready_fd), b"!")?;
                std::thread::sleep(std::time::Duration::from_millis(200));
                Ok(())
            });
        }
        let starting = std::thread::spawn(move || starting.status());
        io::Read::read_exact(&mut told, &mut [0u8; 1]).expect("the child forked");
        drop(ready);
        let pipe = format!("pipe:[{inode}]");
        let call = Call {
            shell: -1,
            marker: b"HERMES_CALL_ID=a-call",
            pipe: &pipe,
            since: 0,
        };
        let mut pending = BTreeSet::new();
        kill_everything(&call, &mut pending);
        let status = starting.join().expect("no panic").expect("`true` ran");
        assert_eq!(
            status.signal(),
            None,
            "killed before it could exec: {status}"
        );
        assert!(status.success(), "{status}");
        let pid = i32::try_from(escaped.id()).expect("a pid");
        assert_eq!(pending, BTreeSet::from([pid]));
        let status = escaped.wait().expect("sleep's status");
        assert_eq!(status.signal(), Some(9), "{status}");
        drop(reader);
    }

    #[test]
    fn the_access_mode_is_read_from_fdinfo_flags_in_octal() {
        let info = |flags: &str| format!("pos:\t0\nflags:\t{flags}\nmnt_id:\t15\nino:\t42\n");
        assert_eq!(access_mode(&info("02000000")), Some(0));
        assert_eq!(access_mode(&info("02000001")), Some(1));
        assert_eq!(access_mode(&info("0100002")), Some(2));
        assert_eq!(access_mode("pos:\t0\n"), None);
        assert_eq!(access_mode(&info("9")), None);
    }

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let line = "4242 (a) b (c) S 1 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 \
                    1 2 3\n";
        let stat = parse_stat(4242, line).unwrap();
        assert_eq!(
            stat,
            Stat {
                pid: 4242,
                ppid: 1,
                pgid: 4242,
                sid: 4242,
                state: b'S',
                start: 987_654,
            }
        );
        assert_eq!(parse_stat(1, "1 (truncated"), None);
        assert_eq!(parse_stat(1, "1 (x) S 0"), None);
    }

    #[test]
    fn this_process_reads_as_itself() {
        let me = stat(own_pid()).unwrap();
        assert_eq!(me.pid, own_pid());
        assert_eq!(me.ppid, nix::unistd::getppid().as_raw());
        assert!(!me.is_zombie());
        assert!(descendants(1, &processes()).contains(&own_pid()));
    }
}
