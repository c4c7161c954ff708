//! `CallAccumulator`: each format's stream, interleaved calls, and every error with its place.

use super::*;

/// The calls of `events`, pushed in order into an accumulator for `format`.
fn accumulate(format: Format, events: &[Value]) -> Result<Vec<ToolCall>, ReplyError> {
    let mut calls = CallAccumulator::new(format);
    for event in events {
        calls.push(event)?;
    }
    calls.finish()
}

/// The error of pushing `events` then finishing, as displayed.
fn stream_error(format: Format, events: &[Value]) -> String {
    match accumulate(format, events) {
        Ok(calls) => panic!("{format} stream assembled {calls:?}"),
        Err(err) => err.to_string(),
    }
}

/// An OpenAI chat chunk of `delta` for choice 0.
fn chunk(delta: Value) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-x",
           "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

fn fragment(index: u64, id: Option<&str>, name: Option<&str>, arguments: &str) -> Value {
    let mut fragment = json!({"index": index, "function": {"arguments": arguments}});
    if let Some(id) = id {
        fragment["id"] = json!(id);
        fragment["type"] = json!("function");
    }
    if let Some(name) = name {
        fragment["function"]["name"] = json!(name);
    }
    chunk(json!({"tool_calls": [fragment]}))
}

#[test]
fn openai_fragments_interleaved_by_index_assemble_in_index_order() {
    let events = [
        chunk(json!({"role": "assistant", "content": null})),
        fragment(0, Some("call_a"), Some("read_file"), ""),
        fragment(1, Some("call_b"), Some("search_files"), ""),
        fragment(1, None, None, "{\"pattern\""),
        fragment(0, None, None, "{\"path\":"),
        fragment(0, None, None, "\"a.txt\"}"),
        fragment(1, None, None, ":\"TODO\"}"),
        // A fragment with no arguments for a call that takes none.
        fragment(2, Some("call_c"), Some("list_toolsets"), ""),
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-x",
               "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        // The usage chunk of `stream_options.include_usage` has no choice.
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-x",
               "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}}),
    ];
    assert_eq!(
        accumulate(Format::OpenAi, &events).unwrap(),
        [
            call("call_a", "read_file", r#"{"path":"a.txt"}"#),
            call("call_b", "search_files", r#"{"pattern":"TODO"}"#),
            call("call_c", "list_toolsets", "{}"),
        ]
    );
}

#[test]
fn openai_fragments_may_repeat_the_id_and_name_and_other_choices_are_not_mixed_in() {
    let events = [
        fragment(0, Some("call_a"), Some("read_file"), "{\"path\""),
        // Some compatible servers repeat the id and name (or send an empty name) in every piece.
        fragment(0, Some("call_a"), Some("read_file"), ":\"a\""),
        fragment(0, None, Some(""), "}"),
        // Choice 1 of an `n = 2` request is another answer.
        json!({"choices": [{"index": 1, "delta": {"tool_calls": [
            {"index": 0, "id": "call_z", "function": {"name": "terminal", "arguments": "{}"}}
        ]}}]}),
    ];
    assert_eq!(
        accumulate(Format::OpenAiStrict, &events).unwrap(),
        [call("call_a", "read_file", r#"{"path":"a"}"#)]
    );
}

#[test]
fn the_legacy_openai_function_call_streams_into_one_call() {
    let events = [
        chunk(
            json!({"role": "assistant", "function_call": {"name": "read_file", "arguments": ""}}),
        ),
        chunk(json!({"function_call": {"arguments": "{\"path\":"}})),
        chunk(json!({"function_call": {"arguments": "\"a\"}"}})),
    ];
    assert_eq!(
        accumulate(Format::OpenAi, &events).unwrap(),
        [call("", "read_file", r#"{"path":"a"}"#)]
    );
}

#[test]
fn openai_stream_errors_name_the_event_and_the_call() {
    let opened = fragment(0, Some("call_a"), Some("read_file"), "");
    let cases = [
        (
            vec![opened.clone(), fragment(1, None, None, "{}")],
            "at /choices/0/delta/tool_calls/0/index: stream event 2: a fragment of tool call 1, \
             which no earlier fragment opened (a call's first fragment carries its id and name)",
        ),
        (
            vec![opened.clone(), fragment(0, Some("call_b"), None, "{}")],
            "at /choices/0/delta/tool_calls/0/id: stream event 2: tool call 0 was opened as \
             \"call_a\", and this fragment says \"call_b\"",
        ),
        (
            vec![opened.clone(), fragment(0, None, Some("write_file"), "{}")],
            "at /choices/0/delta/tool_calls/0/function/name: stream event 2: tool call 0 was \
             opened as a call of \"read_file\", and this fragment names \"write_file\"",
        ),
        (
            vec![opened.clone(), fragment(1, None, Some("terminal"), "{}")],
            "at the top level: the stream ended with tool call 1 incomplete: it never received an id",
        ),
        (
            vec![fragment(0, Some("call_a"), None, "{}")],
            "at the top level: the stream ended with tool call 0 incomplete: it never received \
             the tool's name",
        ),
        (
            vec![chunk(
                json!({"tool_calls": [{"function": {"arguments": "{}"}}]}),
            )],
            "at /choices/0/delta/tool_calls/0/index: stream event 1: missing: a tool call \
             fragment says which call it belongs to",
        ),
        (
            vec![chunk(json!({"tool_calls": [{"index": -1, "id": "x"}]}))],
            "at /choices/0/delta/tool_calls/0/index: stream event 1: expected a non-negative \
             integer, found a number",
        ),
        (
            vec![opened.clone(), Value::Null],
            "at the top level: stream event 2: expected an object, found null",
        ),
        (
            vec![json!({"error": {"message": "The server had an error", "type": "server_error"}})],
            "at /error: stream event 1: the stream reported an error: server_error: The server \
             had an error",
        ),
        (
            vec![json!({"choices": [{"index": 0, "message": {"role": "assistant"}}]})],
            "at /choices/0/message: stream event 1: a whole message where a chunk has a `delta`: \
             read a whole reply with parse_calls",
        ),
        (
            vec![json!({"object": "chat.completion.chunk"})],
            "at /choices: stream event 1: missing: expected a chat completion chunk (with `choices`)",
        ),
    ];
    for (events, expected) in cases {
        assert_eq!(
            stream_error(Format::OpenAi, &events),
            expected,
            "{events:?}"
        );
    }
    // Arguments of the wrong type, in a fragment that is otherwise right.
    let mut wrong = fragment(0, None, None, "");
    wrong["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = json!({"a": 1});
    assert_eq!(
        stream_error(Format::OpenAi, &[opened, wrong]),
        "at /choices/0/delta/tool_calls/0/function/arguments: stream event 2: expected a \
         string, found an object"
    );
}

/// The Anthropic stream events of a message: a text block, then `blocks`.
fn anthropic_stream(blocks: &[Value]) -> Vec<Value> {
    let mut events = vec![
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
               "content": [], "model": "claude-x", "stop_reason": null, "stop_sequence": null,
               "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "ping"}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Okay"}}),
        json!({"type": "content_block_stop", "index": 0}),
    ];
    events.extend_from_slice(blocks);
    events.push(
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
                       "usage": {"output_tokens": 9}}),
    );
    events.push(json!({"type": "message_stop"}));
    events
}

fn block_start(index: u64, id: &str, name: &str) -> Value {
    json!({"type": "content_block_start", "index": index,
           "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})
}

fn json_delta(index: u64, partial: &str) -> Value {
    json!({"type": "content_block_delta", "index": index,
           "delta": {"type": "input_json_delta", "partial_json": partial}})
}

fn block_stop(index: u64) -> Value {
    json!({"type": "content_block_stop", "index": index})
}

#[test]
fn anthropic_input_json_deltas_assemble_per_block_and_no_input_is_an_empty_object() {
    let events = anthropic_stream(&[
        block_start(1, "toolu_a", "get_weather"),
        json_delta(1, ""),
        json_delta(1, "{\"location\": \"San Fra"),
        json_delta(1, "ncisco, CA\"}"),
        block_stop(1),
        // A server tool streams its input too: not ours, so not assembled.
        json!({"type": "content_block_start", "index": 2, "content_block":
               {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}}),
        json_delta(2, "{\"query\": \"x\"}"),
        block_stop(2),
        block_start(3, "toolu_b", "get_time"),
        block_stop(3),
    ]);
    assert_eq!(
        accumulate(Format::Anthropic, &events).unwrap(),
        [
            call(
                "toolu_a",
                "get_weather",
                r#"{"location": "San Francisco, CA"}"#
            ),
            call("toolu_b", "get_time", "{}"),
        ]
    );
}

#[test]
fn anthropic_stream_errors_name_the_event_and_the_block() {
    let cases = [
        (
            anthropic_stream(&[json_delta(4, "{}")]),
            "at /index: stream event 6: a fragment of content block 4, which no \
             content_block_start opened",
        ),
        (
            anthropic_stream(&[
                block_start(1, "toolu_a", "f"),
                block_stop(1),
                json_delta(1, "{}"),
            ]),
            "at /index: stream event 8: a fragment of content block 1 (toolu_a), which had \
             already ended",
        ),
        (
            anthropic_stream(&[
                block_start(1, "toolu_a", "f"),
                block_start(1, "toolu_b", "g"),
            ]),
            "at /index: stream event 7: content block 1 started twice",
        ),
        (
            anthropic_stream(&[block_stop(5)]),
            "at /index: stream event 6: a fragment of content block 5, which no \
             content_block_start opened",
        ),
        (
            // Cut off before the block's end: its input may be half there.
            vec![
                block_start(0, "toolu_a", "f"),
                json_delta(0, "{\"path\": \"a"),
            ],
            "at the top level: the stream ended with tool_use block 0 incomplete: toolu_a never \
             ended, so its arguments may be cut short",
        ),
        (
            vec![json!({"type": "content_block_start", "index": 0,
                        "content_block": {"type": "tool_use", "id": "toolu_a", "input": {}}})],
            "at /content_block/name: stream event 1: missing: a tool_use block needs the tool's name",
        ),
        (
            vec![
                block_start(0, "toolu_a", "f"),
                json!({"type": "content_block_delta", "index": 0,
                 "delta": {"type": "input_json_delta"}}),
            ],
            "at /delta/partial_json: stream event 2: missing: an input_json_delta holds JSON text",
        ),
        (
            vec![
                json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
            ],
            "at /error: stream event 1: the stream reported an error: overloaded_error: Overloaded",
        ),
        (
            vec![json!({"index": 0})],
            "at /type: stream event 1: missing: every stream event has a type",
        ),
    ];
    for (events, expected) in cases {
        assert_eq!(
            stream_error(Format::Anthropic, &events),
            expected,
            "{events:?}"
        );
    }
}

fn item_added(index: u64, call_id: &str, name: &str) -> Value {
    json!({"type": "response.output_item.added", "output_index": index, "sequence_number": index,
           "item": {"type": "function_call", "id": format!("fc_{index}"), "call_id": call_id,
                    "name": name, "arguments": "", "status": "in_progress"}})
}

fn arguments_delta(index: u64, delta: &str) -> Value {
    json!({"type": "response.function_call_arguments.delta", "output_index": index,
           "item_id": format!("fc_{index}"), "sequence_number": 0, "delta": delta})
}

fn arguments_done(index: u64, arguments: &str) -> Value {
    json!({"type": "response.function_call_arguments.done", "output_index": index,
           "item_id": format!("fc_{index}"), "sequence_number": 0, "arguments": arguments})
}

#[test]
fn responses_deltas_assemble_per_output_item_and_the_done_text_is_the_arguments() {
    let events = [
        json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "output": []}}),
        json!({"type": "response.output_item.added", "output_index": 0, "sequence_number": 1,
               "item": {"type": "reasoning", "id": "rs_1", "summary": []}}),
        item_added(1, "call_a", "get_weather"),
        item_added(2, "call_b", "get_weather"),
        arguments_delta(1, "{\"location\":"),
        arguments_delta(2, "{\"location\":\"Bogotá\"}"),
        arguments_delta(1, "\"Paris\"}"),
        arguments_done(2, "{\"location\":\"Bogotá, Colombia\"}"),
        arguments_done(1, "{\"location\":\"Paris\"}"),
        // An item whose start was not seen (the caller joined late) is whole when done.
        json!({"type": "response.output_item.done", "output_index": 3, "sequence_number": 9,
               "item": {"type": "function_call", "id": "fc_3", "call_id": "call_c",
                        "name": "get_time", "arguments": "{}", "status": "completed"}}),
        json!({"type": "response.completed", "sequence_number": 10, "response": {"id": "resp_1"}}),
    ];
    assert_eq!(
        accumulate(Format::Responses, &events).unwrap(),
        [
            call("call_a", "get_weather", r#"{"location":"Paris"}"#),
            call(
                "call_b",
                "get_weather",
                r#"{"location":"Bogotá, Colombia"}"#
            ),
            call("call_c", "get_time", "{}"),
        ]
    );
}

#[test]
fn responses_stream_errors_name_the_event_and_the_item() {
    let cases = [
        (
            vec![item_added(0, "call_a", "f"), arguments_delta(1, "{}")],
            "at /output_index: stream event 2: a fragment of output item 1, which no \
             response.output_item.added opened",
        ),
        (
            vec![
                item_added(0, "call_a", "f"),
                arguments_done(0, "{}"),
                arguments_delta(0, "x"),
            ],
            "at /output_index: stream event 3: a fragment of output item 0 (call_a), which had \
             already ended",
        ),
        (
            vec![item_added(0, "call_a", "f"), item_added(0, "call_b", "g")],
            "at /output_index: stream event 2: output item 0 was added twice",
        ),
        (
            vec![item_added(0, "call_a", "f"), arguments_delta(0, "{\"a\":")],
            "at the top level: the stream ended with function_call output item 0 incomplete: \
             call_a never ended, so its arguments may be cut short",
        ),
        (
            vec![
                json!({"type": "response.output_item.added", "output_index": 0, "sequence_number": 0,
                        "item": {"type": "function_call", "name": "f", "arguments": ""}}),
            ],
            "at /item/call_id: stream event 1: missing: a function call's output is matched to \
             it by `call_id`",
        ),
        (
            vec![
                json!({"type": "error", "code": "rate_limit_exceeded", "message": "Slow down",
                        "param": null, "sequence_number": 1}),
            ],
            "at the top level: stream event 1: the stream reported an error: \
             rate_limit_exceeded: Slow down",
        ),
        (
            vec![
                json!({"type": "response.failed", "sequence_number": 3, "response": {"id": "resp_1",
                        "error": {"code": "server_error", "message": "Something went wrong"}}}),
            ],
            "at /response/error: stream event 1: the stream reported an error: server_error: \
             Something went wrong",
        ),
    ];
    for (events, expected) in cases {
        assert_eq!(
            stream_error(Format::Responses, &events),
            expected,
            "{events:?}"
        );
    }
}

#[test]
fn gemini_chunks_bring_whole_calls_and_generated_ids_count_across_chunks() {
    let chunk =
        |parts: Value| json!({"candidates": [{"content": {"role": "model", "parts": parts}}]});
    let events = [
        chunk(json!([{"text": "Let me"}])),
        chunk(json!([{"functionCall": {"name": "a", "args": {"x": 1}}}])),
        chunk(json!([{"functionCall": {"id": "g-2", "name": "b"}},
                     {"functionCall": {"name": "c", "args": {}}}])),
        json!({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}],
               "usageMetadata": {"totalTokenCount": 5}}),
    ];
    assert_eq!(
        accumulate(Format::Gemini, &events).unwrap(),
        [
            call("call_0", "a", r#"{"x":1}"#),
            call("g-2", "b", "{}"),
            call("call_2", "c", "{}")
        ]
    );
    assert_eq!(
        stream_error(
            Format::Gemini,
            &[
                events[0].clone(),
                json!({"error": {"code": 429,
            "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}})
            ]
        ),
        "at /error: stream event 2: the stream reported an error: RESOURCE_EXHAUSTED: Resource \
         exhausted"
    );
}

#[test]
fn mcp_messages_bring_whole_calls() {
    let events = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}}),
        json!([{"jsonrpc": "2.0", "id": "b", "method": "tools/call", "params": {"name": "b", "arguments": {"y": 2}}}]),
    ];
    assert_eq!(
        accumulate(Format::Mcp, &events).unwrap(),
        [call("1", "a", "{}"), call("b", "b", r#"{"y":2}"#)]
    );
}

#[test]
fn a_stream_without_calls_finishes_empty() {
    for format in Format::ALL {
        assert_eq!(
            CallAccumulator::new(format).finish().unwrap(),
            [],
            "{format}"
        );
    }
    let text_only = [
        chunk(json!({"content": "Hello"})),
        chunk(json!({"content": "!"})),
    ];
    assert_eq!(accumulate(Format::OpenAi, &text_only).unwrap(), []);
}

#[test]
fn a_stream_error_is_redacted() {
    // A provider's error event may quote the key it refused (issue 24): the error says what
    // happened, never the key.
    let key = "sk-proj-Zx81QmW0pLr5TvYb3NcK7sDfGh2JkL4n";
    let events = [
        json!({"type": "error", "error": {"type": "authentication_error",
        "message": format!("invalid x-api-key: {key}")}}),
    ];
    let err = stream_error(Format::Anthropic, &events);
    assert!(
        err.contains("authentication_error: invalid x-api-key"),
        "{err}"
    );
    assert!(!err.contains("Zx81QmW0pLr5"), "{err}");
    let err = accumulate(Format::Anthropic, &events).unwrap_err();
    assert!(!err.message().contains("Zx81QmW0pLr5"), "{}", err.message());
}
