use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo")]
pub fn greet(name: impl Into<String>) -> String {
    name.into()
}

fn main() {}
