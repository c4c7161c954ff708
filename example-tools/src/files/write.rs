//! `write_file`: a whole file, replaced atomically.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use hermes_tools::tool;
use serde::Serialize;

use super::{FileError, io_error};
use crate::workspace::Workspace;

/// What `write_file` did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WriteOutcome {
    /// Bytes written: the content's UTF-8 length.
    pub bytes_written: usize,
    /// Whether missing parent directories were created.
    pub dirs_created: bool,
    /// The file written, relative to the workspace root.
    pub path: String,
    /// The file written, absolute.
    pub resolved_path: String,
}

/// Write a text file, replacing it if it exists and creating missing parent directories.
///
/// The whole content is written: read the file first when you mean to change part of it.
/// Paths are relative to the workspace root. The write is atomic: readers see the old file
/// or the new one, never a partial write. It is durable: success is reported only once the
/// file and its directory are on disk. A device, socket or pipe at the path is refused.
///
/// # Arguments
/// * `path` - The file to write, relative to the workspace root (or absolute inside it).
/// * `content` - The complete new content of the file.
#[tool(toolset = "files", emoji = "✍️", destructive)]
pub fn write_file(
    path: String,
    content: String,
    workspace: &Workspace,
) -> Result<WriteOutcome, FileError> {
    let resolved = workspace.resolve(&path)?;
    match fs::metadata(&resolved) {
        Ok(existing) if existing.is_dir() => return Err(FileError::IsDirectory { path }),
        // Renaming over a FIFO or a device would replace it, and whoever reads it would wait
        // for data that now goes to a plain file.
        Ok(existing) if !existing.is_file() => return Err(FileError::NotAFile { path }),
        _ => {}
    }
    let parent = resolved
        .parent()
        .ok_or_else(|| FileError::IsDirectory { path: path.clone() })?;
    let first_missing = first_missing_ancestor(parent);
    let dirs_created = first_missing.is_some();
    fs::create_dir_all(parent).map_err(io_error("create the directories of", &path))?;
    write_atomically(&resolved, content.as_bytes()).map_err(io_error("write", &path))?;
    // The rename is durable once the directory holding the new entry is synced; a directory
    // created here is an entry of its own parent, so each of those is synced too.
    let last_synced = first_missing
        .as_deref()
        .and_then(Path::parent)
        .unwrap_or(parent);
    for dir in parent.ancestors() {
        sync_dir(dir).map_err(io_error("sync the directory of", &path))?;
        if dir == last_synced {
            break;
        }
    }
    Ok(WriteOutcome {
        bytes_written: content.len(),
        dirs_created,
        path: workspace.display_path(&resolved),
        resolved_path: resolved.display().to_string(),
    })
}

/// Writes `bytes` to a new file beside `target`, then renames it over `target`, keeping the
/// permissions of a file it replaces.
fn write_atomically(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let temp = temp_path(target);
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        if let Ok(existing) = fs::metadata(target) {
            file.set_permissions(existing.permissions())?;
        }
        // The data before the rename: otherwise a crash may leave the new name on an empty file.
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, target)
    })();
    if result.is_err() {
        // Best effort: the temporary file may not even exist.
        let _ = fs::remove_file(&temp);
    }
    result
}

/// The highest ancestor of `dir` (itself included) that does not exist yet, if any.
fn first_missing_ancestor(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .take_while(|ancestor| !ancestor.as_os_str().is_empty() && !ancestor.exists())
        .last()
        .map(Path::to_path_buf)
}

/// Flushes a directory's entries to disk (on Unix; elsewhere a directory cannot be opened
/// for syncing, and the rename's own guarantees are what there is).
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// A hidden, unique name in the target's directory (same file system, so rename is atomic).
fn temp_path(target: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = target
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy());
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    target.with_file_name(format!(".{name}.tmp-{}-{unique}", std::process::id()))
}
