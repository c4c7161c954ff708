use hermes_tools::tool;

/// Sums numbers.
#[tool(toolset = "demo")]
pub fn sum(numbers: &[i64]) -> i64 {
    numbers.iter().sum()
}

fn main() {}
