use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo", toolset = "other")]
pub fn greet() {}

fn main() {}
