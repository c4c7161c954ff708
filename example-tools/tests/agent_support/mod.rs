//! What the agent's tests share: canned chat completions servers on loopback, the real
//! `example-tools agent` binary, and llama-cpp-python's server with the offline model.

// Each test binary uses only some of these.
#![allow(dead_code)]

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{drain, wait};

/// What the model-free tests put in the workspace.
pub const NOTES: &str = "The launch code is 4217.\nBring snacks.\n";

/// A request the canned server received.
#[derive(Debug, Clone)]
pub struct Received {
    /// The request line and headers, as sent.
    pub head: String,
    /// The body, parsed.
    pub body: Value,
}

/// A chat completions server on loopback that answers each request with the next canned
/// reply (the last one over and over) and records what it received.
pub struct Canned {
    pub base_url: String,
    pub received: Arc<Mutex<Vec<Received>>>,
}

impl Canned {
    pub fn start(replies: Vec<(u16, String)>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        // The thread lives until the test process ends: blocked in `accept`, it costs nothing.
        std::thread::spawn(move || {
            for (index, stream) in listener.incoming().enumerate() {
                let Ok(stream) = stream else { continue };
                let (status, body) = &replies[index.min(replies.len() - 1)];
                if let Some(request) = serve_one(stream, *status, body) {
                    log.lock().unwrap().push(request);
                }
            }
        });
        Self { base_url, received }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// Reads one request (`Content-Length` framed) and answers `status` with `body`.
pub fn serve_one(stream: TcpStream, status: u16, body: &str) -> Option<Received> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut request = vec![0; length];
    reader.read_exact(&mut request).ok()?;
    let reason = match status {
        200 => "OK",
        401 => "Unauthorized",
        404 => "Not Found",
        _ => "Error",
    };
    let content_type = if body.starts_with('<') {
        "text/html"
    } else {
        "application/json"
    };
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    Some(Received {
        head,
        body: serde_json::from_slice(&request).unwrap_or(Value::Null),
    })
}

/// A chat completion whose assistant message is `message`.
pub fn completion(message: Value) -> (u16, String) {
    let finish = if message.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    let reply = json!({
        "id": "chatcmpl-canned",
        "object": "chat.completion",
        "created": 0,
        "model": "canned-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    });
    (200, reply.to_string())
}

/// A reply calling `name` with `arguments` (the JSON text, as OpenAI sends it).
pub fn tool_call(id: &str, name: &str, arguments: &str) -> (u16, String) {
    completion(json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [{
            "id": id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }],
    }))
}

/// A reply calling `read_file` with `arguments`.
pub fn read_file_call(id: &str, arguments: &str) -> (u16, String) {
    tool_call(id, "read_file", arguments)
}

pub fn final_answer(text: &str) -> (u16, String) {
    completion(json!({"role": "assistant", "content": text}))
}

/// What a run of the binary left.
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `example-tools agent ARGS` in `dir`, with `env` and none of the caller's endpoint
/// settings; killed past `limit`.
pub fn agent(dir: &Path, args: &[&str], env: &[(&str, &str)], limit: Duration) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_example-tools"));
    command.arg("agent").args(args).current_dir(dir);
    for name in [
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "HERMES_AGENT_MODEL",
        "HERMES_TOOLS_CONFIG",
    ] {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example-tools binary runs");
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = wait(&mut child, limit);
    // The pipes close when the child ends (or is killed), so the readers finish either way.
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    let Some(status) = status else {
        panic!("example-tools agent did not finish within {limit:?}\n{stdout}\n{stderr}");
    };
    Run {
        status,
        stdout,
        stderr,
    }
}

/// A workspace holding `notes.txt`.
pub fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), NOTES).unwrap();
    dir
}

pub const QUICK: Duration = Duration::from_secs(60);

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub const INSTALL: &str = "run `bash .ci/test`: it installs .ci/agent-requirements.txt into its \
                       virtualenv, assembles the model under target/models and exports \
                       HERMES_PYTHON and HERMES_AGENT_MODEL_FILE";

/// llama-cpp-python's server, killed (and reaped) when dropped, whatever the test did.
pub struct ModelServer {
    pub child: Child,
    pub log: PathBuf,
    pub base_url: String,
}

impl ModelServer {
    /// Starts the server on a free port with the model file and waits until it answers.
    pub fn start(python: &Path, model: &Path, log_dir: &Path) -> Self {
        let port = free_port();
        let log = log_dir.join("llama-server.log");
        let output = File::create(&log).unwrap();
        // The server with its `role: tool` bug worked around (see the script's docs).
        let launcher = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/llama_server.py");
        let child = Command::new(python)
            .arg(launcher)
            .arg("--model")
            .arg(model)
            .args([
                "--chat_format",
                "chatml-function-calling-tool-results",
                "--model_alias",
                "gemma-3-270m",
                "--n_ctx",
                "8192",
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(output.try_clone().unwrap())
            .stderr(output)
            .spawn()
            .unwrap_or_else(|err| panic!("cannot run {}: {err}; {INSTALL}", python.display()));
        let mut server = Self {
            child,
            log,
            base_url: format!("http://127.0.0.1:{port}/v1"),
        };
        server.wait_ready(port, Duration::from_secs(180));
        server
    }

    pub fn wait_ready(&mut self, port: u16, limit: Duration) {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "the llama-cpp-python server exited ({status}) before answering: {}\n{INSTALL}",
                    self.log_tail()
                );
            }
            if answers_models(port) {
                return;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        panic!(
            "the llama-cpp-python server did not answer within {limit:?}: {}",
            self.log_tail()
        );
    }

    pub fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// What a failed assertion about `run` against this server shows: the agent's output and
    /// the end of the server's log.
    pub fn report(&self, run: &Run) -> String {
        format!(
            "stdout:\n{}\nstderr:\n{}\nserver:\n{}",
            run.stdout,
            run.stderr,
            self.log_tail()
        )
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `GET /v1/models` on `port` answers 200.
pub fn answers_models(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let request = "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut status = [0; 12];
    stream.read_exact(&mut status).is_ok() && status.ends_with(b"200")
}

/// A path from the environment that must exist, or a failure saying how to get it.
pub fn installed(variable: &str) -> PathBuf {
    let path = std::env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("{variable} is not set: {INSTALL}"));
    assert!(
        path.exists(),
        "{variable}={} does not exist: {INSTALL}",
        path.display()
    );
    path
}
