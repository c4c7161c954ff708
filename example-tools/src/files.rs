//! `read_file` and `write_file`: text files inside the [`Workspace`].
//!
//! `read_file` answers Hermes 0.19's shape: `LINE|TEXT` lines (no padding), `total_lines`,
//! `file_size`, `truncated` and a `hint` telling the model how to read on. It differs from
//! Hermes on one quirk: a final newline does not make an extra empty numbered line, and
//! `total_lines` counts a last line without a newline.
//!
//! `read_file` also reads the spill file a cut answer names (`read it with read_file
//! offset=A limit=K`), by the absolute path in the marker, even when the registry's
//! `spill_dir` is outside the workspace: spill files hold answers the model was already given,
//! and only files that [`readable_spill_file`] recognises (a spill's name, directly in the
//! configured directory, no link) are read there. `write_file` never writes outside the
//! workspace.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use hermes_tools::{ToolContext, call::readable_spill_file, tool};
use serde::Serialize;

use crate::workspace::{Workspace, WorkspaceError};

/// Lines returned when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 500;
/// Most lines one `read_file` call returns.
pub const MAX_LIMIT: usize = 2000;
/// Longest line shown, in characters; longer lines are cut and marked.
pub const MAX_LINE_CHARS: usize = 2000;
/// Most characters of numbered content one call returns (whole lines only).
pub const READ_BUDGET_CHARS: usize = 100_000;
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
    #[error("Cannot read '{path}': it is not a regular file (a device, socket or pipe).")]
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

/// A page of a text file, in Hermes' shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileContent {
    /// The lines, each as `NUMBER|TEXT`, joined with newlines.
    pub content: String,
    /// Lines in the whole file.
    pub total_lines: usize,
    /// Size of the file in bytes.
    pub file_size: u64,
    /// Whether lines after this page were left out.
    pub truncated: bool,
    /// How to read on, when there is more (or why the page is empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// Read a text file with line numbers, a page at a time.
///
/// Output format: 'LINE_NUM|CONTENT', one line each, numbered from 1. Reads up to `limit`
/// lines starting at line `offset`; when the file goes on, `truncated` is true and `hint`
/// gives the offset to continue from. Paths are relative to the workspace root; a cut
/// answer's spill file is read by the path its marker gives. Use this instead of
/// cat/head/tail in the terminal. Binary files are refused.
///
/// # Arguments
/// * `path` - The file to read, relative to the workspace root (or absolute inside it).
/// * `offset` - The first line to read, counting from 1.
/// * `limit` - How many lines to read (at most 2000; more is read as 2000).
#[tool(toolset = "files", emoji = "📖", max_result_chars = 100_000, read_only)]
pub fn read_file(
    path: String,
    #[arg(default = 1, minimum = 1)] offset: usize,
    // A comfort bound, not a correctness one: small models ask for 5000 lines; clamp and say so.
    #[arg(default = 500, minimum = 1, maximum = 2000, clamp)] limit: usize,
    workspace: &Workspace,
    ctx: &ToolContext,
) -> Result<FileContent, FileError> {
    // Clamped again here: direct callers skip the schema, and Hermes clamps too.
    let offset = offset.max(1);
    let limit = limit.clamp(1, MAX_LIMIT);
    let resolved = resolve_readable(workspace, &path, ctx)?;
    let file_size = check_readable(workspace, &resolved, &path)?;
    let file = File::open(&resolved).map_err(io_error("open", &path))?;
    let mut reader = BufReader::new(file);
    if looks_binary(reader.fill_buf().map_err(io_error("read", &path))?) {
        return Err(FileError::Binary { path });
    }
    let page = read_page(reader, offset, limit).map_err(io_error("read", &path))?;
    Ok(page.into_content(offset, limit, file_size))
}

/// `path` inside the workspace, or else the spill file it names (see the [module docs](self)):
/// the marker of a cut answer points there, wherever the operator put the spill directory.
fn resolve_readable(
    workspace: &Workspace,
    path: &str,
    ctx: &ToolContext,
) -> Result<PathBuf, FileError> {
    match workspace.resolve(path) {
        Ok(resolved) => Ok(resolved),
        Err(outside @ WorkspaceError::Outside { .. }) => {
            readable_spill_file(&ctx.config(), Path::new(path)).ok_or(outside.into())
        }
        Err(err) => Err(err.into()),
    }
}

/// Checks that `resolved` is a regular text file, returning its size.
fn check_readable(workspace: &Workspace, resolved: &Path, path: &str) -> Result<u64, FileError> {
    let metadata = match fs::metadata(resolved) {
        Ok(metadata) => metadata,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return Err(FileError::NotFound {
                path: path.to_owned(),
                similar: similar_files(workspace, resolved),
            });
        }
        Err(err) => return Err(io_error("read", path)(err)),
    };
    if metadata.is_dir() {
        return Err(FileError::IsDirectory {
            path: path.to_owned(),
        });
    }
    if !metadata.is_file() {
        return Err(FileError::NotAFile {
            path: path.to_owned(),
        });
    }
    if let Some(extension) = binary_extension(resolved) {
        return Err(FileError::BinaryExtension {
            path: path.to_owned(),
            extension,
        });
    }
    Ok(metadata.len())
}

fn binary_extension(path: &Path) -> Option<String> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    BINARY_EXTENSIONS
        .contains(&extension.as_str())
        .then_some(extension)
}

/// Whether the start of a file is binary: a NUL byte, or (Hermes' rule) more than 30% of the
/// first 1,000 characters being control characters other than newline, return and tab.
fn looks_binary(start: &[u8]) -> bool {
    let sniffed = &start[..start.len().min(SNIFF_BYTES)];
    if sniffed.contains(&0) {
        return true;
    }
    let sample = String::from_utf8_lossy(&sniffed[..sniffed.len().min(SAMPLE_CHARS)]);
    let (mut chars, mut controls) = (0usize, 0usize);
    for c in sample.chars().take(SAMPLE_CHARS) {
        chars += 1;
        if (c as u32) < 32 && !matches!(c, '\n' | '\r' | '\t') {
            controls += 1;
        }
    }
    chars > 0 && controls * 10 > chars * 3
}

/// The requested lines of a file, and how many lines it has.
struct Page {
    lines: Vec<String>,
    total_lines: usize,
}

/// Reads the whole file to count its lines, keeping lines `offset..offset + limit`.
fn read_page(mut reader: impl BufRead, offset: usize, limit: usize) -> io::Result<Page> {
    let mut lines = Vec::new();
    let mut buffer = Vec::new();
    let mut number = 0;
    loop {
        buffer.clear();
        if reader.read_until(b'\n', &mut buffer)? == 0 {
            break;
        }
        number += 1;
        if number >= offset && number - offset < limit {
            lines.push(decode_line(&buffer, number == 1));
        }
    }
    Ok(Page {
        lines,
        total_lines: number,
    })
}

/// A line without its line ending (and, on line 1, without a UTF-8 byte-order mark).
fn decode_line(bytes: &[u8], first: bool) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let bytes = if first {
        bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
    } else {
        bytes
    };
    String::from_utf8_lossy(bytes).into_owned()
}

impl Page {
    fn into_content(self, offset: usize, limit: usize, file_size: u64) -> FileContent {
        let total = self.total_lines;
        let numbered: Vec<String> = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, line)| format!("{}|{}", offset + i, cap_line(line)))
            .collect();
        let (content, kept) = within_budget(&numbered);
        let (truncated, hint) = continuation(offset, limit, kept, numbered.len(), total);
        FileContent {
            content,
            total_lines: total,
            file_size,
            truncated,
            hint,
        }
    }
}

/// Whether lines were left out, and the hint telling the model how to go on.
///
/// `kept` of the `shown` lines fit the character budget; the file has `total` lines.
fn continuation(
    offset: usize,
    limit: usize,
    kept: usize,
    shown: usize,
    total: usize,
) -> (bool, Option<String>) {
    if kept < shown {
        let end = offset + kept - 1;
        let hint = format!(
            "Output truncated at the 100,000-char read budget after {kept} line(s) (showing \
             lines {offset}-{end} of {total}). Use offset={} to continue.",
            end + 1
        );
        (true, Some(hint))
    } else if total
        .checked_sub(offset)
        .is_some_and(|after| after >= limit)
    {
        // Written without `offset + limit`, which a huge model-sent offset would overflow.
        let end = offset + limit - 1;
        let hint = format!(
            "Use offset={} to continue reading (showing {offset}-{end} of {total} lines)",
            end + 1
        );
        (true, Some(hint))
    } else if total > 0 && offset > total {
        let hint = format!("The file has {total} lines; use an offset from 1 to {total}.");
        (false, Some(hint))
    } else {
        (false, None)
    }
}

fn cap_line(line: &str) -> std::borrow::Cow<'_, str> {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}{LINE_TRUNCATED}", &line[..cut]).into(),
        None => line.into(),
    }
}

/// Joins whole lines while they fit in [`READ_BUDGET_CHARS`], returning the text and how many
/// lines it holds. A line is at most about 2,030 characters, so the first always fits.
fn within_budget(lines: &[String]) -> (String, usize) {
    let mut content = String::new();
    let mut chars = 0;
    for (kept, line) in lines.iter().enumerate() {
        let cost = line.chars().count() + usize::from(kept > 0);
        if kept > 0 && chars + cost > READ_BUDGET_CHARS {
            return (content, kept);
        }
        if kept > 0 {
            content.push('\n');
        }
        content.push_str(line);
        chars += cost;
    }
    (content, lines.len())
}

/// Names in the missing file's directory that look like it, best first, as Hermes scores them.
fn similar_files(workspace: &Workspace, missing: &Path) -> Vec<String> {
    let (Some(dir), Some(wanted)) = (missing.parent(), missing.file_name()) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let wanted = wanted.to_string_lossy().to_lowercase();
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .collect();
    names.sort();
    names.truncate(SIMILAR_SCAN);
    let mut scored: Vec<(u8, String)> = names
        .into_iter()
        .filter_map(|name| Some((similarity(&wanted, &name.to_lowercase())?, name)))
        .collect();
    // Stable: equal scores keep name order, as Hermes' sort does.
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    scored
        .into_iter()
        .take(SIMILAR_SHOWN)
        .map(|(_, name)| workspace.display_path(&dir.join(name)))
        .collect()
}

/// Hermes' `_suggest_similar_files` score of a candidate name (both lowercase).
fn similarity(wanted: &str, candidate: &str) -> Option<u8> {
    let (wanted_stem, wanted_ext) = split_extension(wanted);
    let (candidate_stem, candidate_ext) = split_extension(candidate);
    let score = if candidate == wanted {
        100
    } else if candidate_stem == wanted_stem {
        90
    } else if candidate.starts_with(wanted) || wanted.starts_with(candidate) {
        70
    } else if candidate.contains(wanted) {
        60
    } else if wanted.contains(candidate) && candidate.chars().count() > 2 {
        40
    } else if !wanted_ext.is_empty()
        && candidate_ext == wanted_ext
        && share_letters(wanted, candidate)
    {
        30
    } else {
        0
    };
    (score > 0).then_some(score)
}

/// Whether the two names share at least 40% of the longer one's length in distinct characters.
fn share_letters(a: &str, b: &str) -> bool {
    let set_a: std::collections::HashSet<char> = a.chars().collect();
    let common = b
        .chars()
        .collect::<std::collections::HashSet<char>>()
        .intersection(&set_a)
        .count();
    let longest = a.chars().count().max(b.chars().count());
    common as f64 >= longest as f64 * 0.4
}

/// Python's `os.path.splitext` for a file name: leading dots never start an extension.
fn split_extension(name: &str) -> (&str, &str) {
    let first_non_dot = name.len() - name.trim_start_matches('.').len();
    match name.rfind('.') {
        Some(dot) if dot > first_non_dot => name.split_at(dot),
        _ => (name, ""),
    }
}

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
/// or the new one, never a partial write.
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
    if resolved.is_dir() {
        return Err(FileError::IsDirectory { path });
    }
    let parent = resolved
        .parent()
        .ok_or_else(|| FileError::IsDirectory { path: path.clone() })?;
    let dirs_created = !parent.exists();
    fs::create_dir_all(parent).map_err(io_error("create the directories of", &path))?;
    write_atomically(&resolved, content.as_bytes()).map_err(io_error("write", &path))?;
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
        drop(file);
        fs::rename(&temp, target)
    })();
    if result.is_err() {
        // Best effort: the temporary file may not even exist.
        let _ = fs::remove_file(&temp);
    }
    result
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

#[cfg(test)]
mod tests {
    use super::*;
    use hermes_tools::{ToolContext, ToolRegistry};
    use serde_json::json;
    use tempfile::TempDir;

    fn setup() -> (TempDir, Workspace, ToolContext) {
        let dir = TempDir::new().unwrap();
        let workspace = Workspace::new(dir.path());
        let ctx = ToolContext::new().with_extension(workspace.clone());
        (dir, workspace, ctx)
    }

    fn numbered(count: usize) -> String {
        (1..=count).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn reads_exact_lines_with_offset_and_limit() {
        let (dir, ws, _) = setup();
        fs::write(dir.path().join("f.txt"), numbered(10)).unwrap();
        let page = read_file("f.txt".into(), 3, 2, &ws, &ToolContext::new()).unwrap();
        assert_eq!(
            page,
            FileContent {
                content: "3|line 3\n4|line 4".into(),
                total_lines: 10,
                file_size: 71,
                truncated: true,
                hint: Some("Use offset=5 to continue reading (showing 3-4 of 10 lines)".into()),
            }
        );
        let tail = read_file("f.txt".into(), 9, 500, &ws, &ToolContext::new()).unwrap();
        assert_eq!(tail.content, "9|line 9\n10|line 10");
        assert!(!tail.truncated);
        assert_eq!(tail.hint, None);
        let exact_end = read_file("f.txt".into(), 1, 10, &ws, &ToolContext::new()).unwrap();
        assert!(!exact_end.truncated);
    }

    #[test]
    fn clamps_pagination_like_hermes() {
        let (dir, ws, _) = setup();
        fs::write(dir.path().join("f.txt"), numbered(3)).unwrap();
        assert_eq!(
            read_file("f.txt".into(), 0, 0, &ws, &ToolContext::new())
                .unwrap()
                .content,
            "1|line 1"
        );
        let huge = read_file(
            "f.txt".into(),
            usize::MAX,
            MAX_LIMIT,
            &ws,
            &ToolContext::new(),
        )
        .unwrap();
        assert_eq!((huge.content.as_str(), huge.truncated), ("", false));
        let past = read_file("f.txt".into(), 7, 5, &ws, &ToolContext::new()).unwrap();
        assert_eq!(past.content, "");
        assert_eq!(
            past.hint.as_deref(),
            Some("The file has 3 lines; use an offset from 1 to 3.")
        );
    }

    #[test]
    fn line_endings_bom_and_long_lines() {
        let (dir, ws, _) = setup();
        let long = "x".repeat(MAX_LINE_CHARS + 5);
        fs::write(dir.path().join("f.txt"), format!("\u{FEFF}a\r\nb\n{long}")).unwrap();
        let page = read_file("f.txt".into(), 1, 500, &ws, &ToolContext::new()).unwrap();
        let expected = format!("1|a\n2|b\n3|{}... [truncated]", "x".repeat(MAX_LINE_CHARS));
        assert_eq!(page.content, expected);
        assert_eq!(page.total_lines, 3, "a last line without a newline counts");
        fs::write(dir.path().join("empty.txt"), "").unwrap();
        let empty = read_file("empty.txt".into(), 1, 500, &ws, &ToolContext::new()).unwrap();
        assert_eq!(
            (empty.content.as_str(), empty.total_lines, empty.hint),
            ("", 0, None)
        );
    }

    #[test]
    fn read_budget_cuts_at_whole_lines() {
        let (dir, ws, _) = setup();
        // 100 lines of 1,500 characters: each numbered line costs 1,500 + "N|" + newline.
        let text: String = (0..100)
            .map(|_| format!("{}\n", "y".repeat(1500)))
            .collect();
        fs::write(dir.path().join("wide.txt"), text).unwrap();
        let page = read_file("wide.txt".into(), 1, 100, &ws, &ToolContext::new()).unwrap();
        let kept = page.content.lines().count();
        assert_eq!(kept, 66);
        assert!(page.content.chars().count() <= READ_BUDGET_CHARS);
        assert!(page.truncated);
        assert_eq!(
            page.hint.as_deref(),
            Some(
                "Output truncated at the 100,000-char read budget after 66 line(s) (showing \
                 lines 1-66 of 100). Use offset=67 to continue."
            )
        );
    }

    #[test]
    fn missing_file_suggests_similar_names() {
        let (dir, ws, _) = setup();
        fs::create_dir(dir.path().join("conf")).unwrap();
        for name in ["config.yaml", "config_old.yml", "readme.md", ".config.yml"] {
            fs::write(dir.path().join("conf").join(name), "").unwrap();
        }
        let err =
            read_file("conf/config.yml".into(), 1, 500, &ws, &ToolContext::new()).unwrap_err();
        match &err {
            FileError::NotFound { similar, .. } => {
                assert_eq!(similar, &["conf/config.yaml", "conf/config_old.yml"]);
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(
            err.to_string(),
            "File not found: conf/config.yml. Similar files: conf/config.yaml, conf/config_old.yml"
        );
        let bare = read_file("nowhere/x.txt".into(), 1, 500, &ws, &ToolContext::new()).unwrap_err();
        assert_eq!(bare.to_string(), "File not found: nowhere/x.txt");
    }

    #[test]
    fn similarity_follows_hermes_scores() {
        assert_eq!(similarity("config.yml", "config.yaml"), Some(90));
        assert_eq!(similarity("main", "main.rs"), Some(90));
        assert_eq!(similarity("lib.rs", "lib.rs.bak"), Some(70));
        assert_eq!(similarity("ain.rs", "main.rs"), Some(60));
        assert_eq!(similarity("my_notes.txt", "notes"), Some(40));
        assert_eq!(similarity("abc.rs", "cab.rs"), Some(30));
        assert_eq!(similarity("abc.rs", "xyz.py"), None);
        assert_eq!(similarity("abcdefgh.rs", "xyz.rs"), None);
        assert_eq!(split_extension(".bashrc"), (".bashrc", ""));
        assert_eq!(split_extension("a.tar.gz"), ("a.tar", ".gz"));
    }

    #[test]
    fn directories_binaries_and_devices_are_refused() {
        let (dir, ws, _) = setup();
        fs::create_dir(dir.path().join("d")).unwrap();
        fs::write(dir.path().join("img.PNG"), "not really").unwrap();
        fs::write(dir.path().join("blob"), b"abc\0def").unwrap();
        fs::write(dir.path().join("ctrl"), "\x01\x02\x03\x04 ab\n").unwrap();
        let message = |path: &str| {
            read_file(path.into(), 1, 500, &ws, &ToolContext::new())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            message("d"),
            "'d' is a directory, not a file. Use search_files to search inside it, or terminal \
             with `ls` to list it."
        );
        assert_eq!(
            message("img.PNG"),
            "Cannot read binary file 'img.PNG' (.png). Use terminal to inspect binary files."
        );
        assert!(matches!(
            read_file("blob".into(), 1, 500, &ws, &ToolContext::new()),
            Err(FileError::Binary { .. })
        ));
        assert!(matches!(
            read_file("ctrl".into(), 1, 500, &ws, &ToolContext::new()),
            Err(FileError::Binary { .. })
        ));
        assert!(!looks_binary("héllo\tworld\r\n".as_bytes()));
        assert!(!looks_binary(b""));
    }

    #[test]
    fn escapes_are_refused() {
        let (dir, ws, ctx) = setup();
        let outside = TempDir::new().unwrap();
        fs::write(outside.path().join("secret"), "s").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("link")).unwrap();
        let absolute = outside.path().join("secret");
        for path in ["../secret", absolute.to_str().unwrap(), "link"] {
            if path == "link" && cfg!(not(unix)) {
                continue;
            }
            let err = read_file(path.into(), 1, 500, &ws, &ToolContext::new()).unwrap_err();
            assert!(
                matches!(err, FileError::Workspace(WorkspaceError::Outside { .. })),
                "{path}"
            );
            let written = write_file(path.into(), "x".into(), &ws).unwrap_err();
            assert!(
                matches!(
                    written,
                    FileError::Workspace(WorkspaceError::Outside { .. })
                ),
                "{path}"
            );
            let args = json!({"path": path}).to_string();
            let answer = ToolRegistry::global().call_blocking("read_file", &args, &ctx);
            assert!(answer.is_error());
            let text = answer.to_value()["error"].as_str().unwrap().to_owned();
            assert!(text.starts_with("[TOOL_ERROR] Access denied: "), "{text}");
            assert!(text.contains(&ws.root().display().to_string()), "{text}");
        }
        assert_eq!(
            fs::read_to_string(outside.path().join("secret")).unwrap(),
            "s"
        );
    }

    #[test]
    fn write_creates_parents_and_replaces() {
        let (dir, ws, _) = setup();
        let outcome = write_file("a/b/c.txt".into(), "héllo\n".into(), &ws).unwrap();
        let resolved = ws.root().join("a/b/c.txt");
        assert_eq!(
            outcome,
            WriteOutcome {
                bytes_written: 7,
                dirs_created: true,
                path: "a/b/c.txt".into(),
                resolved_path: resolved.display().to_string(),
            }
        );
        assert_eq!(fs::read_to_string(&resolved).unwrap(), "héllo\n");
        let again = write_file("a/b/c.txt".into(), "bye".into(), &ws).unwrap();
        assert!(!again.dirs_created);
        assert_eq!(fs::read_to_string(&resolved).unwrap(), "bye");
        let leftovers: Vec<_> = fs::read_dir(dir.path().join("a/b")).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
        assert!(matches!(
            write_file("a".into(), "x".into(), &ws),
            Err(FileError::IsDirectory { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn write_keeps_permissions_of_the_replaced_file() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, ws, _) = setup();
        let script = dir.path().join("run.sh");
        fs::write(&script, "old").unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o751)).unwrap();
        write_file("run.sh".into(), "new".into(), &ws).unwrap();
        assert_eq!(
            fs::metadata(&script).unwrap().permissions().mode() & 0o777,
            0o751
        );
    }

    #[test]
    fn dispatch_reads_and_writes() {
        let (_dir, _ws, ctx) = setup();
        let registry = ToolRegistry::global();
        let written = registry.call_blocking(
            "write_file",
            r#"{"path":"n.txt","content":"one\ntwo\nthree\n"}"#,
            &ctx,
        );
        assert_eq!(written.to_value()["bytes_written"], 14);
        assert_eq!(written.to_value()["path"], "n.txt");
        let read = registry.call_blocking("read_file", r#"{"path":"n.txt","offset":2}"#, &ctx);
        assert_eq!(
            read.to_value(),
            json!({"content": "2|two\n3|three", "total_lines": 3, "file_size": 14, "truncated": false})
        );
        let paged = registry.call_blocking("read_file", r#"{"path":"n.txt","limit":1}"#, &ctx);
        assert_eq!(
            paged.to_value()["hint"],
            "Use offset=2 to continue reading (showing 1-1 of 3 lines)"
        );
    }

    #[test]
    fn dispatch_repairs_limit_given_as_string() {
        let (dir, _ws, ctx) = setup();
        fs::write(dir.path().join("f.txt"), numbered(10)).unwrap();
        let answer = ToolRegistry::global().call_blocking(
            "read_file",
            r#"{"path":"f.txt","limit":"3"}"#,
            &ctx,
        );
        assert!(!answer.is_error(), "{answer}");
        assert_eq!(answer.to_value()["content"], "1|line 1\n2|line 2\n3|line 3");
    }

    #[test]
    fn dispatch_without_workspace_is_an_error_and_touches_nothing() {
        let answer = ToolRegistry::global().call_blocking(
            "write_file",
            r#"{"path":"should-not-exist.txt","content":"x"}"#,
            &ToolContext::new(),
        );
        assert!(answer.is_error());
        assert_eq!(
            answer.to_value()["error"],
            "[TOOL_ERROR] Tool \"write_file\" cannot run here: its parameter `workspace` needs a \
             `example_tools::workspace::Workspace` that this agent does not provide. Do not call \
             it again in this session."
        );
        assert!(!Path::new("should-not-exist.txt").exists());
    }

    /// `(path, offset, limit)` from a cut answer's marker, and the head and tail it kept.
    fn marker(content: &str) -> (String, usize, usize, &str, &str) {
        let start = content.find("\n\n[... ").expect("a marker");
        let end = start
            + content[start..]
                .find(" ...]\n\n")
                .expect("the marker's end");
        let marker = &content[start..end];
        let (_, rest) = marker
            .split_once("the full answer is in ")
            .expect("a spill path");
        let (path, rest) = rest.split_once(": read it with read_file offset=").unwrap();
        let (offset, limit) = rest.split_once(" limit=").unwrap();
        let tail = &content[end + " ...]\n\n".len()..];
        (
            path.to_owned(),
            offset.parse().unwrap(),
            limit.parse().unwrap(),
            &content[..start],
            tail,
        )
    }

    /// A registry of the linked tools, spilling into `spill` (outside the workspace), with a
    /// `report` tool whose 1,000 lines are far over its 2,000-character budget.
    fn spilling_registry(spill: &Path) -> ToolRegistry {
        let registry = ToolRegistry::linked();
        registry.set_config(hermes_tools::config::Config {
            spill_dir: Some(spill.to_owned()),
            ..hermes_tools::config::Config::default()
        });
        let report = hermes_tools::tool::Tool::builder("report", "fixture")
            .max_result_chars(2_000)
            .handler(|_, _| numbered(1_000))
            .build();
        registry.register(report).unwrap();
        registry
    }

    #[test]
    fn a_spill_outside_the_workspace_is_paged_back_by_the_markers_path() {
        let (dir, _ws, ctx) = setup();
        let spill = TempDir::new().unwrap();
        assert!(!spill.path().starts_with(dir.path()));
        let registry = spilling_registry(spill.path());

        let cut = registry.call_blocking("report", "{}", &ctx).to_value();
        assert_eq!(cut["truncated"], true, "{cut}");
        let content = cut["content"].as_str().unwrap();
        let (path, offset, limit, head, tail) = marker(content);
        assert_eq!(cut["spill_file"], path);
        assert!(Path::new(&path).is_absolute() && !Path::new(&path).starts_with(dir.path()));

        // The model does what the marker says, with the path as given.
        let args = json!({"path": path, "offset": offset, "limit": limit}).to_string();
        let page = registry.call_blocking("read_file", &args, &ctx);
        assert!(!page.is_error(), "{page}");
        let page = page.to_value();
        let lines: Vec<&str> = page["content"]
            .as_str()
            .unwrap()
            .lines()
            .map(|line| line.split_once('|').unwrap().1)
            .collect();
        let rendering = fs::read_to_string(&path).unwrap();
        let on_disk: Vec<&str> = rendering.lines().skip(offset - 1).take(limit).collect();
        assert_eq!(lines, on_disk, "read_file pages the spill file as it is");
        // Head, the page, and tail together hold the whole answer: nothing was lost.
        assert!(rendering.starts_with(head) && rendering.ends_with(tail));
        let cut_part = &rendering[head.len()..rendering.len() - tail.len()];
        assert!(lines.join("\n").contains(cut_part.trim_matches('\n')));
        assert!(lines.contains(&"line 500"), "{lines:?}");
    }

    #[test]
    fn only_spill_files_are_read_outside_the_workspace() {
        let (dir, _ws, ctx) = setup();
        let spill = TempDir::new().unwrap();
        let secret = dir.path().join("inside.txt");
        fs::write(&secret, "inside the workspace\n").unwrap();
        let outside = TempDir::new().unwrap();
        let elsewhere = outside.path().join("elsewhere-1-2-3.txt");
        fs::write(&elsewhere, "not a spill\n").unwrap();
        let spilled = spill.path().join("terminal-1700000000000-7-0.txt");
        fs::write(&spilled, "== text, 1 line ==\nspilled\n").unwrap();
        fs::write(spill.path().join("notes.txt"), "operator's notes\n").unwrap();
        fs::create_dir(spill.path().join("sub")).unwrap();
        fs::write(spill.path().join("sub/x-1-2-3.txt"), "nested\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&elsewhere, spill.path().join("link-1-2-3.txt")).unwrap();
        let registry = spilling_registry(spill.path());
        let read = |registry: &ToolRegistry, path: &Path| {
            let args = json!({"path": path}).to_string();
            registry.call_blocking("read_file", &args, &ctx)
        };

        let ok = read(&registry, &spilled);
        assert!(!ok.is_error(), "{ok}");
        assert_eq!(ok.to_value()["content"], "1|== text, 1 line ==\n2|spilled");
        let refused = [
            spill.path().join("notes.txt"),
            spill.path().join("sub/x-1-2-3.txt"),
            spill.path().join("link-1-2-3.txt"),
            spill.path().join("missing-1-2-3.txt"),
            elsewhere.clone(),
        ];
        for path in &refused {
            let answer = read(&registry, path);
            assert!(answer.is_error(), "{}: {answer}", path.display());
            assert!(answer.as_str().contains("Access denied"), "{answer}");
        }
        // A relative path is the workspace's: it never reaches the spill directory.
        let relative = format!("{}/terminal-1700000000000-7-0.txt", spill.path().display());
        let relative = relative.trim_start_matches('/');
        let answer =
            registry.call_blocking("read_file", &json!({ "path": relative }).to_string(), &ctx);
        assert!(answer.is_error(), "{answer}");
        // Without a spill directory, the spill file is outside like any other.
        let plain = ToolRegistry::linked();
        assert!(read(&plain, &spilled).as_str().contains("Access denied"));
    }

    #[test]
    fn schema_has_hermes_defaults_and_bounds() {
        let tool = ToolRegistry::global().get("read_file").unwrap();
        let props = &tool.parameters()["properties"];
        assert_eq!(props["offset"]["default"], 1);
        assert_eq!(props["offset"]["minimum"], 1);
        assert_eq!(props["limit"]["default"], 500);
        assert_eq!(props["limit"]["maximum"], 2000);
        assert_eq!(tool.parameters()["required"], json!(["path"]));
        assert_eq!(tool.max_result_chars(), Some(100_000));
    }
}
