//! The provider module against each format's documented shapes: calls parsed out of whole
//! replies and streams, every error with the place it names, and answers wrapped back.

use serde_json::{Value, json};

use super::*;
use crate::call::answer::{IntoAnswer, ToolAnswer, ToolContent};
use crate::definitions::formats::Format;

mod answers;
mod parse;
mod search;
mod stream;

/// `parse_calls`' error for `reply`, as displayed; a panic when it parses.
fn parse_error(format: Format, reply: &Value) -> String {
    match parse_calls(format, reply) {
        Ok(calls) => panic!("{format} reply {reply} parsed into {calls:?}"),
        Err(err) => err.to_string(),
    }
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

/// A multimodal answer: a caption and a PNG.
fn picture() -> ToolAnswer {
    ToolContent::new()
        .text("a red dot")
        .image("iVBORw0KGgo=", "image/png")
        .into_answer()
}

#[test]
fn reply_errors_show_the_top_level_in_words() {
    let err = ReplyError::new("", "expected an object, found an array");
    assert_eq!(
        err.to_string(),
        "at the top level: expected an object, found an array"
    );
    assert_eq!(err.pointer(), "");
    assert_eq!(err.message(), "expected an object, found an array");
}

#[test]
fn pointers_escape_slashes_and_tildes_as_rfc_6901_says() {
    let value = json!({"a/b": {"c~d": null}});
    let root = at::At::root(&value);
    let inner = root.get("a/b").expect("present");
    assert_eq!(inner.pointer(), "/a~1b");
    assert_eq!(inner.error_at("c~d", "x").pointer(), "/a~1b/c~0d");
}

#[test]
fn generated_ids_are_recognised_and_provider_ids_are_not() {
    assert_eq!(generated_id(3), "call_3");
    assert!(is_generated_id("call_0") && is_generated_id("call_12"));
    for id in ["call_", "call_abc123", "call_1a", "toolu_01", "", "xcall_1"] {
        assert!(!is_generated_id(id), "{id}");
    }
}

#[test]
fn each_format_round_trips_from_reply_to_answer() {
    let ok = ToolAnswer::json(&json!({"lines": 3}));
    let replies = [
        (
            Format::OpenAi,
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_x", "type": "function", "function": {"name": "count", "arguments": "{}"}}
            ]}),
            json!([{"role": "tool", "tool_call_id": "call_x", "content": "{\"lines\":3}"}]),
        ),
        (
            Format::Responses,
            json!([{"type": "function_call", "call_id": "call_x", "name": "count", "arguments": "{}"}]),
            json!([{"type": "function_call_output", "call_id": "call_x", "output": "{\"lines\":3}"}]),
        ),
        (
            Format::Anthropic,
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_x", "name": "count", "input": {}}
            ]}),
            json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x",
                "content": [{"type": "text", "text": "{\"lines\":3}"}], "is_error": false}]}]),
        ),
        (
            Format::Gemini,
            json!({"role": "model", "parts": [{"functionCall": {"id": "g1", "name": "count"}}]}),
            json!([{"role": "user", "parts": [{"functionResponse":
                {"id": "g1", "name": "count", "response": {"lines": 3}}}]}]),
        ),
        (
            Format::Mcp,
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "count"}}),
            json!([{"content": [{"type": "text", "text": "{\"lines\":3}"}],
                "structuredContent": {"lines": 3}, "isError": false}]),
        ),
    ];
    for (format, reply, expected) in replies {
        let calls = parse_calls(format, &reply).unwrap_or_else(|err| panic!("{format}: {err}"));
        assert_eq!(calls.len(), 1, "{format}");
        assert_eq!(calls[0].name, "count", "{format}");
        assert_eq!(calls[0].arguments, "{}", "{format}");
        let answers = vec![ok.clone(); calls.len()];
        let messages = answer_messages(format, calls.iter().zip(&answers));
        assert_eq!(Value::Array(messages), expected, "{format}");
    }
}
