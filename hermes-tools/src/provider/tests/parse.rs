//! `parse_calls`: each format's reply, its leniencies, and every error with its place.

use super::*;

/// A chat completion around `message`, as the API returns it.
fn completion(message: Value) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-x",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]
    })
}

#[test]
fn openai_calls_keep_their_arguments_text_exactly_as_sent() {
    let reply = completion(json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [
            {"id": "call_a", "type": "function",
             "function": {"name": "read_file", "arguments": "{\n\"path\": \"a.txt\"\n}"}},
            {"id": "call_b", "type": "function",
             "function": {"name": "terminal", "arguments": "{\"command\": \"ls\", \"timeout\": \"30\"}"}}
        ]
    }));
    let expected = [
        call("call_a", "read_file", "{\n\"path\": \"a.txt\"\n}"),
        call(
            "call_b",
            "terminal",
            r#"{"command": "ls", "timeout": "30"}"#,
        ),
    ];
    for format in [Format::OpenAi, Format::OpenAiStrict] {
        assert_eq!(parse_calls(format, &reply).unwrap(), expected);
        // The message alone reads the same.
        assert_eq!(
            parse_calls(format, &reply["choices"][0]["message"]).unwrap(),
            expected
        );
    }
}

#[test]
fn an_openai_final_answer_has_no_calls() {
    for message in [
        json!({"role": "assistant", "content": "Done."}),
        json!({"role": "assistant", "content": "Done.", "tool_calls": null}),
        json!({"role": "assistant", "content": "Done.", "tool_calls": []}),
    ] {
        assert_eq!(
            parse_calls(Format::OpenAi, &completion(message)).unwrap(),
            []
        );
    }
}

#[test]
fn openai_missing_ids_are_generated_and_missing_arguments_are_an_empty_object() {
    let reply = json!({"role": "assistant", "tool_calls": [
        {"type": "function", "function": {"name": "a"}},
        {"id": "", "function": {"name": "b", "arguments": ""}},
        {"id": null, "function": {"name": "c", "arguments": null}},
        {"id": "call_d", "function": {"name": "d", "arguments": "  \n"}}
    ]});
    assert_eq!(
        parse_calls(Format::OpenAi, &reply).unwrap(),
        [
            call("call_0", "a", "{}"),
            call("call_1", "b", "{}"),
            call("call_2", "c", "{}"),
            call("call_d", "d", "{}"),
        ]
    );
}

#[test]
fn the_legacy_openai_function_call_is_one_call_without_an_id() {
    let reply = completion(json!({
        "role": "assistant",
        "content": null,
        "function_call": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}
    }));
    assert_eq!(
        parse_calls(Format::OpenAi, &reply).unwrap(),
        [call("", "read_file", r#"{"path":"a"}"#)]
    );
    // When both are there (servers that send both for compatibility), `tool_calls` wins.
    let both = json!({
        "role": "assistant",
        "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "read_file", "arguments": "{}"}}],
        "function_call": {"name": "read_file", "arguments": "{}"}
    });
    assert_eq!(
        parse_calls(Format::OpenAi, &both).unwrap(),
        [call("call_1", "read_file", "{}")]
    );
}

#[test]
fn openai_errors_say_where_and_what() {
    let tool_call = |function: Value| {
        completion(json!({"role": "assistant", "tool_calls": [
            {"id": "call_0", "type": "function", "function": {"name": "ok", "arguments": "{}"}},
            {"id": "call_1", "type": "function", "function": function}
        ]}))
    };
    let cases = [
        (
            tool_call(json!({"name": "f", "arguments": {"a": 1}})),
            "at /choices/0/message/tool_calls/1/function/arguments: expected a string, found an object",
        ),
        (
            tool_call(json!({"arguments": "{}"})),
            "at /choices/0/message/tool_calls/1/function/name: missing: a tool call needs the tool's name",
        ),
        (
            tool_call(json!({"name": "", "arguments": "{}"})),
            "at /choices/0/message/tool_calls/1/function/name: is empty: a tool call needs the tool's name",
        ),
        (
            tool_call(json!({"name": 3})),
            "at /choices/0/message/tool_calls/1/function/name: expected a string, found a number",
        ),
        (
            tool_call(json!("f")),
            "at /choices/0/message/tool_calls/1/function: expected an object, found a string",
        ),
        (
            completion(json!({"role": "assistant", "tool_calls": [
                {"id": "call_0", "type": "custom", "custom": {"name": "f", "input": "x"}}
            ]})),
            "at /choices/0/message/tool_calls/0/type: a \"custom\" tool call: only function calls \
             can be answered here (these tools are published as functions)",
        ),
        (
            completion(
                json!({"role": "assistant", "tool_calls": [{"id": "call_0", "type": "function"}]}),
            ),
            "at /choices/0/message/tool_calls/0/function: missing: a tool call names its function",
        ),
        (
            completion(json!({"role": "assistant", "tool_calls": {"id": "call_0"}})),
            "at /choices/0/message/tool_calls: expected an array, found an object",
        ),
        (
            json!({"choices": []}),
            "at /choices: is empty: expected a choice with the assistant's message",
        ),
        (
            json!({"choices": [{"index": 0, "delta": {}}]}),
            "at /choices/0/message: missing: a choice holds the assistant's message",
        ),
        (
            // An Anthropic message given as an OpenAI reply.
            json!({"type": "message", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}),
            "at the top level: expected a chat completion (with `choices`) or its message (with `role`)",
        ),
        (
            json!([]),
            "at the top level: expected an object, found an array",
        ),
    ];
    for (reply, expected) in cases {
        assert_eq!(parse_error(Format::OpenAi, &reply), expected, "{reply}");
    }
}

#[test]
fn responses_calls_are_function_call_items_identified_by_call_id() {
    let output = json!([
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Checking.", "annotations": []}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
         "arguments": "{\"location\":\"Paris, France\"}", "status": "completed"},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "get_weather",
         "arguments": ""}
    ]);
    let expected = [
        call("call_1", "get_weather", r#"{"location":"Paris, France"}"#),
        call("call_2", "get_weather", "{}"),
    ];
    assert_eq!(parse_calls(Format::Responses, &output).unwrap(), expected);
    let response = json!({"id": "resp_1", "object": "response", "output": output});
    assert_eq!(parse_calls(Format::Responses, &response).unwrap(), expected);
    assert_eq!(
        parse_calls(Format::Responses, &json!({"output": []})).unwrap(),
        []
    );
}

#[test]
fn responses_errors_say_where_and_what() {
    let cases = [
        (
            json!([{"type": "function_call", "name": "f", "arguments": "{}"}]),
            "at /0/call_id: missing: a function call's output is matched to it by `call_id`",
        ),
        (
            json!({"output": [{"type": "function_call", "call_id": "", "name": "f"}]}),
            "at /output/0/call_id: is empty: a function call's output is matched to it by `call_id`",
        ),
        (
            json!({"output": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": {}}]}),
            "at /output/0/arguments: expected a string, found an object",
        ),
        (
            json!({"output": [{"id": "x"}]}),
            "at /output/0/type: missing: every output item has a type",
        ),
        (
            json!({"output": [{"type": "function_call", "call_id": "c"}]}),
            "at /output/0/name: missing: a function call needs the tool's name",
        ),
        (
            json!({"choices": []}),
            "at /output: missing: expected a response (with `output`) or its output array",
        ),
        (
            json!({"output": "none"}),
            "at /output: expected an array, found a string",
        ),
    ];
    for (reply, expected) in cases {
        assert_eq!(parse_error(Format::Responses, &reply), expected, "{reply}");
    }
}

#[test]
fn anthropic_calls_are_tool_use_blocks_with_their_input_serialized() {
    let message = json!({
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "stop_reason": "tool_use",
        "content": [
            {"type": "thinking", "thinking": "…", "signature": "sig"},
            {"type": "text", "text": "I'll check both."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
             "input": {"location": "San Francisco, CA", "unit": "celsius"}},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
            {"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": {}},
            {"type": "tool_use", "id": "toolu_3", "name": "ping"}
        ]
    });
    assert_eq!(
        parse_calls(Format::Anthropic, &message).unwrap(),
        [
            // Key order is kept (serde_json's `preserve_order`).
            call(
                "toolu_1",
                "get_weather",
                r#"{"location":"San Francisco, CA","unit":"celsius"}"#
            ),
            call("toolu_2", "get_time", "{}"),
            call("toolu_3", "ping", "{}"),
        ]
    );
    // An assistant turn written by hand may be a plain string.
    assert_eq!(
        parse_calls(
            Format::Anthropic,
            &json!({"role": "assistant", "content": "Hi"})
        )
        .unwrap(),
        []
    );
}

#[test]
fn anthropic_errors_say_where_and_what() {
    let block = |block: Value| json!({"role": "assistant", "content": [{"type": "text", "text": "x"}, block]});
    let cases = [
        (
            block(json!({"type": "tool_use", "id": "toolu_1", "name": "f", "input": [1, 2]})),
            "at /content/1/input: expected an object, found an array",
        ),
        (
            block(json!({"type": "tool_use", "id": "toolu_1", "name": "f", "input": "{\"a\":1}"})),
            "at /content/1/input: expected an object, found a string",
        ),
        (
            block(json!({"type": "tool_use", "id": "toolu_1", "input": {}})),
            "at /content/1/name: missing: a tool_use block needs the tool's name",
        ),
        (
            block(json!({"type": "tool_use", "name": "f", "input": {}})),
            "at /content/1/id: missing: a tool_use block's result is matched to it by `id`",
        ),
        (
            block(json!({"text": "no type"})),
            "at /content/1/type: missing: every content block has a type",
        ),
        (
            // An OpenAI completion given as an Anthropic reply.
            completion(json!({"role": "assistant", "content": null})),
            "at /content: missing: expected a message (with `content`)",
        ),
    ];
    for (reply, expected) in cases {
        assert_eq!(parse_error(Format::Anthropic, &reply), expected, "{reply}");
    }
}

#[test]
fn gemini_calls_are_function_call_parts_with_ids_generated_when_missing() {
    let response = json!({
        "candidates": [{
            "content": {"role": "model", "parts": [
                {"text": "Setting the lights."},
                {"functionCall": {"name": "power_disco_ball", "args": {"power": true}},
                 "thoughtSignature": "c2ln"},
                {"functionCall": {"id": "fc-7", "name": "start_music",
                                  "args": {"energetic": true, "loud": false}}},
                {"functionCall": {"name": "dim_lights"}}
            ]},
            "finishReason": "STOP",
            "index": 0
        }],
        "usageMetadata": {"promptTokenCount": 10, "totalTokenCount": 20}
    });
    let expected = [
        call("call_0", "power_disco_ball", r#"{"power":true}"#),
        call("fc-7", "start_music", r#"{"energetic":true,"loud":false}"#),
        call("call_2", "dim_lights", "{}"),
    ];
    assert_eq!(parse_calls(Format::Gemini, &response).unwrap(), expected);
    // The candidate's Content alone reads the same.
    assert_eq!(
        parse_calls(Format::Gemini, &response["candidates"][0]["content"]).unwrap(),
        expected
    );
    // The Python SDK's `model_dump()` spells parts in snake_case.
    let snake = json!({"parts": [{"function_call": {"name": "f", "args": {"a": 1}}}]});
    assert_eq!(
        parse_calls(Format::Gemini, &snake).unwrap(),
        [call("call_0", "f", r#"{"a":1}"#)]
    );
}

#[test]
fn gemini_replies_without_content_have_no_calls() {
    for reply in [
        json!({"promptFeedback": {"blockReason": "SAFETY"}}),
        json!({"candidates": []}),
        json!({"candidates": [{"finishReason": "SAFETY", "index": 0}]}),
        json!({"candidates": [{"content": {"role": "model"}}]}),
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Done."}]}}]}),
    ] {
        assert_eq!(parse_calls(Format::Gemini, &reply).unwrap(), [], "{reply}");
    }
}

#[test]
fn gemini_errors_say_where_and_what() {
    let part = |call: Value| json!({"candidates": [{"content": {"parts": [{"text": "x"}, {"functionCall": call}]}}]});
    let cases = [
        (
            part(json!({"name": "f", "args": "{\"a\":1}"})),
            "at /candidates/0/content/parts/1/functionCall/args: expected an object, found a string",
        ),
        (
            part(json!({"args": {}})),
            "at /candidates/0/content/parts/1/functionCall/name: missing: a function call needs the tool's name",
        ),
        (
            part(
                json!({"name": "f", "partialArgs": [{"jsonPath": "$.a", "stringValue": "x"}], "willContinue": true}),
            ),
            "at /candidates/0/content/parts/1/functionCall/partialArgs: streamed function-call \
             arguments are not assembled here: leave `streamFunctionCallArguments` off, and each \
             call arrives whole",
        ),
        (
            part(json!({"name": "f", "willContinue": true})),
            "at /candidates/0/content/parts/1/functionCall/willContinue: streamed function-call \
             arguments are not assembled here: leave `streamFunctionCallArguments` off, and each \
             call arrives whole",
        ),
        (
            json!({"candidates": [{"content": {"parts": {"text": "x"}}}]}),
            "at /candidates/0/content/parts: expected an array, found an object",
        ),
        (
            json!({"output": []}),
            "at the top level: expected a GenerateContentResponse (with `candidates`) or a Content (with `parts`)",
        ),
    ];
    for (reply, expected) in cases {
        assert_eq!(parse_error(Format::Gemini, &reply), expected, "{reply}");
    }
    // `willContinue: false` is the end of a call, not a partial one.
    let whole = part(json!({"name": "f", "willContinue": false}));
    assert_eq!(
        parse_calls(Format::Gemini, &whole).unwrap(),
        [call("call_0", "f", "{}")]
    );
}

#[test]
fn mcp_calls_are_tools_call_requests_identified_by_their_json_rpc_id() {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "get_weather", "arguments": {"location": "New York"}}});
    assert_eq!(
        parse_calls(Format::Mcp, &request).unwrap(),
        [call("1", "get_weather", r#"{"location":"New York"}"#)]
    );
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "a-3", "method": "tools/call", "params": {"name": "now"}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "echo", "arguments": {"x": 1}}}
    ]);
    assert_eq!(
        parse_calls(Format::Mcp, &batch).unwrap(),
        [call("a-3", "now", "{}"), call("4", "echo", r#"{"x":1}"#)]
    );
}

#[test]
fn mcp_errors_say_where_and_what() {
    let cases = [
        (
            json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "f"}}),
            "at /id: missing: a tools/call without an id is a notification, which cannot be answered",
        ),
        (
            json!({"jsonrpc": "2.0", "id": [1], "method": "tools/call", "params": {"name": "f"}}),
            "at /id: expected a string or a number (a JSON-RPC id), found an array",
        ),
        (
            json!([{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "f", "arguments": [1]}}]),
            "at /0/params/arguments: expected an object, found an array",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}),
            "at /params: missing: a tools/call names its tool in `params`",
        ),
        (
            json!("tools/call"),
            "at the top level: expected an object, found a string",
        ),
    ];
    for (reply, expected) in cases {
        assert_eq!(parse_error(Format::Mcp, &reply), expected, "{reply}");
    }
}

#[test]
fn no_reply_shape_makes_parse_calls_panic() {
    // Every format over values of every JSON type, nested where the parsers look.
    let leaves = [
        json!(null),
        json!(true),
        json!(1.5),
        json!(-1),
        json!("x"),
        json!([]),
        json!({}),
        json!([null]),
    ];
    let mut replies = Vec::new();
    for leaf in &leaves {
        replies.extend([
            leaf.clone(),
            json!({"choices": leaf}),
            json!({"choices": [{"message": leaf}]}),
            json!({"role": "assistant", "tool_calls": [leaf]}),
            json!({"role": "assistant", "tool_calls": [{"id": leaf, "function": leaf}]}),
            json!({"role": "assistant", "function_call": leaf}),
            json!({"output": [leaf]}),
            json!({"output": [{"type": "function_call", "call_id": leaf, "name": leaf}]}),
            json!({"content": [{"type": "tool_use", "id": leaf, "name": leaf, "input": leaf}]}),
            json!({"candidates": [{"content": {"parts": [{"functionCall": leaf}]}}]}),
            json!({"parts": [{"functionCall": {"id": leaf, "name": "f", "args": leaf}}]}),
            json!({"id": leaf, "method": "tools/call", "params": leaf}),
        ]);
    }
    for format in Format::ALL {
        for reply in &replies {
            // Ok or Err: what matters is that it returns.
            let _ = parse_calls(format, reply);
        }
    }
}
