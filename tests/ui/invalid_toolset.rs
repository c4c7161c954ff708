use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "my tools")]
pub fn greet() {}

fn main() {}
