//! `read_file` and `write_file`: text files inside the [`Workspace`](crate::Workspace).
//!
//! `read_file` answers Hermes 0.19's shape: `LINE|TEXT` lines (no padding), `total_lines`,
//! `file_size`, `truncated` and a `hint` telling the model how to read on. It differs from
//! Hermes on one quirk: a final newline does not make an extra empty numbered line, and
//! `total_lines` counts a last line without a newline.
//!
//! A read costs bounded memory and time whatever the file: lines are cut at
//! [`MAX_LINE_CHARS`] while they are read (a 2 GB line is never held), and from the first
//! line asked for on at most [`COUNT_SCAN_BYTES`] are read; past that, `total_lines` is the
//! lines counted so far and `total_lines_partial` says so.
//!
//! `read_file` also reads the spill file a cut answer names (`read it with read_file
//! offset=A limit=K`), by the absolute path in the marker, even when the registry's
//! `spill_dir` is outside the workspace: spill files hold answers the model was already given,
//! and only files that [`readable_spill_file`](hermes_tools::call::readable_spill_file) recognises (a spill's name, directly in the
//! configured directory, no link) are read there. `write_file` never writes outside the
//! workspace.

use std::io;

use crate::workspace::WorkspaceError;

pub use self::read::{FileContent, read_file};
pub use self::write::{WriteOutcome, write_file};

mod read;
mod similar;
mod write;

/// Lines returned when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 500;
/// Most lines one `read_file` call returns.
pub const MAX_LIMIT: usize = 2000;
/// Longest line shown, in characters; longer lines are cut and marked.
pub const MAX_LINE_CHARS: usize = 2000;
/// Most characters of numbered content one call returns (whole lines only).
pub const READ_BUDGET_CHARS: usize = 100_000;
/// Bytes `read_file` reads from its first line on, for the page and the line count after it:
/// a larger file's `total_lines` is a lower bound, and says so.
pub const COUNT_SCAN_BYTES: u64 = 64 << 20;
const LINE_TRUNCATED: &str = "... [truncated]";
/// Bytes sniffed for a NUL, which marks a file as binary.
const SNIFF_BYTES: usize = 8192;
/// Characters sampled for control characters, as Hermes does.
const SAMPLE_CHARS: usize = 1000;
/// Names of the directory listed when looking for files like a missing one (as `ls | head -50`).
const SIMILAR_SCAN: usize = 50;
const SIMILAR_SHOWN: usize = 5;

/// Extensions refused without reading, from Hermes' `binary_extensions.py`.
const BINARY_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "bmp", "ico", "webp", "tiff", "tif", "mp4", "mov", "avi", "mkv",
    "webm", "wmv", "flv", "m4v", "mpeg", "mpg", "mp3", "wav", "ogg", "flac", "aac", "m4a", "wma",
    "aiff", "opus", "zip", "tar", "gz", "bz2", "7z", "rar", "xz", "z", "tgz", "iso", "exe", "dll",
    "so", "dylib", "bin", "o", "a", "obj", "lib", "app", "msi", "deb", "rpm", "doc", "docx", "xls",
    "xlsx", "ppt", "pptx", "odt", "ods", "odp", "ttf", "otf", "woff", "woff2", "eot", "pyc", "pyo",
    "class", "jar", "war", "ear", "node", "wasm", "rlib", "sqlite", "sqlite3", "db", "mdb", "idx",
    "psd", "ai", "eps", "sketch", "fig", "xd", "blend", "3ds", "max", "swf", "fla", "lockb", "dat",
    "data",
];

/// Why a file tool failed. Each message tells the model what to do instead.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The path is outside the workspace, or cannot be resolved.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// Nothing is at the path.
    #[error("File not found: {path}{}", similar_hint(.similar))]
    NotFound {
        /// The path as the model sent it.
        path: String,
        /// Up to five names in the same directory that look like it, relative to the root.
        similar: Vec<String>,
    },
    /// The path is a directory.
    #[error(
        "'{path}' is a directory, not a file. Use search_files to search inside it, or \
         terminal with `ls` to list it."
    )]
    IsDirectory {
        /// The path as the model sent it.
        path: String,
    },
    /// The path is a device, socket or pipe.
    #[error(
        "'{path}' is not a regular file (a device, socket or pipe): the file tools only read \
         and write regular files. Use another path, or terminal if you mean to use it as it is."
    )]
    NotAFile {
        /// The path as the model sent it.
        path: String,
    },
    /// The extension is one of a binary format.
    #[error(
        "Cannot read binary file '{path}' (.{extension}). Use terminal to inspect binary files."
    )]
    BinaryExtension {
        /// The path as the model sent it.
        path: String,
        /// The extension, without the dot.
        extension: String,
    },
    /// The content is not text.
    #[error(
        "Binary file - cannot display as text: '{path}'. Use terminal to inspect it (for \
         example `file` or `xxd | head`)."
    )]
    Binary {
        /// The path as the model sent it.
        path: String,
    },
    /// The file system refused.
    #[error("Failed to {action} '{path}': {source}")]
    Io {
        /// What was being done, such as "read".
        action: &'static str,
        /// The path as the model sent it.
        path: String,
        /// The error.
        source: io::Error,
    },
}

fn similar_hint(similar: &[String]) -> String {
    if similar.is_empty() {
        String::new()
    } else {
        format!(". Similar files: {}", similar.join(", "))
    }
}

fn io_error(action: &'static str, path: &str) -> impl FnOnce(io::Error) -> FileError {
    move |source| FileError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}

#[cfg(test)]
mod tests;
