//! `serve --search` (`ToolServer::defer`): `tools/list` shows the pinned tools and the search
//! bridge instead of every tool; a client finds a tool with `tool_search` and runs it with
//! `tool_call`, as the real tool (its hooks see its own name), with rmcp's own client.

#![cfg(feature = "mcp")]

use std::sync::{Arc, Mutex};

use hermes_tools::hooks::PendingCall;
use hermes_tools::mcp::server::ToolServer;
use hermes_tools::search::Deferral;
use hermes_tools::{ToolRegistry, tool::Tool};
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};

#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::default()
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }
}

async fn connect(server: ToolServer) -> RunningService<RoleClient, Client> {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    Client
        .serve(client_io)
        .await
        .expect("the client initialises")
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(name.to_owned());
    if let Value::Object(arguments) = arguments {
        params.arguments = Some(JsonObject::from_iter(arguments));
    }
    params
}

fn answer(result: &CallToolResult) -> Value {
    let wire = serde_json::to_value(result).expect("serializes");
    let text = wire["content"][0]["text"].as_str().unwrap_or_default();
    serde_json::from_str(text).unwrap_or(Value::String(text.to_owned()))
}

fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    let text =
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    let tools = [
        Tool::builder("echo", "demo")
            .description("Return the text it is given.")
            .parameters(text.clone())
            .handler(|args, _ctx| json!({"echo": args["text"]})),
        Tool::builder("shout", "demo")
            .description("Turn the text into upper case letters.")
            .parameters(text.clone())
            .handler(|args, _ctx| json!({"shout": args["text"].as_str().unwrap_or("").to_uppercase()})),
        Tool::builder("count_words", "demo")
            .description("Count the words of the text.")
            .parameters(text)
            .handler(|args, _ctx| json!({"words": args["text"].as_str().unwrap_or("").split_whitespace().count()})),
    ];
    for tool in tools {
        registry.register(tool.build()).expect("registers");
    }
    registry
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_searching_server_lists_the_bridge_and_runs_found_tools_as_themselves() {
    let registry = registry();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    registry
        .hooks()
        .add_pre_call(None, move |call: &PendingCall<'_>| {
            log.lock().unwrap().push(call.name.to_owned());
            None
        });
    let server = ToolServer::new(registry.clone()).defer(Deferral::default().all().pin(["echo"]));
    let session = connect(server).await;

    let listed: Vec<String> = session
        .list_all_tools()
        .await
        .expect("lists")
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    assert_eq!(
        listed,
        ["echo", "tool_search", "tool_describe", "tool_call"]
    );

    let found = session
        .call_tool(call(
            "tool_search",
            json!({"queries": ["upper case letters"]}),
        ))
        .await
        .expect("searches");
    let found = answer(&found);
    assert_eq!(found["results"][0]["tools"][0]["name"], "shout", "{found}");

    let shouted = session
        .call_tool(call(
            "tool_call",
            json!({"name": "shout", "arguments": {"text": "hi"}}),
        ))
        .await
        .expect("calls");
    assert_eq!(shouted.is_error, Some(false));
    assert_eq!(answer(&shouted)["shout"], "HI");
    assert_eq!(
        *seen.lock().unwrap(),
        ["tool_search", "shout"],
        "hooks see the real tool"
    );

    // A deferred tool called by its own name is told how to reach it.
    let direct = session
        .call_tool(call("count_words", json!({"text": "a b"})))
        .await
        .expect("answers");
    assert_eq!(direct.is_error, Some(true));
    assert!(
        answer(&direct).to_string().contains("tool_call"),
        "{direct:?}"
    );
    session.cancel().await.expect("closes");
}
