//! Our MCP client against `rmcp`'s own server (`rmcp-asking-server`, rmcp 3.11) in the
//! 2026-07-28 era: found by `server/discover` under `protocol = "auto"`, a call, a Multi
//! Round-Trip Request answered through the agent's asker, and the bound on rounds.

mod support;

use std::sync::Arc;

use hermes_tools::call::Asker;
use hermes_tools::config::{Config, McpServerConfig};
use hermes_tools::mcp::client::{Era, McpClients, McpOptions, ServerState};
use hermes_tools::{ToolContext, ToolRegistry, toolsets::Selection};
use serde_json::json;
use support::Answering;

#[tokio::test(flavor = "multi_thread")]
async fn rmcps_server_in_the_modern_era_lists_calls_and_asks_through_the_asker() {
    let mut server = McpServerConfig::stdio(env!("CARGO_BIN_EXE_rmcp-asking-server"), [""; 0]);
    server.connect_timeout_secs = 60;
    server.call_timeout_secs = 60;
    let config = Config {
        mcp_servers: [("rmcp".to_owned(), server)].into(),
        ..Config::default()
    };
    let asker = Arc::new(Answering::default());
    let options = McpOptions {
        asker: Some(Arc::clone(&asker) as Arc<dyn Asker>),
        ..McpOptions::default()
    };
    let registry = ToolRegistry::new();
    let clients = McpClients::start_with(&registry, &config, &Selection::default(), options).await;
    let status = clients.status("rmcp").unwrap();
    let ServerState::Running { tools } = &status.state else {
        panic!("{status}");
    };
    assert_eq!(
        tools,
        &[
            "mcp__rmcp__add",
            "mcp__rmcp__ask_forever",
            "mcp__rmcp__greet"
        ]
    );
    assert_eq!(
        status.era,
        Some(Era::Modern {
            version: "2026-07-28".into()
        }),
        "{status}"
    );

    let call = |name: &'static str, args: serde_json::Value| {
        let registry = registry.clone();
        async move {
            registry
                .call(name, &args.to_string(), &ToolContext::new())
                .await
        }
    };
    let sum = call("mcp__rmcp__add", json!({"a": 40, "b": 2})).await;
    assert_eq!(sum.as_str(), r#"{"result":"42"}"#, "{sum}");
    let greeting = call("mcp__rmcp__greet", json!({})).await;
    assert!(
        greeting
            .as_str()
            .contains("Hello, Ada! (accept; state rmcp-round-1)"),
        "{greeting}"
    );
    assert_eq!(*asker.questions.lock().unwrap(), ["What is your name?"]);

    // A server that never stops asking is given up on, saying so.
    let endless = call("mcp__rmcp__ask_forever", json!({})).await;
    assert!(endless.is_error(), "{endless}");
    assert!(
        endless
            .as_str()
            .contains("asked for input 10 times without finishing the call to \\\"ask_forever\\\""),
        "{endless}"
    );
    // Nine answered; the tenth question, with no retry to carry its answer, is not asked.
    assert_eq!(asker.questions.lock().unwrap().len(), 10);
    clients.shutdown().await;
}
