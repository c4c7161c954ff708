use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo", emoji = "👋🙂")]
pub fn greet() {}

fn main() {}
