use hermes_tools::prompt;

/// Review a change.
#[prompt]
pub fn review(diff: String) -> usize {
    diff.len()
}

fn main() {}
