use hermes_tools::resource;

/// The summary.
#[resource(mime_type = "text/plain")]
pub fn summary() -> String {
    String::new()
}

fn main() {}
