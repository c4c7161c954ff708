//! A 2 GB file of one line (sparse: text, then zeros, no newline): `read_file` and
//! `search_files` answer with bounded memory and bounded reading. One test in this binary, so
//! the peak RSS it measures is its own.

use std::fs::File;
use std::io::Write;
use std::time::Instant;

use example_tools::Workspace;
use hermes_tools::{ToolContext, ToolRegistry};
use serde_json::Value;

const SIZE: u64 = 2 << 30;

/// This process's peak resident memory in bytes (`VmHWM`).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

#[cfg(target_os = "linux")]
#[test]
fn a_2_gb_single_line_file_is_read_and_searched_with_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.txt");
    let mut file = File::create(&path).unwrap();
    // Text first, so that the file is not sniffed as binary; the rest is a hole of zeros.
    file.write_all(&b"needle haystack ".repeat(1024)).unwrap();
    file.set_len(SIZE).unwrap();
    drop(file);
    let ctx = ToolContext::new().with_extension(Workspace::new(dir.path()));
    let registry = ToolRegistry::global();
    let before = peak_rss();

    let started = Instant::now();
    let read = registry.call_blocking("read_file", r#"{"path":"huge.txt","limit":5}"#, &ctx);
    let read_time = started.elapsed();
    assert!(!read.is_error(), "{read}");
    let read: Value = read.to_value();
    let content = read["content"].as_str().unwrap();
    assert!(
        content.starts_with("1|needle haystack needle"),
        "{content:.80}"
    );
    assert!(
        content.ends_with("... [truncated]"),
        "the line is cut with a note"
    );
    assert!(content.chars().count() < 2_100, "one capped line");
    assert_eq!(read["total_lines"], 1);
    assert_eq!(read["total_lines_partial"], true, "{read}");
    assert_eq!(read["truncated"], true);
    let hint = read["hint"].as_str().unwrap();
    assert!(hint.contains("at least 1 lines"), "{hint}");

    let started = Instant::now();
    let search = registry.call_blocking("search_files", r#"{"pattern":"needle","path":"."}"#, &ctx);
    let search_time = started.elapsed();
    assert!(!search.is_error(), "{search}");
    let search: Value = search.to_value();
    assert_eq!(search["total_count"], 1, "{search}");
    assert_eq!(search["matches"][0]["line"], 1);
    assert_eq!(search["partial_files"], serde_json::json!(["huge.txt"]));

    let grown = peak_rss().saturating_sub(before);
    eprintln!(
        "2 GB single line: read_file limit 5 in {read_time:?}, search_files in {search_time:?}, \
         peak RSS grew by {} KiB",
        grown / 1024
    );
    // The old reader held the whole line (4.2 GB); the capped one holds a line's cap.
    assert!(grown < 64 << 20, "peak RSS grew by {grown} bytes");
}
