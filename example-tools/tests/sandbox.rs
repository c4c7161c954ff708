//! The shell inside bubblewrap, tried with the real `bwrap` and real processes: the agent's
//! environment out of reach, nothing written outside the workspace, no network, a fork bomb
//! contained, nothing left running, `required` without bubblewrap unavailable with its reason,
//! and `off` as before.
//!
//! These need a working bubblewrap: without one each test says so and passes, unless
//! `HERMES_REQUIRE_SANDBOX=1` (set by `.ci/test`, which installs bubblewrap), where it fails.

#![cfg(target_os = "linux")]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use hermes_tools::toolsets::availability::Unavailable;
use hermes_tools::{DefinitionsRequest, ToolAnswer, ToolContext, ToolRegistry, config::Config};
use tempfile::TempDir;

use example_tools::Workspace;

/// Whether bubblewrap works here; `false` (after saying why) lets a test pass without it.
fn sandbox_works() -> bool {
    let registry = registry("");
    let tool = registry.get("terminal").expect("terminal is linked");
    let mut probe = registry.availability().probe_under(registry.config());
    let working = probe.check(&tool).is_ok()
        && probe
            .note(&tool)
            .is_some_and(|note| note.starts_with("sandboxed"));
    if !working {
        let why = probe.note(&tool).unwrap_or("no note").to_owned();
        assert!(
            std::env::var_os("HERMES_REQUIRE_SANDBOX").is_none_or(|v| v != "1"),
            "HERMES_REQUIRE_SANDBOX=1 but the sandbox does not work: {why}"
        );
        eprintln!("skipped: bubblewrap does not work here ({why})");
    }
    working
}

/// A registry of everything linked, approval lifted, and `extra` under `[tools.terminal]`.
fn registry(extra: &str) -> ToolRegistry {
    let registry = ToolRegistry::linked();
    let config = format!("[tools.terminal]\napproval = false\n{extra}");
    registry.set_config(Config::from_toml_str(&config).unwrap());
    registry
}

fn workspace() -> (TempDir, ToolContext) {
    let dir = TempDir::new().unwrap();
    let ctx = ToolContext::new().with_extension(Workspace::new(dir.path()));
    (dir, ctx)
}

async fn run(registry: &ToolRegistry, ctx: &ToolContext, command: &str) -> ToolAnswer {
    let args = serde_json::json!({"command": command, "timeout": 60}).to_string();
    registry.call("terminal", &args, ctx).await
}

fn output(answer: &ToolAnswer) -> String {
    answer.to_value()["output"]
        .as_str()
        .unwrap_or_else(|| panic!("no output: {answer}"))
        .to_owned()
}

/// Cargo gives the test process `CARGO_PKG_NAME`; the terminal's filter never passes it on,
/// so finding it means reading the agent's own environment.
const AGENT_ONLY: &str = "CARGO_PKG_NAME=example-tools";

#[tokio::test]
async fn the_agent_and_its_environment_are_out_of_reach() {
    if !sandbox_works() {
        return;
    }
    let (_dir, ctx) = workspace();
    let read = "cat /proc/$PPID/environ | tr '\\0' '\\n'; echo; \
                cat /proc/[0-9]*/environ | tr '\\0' '\\n'; echo; \
                echo pids: /proc/[0-9]*";
    // Unsandboxed, the parent is the agent: the filtered environment is no fence.
    let unsandboxed = output(&run(&registry("sandbox = \"off\"\n"), &ctx, read).await);
    assert!(unsandboxed.contains(AGENT_ONLY), "{unsandboxed}");
    let sandboxed = output(&run(&registry(""), &ctx, read).await);
    assert!(!sandboxed.contains(AGENT_ONLY), "{sandboxed}");
    assert!(!sandboxed.contains("CARGO"), "{sandboxed}");
    // Only the sandbox's own processes are there to read (its init, the shell, `cat`...).
    let pids = sandboxed.lines().find(|l| l.starts_with("pids:")).unwrap();
    let own = std::process::id().to_string();
    assert!(
        pids.split(['/', ' ']).all(|part| part != own),
        "the agent's pid {own} is visible: {pids}"
    );
}

#[tokio::test]
async fn nothing_is_written_outside_the_workspace() {
    if !sandbox_works() {
        return;
    }
    let (dir, ctx) = workspace();
    let elsewhere = TempDir::new().unwrap();
    let outside = elsewhere.path().join("escaped");
    let command = format!(
        "touch {outside}; echo $? ; touch /etc/hermes-sandbox-probe; echo $?; \
         touch inside; echo $?",
        outside = outside.display()
    );
    let answer = output(&run(&registry(""), &ctx, &command).await);
    let codes: Vec<&str> = answer
        .lines()
        .filter(|l| l.chars().all(|c| c.is_ascii_digit()))
        .collect();
    assert_eq!(codes.len(), 3, "{answer}");
    assert_ne!(codes[0], "0", "{answer}");
    assert_ne!(codes[1], "0", "{answer}");
    assert_eq!(codes[2], "0", "{answer}");
    assert!(!outside.exists());
    assert!(!Path::new("/etc/hermes-sandbox-probe").exists());
    assert!(dir.path().join("inside").exists());
    // An operator's writable path is writable; the same path read-only is not.
    let writable = format!("writable_paths = [{:?}]\n", elsewhere.path());
    let answer = output(&run(&registry(&writable), &ctx, &command).await);
    assert!(outside.exists(), "{answer}");
    std::fs::remove_file(&outside).unwrap();
    let read_only = format!("read_only_paths = [{:?}]\n", elsewhere.path());
    run(&registry(&read_only), &ctx, &command).await;
    assert!(!outside.exists());
}

#[tokio::test]
async fn no_network_unless_allowed() {
    if !sandbox_works() {
        return;
    }
    assert!(
        ["/bin/bash", "/usr/bin/bash"]
            .iter()
            .any(|bash| Path::new(bash).exists()),
        "this test connects with bash's /dev/tcp: install bash"
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let (_dir, ctx) = workspace();
    let connect = format!(
        "bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' 2>/dev/null && echo connected || echo refused"
    );
    let sandboxed = output(&run(&registry(""), &ctx, &connect).await);
    assert_eq!(sandboxed, "refused");
    assert!(listener.accept().is_err(), "a connection reached the host");
    let allowed = output(&run(&registry("network = true\n"), &ctx, &connect).await);
    assert_eq!(allowed, "connected");
}

/// Processes the sandbox's `/proc` shows, counted with builtins only (a full table cannot fork).
const COUNT: &str = "set -- /proc/[0-9]*; echo processes: $#";

fn counted(answer: &str) -> usize {
    answer
        .lines()
        .find_map(|l| l.strip_prefix("processes: "))
        .unwrap_or_else(|| panic!("no count: {answer}"))
        .parse()
        .unwrap()
}

#[tokio::test]
async fn a_fork_bomb_is_contained_and_the_call_returns() {
    if !sandbox_works() {
        return;
    }
    let registry = registry("max_processes = 16\n");
    let tool = registry.get("terminal").unwrap();
    let mut probe = registry.availability().probe_under(registry.config());
    probe.check(&tool).unwrap();
    let note = probe.note(&tool).unwrap().to_owned();
    if !note.contains("at most 16 processes") {
        assert!(
            std::env::var_os("HERMES_REQUIRE_SANDBOX").is_none_or(|v| v != "1"),
            "no process bound here: {note}"
        );
        // Running a fork bomb unbounded would take the machine down.
        eprintln!("skipped: no process bound here ({note})");
        return;
    }
    let (_dir, ctx) = workspace();
    // Many sleepers: the table fills at the bound, and the rest cannot start (a shell that
    // cannot fork exits, hence the subshell). An unusual duration names them on the host,
    // where another program may well run a `sleep 300` of its own.
    let many = format!("(for i in $(seq 1 100); do sleep 313.1313 & done) 2>/dev/null; {COUNT}");
    let answer = output(&run(&registry, &ctx, &many).await);
    let count = counted(&answer);
    // Filled up to the bound (the wrapper and bubblewrap itself count too, outside this /proc).
    assert!((8..=16).contains(&count), "{count} processes: {answer}");
    // The classic bomb: contained, and the call comes back.
    let bomb = format!(
        "bomb() {{ bomb | bomb & }}; bomb; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; \
         {COUNT}"
    );
    let answer = run(&registry, &ctx, &bomb).await;
    let value = answer.to_value();
    let text = value["output"]
        .as_str()
        .or(value["error"].as_str())
        .unwrap_or_default();
    if let Some(line) = text.lines().find(|l| l.starts_with("processes: ")) {
        assert!(counted(line) <= 16, "{text}");
    }
    assert!(
        text.contains("Cannot fork") || text.contains("fork"),
        "{text}"
    );
    // Nothing of either call is left: their cgroups are gone with their processes.
    assert_no_process_with("sleep 313.1313");
}

/// No process on the host has `needle` in its command line.
fn assert_no_process_with(needle: &str) {
    let own = std::process::id().to_string();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if pid == own {
            continue;
        }
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        assert!(
            !cmdline.contains(needle),
            "process {pid} outlived its call: {cmdline}"
        );
    }
}

#[tokio::test]
async fn a_background_child_is_gone_after_the_call() {
    if !sandbox_works() {
        return;
    }
    let (_dir, ctx) = workspace();
    // An unusual duration names the child on the host.
    let answer = run(
        &registry(""),
        &ctx,
        "setsid sleep 4242.4242 & nohup sleep 4242.4242 >/dev/null 2>&1 & echo started",
    )
    .await;
    assert_eq!(output(&answer), "started");
    assert_no_process_with("4242.4242");
}

#[tokio::test]
async fn required_without_bubblewrap_is_unavailable_with_the_reason() {
    let registry = registry("sandbox = \"required\"\nbwrap = \"/nonexistent/bwrap\"\n");
    let tool = registry.get("terminal").unwrap();
    let mut probe = registry.availability().probe_under(registry.config());
    let reason = match probe.check(&tool) {
        Err(Unavailable::Explained(reason)) => reason,
        other => panic!("{other:?}"),
    };
    assert!(reason.contains("sandbox = \"required\""), "{reason}");
    assert!(reason.contains("/nonexistent/bwrap"), "{reason}");
    // Not offered to the model...
    let definitions = registry.definitions(&DefinitionsRequest::all()).unwrap();
    assert!(
        !definitions
            .iter()
            .any(|d| d["function"]["name"] == "terminal"),
        "terminal offered"
    );
    let offered = self::registry("sandbox = \"off\"\n")
        .definitions(&DefinitionsRequest::all())
        .unwrap();
    assert!(offered.iter().any(|d| d["function"]["name"] == "terminal"));
    // ...and a call that names it anyway runs nothing.
    let (dir, ctx) = workspace();
    let answer = run(&registry, &ctx, "touch ran").await;
    assert!(answer.is_error(), "{answer}");
    assert!(
        answer.to_string().contains("/nonexistent/bwrap"),
        "{answer}"
    );
    assert!(!dir.path().join("ran").exists());
    // `auto` with the same missing bubblewrap runs unsandboxed, and says so.
    let auto = self::registry("bwrap = \"/nonexistent/bwrap\"\n");
    let mut probe = auto.availability().probe_under(auto.config());
    probe.check(&tool).unwrap();
    assert!(
        probe
            .note(&tool)
            .is_some_and(|note| note.starts_with("not sandboxed") && note.contains("/nonexistent")),
        "{:?}",
        probe.note(&tool)
    );
    assert_eq!(output(&run(&auto, &ctx, "touch ran; echo ok").await), "ok");
    assert!(dir.path().join("ran").exists());
}

#[test]
fn list_says_which_mode_is_in_force() {
    let dir = TempDir::new().unwrap();
    let config = dir.path().join("hermes.toml");
    let line = |config_text: &str| {
        std::fs::write(&config, config_text).unwrap();
        let out = common::stdout(&common::cli_with_config(&config, &["list"]));
        out.lines()
            .find(|l| l.contains(" terminal "))
            .unwrap_or_else(|| panic!("{out}"))
            .to_owned()
    };
    let off = line("[tools.terminal]\nsandbox = \"off\"\n");
    assert!(off.contains("available (not sandboxed"), "{off}");
    let required =
        line("[tools.terminal]\nsandbox = \"required\"\nbwrap = \"/nonexistent/bwrap\"\n");
    assert!(required.contains("unavailable: "), "{required}");
    assert!(required.contains("/nonexistent/bwrap"), "{required}");
    if sandbox_works() {
        let auto = line("");
        assert!(auto.contains("available (sandboxed: bubblewrap"), "{auto}");
    }
}

/// `serve` on stdio, the agent holding a secret: the model's `terminal` call reading
/// `/proc/$PPID/environ` (forwards and backwards, past a plain-text redaction) answers nothing
/// of it.
#[test]
fn serve_and_terminal_reading_the_parent_environment_answers_nothing_secret() {
    if !sandbox_works() {
        return;
    }
    const SECRET: &str = "hermes-sandbox-secret-0123456789abcdef";
    let dir = TempDir::new().unwrap();
    let config = dir.path().join("hermes.toml");
    std::fs::write(&config, "[tools.terminal]\napproval = false\n").unwrap();
    let mut child = common::cli_command(&["--config", config.to_str().unwrap(), "serve"])
        .current_dir(dir.path())
        .env("HERMES_TEST_AGENT_SECRET", SECRET)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = common::drain(child.stderr.take());
    let mut stdin = child.stdin.take().unwrap();
    let call = serde_json::json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "terminal", "arguments": {
            "command": "cat /proc/$PPID/environ; echo; cat /proc/$PPID/environ | rev",
        }},
    });
    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    writeln!(stdin, "{INITIALIZE}\n{INITIALIZED}\n{call}").unwrap();
    stdin.flush().unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .find(|line| line.contains("\"id\":2"))
    });
    // A hang guard, wide: the answer comes in well under a second.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !reader.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(stdin);
    let status = common::wait(&mut child, Duration::from_secs(30));
    let answer = reader
        .join()
        .unwrap()
        .unwrap_or_else(|| panic!("no answer ({status:?}); stderr: {}", stderr.join().unwrap()));
    assert!(answer.contains("HERMES_CALL_ID"), "{answer}");
    let reversed: String = SECRET.chars().rev().collect();
    assert!(!answer.contains(SECRET), "{answer}");
    assert!(!answer.contains(&reversed), "{answer}");
    assert!(!answer.contains("HERMES_TEST_AGENT_SECRET"), "{answer}");
}
