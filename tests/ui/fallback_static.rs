use hermes_tools::tool;

/// Says hello.
#[tool(toolset = "demo", emoji = "👋🙂")]
pub fn greet(name: String) -> String {
    format!("hello {name}")
}

fn main() {
    // Code naming the function and its declaration still resolves: the only error is the emoji.
    let _ = greet(String::from("you"));
    let _ = GREET_TOOL.name;
}
