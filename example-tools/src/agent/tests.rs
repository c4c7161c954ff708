//! The agent's pure parts: error messages, step lines and the tally. The loop itself runs
//! against real HTTP servers in `tests/agent_offline.rs`.

use hermes_tools::provider::ToolCall;
use hermes_tools::{DefinitionsRequest, Format, ToolAnswer, ToolRegistry};
use serde_json::json;

use super::endpoint::{Endpoint, error_message, excerpt};
use super::shorten;
use super::tally::{Outcome, Tally};

fn files_tally() -> Tally {
    let shown = ToolRegistry::global()
        .definitions(
            &DefinitionsRequest::all()
                .enable(["files"])
                .format(Format::OpenAi),
        )
        .unwrap();
    Tally::new(&shown)
}

fn read_file(arguments: &str) -> ToolCall {
    ToolCall::new("call_1", "read_file", arguments)
}

#[test]
fn arguments_valid_as_sent_are_exact() {
    let mut tally = files_tally();
    let outcome = tally.record(
        &read_file(r#"{"path": "notes.txt", "limit": 3}"#),
        &ToolAnswer::text(r#"{"content": "1|hi"}"#),
    );
    assert_eq!(outcome, Outcome::Exact);
    assert_eq!(
        tally.to_string(),
        "calls: 1 (1 exact, 0 repaired by the pipeline, 0 failed)"
    );
}

#[test]
fn a_string_for_an_integer_that_still_ran_is_repaired() {
    let mut tally = files_tally();
    let call = read_file(r#"{"path": "notes.txt", "limit": "3"}"#);
    assert_eq!(
        tally.record(&call, &ToolAnswer::text("{}")),
        Outcome::Repaired
    );
}

#[test]
fn an_out_of_range_number_that_was_clamped_is_repaired() {
    let mut tally = files_tally();
    let call = read_file(r#"{"path": "notes.txt", "limit": 5000}"#);
    assert_eq!(
        tally.record(&call, &ToolAnswer::text("{}")),
        Outcome::Repaired
    );
}

#[test]
fn arguments_that_are_not_json_but_ran_are_repaired() {
    let mut tally = files_tally();
    // An empty argument string is read as `{}` by dispatch; as sent it is no JSON at all.
    let call = ToolCall::new("call_1", "read_file", "");
    assert_eq!(
        tally.record(&call, &ToolAnswer::text("{}")),
        Outcome::Repaired
    );
}

#[test]
fn an_error_answer_is_a_failed_call_whatever_the_arguments() {
    let mut tally = files_tally();
    tally.record(
        &read_file(r#"{"path": "missing.txt"}"#),
        &ToolAnswer::error("File not found"),
    );
    tally.record(
        &read_file(r#"{"pathh": "notes.txt"}"#),
        &ToolAnswer::error("Unknown argument"),
    );
    tally.record(&read_file(r#"{"path": "a"}"#), &ToolAnswer::text("{}"));
    assert_eq!(
        tally.to_string(),
        "calls: 3 (1 exact, 0 repaired by the pipeline, 2 failed)"
    );
}

#[test]
fn a_tool_that_was_not_offered_is_never_exact() {
    let mut tally = files_tally();
    let call = ToolCall::new("call_1", "terminal", r#"{"command": "ls"}"#);
    assert_eq!(
        tally.record(&call, &ToolAnswer::text("{}")),
        Outcome::Repaired
    );
}

#[test]
fn openai_error_bodies_give_their_message() {
    let body = json!({"error": {
        "message": "Incorrect API key provided",
        "type": "invalid_request_error",
    }});
    assert_eq!(
        error_message(&body).as_deref(),
        Some("Incorrect API key provided")
    );
    assert_eq!(
        error_message(&json!({"error": "model not loaded"})).as_deref(),
        Some("model not loaded")
    );
    assert_eq!(
        error_message(&json!({"detail": [{"msg": "field required"}]})).as_deref(),
        Some(r#"[{"msg":"field required"}]"#)
    );
    assert_eq!(error_message(&json!({"ok": true})), None);
}

#[test]
fn excerpts_are_one_line_and_cut() {
    assert_eq!(
        excerpt("  <html>\n<body>oops</body>\n"),
        "<html> <body>oops</body>"
    );
    let long = "x".repeat(1000);
    let cut = excerpt(&long);
    assert_eq!(cut.chars().count(), 301);
    assert!(cut.ends_with('…'));
}

#[test]
fn shorten_counts_characters_not_bytes() {
    assert_eq!(shorten("héllo", 2), "hé…");
    assert_eq!(shorten("héllo", 5), "héllo");
    assert_eq!(shorten("", 3), "");
}

#[test]
fn the_api_key_is_not_in_the_endpoints_debug_output() {
    let endpoint = Endpoint::new("http://127.0.0.1:9/v1/", Some("sk-secret-123".into()));
    let debug = format!("{endpoint:?}");
    assert!(!debug.contains("sk-secret-123"), "{debug}");
    assert!(debug.contains("<set>"), "{debug}");
    // The trailing slash is not doubled.
    assert_eq!(endpoint.url(), "http://127.0.0.1:9/v1/chat/completions");
}
