use hermes_tools::tool;

/// Lists a page of results.
#[tool(toolset = "demo")]
pub fn page(#[arg(default = 10, clamp)] limit: u32) -> u32 {
    limit
}

fn main() {}
