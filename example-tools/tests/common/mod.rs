//! What the CLI tests share: the real `example-tools` binary, run from the workspace root with
//! no config but the one a test gives.

// Each test binary uses only some of these.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// `example-tools ARGS`, ready to run (or to get more environment first).
pub fn cli_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_example-tools"));
    command
        .args(args)
        .env_remove("HERMES_TOOLS_CONFIG")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    command
}

/// Runs `example-tools ARGS`.
pub fn cli(args: &[&str]) -> Output {
    cli_command(args)
        .output()
        .expect("the example-tools binary runs")
}

/// Runs `example-tools --config CONFIG ARGS`.
pub fn cli_with_config(config: &Path, args: &[&str]) -> Output {
    let config = config.to_str().expect("a UTF-8 config path");
    let mut all = vec!["--config", config];
    all.extend_from_slice(args);
    cli(&all)
}

/// Standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8 output")
}

/// Waits for `child` at most `limit`, killing it past that.
pub fn wait(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Reads `stream` to its end on another thread, so that a full pipe never blocks the child.
pub fn drain(stream: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut stream) = stream {
            let _ = stream.read_to_string(&mut text);
        }
        text
    })
}

/// Runs `command` with `input` written to its stdin, on a thread of its own (so that a child
/// answering before it reads everything cannot block the test), and its output drained.
pub fn run_fed(mut command: Command, input: Vec<u8>) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example-tools binary runs");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || {
        // A child that stops reading early closes the pipe: not this test's failure to report.
        let _ = stdin.write_all(&input);
    });
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = child.wait().expect("the child is waited for");
    writer.join().expect("the writer ends");
    Output {
        status,
        stdout: stdout.join().expect("stdout is read").into_bytes(),
        stderr: stderr.join().expect("stderr is read").into_bytes(),
    }
}
