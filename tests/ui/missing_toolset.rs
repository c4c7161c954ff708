use hermes_tools::tool;

/// Says hello.
#[tool(emoji = "👋")]
pub fn greet() {}

fn main() {}
