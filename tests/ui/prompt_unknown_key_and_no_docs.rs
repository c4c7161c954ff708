use hermes_tools::prompt;

#[prompt(uri = "x://y")]
pub fn review(diff: String) -> String {
    diff
}

fn main() {}
