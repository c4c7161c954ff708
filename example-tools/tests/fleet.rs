//! `example-tools serve --http` as a fleet: three replicas on loopback sharing a real Redis
//! (`--store`) and the `requestState` keys, behind a real HAProxy (round robin, no affinity),
//! driven through HAProxy by the official Python SDK (`tests/interop/fleet_client.py`).
//!
//! Each test starts its own `redis-server` (no persistence, its own directory), replicas and
//! HAProxy (its config written to a temporary directory) on free loopback ports, and stops them
//! when it ends (drop guards), whatever happens. They need `redis-server`, `haproxy` and
//! `HERMES_PYTHON`, which `bash .ci/test` installs and sets.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tempfile::TempDir;

const INSTALL: &str = "run `bash .ci/test`, which installs redis-server, haproxy and the pinned \
                       Python SDK and sets HERMES_PYTHON";

/// The keys every replica seals `requestState` with (`id=secret`), so that any opens another's.
const STATE_KEYS: &str = "fleet=0123456789abcdef0123456789abcdef0123456789abcdef";

/// The longest a scenario may take before it is killed and the test fails.
const SCENARIO_LIMIT: Duration = Duration::from_secs(90);

/// A process killed and reaped when dropped.
struct Guard {
    child: Child,
    what: &'static str,
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port free on loopback now (bound, then freed).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free loopback port")
}

/// Waits until `port` accepts connections, or fails naming `what`.
fn wait_for_port(port: u16, guard: &mut Guard) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = guard.child.try_wait() {
            panic!("{} exited before listening: {status}", guard.what);
        }
        assert!(
            Instant::now() < deadline,
            "{} did not listen on {port} within 20 s",
            guard.what
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn spawn(command: &mut Command, what: &'static str) -> Guard {
    let child = command
        .stdin(Stdio::null())
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start {what} ({err}): {INSTALL}"));
    Guard { child, what }
}

/// `redis-server` on a free loopback port, without persistence, in `dir`.
fn redis(dir: &Path) -> (Guard, u16) {
    let port = free_port();
    let mut guard = spawn(
        Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
            .arg("--dir")
            .arg(dir)
            .stdout(Stdio::null()),
        "redis-server",
    );
    wait_for_port(port, &mut guard);
    (guard, port)
}

/// One `example-tools serve --http` replica named `name`, run in a directory of that name.
struct Replica {
    name: String,
    guard: Guard,
    port: u16,
}

impl Replica {
    fn start(name: &str, dir: &Path, store: &str) -> Self {
        Self::start_with(name, dir, store, &[])
    }

    /// A replica given `flags` besides the fleet's own.
    fn start_with(name: &str, dir: &Path, store: &str, flags: &[&str]) -> Self {
        let root = dir.join(name);
        std::fs::create_dir_all(&root).expect("the replica's directory");
        // The tests' calls run `terminal` (in a throwaway directory): no approval asked; the
        // sandboxed shell may also write the markers of the killed-replica test in `started`.
        let started = dir.join("started");
        std::fs::create_dir_all(&started).expect("the markers' directory");
        let config = dir.join("fleet.toml");
        let toml = format!(
            "[tools.terminal]\napproval = false\nwritable_paths = [{:?}]\n",
            started.to_str().expect("a UTF-8 path")
        );
        std::fs::write(&config, toml).expect("a config");
        let mut child = Command::new(env!("CARGO_BIN_EXE_example-tools"))
            .arg("--config")
            .arg(&config)
            .args(["serve", "--http", "127.0.0.1:0", "--store", store])
            .args(["--replica-id", name])
            .args(flags)
            .env("HERMES_MCP_STATE_KEYS", STATE_KEYS)
            .env_remove("HERMES_TOOLS_CONFIG")
            .current_dir(&root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("example-tools starts");
        let stderr = child.stderr.take().expect("piped");
        let (found, port) = mpsc::channel();
        let tag = name.to_owned();
        // Keeps reading after the address, so that the replica never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("listening on http://127.0.0.1:") {
                    let port = url.trim_end_matches("/mcp").parse::<u16>().ok();
                    let _ = found.send(port);
                } else {
                    eprintln!("{tag}: {line}");
                }
            }
        });
        let guard = Guard {
            child,
            what: "a replica",
        };
        match port.recv_timeout(Duration::from_secs(30)) {
            Ok(Some(port)) => Self {
                name: name.to_owned(),
                guard,
                port,
            },
            _ => panic!("replica {name} did not print `listening on URL` within 30 s"),
        }
    }

    fn pid_arg(&self) -> String {
        format!("{}={}", self.name, self.guard.child.id())
    }
}

/// HAProxy in front of `replicas`: round robin, no affinity; a connection refused is retried
/// on another replica, and a replica failing its health check is taken out.
fn haproxy(dir: &Path, replicas: &[Replica]) -> (Guard, u16) {
    let port = free_port();
    let servers: String = replicas
        .iter()
        .map(|replica| {
            format!(
                "    server {} 127.0.0.1:{} check inter 300ms fall 1 rise 2\n",
                replica.name, replica.port
            )
        })
        .collect();
    let config = format!(
        "global\n    maxconn 256\n\
         defaults\n    mode http\n    timeout connect 1s\n    timeout client 60s\n    \
         timeout server 60s\n    retries 3\n    option redispatch 1\n\
         frontend mcp\n    bind 127.0.0.1:{port}\n    default_backend replicas\n\
         backend replicas\n    balance roundrobin\n{servers}"
    );
    let path = dir.join("haproxy.cfg");
    std::fs::write(&path, config).expect("the HAProxy config");
    let mut guard = spawn(
        Command::new("haproxy")
            .arg("-db")
            .arg("-f")
            .arg(&path)
            .stdout(Stdio::null()),
        "haproxy",
    );
    wait_for_port(port, &mut guard);
    (guard, port)
}

/// Redis, three replicas sharing it, and HAProxy before them; all stopped on drop.
struct Fleet {
    // Dropped in order: the balancer, the replicas, Redis, then the directory.
    _balancer: Guard,
    replicas: Vec<Replica>,
    _redis: Guard,
    dir: TempDir,
    url: String,
    /// HAProxy's port.
    port: u16,
    redis_port: u16,
}

impl Fleet {
    fn start() -> Self {
        Self::start_with(&[])
    }

    /// A fleet whose replicas are all given `flags`.
    fn start_with(flags: &[&str]) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let (redis_guard, redis_port) = redis(dir.path());
        let store = format!("redis://127.0.0.1:{redis_port}/0");
        let replicas: Vec<Replica> = ["r1", "r2", "r3"]
            .iter()
            .map(|name| Replica::start_with(name, dir.path(), &store, flags))
            .collect();
        let (balancer, port) = haproxy(dir.path(), &replicas);
        // The health checks have seen every replica up.
        std::thread::sleep(Duration::from_millis(700));
        Self {
            _balancer: balancer,
            replicas,
            _redis: redis_guard,
            dir,
            url: format!("http://127.0.0.1:{port}/mcp"),
            port,
            redis_port,
        }
    }

    fn pid_args(&self) -> Vec<String> {
        self.replicas.iter().map(Replica::pid_arg).collect()
    }
}

fn python() -> PathBuf {
    let python = std::env::var_os("HERMES_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("HERMES_PYTHON is not set: {INSTALL}"));
    assert!(python.exists(), "HERMES_PYTHON does not exist: {INSTALL}");
    python
}

/// Runs a scenario of `fleet_client.py`, at most [`SCENARIO_LIMIT`]; its output, once it
/// passed.
fn scenario(args: &[&str]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/interop/fleet_client.py");
    let mut child = Command::new(python())
        .arg(script)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the Python client starts");
    let drain = |stream: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut stream) = stream {
                let _ = stream.read_to_string(&mut text);
            }
            text
        })
    };
    let out = drain(child.stdout.take().map(|s| Box::new(s) as _));
    let err = drain(child.stderr.take().map(|s| Box::new(s) as _));
    let deadline = Instant::now() + SCENARIO_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitable") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert!(
        status.is_some_and(|status| status.success()),
        "{args:?} failed ({status:?}):\n{out}\n{err}"
    );
    print!("{out}");
    out
}

#[test]
#[ignore = "needs redis-server, haproxy and the Python SDK that `bash .ci/test` installs"]
fn a_modern_clients_clarify_is_retried_on_another_replica() {
    let fleet = Fleet::start();
    let out = scenario(&["clarify", &fleet.url]);
    assert_eq!(out.matches("ok: clarify round").count(), 3, "{out}");
}

#[test]
#[ignore = "needs redis-server, haproxy and the Python SDK that `bash .ci/test` installs"]
fn a_legacy_session_goes_on_on_other_replicas_after_its_first_is_killed() {
    let fleet = Fleet::start();
    let pids = fleet.pid_args();
    let args: Vec<&str> = ["legacy", fleet.url.as_str()]
        .into_iter()
        .chain(pids.iter().map(String::as_str))
        .collect();
    let out = scenario(&args);
    assert!(out.contains("ok: the session went on on"), "{out}");
    // The client's DELETE at the end, served by whichever replica, ended the session in the
    // store too.
    let keys = redis_command(fleet.redis_port, "KEYS hermes:mcp:session:*");
    assert_eq!(keys, "*0\r\n", "no session left in the store");
}

#[test]
#[ignore = "needs redis-server, haproxy and the Python SDK that `bash .ci/test` installs"]
fn a_replica_killed_mid_flight_fails_its_calls_and_spares_the_others() {
    let fleet = Fleet::start();
    let pids = fleet.pid_args();
    let started = fleet.dir.path().join("started");
    std::fs::create_dir_all(&started).expect("a directory");
    let started = started.to_str().expect("a UTF-8 path").to_owned();
    let args: Vec<&str> = ["killed", fleet.url.as_str(), started.as_str()]
        .into_iter()
        .chain(pids.iter().map(String::as_str))
        .collect();
    let out = scenario(&args);
    assert!(out.contains("ok: later calls served by"), "{out}");
}

#[test]
fn serve_refuses_to_start_when_its_store_does_not_answer() {
    let port = free_port();
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_example-tools"))
        .args(["serve", "--http", "127.0.0.1:0", "--store"])
        .arg(format!("redis://127.0.0.1:{port}/0"))
        .args(["--store-timeout-ms", "500"])
        .env_remove("HERMES_TOOLS_CONFIG")
        .stdin(Stdio::null())
        .output()
        .expect("example-tools runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "cannot reach the shared store at redis://127.0.0.1:{port}/0"
        )) && stderr.contains("is redis-server running"),
        "{stderr}"
    );
    assert!(!stderr.contains("listening on"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(10), "fails fast");
    // The agent-loop tools cannot follow a session across replicas.
    let output = Command::new(env!("CARGO_BIN_EXE_example-tools"))
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--agent-loop-tools",
            "--store",
        ])
        .arg(format!("redis://127.0.0.1:{port}/0"))
        .stdin(Stdio::null())
        .output()
        .expect("example-tools runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}

#[test]
#[ignore = "needs redis-server that `bash .ci/test` installs"]
fn redis_gone_mid_flight_is_an_error_answer_and_held_sessions_go_on() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (mut redis_guard, redis_port) = redis(dir.path());
    let store = format!("redis://127.0.0.1:{redis_port}/0");
    let first = Replica::start("r1", dir.path(), &store);
    let second = Replica::start("r2", dir.path(), &store);
    let third = Replica::start("r3", dir.path(), &store);
    let (status, session) = post(first.port, None, INITIALIZE);
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    let session = session.expect("a session");
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    post(first.port, Some(&session), initialized);
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let (status, body) = post_body(second.port, Some(&session), list);
    assert!(
        status.starts_with("HTTP/1.1 200"),
        "restored on r2: {status} {body}"
    );

    let _ = redis_guard.child.kill();
    let _ = redis_guard.child.wait();
    let started = Instant::now();
    let (status, body) = post_body(third.port, Some(&session), list);
    assert!(status.starts_with("HTTP/1.1 500"), "{status} {body}");
    assert!(
        body.contains("shared store") && body.contains("-32603"),
        "{body}"
    );
    let (status, body) = post_body(first.port, None, INITIALIZE);
    assert!(status.starts_with("HTTP/1.1 503"), "{status} {body}");
    assert!(
        body.contains("could not be served") && body.contains("shared store"),
        "{body}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "answered, not left waiting"
    );
    // The replicas holding the session serve it still.
    for replica in [&first, &second] {
        let (status, body) = post_body(replica.port, Some(&session), list);
        assert!(
            status.starts_with("HTTP/1.1 200") && body.contains("clarify"),
            "{status} {body}"
        );
    }
}

/// A raw `initialize` of the 2025-11-25 era.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// POSTs `body` to the replica on `port` (in `session`): the status line, the session the
/// answer names.
fn post(port: u16, session: Option<&str>, body: &str) -> (String, Option<String>) {
    let (status, head, _) = exchange(port, session, body);
    let session = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_owned())
    });
    (status, session)
}

/// POSTs `body`: the status line and the body.
fn post_body(port: u16, session: Option<&str>, body: &str) -> (String, String) {
    let (status, _, body) = exchange(port, session, body);
    (status, body)
}

fn exchange(port: u16, session: Option<&str>, body: &str) -> (String, String, String) {
    let session = session
        .map(|session| format!("Mcp-Session-Id: {session}\r\n"))
        .unwrap_or_default();
    exchange_with(
        port,
        &format!("MCP-Protocol-Version: 2025-11-25\r\n{session}"),
        body,
    )
}

/// POSTs `body` with the header lines `headers` (each ending in CRLF): the status line, the
/// head and the body, read up to the first JSON-RPC message's end.
fn exchange_with(port: u16, headers: &str, body: &str) -> (String, String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("the endpoint listens");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a timeout");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{headers}\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("sent");
    // Up to the first SSE event's end, or the connection's.
    let mut answer = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
        }
        let text = String::from_utf8_lossy(&answer);
        if let Some((_, rest)) = text.split_once("\r\n\r\n")
            && rest.contains("\"jsonrpc\"")
            && (rest.ends_with("\n\n") || rest.trim_end().ends_with('}'))
        {
            break;
        }
    }
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.lines().next().unwrap_or_default().to_owned();
    (status, head.to_owned(), body.to_owned())
}

/// One inline Redis command, its raw answer.
fn redis_command(port: u16, command: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("Redis listens");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("a timeout");
    stream
        .write_all(format!("{command}\r\n").as_bytes())
        .expect("sent");
    let mut answer = vec![0u8; 64 * 1024];
    let n = stream.read(&mut answer).unwrap_or(0);
    String::from_utf8_lossy(&answer[..n]).into_owned()
}

/// A request of the 2026-07-28 era declaring the tasks extension, sent through HAProxy on
/// `port`: which replica answered (`Hermes-Replica`), and the JSON-RPC answer.
fn modern(port: u16, method: &str, name: Option<&str>, mut params: Value) -> (String, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "fleet-tasks", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let name = name
        .map(|name| format!("Mcp-Name: {name}\r\n"))
        .unwrap_or_default();
    let headers = format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n{name}");
    let (status, head, body) = exchange_with(port, &headers, &body);
    assert!(
        status.starts_with("HTTP/1.1 200"),
        "{method}: {status}\n{head}\n{body}"
    );
    let replica = head
        .lines()
        .find_map(|line| {
            let (header, value) = line.split_once(':')?;
            header
                .eq_ignore_ascii_case("hermes-replica")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no Hermes-Replica header: {head}"));
    // A JSON body, or the first SSE event's data: the first JSON-RPC message either way.
    let start = body
        .find("{\"jsonrpc\"")
        .unwrap_or_else(|| panic!("{method}: no JSON-RPC message in {body}"));
    let message = serde_json::Deserializer::from_str(&body[start..])
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("{method}: an unreadable answer {body}"));
    (replica, message)
}

/// Starts `command` in `terminal` through HAProxy as a task: the replica that runs it, and
/// the task's id.
fn start_task(fleet: &Fleet, command: &str) -> (String, String) {
    let (replica, answer) = modern(
        fleet.port,
        "tools/call",
        Some("terminal"),
        json!({"name": "terminal", "arguments": {"command": command}}),
    );
    let result = &answer["result"];
    assert_eq!(result["resultType"], "task", "{answer}");
    assert_eq!(result["status"], "working", "{answer}");
    let id = result["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task id: {answer}"))
        .to_owned();
    (replica, id)
}

/// Polls task `id` through HAProxy until it is no longer `working` (at most `limit`): each
/// poll's replica and task state.
fn poll_task(fleet: &Fleet, id: &str, limit: Duration) -> Vec<(String, Value)> {
    let started = Instant::now();
    let mut seen = Vec::new();
    loop {
        let (replica, answer) = modern(fleet.port, "tasks/get", Some(id), json!({"taskId": id}));
        let state = answer
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tasks/get of {id} failed: {answer}"));
        let working = state["status"] == "working";
        seen.push((replica, state));
        if !working {
            return seen;
        }
        assert!(
            started.elapsed() < limit,
            "task {id} still working after {limit:?}: {seen:#?}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
#[ignore = "needs redis-server and haproxy that `bash .ci/test` installs"]
fn a_task_started_through_one_replica_is_polled_to_its_result_through_the_others() {
    let fleet = Fleet::start_with(&["--task-after-secs", "1"]);
    let marker = format!("finished-{}", std::process::id());
    // Runs 3 s: a task after 1 s, then polled through whichever replica HAProxy picks.
    let (runner, id) = start_task(&fleet, &format!("sleep 3 && echo {marker}"));
    let seen = poll_task(&fleet, &id, Duration::from_secs(20));
    let (_, last) = seen.last().expect("polled");
    assert_eq!(last["status"], "completed", "{seen:#?}");
    assert_eq!(last["taskId"], id.as_str());
    let output = last["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(output.contains(&marker), "the command's output: {last}");
    assert!(
        seen.iter()
            .filter(|(_, state)| state["status"] == "working")
            .count()
            >= 2,
        "the task was seen working while it ran: {seen:#?}"
    );
    // Round robin, no affinity: polls reached every replica, the others included.
    let pollers: BTreeSet<&str> = seen.iter().map(|(replica, _)| replica.as_str()).collect();
    assert!(
        pollers.iter().any(|poller| *poller != runner) && pollers.len() == 3,
        "started on {runner}, polled through {pollers:?}"
    );
    // The record is in the shared store, under the fleet's prefix.
    let keys = redis_command(fleet.redis_port, &format!("EXISTS hermes:mcp:task:{id}"));
    assert_eq!(keys, ":1\r\n", "the task is kept in Redis until its TTL");
}

#[test]
#[ignore = "needs redis-server and haproxy that `bash .ci/test` installs"]
fn a_task_whose_replica_is_killed_is_reported_failed_after_its_lease() {
    let mut fleet = Fleet::start_with(&["--task-after-secs", "1", "--task-lease-secs", "2"]);
    let (runner, id) = start_task(&fleet, &format!("sleep 60.{}", std::process::id()));
    let (_, state) = modern(fleet.port, "tasks/get", Some(&id), json!({"taskId": id}));
    assert_eq!(state["result"]["status"], "working", "{state}");

    let index = fleet
        .replicas
        .iter()
        .position(|replica| replica.name == runner)
        .unwrap_or_else(|| panic!("{runner} is one of the fleet"));
    let pid = fleet.replicas[index].guard.child.id();
    let _ = fleet.replicas[index].guard.child.kill();
    let _ = fleet.replicas[index].guard.child.wait();
    let killed = Instant::now();

    // Never left pending: failed once the 2 s lease lapsed, by a replica that read it.
    let seen = poll_task(&fleet, &id, Duration::from_secs(15));
    let (reporter, last) = seen.last().expect("polled");
    assert_ne!(*reporter, runner, "the killed replica answers nothing");
    assert_eq!(last["status"], "failed", "{seen:#?}");
    let why = last["statusMessage"].as_str().unwrap_or_default();
    assert!(
        why.contains(&format!("pid-{pid}-")) && why.contains("stopped renewing its lease"),
        "the failure names the dead process and why: {last}"
    );
    assert!(
        killed.elapsed() < Duration::from_secs(10),
        "reported within the lease and a poll: {:?}",
        killed.elapsed()
    );
    // It stays failed, for every replica.
    for _ in 0..3 {
        let (_, again) = modern(fleet.port, "tasks/get", Some(&id), json!({"taskId": id}));
        assert_eq!(again["result"]["status"], "failed", "{again}");
    }
}
