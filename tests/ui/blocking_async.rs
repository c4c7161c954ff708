use hermes_tools::tool;

/// Waits for the index.
#[tool(toolset = "demo", blocking)]
pub async fn wait_for_index() -> String {
    String::from("ready")
}

fn main() {}
