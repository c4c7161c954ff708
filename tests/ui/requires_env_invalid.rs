use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo", requires_env = ["HOME", "A=B"])]
pub fn greet() {}

fn main() {}
