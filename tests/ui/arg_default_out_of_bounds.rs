use hermes_tools::tool;

/// Picks a page of results.
#[tool(toolset = "demo")]
pub fn page(
    #[arg(minimum = 1, maximum = 100, default = 500)] size: u32,
    #[arg(minimum = 0.0, default = -1.0)] offset: f64,
    #[arg(max_length = 2, default = "english".to_owned())] lang: String,
    #[arg(minimum = 1, maximum = 100, default = 100)] fits: u32,
) -> String {
    format!("{size} {offset} {lang} {fits}")
}

fn main() {}
