use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo", max_result_chars = 0)]
pub fn greet() {}

fn main() {}
