use hermes_tools::tool;

/// Looks up a ticket by its code.
#[tool(toolset = "demo")]
pub fn ticket(
    #[arg(pattern = "^(?=[A-Z])[A-Z0-9]+$")] code: String,
    #[arg(pattern = "[a-")] team: String,
    #[arg(pattern = "^[A-Z]{2}-\\d+$")] fine: String,
) -> String {
    format!("{code} {team} {fine}")
}

fn main() {}
