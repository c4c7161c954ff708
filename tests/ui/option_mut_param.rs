use hermes_tools::tool;

pub struct Counter(u64);

/// Counts calls.
#[tool(toolset = "demo")]
pub fn count(counter: Option<&mut Counter>) -> u64 {
    counter.map_or(0, |c| c.0)
}

fn main() {}
