//! `definitions --lock`: the real `example-tools` binary against a lock file it wrote, edited
//! the way a change to a tool would show, with the exit status of each verdict.

mod common;

use std::path::Path;
use std::process::Output;

use common::{cli_command, stdout};
use serde_json::{Value, json};

/// `example-tools definitions --lock PATH EXTRA...`, with `HERMES_LOCK` set to `env` (or unset).
fn check(lock: &Path, extra: &[&str], env: Option<&str>) -> Output {
    let mut args = vec!["definitions", "--lock", lock.to_str().unwrap()];
    args.extend_from_slice(extra);
    let mut command = cli_command(&args);
    match env {
        Some(value) => command.env("HERMES_LOCK", value),
        None => command.env_remove("HERMES_LOCK"),
    };
    command.output().expect("the example-tools binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Applies `edit` to `read_file`'s parameter schema in every format of the lock file, the
/// way the lock would read had the tool been declared so.
fn edit_read_file(lock: &Path, edit: impl Fn(&mut Value)) {
    let mut root: Value = serde_json::from_str(&std::fs::read_to_string(lock).unwrap()).unwrap();
    let formats = root["tools"]["read_file"].as_object_mut().unwrap();
    for (format, definition) in formats.iter_mut() {
        if format == "source" {
            continue;
        }
        let inner = if definition.get("function").is_some() {
            &mut definition["function"]
        } else {
            definition
        };
        let key = ["parameters", "input_schema", "inputSchema"]
            .into_iter()
            .find(|key| inner.get(*key).is_some())
            .unwrap();
        edit(&mut inner[key]);
    }
    std::fs::write(lock, serde_json::to_string_pretty(&root).unwrap()).unwrap();
}

#[test]
fn a_missing_lock_exits_2_and_names_the_command_that_creates_it() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("tools.lock");
    let output = check(&lock, &[], None);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(message.contains("no lock file at"), "{message}");
    assert!(message.contains("--update"), "{message}");
    assert!(!lock.exists());
}

#[test]
fn update_creates_the_lock_and_a_check_against_it_passes_strictly() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("tools.lock");
    let output = check(&lock, &["--update"], None);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("(updated)"), "{}", stdout(&output));
    let text = std::fs::read_to_string(&lock).unwrap();
    assert!(text.contains("\"read_file\": {"), "one block per tool");
    assert!(
        text.contains("\"source\": \"example-tools/src/files/read.rs:"),
        "file:line kept"
    );
    let output = check(&lock, &["--strict"], None);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("0 breaking, 0 compatible, 0 moved"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_breaking_change_exits_1_until_it_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("tools.lock");
    assert!(check(&lock, &["--update"], None).status.success());
    // The lock knows a parameter the tool no longer has: the parameter was removed.
    edit_read_file(&lock, |parameters| {
        parameters["properties"]["encoding"] =
            json!({"type": "string", "description": "The text encoding."});
    });
    let output = check(&lock, &[], None);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let report = stdout(&output);
    assert!(
        report.contains("example-tools/src/files/read.rs:")
            && report
                .contains("tool `read_file` [breaking] parameter `encoding`: parameter removed"),
        "{report}"
    );
    assert!(stderr(&output).contains("--update"), "{}", stderr(&output));
    // Accepted through the environment, as insta and trybuild do.
    let output = check(&lock, &[], Some("update"));
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(check(&lock, &["--strict"], None).status.success());
}

#[test]
fn a_compatible_change_passes_and_fails_only_with_strict_and_a_move_always_passes() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("tools.lock");
    assert!(check(&lock, &["--update"], None).status.success());
    // The lock lacks an optional parameter the tool has: a new optional parameter.
    edit_read_file(&lock, |parameters| {
        let properties = parameters["properties"].as_object_mut().unwrap();
        assert!(properties.shift_remove("limit").is_some());
    });
    let output = check(&lock, &[], None);
    assert!(output.status.success(), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("[compatible] parameter `limit`: new optional parameter"),
        "{}",
        stdout(&output)
    );
    assert_eq!(check(&lock, &["--strict"], None).status.code(), Some(1));
    assert!(check(&lock, &["--update"], None).status.success());

    // Only the line moved: reported, and no failure even in a strict check.
    let mut root: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    root["tools"]["read_file"]["source"] = json!("example-tools/src/files.rs:1");
    std::fs::write(&lock, serde_json::to_string_pretty(&root).unwrap()).unwrap();
    let output = check(&lock, &["--strict"], None);
    assert!(output.status.success(), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("[moved] declaration moved from example-tools/src/files.rs:1 to"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_malformed_lock_exits_2_and_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("tools.lock");
    std::fs::write(&lock, "{\"hermes-tools-lock\": 7, \"tools\": {}}").unwrap();
    let output = check(&lock, &[], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("version 7"), "{}", stderr(&output));
}

#[test]
fn a_lock_check_refuses_a_selection_or_format_it_would_ignore() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("tools.lock");
    for extra in [["--format", "gemini"], ["--toolsets", "files"]] {
        let output = check(&lock, &extra, None);
        assert_eq!(output.status.code(), Some(2), "{extra:?}");
        assert!(
            stderr(&output).contains("cannot be used with"),
            "{}",
            stderr(&output)
        );
    }
}
