use hermes_tools::tool;

/// Not a function.
#[tool(toolset = "demo")]
pub struct Greeter;

fn main() {}
