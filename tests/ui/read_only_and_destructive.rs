use hermes_tools::tool;

/// Delete nothing, or everything.
#[tool(toolset = "demo", read_only, destructive)]
pub fn confused() {}

fn main() {}
