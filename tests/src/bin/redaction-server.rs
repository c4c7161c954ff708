//! The CLI over every tool `example_tools` declares and a tool, a prompt and a resource that
//! give back what they are handed, for `tests/tests/redaction_serve.rs`: each credential of the
//! catalogue is driven through every position a client reads (a result, an error, terminal
//! output, a file read, a prompt, a resource, an unknown tool's name, an unknown method) over
//! a real `serve` and through `call`. With `REDACTION_SERVER_WORKSPACE=DIR` the file tools and
//! `terminal` work in DIR.

use std::process::ExitCode;

use example_tools::Workspace;
use hermes_tools::{ToolContext, prompt, resource, tool};

#[path = "../../../hermes-tools/src/secrets/tests/catalogue.rs"]
mod catalogue;

/// Fail with the text given: the credential reaches the client inside an error.
#[tool(toolset = "redaction-test")]
fn fail_with(
    /// The error message.
    text: String,
) -> Result<String, String> {
    Err(text)
}

/// Answer the text given: the credential reaches the client inside a result.
#[tool(toolset = "redaction-test")]
fn echo_text(
    /// The text to answer.
    text: String,
) -> String {
    text
}

/// A prompt saying the text given.
///
/// # Arguments
/// * `text` - What the prompt says
#[prompt]
fn echo_prompt(text: String) -> String {
    text
}

/// Catalogue row `row`'s sample text, as a resource.
#[resource(uri = "redaction://sample/{row}", mime_type = "text/plain")]
fn sample(row: String) -> String {
    row.parse::<usize>()
        .ok()
        .and_then(|row| catalogue::CATALOGUE.get(row))
        .map_or_else(
            || format!("no row {row}"),
            |(_, sample, _)| (*sample).to_owned(),
        )
}

fn main() -> ExitCode {
    let cli = hermes_tools::cli::Cli::new();
    match std::env::var_os("REDACTION_SERVER_WORKSPACE") {
        Some(dir) => cli
            .context(ToolContext::new().with_extension(Workspace::new(dir)))
            .run(),
        None => cli.run(),
    }
}
