use hermes_tools::tool;

/// Looks up a ticket by its code.
#[tool(toolset = "demo", name = "1st_ticket")]
pub fn ticket(#[arg(rename = "ticket code")] code: String) -> String {
    code
}

fn main() {}
