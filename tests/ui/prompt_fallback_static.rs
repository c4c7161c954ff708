use hermes_tools::prompt;

#[prompt(name = "has space")]
pub async fn review(diff: String, focus: Option<String>) -> String {
    format!("Review {diff} for {focus:?}.")
}

fn main() {
    // Code naming the function and its declaration still resolves: the only errors are the
    // name and the missing doc comment.
    let _ = review(String::new(), None);
    let _ = REVIEW_PROMPT.arguments.len();
    let _ = (REVIEW_PROMPT.get)(&[]);
}
