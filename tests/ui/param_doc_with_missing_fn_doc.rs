use hermes_tools::tool;

#[tool(toolset = "demo")]
pub fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("hello {name}")
}

fn main() {}
