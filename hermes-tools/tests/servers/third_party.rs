//! Third-party MCP servers for the client tests (shared by `hermes-tools` and `example-tools`
//! tests through `#[path]`): server-everything's stdio entry point, and remote servers on
//! loopback, server-everything in its Streamable HTTP mode, the Python SDK's server of
//! `bearer_server.py` and FastMCP's of `fastmcp_server.py` and `fastmcp_tasks_server.py`, each a
//! child process killed when dropped.

#![allow(dead_code, reason = "each test crate uses its part")]

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const INSTALL: &str = "run `bash .ci/test` (it installs .ci/requirements.txt and .ci/package.json and exports HERMES_PYTHON and HERMES_NODE_MODULES)";

/// A server process on a loopback port, killed when dropped.
pub struct Remote {
    child: Child,
    port: u16,
}

impl Remote {
    /// `command`, which listens on `port`, once the port accepts connections.
    fn start(mut command: Command, port: u16) -> Self {
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {command:?}: {err}; {INSTALL}"));
        let mut remote = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
            if let Ok(Some(status)) = remote.child.try_wait() {
                panic!("{command:?} exited with {status} before listening; {INSTALL}");
            }
            assert!(
                Instant::now() < deadline,
                "{command:?} never listened on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        remote
    }

    /// server-everything in its Streamable HTTP mode.
    pub fn everything() -> Self {
        let port = free_port();
        let mut command = Command::new("node");
        command
            .arg(everything_entry())
            .arg("streamableHttp")
            .env("PORT", port.to_string());
        Self::start(command, port)
    }

    /// The Python SDK's server, accepting only `token`.
    pub fn bearer(token: &str) -> Self {
        Self::bearer_on(token, free_port())
    }

    /// The Python SDK's server on `port`, accepting only `token`.
    pub fn bearer_on(token: &str, port: u16) -> Self {
        Self::python_bearer(token, port, &[])
    }

    /// The Python SDK's server over the legacy HTTP+SSE transport, accepting only `token`;
    /// its event stream is [`Remote::sse_url`].
    pub fn bearer_sse(token: &str) -> Self {
        Self::python_bearer(token, free_port(), &["sse"])
    }

    fn python_bearer(token: &str, port: u16, mode: &[&str]) -> Self {
        let python = installed_python();
        // Both crates that use this file sit beside `hermes-tools` in the workspace.
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../hermes-tools/tests/servers/bearer_server.py");
        let mut command = Command::new(python);
        command
            .arg(script)
            .arg(port.to_string())
            .args(mode)
            .env("BEARER_TOKEN", token);
        Self::start(command, port)
    }

    /// FastMCP 4's server of `fastmcp_server.py` over Streamable HTTP (`env`: its
    /// environment beside this one's, `FASTMCP_TTL_MS` say).
    pub fn fastmcp(env: &[(&str, &str)]) -> Self {
        let port = free_port();
        let mut command = Command::new(installed_python());
        command
            .arg(fastmcp_script())
            .args(["http", &port.to_string()])
            .envs(env.iter().copied());
        Self::start(command, port)
    }

    /// FastMCP 4's server of `fastmcp_tasks_server.py` over Streamable HTTP: background tasks
    /// (FastMCP's `fastmcp-tasks` on Docket's in-memory backend).
    pub fn fastmcp_tasks() -> Self {
        let port = free_port();
        let mut command = Command::new(installed_python());
        command
            .arg(server_script("fastmcp_tasks_server.py"))
            .args(["http", &port.to_string()]);
        Self::start(command, port)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its legacy event stream (of a server started by [`Remote::bearer_sse`]).
    pub fn sse_url(&self) -> String {
        format!("http://127.0.0.1:{}/sse", self.port)
    }

    /// Its Streamable HTTP endpoint.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The entry point of `@modelcontextprotocol/server-everything` (`node ENTRY stdio`).
pub fn everything_entry() -> PathBuf {
    let modules = std::env::var_os("HERMES_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("HERMES_NODE_MODULES is not set: {INSTALL}"));
    let entry = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    assert!(entry.is_file(), "{} is missing: {INSTALL}", entry.display());
    entry
}

/// The FastMCP 4 server script of `servers/fastmcp_server.py`.
pub fn fastmcp_script() -> PathBuf {
    server_script("fastmcp_server.py")
}

/// The server script `name` of `servers/`.
fn server_script(name: &str) -> PathBuf {
    // Both crates that use this file sit beside `hermes-tools` in the workspace.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../hermes-tools/tests/servers")
        .join(name)
}

/// `HERMES_PYTHON`, the virtualenv python with the Python packages of `.ci/requirements.txt`.
pub fn installed_python() -> String {
    std::env::var("HERMES_PYTHON").unwrap_or_else(|_| panic!("HERMES_PYTHON is not set: {INSTALL}"))
}

/// A port free a moment ago (the server binds it right after).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("a loopback port");
    listener.local_addr().expect("its address").port()
}
