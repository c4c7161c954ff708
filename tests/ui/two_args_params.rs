use hermes_tools::tool;

pub struct Source {
    pub path: String,
}

pub struct Target {
    pub path: String,
}

/// Copies a file.
#[tool(toolset = "demo")]
pub fn copy(#[args] from: Source, #[args] to: Target) -> String {
    format!("{} -> {}", from.path, to.path)
}

fn main() {}
