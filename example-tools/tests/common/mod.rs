//! What the CLI tests share: the real `example-tools` binary, run from the workspace root with
//! no config but the one a test gives.

// Each test binary uses only some of these.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Runs `example-tools ARGS`.
pub fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_example-tools"))
        .args(args)
        .env_remove("HERMES_TOOLS_CONFIG")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
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
