use super::read::*;
use super::similar::*;
use super::write::*;
use super::*;
use crate::workspace::{Workspace, WorkspaceError};
use hermes_tools::{ToolContext, ToolRegistry};
use serde_json::json;
use std::fs;
use std::path::Path;
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
            total_lines_partial: false,
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
    let err = read_file("conf/config.yml".into(), 1, 500, &ws, &ToolContext::new()).unwrap_err();
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
    let answer =
        ToolRegistry::global().call_blocking("read_file", r#"{"path":"f.txt","limit":"3"}"#, &ctx);
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
