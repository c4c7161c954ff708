use hermes_tools::resource;

/// A note of one day.
#[resource(uri = "notes://{day}", mime = "text/markdown")]
pub fn note(day: String) -> String {
    format!("# {day}")
}

fn main() {
    // Code naming the function and its declaration still resolves: the only error is the key.
    let _ = note(String::from("monday"));
    let _ = NOTE_RESOURCE.uri;
    let _ = (NOTE_RESOURCE.read)(&[]);
}
