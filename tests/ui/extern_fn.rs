use hermes_tools::tool;

/// Answers.
#[tool(toolset = "demo")]
pub extern "C" fn answer() -> i32 {
    42
}

fn main() {}
