use hermes_tools::resource;

/// A note of one day.
#[resource(uri = "notes://{day}/summary")]
pub fn note(date: String) -> String {
    date
}

fn main() {}
