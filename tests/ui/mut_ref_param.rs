use hermes_tools::tool;

pub struct Counter(u64);

/// Counts calls.
#[tool(toolset = "demo")]
pub fn count(counter: &mut Counter) -> u64 {
    counter.0 += 1;
    counter.0
}

fn main() {}
