//! The CLI over every tool this binary links: `list`, `definitions`, `call`.
//!
//! File tools are confined to the current directory; `clarify` asks on the terminal.

use std::process::ExitCode;

use example_tools::{AskUser, Workspace};
use hermes_tools::ToolContext;

fn main() -> ExitCode {
    let root = match std::env::current_dir() {
        Ok(root) => root,
        Err(err) => {
            eprintln!("error: cannot read the current directory: {err}");
            return ExitCode::FAILURE;
        }
    };
    let context = ToolContext::new()
        .with_session_id("cli")
        .with_extension(Workspace::new(root))
        .with_extension(AskUser::terminal());
    hermes_tools::cli::Cli::new()
        .context(context)
        .expect_toolsets(["clarify", "files", "terminal", "todo"])
        .run()
}
