//! Our MCP client under the conformance suite's client scenarios
//! (`@modelcontextprotocol/conformance client --command "conformance-client" --scenario …`).
//!
//! The suite starts a server, runs `conformance-client <server-url>` with the scenario's name
//! in `MCP_CONFORMANCE_SCENARIO`, and judges what the client sent. The client is the
//! library's, configured as an operator would (`[mcp_servers.test] url = …`), with an elicitor
//! that accepts and answers nothing itself (so the schema's defaults are what is sent); each
//! scenario then calls the tool its server offers:
//!
//! | scenario | what the client does |
//! |---|---|
//! | `initialize` | connects and lists the tools |
//! | `tools_call` | calls `add_numbers` |
//! | `elicitation-sep1034-client-defaults` | calls `test_client_elicitation_defaults` |
//! | `sse-retry` | calls `test_reconnection` (its stream closes; the client resumes it) |
//! | `auth/*` | authorizes (`[mcp_servers.test.oauth]`, with the suite's pre-registered client from `MCP_CONFORMANCE_CONTEXT` when it gives one) and calls every tool |
//! | `auth/client-credentials-*` | the same as a machine client (`grant = "client_credentials"`): the suite's client secret, or its private key (written to a file, as an operator would give it) with its algorithm |
//!
//! The user's approval is headless: the suite's authorization server approves at once and
//! redirects; [`Headless`] reads that redirect instead of a browser following it.
//!
//! It prints each answer and exits 1 when the server did not start or a call failed.

use std::process::ExitCode;
use std::sync::Arc;

use hermes_tools::call::{AskError, Asker, BoxFuture, Elicitation, ElicitationReply};
use hermes_tools::config::{
    Config, JwtAlgorithm, McpServerConfig, OAuthConfig, OAuthGrant, PrivateKeyJwt,
};
use hermes_tools::mcp::client::{
    AuthorizationPrompt, Authorizer, McpClients, McpOptions, ServerState,
};
use hermes_tools::{ToolContext, ToolRegistry, toolsets::Selection};
use serde_json::Map;

/// Accepts every question with no value of its own: the client fills in the defaults.
struct AcceptDefaults;

impl Asker for AcceptDefaults {
    fn can_elicit(&self) -> bool {
        true
    }

    fn elicit(
        &self,
        _request: Elicitation,
    ) -> BoxFuture<'static, Result<ElicitationReply, AskError>> {
        Box::pin(async { Ok(ElicitationReply::Accept(Map::new())) })
    }
}

/// Approves every authorization: fetches the authorization URL and returns where its answer
/// redirects (the suite's authorization server approves without asking).
#[derive(Debug)]
struct Headless;

impl Authorizer for Headless {
    fn authorize(&self, prompt: AuthorizationPrompt) -> BoxFuture<'static, Result<String, String>> {
        Box::pin(async move {
            let http = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|err| err.to_string())?;
            let response = http
                .get(&prompt.url)
                .send()
                .await
                .map_err(|err| err.to_string())?;
            let location = response.headers().get("location");
            location
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| {
                    format!(
                        "the authorization answered {}, no redirect",
                        response.status()
                    )
                })
        })
    }
}

/// The OAuth settings of an `auth/*` scenario: the suite's client metadata document URL, and
/// its pre-registered client when `MCP_CONFORMANCE_CONTEXT` names one; for
/// `auth/client-credentials-*`, its machine client. `key_file`: where a private key the suite
/// gives is written.
fn oauth(scenario: &str, key_file: &std::path::Path) -> Result<OAuthConfig, String> {
    let context: serde_json::Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let text = |key: &str| context[key].as_str().map(str::to_owned);
    let mut oauth = OAuthConfig::default();
    if scenario.starts_with("auth/client-credentials-") {
        oauth.grant = OAuthGrant::ClientCredentials;
        oauth.client_id = text("client_id");
        oauth.client_secret = text("client_secret");
        if let Some(pem) = text("private_key_pem") {
            std::fs::write(key_file, pem).map_err(|err| format!("writing the key: {err}"))?;
            let algorithm: JwtAlgorithm =
                serde_json::from_value(context["signing_algorithm"].clone())
                    .map_err(|err| format!("the suite's signing_algorithm: {err}"))?;
            oauth.private_key_jwt = Some(PrivateKeyJwt::new(key_file, algorithm));
        }
        return Ok(oauth);
    }
    oauth.client_metadata_url =
        Some("https://conformance-test.local/client-metadata.json".to_owned());
    oauth.redirect_uri = "http://localhost:3000/callback".to_owned();
    oauth.client_id = text("client_id");
    oauth.client_secret = text("client_secret");
    Ok(oauth)
}

/// The tool a scenario's server expects to be called, with its arguments.
fn call_of(scenario: &str) -> Option<(&'static str, &'static str)> {
    match scenario {
        "tools_call" => Some(("add_numbers", r#"{"a": 5, "b": 3}"#)),
        "elicitation-sep1034-client-defaults" => Some(("test_client_elicitation_defaults", "{}")),
        "sse-retry" => Some(("test_reconnection", "{}")),
        _ => None,
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance-client <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let mut server = McpServerConfig::http(url);
    server.connect_timeout_secs = 20;
    server.call_timeout_secs = 20;
    // The pinned suite (0.1.16) knows the protocol up to 2025-11-25 and checks that
    // `initialize` offers it; our client otherwise offers rmcp's newest, 2026-07-28.
    server.protocol_version = Some("2025-11-25".to_owned());
    let auth = scenario.starts_with("auth/");
    let key_file =
        std::env::temp_dir().join(format!("conformance-client-{}.pem", std::process::id()));
    if auth {
        match oauth(&scenario, &key_file) {
            Ok(oauth) => server.oauth = Some(oauth),
            Err(why) => {
                eprintln!("error: {why}");
                return ExitCode::FAILURE;
            }
        }
    }
    let config = Config {
        mcp_servers: [("test".to_owned(), server)].into(),
        ..Config::default()
    };
    let options = McpOptions {
        asker: Some(Arc::new(AcceptDefaults)),
        authorizer: Some(Arc::new(Headless)),
        ..McpOptions::default()
    };
    let registry = ToolRegistry::new();
    let clients = McpClients::start_with(&registry, &config, &Selection::default(), options).await;
    let status = clients.status("test").map(|status| status.state);
    let mut failed = !matches!(status, Some(ServerState::Running { .. }));
    if failed {
        eprintln!("error: the server did not start: {status:?}");
    } else if auth {
        let snapshot = registry.snapshot();
        let tools = snapshot
            .names()
            .filter(|name| name.starts_with("mcp__test__"));
        for tool in tools {
            let answer = registry.call(tool, "{}", &ToolContext::new()).await;
            println!("{tool}: {answer}");
            failed |= answer.is_error();
        }
    } else if let Some((tool, args)) = call_of(&scenario) {
        let answer = registry
            .call(&format!("mcp__test__{tool}"), args, &ToolContext::new())
            .await;
        println!("{tool}: {answer}");
        failed = answer.is_error();
    }
    clients.shutdown().await;
    let _ = std::fs::remove_file(&key_file);
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
