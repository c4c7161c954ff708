use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "all")]
pub fn greet() {}

fn main() {}
