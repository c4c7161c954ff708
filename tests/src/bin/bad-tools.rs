//! A CLI over tools that break each lint rule, so that `lint` has something to fail on, and
//! over two linked crates declaring the same tool name.

// Linked on purpose: it declares `clarify` too, and exactly one of the two must win.
use example_tools as _;
use hermes_tools::tool;

/// Search.
#[tool(toolset = "bad")]
fn short_summary(
    /// What to look for.
    query: String,
) -> String {
    query
}

/// Fetch a web page and return its text, converted from HTML to Markdown for reading.
#[tool(toolset = "bad")]
fn undocumented_parameter(url: String) -> String {
    url
}

/// Summarise a file after reading it with the `read_text` tool of the other toolset.
#[tool(toolset = "bad")]
fn cross_reference(
    /// The file to summarise.
    path: String,
) -> String {
    path
}

/// The most powerful, seamless, blazing fast, world-class tool.
#[tool(toolset = "bad")]
fn marketing_only() {}

/// TODO: describe this tool before release.
#[tool(toolset = "bad")]
fn placeholder() {}

/// Convert a document between the formats pandoc knows, with pandoc's own options.
#[tool(
    toolset = "bad",
    acknowledge(rule = "strict-mode", reason = "pandoc's options are free-form")
)]
fn acknowledged_strict(
    /// Pandoc's options by name, passed as they are.
    options: serde_json::Map<String, serde_json::Value>,
    target: String,
) -> String {
    format!("{target} {}", options.len())
}

/// Read the system clock and return the time as RFC 3339 text.
#[tool(
    toolset = "bad",
    acknowledge(rule = "summary", reason = "the summary was a fragment once")
)]
fn stale_acknowledgement() -> String {
    String::new()
}

/// Look up a word in the dictionary and return its definitions.
///
/// Each definition names its part of speech, its register and the period it dates from, and gives one example sentence taken from a published text, with the title and year of that text.
/// Each definition names its part of speech, its register and the period it dates from, and gives one example sentence taken from a published text, with the title and year of that text.
/// Each definition names its part of speech, its register and the period it dates from, and gives one example sentence taken from a published text, with the title and year of that text.
/// Each definition names its part of speech, its register and the period it dates from, and gives one example sentence taken from a published text, with the title and year of that text.
/// Each definition names its part of speech, its register and the period it dates from, and gives one example sentence taken from a published text, with the title and year of that text.
/// Each definition names its part of speech, its register and the period it dates from, and gives one example sentence taken from a published text, with the title and year of that text.
#[tool(toolset = "long")]
fn long_description(
    /// The word to look up.
    word: String,
) -> String {
    word
}

/// Read a text file and return its lines, numbered from one.
#[tool(toolset = "other")]
fn read_text(
    /// The file to read.
    path: String,
) -> String {
    path
}

/// Ask the user a question: a second linked crate declaring `clarify`, as `example_tools` does.
#[tool(toolset = "clarify")]
fn clarify(
    /// The question to ask.
    question: String,
) -> String {
    question
}

fn main() -> std::process::ExitCode {
    hermes_tools::cli::Cli::new().run()
}
