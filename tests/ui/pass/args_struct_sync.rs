//! A synchronous tool taking its whole argument object with `#[args]`, plus a context value.

use hermes_tools::{ToolContext, tool};
use serde::Deserialize;

/// The arguments of `rename_file`.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct RenameArgs {
    /// The file to rename.
    pub from: String,
    /// Its new name.
    pub to: String,
}

/// The current directory, provided by the agent.
pub struct Cwd(pub String);

/// Rename a file in the current directory.
#[tool(toolset = "files")]
fn rename_file(#[args] args: RenameArgs, cwd: &Cwd) -> Result<String, std::io::Error> {
    Ok(format!("{}/{} -> {}/{}", cwd.0, args.from, cwd.0, args.to))
}

fn main() {
    let decl = &RENAME_FILE_TOOL;
    assert_eq!(decl.name, "rename_file");
    assert_eq!(decl.emoji, "⚡");
    assert_eq!(decl.description, "Rename a file in the current directory.");
    assert!(matches!(decl.handler, hermes_tools::__private::StaticHandler::Sync(_)));
    let schema = (decl.schema)();
    assert_eq!(schema["properties"]["from"]["description"], "The file to rename.");

    let answer = hermes_tools::ToolRegistry::global().call_blocking(
        "rename_file",
        r#"{"from": "a.txt", "to": "b.txt"}"#,
        &ToolContext::new().with_extension(Cwd("/tmp".into())),
    );
    assert_eq!(answer.to_value()["result"], "/tmp/a.txt -> /tmp/b.txt");
}
