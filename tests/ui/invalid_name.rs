use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo", name = "has space")]
pub fn greet() {}

fn main() {}
