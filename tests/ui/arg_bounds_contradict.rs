use hermes_tools::tool;

/// Picks a page of results.
#[tool(toolset = "demo")]
pub fn page(
    #[arg(minimum = 10, maximum = 1)] number: u32,
    #[arg(min_items = 5, max_items = 2)] tags: Vec<String>,
    #[arg(min_length = 8, max_length = 3)] code: String,
    #[arg(minimum = -0.5, maximum = -1.5)] offset: f64,
) -> String {
    format!("{number} {tags:?} {code} {offset}")
}

fn main() {}
