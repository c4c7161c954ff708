//! Requests a server sends the client, answered through the [`Asker`] the agent provides:
//! sampling (`sampling/createMessage`) through its `sample`, elicitation (`elicitation/create`)
//! through its `elicit`, with npm `@modelcontextprotocol/server-everything` asking (its
//! `trigger-sampling-request` and `trigger-elicitation-request` tools, which it offers only to
//! a client that offers the capability).
#![cfg(feature = "mcp")]

#[path = "servers/third_party.rs"]
mod third_party;

use std::sync::Arc;

use hermes_tools::call::{
    AskError, Asker, BoxFuture, Elicitation, ElicitationReply, Sampling, SamplingReply,
    SamplingRole,
};
use hermes_tools::config::{Config, McpServerConfig};
use hermes_tools::mcp::client::{McpClients, McpOptions};
use hermes_tools::{ToolContext, ToolRegistry, toolsets::Selection};
use parking_lot::Mutex;
use serde_json::{Map, Value, json};
use third_party::everything_entry;

/// Samples only: replies "sampled: <last message>" and keeps every request.
#[derive(Debug, Default)]
struct TestSampler {
    seen: Mutex<Vec<Sampling>>,
}

impl Asker for TestSampler {
    fn can_sample(&self) -> bool {
        true
    }

    fn sample(&self, request: Sampling) -> BoxFuture<'static, Result<SamplingReply, AskError>> {
        let last = request
            .messages
            .last()
            .map(|m| m.text.clone())
            .unwrap_or_default();
        self.seen.lock().push(request);
        Box::pin(async move {
            Ok(
                SamplingReply::new(format!("sampled: {last}"), "test-model-1")
                    .with_stop_reason("endTurn"),
            )
        })
    }
}

/// Elicits only: answers with `reply` and keeps every question.
#[derive(Debug)]
struct TestElicitor {
    reply: ElicitationReply,
    seen: Mutex<Vec<Elicitation>>,
}

impl Asker for TestElicitor {
    fn can_elicit(&self) -> bool {
        true
    }

    fn elicit(
        &self,
        request: Elicitation,
    ) -> BoxFuture<'static, Result<ElicitationReply, AskError>> {
        self.seen.lock().push(request);
        let reply = self.reply.clone();
        Box::pin(async move { Ok(reply) })
    }
}

fn everything(max_tokens: u32, max_per_minute: u32) -> Config {
    let entry = everything_entry();
    let mut server = McpServerConfig::stdio("node", [entry.to_str().unwrap(), "stdio"]);
    server.sampling.max_tokens = max_tokens;
    server.sampling.max_per_minute = max_per_minute;
    Config {
        mcp_servers: [("everything".to_owned(), server)].into(),
        ..Config::default()
    }
}

/// A registry with `config`'s servers started, their questions answered by `asker`.
async fn started(config: &Config, asker: Arc<dyn Asker>) -> (ToolRegistry, McpClients) {
    let options = McpOptions {
        asker: Some(asker),
        ..McpOptions::default()
    };
    let registry = ToolRegistry::new();
    let clients = McpClients::start_with(&registry, config, &Selection::default(), options).await;
    (registry, clients)
}

async fn call(registry: &ToolRegistry, name: &str, args: Value) -> hermes_tools::ToolAnswer {
    registry
        .call(name, &args.to_string(), &ToolContext::new())
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn a_sampling_request_is_answered_by_the_agents_asker_within_the_servers_bounds() {
    let sampler = Arc::new(TestSampler::default());
    let (registry, clients) = started(&everything(100, 2), sampler.clone()).await;

    let tool = "mcp__everything__trigger_sampling_request";
    let answer = call(
        &registry,
        tool,
        json!({"prompt": "hello", "maxTokens": 5000}),
    )
    .await;
    assert!(!answer.is_error(), "{answer}");
    let text = answer.as_str();
    assert!(
        text.contains("sampled: Resource trigger-sampling-request context: hello"),
        "{text}"
    );
    assert!(text.contains("test-model-1"), "{text}");
    {
        let seen = sampler.seen.lock();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].server.as_deref(), Some("everything"));
        // 5000 asked, 100 allowed.
        assert_eq!(seen[0].max_tokens, 100);
        assert_eq!(seen[0].messages[0].role, SamplingRole::User);
        assert_eq!(
            seen[0].system_prompt.as_deref(),
            Some("You are a helpful test server.")
        );
    }

    // Two a minute: the third is refused, saying why, and never reaches the sampler.
    let second = call(&registry, tool, json!({"prompt": "again"})).await;
    assert!(!second.is_error(), "{second}");
    let third = call(&registry, tool, json!({"prompt": "once more"})).await;
    assert!(
        third.as_str().contains("at most 2 times a minute"),
        "{third}"
    );
    assert_eq!(sampler.seen.lock().len(), 2);
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn a_reply_by_a_model_the_server_may_not_be_answered_by_is_withheld() {
    let sampler = Arc::new(TestSampler::default());
    // Two servers, one allowed the sampler's model by prefix, one not.
    let mut config = everything(100, 10);
    let mut allowed = config.mcp_servers["everything"].clone();
    allowed.sampling.allowed_models = vec!["test-model-*".to_owned()];
    let mut denied = allowed.clone();
    denied.sampling.allowed_models = vec!["other-model".to_owned()];
    config.mcp_servers = [
        ("allowed".to_owned(), allowed),
        ("denied".to_owned(), denied),
    ]
    .into();
    let (registry, clients) = started(&config, sampler.clone()).await;
    let ok = call(
        &registry,
        "mcp__allowed__trigger_sampling_request",
        json!({"prompt": "hi"}),
    )
    .await;
    assert!(ok.as_str().contains("sampled: "), "{ok}");
    let withheld = call(
        &registry,
        "mcp__denied__trigger_sampling_request",
        json!({"prompt": "hi"}),
    )
    .await;
    let text = withheld.as_str();
    assert!(
        text.contains("allowed_models") && text.contains("other-model"),
        "{text}"
    );
    assert!(
        !text.contains("sampled: "),
        "the reply reached the server: {text}"
    );
    {
        let seen = sampler.seen.lock();
        assert_eq!(seen.len(), 2, "both asked the sampler");
        assert_eq!(seen[1].allowed_models, ["other-model"]);
    }
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn without_an_asker_nothing_is_offered_and_the_server_does_not_ask() {
    let registry = ToolRegistry::new();
    let clients = McpClients::start(&registry, &everything(100, 10), &Selection::default()).await;
    assert!(registry.get("mcp__everything__echo").is_some());
    assert!(
        registry
            .get("mcp__everything__trigger_sampling_request")
            .is_none()
    );
    assert!(
        registry
            .get("mcp__everything__trigger_elicitation_request")
            .is_none()
    );
    clients.shutdown().await;

    // An asker that only samples is offered sampling, not elicitation.
    let (registry, clients) = started(&everything(100, 10), Arc::new(TestSampler::default())).await;
    assert!(
        registry
            .get("mcp__everything__trigger_sampling_request")
            .is_some()
    );
    assert!(
        registry
            .get("mcp__everything__trigger_elicitation_request")
            .is_none()
    );
    clients.shutdown().await;

    // An operator can turn sampling off for a server even when the agent's asker samples.
    let mut config = everything(100, 10);
    if let Some(server) = config.mcp_servers.get_mut("everything") {
        server.sampling.enabled = false;
    }
    let (registry, clients) = started(&config, Arc::new(TestSampler::default())).await;
    assert!(registry.get("mcp__everything__echo").is_some());
    assert!(
        registry
            .get("mcp__everything__trigger_sampling_request")
            .is_none()
    );
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn an_elicitation_is_answered_by_the_agents_asker() {
    let mut values = Map::new();
    values.insert("name".into(), json!("Ada Lovelace"));
    values.insert("check".into(), json!(true));
    for (reply, expected) in [
        (ElicitationReply::Accept(values), "- Name: Ada Lovelace"),
        (ElicitationReply::Decline, "declined"),
        (ElicitationReply::Cancel, "cancelled"),
    ] {
        let elicitor = Arc::new(TestElicitor {
            reply,
            seen: Mutex::new(Vec::new()),
        });
        let (registry, clients) = started(&everything(100, 10), elicitor.clone()).await;
        let answer = call(
            &registry,
            "mcp__everything__trigger_elicitation_request",
            json!({}),
        )
        .await;
        assert!(answer.as_str().contains(expected), "{answer}");
        let seen = elicitor.seen.lock().clone();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].server.as_deref(), Some("everything"));
        assert_eq!(
            seen[0].message,
            "Please provide inputs for the following fields:"
        );
        assert_eq!(
            seen[0].schema["required"],
            json!(["name"]),
            "{}",
            seen[0].schema
        );
        assert_eq!(seen[0].schema["properties"]["name"]["type"], "string");
        clients.shutdown().await;
    }
}
