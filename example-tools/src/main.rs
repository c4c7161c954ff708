//! The CLI over every tool this binary links: `list`, `definitions`, `call`, `serve`, and with
//! feature `agent` (a default), `agent`: a tool-calling loop against an OpenAI-compatible
//! endpoint (see the `agent` module).
//!
//! File tools are confined to the current directory; `clarify` asks on the terminal for `call`
//! and `agent`, and through the client's elicitation for `serve` (never on this terminal).

#[cfg(feature = "agent")]
mod agent;

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
        .with_extension(Workspace::new(root));
    // `agent` has its own flags; every other command is the runtime's CLI.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|command| command == "agent")
    {
        #[cfg(feature = "agent")]
        return agent::main(
            std::env::args_os().skip(1),
            context.with_extension(AskUser::terminal()),
        );
        #[cfg(not(feature = "agent"))]
        {
            eprintln!(
                "error: this example-tools was built without its `agent` feature; build it with \
                 `--features agent`"
            );
            return ExitCode::from(2);
        }
    }
    hermes_tools::cli::Cli::new()
        .context(context)
        .operator_extension(AskUser::terminal)
        .expect_toolsets(["clarify", "files", "terminal", "todo"])
        .run()
}
