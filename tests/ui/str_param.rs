use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo")]
pub fn greet(name: &str) -> String {
    format!("hello {name}")
}

fn main() {}
