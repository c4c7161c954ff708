//! A parameter may share its function's name: the expansion calls the function by a name no
//! parameter can shadow (`fn day(day: String)` once failed with E0618).

use hermes_tools::mcp::prompts::{self, PromptRole};
use hermes_tools::mcp::resources::{self, ResourceBody};
use hermes_tools::{prompt, resource};

/// The notes of one day.
#[resource(uri = "notes://{day}", mime_type = "text/markdown")]
async fn day(day: String) -> String {
    format!("# Notes of {day}")
}

/// Review a change.
///
/// # Arguments
/// * `review` - What to review.
#[prompt]
fn review(review: String) -> String {
    format!("Review {review}, please.")
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (decl, values) = resources::matching("notes://monday").expect("the template matches");
    let ResourceBody::Text(text) = runtime.block_on((decl.read)(&values)).expect("read") else {
        panic!("a String is a text resource");
    };
    assert_eq!(text, "# Notes of monday");

    let decl = prompts::find("review").expect("the prompt is linked");
    let given = [("review".to_owned(), "the README".to_owned())];
    let prompt = runtime.block_on((decl.get)(&given)).expect("get");
    let (role, part) = &prompt.messages()[0];
    assert_eq!(*role, PromptRole::User);
    assert!(format!("{part:?}").contains("Review the README, please."), "{part:?}");
}
