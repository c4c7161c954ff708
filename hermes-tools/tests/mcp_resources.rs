//! A server's resources and prompts through the utility tools the client adds for them
//! (`list_resources`, `read_resource`, `list_prompts`, `get_prompt`), against npm
//! `@modelcontextprotocol/server-everything` (which holds both) and PyPI `mcp-server-time`
//! (which advertises both and holds neither). Over HTTP, `mcp_remote.rs` reads them from the
//! Python SDK's server.
#![cfg(feature = "mcp")]

#[path = "servers/third_party.rs"]
mod third_party;

use hermes_tools::config::{Config, McpServerConfig};
use hermes_tools::mcp::client::{McpClients, ServerState};
use hermes_tools::{ToolContext, ToolRegistry, toolsets::Selection};
use serde_json::json;
use third_party::{everything_entry, installed_python};

async fn call(registry: &ToolRegistry, name: &str, args: &str) -> hermes_tools::ToolAnswer {
    registry.call(name, args, &ToolContext::new()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the npm MCP server that `bash .ci/test` installs"]
async fn a_servers_resources_and_prompts_are_read_through_its_utility_tools() {
    let entry = everything_entry();
    let registry = ToolRegistry::new();
    let entry = entry.to_str().unwrap();
    let python = installed_python();
    let config = Config {
        mcp_servers: [
            (
                "everything".to_owned(),
                McpServerConfig::stdio("node", [entry, "stdio"]),
            ),
            // It advertises resources and prompts but holds none: no utility tools.
            (
                "time".to_owned(),
                McpServerConfig::stdio(python, ["-m", "mcp_server_time"]),
            ),
        ]
        .into(),
        ..Config::default()
    };
    let clients = McpClients::start(&registry, &config, &Selection::default()).await;
    let ServerState::Running { tools } = clients.status("time").unwrap().state else {
        panic!("time is running")
    };
    assert_eq!(
        tools,
        ["mcp__time__convert_time", "mcp__time__get_current_time"]
    );

    let listed = call(&registry, "mcp__everything__list_resources", "{}").await;
    let listed = listed.to_value();
    let uris: Vec<&str> = listed["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .filter_map(|resource| resource["uri"].as_str())
        .collect();
    assert!(
        uris.contains(&"demo://resource/static/document/architecture.md"),
        "{listed}"
    );
    let templates = listed["templates"].to_string();
    assert!(
        templates.contains("demo://resource/dynamic/text/{resourceId}"),
        "{templates}"
    );

    let read = call(
        &registry,
        "mcp__everything__read_resource",
        r#"{"uri": "demo://resource/dynamic/text/3"}"#,
    )
    .await;
    let text = read.to_value()["result"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        text.starts_with("[resource demo://resource/dynamic/text/3]\nResource 3:"),
        "{read}"
    );
    let binary = call(
        &registry,
        "mcp__everything__read_resource",
        r#"{"uri": "demo://resource/dynamic/blob/1"}"#,
    )
    .await;
    assert!(binary.as_str().contains("binary"), "{binary}");
    let missing = call(
        &registry,
        "mcp__everything__read_resource",
        r#"{"uri": "demo://nope"}"#,
    )
    .await;
    assert!(missing.is_error(), "{missing}");
    assert!(
        missing.as_str().contains("demo://nope not found"),
        "{missing}"
    );
    // The utility's own schema is enforced before any request.
    let no_uri = call(&registry, "mcp__everything__read_resource", "{}").await;
    assert!(no_uri.as_str().contains("uri"), "{no_uri}");

    let prompts = call(&registry, "mcp__everything__list_prompts", "{}").await;
    let prompts = prompts.to_value();
    let args_prompt = prompts["prompts"]
        .as_array()
        .unwrap_or_else(|| panic!("{prompts}"))
        .iter()
        .find(|prompt| prompt["name"] == "args-prompt")
        .unwrap_or_else(|| panic!("args-prompt in {prompts}"));
    assert_eq!(args_prompt["arguments"][0]["name"], "city", "{args_prompt}");
    let prompt = call(
        &registry,
        "mcp__everything__get_prompt",
        r#"{"name": "args-prompt", "arguments": {"city": "Paris"}}"#,
    )
    .await;
    assert_eq!(
        prompt.to_value()["messages"],
        json!([{"role": "user", "content": "What's weather in Paris?"}]),
        "{prompt}"
    );
    // An embedded resource in a prompt's message is shown as its text.
    let embedded = call(
        &registry,
        "mcp__everything__get_prompt",
        r#"{"name": "resource-prompt", "arguments": {"resourceType": "Text", "resourceId": "2"}}"#,
    )
    .await;
    assert!(
        embedded
            .as_str()
            .contains("[resource demo://resource/dynamic/text/2]"),
        "{embedded}"
    );
    clients.shutdown().await;
}
