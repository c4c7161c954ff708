use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo", timeout_secs = 0)]
pub fn greet() {}

fn main() {}
