//! A scripted MCP server for the client tests (`fake_server.py`, run by any Python 3), and the
//! configs the tests build, and the waits they share, through `#[path]`.

#![allow(dead_code, reason = "each test file uses its part")]

use std::path::PathBuf;

use hermes_tools::config::{Config, McpServerConfig, McpTransport};

/// The script (standard library only).
const FAKE_SERVER: &str = include_str!("fake_server.py");

/// Any python 3 will run the scripted server (the standard library is all it needs).
pub fn any_python() -> String {
    std::env::var("HERMES_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// A stdio server with generous timeouts (the machine may be loaded).
pub fn server(command: impl Into<String>, args: &[&str]) -> McpServerConfig {
    let mut server = McpServerConfig::stdio(command, args.iter().copied());
    server.connect_timeout_secs = 60;
    server.call_timeout_secs = 30;
    server
}

/// Sets `key` in the environment of a stdio server.
pub fn set_env(server: &mut McpServerConfig, key: &str, value: &str) {
    let McpTransport::Stdio { env, .. } = &mut server.transport else {
        panic!("only a stdio server has an environment")
    };
    env.insert(key.to_owned(), value.to_owned());
}

/// A config of `servers`, by name.
pub fn config(servers: impl IntoIterator<Item = (&'static str, McpServerConfig)>) -> Config {
    Config {
        mcp_servers: servers
            .into_iter()
            .map(|(name, server)| (name.to_owned(), server))
            .collect(),
        ..Config::default()
    }
}

/// The scripted server of `FAKE_SERVER`, logging to `dir/log`.
pub struct Fake {
    dir: tempfile::TempDir,
}

impl Fake {
    /// The script, written to a fresh directory.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("fake_server.py"), FAKE_SERVER).unwrap();
        Self { dir }
    }

    /// A server running the script, logging to [`Fake::log_path`].
    pub fn config(&self) -> McpServerConfig {
        let script = self.dir.path().join("fake_server.py");
        let mut config = server(any_python(), &[script.to_str().unwrap()]);
        set_env(
            &mut config,
            "FAKE_LOG",
            &self.log_path().display().to_string(),
        );
        config
    }

    /// Where the script logs.
    pub fn log_path(&self) -> PathBuf {
        self.dir.path().join("log")
    }

    /// The lines the server logged: `start`, `call <tool>`, `cancelled` (a request was),
    /// `stdin closed`.
    pub fn log(&self) -> Vec<String> {
        std::fs::read_to_string(self.log_path())
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// How many times the script logged `line`.
    pub fn count(&self, line: &str) -> usize {
        self.log().iter().filter(|l| *l == line).count()
    }
}

/// Waits (30 s at most, polling every 20 ms) until `done` holds, failing with `what`.
pub async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting until {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// The tools of a running server; panics, saying its state, when it is not running.
pub fn tools_of(status: &hermes_tools::mcp::client::ServerStatus) -> Vec<String> {
    match &status.state {
        hermes_tools::mcp::client::ServerState::Running { tools } => tools.clone(),
        other => panic!("server {} is not running: {other}", status.name),
    }
}
