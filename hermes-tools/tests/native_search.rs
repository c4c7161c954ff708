//! Native tool search: a list that defers tools for Anthropic or the Responses API marks them
//! `defer_loading` and adds the search tool our client answers; the search traffic goes round
//! (parsed, served by the turn, answered in the provider's loading shape), and a found tool runs
//! by its own name through the whole pipeline.

use std::sync::{Arc, Mutex};

use hermes_tools::hooks::PendingCall;
use hermes_tools::provider::{SEARCH_TOOL, ToolCall, answer_messages, parse_calls};
use hermes_tools::search::Deferral;
use hermes_tools::tool::Tool;
use hermes_tools::{
    CallOptions, DefinitionsRequest, Format, ToolAnswer, ToolContext, ToolRegistry, Turn,
    definitions::Definitions,
};
use serde_json::{Value, json};

const TOOLS: &[(&str, &str, &str)] = &[
    (
        "get_weather",
        "weather",
        "Get the current weather in a location.",
    ),
    ("send_email", "mail", "Send an email to a recipient."),
    (
        "read_mail",
        "mail",
        "Read the newest messages of the inbox.",
    ),
    (
        "list_issues",
        "mcp-github",
        "List the open issues of a repository.",
    ),
    (
        "create_issue",
        "mcp-github",
        "Open a new issue in a repository.",
    ),
];

fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    for &(name, toolset, description) in TOOLS {
        let tool = Tool::builder(name, toolset)
            .description(description)
            .parameters(json!({"type": "object", "properties": {"to": {"type": "string"}}}))
            .handler(move |args: Value, _: &ToolContext| json!({"ran": name, "args": args}))
            .build();
        registry.register(tool).unwrap();
    }
    registry
}

fn deferring(format: Format) -> DefinitionsRequest {
    DefinitionsRequest::all()
        .format(format)
        .defer(Deferral::default().all().pin(["get_weather"]))
}

fn bytes(definitions: &Definitions) -> String {
    serde_json::to_string(definitions).unwrap()
}

fn turn(registry: &ToolRegistry, shown: &Definitions, calls: &[ToolCall]) -> Vec<ToolAnswer> {
    let turn = Turn::new().options(CallOptions::new().definitions(shown.clone()));
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(registry.run_turn(calls, &ToolContext::new(), &turn))
}

#[test]
fn anthropic_lists_pinned_tools_then_the_search_tool_then_the_deferred_tools_marked() {
    let shown = registry()
        .definitions(&deferring(Format::Anthropic))
        .unwrap();
    assert!(shown.searches_natively());
    let listed: Vec<(&str, bool)> = shown
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap(),
                d.get("defer_loading") == Some(&json!(true)),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("get_weather", false),
            (SEARCH_TOOL, false),
            ("create_issue", true),
            ("list_issues", true),
            ("read_mail", true),
            ("send_email", true),
        ]
    );
    // A deferred tool is its own definition, marked: what the API expands a reference into.
    let full = registry()
        .definitions(&DefinitionsRequest::all().format(Format::Anthropic))
        .unwrap();
    let mut marked = full.definition("send_email").unwrap().clone();
    marked["defer_loading"] = json!(true);
    assert_eq!(shown[5], marked);
    assert!(shown.callable("send_email") && shown.is_deferred("send_email"));
}

#[test]
fn responses_groups_the_deferred_tools_in_a_namespace_per_toolset_or_server() {
    let shown = registry()
        .definitions(&deferring(Format::Responses))
        .unwrap();
    let kinds: Vec<(&str, &str)> = shown
        .iter()
        .map(|d| {
            (
                d["type"].as_str().unwrap(),
                d["name"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("function", "get_weather"),
            ("tool_search", ""),
            ("namespace", "mail"),
            ("namespace", "mcp-github"),
        ]
    );
    assert_eq!(shown[1]["execution"], "client");
    let github = &shown[3];
    assert_eq!(
        github["description"],
        "The tools of the MCP server github: create_issue, list_issues."
    );
    let functions: Vec<&str> = github["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert_eq!(f["defer_loading"], true, "{f}");
            f["name"].as_str().unwrap()
        })
        .collect();
    assert_eq!(functions, ["create_issue", "list_issues"]);
}

#[test]
fn a_native_list_is_the_same_bytes_each_time_and_in_a_registry_built_again() {
    for format in [Format::Anthropic, Format::Responses] {
        let request = deferring(format);
        let first = bytes(&registry().definitions(&request).unwrap());
        let again = registry();
        assert_eq!(
            first,
            bytes(&again.definitions(&request).unwrap()),
            "{format}"
        );
        // Discovering a tool changes nothing: the provider loads it at the end of the context.
        let discovered = request.clone().discovered(["send_email"]);
        assert_eq!(
            first,
            bytes(&again.definitions(&discovered).unwrap()),
            "{format}"
        );
    }
}

#[test]
fn other_formats_keep_the_bridge() {
    for format in [
        Format::OpenAi,
        Format::OpenAiStrict,
        Format::Gemini,
        Format::Mcp,
    ] {
        let shown = registry().definitions(&deferring(format)).unwrap();
        assert!(!shown.searches_natively(), "{format}");
        assert!(shown.bridge().is_some(), "{format}");
        assert!(!shown.callable("send_email"), "{format}: behind the bridge");
    }
}

#[test]
fn a_registered_tool_named_like_the_search_tool_makes_the_list_use_the_bridge() {
    let registry = registry();
    let own = Tool::builder(SEARCH_TOOL, "web")
        .description("Search the web.")
        .handler(|_: Value, _: &ToolContext| json!("web"))
        .build();
    registry.register(own).unwrap();
    let shown = registry.definitions(&deferring(Format::Anthropic)).unwrap();
    assert!(!shown.searches_natively());
    assert_eq!(shown.bridge().unwrap().search, "hermes_tool_search");
}

#[test]
fn anthropic_search_loads_the_deferred_tools_found_by_reference_in_the_models_order() {
    let registry = registry();
    let shown = registry.definitions(&deferring(Format::Anthropic)).unwrap();
    let reply = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_s", "name": SEARCH_TOOL, "input": {"query": "send an email"}},
        {"type": "tool_use", "id": "toolu_w", "name": "get_weather", "input": {"to": "Paris"}}
    ]});
    let calls = parse_calls(Format::Anthropic, &reply).unwrap();
    let answers = turn(&registry, &shown, &calls);
    let messages = answer_messages(Format::Anthropic, calls.iter().zip(&answers));
    let results = &messages[0]["content"];
    assert_eq!(results[0]["tool_use_id"], "toolu_s");
    assert_eq!(
        results[0]["content"][0],
        json!({"type": "tool_reference", "tool_name": "send_email"})
    );
    assert_eq!(results[1]["tool_use_id"], "toolu_w");
    // The search finds deferred tools only, and nothing for a junk query.
    let calls = [
        ToolCall::new("a", SEARCH_TOOL, r#"{"query": "current weather"}"#),
        ToolCall::new("b", SEARCH_TOOL, r#"{"query": "zxqv blorf"}"#),
    ];
    let answers = turn(&registry, &shown, &calls);
    let messages = answer_messages(Format::Anthropic, calls.iter().zip(&answers));
    for result in messages[0]["content"].as_array().unwrap() {
        assert_eq!(result["content"][0]["type"], "text", "{result}");
    }
    // Exact names, and several queries at once.
    let calls = [ToolCall::new(
        "c",
        SEARCH_TOOL,
        r#"{"queries": ["select:read_mail", "open an issue on github"]}"#,
    )];
    let answers = turn(&registry, &shown, &calls);
    let messages = answer_messages(Format::Anthropic, calls.iter().zip(&answers));
    let loaded: Vec<&str> = messages[0]["content"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tool_name"].as_str().unwrap())
        .collect();
    assert_eq!(loaded[..2], ["read_mail", "create_issue"], "{loaded:?}");
}

#[test]
fn responses_search_answers_a_tool_search_output_of_the_listed_namespace_with_the_found_tools() {
    let registry = registry();
    let shown = registry.definitions(&deferring(Format::Responses)).unwrap();
    let reply = json!({"output": [{
        "type": "tool_search_call", "id": "tsc_1", "call_id": "call_s", "execution": "client",
        "status": "completed", "arguments": {"query": "send an email"}
    }]});
    let calls = parse_calls(Format::Responses, &reply).unwrap();
    let answers = turn(&registry, &shown, &calls);
    let messages = answer_messages(Format::Responses, calls.iter().zip(&answers));
    assert_eq!(messages[0]["type"], "tool_search_output");
    assert_eq!(messages[0]["call_id"], "call_s");
    let listed = shown.iter().find(|d| d["name"] == "mail").unwrap();
    let namespace = &messages[0]["tools"][0];
    assert_eq!(namespace["description"], listed["description"]);
    assert_eq!(
        namespace["tools"][0], listed["tools"][1],
        "send_email as listed"
    );
    assert_eq!(namespace["tools"].as_array().unwrap().len(), 1);
    // Arguments the search cannot read load nothing.
    let calls = [ToolCall::new("call_x", SEARCH_TOOL, r#"{"q": 1}"#)];
    let answers = turn(&registry, &shown, &calls);
    assert!(answers[0].is_error());
    let messages = answer_messages(Format::Responses, calls.iter().zip(&answers));
    assert_eq!(messages[0]["tools"], json!([]));
}

#[test]
fn a_found_tool_runs_by_its_own_name_and_hooks_see_the_search_and_the_call() {
    let registry = registry();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    registry
        .hooks()
        .add_pre_call(None, move |call: &PendingCall<'_>| {
            log.lock().unwrap().push(call.name.to_owned());
            None
        });
    let shown = registry.definitions(&deferring(Format::Anthropic)).unwrap();
    let calls = [
        ToolCall::new("s", SEARCH_TOOL, r#"{"query": "send an email"}"#),
        ToolCall::new("e", "send_email", r#"{"to": "ada@example.org"}"#),
    ];
    let answers = turn(&registry, &shown, &calls);
    assert_eq!(answers[1].to_value()["ran"], "send_email", "{}", answers[1]);
    assert_eq!(*seen.lock().unwrap(), [SEARCH_TOOL, "send_email"]);
}
