//! Nothing secret reaches stderr: a tool that panics with a credential in its message and logs
//! one, called through the CLI in a child process (this test binary, run again), leaves only
//! masks behind; the same panic without the CLI's hook shows what would have leaked.

use std::process::{Command, Output};

use hermes_tools::cli::Cli;
use hermes_tools::tool;

const SECRET: &str = "sk-proj-Zx81QmW0pLr5TvYb3NcK7sDfGh2JkL4n";
/// What the secret looks like masked (first 6 and last 4 characters).
const MASKED: &str = "sk-pro...kL4n";
/// Selects what the child does; unset in the parent.
const CHILD: &str = "HERMES_TOOLS_LOGS_CHILD";

/// Logs its key as a careless tool might, then panics with it in the message.
#[tool(toolset = "leaks")]
fn leaky(
    /// The credential to misuse.
    key: String,
) -> String {
    tracing::warn!("retrying the upstream call with {key}");
    panic!("upstream refused OPENAI_API_KEY={key}");
}

fn child(mode: &str) -> Output {
    let exe = std::env::current_exe().expect("the test binary's path");
    Command::new(exe)
        .args([
            "--exact",
            "child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, mode)
        .env_remove("RUST_LOG")
        .output()
        .expect("the test binary runs again")
}

/// The child's side: not a test of its own (returns at once without the variable).
#[test]
fn child_process() {
    let Ok(mode) = std::env::var(CHILD) else {
        return;
    };
    let args = format!(r#"{{"key": "{SECRET}"}}"#);
    match mode.as_str() {
        "cli" => {
            // The exit status is the parent's to ignore: it reads what was printed.
            let _ = Cli::new().run_from(["hermes", "call", "leaky", &args]);
        }
        "bare" => {
            // What Rust prints for the same panic with its default hook.
            let _ = std::panic::catch_unwind(|| leaky(SECRET.to_owned()));
        }
        other => panic!("unknown child mode {other}"),
    }
}

#[test]
fn a_panicking_tool_leaves_only_masks_in_stdout_and_stderr() {
    let out = child("cli");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let everything = format!("{stdout}\n{stderr}");
    assert!(!everything.contains(&SECRET[8..]), "{everything}");
    // The answer says the tool panicked, masked.
    assert!(
        stdout.contains("panicked"),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    // The panic was reported (by the redacting hook, with its location) ...
    assert!(stderr.contains("panicked at"), "{stderr}");
    assert!(stderr.contains("OPENAI_API_KEY=***"), "{stderr}");
    // ... and the tool's own warning went through the redacting writer.
    assert!(
        stderr.contains("retrying the upstream call with"),
        "{stderr}"
    );
    assert!(stderr.contains(MASKED), "{stderr}");
}

#[test]
fn without_the_hook_the_same_panic_prints_the_secret() {
    let out = child("bare");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(SECRET), "{stderr}");
}
