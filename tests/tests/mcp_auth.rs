//! The MCP server's authentication, against real clients and a real authorization server:
//! bearer tokens beyond loopback (the Python SDK sending one), sessions that belong to the
//! token (or subject) that opened them, and OAuth resource-server mode against a local
//! authorization server (tests/interop/authorization_server.py), which made-up tokens cannot
//! flood with introspections, and which also issues our MCP client, as a machine
//! (`grant = "client_credentials"`), the tokens it calls `serve` with.
//!
//! These tests need `HERMES_PYTHON`, which `bash .ci/test` sets after installing the pinned
//! packages; without it they fail and say so.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use support::{
    HttpServer, INITIALIZE, SERVER, TOOLS_LIST, field, http_get, open_session_as, post_as,
    post_initialize, python, python_scenario, raw_request, root, run,
};

/// A port free now, for a server whose URL must be known before it starts.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

#[test]
fn a_session_answers_only_the_token_that_opened_it() {
    let (alice, bob) = (
        "a11ce0000000000000000000000000000000",
        "b0b00000000000000000000000000000000b",
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("tokens");
    std::fs::write(&file, format!("{alice}\n{bob}\n")).expect("written");
    let server = HttpServer::start_with(SERVER, &["--token-file", file.to_str().expect("UTF-8")]);
    let url = &server.url;

    let alices = open_session_as(url, alice);
    let bobs = open_session_as(url, bob);
    assert_ne!(alices, bobs);
    for (token, session, expected) in [
        (bob, &alices, "404"),
        (alice, &bobs, "404"),
        (alice, &alices, "200"),
        (bob, &bobs, "200"),
    ] {
        let (status, _) = post_as(url, token, Some(session), TOOLS_LIST);
        assert!(
            status.starts_with(&format!("HTTP/1.1 {expected}")),
            "{token} in {session}: {status}"
        );
    }
    // Nor can another token resume its streams or end it.
    let as_bob = format!("Bearer {bob}");
    for (method, accept) in [("GET", "text/event-stream"), ("DELETE", "*/*")] {
        let headers = [
            ("Authorization", as_bob.as_str()),
            ("Mcp-Session-Id", alices.as_str()),
            ("Accept", accept),
        ];
        let (status, _) = raw_request(url, method, &headers, "");
        assert!(status.starts_with("HTTP/1.1 404"), "{method}: {status}");
    }
    let (status, _) = post_as(url, alice, Some(&alices), TOOLS_LIST);
    assert!(
        status.starts_with("HTTP/1.1 200"),
        "still alice's: {status}"
    );
}

#[test]
#[ignore = "needs the Python MCP SDK that `bash .ci/test` installs"]
fn serve_beyond_loopback_requires_a_bearer_token_and_serves_the_python_sdk_with_it() {
    let (status, output) = run(
        Command::new(SERVER).args(["serve", "--http", "0.0.0.0:0"]),
        Duration::from_secs(30),
    );
    assert_eq!(status.and_then(|s| s.code()), Some(2), "{output}");
    assert!(
        output.contains("without authentication") && output.contains("--token-file"),
        "{output}"
    );

    let token = "3f9c2a7d1e5b8c0f4a6d2e9b7c1f3a5d";
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("tokens");
    std::fs::write(&file, format!("# issued to the test\n{token}\n")).expect("written");
    let server = HttpServer::start_at(
        SERVER,
        "0.0.0.0:0",
        &["--token-file", file.to_str().expect("UTF-8")],
    );
    let (status, challenge) = post_initialize(&server.url, None);
    assert!(status.starts_with("HTTP/1.1 401"), "{status}");
    assert_eq!(challenge.as_deref(), Some(r#"Bearer realm="mcp""#));
    let wrong = format!("Bearer {}", token.replace('3', "4"));
    let (status, challenge) = post_initialize(&server.url, Some(&wrong));
    assert!(status.starts_with("HTTP/1.1 401"), "{status}");
    assert!(challenge.is_some_and(|c| c.contains("invalid_token")));
    let (status, _) = post_initialize(&server.url, Some(&format!("Bearer {token}")));
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");

    let out = python_scenario(&["http-bearer", &server.url, token]);
    assert!(out.contains("ok: refused without a token"), "{out}");
    assert!(out.contains("ok: served with the token"), "{out}");
}

/// The local authorization server fixture (tests/interop/authorization_server.py), killed on
/// drop, and its issuer URL.
struct AuthorizationServer {
    child: Child,
    issuer: String,
}

impl AuthorizationServer {
    fn start(resource: &str, client_id: &str, secret: &str) -> Self {
        let script = root().join("tests/interop/authorization_server.py");
        let mut child = Command::new(python())
            .arg(script)
            .args([resource, client_id, secret])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the authorization server starts");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("its address");
        let issuer = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("the authorization server printed {line:?}"))
            .to_owned();
        Self { child, issuer }
    }
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
#[ignore = "needs the Python MCP SDK that `bash .ci/test` installs"]
fn oauth_resource_server_mode_checks_tokens_at_a_local_authorization_server() {
    // The endpoint's URL is what tokens are issued for, so its port is chosen first.
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let authorization = AuthorizationServer::start(&resource, "tools-host", "s3cret-of-the-host");
    // Misconfigured, `serve` says what to fix and exits 2 before listening.
    let oauth = [
        "serve",
        "--http",
        "127.0.0.1:0",
        "--oauth-client-id",
        "tools-host",
    ];
    let (status, output) = run(
        Command::new(SERVER)
            .args(oauth)
            .args(["--oauth-issuer", &authorization.issuer])
            .env_remove("HERMES_OAUTH_CLIENT_SECRET"),
        Duration::from_secs(30),
    );
    assert_eq!(status.and_then(|s| s.code()), Some(2), "{output}");
    assert!(output.contains("HERMES_OAUTH_CLIENT_SECRET"), "{output}");
    let (status, output) = run(
        Command::new(SERVER)
            .args(oauth)
            .args(["--oauth-issuer", "http://127.0.0.1:9/nowhere"])
            .env("HERMES_OAUTH_CLIENT_SECRET", "x"),
        Duration::from_secs(30),
    );
    assert!(!status.is_some_and(|s| s.success()), "{output}");
    assert!(
        output.contains("cannot read the authorization server's metadata"),
        "{output}"
    );
    let (status, output) = run(
        Command::new(SERVER)
            .args([
                "serve",
                "--http",
                "0.0.0.0:0",
                "--oauth-client-id",
                "tools-host",
            ])
            .args(["--oauth-issuer", &authorization.issuer])
            .env("HERMES_OAUTH_CLIENT_SECRET", "x"),
        Duration::from_secs(30),
    );
    assert!(!status.is_some_and(|s| s.success()), "{output}");
    assert!(
        output.contains("--oauth-resource"),
        "every interface is no URL: {output}"
    );

    let server = HttpServer::start_at_with_env(
        SERVER,
        &format!("0.0.0.0:{port}"),
        &[
            "--oauth-issuer",
            &authorization.issuer,
            // Bound on every address; clients reach it, and tokens name it, by this URL.
            "--oauth-resource",
            &resource,
            "--oauth-client-id",
            "tools-host",
            "--oauth-scope",
            "mcp:tools",
        ],
        &[("HERMES_OAUTH_CLIENT_SECRET", "s3cret-of-the-host")],
    );
    assert_eq!(server.url, resource);

    // The metadata says where to get a token, at both RFC 9728 places.
    let metadata_url = format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp");
    for url in [
        metadata_url.as_str(),
        &format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource"),
    ] {
        let (status, body) = http_get(url);
        assert!(status.starts_with("HTTP/1.1 200"), "{url}: {status}");
        let metadata: Value = serde_json::from_str(&body).expect("JSON metadata");
        assert_eq!(metadata["resource"], resource.as_str());
        assert_eq!(
            metadata["authorization_servers"][0],
            authorization.issuer.as_str()
        );
        assert_eq!(metadata["scopes_supported"][0], "mcp:tools");
    }

    let (status, challenge) = post_initialize(&server.url, None);
    assert!(status.starts_with("HTTP/1.1 401"), "{status}");
    assert_eq!(
        challenge.as_deref(),
        Some(format!(r#"Bearer resource_metadata="{metadata_url}""#).as_str())
    );
    for refused in ["token-elsewhere-1", "token-expired-1", "token-unknown-1"] {
        let (status, challenge) = post_initialize(&server.url, Some(&format!("Bearer {refused}")));
        assert!(status.starts_with("HTTP/1.1 401"), "{refused}: {status}");
        assert!(
            challenge.is_some_and(|c| c.contains(r#"error="invalid_token""#)),
            "{refused}"
        );
    }
    let (status, challenge) = post_initialize(&server.url, Some("Bearer token-narrow-1"));
    assert!(status.starts_with("HTTP/1.1 403"), "{status}");
    assert!(
        challenge.is_some_and(|c| c.contains(r#"error="insufficient_scope", scope="mcp:tools""#)),
        "a token without the scope is told which it needs"
    );
    let (status, _) = post_initialize(&server.url, Some("Bearer token-good-1"));
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");

    // A session is its subject's: a refreshed token of the same subject keeps it, another
    // subject's token does not see it.
    let session = open_session_as(&server.url, "token-good-alice-1");
    for (token, expected) in [("token-good-alice-2", "200"), ("token-good-bob-1", "404")] {
        let (status, _) = post_as(&server.url, token, Some(&session), TOOLS_LIST);
        assert!(
            status.starts_with(&format!("HTTP/1.1 {expected}")),
            "{token}: {status}"
        );
    }

    // The Python SDK, sending a token the authorization server issued for this endpoint.
    let out = python_scenario(&["http-bearer", &server.url, "token-good-python"]);
    assert!(out.contains("ok: refused without a token"), "{out}");
    assert!(out.contains("ok: served with the token"), "{out}");
}

#[test]
#[ignore = "needs the Python MCP SDK that `bash .ci/test` installs"]
fn made_up_tokens_cannot_flood_the_authorization_server_with_introspections() {
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let authorization = AuthorizationServer::start(&resource, "tools-host", "s3cret");
    let server = HttpServer::start_at_with_env(
        SERVER,
        &format!("127.0.0.1:{port}"),
        &[
            "--oauth-issuer",
            &authorization.issuer,
            "--oauth-client-id",
            "tools-host",
        ],
        &[("HERMES_OAUTH_CLIENT_SECRET", "s3cret")],
    );
    // 20 made-up tokens at once, each taking the authorization server 1.5 s to refuse.
    let answers: Vec<String> = std::thread::scope(|scope| {
        let calls: Vec<_> = (0..20)
            .map(|n| {
                let url = &server.url;
                scope.spawn(move || {
                    let token = format!("Bearer token-slow-{n}");
                    let (status, fields) = raw_request(
                        url,
                        "POST",
                        &[
                            ("Authorization", token.as_str()),
                            ("Content-Type", "application/json"),
                            ("Accept", "application/json, text/event-stream"),
                        ],
                        INITIALIZE,
                    );
                    let retry = field(&fields, "retry-after").unwrap_or_default();
                    format!("{status} retry-after={retry}")
                })
            })
            .collect();
        calls
            .into_iter()
            .map(|call| call.join().expect("a request"))
            .collect()
    });
    let refused = answers.iter().filter(|a| a.contains(" 401 ")).count();
    let busy = answers
        .iter()
        .filter(|a| a.contains(" 503 ") && a.ends_with("retry-after=1"))
        .count();
    assert_eq!(refused + busy, 20, "{answers:?}");
    assert!(busy > 0, "some were told to come back: {answers:?}");
    let (status, body) = http_get(&format!("{}/stats", authorization.issuer));
    assert!(status.contains(" 200 "), "{status}");
    let stats: Value = serde_json::from_str(&body).expect("JSON stats");
    assert!(stats["most_in_flight"].as_u64() <= Some(8), "{stats}");
    // Only the refused were asked about: the busy never reached it.
    assert_eq!(
        stats["introspections"].as_u64(),
        Some(refused as u64),
        "{stats}"
    );
}

/// Our MCP client as a machine (`grant = "client_credentials"`) against `serve` in OAuth
/// resource-server mode: it gets a token from the local authorization server when it connects,
/// a new one when that token expires (the authorization server says 2 s), and with a wrong
/// secret it is refused, the error naming what to check and never the secret.
#[test]
#[ignore = "needs the Python MCP SDK that `bash .ci/test` installs"]
fn a_machine_client_gets_its_token_at_connect_and_again_after_it_expires() {
    use hermes_tools::config::{Config, McpServerConfig, OAuthConfig, OAuthGrant};
    use hermes_tools::mcp::client::{McpClients, McpOptions, ServerState};
    use hermes_tools::{ToolContext, ToolRegistry, toolsets::Selection};

    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let authorization = AuthorizationServer::start(&resource, "agent", "s3cret");
    let _server = HttpServer::start_at_with_env(
        SERVER,
        &format!("127.0.0.1:{port}"),
        &[
            "--oauth-issuer",
            &authorization.issuer,
            "--oauth-client-id",
            "agent",
            "--oauth-scope",
            "mcp:tools",
        ],
        &[("HERMES_OAUTH_CLIENT_SECRET", "s3cret")],
    );
    let tokens = || {
        let (_, body) = http_get(&format!("{}/stats", authorization.issuer));
        let stats: Value = serde_json::from_str(&body).expect("JSON stats");
        stats["tokens"].as_u64().expect("a count of tokens")
    };
    let connect = |secret: &str| {
        let mut oauth = OAuthConfig::default();
        oauth.grant = OAuthGrant::ClientCredentials;
        oauth.client_id = Some("agent".to_owned());
        oauth.client_secret = Some(secret.to_owned());
        oauth.scopes = vec!["mcp:tools".to_owned()];
        let mut server = McpServerConfig::http(resource.clone());
        server.oauth = Some(oauth);
        server.protocol_version = Some("2025-11-25".to_owned());
        Config {
            mcp_servers: [("m".to_owned(), server)].into(),
            ..Config::default()
        }
    };
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        let registry = ToolRegistry::new();
        let config = connect("machine-s3cret");
        let clients = McpClients::start_with(
            &registry,
            &config,
            &Selection::default(),
            McpOptions::default(),
        )
        .await;
        let state = clients.status("m").map(|status| status.state);
        assert!(
            matches!(state, Some(ServerState::Running { .. })),
            "{state:?}"
        );
        assert_eq!(tokens(), 1, "one token, fetched when it connected");
        let tool = "mcp__m__test_simple_text";
        let answer = registry.call(tool, "{}", &ToolContext::new()).await;
        assert!(!answer.is_error(), "{answer}");
        tokio::time::sleep(Duration::from_secs(3)).await;
        let answer = registry.call(tool, "{}", &ToolContext::new()).await;
        assert!(!answer.is_error(), "after the token expired: {answer}");
        assert!(tokens() >= 2, "a new token after the first expired");
        clients.shutdown().await;

        let registry = ToolRegistry::new();
        let config = connect("wrong-s3cret");
        let clients = McpClients::start_with(
            &registry,
            &config,
            &Selection::default(),
            McpOptions::default(),
        )
        .await;
        let state = format!("{:?}", clients.status("m").map(|status| status.state));
        assert!(
            state.contains("refused this client's credentials")
                && state.contains("`oauth.client_secret`"),
            "{state}"
        );
        assert!(
            !state.contains("wrong-s3cret"),
            "the secret is shown: {state}"
        );
        clients.shutdown().await;
    });
}
