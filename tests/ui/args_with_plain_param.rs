use hermes_tools::tool;

pub struct Source {
    pub path: String,
}

/// Reads a file.
#[tool(toolset = "demo")]
pub fn read(#[args] source: Source, limit: usize) -> String {
    format!("{} {limit}", source.path)
}

fn main() {}
