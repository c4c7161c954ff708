//! Native tool search, checked by the providers' official SDKs (PyPI `anthropic` and `openai`,
//! pinned in `.ci/requirements.txt`): the list that defers tools, the model's search, and our
//! answer to it.
//!
//! For Anthropic and the OpenAI Responses API:
//!
//! 1. a registry's list with every tool but one deferred, in that provider's format: the tool
//!    pinned in full, the search tool, the deferred tools marked `defer_loading` (Responses: in
//!    a namespace per toolset); the SDK's tool request type accepts every entry;
//! 2. a reply whose model searches ("send an email") and calls the pinned tool
//!    (`tests/fixtures/provider/*_tool_search.json`): the SDK reads the same calls as
//!    [`parse_calls`];
//! 3. [`run_turn`](hermes_tools::ToolRegistry::run_turn) answers both, in order, the search
//!    served locally; [`answer_messages`] shapes them, and the SDK's request types accept them,
//!    every tool they load being one the list deferred (byte for byte, on Responses);
//! 4. the SDK refuses wrong variants, and refuses our native fields when checked against its
//!    own types without them (what an SDK from before native search would say);
//! 5. the model then calls the found tool by its own name, and it runs.
//!
//! Needs `HERMES_PYTHON`, which `bash .ci/test` sets after installing the pinned packages.

use hermes_tools::provider::{ToolCall, answer_messages, parse_calls};
use hermes_tools::search::Deferral;
use hermes_tools::{
    CallOptions, DefinitionsRequest, Format, ToolContext, ToolRegistry, Turn, tool::Tool,
};
use serde_json::{Value, json};

mod support;

fn fixture(name: &str) -> Value {
    let path = support::root().join("tests/fixtures/provider").join(name);
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// Weather (pinned), mail and an MCP server's tools (deferred).
fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    let string = json!({"type": "string"});
    let tools = [
        (
            "get_weather",
            "weather",
            "Get the current weather in a location.",
            json!({"location": string}),
        ),
        (
            "send_email",
            "mail",
            "Send an email to a recipient.",
            json!({"to": string, "body": string}),
        ),
        (
            "read_mail",
            "mail",
            "Read the newest messages of the inbox.",
            json!({"count": {"type": "integer"}}),
        ),
        (
            "list_issues",
            "mcp-github",
            "List the open issues of a repository.",
            json!({"repo": string}),
        ),
    ];
    for (name, toolset, description, properties) in tools {
        let tool = Tool::builder(name, toolset)
            .description(description)
            .parameters(json!({"type": "object", "properties": properties}))
            .handler(move |args: Value, _: &ToolContext| json!({"ran": name, "args": args}))
            .build();
        registry.register(tool).expect("the tool registers");
    }
    registry
}

fn check(family: &str, format: Format, reply: &str) {
    let registry = registry();
    let request = DefinitionsRequest::all()
        .format(format)
        .defer(Deferral::default().all().pin(["get_weather"]));
    let shown = registry.definitions(&request).expect("the list");
    assert!(shown.is_deferred("send_email") && shown.contains("get_weather"));

    let reply = fixture(reply);
    let calls = parse_calls(format, &reply).expect("the reply parses");
    assert_eq!(calls.len(), 2, "a search and a call: {calls:?}");
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let ctx = ToolContext::new();
    let turn = Turn::new().options(CallOptions::new().definitions(shown.clone()));
    let answers = runtime.block_on(registry.run_turn(&calls, &ctx, &turn));
    assert!(!answers[0].is_error(), "the search: {}", answers[0]);
    assert_eq!(answers[1].to_value()["ran"], "get_weather");
    let messages = answer_messages(format, calls.iter().zip(&answers));

    let input =
        json!({"tools": shown.iter().collect::<Vec<_>>(), "reply": reply, "answers": messages});
    let report = sdk(family, &input);
    let sdk_calls: Vec<(String, String)> = report["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .map(|call| {
            (
                call["id"].as_str().unwrap_or_default().to_owned(),
                call["name"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let ours: Vec<(String, String)> = calls
        .iter()
        .map(|c| (c.id.clone(), c.name.clone()))
        .collect();
    assert_eq!(
        sdk_calls, ours,
        "{family}: the calls {} reads",
        report["sdk"]
    );
    assert_eq!(
        report["loaded"],
        json!(["send_email"]),
        "{family}: {report}"
    );
    assert_eq!(
        report["deferred"],
        json!(["list_issues", "read_mail", "send_email"]),
        "{family}: {report}"
    );
    let rejected = report["rejected"].as_array().map_or(0, Vec::len);
    assert!(
        rejected >= 4,
        "{family}: the wrong variants were refused: {report}"
    );

    // The model calls the tool the search loaded, by its own name: it runs.
    let sent = ToolCall::new(
        "call_after",
        "send_email",
        r#"{"to": "ada@example.org", "body": "hi"}"#,
    );
    let answers = runtime.block_on(registry.run_turn(std::slice::from_ref(&sent), &ctx, &turn));
    assert_eq!(answers[0].to_value()["ran"], "send_email", "{}", answers[0]);
    eprintln!(
        "{family}: {} accepted {} listed tools and {} answer message(s); refused: {}",
        report["sdk"],
        shown.len(),
        messages.len(),
        report["rejected"]
    );
}

/// tests/interop/native_search_shapes.py on `input`: the SDK's report.
fn sdk(family: &str, input: &Value) -> Value {
    support::python_json("native_search_shapes.py", family, input)
}

#[test]
#[ignore = "needs the providers' Python SDKs that `bash .ci/test` installs"]
fn anthropic_native_search_round_trips_through_the_anthropic_sdk() {
    check("anthropic", Format::Anthropic, "anthropic_tool_search.json");
}

#[test]
#[ignore = "needs the providers' Python SDKs that `bash .ci/test` installs"]
fn responses_native_search_round_trips_through_the_openai_sdk() {
    check("responses", Format::Responses, "responses_tool_search.json");
}
