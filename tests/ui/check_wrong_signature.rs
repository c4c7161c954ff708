use hermes_tools::tool;

pub fn available() -> String {
    String::from("yes")
}

/// Says hello.
#[tool(toolset = "demo", check = available)]
pub fn greet() {}

fn main() {}
