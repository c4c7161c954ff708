//! Spill files: where an over-size answer is written whole, for the model to page through.
//!
//! # Bounds
//!
//! A spill directory never grows without bound. Before each new file is written, the files of
//! a spill's name in the directory (`<tool>-<millis>-<pid>-<n>.txt`: nothing else there is
//! ever touched) older than `spill_max_age_secs` are removed, then the oldest others until the
//! new file fits within `spill_max_files` files and `spill_max_bytes` bytes. An answer larger
//! than `spill_max_bytes` on its own is not spilled: its marker says so. Each bound is off at
//! 0. Spills running at once in several threads or processes may each remove files, so a
//! bound may be passed by the files of the spills in flight, never for longer.
//!
//! # Reading a spill back
//!
//! The marker names the file by its absolute path, which is usually outside the directory an
//! agent's file tools are confined to. [`readable_spill_file`] is how such a tool (the example
//! `read_file`) recognises a spill file, by design readable wherever it is: a regular file,
//! not a link, directly in the configured `spill_dir`, with a spill's name. What it holds is
//! an answer the model was already given (after redaction), so reading it back shows nothing
//! new; and since only names of that shape are accepted, pointing `spill_dir` at a directory
//! of other files does not open them to the model.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::config::Config;

/// The longest tool-name part of a spill file's name.
const MAX_STEM_CHARS: usize = 64;

/// Names tried for a spill file before giving up; each clash is another process's file.
const NAME_ATTEMPTS: u32 = 16;

/// A directory where over-size answers are written whole, one new file per answer, within
/// the [bounds](self#bounds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Spill {
    dir: PathBuf,
    max_files: usize,
    max_bytes: u64,
    max_age_secs: u64,
}

impl Spill {
    // The tests build spills directly; the runtime builds them from its config.
    #[cfg(test)]
    /// Spills into `dir`, created (with its parents) when the first file is written, within
    /// the default bounds.
    ///
    /// A relative `dir` is made absolute against the current directory now, because the path
    /// is given to the model, whose `read_file` may resolve paths from elsewhere.
    pub(crate) fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: absolute(dir.into()),
            max_files: crate::config::DEFAULT_SPILL_MAX_FILES,
            max_bytes: crate::config::DEFAULT_SPILL_MAX_BYTES,
            max_age_secs: crate::config::DEFAULT_SPILL_MAX_AGE_SECS,
        }
    }

    /// The spill of `config`: its `spill_dir` within its `spill_max_*` bounds, if it has one.
    pub(crate) fn configured(config: &Config) -> Option<Self> {
        let dir = config.spill_dir.as_ref()?;
        Some(Self {
            dir: absolute(dir.clone()),
            max_files: config.spill_max_files,
            max_bytes: config.spill_max_bytes,
            max_age_secs: config.spill_max_age_secs,
        })
    }

    // The tests build spills directly; the runtime builds them from its config.
    #[cfg(test)]
    /// The same spill within other bounds: at most `max_files` files, `max_bytes` bytes, each
    /// younger than `max_age_secs` seconds (each off at 0).
    #[must_use]
    pub(crate) fn with_bounds(self, max_files: usize, max_bytes: u64, max_age_secs: u64) -> Self {
        Self {
            max_files,
            max_bytes,
            max_age_secs,
            ..self
        }
    }

    // The tests build spills directly; the runtime builds them from its config.
    #[cfg(test)]
    /// The directory spill files go to.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `text` to a new file in the directory and returns its path.
    ///
    /// The name is `<tool>-<unix millis>-<process id>-<counter>.txt`, the tool name kept to
    /// ASCII letters, digits, `_` and `-` (so the file is always inside the directory), and the
    /// file is created new, never over another: calls from any thread or process never collide.
    /// On Unix only its owner may read it, as answers may hold private data. A failed write
    /// leaves no partial file. Older spill files are removed first to keep the directory
    /// within its [bounds](self#bounds); a `text` longer than the byte bound is refused.
    pub(crate) fn write(&self, tool: &str, text: &str) -> io::Result<PathBuf> {
        let size = text.len() as u64;
        if self.max_bytes > 0 && size > self.max_bytes {
            return Err(io::Error::other(format!(
                "the answer is {size} bytes, more than spill_max_bytes ({})",
                self.max_bytes
            )));
        }
        fs::create_dir_all(&self.dir)?;
        self.make_room(size)?;
        let stem = file_stem(tool);
        for _ in 0..NAME_ATTEMPTS {
            let path = self.dir.join(format!("{stem}-{}.txt", unique_suffix()));
            match create_private(&path) {
                Ok(file) => return fill(file, &path, text).map(|()| path),
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
                Err(err) => return Err(err),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "no unused spill file name was found",
        ))
    }
}

impl Spill {
    /// Removes spill files past their age, then the oldest, until one more file of `size`
    /// bytes is within the bounds.
    fn make_room(&self, size: u64) -> io::Result<()> {
        if self.max_files == 0 && self.max_bytes == 0 && self.max_age_secs == 0 {
            return Ok(());
        }
        let now = SystemTime::now();
        let max_age = Duration::from_secs(self.max_age_secs);
        let mut kept = Vec::new();
        for spilled in self.spilled()? {
            let age = now.duration_since(spilled.modified).unwrap_or_default();
            if self.max_age_secs > 0 && age > max_age {
                remove(&spilled.path);
            } else {
                kept.push(spilled);
            }
        }
        // Oldest first; the name (time, process, counter) orders files of the same instant.
        kept.sort_by(|a, b| (a.modified, &a.path).cmp(&(b.modified, &b.path)));
        let mut count = kept.len();
        let mut bytes: u64 = kept.iter().map(|spilled| spilled.len).sum();
        for oldest in kept {
            let too_many = self.max_files > 0 && count + 1 > self.max_files;
            let too_big = self.max_bytes > 0 && bytes + size > self.max_bytes;
            if !too_many && !too_big {
                break;
            }
            remove(&oldest.path);
            count -= 1;
            bytes -= oldest.len;
        }
        Ok(())
    }

    /// The spill files in the directory: regular files of a spill's name, nothing else.
    fn spilled(&self) -> io::Result<Vec<Spilled>> {
        let mut found = Vec::new();
        for entry in fs::read_dir(&self.dir)? {
            // Another process may remove an entry between listing and reading it.
            let Ok(entry) = entry else { continue };
            let is_spill = entry.file_name().to_str().is_some_and(is_spill_name);
            let Ok(metadata) = entry.metadata() else {
                continue;
            };
            if !is_spill || !metadata.file_type().is_file() {
                continue;
            }
            found.push(Spilled {
                path: entry.path(),
                modified: metadata.modified().unwrap_or(UNIX_EPOCH),
                len: metadata.len(),
            });
        }
        Ok(found)
    }
}

/// A spill file found in the directory.
struct Spilled {
    path: PathBuf,
    modified: SystemTime,
    len: u64,
}

/// Removes a spill file; one already gone (another process's prune) is no failure.
fn remove(path: &Path) {
    if let Err(err) = fs::remove_file(path)
        && err.kind() != io::ErrorKind::NotFound
    {
        tracing::warn!(file = %path.display(), error = %err, "could not remove an old spill file");
    }
}

/// Whether `name` is a spill file's: `<stem>-<millis>-<pid>-<n>.txt`, the stem 1 to 64 of
/// `[A-Za-z0-9_-]`.
fn is_spill_name(name: &str) -> bool {
    let Some(base) = name.strip_suffix(".txt") else {
        return false;
    };
    let mut parts = base.rsplitn(4, '-');
    let numeric = |part: Option<&str>| {
        part.is_some_and(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
    };
    numeric(parts.next())
        && numeric(parts.next())
        && numeric(parts.next())
        && parts.next().is_some_and(|stem| {
            (1..=MAX_STEM_CHARS).contains(&stem.len())
                && stem
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        })
}

/// The spill file `path` names, canonical, when it is one that `config`'s spill may have
/// written: a regular file (not a link), directly in the configured `spill_dir`, with a spill
/// file's name. `None` otherwise, and when `config` has no `spill_dir`.
///
/// This is what a file tool confined to a workspace calls to let the model page through the
/// spill file a cut answer names, wherever the spill directory is. It is safe by design: a
/// spill file holds an answer the model was already given (after redaction), so reading it
/// back shows nothing new; and since only names of a spill's shape
/// (`<tool>-<millis>-<pid>-<n>.txt`) are accepted, pointing `spill_dir` at a directory of
/// other files does not open them to the model.
///
/// ```
/// use hermes_tools::{config::Config, call::readable_spill_file};
///
/// let dir = std::env::temp_dir().join(format!("spill-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let spilled = dir.join("terminal-1700000000000-42-0.txt");
/// std::fs::write(&spilled, "== text, 1 line ==\nhi\n").unwrap();
/// std::fs::write(dir.join("notes.txt"), "not a spill").unwrap();
///
/// let config = Config { spill_dir: Some(dir.clone()), ..Config::default() };
/// assert!(readable_spill_file(&config, &spilled).is_some());
/// assert!(readable_spill_file(&config, &dir.join("notes.txt")).is_none());
/// assert!(readable_spill_file(&Config::default(), &spilled).is_none());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn readable_spill_file(config: &Config, path: &Path) -> Option<PathBuf> {
    let dir = fs::canonicalize(absolute(config.spill_dir.clone()?)).ok()?;
    // Only absolute paths: a relative one is the file tool's to resolve in its workspace.
    if !path.is_absolute() {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    if !is_spill_name(name) || fs::canonicalize(path.parent()?).ok()? != dir {
        return None;
    }
    let file = dir.join(name);
    // `symlink_metadata`: a link in the spill directory could point anywhere.
    fs::symlink_metadata(&file)
        .ok()?
        .file_type()
        .is_file()
        .then_some(file)
}

fn absolute(dir: PathBuf) -> PathBuf {
    std::path::absolute(&dir).unwrap_or(dir)
}

fn file_stem(tool: &str) -> String {
    let stem: String = tool
        .chars()
        .take(MAX_STEM_CHARS)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        "tool".to_owned()
    } else {
        stem
    }
}

/// Unique within the process by the counter, across processes by the id, across id reuse by
/// the time.
fn unique_suffix() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis());
    let seq = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{millis}-{}-{seq}", std::process::id())
}

fn create_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

fn fill(mut file: File, path: &Path, text: &str) -> io::Result<()> {
    let written = file.write_all(text.as_bytes());
    if written.is_err() {
        // A partial file would page as if it were whole; the write's error is what we report.
        let _ = fs::remove_file(path);
    }
    written
}

/// What became of the spill.
pub(super) enum Saved {
    Off,
    File(PathBuf),
    Failed(String),
}

impl Saved {
    pub(super) fn new(tool: &str, rendering: &str, spill: Option<&Spill>) -> Self {
        match spill.map(|spill| spill.write(tool, rendering)) {
            None => Self::Off,
            Some(Ok(path)) => Self::File(path),
            Some(Err(err)) => Self::Failed(err.to_string()),
        }
    }

    pub(super) fn into_parts(self) -> (Option<PathBuf>, Option<String>) {
        match self {
            Self::Off => (None, None),
            Self::File(path) => (Some(path), None),
            Self::Failed(reason) => (None, Some(reason)),
        }
    }

    pub(super) fn path_value(&self) -> Option<Value> {
        match self {
            Self::File(path) => Some(Value::String(path.to_string_lossy().into_owned())),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spill_names_are_recognised_and_nothing_else() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let spill = Spill::new(dir.path());
        for tool in [
            "terminal",
            "../etc/pass wd",
            "",
            "mcp__time__now",
            &"x".repeat(100),
        ] {
            let path = spill.write(tool, "text\n").expect("written");
            let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
            assert!(is_spill_name(name), "{name}");
        }
        for name in [
            "notes.txt",
            "a-1-2.txt",
            "a-1-2-3.log",
            "-1-2-3.txt",
            "a-1-2-x.txt",
            "a b-1-2-3.txt",
            "a-1--3.txt",
            &format!("{}-1-2-3.txt", "x".repeat(65)),
        ] {
            assert!(!is_spill_name(name), "{name}");
        }
    }

    #[test]
    fn bounds_at_zero_keep_every_file() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let spill = Spill::new(dir.path()).with_bounds(0, 0, 0);
        for n in 0..5 {
            spill.write("t", &"x".repeat(n * 1000)).expect("written");
        }
        assert_eq!(fs::read_dir(dir.path()).expect("listed").count(), 5);
    }

    #[test]
    fn the_file_count_bound_keeps_the_newest() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let spill = Spill::new(dir.path()).with_bounds(2, 0, 0);
        let paths: Vec<PathBuf> = (0..4)
            .map(|n| {
                let path = spill.write("t", &format!("{n}\n")).expect("written");
                // Distinct modification times on every file system.
                std::thread::sleep(Duration::from_millis(15));
                path
            })
            .collect();
        let kept: Vec<bool> = paths.iter().map(|path| path.exists()).collect();
        assert_eq!(kept, [false, false, true, true]);
    }

    #[test]
    fn a_relative_or_unconfigured_path_is_never_a_readable_spill() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = Spill::new(dir.path()).write("t", "x\n").expect("written");
        let config = Config {
            spill_dir: Some(dir.path().to_owned()),
            ..Config::default()
        };
        assert_eq!(
            readable_spill_file(&config, &path),
            Some(fs::canonicalize(&path).expect("canonical"))
        );
        let name = Path::new(path.file_name().expect("a name"));
        assert_eq!(readable_spill_file(&config, name), None);
        assert_eq!(readable_spill_file(&Config::default(), &path), None);
    }
}
