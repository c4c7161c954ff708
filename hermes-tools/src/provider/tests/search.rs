//! Native search traffic: a Responses `tool_search_call` read as a call of the search tool (whole
//! and streamed), and search answers in each native provider's loading shape.

use super::*;
use crate::provider::search::found;

fn search_item(execution: &str) -> Value {
    json!({
        "type": "tool_search_call",
        "id": "tsc_1",
        "call_id": "call_s1",
        "execution": execution,
        "status": "completed",
        "arguments": {"query": "send an email"}
    })
}

#[test]
fn a_client_tool_search_call_is_a_call_of_the_search_tool_in_the_models_order() {
    let reply = json!({"output": [
        search_item("client"),
        {"type": "function_call", "call_id": "call_f1", "name": "get_weather", "arguments": "{}"}
    ]});
    assert_eq!(
        parse_calls(Format::Responses, &reply).unwrap(),
        [
            call("call_s1", SEARCH_TOOL, r#"{"query":"send an email"}"#),
            call("call_f1", "get_weather", "{}"),
        ]
    );
}

#[test]
fn a_search_the_server_ran_needs_no_answer() {
    let reply = json!({"output": [search_item("server")]});
    assert!(parse_calls(Format::Responses, &reply).unwrap().is_empty());
}

#[test]
fn a_client_search_call_without_call_id_is_an_error_that_says_why() {
    let mut item = search_item("client");
    item.as_object_mut().unwrap().remove("call_id");
    let err = parse_error(Format::Responses, &json!({"output": [item]}));
    assert!(err.starts_with("at /output/0/call_id:"), "{err}");
    let mut item = search_item("client");
    item["arguments"] = json!("query");
    let err = parse_error(Format::Responses, &json!({"output": [item]}));
    assert!(err.starts_with("at /output/0/arguments:"), "{err}");
}

#[test]
fn a_streamed_search_call_is_whole_when_its_item_is_done_and_refused_when_cut() {
    let mut added = search_item("client");
    added["status"] = json!("in_progress");
    added["arguments"] = json!({});
    let events = [
        json!({"type": "response.output_item.added", "output_index": 0, "item": added}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": search_item("client")}),
    ];
    let mut stream = CallAccumulator::new(Format::Responses);
    for event in &events {
        stream.push(event).unwrap();
    }
    assert_eq!(
        stream.finish().unwrap(),
        [call("call_s1", SEARCH_TOOL, r#"{"query":"send an email"}"#)]
    );
    let mut cut = CallAccumulator::new(Format::Responses);
    cut.push(&events[0]).unwrap();
    let err = cut.finish().unwrap_err().to_string();
    assert!(err.contains("never ended"), "{err}");
}

#[test]
fn anthropic_loads_what_a_search_found_by_reference() {
    let search = call("toolu_s", SEARCH_TOOL, r#"{"query":"email"}"#);
    let weather = call("toolu_w", "get_weather", "{}");
    let found = found(vec![
        json!({"name": "send_email", "description": "d", "input_schema": {}, "defer_loading": true}),
        json!({"name": "read_mail", "description": "d", "input_schema": {}, "defer_loading": true}),
    ]);
    let sunny = ToolAnswer::json(&json!({"sky": "clear"}));
    let messages = answer_messages(Format::Anthropic, [(&search, &found), (&weather, &sunny)]);
    assert_eq!(messages.len(), 1, "one user message: {messages:?}");
    let results = &messages[0]["content"];
    assert_eq!(
        results[0],
        json!({
            "type": "tool_result",
            "tool_use_id": "toolu_s",
            "content": [
                {"type": "tool_reference", "tool_name": "send_email"},
                {"type": "tool_reference", "tool_name": "read_mail"}
            ],
            "is_error": false
        })
    );
    assert_eq!(results[1]["tool_use_id"], "toolu_w");
    assert_eq!(results[1]["content"][0]["type"], "text");
}

#[test]
fn anthropic_says_so_when_a_search_found_nothing() {
    let search = call("toolu_s", SEARCH_TOOL, r#"{"query":"zzz"}"#);
    let messages = answer_messages(Format::Anthropic, [(&search, &found(Vec::new()))]);
    let content = &messages[0]["content"][0]["content"];
    assert_eq!(content[0]["type"], "text");
    assert!(
        content[0]["text"]
            .as_str()
            .unwrap()
            .contains("No deferred tool matched")
    );
}

#[test]
fn responses_answers_a_search_with_a_tool_search_output_of_the_found_definitions() {
    let search = call("call_s1", SEARCH_TOOL, r#"{"query":"email"}"#);
    let namespace = json!({"type": "namespace", "name": "mail", "description": "Mail.", "tools": [
        {"type": "function", "name": "send_email", "description": "d", "parameters": {}, "strict": false, "defer_loading": true}
    ]});
    let messages = answer_messages(
        Format::Responses,
        [(&search, &found(vec![namespace.clone()]))],
    );
    assert_eq!(
        messages,
        [json!({
            "type": "tool_search_output",
            "call_id": "call_s1",
            "execution": "client",
            "tools": [namespace]
        })]
    );
    // A search whose arguments could not be read loads nothing (the item holds no message).
    let refused = ToolAnswer::error("`query` is missing");
    let messages = answer_messages(Format::Responses, [(&search, &refused)]);
    assert_eq!(messages[0]["type"], "tool_search_output");
    assert_eq!(messages[0]["tools"], json!([]));
}

#[test]
fn a_tool_answer_that_is_no_search_answer_is_answered_as_any_call() {
    // A call of another tool whose answer happens to look like a search answer.
    let other = call("call_o", "lister", "{}");
    let answer = found(vec![json!({"name": "x"})]);
    let messages = answer_messages(Format::Responses, [(&other, &answer)]);
    assert_eq!(messages[0]["type"], "function_call_output");
    let messages = answer_messages(Format::Anthropic, [(&other, &answer)]);
    assert_eq!(messages[0]["content"][0]["content"][0]["type"], "text");
}
