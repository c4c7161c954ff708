use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo", colour = "red", timeout = 30)]
pub fn greet() {}

fn main() {}
