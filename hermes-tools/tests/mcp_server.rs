//! The MCP server end to end, with rmcp's own client over an in-memory pipe: listing, calls,
//! errors, the pipeline (hooks, approval), change notifications in both protocol eras, and a
//! client that probes `server/discover` before it initialises.

#![cfg(feature = "mcp")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hermes_tools::hooks::Directive;
use hermes_tools::mcp::server::{ServeError, ToolServer};
use hermes_tools::{
    ToolRegistry, call::ToolContent, tool::Annotations, tool::Tool, toolsets::Selection,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ErrorCode, JsonObject, ProtocolVersion,
    ServerNotification, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ServiceError, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// How long a notification may take (the server polls every 20 ms here).
const PATIENCE: Duration = Duration::from_secs(10);

fn demo_registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    let tools = [
        Tool::builder("echo", "demo")
            .description("Return the text it is given.")
            .parameters(json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "What to echo."}},
                "required": ["text"]
            }))
            .annotations(Annotations {
                read_only: true,
                destructive: false,
                parallel: None,
            })
            .handler(|args, _ctx| json!({"echo": args["text"]})),
        Tool::builder("fail", "demo")
            .description("Always fail.")
            .handler(|_args, _ctx| Err::<Value, _>("the disk is full")),
        Tool::builder("wipe", "demo")
            .description("Delete everything (asks first).")
            .needs_approval(true)
            .annotations(Annotations {
                read_only: false,
                destructive: true,
                parallel: None,
            })
            .handler(|_args, _ctx| json!({"wiped": true})),
        Tool::builder("picture", "demo")
            .description("Draw a dot.")
            .handler(|_args, _ctx| ToolContent::new().text("a dot").image("AA==", "image/png")),
        Tool::builder("secret", "other")
            .description("Not in the served selection.")
            .handler(|_args, _ctx| "hidden"),
    ];
    for tool in tools {
        registry.register(tool.build()).expect("registers");
    }
    registry
}

fn demo_server(registry: &ToolRegistry) -> ToolServer {
    ToolServer::new(registry.clone())
        .selection(Selection {
            enabled: vec!["demo".into()],
            disabled: vec![],
        })
        .poll_interval(Duration::from_millis(20))
}

/// A client that reports `notifications/tools/list_changed` on a channel.
#[derive(Clone)]
struct Client {
    changes: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        // The `initialize` era (rmcp's default proposes 2026-07-28, which has no handshake).
        rmcp::model::ClientConfig::default()
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changes.send(());
    }
}

type Session = RunningService<RoleClient, Client>;

async fn connect(server: ToolServer) -> (Session, mpsc::UnboundedReceiver<()>) {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (changes, received) = mpsc::unbounded_channel();
    let session = Client { changes }
        .serve(client_io)
        .await
        .expect("the client initialises");
    (session, received)
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(name.to_owned());
    if let Value::Object(arguments) = arguments {
        params.arguments = Some(JsonObject::from_iter(arguments));
    }
    params
}

fn text_of(result: &CallToolResult) -> String {
    let wire = serde_json::to_value(result).expect("serializes");
    wire["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_the_selection_with_schemas_and_annotations() {
    let (session, _) = connect(demo_server(&demo_registry())).await;
    let tools = session.list_all_tools().await.expect("lists");
    let names: Vec<&str> = tools.iter().map(|tool| &*tool.name).collect();
    assert_eq!(
        names,
        ["echo", "fail", "picture", "wipe"],
        "sorted, `other` left out"
    );
    let wire = serde_json::to_value(&tools).expect("serializes");
    assert_eq!(wire[0]["description"], "Return the text it is given.");
    assert_eq!(wire[0]["inputSchema"]["type"], "object");
    assert_eq!(wire[0]["inputSchema"]["required"], json!(["text"]));
    // A schema every JSON Schema draft reads alike does not declare its dialect.
    assert_eq!(wire[0]["inputSchema"].get("$schema"), None);
    assert_eq!(wire[0]["annotations"], json!({"readOnlyHint": true}));
    assert_eq!(
        wire[3]["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true})
    );
    assert!(wire[1].get("annotations").is_none(), "none declared");
    assert_eq!(
        wire[1]["inputSchema"]["properties"],
        json!({}),
        "a tool without parameters still publishes an object schema"
    );
    session.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_successful_call_is_json_text_and_structured_content() {
    let (session, _) = connect(demo_server(&demo_registry())).await;
    let result = session
        .call_tool(call("echo", json!({"text": "hi"})))
        .await
        .expect("calls");
    assert_eq!(result.is_error, Some(false));
    assert_eq!(text_of(&result), r#"{"echo":"hi"}"#);
    assert_eq!(result.structured_content, Some(json!({"echo": "hi"})));
    session.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credential_in_an_answer_reaches_the_client_masked() {
    let (session, _) = connect(demo_server(&demo_registry())).await;
    let key = "sk-proj-Zx81QmW0pLr5TvYb3NcK7sDfGh2JkL4n";
    let result = session
        .call_tool(call(
            "echo",
            json!({"text": format!("OPENAI_API_KEY={key}")}),
        ))
        .await
        .expect("calls");
    assert_eq!(result.is_error, Some(false));
    let wire = serde_json::to_string(&result).expect("serializes");
    assert!(!wire.contains("Zx81QmW0pLr5"), "{wire}");
    assert_eq!(text_of(&result), r#"{"echo":"OPENAI_API_KEY=***"}"#);
    assert_eq!(
        result.structured_content,
        Some(json!({"echo": "OPENAI_API_KEY=***"}))
    );
    session.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_and_bad_arguments_are_results_with_is_error() {
    let (session, _) = connect(demo_server(&demo_registry())).await;
    let failed = session
        .call_tool(call("fail", json!({})))
        .await
        .expect("a tool error is a result");
    assert_eq!(failed.is_error, Some(true));
    assert!(
        text_of(&failed).contains("the disk is full"),
        "{}",
        text_of(&failed)
    );
    assert_eq!(failed.structured_content, None);

    let invalid = session
        .call_tool(call("echo", json!({"text": ["not", "a", "string"]})))
        .await
        .expect("bad arguments are a result the model can fix");
    assert_eq!(invalid.is_error, Some(true));
    assert!(text_of(&invalid).contains("text"), "{}", text_of(&invalid));
    session.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multimodal_answers_are_text_and_image_blocks() {
    let (session, _) = connect(demo_server(&demo_registry())).await;
    let result = session
        .call_tool(call("picture", json!({})))
        .await
        .expect("calls");
    let wire = serde_json::to_value(&result).expect("serializes");
    assert_eq!(
        wire["content"],
        json!([
            {"type": "text", "text": "a dot"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"}
        ])
    );
    session.cancel().await.expect("closes");
}

fn invalid_params_message(outcome: Result<CallToolResult, ServiceError>) -> String {
    match outcome {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{error:?}");
            error.message.into_owned()
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_unselected_tools_are_invalid_params_naming_the_nearest() {
    let (session, _) = connect(demo_server(&demo_registry())).await;
    let message = invalid_params_message(session.call_tool(call("ecoh", json!({}))).await);
    assert!(message.contains("\"ecoh\""), "{message}");
    assert!(message.contains("echo"), "{message}");
    // Registered, but not in the served selection: the client cannot see it, nor call it.
    let message = invalid_params_message(session.call_tool(call("secret", json!({}))).await);
    assert!(
        message.contains("\"secret\" is not among the tools this server offers"),
        "{message}"
    );
    session.cancel().await.expect("closes");
}

async fn listed_names(session: &Session) -> Vec<String> {
    session
        .list_all_tools()
        .await
        .expect("lists")
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_loop_tools_are_hidden_and_refused_unless_the_operator_opts_in() {
    let registry = demo_registry();
    let todo = Tool::builder("todo", "demo")
        .description("Keep a task list.")
        .handler(|_args, _ctx| json!({"todos": []}));
    registry.register(todo.build()).expect("registers");
    let (session, _) = connect(demo_server(&registry)).await;
    let names = listed_names(&session).await;
    assert!(!names.iter().any(|name| name == "todo"), "{names:?}");
    let message = invalid_params_message(session.call_tool(call("todo", json!({}))).await);
    assert!(message.contains("\"todo\""), "{message}");
    session.cancel().await.expect("closes");

    // Pipeline options alone do not serve them: the opt-in is one switch.
    let options = hermes_tools::CallOptions::new().from_agent_loop();
    let (session, _) = connect(demo_server(&registry).call_options(options)).await;
    assert!(
        !listed_names(&session)
            .await
            .iter()
            .any(|name| name == "todo")
    );
    invalid_params_message(session.call_tool(call("todo", json!({}))).await);
    session.cancel().await.expect("closes");

    let (session, _) = connect(demo_server(&registry).agent_loop_tools(true)).await;
    assert!(
        listed_names(&session)
            .await
            .iter()
            .any(|name| name == "todo")
    );
    let result = session
        .call_tool(call("todo", json!({})))
        .await
        .expect("calls");
    assert_eq!(result.is_error, Some(false), "{}", text_of(&result));
    session.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_apply_to_mcp_calls() {
    let registry = demo_registry();
    let observed = Arc::new(AtomicUsize::new(0));
    registry.hooks().add_pre_call(None, |pending| {
        (pending.name == "echo" && pending.args_text.contains("rm -rf"))
            .then(|| Directive::Block("destructive text is not echoed".into()))
    });
    let seen = Arc::clone(&observed);
    registry.hooks().add_post_call(None, move |_record| {
        seen.fetch_add(1, Ordering::SeqCst);
    });
    let (session, _) = connect(demo_server(&registry)).await;
    let blocked = session
        .call_tool(call("echo", json!({"text": "rm -rf /"})))
        .await
        .expect("a block is a result");
    assert_eq!(blocked.is_error, Some(true));
    assert!(
        text_of(&blocked).contains("destructive text is not echoed"),
        "{}",
        text_of(&blocked)
    );
    let allowed = session
        .call_tool(call("echo", json!({"text": "ls"})))
        .await
        .expect("calls");
    assert_eq!(allowed.is_error, Some(false));
    assert_eq!(
        observed.load(Ordering::SeqCst),
        2,
        "post-call hooks saw both calls"
    );
    session.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_approval_gate_decides_calls_that_need_approval() {
    let registry = demo_registry();
    let (session, _) = connect(demo_server(&registry)).await;

    let refused = session
        .call_tool(call("wipe", json!({})))
        .await
        .expect("calls");
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text_of(&refused).contains("no approval gate"),
        "{}",
        text_of(&refused)
    );

    registry.set_approval_gate(Some(Arc::new(
        |request: &hermes_tools::hooks::ApprovalRequest<'_>| request.tool == "wipe",
    )));
    let approved = session
        .call_tool(call("wipe", json!({})))
        .await
        .expect("calls");
    assert_eq!(approved.is_error, Some(false), "{}", text_of(&approved));

    registry.set_approval_gate(Some(Arc::new(
        |_: &hermes_tools::hooks::ApprovalRequest<'_>| false,
    )));
    let denied = session
        .call_tool(call("wipe", json!({})))
        .await
        .expect("calls");
    assert_eq!(denied.is_error, Some(true));
    assert!(
        text_of(&denied).contains("did not approve"),
        "{}",
        text_of(&denied)
    );
    session.cancel().await.expect("closes");
}

fn extra_tool(name: &str, toolset: &str) -> Tool {
    Tool::builder(name.to_owned(), toolset.to_owned())
        .description("Registered while a client is connected.")
        .handler(|_args, _ctx| "new")
        .build()
}

/// The JSON-RPC error of a `tools/list` that must fail.
fn list_error(outcome: Result<rmcp::model::ListToolsResult, ServiceError>) -> rmcp::ErrorData {
    match outcome {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn page_request(cursor: &str) -> Option<rmcp::model::PaginatedRequestParams> {
    Some(rmcp::model::PaginatedRequestParams::default().with_cursor(Some(cursor.to_owned())))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_lists_come_in_pages_whose_cursors_are_checked() {
    let registry = demo_registry();
    // Pages of two: the four served tools are two pages, and every session walks the same.
    let server = demo_server(&registry).page_size(2);
    let (session, _) = connect(server.clone()).await;
    let (other, _) = connect(server).await;
    let first = session.list_tools(None).await.expect("the first page");
    let names = |page: &rmcp::model::ListToolsResult| -> Vec<String> {
        page.tools
            .iter()
            .map(|tool| tool.name.to_string())
            .collect()
    };
    assert_eq!(names(&first), ["echo", "fail"]);
    let cursor = first
        .next_cursor
        .clone()
        .expect("a cursor to the next page");
    let second = other
        .list_tools(page_request(&cursor))
        .await
        .expect("another session follows the cursor");
    assert_eq!(names(&second), ["picture", "wipe"]);
    assert_eq!(second.next_cursor, None, "the last page ends the list");
    // rmcp's client follows every cursor: the whole list, as one page would give it.
    assert_eq!(
        listed_names(&session).await,
        ["echo", "fail", "picture", "wipe"]
    );

    for forged in ["", "2", "eyJvZmZzZXQiOjJ9", &cursor[..cursor.len() - 1]] {
        let error = list_error(session.list_tools(page_request(forged)).await);
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{forged:?}");
        assert!(
            error.message.contains("not one this server gave"),
            "{forged:?}: {}",
            error.message
        );
    }

    // The list changes: a cursor given before is stale, and a new walk sees the new tool.
    registry
        .register(extra_tool("fresh", "demo"))
        .expect("registers");
    let error = list_error(session.list_tools(page_request(&cursor)).await);
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(error.message.contains("changed"), "{}", error.message);
    assert!(
        error.message.contains("without a cursor"),
        "{}",
        error.message
    );
    assert_eq!(
        listed_names(&session).await,
        ["echo", "fail", "fresh", "picture", "wipe"]
    );
    session.cancel().await.expect("closes");
    other.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialized_sessions_hear_list_changed_when_their_listing_changes() {
    let registry = demo_registry();
    let server = demo_server(&registry);
    let (session, mut changes) = connect(server.clone()).await;
    let (other, mut other_changes) = connect(server).await;
    // Let the watcher take its first look before anything changes.
    tokio::time::sleep(Duration::from_millis(100)).await;

    // Outside the selection: the client's listing is the same, so nothing is sent.
    registry
        .register(extra_tool("unseen", "other"))
        .expect("registers");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        changes.try_recv().is_err() && other_changes.try_recv().is_err(),
        "no notification for an unseen change"
    );

    // Both sessions hear a change, once each.
    registry
        .register(extra_tool("fresh", "demo"))
        .expect("registers");
    for heard in [&mut changes, &mut other_changes] {
        tokio::time::timeout(PATIENCE, heard.recv())
            .await
            .expect("notified in time")
            .expect("the channel is open");
    }
    let tools = session.list_all_tools().await.expect("lists");
    assert!(tools.iter().any(|tool| tool.name == "fresh"));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        changes.try_recv().is_err() && other_changes.try_recv().is_err(),
        "told once"
    );

    // Once one session has ended, the other is still told (that the ended one is taken out
    // is `watch`'s unit test).
    other.cancel().await.expect("closes");
    registry.deregister("fresh");
    tokio::time::timeout(PATIENCE, changes.recv())
        .await
        .expect("notified of the removal")
        .expect("the channel is open");
    session.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_era_clients_hear_list_changed_on_their_subscription() {
    let registry = demo_registry();
    let server = demo_server(&registry);
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (changes, _) = mpsc::unbounded_channel();
    let session = Client { changes }
        .serve_with_lifecycle(
            client_io,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("the client connects through server/discover");
    let tools = session.list_all_tools().await.expect("lists");
    assert_eq!(tools.len(), 4);

    let mut subscription = session
        .listen(SubscriptionFilter::builder().tools_list_changed().build())
        .await
        .expect("the server accepts the subscription");
    assert_eq!(subscription.acknowledged().tools_list_changed, Some(true));
    tokio::time::sleep(Duration::from_millis(100)).await;
    registry
        .register(extra_tool("fresh", "demo"))
        .expect("registers");
    let notification = tokio::time::timeout(PATIENCE, subscription.next())
        .await
        .expect("notified in time")
        .expect("the stream is healthy");
    assert!(
        matches!(
            notification,
            Some(ServerNotification::ToolListChangedNotification(_))
        ),
        "{notification:?}"
    );
    session.cancel().await.expect("closes");
}

/// Sends one JSON-RPC line and reads the answer to it (skipping notifications).
async fn exchange(
    writer: &mut (impl AsyncWriteExt + Unpin),
    reader: &mut (impl AsyncBufReadExt + Unpin),
    message: Value,
) -> Value {
    let mut line = message.to_string();
    line.push('\n');
    writer.write_all(line.as_bytes()).await.expect("writes");
    loop {
        let mut answer = String::new();
        let read = tokio::time::timeout(PATIENCE, reader.read_line(&mut answer))
            .await
            .expect("answers in time")
            .expect("reads");
        assert!(read > 0, "the server closed the connection");
        let answer: Value = serde_json::from_str(&answer).expect("a JSON line");
        if answer.get("id") == message.get("id") {
            return answer;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_probes_server_discover_first_still_connects() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = demo_server(&demo_registry());
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client_io);
    let mut read = BufReader::new(read);

    // A probe without the 2026-07-28 request metadata is refused with a JSON-RPC error, which
    // makes the Python SDK fall back to `initialize`; the connection stays open.
    let bare = exchange(
        &mut write,
        &mut read,
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"}),
    )
    .await;
    assert_eq!(bare["error"]["code"], -32602, "{bare}");

    // A well-formed probe is answered, and still leaves the handshake open.
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let discovered = exchange(
        &mut write,
        &mut read,
        json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {"_meta": meta}}),
    )
    .await;
    let versions = &discovered["result"]["supportedVersions"];
    assert!(
        versions
            .as_array()
            .is_some_and(|v| v.contains(&json!("2025-11-25"))),
        "{discovered}"
    );
    assert_eq!(
        discovered["result"]["capabilities"]["tools"]["listChanged"],
        true
    );

    let initialized = exchange(
        &mut write,
        &mut read,
        json!({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"}
        }}),
    )
    .await;
    assert_eq!(
        initialized["result"]["protocolVersion"], "2025-11-25",
        "{initialized}"
    );
    assert_eq!(initialized["result"]["serverInfo"]["name"], "hermes-tools");
    write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .expect("writes");

    let unknown = exchange(
        &mut write,
        &mut read,
        json!({"jsonrpc": "2.0", "id": 4, "method": "no/such/method"}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let listed = exchange(
        &mut write,
        &mut read,
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}),
    )
    .await;
    assert_eq!(
        listed["result"]["tools"].as_array().map(Vec::len),
        Some(4),
        "{listed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_refuses_addresses_that_are_not_loopback() {
    let server = demo_server(&demo_registry());
    let addr = "0.0.0.0:0".parse().expect("an address");
    let refused = server.clone().bind_http(addr).await;
    assert!(
        matches!(refused, Err(ServeError::NotLoopback { .. })),
        "{refused:?}"
    );
    let message = refused.err().map(|err| err.to_string()).unwrap_or_default();
    assert!(message.contains("loopback"), "{message}");

    let bound = server
        .bind_http("127.0.0.1:0".parse().expect("an address"))
        .await
        .expect("binds on loopback");
    assert!(
        bound.url().starts_with("http://127.0.0.1:"),
        "{}",
        bound.url()
    );
    assert!(bound.url().ends_with("/mcp"));
    assert_ne!(bound.local_addr().port(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_toolset_is_refused_before_serving() {
    let server = ToolServer::new(demo_registry()).selection(Selection {
        enabled: vec!["demoo".into()],
        disabled: vec![],
    });
    let refused = server
        .bind_http("127.0.0.1:0".parse().expect("an address"))
        .await;
    let message = refused.err().map(|err| err.to_string()).unwrap_or_default();
    assert!(
        message.contains("demoo") && message.contains("demo"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_call_with_bad_params_is_invalid_params_saying_what_is_wrong() {
    // Over the server's own line transport, as `serve_stdio` runs it.
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_io);
    let server = demo_server(&demo_registry());
    tokio::spawn(server.serve_connection(server_read, server_write));
    let (read, mut write) = tokio::io::split(client_io);
    let mut read = BufReader::new(read);
    let initialized = exchange(
        &mut write,
        &mut read,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"}
        }}),
    )
    .await;
    assert!(initialized.get("result").is_some(), "{initialized}");
    write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .expect("writes");

    let cases = [
        (json!({"name": 5}), "\"name\" must be a string"),
        (json!({}), "\"name\" is missing"),
        (
            json!({"name": "echo", "arguments": [1]}),
            "\"arguments\" must be an object",
        ),
        (json!("echo"), "params must be an object"),
    ];
    for (id, (params, says)) in (1..).zip(cases) {
        let answer = exchange(
            &mut write,
            &mut read,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}),
        )
        .await;
        assert_eq!(answer["error"]["code"], -32602, "{params}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("tools/call"), "{message}");
        assert!(message.contains(says), "{params}: {message}");
    }
    let missing = exchange(
        &mut write,
        &mut read,
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call"}),
    )
    .await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    // A well-formed call on the same connection still works.
    let echoed = exchange(
        &mut write,
        &mut read,
        json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call",
               "params": {"name": "echo", "arguments": {"text": "ok"}}}),
    )
    .await;
    assert_eq!(echoed["result"]["isError"], false, "{echoed}");
}
