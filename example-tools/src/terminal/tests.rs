use std::ffi::OsString;
use std::sync::Arc;

use hermes_tools::hooks::ApprovalRequest;
use hermes_tools::{ToolContext, ToolRegistry, config::Config};
use serde_json::json;
use tempfile::TempDir;

use super::env::{EnvFilter, looks_secret};
use super::output::{HEAD_BYTES, HEAD_CHARS, TAIL_BYTES, TAIL_CHARS, truncate_middle};
use super::*;

fn workspace() -> (TempDir, Workspace) {
    let dir = TempDir::new().unwrap();
    let workspace = Workspace::new(dir.path());
    (dir, workspace)
}

/// Runs the plain function, outside any registry (the default config).
async fn run_plain(
    command: &str,
    timeout: u64,
    ws: &Workspace,
) -> Result<CommandOutput, TerminalError> {
    terminal(command.into(), timeout, ws, &ToolContext::new()).await
}

/// A registry of everything linked, configured with `config` (TOML).
fn registry(config: &str) -> ToolRegistry {
    let registry = ToolRegistry::linked();
    registry.set_config(Config::from_toml_str(config).unwrap());
    registry
}

/// What an operator of a disposable container writes: the shell runs without asking.
const NO_APPROVAL: &str = "[tools.terminal]\napproval = false\n";

#[tokio::test]
async fn output_and_exit_code() {
    let (_dir, ws) = workspace();
    let result = run_plain("echo out; echo err >&2; echo again; exit 3", 10, &ws)
        .await
        .unwrap();
    assert_eq!(
        result,
        CommandOutput {
            output: "out\nerr\nagain".into(),
            exit_code: 3,
            error: None
        }
    );
}

#[tokio::test]
async fn runs_in_the_workspace_root() {
    let (dir, ws) = workspace();
    std::fs::write(dir.path().join("marker.txt"), "here").unwrap();
    let result = run_plain("pwd; cat marker.txt", 10, &ws).await.unwrap();
    assert_eq!(result.output, format!("{}\nhere", ws.root().display()));
    assert_eq!(result.exit_code, 0);
}

#[tokio::test]
async fn timeout_kills_the_command_and_its_children() {
    let (dir, ws) = workspace();
    let started = std::time::Instant::now();
    // The second command would only run if the group survived the kill.
    let err = run_plain("echo started; sleep 30; touch survived", 1, &ws)
        .await
        .unwrap_err();
    let elapsed = started.elapsed();
    // The timeout is 1 s, the command 30 s: a wide bound between them.
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
    assert!(matches!(&err, TerminalError::TimedOut { seconds: 1, output } if output == "started"));
    assert!(
        err.to_string()
            .starts_with("Command timed out after 1s and was killed.")
    );
    assert!(
        err.to_string()
            .ends_with("\nLast output before the timeout:\nstarted")
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!dir.path().join("survived").exists());
}

#[tokio::test]
async fn signals_and_background_children() {
    let (dir, ws) = workspace();
    let ctx = ToolContext::new().with_extension(Workspace::new(dir.path()));
    let kill = r#"{"command": "kill -s TERM $$"}"#;
    let unsandboxed = registry(&format!("{NO_APPROVAL}sandbox = \"off\"\n"))
        .call("terminal", kill, &ctx)
        .await;
    assert_eq!(unsandboxed.to_value()["exit_code"], -15, "{unsandboxed}");
    // Sandboxed, bubblewrap passes the status on as a shell does: 128 + the signal.
    if sandbox::Settings::from_config(&Config::default())
        .unwrap()
        .plan()
        .is_ok_and(|plan| matches!(plan, sandbox::Plan::Sandboxed(_)))
    {
        let sandboxed = run_plain("kill -s TERM $$", 10, &ws).await.unwrap();
        assert_eq!(sandboxed.exit_code, 128 + 15);
    }
    // A child left running in the background neither holds the answer back nor outlives it.
    let started = std::time::Instant::now();
    let background = run_plain("(sleep 4; touch survived) & echo done", 10, &ws)
        .await
        .unwrap();
    assert_eq!(background.output, "done");
    // The answer takes milliseconds; waiting for the child would take 4 s.
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    tokio::time::sleep(Duration::from_millis(4500)).await;
    assert!(!dir.path().join("survived").exists());
}

#[tokio::test]
async fn output_written_before_the_shell_exits_is_kept() {
    let (_dir, ws) = workspace();
    // The background job writes, then the shell exits: what reached the pipe is read after the
    // kill, nothing is lost to it.
    let result = run_plain("(echo from-background) & wait; echo last", 10, &ws)
        .await
        .unwrap();
    assert_eq!(result.output, "from-background\nlast");
}

#[tokio::test]
async fn timeout_bounds() {
    let (_dir, ws) = workspace();
    let err = run_plain("true", 601, &ws).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Foreground timeout 601s exceeds the maximum of 600s. Split the work into shorter commands."
    );
    assert_eq!(run_plain("echo ok", 0, &ws).await.unwrap().output, "ok");
}

#[tokio::test]
async fn long_output_keeps_head_and_tail() {
    let (_dir, ws) = workspace();
    // 70,000 characters: 'a' * 30,000 then 'b' * 40,000.
    let command = "head -c 30000 /dev/zero | tr '\\0' a; head -c 40000 /dev/zero | tr '\\0' b";
    let result = run_plain(command, 30, &ws).await.unwrap();
    let expected = format!(
        "{}\n\n... [OUTPUT TRUNCATED - 20000 chars omitted out of 70000 total] ...\n\n{}",
        "a".repeat(20_000),
        "b".repeat(30_000)
    );
    assert_eq!(result.output, expected);
}

#[test]
fn buffer_bounds_memory_and_cuts_like_hermes() {
    let mut buffer = OutputBuffer::default();
    for _ in 0..100 {
        buffer.push("é".repeat(5_000).as_bytes());
    }
    buffer.push(b"END");
    assert!(buffer.head.len() + buffer.tail.len() <= HEAD_BYTES + TAIL_BYTES);
    let text = buffer.into_text();
    let total = 500_003;
    let expected = format!(
        "{}\n\n... [OUTPUT TRUNCATED - {} chars omitted out of {total} total] ...\n\n{}END",
        "é".repeat(HEAD_CHARS),
        total - MAX_OUTPUT_CHARS,
        "é".repeat(TAIL_CHARS - 3)
    );
    assert_eq!(text, expected);
    assert_eq!(truncate_middle("short"), "short");
    let exact = "x".repeat(MAX_OUTPUT_CHARS);
    assert_eq!(truncate_middle(&exact), exact);
}

#[test]
fn finishing_strips_ansi_trims_and_redacts_unless_told_not_to() {
    let raw = "  \x1b[31mred\x1b[0m \x1b]0;title\x07key sk-abcdefghijklmnopqrstuvwxyz\n";
    assert_eq!(finish_output(raw, true), "red key sk-abc...wxyz");
    assert_eq!(
        finish_output(raw, false),
        "red key sk-abcdefghijklmnopqrstuvwxyz"
    );
}

fn vars(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
    pairs
        .iter()
        .map(|(name, value)| (OsString::from(name), OsString::from(value)))
        .collect()
}

fn names(env: &[(OsString, OsString)]) -> Vec<&str> {
    env.iter().map(|(name, _)| name.to_str().unwrap()).collect()
}

#[test]
fn the_environment_keeps_what_a_shell_needs_and_drops_credentials() {
    let filter = EnvFilter::from_config(&Config::default()).unwrap();
    let agent = vars(&[
        ("PATH", "/usr/bin"),
        ("HOME", "/home/agent"),
        ("LANG", "C.UTF-8"),
        ("LC_ALL", "C"),
        ("OPENAI_API_KEY", "sk-abcdefghijklmnopqrstuvwxyz"),
        ("GITHUB_TOKEN", "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"),
        ("AWS_SECRET_ACCESS_KEY", "x"),
        ("CARGO_HOME", "/cargo"),
        ("BASH_FUNC_f%%", "() {  echo hi\n}"),
    ]);
    assert_eq!(
        names(&filter.apply(agent)),
        ["PATH", "HOME", "LANG", "LC_ALL"]
    );
}

#[test]
fn the_allow_list_adds_names_and_prefixes_but_a_prefix_never_passes_a_credential() {
    let config = Config::from_toml_str(
        "[tools.terminal]\nenv_allow = [\"CARGO_HOME\", \"RUST*\", \"DEPLOY_TOKEN\", \"*\"]\n",
    )
    .unwrap();
    let filter = EnvFilter::from_config(&config).unwrap();
    let agent = vars(&[
        ("CARGO_HOME", "/cargo"),
        ("RUSTUP_HOME", "/rustup"),
        ("RUST_API_KEY", "k"),
        ("DEPLOY_TOKEN", "named exactly, so passed"),
        ("EDITOR", "vi"),
        ("SSH_AUTH_SOCK", "/run/agent.sock"),
        ("DB_PASSWORD", "hunter2"),
        ("X", "() { shell function }"),
    ]);
    assert_eq!(
        names(&filter.apply(agent)),
        ["CARGO_HOME", "RUSTUP_HOME", "DEPLOY_TOKEN", "EDITOR"]
    );
}

#[test]
fn a_malformed_allow_list_is_an_error_saying_what_to_write() {
    let error = |toml: &str| {
        let config = Config::from_toml_str(&format!("[tools.terminal]\n{toml}\n")).unwrap();
        EnvFilter::from_config(&config).unwrap_err()
    };
    assert_eq!(
        error("env_allow = \"PATH\""),
        "`[tools.terminal] env_allow` must be a list of variable names such as \
         [\"CARGO_HOME\", \"RUST_*\"], not a string"
    );
    assert_eq!(
        error("env_allow = [\"PATH\", 3]"),
        "`[tools.terminal] env_allow` must hold strings (variable names such as \
         \"CARGO_HOME\" or prefixes such as \"RUST_*\"), not a integer"
    );
    for bad in ["", "MY VAR", "A*B", "1ABC", "**", "FOO-BAR"] {
        let message = error(&format!("env_allow = [{bad:?}]"));
        assert!(
            message.starts_with(&format!(
                "`[tools.terminal] env_allow` entry {bad:?} is not"
            )),
            "{message}"
        );
    }
    // The defaults themselves are well formed.
    assert!(EnvFilter::from_config(&Config::default()).is_ok());
}

#[test]
fn credential_names_are_recognised_by_their_parts() {
    for secret in [
        "OPENAI_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "GH_TOKEN",
        "STRIPE_APIKEY",
        "DB_PASSWORD",
        "PGPASSWD",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "SSH_AUTH_SOCK",
        "NPM_AUTH",
        "SMTP_PASS",
        "private_key_path",
        "SESSION_COOKIE",
    ] {
        assert!(looks_secret(secret), "{secret}");
    }
    for plain in [
        "PATH",
        "HOME",
        "RUSTUP_HOME",
        "GIT_AUTHOR_NAME",
        "PWD",
        "KEYBOARD_LAYOUT",
    ] {
        assert!(!looks_secret(plain), "{plain}");
    }
}

#[tokio::test]
async fn a_malformed_allow_list_is_the_answer_and_nothing_runs() {
    let (dir, ws) = workspace();
    let registry = registry(&format!("{NO_APPROVAL}env_allow = \"PATH\"\n"));
    let ctx = ToolContext::new().with_extension(ws);
    let answer = registry
        .call("terminal", r#"{"command": "touch ran"}"#, &ctx)
        .await;
    assert!(answer.is_error());
    let text = answer.to_value()["error"].as_str().unwrap().to_owned();
    assert!(
        text.starts_with(
            "[TOOL_ERROR] The terminal is misconfigured: `[tools.terminal] env_allow` must be a list"
        ),
        "{text}"
    );
    assert!(!dir.path().join("ran").exists());
}

#[test]
fn the_shell_needs_approval_unless_the_operator_lifts_it() {
    let (dir, ws) = workspace();
    let ctx = ToolContext::new().with_extension(ws);
    let args = r#"{"command": "touch ran; echo ran"}"#;

    // Declared so, and no gate: refused, and the command did not run.
    assert!(
        ToolRegistry::global()
            .get("terminal")
            .unwrap()
            .needs_approval()
    );
    let refused = registry("").call_blocking("terminal", args, &ctx);
    assert!(refused.is_error());
    let message = refused.to_value()["error"].as_str().unwrap().to_owned();
    assert!(message.contains("terminal needs approval"), "{message}");
    assert!(!dir.path().join("ran").exists());

    // A gate that says no: refused; one that says yes: runs, and sees the command.
    let gated = registry("");
    gated.set_approval_gate(Some(Arc::new(|_: &ApprovalRequest<'_>| false)));
    assert!(gated.call_blocking("terminal", args, &ctx).is_error());
    assert!(!dir.path().join("ran").exists());
    gated.set_approval_gate(Some(Arc::new(|request: &ApprovalRequest<'_>| {
        request.tool == "terminal" && request.args["command"] == "touch ran; echo ran"
    })));
    assert_eq!(
        gated.call_blocking("terminal", args, &ctx).to_value()["output"],
        "ran"
    );

    // Lifted by config: runs with no gate at all.
    std::fs::remove_file(dir.path().join("ran")).unwrap();
    let lifted = registry(NO_APPROVAL).call_blocking("terminal", args, &ctx);
    assert_eq!(lifted.to_value()["output"], "ran");
    assert!(dir.path().join("ran").exists());
}

#[test]
fn dispatch_from_sync_code() {
    let (_dir, ws) = workspace();
    let ctx = ToolContext::new().with_extension(ws);
    let registry = registry(NO_APPROVAL);
    let answer = registry.call_blocking("terminal", r#"{"command":"printf hi; exit 2"}"#, &ctx);
    assert_eq!(
        answer.to_value(),
        json!({"output": "hi", "exit_code": 2, "error": null})
    );
    let timed_out =
        registry.call_blocking("terminal", r#"{"command":"sleep 5","timeout":1}"#, &ctx);
    assert!(timed_out.is_error());
    assert_eq!(
        timed_out.to_value()["error"],
        "[TOOL_ERROR] Command timed out after 1s and was killed. Give it a larger timeout (at \
         most 600), or make it finish sooner (for example, limit its output or run fewer \
         things at once)."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_call_and_missing_workspace() {
    let registry = registry(NO_APPROVAL);
    let missing = registry
        .call("terminal", r#"{"command":"echo hi"}"#, &ToolContext::new())
        .await;
    assert_eq!(
        missing.to_value()["error"],
        "[TOOL_ERROR] Tool \"terminal\" cannot run here: its parameter `workspace` needs a \
         `example_tools::workspace::Workspace` that this agent does not provide. Do not call \
         it again in this session."
    );
    let (_dir, ws) = workspace();
    let ctx = ToolContext::new().with_extension(ws);
    let answer = registry
        .call("terminal", r#"{"command":"echo hi"}"#, &ctx)
        .await;
    assert_eq!(
        answer.to_value(),
        json!({"output": "hi", "exit_code": 0, "error": null})
    );
}

#[tokio::test]
async fn own_redaction_follows_the_config() {
    let (_dir, ws) = workspace();
    let ctx = ToolContext::new().with_extension(ws);
    let command = r#"{"command": "echo sk-abcdefghijklmnopqrstuvwxyz"}"#;
    let masked = registry(NO_APPROVAL).call("terminal", command, &ctx).await;
    assert_eq!(masked.to_value()["output"], "sk-abc...wxyz");
    let raw = registry(&format!("{NO_APPROVAL}raw_output = true\n"))
        .call("terminal", command, &ctx)
        .await;
    assert_eq!(raw.to_value()["output"], "sk-abcdefghijklmnopqrstuvwxyz");
}

#[test]
fn declared_as_hermes_declares_it() {
    assert!(shell_available());
    let tool = ToolRegistry::global().get("terminal").unwrap();
    assert_eq!((tool.toolset(), tool.emoji()), ("terminal", "💻"));
    assert!(tool.is_async());
    assert!(tool.check().is_some_and(|check| check()));
    assert!(tool.needs_approval());
    assert_eq!(tool.timeout_secs(), Some(630));
    let props = &tool.parameters()["properties"];
    assert_eq!(props["timeout"]["default"], 180);
    assert_eq!(props["timeout"]["maximum"], 600);
    let description = tool.description();
    assert!(description.contains("API keys are not"), "{description}");
    assert!(description.contains("background jobs end with the call"));
}
