//! The CLI over every tool `example_tools` declares, as its own binary is, for the interop tests
//! that need the agent-loop tools (`todo`): run as
//! `example-server serve --http 127.0.0.1:0 [--agent-loop-tools]`; see
//! `tests/tests/mcp_interop.rs`. With `EXAMPLE_SERVER_WORKSPACE=DIR`, the file tools and
//! `terminal` work in DIR (tests/tests/mcp_tasks.rs); without it they say they cannot run.

use std::process::ExitCode;

use example_tools::Workspace;
use hermes_tools::ToolContext;

fn main() -> ExitCode {
    let cli = hermes_tools::cli::Cli::new();
    match std::env::var_os("EXAMPLE_SERVER_WORKSPACE") {
        Some(dir) => cli
            .context(ToolContext::new().with_extension(Workspace::new(dir)))
            .run(),
        None => cli.run(),
    }
}
