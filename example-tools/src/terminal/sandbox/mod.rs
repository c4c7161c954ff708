//! The operating system's fence around the shell: bubblewrap (`bwrap`) on Linux.
//!
//! A filtered environment keeps the agent's API keys out of the command's own environment,
//! but a command running as the agent's user, as its child, still reads them from
//! `/proc/$PPID/environ`. So where the machine has a working bubblewrap the shell runs inside
//! it (the references are Anthropic's Claude Code sandbox, which uses bubblewrap on Linux, and
//! Codex's Landlock and seccomp):
//!
//! - its own PID namespace and a fresh `/proc`: the agent and every other process of the
//!   machine are invisible (`$PPID` is the sandbox's init, whose environment is the filtered
//!   one), and when the call ends the namespace is killed, and everything in it with it;
//! - a root of its own: the system directories (`/usr`, `/bin`, `/sbin`, `/lib*`, `/etc`,
//!   `/opt`, `/nix`) read-only, `/etc/shadow` and `/etc/gshadow` hidden, the workspace the
//!   only writable directory of the machine; `/tmp` and the home directory are empty scratch
//!   space (tmpfs) thrown away with the call; nothing else (the real home, its keys and
//!   credentials, other projects) is mounted;
//! - no network (`--unshare-net`: only a loopback of its own) unless the operator allows it;
//! - its own IPC and UTS namespaces and session (`--new-session`: no typing into the agent's
//!   terminal), no capabilities even when the agent runs as root, `--die-with-parent`;
//! - at most `max_processes` processes (a fork bomb stays contained): a pids cgroup of the
//!   call's own where the agent may create one, else `RLIMIT_NPROC` through `prlimit` (which
//!   counts every process of the user, and which root ignores); see [`limit`].
//!
//! # Configuration
//!
//! ```toml
//! [tools.terminal]
//! sandbox = "auto"          # "auto" (default), "required" or "off"
//! network = false           # let the sandboxed shell reach the network
//! read_only_paths = ["/srv/datasets"]   # more directories the shell may read
//! writable_paths = ["/var/cache/build"] # more directories the shell may write
//! bwrap = "/usr/bin/bwrap"  # which bubblewrap (default: `bwrap` on the PATH)
//! max_processes = 512       # processes the sandboxed command may have at once
//! ```
//!
//! The call's other fences hold inside too (see the terminal's module docs): the process
//! group and the marker find every process of the call, and since its PID namespace dies with
//! its init, nothing started inside survives the call. A command killed by a signal reports
//! 128 plus the signal as its exit code (bubblewrap's way), not minus the signal.
//! `--die-with-parent` ties the sandbox to the thread that started it (Linux's parent-death
//! signal): the runtime's worker threads live as long as the runtime.
//!
//! `auto` sandboxes where bubblewrap is found and can create its namespaces (probed once per
//! `bwrap` path, by running it), and otherwise runs the shell as before, saying so in `list`
//! and in the tool's description. `required` makes the tool unavailable, with the reason,
//! where bubblewrap cannot run. `off` runs the shell unsandboxed, as before. Approval stays
//! the default in every mode: the sandbox narrows what an approved command can reach, the
//! approval decides whether it runs.

pub(super) mod limit;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use hermes_tools::config::Config;

use limit::Bound;

/// The tool whose settings hold the sandbox's.
const TOOL: &str = "terminal";
/// Processes a sandboxed command may have at once when the configuration says nothing.
pub const DEFAULT_MAX_PROCESSES: u32 = 512;

/// Whether the shell runs in the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Sandboxed where bubblewrap works, else unsandboxed with a note.
    #[default]
    Auto,
    /// Sandboxed, or the tool is unavailable.
    Required,
    /// Never sandboxed.
    Off,
}

/// The sandbox's settings, read from `[tools.terminal]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Settings {
    mode: Mode,
    network: bool,
    read_only: Vec<PathBuf>,
    writable: Vec<PathBuf>,
    /// `None`: `bwrap` on the `PATH`.
    bwrap: Option<PathBuf>,
    max_processes: u32,
}

/// How the next command runs.
#[derive(Debug)]
pub(super) enum Plan {
    /// Inside bubblewrap.
    Sandboxed(Sandbox),
    /// As the agent's child, as before; `note` says why when the sandbox was wanted.
    Unsandboxed {
        /// Why `auto` fell back (`None` for `off`).
        note: Option<String>,
    },
}

/// A working bubblewrap and what to mount.
#[derive(Debug, Clone)]
pub(super) struct Sandbox {
    bwrap: PathBuf,
    settings: Settings,
}

fn settings_of(config: &Config) -> Option<&serde_json::Map<String, serde_json::Value>> {
    config.tools.get(TOOL).map(|tool| &tool.settings)
}

fn key_error(key: &str, wanted: &str, found: &serde_json::Value) -> String {
    format!(
        "`[tools.{TOOL}] {key}` must be {wanted}, not {}",
        match found {
            serde_json::Value::String(s) => format!("{s:?}"),
            other => other.to_string(),
        }
    )
}

fn paths(key: &str, value: Option<&serde_json::Value>) -> Result<Vec<PathBuf>, String> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let wanted = "a list of absolute paths such as [\"/srv/data\"]";
    let items = value
        .as_array()
        .ok_or_else(|| key_error(key, wanted, value))?;
    items
        .iter()
        .map(|item| match item.as_str() {
            Some(path) if Path::new(path).is_absolute() => Ok(PathBuf::from(path)),
            _ => Err(key_error(key, wanted, item)),
        })
        .collect()
}

impl Settings {
    /// The settings in `config`; a malformed one is an error naming the key and what to write.
    pub(super) fn from_config(config: &Config) -> Result<Self, String> {
        let settings = settings_of(config);
        let get = |key: &str| settings.and_then(|s| s.get(key));
        let mode = match get("sandbox") {
            None => Mode::Auto,
            Some(value) => match value.as_str() {
                Some("auto") => Mode::Auto,
                Some("required") => Mode::Required,
                Some("off") => Mode::Off,
                _ => {
                    return Err(key_error(
                        "sandbox",
                        "one of \"auto\", \"required\" or \"off\"",
                        value,
                    ));
                }
            },
        };
        let network = match get("network") {
            None => false,
            Some(value) => value
                .as_bool()
                .ok_or_else(|| key_error("network", "true or false", value))?,
        };
        let bwrap = match get("bwrap") {
            None => None,
            Some(value) => match value.as_str() {
                Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
                _ => {
                    return Err(key_error(
                        "bwrap",
                        "the path of bubblewrap, such as \"/usr/bin/bwrap\"",
                        value,
                    ));
                }
            },
        };
        let max_processes = match get("max_processes") {
            None => DEFAULT_MAX_PROCESSES,
            Some(value) => value
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|&n| n >= 1)
                .ok_or_else(|| key_error("max_processes", "a whole number of at least 1", value))?,
        };
        Ok(Self {
            mode,
            network,
            read_only: paths("read_only_paths", get("read_only_paths"))?,
            writable: paths("writable_paths", get("writable_paths"))?,
            bwrap,
            max_processes,
        })
    }

    /// How commands run under these settings: `Err` when the sandbox is required and cannot run.
    pub(super) fn plan(&self) -> Result<Plan, String> {
        if self.mode == Mode::Off {
            return Ok(Plan::Unsandboxed { note: None });
        }
        match usable_bwrap(self.bwrap.as_deref()) {
            Ok(bwrap) => Ok(Plan::Sandboxed(Sandbox {
                bwrap,
                settings: self.clone(),
            })),
            Err(reason) if self.mode == Mode::Required => Err(format!(
                "`[tools.{TOOL}] sandbox = \"required\"` but the sandbox cannot run here: {reason}"
            )),
            Err(reason) => Ok(Plan::Unsandboxed {
                note: Some(format!("not sandboxed: {reason}")),
            }),
        }
    }
}

impl Plan {
    /// One line for `list`: how the shell runs.
    pub(super) fn note(&self) -> Option<String> {
        match self {
            Plan::Sandboxed(sandbox) => Some(sandbox.summary()),
            Plan::Unsandboxed { note } => {
                Some(note.clone().unwrap_or_else(|| {
                    format!("not sandboxed: `[tools.{TOOL}] sandbox = \"off\"`")
                }))
            }
        }
    }

    /// What the model is told of the shell's fence, for the tool's description.
    pub(super) fn describe(&self) -> String {
        match self {
            Plan::Sandboxed(sandbox) => format!(
                "Sandbox: on. Only the workspace is writable (/tmp and home start empty and \
                 are discarded); system directories are read-only; other files, the agent's \
                 processes{} are out of reach; at most {} processes.",
                if sandbox.settings.network {
                    ""
                } else {
                    " and the network"
                },
                sandbox.settings.max_processes
            ),
            Plan::Unsandboxed { .. } => "Sandbox: off. The shell runs as the agent's user and \
                 can reach what that user can, outside the workspace too."
                .to_owned(),
        }
    }
}

impl Sandbox {
    fn summary(&self) -> String {
        let network = if self.settings.network {
            "network on"
        } else {
            "network off"
        };
        let bound = match Bound::describe() {
            Some(kind) => format!("at most {} processes ({kind})", self.settings.max_processes),
            None => "process count not bounded (no pids cgroup, root ignores RLIMIT_NPROC)".into(),
        };
        format!("sandboxed: bubblewrap, {network}, {bound}")
    }

    /// The most processes a command may have at once.
    pub(super) fn max_processes(&self) -> u32 {
        self.settings.max_processes
    }

    /// `bwrap` and its arguments to run `shell -c command` with `workspace` writable.
    pub(super) fn command(
        &self,
        shell: &Path,
        command: &str,
        workspace: &Path,
        home: Option<&Path>,
    ) -> (PathBuf, Vec<OsString>) {
        let mut args: Vec<OsString> = Vec::new();
        let mut push = |items: &[&str]| args.extend(items.iter().map(OsString::from));
        push(&[
            "--die-with-parent",
            "--new-session",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
        ]);
        if !self.settings.network {
            push(&["--unshare-net"]);
        }
        for dir in [
            "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
        ] {
            system_dir(&mut args, Path::new(dir));
        }
        for dir in ["/etc", "/opt", "/nix"] {
            system_dir(&mut args, Path::new(dir));
        }
        for secret in ["/etc/shadow", "/etc/gshadow"] {
            if Path::new(secret).exists() {
                args.extend(["--ro-bind", "/dev/null", secret].map(OsString::from));
            }
        }
        if self.settings.network {
            // Where a systemd resolv.conf points.
            args.extend(["--ro-bind-try", "/run/systemd/resolve"].map(OsString::from));
            args.push("/run/systemd/resolve".into());
        }
        args.extend(["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"].map(OsString::from));
        if let Some(home) = home.filter(|home| home.is_absolute() && *home != Path::new("/")) {
            args.extend([OsString::from("--tmpfs"), home.into()]);
        }
        for path in &self.settings.read_only {
            args.extend([OsString::from("--ro-bind"), path.into(), path.into()]);
        }
        for path in &self.settings.writable {
            args.extend([OsString::from("--bind"), path.into(), path.into()]);
        }
        // Last, so nothing mounted above hides it.
        args.extend([
            OsString::from("--bind"),
            workspace.into(),
            workspace.into(),
            "--chdir".into(),
            workspace.into(),
            "--".into(),
            shell.into(),
            "-c".into(),
            command.into(),
        ]);
        (self.bwrap.clone(), args)
    }

    /// The configured paths that do not exist: bubblewrap would refuse to start.
    pub(super) fn missing_paths(&self) -> Option<String> {
        let keyed = (self
            .settings
            .read_only
            .iter()
            .map(|p| ("read_only_paths", p)))
        .chain(self.settings.writable.iter().map(|p| ("writable_paths", p)));
        for (key, path) in keyed {
            if !path.exists() {
                return Some(format!(
                    "`[tools.{TOOL}] {key}` names {}, which does not exist",
                    path.display()
                ));
            }
        }
        None
    }
}

/// Mounts a system directory read-only, or recreates it as the symlink it is (`/bin` ->
/// `usr/bin` on a merged-/usr system).
fn system_dir(args: &mut Vec<OsString>, dir: &Path) {
    match std::fs::read_link(dir) {
        Ok(target) => args.extend([OsString::from("--symlink"), target.into(), dir.into()]),
        Err(_) if dir.is_dir() => {
            args.extend([OsString::from("--ro-bind"), dir.into(), dir.into()]);
        }
        Err(_) => {}
    }
}

/// The bubblewrap to run, once it is known to work: the configured path, else `bwrap` on the
/// `PATH`. Whether it can create its namespaces is probed once per path by running it.
fn usable_bwrap(configured: Option<&Path>) -> Result<PathBuf, String> {
    let bwrap = match configured {
        Some(path) if path.components().count() > 1 => {
            if !path.is_file() {
                return Err(format!(
                    "bubblewrap is not at {} (`[tools.{TOOL}] bwrap`)",
                    path.display()
                ));
            }
            path.to_path_buf()
        }
        other => {
            let name = other.unwrap_or(Path::new("bwrap"));
            find_on_path(name).ok_or_else(|| {
                format!(
                    "bubblewrap (`{}`) is not on the PATH; install it (Debian, Ubuntu: `apt \
                     install bubblewrap`) or set `[tools.{TOOL}] bwrap`",
                    name.display()
                )
            })?
        }
    };
    static PROBED: OnceLock<Mutex<HashMap<PathBuf, Result<(), String>>>> = OnceLock::new();
    let probed = PROBED.get_or_init(Mutex::default);
    if let Some(known) = probed.lock().unwrap_or_else(|e| e.into_inner()).get(&bwrap) {
        return known.clone().map(|()| bwrap);
    }
    let result = probe(&bwrap);
    probed
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(bwrap.clone(), result.clone());
    result.map(|()| bwrap)
}

fn find_on_path(name: &Path) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// Runs `bwrap` with the namespaces a command gets, around `true`: user namespaces may be
/// disabled, or a container may forbid mounting.
fn probe(bwrap: &Path) -> Result<(), String> {
    let output = std::process::Command::new(bwrap)
        .args([
            "--die-with-parent",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-net",
            "--ro-bind",
            "/",
            "/",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--tmpfs",
            "/tmp",
            "--",
            "true",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|err| format!("{} cannot be run: {err}", bwrap.display()))?;
    if output.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&output.stderr);
    Err(format!(
        "{} cannot create its namespaces here ({}): {}",
        bwrap.display(),
        output.status,
        said.trim()
    ))
}
