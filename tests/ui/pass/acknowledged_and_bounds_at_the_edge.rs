//! `acknowledge(...)` reaches the declaration in order, and bounds and defaults that meet at
//! their edge (equal bounds, a default on a bound, a pattern `regex` compiles) are accepted.

use hermes_tools::tool;

/// Picks one page of the results of a search.
#[tool(
    toolset = "demo",
    acknowledge(rule = "strict-mode", reason = "free-form by design"),
    acknowledge(rule = "summary", reason = "the summary is long on purpose")
)]
fn page(
    #[arg(minimum = 1, maximum = 1, default = 1)] number: u32,
    #[arg(min_items = 2, max_items = 2)] pair: Vec<String>,
    #[arg(min_length = 2, max_length = 2, default = "en".to_owned())] lang: String,
    #[arg(minimum = -1.5, maximum = -0.5, default = -1.5)] offset: f64,
    #[arg(pattern = r"^\p{Lu}{2}-\d+$", rename = "ticket.code")] code: String,
) -> String {
    format!("{number} {pair:?} {lang} {offset} {code}")
}

fn main() {
    assert_eq!(
        PAGE_TOOL.acknowledged,
        [
            ("strict-mode", "free-form by design"),
            ("summary", "the summary is long on purpose")
        ]
    );
    let tool = hermes_tools::tool::Tool::from_decl(&PAGE_TOOL);
    assert_eq!(tool.acknowledged()[1].reason, "the summary is long on purpose");
    let schema = (PAGE_TOOL.schema)();
    assert!(schema["properties"]["ticket.code"].is_object(), "{schema}");
}
