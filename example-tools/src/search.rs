//! `search_files`: regex search of file contents inside the [`Workspace`], as ripgrep would
//! walk it: `.gitignore` and `.ignore` files are honoured, hidden files and `.git` skipped,
//! binary files and symbolic links left out (a link could point outside the workspace).
//!
//! A search costs bounded memory and time per file: each line is matched on its first
//! [`MAX_LINE_BYTES`], and at most [`MAX_FILE_BYTES`] of a file are read. A file searched
//! only in part (a line cut, or the file's end not reached) is named in `partial_files`.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use hermes_tools::tool;
use ignore::WalkBuilder;
use ignore::overrides::{Override, OverrideBuilder};
use regex::bytes::Regex;
use serde::Serialize;

use crate::lines::CappedLines;
use crate::workspace::{Workspace, WorkspaceError};

/// Longest match text returned, in characters (Hermes caps match content at 500).
pub const MAX_MATCH_CHARS: usize = 500;
/// Bytes of a line matched: a match that starts past them is not found.
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// Bytes of a file searched: a match past them is not found.
pub const MAX_FILE_BYTES: u64 = 128 << 20;
/// Bytes sniffed for a NUL, which marks a file as binary (and skipped).
const SNIFF_BYTES: usize = 8192;

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The path is outside the workspace, or cannot be resolved.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// The pattern is not a valid regular expression.
    #[error(
        "Invalid regex pattern {pattern:?}: {message}\nFix the pattern (Rust regex syntax: no \
         look-around or backreferences; escape literal characters such as `(` and `.`) and \
         search again."
    )]
    InvalidPattern {
        /// The pattern as the model sent it.
        pattern: String,
        /// What is wrong with it.
        message: String,
    },
    /// The file glob is not a valid glob.
    #[error("Invalid file_glob {glob:?}: {message}. Use a glob such as '*.rs' or 'src/**/*.py'.")]
    InvalidGlob {
        /// The glob as the model sent it.
        glob: String,
        /// What is wrong with it.
        message: String,
    },
    /// Nothing is at the path.
    #[error(
        "Path not found: {path}. Search from '.' (the workspace root) or an existing directory."
    )]
    NotFound {
        /// The path as the model sent it.
        path: String,
    },
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SearchMatch {
    /// The file, relative to the workspace root.
    pub path: String,
    /// The line number, counting from 1.
    pub line: u64,
    /// The line's text (without its line ending), cut at 500 characters.
    pub text: String,
}

/// The first matches, and how many there are in all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SearchResults {
    /// Up to `limit` matches, in path order then line order.
    pub matches: Vec<SearchMatch>,
    /// How many lines match in all.
    pub total_count: usize,
    /// Whether matches beyond `limit` were left out.
    pub truncated: bool,
    /// Files searched only in part: a line longer than [`MAX_LINE_BYTES`] was matched on its
    /// start, or the file was read only to [`MAX_FILE_BYTES`]. Left out when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub partial_files: Vec<String>,
}

/// Search file contents for a regular expression, returning matching lines with their paths.
///
/// Searches recursively from `path`, skipping files ignored by .gitignore, hidden files and
/// binary files. Use this instead of grep or rg in the terminal. Narrow with `file_glob`
/// (such as '*.py'). Results list `path`, `line` and `text` of each match; `truncated` means
/// there are more than `limit`: narrow the pattern or the path.
///
/// # Arguments
/// * `pattern` - Regular expression to search for (Rust regex syntax), such as 'fn \w+_test' or 'TODO'.
/// * `path` - Directory or file to search, relative to the workspace root.
/// * `file_glob` - Only search files whose names match this glob, such as '*.rs'.
/// * `limit` - Most matches to return.
// `blocking`: a walk of a large tree may take long; it gets a thread and a real timeout.
#[tool(toolset = "files", emoji = "🔎", read_only, blocking)]
pub fn search_files(
    pattern: String,
    #[arg(default = ".")] path: String,
    file_glob: Option<String>,
    #[arg(default = 50, minimum = 1)] limit: usize,
    workspace: &Workspace,
) -> Result<SearchResults, SearchError> {
    let regex = Regex::new(&pattern).map_err(|err| SearchError::InvalidPattern {
        pattern: pattern.clone(),
        message: err.to_string(),
    })?;
    let start = workspace.resolve(&path)?;
    if !start.exists() {
        return Err(SearchError::NotFound { path });
    }
    let mut walker = WalkBuilder::new(&start);
    walker
        // Honour .gitignore even outside a git repository, as a workspace may not be one.
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b));
    if let Some(glob) = &file_glob {
        walker.overrides(glob_filter(&start, glob)?);
    }
    let mut results = SearchResults {
        matches: Vec::new(),
        total_count: 0,
        truncated: false,
        partial_files: Vec::new(),
    };
    let limit = limit.max(1);
    for entry in walker.build().filter_map(Result::ok) {
        // Not following links keeps the search inside the workspace; `is_file` is false for them.
        if entry.file_type().is_some_and(|kind| kind.is_file()) {
            let shown = workspace.display_path(entry.path());
            // An unreadable file is skipped, as ripgrep does, rather than failing the search.
            let _ = search_file(entry.path(), &shown, &regex, limit, &mut results);
        }
    }
    results.truncated = results.total_count > limit;
    Ok(results)
}

/// Only files matching `glob` (directories are still walked).
fn glob_filter(start: &Path, glob: &str) -> Result<Override, SearchError> {
    let invalid = |err: ignore::Error| SearchError::InvalidGlob {
        glob: glob.to_owned(),
        message: err.to_string(),
    };
    let mut builder = OverrideBuilder::new(start);
    builder.add(glob).map_err(invalid)?;
    builder.build().map_err(invalid)
}

/// Counts the matching lines of one file, keeping them while fewer than `limit` are kept.
fn search_file(
    file: &Path,
    shown: &str,
    regex: &Regex,
    limit: usize,
    results: &mut SearchResults,
) -> io::Result<()> {
    let mut reader = BufReader::with_capacity(64 << 10, File::open(file)?);
    let start = reader.fill_buf()?;
    if start[..start.len().min(SNIFF_BYTES)].contains(&0) {
        return Ok(());
    }
    let mut lines = CappedLines::new(reader, MAX_LINE_BYTES);
    lines.bound_scan(MAX_FILE_BYTES);
    let mut number = 0;
    let mut partial = false;
    while let Some(line) = lines.next_line(true)? {
        number += 1;
        partial |= line.cut;
        if regex.is_match(line.text) {
            results.total_count += 1;
            if results.matches.len() < limit {
                results.matches.push(SearchMatch {
                    path: shown.to_owned(),
                    line: number,
                    text: cap_chars(&String::from_utf8_lossy(line.text)),
                });
            }
        }
    }
    if partial || lines.stopped() {
        results.partial_files.push(shown.to_owned());
    }
    Ok(())
}

fn cap_chars(text: &str) -> String {
    match text.char_indices().nth(MAX_MATCH_CHARS) {
        Some((cut, _)) => text[..cut].to_owned(),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermes_tools::{ToolContext, ToolRegistry};
    use serde_json::json;
    use std::fs;
    use tempfile::TempDir;

    fn setup() -> (TempDir, Workspace) {
        let dir = TempDir::new().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("src/nested")).unwrap();
        fs::create_dir_all(root.join("target")).unwrap();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        fs::write(root.join("src/a.rs"), "fn alpha() {}\nlet needle = 1;\r\n").unwrap();
        fs::write(
            root.join("src/nested/b.py"),
            "needle = 2\nother\nneedle again\n",
        )
        .unwrap();
        fs::write(root.join("target/out.rs"), "needle in ignored dir\n").unwrap();
        fs::write(root.join("debug.log"), "needle in ignored file\n").unwrap();
        fs::write(root.join(".hidden"), "needle hidden\n").unwrap();
        fs::write(root.join(".git/config"), "needle in git\n").unwrap();
        fs::write(root.join("blob.bin"), b"needle\0binary").unwrap();
        let workspace = Workspace::new(root);
        (dir, workspace)
    }

    fn found(results: &SearchResults) -> Vec<(String, u64, String)> {
        results
            .matches
            .iter()
            .map(|m| (m.path.clone(), m.line, m.text.clone()))
            .collect()
    }

    #[test]
    fn respects_gitignore_hidden_and_binary() {
        let (_dir, ws) = setup();
        let results = search_files("needle".into(), ".".into(), None, 50, &ws).unwrap();
        assert_eq!(
            found(&results),
            [
                ("src/a.rs".into(), 2, "let needle = 1;".into()),
                ("src/nested/b.py".into(), 1, "needle = 2".into()),
                ("src/nested/b.py".into(), 3, "needle again".into()),
            ]
        );
        assert_eq!((results.total_count, results.truncated), (3, false));
    }

    #[test]
    fn limit_truncates_but_counts_everything() {
        let (_dir, ws) = setup();
        let results = search_files("needle".into(), ".".into(), None, 2, &ws).unwrap();
        assert_eq!(results.matches.len(), 2);
        assert_eq!((results.total_count, results.truncated), (3, true));
    }

    #[test]
    fn glob_and_path_narrow_the_search() {
        let (_dir, ws) = setup();
        let py = search_files("needle".into(), ".".into(), Some("*.py".into()), 50, &ws).unwrap();
        assert_eq!(py.total_count, 2);
        assert!(py.matches.iter().all(|m| m.path == "src/nested/b.py"));
        let nested = search_files("needle".into(), "src/nested".into(), None, 50, &ws).unwrap();
        assert_eq!(nested.total_count, 2);
        let file = search_files(r"^fn \w+".into(), "src/a.rs".into(), None, 50, &ws).unwrap();
        assert_eq!(
            found(&file),
            [("src/a.rs".into(), 1, "fn alpha() {}".into())]
        );
    }

    #[test]
    fn errors_are_clear() {
        let (_dir, ws) = setup();
        let err = search_files("fn (".into(), ".".into(), None, 50, &ws).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("Invalid regex pattern \"fn (\": "),
            "{text}"
        );
        assert!(text.contains("unclosed group"), "{text}");
        let err = search_files("x".into(), ".".into(), Some("a[".into()), 50, &ws).unwrap_err();
        assert!(matches!(err, SearchError::InvalidGlob { .. }), "{err}");
        let err = search_files("x".into(), "missing".into(), None, 50, &ws).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Path not found: missing. Search from '.' (the workspace root) or an existing directory."
        );
        let err = search_files("x".into(), "../".into(), None, 50, &ws).unwrap_err();
        assert!(matches!(
            err,
            SearchError::Workspace(WorkspaceError::Outside { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_are_not_followed() {
        let (dir, ws) = setup();
        let outside = TempDir::new().unwrap();
        fs::write(outside.path().join("s.txt"), "needle outside\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("s.txt"), dir.path().join("s.txt")).unwrap();
        let results = search_files("outside".into(), ".".into(), None, 50, &ws).unwrap();
        assert_eq!(results.total_count, 0);
        let err = search_files("outside".into(), "out".into(), None, 50, &ws).unwrap_err();
        assert!(matches!(
            err,
            SearchError::Workspace(WorkspaceError::Outside { .. })
        ));
    }

    #[test]
    fn long_lines_are_cut_on_char_boundaries() {
        let (dir, ws) = setup();
        fs::write(
            dir.path().join("wide.txt"),
            format!("{}zz\n", "é".repeat(600)),
        )
        .unwrap();
        let results = search_files("zz".into(), "wide.txt".into(), None, 50, &ws).unwrap();
        assert_eq!(results.matches[0].text, "é".repeat(MAX_MATCH_CHARS));
    }

    #[test]
    fn dispatch_uses_defaults() {
        let (_dir, ws) = setup();
        let ctx = ToolContext::new().with_extension(ws);
        let answer =
            ToolRegistry::global().call_blocking("search_files", r#"{"pattern":"alpha"}"#, &ctx);
        assert_eq!(
            answer.to_value(),
            json!({
                "matches": [{"path": "src/a.rs", "line": 1, "text": "fn alpha() {}"}],
                "total_count": 1,
                "truncated": false,
            })
        );
        let bad = ToolRegistry::global().call_blocking("search_files", r#"{"pattern":"("}"#, &ctx);
        assert!(bad.is_error());
        assert_eq!(
            bad.to_value()["error"],
            "[TOOL_ERROR] Invalid regex pattern \"(\": regex parse error:\n    (\n    ^\nerror: unclosed group\n\
             Fix the pattern (Rust regex syntax: no look-around or backreferences; escape literal \
             characters such as `(` and `.`) and search again."
        );
        let missing = ToolRegistry::global().call_blocking(
            "search_files",
            r#"{"pattern":"x"}"#,
            &ToolContext::new(),
        );
        assert_eq!(
            missing.to_value()["error"],
            "[TOOL_ERROR] Tool \"search_files\" cannot run here: its parameter `workspace` needs a \
             `example_tools::workspace::Workspace` that this agent does not provide. Do not call \
             it again in this session."
        );
    }
}
