use hermes_tools::tool;

/// Echoes its value.
#[tool(toolset = "demo")]
pub fn echo<T: ToString>(value: T) -> String {
    value.to_string()
}

fn main() {}
