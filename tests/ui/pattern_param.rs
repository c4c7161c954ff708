use hermes_tools::tool;

/// Adds two integers.
#[tool(toolset = "demo")]
pub fn add((a, b): (i32, i32)) -> i32 {
    a + b
}

fn main() {}
