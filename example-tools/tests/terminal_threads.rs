//! A terminal call costs no thread: 20 calls that each leave a child in the background (which
//! used to hold a reader thread until the child closed its end of the pipe) leave the process
//! with as many threads as it had. Alone in its test binary, so no other test's threads count.

#![cfg(target_os = "linux")]

use hermes_tools::{ToolContext, ToolRegistry, config::Config};
use tempfile::TempDir;

use example_tools::Workspace;

/// The `Threads:` line of `/proc/self/status`.
fn threads() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("Threads:"))
        .and_then(|count| count.trim().parse().ok())
        .expect("a Threads line")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_children_cost_no_thread() {
    let dir = TempDir::new().unwrap();
    let registry = ToolRegistry::linked();
    registry.set_config(Config::from_toml_str("[tools.terminal]\napproval = false\n").unwrap());
    let ctx = ToolContext::new().with_extension(Workspace::new(dir.path()));
    let command = r#"{"command": "sleep 90 & setsid sleep 90 & echo started"}"#;
    // The first call starts what every later one shares (the reactor's process machinery).
    let first = registry.call("terminal", command, &ctx).await;
    assert_eq!(first.to_value()["output"], "started", "{first}");
    let before = threads();
    for _ in 0..20 {
        let answer = registry.call("terminal", command, &ctx).await;
        assert_eq!(answer.to_value()["output"], "started", "{answer}");
    }
    assert_eq!(threads(), before);
}
