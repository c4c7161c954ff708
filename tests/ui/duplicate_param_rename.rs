use hermes_tools::tool;

/// Copies a file.
#[tool(toolset = "demo")]
pub fn copy(#[arg(rename = "to")] from: String, to: String) -> String {
    format!("{from} -> {to}")
}

fn main() {}
