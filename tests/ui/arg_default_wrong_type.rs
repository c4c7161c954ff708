use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo")]
pub fn greet(#[arg(default = 5)] name: String) -> String {
    format!("hello {name}")
}

fn main() {}
