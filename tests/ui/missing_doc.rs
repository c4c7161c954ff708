use hermes_tools::tool;

#[tool(toolset = "demo")]
pub fn undocumented() {}

fn main() {}
