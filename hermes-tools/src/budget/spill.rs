//! Spill files: where an over-size answer is written whole, for the model to page through.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// The longest tool-name part of a spill file's name.
const MAX_STEM_CHARS: usize = 64;

/// Names tried for a spill file before giving up; each clash is another process's file.
const NAME_ATTEMPTS: u32 = 16;

/// A directory where over-size answers are written whole, one new file per answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spill {
    dir: PathBuf,
}

impl Spill {
    /// Spills into `dir`, created (with its parents) when the first file is written.
    ///
    /// A relative `dir` is made absolute against the current directory now, because the path
    /// is given to the model, whose `read_file` may resolve paths from elsewhere.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        let dir = std::path::absolute(&dir).unwrap_or(dir);
        Self { dir }
    }

    /// The directory spill files go to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `text` to a new file in the directory and returns its path.
    ///
    /// The name is `<tool>-<unix millis>-<process id>-<counter>.txt`, the tool name kept to
    /// ASCII letters, digits, `_` and `-` (so the file is always inside the directory), and the
    /// file is created new, never over another: calls from any thread or process never collide.
    /// On Unix only its owner may read it, as answers may hold private data. A failed write
    /// leaves no partial file.
    pub fn write(&self, tool: &str, text: &str) -> io::Result<PathBuf> {
        fs::create_dir_all(&self.dir)?;
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
