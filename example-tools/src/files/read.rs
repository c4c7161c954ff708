//! `read_file`: a page of numbered lines.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use hermes_tools::{ToolContext, call::readable_spill_file, tool};
use serde::Serialize;

use super::similar::similar_files;
use super::{
    BINARY_EXTENSIONS, COUNT_SCAN_BYTES, FileError, LINE_TRUNCATED, MAX_LIMIT, MAX_LINE_CHARS,
    READ_BUDGET_CHARS, SAMPLE_CHARS, SNIFF_BYTES, io_error,
};
use crate::lines::CappedLines;

/// Bytes of a line kept while reading: more than [`MAX_LINE_CHARS`] characters of any UTF-8.
const LINE_CAP_BYTES: usize = 4 * MAX_LINE_CHARS + 4;
use crate::workspace::{Workspace, WorkspaceError};

/// A page of a text file, in Hermes' shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileContent {
    /// The lines, each as `NUMBER|TEXT`, joined with newlines.
    pub content: String,
    /// Lines in the whole file, or the lines counted when
    /// [`total_lines_partial`](Self::total_lines_partial) is set.
    pub total_lines: usize,
    /// Whether the file was too large to count its lines (see [`COUNT_SCAN_BYTES`]):
    /// `total_lines` is then a lower bound. Left out of the answer when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub total_lines_partial: bool,
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
    // Large reads: a long line is skipped in fewer system calls.
    let mut reader = BufReader::with_capacity(64 << 10, file);
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
pub(super) fn looks_binary(start: &[u8]) -> bool {
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
    /// Whether counting stopped at [`COUNT_SCAN_BYTES`], so `total_lines` is a lower bound.
    partial: bool,
}

/// Reads the file to count its lines, keeping lines `offset..offset + limit`, each cut to
/// [`MAX_LINE_CHARS`]. From line `offset` on, at most [`COUNT_SCAN_BYTES`] are read: the page
/// and the count after it cost bounded time, and no line is held past its cap.
fn read_page(reader: impl BufRead, offset: usize, limit: usize) -> io::Result<Page> {
    let mut reader = CappedLines::new(reader, LINE_CAP_BYTES);
    let mut lines = Vec::new();
    let mut number = 0;
    loop {
        let next = number + 1;
        if next == offset {
            reader.bound_scan(COUNT_SCAN_BYTES);
        }
        let keep = next >= offset && next - offset < limit;
        let Some(line) = reader.next_line(keep)? else {
            break;
        };
        number = next;
        if keep {
            lines.push(shown_line(line.text, line.cut, number == 1));
        }
    }
    Ok(Page {
        lines,
        total_lines: number,
        partial: reader.stopped(),
    })
}

/// A line as shown: without a UTF-8 byte-order mark on line 1, and cut to [`MAX_LINE_CHARS`]
/// with a marker when it is longer (or was already cut while reading).
fn shown_line(bytes: &[u8], cut: bool, first: bool) -> String {
    let bytes = if first {
        bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
    } else {
        bytes
    };
    let mut line = String::from_utf8_lossy(bytes).into_owned();
    if let Some((end, _)) = line.char_indices().nth(MAX_LINE_CHARS) {
        line.truncate(end);
        line.push_str(LINE_TRUNCATED);
    } else if cut {
        line.push_str(LINE_TRUNCATED);
    }
    line
}

impl Page {
    fn into_content(self, offset: usize, limit: usize, file_size: u64) -> FileContent {
        let total = self.total_lines;
        let numbered: Vec<String> = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, line)| format!("{}|{line}", offset + i))
            .collect();
        let (content, kept) = within_budget(&numbered);
        let (truncated, hint) = if self.partial && kept == numbered.len() {
            partial_count(offset, kept, total)
        } else {
            let counted = Counted {
                total,
                partial: self.partial,
            };
            continuation(offset, limit, kept, numbered.len(), counted)
        };
        FileContent {
            content,
            total_lines: total,
            total_lines_partial: self.partial,
            file_size,
            truncated,
            hint,
        }
    }
}

/// The line count, and whether it is only a lower bound.
struct Counted {
    total: usize,
    partial: bool,
}

impl std::fmt::Display for Counted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.partial {
            write!(f, "at least {}", self.total)
        } else {
            write!(f, "{}", self.total)
        }
    }
}

/// The hint for a whole page of a file too large to count: more may follow.
fn partial_count(offset: usize, kept: usize, total: usize) -> (bool, Option<String>) {
    let end = offset + kept - 1;
    let hint = format!(
        "Showing lines {offset}-{end}. The file is too large to count its lines: {} MiB were \
         read from line {offset} on, and it has at least {total} lines. Use offset={} to \
         continue reading.",
        COUNT_SCAN_BYTES >> 20,
        end + 1
    );
    (true, Some(hint))
}

/// Whether lines were left out, and the hint telling the model how to go on.
///
/// `kept` of the `shown` lines fit the character budget; the file has `total` lines.
fn continuation(
    offset: usize,
    limit: usize,
    kept: usize,
    shown: usize,
    counted: Counted,
) -> (bool, Option<String>) {
    let total = counted.total;
    if kept < shown {
        let end = offset + kept - 1;
        let hint = format!(
            "Output truncated at the 100,000-char read budget after {kept} line(s) (showing \
             lines {offset}-{end} of {counted}). Use offset={} to continue.",
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

/// Joins whole lines while they fit in [`READ_BUDGET_CHARS`](super::READ_BUDGET_CHARS), returning the text and how many
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
