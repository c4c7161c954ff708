use hermes_tools::tool;

pub fn schema(verbose: bool) -> String {
    format!("{verbose}")
}

/// Says hello.
#[tool(toolset = "demo", dynamic_schema = schema)]
pub fn greet() {}

fn main() {}
