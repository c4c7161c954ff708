//! `answer_messages`: each provider's shape, errors, images, and images it cannot take.

use super::*;

fn answered<'a>(
    calls: &'a [ToolCall],
    answers: &'a [ToolAnswer],
) -> impl Iterator<Item = (&'a ToolCall, &'a ToolAnswer)> {
    calls.iter().zip(answers)
}

/// Two calls: one answered with an object, one with an error.
fn two() -> (Vec<ToolCall>, Vec<ToolAnswer>) {
    (
        vec![
            call("id_a", "read_file", r#"{"path":"a"}"#),
            call("id_b", "read_file", r#"{"path":"missing"}"#),
        ],
        vec![
            ToolAnswer::json(&json!({"content": "hello", "lines": 1})),
            ToolAnswer::error("no such file: missing"),
        ],
    )
}

#[test]
fn openai_answers_are_one_tool_message_per_call_in_order() {
    let (calls, answers) = two();
    for format in [Format::OpenAi, Format::OpenAiStrict] {
        assert_eq!(
            answer_messages(format, answered(&calls, &answers)),
            [
                json!({"role": "tool", "tool_call_id": "id_a", "content": answers[0].as_str()}),
                json!({"role": "tool", "tool_call_id": "id_b", "content": answers[1].as_str()}),
            ]
        );
    }
    // The legacy call (no id) gets the legacy message.
    let legacy = [call("", "read_file", "{}")];
    assert_eq!(
        answer_messages(Format::OpenAi, answered(&legacy, &answers)),
        [json!({"role": "function", "name": "read_file", "content": answers[0].as_str()})]
    );
}

#[test]
fn openai_images_follow_the_tool_messages_in_one_user_message() {
    let calls = [
        call("id_a", "screenshot", "{}"),
        call("id_b", "read_file", "{}"),
        call("id_c", "render", "{}"),
    ];
    let answers = [
        picture(),
        ToolAnswer::text("plain"),
        ToolContent::new()
            .image("R0lGOD==", "image/gif")
            .image("/9j/4A==", "image/jpg")
            .into_answer(),
    ];
    assert_eq!(
        answer_messages(Format::OpenAi, answered(&calls, &answers)),
        [
            json!({"role": "tool", "tool_call_id": "id_a", "content":
                "a red dot\n[1 image attached to the user message after the tool results]"}),
            json!({"role": "tool", "tool_call_id": "id_b", "content": r#"{"result":"plain"}"#}),
            json!({"role": "tool", "tool_call_id": "id_c", "content":
                "[2 images attached to the user message after the tool results]"}),
            json!({"role": "user", "content": [
                {"type": "text", "text": "The 1 image returned by tool call id_a (screenshot):"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
                {"type": "text", "text": "The 2 images returned by tool call id_c (render):"},
                {"type": "image_url", "image_url": {"url": "data:image/gif;base64,R0lGOD=="}},
                {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/4A=="}},
            ]}),
        ]
    );
}

#[test]
fn responses_answers_are_function_call_outputs_with_images_as_input_parts() {
    let (calls, answers) = two();
    assert_eq!(
        answer_messages(Format::Responses, answered(&calls, &answers)),
        [
            json!({"type": "function_call_output", "call_id": "id_a", "output": answers[0].as_str()}),
            json!({"type": "function_call_output", "call_id": "id_b", "output": answers[1].as_str()}),
        ]
    );
    let shot = [call("call_1", "screenshot", "{}")];
    assert_eq!(
        answer_messages(Format::Responses, answered(&shot, &[picture()])),
        [
            json!({"type": "function_call_output", "call_id": "call_1", "output": [
                {"type": "input_text", "text": "a red dot"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
            ]})
        ]
    );
}

#[test]
fn anthropic_answers_are_one_user_message_of_tool_results_with_is_error() {
    let (calls, answers) = two();
    assert_eq!(
        answer_messages(Format::Anthropic, answered(&calls, &answers)),
        [json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "id_a",
             "content": [{"type": "text", "text": answers[0].as_str()}], "is_error": false},
            {"type": "tool_result", "tool_use_id": "id_b",
             "content": [{"type": "text", "text": answers[1].as_str()}], "is_error": true},
        ]})]
    );
    assert_eq!(
        answer_messages(Format::Anthropic, answered(&[], &[])),
        Vec::<Value>::new()
    );
}

#[test]
fn anthropic_images_are_base64_image_blocks_inside_the_tool_result() {
    let shot = [call("toolu_1", "screenshot", "{}")];
    assert_eq!(
        answer_messages(Format::Anthropic, answered(&shot, &[picture()])),
        [
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
            "content": [
                {"type": "text", "text": "a red dot"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                             "data": "iVBORw0KGgo="}},
            ],
            "is_error": false}]})
        ]
    );
}

#[test]
fn an_image_the_provider_cannot_take_is_left_out_with_a_note() {
    let calls = [call("id_1", "render", "{}")];
    let answers = [ToolContent::new()
        .text("")
        .text("the chart")
        .image("Qk0=", "image/bmp")
        .into_answer()];
    let messages = answer_messages(Format::Anthropic, answered(&calls, &answers));
    // The empty text part is dropped: Anthropic refuses empty text blocks.
    assert_eq!(
        messages[0]["content"][0]["content"],
        json!([
            {"type": "text", "text": "the chart"},
            {"type": "text", "text": "[an image of type image/bmp was left out: Anthropic takes \
                image/png, image/jpeg, image/gif, image/webp]"},
        ])
    );
    let messages = answer_messages(Format::OpenAi, answered(&calls, &answers));
    assert_eq!(
        messages,
        [
            json!({"role": "tool", "tool_call_id": "id_1", "content": "the chart\n[an image of type \
            image/bmp was left out: OpenAI takes image/png, image/jpeg, image/gif, image/webp]"})
        ]
    );
    let messages = answer_messages(Format::Gemini, answered(&calls, &answers));
    let response = &messages[0]["parts"][0]["functionResponse"];
    assert_eq!(response.get("parts"), None);
    assert!(
        response["response"]["result"]
            .as_str()
            .is_some_and(|text| text.contains("image/bmp was left out: Gemini takes")),
        "{response}"
    );
    // MCP takes any image.
    let messages = answer_messages(Format::Mcp, answered(&calls, &answers));
    assert_eq!(
        messages[0]["content"][1],
        json!({"type": "image", "data": "Qk0=", "mimeType": "image/bmp"})
    );
}

#[test]
fn gemini_answers_are_function_responses_whose_response_is_an_object() {
    let calls = [
        call("g-1", "read_file", "{}"),
        call("call_1", "count", "{}"),
        call("g-3", "read_file", "{}"),
        call("g-4", "note", "{}"),
        call("g-5", "hooked", "{}"),
    ];
    let answers = [
        ToolAnswer::json(&json!({"content": "hello"})),
        ToolAnswer::json(&json!(42)),
        ToolAnswer::error("no such file"),
        ToolAnswer::text("done"),
        // A hook may replace an error's text with anything JSON.
        ToolAnswer::error("x").with_text("[\"not\", \"an object\"]".to_owned()),
    ];
    let messages = answer_messages(Format::Gemini, answered(&calls, &answers));
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(
        messages[0]["parts"],
        json!([
            {"functionResponse": {"id": "g-1", "name": "read_file", "response": {"content": "hello"}}},
            // `call_1` is the id `parse_calls` generated: Gemini sent none, so none goes back.
            {"functionResponse": {"name": "count", "response": {"result": 42}}},
            {"functionResponse": {"id": "g-3", "name": "read_file", "response": answers[2].to_value()}},
            {"functionResponse": {"id": "g-4", "name": "note", "response": {"result": "done"}}},
            {"functionResponse": {"id": "g-5", "name": "hooked", "response": {"error": ["not", "an object"]}}},
        ])
    );
    assert!(answers[2].to_value()["error"].is_string());
}

#[test]
fn gemini_images_are_inline_data_parts_of_the_function_response() {
    let calls = [call("g-1", "screenshot", "{}"), call("g-2", "render", "{}")];
    let answers = [
        picture(),
        ToolContent::new()
            .image("UklGRg==", "image/webp")
            .into_answer(),
    ];
    let messages = answer_messages(Format::Gemini, answered(&calls, &answers));
    assert_eq!(
        messages[0]["parts"],
        json!([
            {"functionResponse": {"id": "g-1", "name": "screenshot",
                "response": {"result": "a red dot"},
                "parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]}},
            {"functionResponse": {"id": "g-2", "name": "render",
                "response": {"result": "1 image attached"},
                "parts": [{"inlineData": {"mimeType": "image/webp", "data": "UklGRg=="}}]}},
        ])
    );
}

#[test]
fn mcp_answers_are_call_tool_results_as_serve_sends_them() {
    let (calls, answers) = two();
    let messages = answer_messages(Format::Mcp, answered(&calls, &answers));
    assert_eq!(
        messages,
        [
            json!({"content": [{"type": "text", "text": answers[0].as_str()}],
                   "structuredContent": {"content": "hello", "lines": 1}, "isError": false}),
            json!({"content": [{"type": "text", "text": answers[1].as_str()}], "isError": true}),
        ]
    );
    let shot = [call("1", "screenshot", "{}")];
    assert_eq!(
        answer_messages(Format::Mcp, answered(&shot, &[picture()])),
        [json!({"content": [
            {"type": "text", "text": "a red dot"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        ], "isError": false})]
    );
    let list = [call("2", "ls", "{}")];
    let non_object = [ToolAnswer::json(&json!([1, 2]))];
    assert_eq!(
        answer_messages(Format::Mcp, answered(&list, &non_object)),
        [json!({"content": [{"type": "text", "text": "[1,2]"}], "isError": false})]
    );
}

#[test]
fn no_calls_make_no_messages_in_any_format() {
    for format in Format::ALL {
        assert_eq!(
            answer_messages(format, answered(&[], &[])),
            Vec::<Value>::new(),
            "{format}"
        );
    }
}
