use hermes_tools::tool;

/// Answers.
#[tool(toolset = "demo")]
pub const fn answer() -> i32 {
    42
}

fn main() {}
