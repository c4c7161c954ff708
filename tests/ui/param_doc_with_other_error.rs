use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo", colour = "red")]
pub fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("hello {name}")
}

fn main() {}
