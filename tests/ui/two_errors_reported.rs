use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo", colour = "red")]
pub fn greet(#[arg(max_len = 20)] name: String) -> String {
    format!("hello {name}")
}

fn main() {}
