use hermes_tools::tool;

/// Picks a page of results.
#[tool(toolset = "demo", colour = "red", acknowledge(rule = "nope", reason = "x"))]
pub fn page(
    #[arg(max_len = 20)] name: String,
    #[arg(minimum = 10, maximum = 1)] number: u32,
    #[arg(pattern = "(a)\\1")] code: String,
) -> String {
    format!("{name} {number} {code}")
}

fn main() {}
