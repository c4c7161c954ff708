//! The shell, fenced, tried with real processes: no process a call started outlives it (however
//! it left its process group, and however the call ended), its environment carries no
//! credential, and the CLI asks before it runs one.

#![cfg(target_os = "linux")]

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use hermes_tools::{ToolAnswer, ToolContext, ToolRegistry, config::Config};
use nix::errno::Errno;
use nix::sys::signal::kill;
use nix::unistd::Pid;
use tempfile::TempDir;

use example_tools::Workspace;

/// A registry of everything linked, the shell's approval lifted (as in a disposable
/// container), and a workspace of its own. Unsandboxed: these tests follow the fence by the
/// pids the command prints, which inside the sandbox's PID namespace would not be the host's
/// (the sandbox's own tests are in `sandbox.rs`).
fn fixture() -> (TempDir, ToolRegistry, ToolContext) {
    let dir = TempDir::new().unwrap();
    let registry = ToolRegistry::linked();
    registry.set_config(
        Config::from_toml_str("[tools.terminal]\napproval = false\nsandbox = \"off\"\n").unwrap(),
    );
    let ctx = ToolContext::new().with_extension(Workspace::new(dir.path()));
    (dir, registry, ctx)
}

fn args(command: &str, timeout: u64) -> String {
    serde_json::json!({"command": command, "timeout": timeout}).to_string()
}

/// The pids a command printed, one a line, in its output or in the tail of its timeout error.
fn pids(answer: &ToolAnswer) -> Vec<i32> {
    let value = answer.to_value();
    let text = value["output"]
        .as_str()
        .or_else(|| value["error"].as_str())
        .unwrap_or_default();
    text.lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect()
}

/// Whether `kill -0 PID` finds the process. A zombie counts as found: the fence reaps what it
/// kills, so none may be left.
fn exists(pid: i32) -> bool {
    kill(Pid::from_raw(pid), None) != Err(Errno::ESRCH)
}

/// What `/proc` says of a process that should be gone, for failure messages.
fn describe(pid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_else(|_| "gone".into())
}

/// Each way out of the process group the brief names, every one printing its pid. The
/// `setsid -f` child is a grandchild whose parent exits at once; `env -i` clears the marker,
/// leaving only the output pipe to find it by.
const ESCAPES: &str = "\
sleep 90 & echo $!
setsid sleep 90 & echo $!
nohup sleep 90 >/dev/null 2>&1 & echo $!
setsid -f sh -c 'echo $$ > setsid-f.pid; exec sleep 90'
env -i setsid sleep 90 & echo $!
sh -c 'setsid sleep 90 & echo $!; exit 0'
while [ ! -s setsid-f.pid ]; do sleep 0.01; done; cat setsid-f.pid";

/// The six pids `ESCAPES` printed in `answer`, described, for those still alive.
fn survivors(answer: &ToolAnswer) -> Vec<String> {
    let pids = pids(answer);
    assert_eq!(pids.len(), 6, "{answer}");
    pids.iter()
        .filter(|&&p| exists(p))
        .map(|&p| describe(p))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_children_are_gone_when_the_call_returns() {
    let (_dir, registry, ctx) = fixture();
    let started = Instant::now();
    let answer = registry.call("terminal", &args(ESCAPES, 30), &ctx).await;
    let elapsed = started.elapsed();
    assert!(!answer.is_error(), "{answer}");
    let left = survivors(&answer);
    assert!(
        left.is_empty(),
        "still there right after the call: {left:?}"
    );
    // Not waiting for the escaped `sleep 90`s: a wide bound below them.
    assert!(elapsed < Duration::from_secs(30), "took {elapsed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_children_are_gone_after_a_timeout() {
    let (_dir, registry, ctx) = fixture();
    let command = format!("{ESCAPES}\nsleep 60");
    let started = Instant::now();
    let answer = registry.call("terminal", &args(&command, 1), &ctx).await;
    // The timeout is 1 s, the command 60 s: a wide bound between them.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert!(answer.is_error());
    assert!(
        answer.to_value()["error"]
            .as_str()
            .unwrap()
            .starts_with("[TOOL_ERROR] Command timed out after 1s and was killed.")
    );
    let left = survivors(&answer);
    assert!(left.is_empty(), "still there after the timeout: {left:?}");
}

/// Writes the shell's pid and an escaped child's pid to files; both would touch a `late-*`
/// file two seconds later.
const LATE: &str = "\
echo $$ > shell.pid
setsid sh -c 'echo $$ > escaped.pid; sleep 2; touch late-escaped' &
sleep 2; touch late-shell";

async fn wait_for_pids(dir: &Path) -> Vec<i32> {
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name))
            .ok()
            .and_then(|text| text.trim().parse().ok())
    };
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        if let (Some(shell), Some(escaped)) = (read("shell.pid"), read("escaped.pid")) {
            return vec![shell, escaped];
        }
        assert!(Instant::now() < until, "the command never wrote its pids");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// After a dropped call: its processes disappear, and what they would have done later never
/// happens.
async fn assert_cancelled(dir: &Path, pids: &[i32]) {
    let until = Instant::now() + Duration::from_secs(2);
    while pids.iter().any(|&p| exists(p)) && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let left: Vec<String> = pids
        .iter()
        .filter(|&&p| exists(p))
        .map(|&p| describe(p))
        .collect();
    assert!(left.is_empty(), "still there after the drop: {left:?}");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(!dir.join("late-shell").exists());
    assert!(!dir.join("late-escaped").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_call_kills_its_processes() {
    let (dir, registry, ctx) = fixture();
    let late = args(LATE, 30);
    let call = registry.call("terminal", &late, &ctx);
    let watch = wait_for_pids(dir.path());
    // The caller gives up (a cancelled turn): the call's future is dropped mid-run.
    let pids = tokio::select! {
        answer = call => panic!("the command finished: {answer}"),
        pids = watch => pids,
    };
    assert_cancelled(dir.path(), &pids).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aborting_the_task_running_the_call_kills_its_processes() {
    let (dir, registry, ctx) = fixture();
    let task = tokio::spawn(async move { registry.call("terminal", &args(LATE, 30), &ctx).await });
    let pids = wait_for_pids(dir.path()).await;
    // An MCP server drops the task of a request whose client went away.
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    assert_cancelled(dir.path(), &pids).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_at_once_kill_only_their_own_processes() {
    let (dir, registry, ctx) = fixture();
    // One call keeps a background child while it runs; the other ends meanwhile, killing its own.
    let long_args = args("sleep 90 & echo $! > long.pid; echo $!; sleep 2", 30);
    let long = registry.call("terminal", &long_args, &ctx);
    let short = async {
        let until = Instant::now() + Duration::from_secs(10);
        let long_pid: i32 = loop {
            let pid = std::fs::read_to_string(dir.path().join("long.pid"));
            if let Some(pid) = pid.ok().and_then(|p| p.trim().parse().ok()) {
                break pid;
            }
            assert!(
                Instant::now() < until,
                "the long call never started its child"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        let answer = registry
            .call("terminal", &args("setsid sleep 90 & echo $!", 30), &ctx)
            .await;
        (answer, long_pid, exists(long_pid))
    };
    let (long, (short, long_pid, alive_after_short)) = tokio::join!(long, short);
    assert!(
        alive_after_short,
        "the short call killed the long call's child"
    );
    assert!(!exists(pids(&short)[0]));
    // The long call's child lived until its own call ended, then went with it.
    assert_eq!(long.to_value()["exit_code"], 0, "{long}");
    assert_eq!(pids(&long), [long_pid]);
    assert!(!exists(long_pid));
}

// ---- The environment and the CLI, through the real binary ----

/// `example-tools ARGS` in `dir`, with `env` added to the environment and `stdin` fed in.
fn cli(dir: &Path, args: &[&str], env: &[(&str, &str)], stdin: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_example-tools"));
    command
        .args(args)
        .env_remove("HERMES_TOOLS_CONFIG")
        .envs(env.iter().copied())
        .current_dir(dir);
    common::run_fed(command, stdin.as_bytes().to_vec())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The `output` of the answer the CLI printed.
fn answer_output(output: &Output) -> String {
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}", text(&output.stdout)));
    answer["output"].as_str().unwrap_or_default().to_owned()
}

const SECRET: &str = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";

#[test]
fn the_child_sees_no_secret_of_the_agent() {
    let dir = TempDir::new().unwrap();
    let env = [
        ("HERMES_TEST_API_KEY", SECRET),
        ("MY_SERVICE_TOKEN", "plain-looking-value-1"),
        ("HARMLESS_SETTING", "kept-when-allowed"),
    ];
    let output = cli(
        dir.path(),
        &["call", "--yes", "terminal", r#"{"command": "env"}"#],
        &env,
        "",
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let printed = answer_output(&output);
    for name in [
        "HERMES_TEST_API_KEY",
        "MY_SERVICE_TOKEN",
        "HARMLESS_SETTING",
        "CARGO",
    ] {
        assert!(
            !printed.contains(name),
            "{name} reached the child:\n{printed}"
        );
    }
    assert!(printed.contains("PATH="), "{printed}");
    assert!(printed.contains("HERMES_CALL_ID="), "{printed}");

    // The operator's allow list: a prefix passes plain names only; an exact name passes as is.
    let config = dir.path().join("hermes.toml");
    std::fs::write(
        &config,
        "[tools.terminal]\nenv_allow = [\"HARMLESS_*\", \"HERMES_TEST_*\", \"MY_SERVICE_TOKEN\"]\n",
    )
    .unwrap();
    let output = cli(
        dir.path(),
        &[
            "--config",
            config.to_str().unwrap(),
            "call",
            "--yes",
            "terminal",
            r#"{"command": "env"}"#,
        ],
        &env,
        "",
    );
    let printed = answer_output(&output);
    assert!(
        printed.contains("HARMLESS_SETTING=kept-when-allowed"),
        "{printed}"
    );
    assert!(printed.contains("MY_SERVICE_TOKEN="), "{printed}");
    assert!(!printed.contains("HERMES_TEST_API_KEY"), "{printed}");
}

#[test]
fn the_cli_refuses_without_a_terminal_to_ask_and_runs_with_yes() {
    let dir = TempDir::new().unwrap();
    let call = |flags: &[&str]| {
        let mut args = vec!["call"];
        args.extend_from_slice(flags);
        args.extend(["terminal", r#"{"command": "touch ran; echo ran"}"#]);
        cli(dir.path(), &args, &[], "y\n")
    };
    let refused = call(&[]);
    assert_eq!(refused.status.code(), Some(1));
    let answer: serde_json::Value = serde_json::from_slice(&refused.stdout).unwrap();
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("The user did not approve this terminal call"),
        "{answer}"
    );
    assert!(
        text(&refused.stderr).contains(
            "terminal needs approval (terminal requires approval before it runs), and stdin is \
             not a terminal to ask on: refused. Pass --yes to approve it."
        ),
        "{}",
        text(&refused.stderr)
    );
    assert!(!dir.path().join("ran").exists());
    for flag in ["--yes", "--approve"] {
        let approved = call(&[flag]);
        assert!(approved.status.success(), "{}", text(&approved.stderr));
        assert_eq!(answer_output(&approved), "ran");
    }
}

/// `script` gives the CLI a pseudo-terminal for stdin, as a person at a keyboard has.
fn in_a_terminal(dir: &Path, reply: &str) -> Output {
    let binary = env!("CARGO_BIN_EXE_example-tools");
    let line =
        format!("{binary} call terminal '{{\"command\": \"touch ran; echo ran\"}}' 2>prompt.txt");
    let mut child = Command::new("script")
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .env_remove("HERMES_TOOLS_CONFIG")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("`script` (util-linux) runs");
    // Answer once the prompt is up, as a person would.
    let prompt = dir.join("prompt.txt");
    let until = Instant::now() + Duration::from_secs(20);
    while !std::fs::read_to_string(&prompt).is_ok_and(|p| p.contains("[y/N]")) {
        assert!(Instant::now() < until, "no prompt");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
        .stdin
        .take()
        .unwrap()
        .write_all(reply.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn the_cli_asks_on_a_terminal() {
    let dir = TempDir::new().unwrap();
    let declined = in_a_terminal(dir.path(), "n\n");
    assert_eq!(
        declined.status.code(),
        Some(1),
        "{}",
        text(&declined.stdout)
    );
    assert!(!dir.path().join("ran").exists());
    let prompt = std::fs::read_to_string(dir.path().join("prompt.txt")).unwrap();
    assert_eq!(
        prompt,
        "terminal needs approval (terminal requires approval before it runs).\narguments: \
         {\"command\":\"touch ran; echo ran\"}\nRun it? [y/N] "
    );
    let approved = in_a_terminal(dir.path(), "y\n");
    assert!(approved.status.success(), "{}", text(&approved.stdout));
    assert!(dir.path().join("ran").exists());
    assert!(
        text(&approved.stdout).contains(r#""output":"ran""#),
        "{}",
        text(&approved.stdout)
    );
}

/// An MCP client that disconnects mid-call: `serve` drops the call, and the fence kills the
/// command and what it left behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_client_that_disconnects_mid_call_leaves_no_process() {
    use hermes_tools::mcp::server::ToolServer;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (dir, registry, ctx) = fixture();
    let server = ToolServer::new(registry).context(ctx);
    let (client, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    let serving = tokio::spawn(server.serve_connection(server_read, server_write));
    let (client_read, mut client_write) = tokio::io::split(client);
    let call = serde_json::json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "terminal", "arguments": {
            "command": "setsid sleep 90 & echo $! > child.pid; echo $$ > shell.pid; sleep 30; touch late",
            "timeout": 60,
        }},
    });
    let lines = format!(
        "{}\n{}\n{call}\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    client_write.write_all(lines.as_bytes()).await.unwrap();
    let mut replies = BufReader::new(client_read).lines();
    let initialized = replies.next_line().await.unwrap().unwrap();
    assert!(initialized.contains("\"id\":1"), "{initialized}");
    // Both pids are written once the command runs.
    let read_pid = |name: &str| {
        std::fs::read_to_string(dir.path().join(name))
            .ok()
            .and_then(|text| text.trim().parse::<i32>().ok())
    };
    let started = Instant::now();
    let (shell, child) = loop {
        if let (Some(shell), Some(child)) = (read_pid("shell.pid"), read_pid("child.pid")) {
            break (shell, child);
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the command never ran"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(exists(shell) && exists(child));
    // The client goes away without an answer.
    drop(client_write);
    drop(replies);
    let ended = tokio::time::timeout(Duration::from_secs(20), serving).await;
    assert!(ended.is_ok(), "the session outlived its client");
    let gone = Instant::now();
    while (exists(shell) || exists(child)) && gone.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        !exists(shell) && !exists(child),
        "still running after the disconnect: {} / {}",
        describe(shell),
        describe(child)
    );
    assert!(!dir.path().join("late").exists());
}
