use hermes_tools::tool;

#[tool(toolset = "demo", description = "  ")]
pub fn greet() {}

fn main() {}
