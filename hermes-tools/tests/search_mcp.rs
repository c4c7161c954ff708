//! Deferral of a real MCP server's tools (the scripted server of `servers/fake_server.py`, run
//! by any Python 3): deferred by server, found, called through the bridge, and a conversation's
//! list unchanged when the server's list changes.

#![cfg(feature = "mcp")]

#[path = "servers/fake.rs"]
mod fake;

use fake::{Fake, config, eventually};
use hermes_tools::mcp::client::McpClients;
use hermes_tools::search::{Conversation, Deferral};
use hermes_tools::tool::Tool;
use hermes_tools::toolsets::Selection;
use hermes_tools::{CallOptions, DefinitionsRequest, Format, ToolContext, ToolRegistry};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_tools_are_deferred_found_called_and_kept_in_place_when_its_list_changes() {
    let fake = Fake::new();
    let registry = ToolRegistry::new();
    let native = Tool::builder("read_file", "files")
        .description("Read a text file.")
        .parameters(json!({"type": "object", "properties": {"path": {"type": "string"}}}))
        .handler(|_: Value, _: &ToolContext| "contents")
        .build();
    registry.register(native).unwrap();
    let clients = McpClients::start(
        &registry,
        &config([("fake", fake.config())]),
        &Selection::default(),
    )
    .await;
    assert!(registry.get("mcp__fake__echo").is_some());
    let request = DefinitionsRequest::all()
        .format(Format::OpenAi)
        .defer(Deferral::default().servers(["fake"]));
    let conversation = Conversation::new(request.clone());
    let first = conversation.definitions(&registry).unwrap();
    assert!(first.contains("read_file"));
    assert!(first.is_deferred("mcp__fake__echo"));
    let manifest = first[1]["function"]["description"].as_str().unwrap();
    assert!(
        manifest.contains("- mcp-fake: ") && manifest.contains("mcp__fake__echo (Echo the text.)"),
        "{manifest}"
    );

    let ctx = ToolContext::new();
    let options = CallOptions::new().definitions(first.clone());
    let found = registry
        .call_with(
            "tool_search",
            r#"{"queries": ["echo some text back"]}"#,
            &ctx,
            &options,
        )
        .await;
    assert_eq!(
        found.to_value()["results"][0]["tools"][0]["name"],
        "mcp__fake__echo",
        "{found:?}"
    );
    // The server's own schema requires `text`: judged through the bridge as for a direct call.
    let missing = registry
        .call_with(
            "tool_call",
            r#"{"name": "mcp__fake__echo", "arguments": {}}"#,
            &ctx,
            &options,
        )
        .await;
    assert!(
        missing.is_error() && missing.as_str().contains("text"),
        "{missing:?}"
    );
    let echoed = registry
        .call_with(
            "tool_call",
            r#"{"name": "mcp__fake__echo", "arguments": {"text": "through the bridge"}}"#,
            &ctx,
            &options,
        )
        .await;
    assert!(echoed.as_str().contains("through the bridge"), "{echoed:?}");

    // The server's list changes (one tool goes, one comes): the conversation's list keeps its
    // bytes, while a list computed afresh would not, and search finds the newcomer.
    let swapped = registry
        .call_with(
            "tool_call",
            r#"{"name": "mcp__fake__swap", "arguments": {}}"#,
            &ctx,
            &options,
        )
        .await;
    assert!(!swapped.is_error(), "{swapped:?}");
    eventually("the new tool is registered", || {
        registry.get("mcp__fake__added").is_some()
    })
    .await;
    let bytes = |d: &hermes_tools::definitions::Definitions| serde_json::to_string(d).unwrap();
    let second = conversation.definitions(&registry).unwrap();
    assert_eq!(bytes(&first), bytes(&second));
    assert_ne!(
        bytes(&first),
        bytes(&registry.definitions(&request).unwrap())
    );
    let options = CallOptions::new().definitions(second);
    let found = registry
        .call_with(
            "tool_search",
            r#"{"queries": ["select:mcp__fake__added"]}"#,
            &ctx,
            &options,
        )
        .await;
    assert_eq!(
        found.to_value()["results"][0]["tools"][0]["name"],
        "mcp__fake__added"
    );
    clients.shutdown().await;
}
