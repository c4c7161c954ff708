//! `write_file` is durable: the CLI's `call write_file`, traced with strace, syncs the new file
//! before renaming it into place and syncs the directory after, all before the process exits.
//! And a FIFO at the path is refused, not replaced.

mod common;

use common::cli_command;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// One traced system call: `name(first argument ...) = result`.
struct Syscall {
    name: String,
    args: String,
    result: String,
}

/// The calls in an `strace -f -o` log, in order, with split (`unfinished`) calls joined.
fn syscalls(log: &str) -> Vec<Syscall> {
    let mut calls = Vec::new();
    let mut pending: std::collections::HashMap<String, String> = Default::default();
    for line in log.lines() {
        let (pid, rest) = line.split_once(char::is_whitespace).unwrap_or(("", line));
        let rest = rest.trim_start();
        let whole = if let Some(head) = rest.strip_suffix(" <unfinished ...>") {
            pending.insert(pid.to_owned(), head.to_owned());
            continue;
        } else if let Some(tail) = rest.strip_prefix("<... ") {
            let tail = tail.split_once(" resumed>").map_or("", |(_, tail)| tail);
            format!("{}{tail}", pending.remove(pid).unwrap_or_default())
        } else {
            rest.to_owned()
        };
        let Some((call, result)) = whole.rsplit_once(" = ") else {
            continue;
        };
        let Some((name, args)) = call.trim_end().split_once('(') else {
            continue;
        };
        calls.push(Syscall {
            name: name.to_owned(),
            args: args.to_owned(),
            result: result.split_whitespace().next().unwrap_or("").to_owned(),
        });
    }
    calls
}

/// The index of the first call after `from` that matches.
fn position(calls: &[Syscall], from: usize, what: impl Fn(&Syscall) -> bool) -> Option<usize> {
    calls[from..]
        .iter()
        .position(what)
        .map(|found| found + from)
}

fn opened(calls: &[Syscall], path: &str) -> Option<(usize, String)> {
    let quoted = format!("\"{path}\"");
    let at = position(calls, 0, |call| {
        call.name == "openat" && call.args.contains(&quoted) && !call.result.starts_with('-')
    })?;
    Some((at, calls[at].result.clone()))
}

fn synced(calls: &[Syscall], from: usize, fd: &str) -> Option<usize> {
    position(calls, from, |call| {
        matches!(call.name.as_str(), "fsync" | "fdatasync")
            && call.args.trim_end_matches(')') == fd
            && call.result == "0"
    })
}

#[test]
#[ignore = "needs strace (installed by .ci/test)"]
fn write_file_syncs_the_file_and_its_directories_before_it_answers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let log = root.join("strace.log");
    let arguments = json!({"path": "new/notes.txt", "content": "keep me\n"}).to_string();
    let binary = cli_command(&[]).get_program().to_owned();
    let output = Command::new("strace")
        .args(["-f", "-qq", "-o"])
        .arg(&log)
        .args([
            "-e",
            "trace=openat,fsync,fdatasync,rename,renameat,renameat2,exit_group",
        ])
        .arg(binary)
        .args(["call", "write_file", &arguments])
        .env_remove("HERMES_TOOLS_CONFIG")
        .current_dir(&root)
        .output()
        .expect("strace runs");
    assert!(output.status.success(), "{output:?}");
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["bytes_written"], 8, "{answer}");
    assert_eq!(answer["dirs_created"], true, "{answer}");

    let log = std::fs::read_to_string(&log).unwrap();
    let calls = syscalls(&log);
    let target = root.join("new/notes.txt").display().to_string();
    let rename = position(&calls, 0, |call| {
        call.name.starts_with("rename") && call.args.contains(&format!("\"{target}\""))
    })
    .unwrap_or_else(|| panic!("a rename onto {target} in\n{log}"));
    let temp = calls[rename].args.split('"').nth(1).unwrap().to_owned();
    let (open, fd) = opened(&calls, &temp).unwrap_or_else(|| panic!("{temp} opened in\n{log}"));
    let file_sync = synced(&calls, open, &fd).unwrap_or_else(|| panic!("fsync({fd}) in\n{log}"));
    assert!(
        file_sync < rename,
        "the data is synced before the rename:\n{log}"
    );
    let exit = position(&calls, rename, |call| call.name == "exit_group").unwrap_or(calls.len());
    for directory in [root.join("new"), root.clone()] {
        let directory = directory.display().to_string();
        let (open, fd) = opened(&calls[rename..], &directory)
            .map(|(at, fd)| (at + rename, fd))
            .unwrap_or_else(|| panic!("{directory} opened after the rename in\n{log}"));
        let sync =
            synced(&calls, open, &fd).unwrap_or_else(|| panic!("{directory} synced in\n{log}"));
        assert!(
            sync < exit,
            "{directory} is synced before the process exits:\n{log}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(Path::new(&target)).unwrap(),
        "keep me\n"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_at_the_path_is_refused_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let arguments = json!({"path": "pipe", "content": "x"}).to_string();
    let output = cli_command(&["call", "write_file", &arguments])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    let error = answer["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(
        error.contains("'pipe' is not a regular file (a device, socket or pipe)"),
        "{error}"
    );
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO is still there");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no file beside it"
    );
}
