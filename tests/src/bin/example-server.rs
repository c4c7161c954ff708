//! The CLI over every tool `example_tools` declares, as its own binary is, for the interop tests
//! that need the agent-loop tools (`todo`): run as
//! `example-server serve --http 127.0.0.1:0 [--agent-loop-tools]`; see
//! `tests/tests/mcp_interop.rs`.

use std::process::ExitCode;

use example_tools as _;

fn main() -> ExitCode {
    hermes_tools::cli::Cli::new().run()
}
