//! Tool search, deferral and the bridge, end to end: real registries, real calls through the
//! pipeline (hooks, approval, redaction), lists rendered in two processes.

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hermes_tools::hooks::{ApprovalRequest, Directive};
use hermes_tools::provider::ToolCall;
use hermes_tools::search::{Conversation, Deferral};
use hermes_tools::tool::Tool;
use hermes_tools::{CallOptions, DefinitionsRequest, Format, ToolContext, ToolRegistry, Turn};
use parking_lot::Mutex;
use serde_json::{Value, json};

/// A tool of `toolset` that answers its name and arguments.
fn tool(name: &'static str, toolset: &str, description: &str, properties: Value) -> Tool {
    Tool::builder(name, toolset)
        .description(description)
        .parameters(json!({"type": "object", "properties": properties}))
        .handler(move |args: Value, _: &ToolContext| json!({"ran": name, "args": args}))
        .build()
}

/// A registry of a dozen tools in four toolsets, one of them an MCP server's.
fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    let tools = [
        tool(
            "read_file",
            "files",
            "Read a text file, a page of lines at a time.",
            json!({"path": {"type": "string", "description": "The file to read."}}),
        ),
        tool(
            "write_file",
            "files",
            "Write text to a file, replacing what it held.",
            json!({"path": {"type": "string"}, "content": {"type": "string"}}),
        ),
        tool(
            "search_files",
            "files",
            "Find files whose content matches a regular expression.",
            json!({"pattern": {"type": "string"}}),
        ),
        tool(
            "send_email",
            "mail",
            "Send an email message to one or more recipients.",
            json!({"to": {"type": "string", "description": "The recipient's address."}, "subject": {"type": "string"}}),
        ),
        tool(
            "list_inbox",
            "mail",
            "List the newest messages of the mailbox.",
            json!({"count": {"type": "integer", "minimum": 1}}),
        ),
        tool(
            "resize_image",
            "images",
            "Resize a picture to a width and height in pixels.",
            json!({"width": {"type": "integer"}, "height": {"type": "integer"}}),
        ),
        tool(
            "mcp__github__create_issue",
            "mcp-github",
            "Open a new issue in a repository.",
            json!({"repo": {"type": "string"}, "title": {"type": "string"}}),
        ),
        tool(
            "mcp__github__list_pull_requests",
            "mcp-github",
            "List the pull requests of a repository.",
            json!({"repo": {"type": "string"}}),
        ),
    ];
    for tool in tools {
        registry.register(tool).unwrap();
    }
    registry
}

fn names(definitions: &hermes_tools::definitions::Definitions) -> Vec<String> {
    definitions
        .iter()
        .map(|d| d["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn search_finds_by_meaning_and_junk_finds_nothing() {
    let registry = registry();
    let results = registry.search(
        &[
            "send a message by email",
            "open a github issue",
            "make the picture smaller",
            "asdf qwerty",
            "the of and to",
            "select:read_file,wirte_file",
        ],
        3,
    );
    assert_eq!(&*results[0].hits[0].name, "send_email");
    assert_eq!(&*results[1].hits[0].name, "mcp__github__create_issue");
    assert_eq!(&*results[2].hits[0].name, "resize_image");
    assert!(results[3].hits.is_empty(), "{:?}", results[3]);
    assert!(results[4].hits.is_empty(), "{:?}", results[4]);
    // `select:` by exact name; an unknown name gets the nearest.
    let selected = &results[5];
    assert_eq!(selected.hits.len(), 1);
    assert_eq!(&*selected.hits[0].name, "read_file");
    assert_eq!(selected.unknown[0].name, "wirte_file");
    assert_eq!(selected.unknown[0].nearest[0], "write_file");
    // Inflections meet: "reading files" finds read_file first.
    let reading = registry.search(&["reading files"], 3);
    assert_eq!(&*reading[0].hits[0].name, "read_file");
    // A tool's exact name finds it first.
    let exact = registry.search(&["list_inbox"], 3);
    assert_eq!(&*exact[0].hits[0].name, "list_inbox");
}

#[test]
fn the_index_is_built_once_per_generation() {
    let registry = registry();
    let first = registry.search_index();
    assert_eq!(first.len(), 8);
    assert_eq!(registry.search_index().len(), 8);
    registry
        .register(tool("weather", "web", "The weather forecast.", json!({})))
        .unwrap();
    let second = registry.search_index();
    assert_eq!(second.len(), 9);
    assert_eq!(&*second.query("forecast", 1).hits[0].name, "weather");
}

#[test]
fn deferral_by_name_toolset_server_all_and_budget_keeps_pins() {
    let registry = registry();
    let request = |deferral: Deferral| DefinitionsRequest::all().defer(deferral);
    let by_toolset = registry
        .definitions(&request(
            Deferral::default()
                .toolsets(["mail"])
                .tools(["resize_image"]),
        ))
        .unwrap();
    assert!(by_toolset.is_deferred("send_email"));
    assert!(by_toolset.is_deferred("list_inbox"));
    assert!(by_toolset.is_deferred("resize_image"));
    assert!(by_toolset.contains("read_file"));
    let by_server = registry
        .definitions(&request(Deferral::default().servers(["github"])))
        .unwrap();
    let deferred: Vec<&str> = by_server.deferred().collect();
    assert_eq!(
        deferred,
        [
            "mcp__github__create_issue",
            "mcp__github__list_pull_requests"
        ]
    );
    let all = registry
        .definitions(&request(Deferral::default().all().pin(["write_file"])))
        .unwrap();
    assert_eq!(
        names(&all),
        ["write_file", "tool_search", "tool_describe", "tool_call"]
    );
    // A budget of about two definitions: the first tools in name order, the rest deferred.
    let one = hermes_tools::search::estimate_tokens(&all[0]);
    let budgeted = registry
        .definitions(&request(Deferral::default().budget(one * 2)))
        .unwrap();
    let sent: Vec<&str> = budgeted.names().collect();
    assert!(!sent.is_empty() && sent.len() <= 2, "{sent:?}");
    assert_eq!(budgeted.deferred().count(), 8 - sent.len());
    // Nothing deferred: no bridge, the list as before.
    let plain = registry.definitions(&DefinitionsRequest::all()).unwrap();
    assert!(plain.bridge().is_none());
    assert_eq!(plain.len(), 8);
}

#[test]
fn the_manifest_degrades_to_names_then_counts() {
    let registry = registry();
    let description = |registry: &ToolRegistry| {
        let listed = registry
            .definitions(&DefinitionsRequest::all().defer(Deferral::default().all()))
            .unwrap();
        listed[0]["function"]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let full = description(&registry);
    assert!(full.contains("- mail: list_inbox (List the newest messages of the mailbox.)"));
    let mut config = hermes_tools::config::Config::default();
    config.tool_search.manifest_tokens = 60;
    registry.set_config(config.clone());
    let names_only = description(&registry);
    assert!(
        names_only.contains("- mail: list_inbox, send_email"),
        "{names_only}"
    );
    config.tool_search.manifest_tokens = 25;
    registry.set_config(config);
    let counts = description(&registry);
    assert!(counts.contains("- files: 3 tools"), "{counts}");
}

#[test]
fn config_deferral_applies_when_the_request_asks() {
    let registry = registry();
    let mut config = hermes_tools::config::Config::default();
    config.tool_search.defer_toolsets = vec!["images".into()];
    config.tool_search.pin = vec!["resize_image".into()];
    config.tool_search.defer_servers = vec!["github".into()];
    registry.set_config(config);
    let listed = registry
        .definitions(&DefinitionsRequest::all().defer(Deferral::default().from_config()))
        .unwrap();
    assert!(listed.contains("resize_image"), "pinned");
    assert!(listed.is_deferred("mcp__github__create_issue"));
    let ignored = registry.definitions(&DefinitionsRequest::all()).unwrap();
    assert!(ignored.bridge().is_none());
}

#[test]
fn a_bridged_call_is_hooked_approved_redacted_and_judged_as_the_real_tool() {
    let registry = ToolRegistry::new();
    let leaky = Tool::builder("fetch_token", "secrets")
        .description("Fetch the deploy token of a project.")
        .parameters(json!({
            "type": "object",
            "properties": {"project": {"type": "string"}, "count": {"type": "integer"}},
            "required": ["project", "count"]
        }))
        .needs_approval(true)
        .handler(|args: Value, _: &ToolContext| {
            json!({"token": format!("sk-{}", "a".repeat(30)), "count": args["count"]})
        })
        .build();
    registry.register(leaky).unwrap();
    registry
        .register(tool(
            "read_file",
            "files",
            "Read a file.",
            json!({"path": {"type": "string"}}),
        ))
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let pre = Arc::clone(&seen);
    registry.hooks().add_pre_call(None, move |call| {
        pre.lock().push(format!("pre {} {}", call.name, call.args));
        None
    });
    let post = Arc::clone(&seen);
    registry.hooks().add_post_call(None, move |record| {
        post.lock()
            .push(format!("post {} {}", record.name, record.result));
    });
    let asked = Arc::new(Mutex::new(Vec::new()));
    let gate_log = Arc::clone(&asked);
    registry.set_approval_gate(Some(Arc::new(move |request: &ApprovalRequest<'_>| {
        gate_log.lock().push(request.tool.to_owned());
        true
    })));
    let shown = registry
        .definitions(&DefinitionsRequest::all().defer(Deferral::default().tools(["fetch_token"])))
        .unwrap();
    let options = CallOptions::new().definitions(shown);
    let ctx = ToolContext::new();
    let answer = registry.call_blocking_with(
        "tool_call",
        r#"{"name": "fetch_token", "arguments": {"project": "web", "count": "3"}}"#,
        &ctx,
        &options,
    );
    let value = answer.to_value();
    // Repaired against the real schema ("3" became 3), redacted, approved, hooked.
    assert_eq!(value["count"], 3, "{value}");
    assert!(!answer.as_str().contains(&"a".repeat(30)), "{answer:?}");
    assert_eq!(*asked.lock(), ["fetch_token"]);
    let log = seen.lock().clone();
    assert!(log[0].starts_with("pre fetch_token "), "{log:?}");
    assert!(log[1].starts_with("post fetch_token "), "{log:?}");
    assert!(!log[1].contains(&"a".repeat(30)));

    // A hook's block holds through the bridge.
    let block = registry.hooks().add_pre_call(None, |call| {
        (call.name == "fetch_token").then(|| Directive::Block("not today".into()))
    });
    let blocked = registry.call_blocking_with(
        "tool_call",
        r#"{"name": "fetch_token", "arguments": {"project": "web", "count": 1}}"#,
        &ctx,
        &options,
    );
    assert!(blocked.as_str().contains("not today"), "{blocked:?}");
    registry.hooks().remove(block);

    // Invalid arguments are judged by the real schema the provider never saw.
    let invalid = registry.call_blocking_with(
        "tool_call",
        r#"{"name": "read_file", "arguments": {"path": "a", "colour": "red"}}"#,
        &ctx,
        &options,
    );
    assert!(invalid.as_str().contains("colour"), "{invalid:?}");
    // An unknown name gets the nearest names, deferred ones included.
    let unknown = registry.call_blocking_with(
        "tool_call",
        r#"{"name": "fetch_tokens", "arguments": {}}"#,
        &ctx,
        &options,
    );
    assert_eq!(unknown.to_value()["suggestions"][0], "fetch_token");
    // A deferred tool called by its own name is told the way.
    let direct = registry.call_blocking_with(
        "fetch_token",
        r#"{"project": "web", "count": 1}"#,
        &ctx,
        &options,
    );
    assert!(direct.is_error());
    assert!(direct.as_str().contains("tool_call"), "{direct:?}");
    // A malformed bridge call says what to send.
    let malformed = registry.call_blocking_with("tool_call", r#"{"tool": 1}"#, &ctx, &options);
    assert!(malformed.as_str().contains("\\\"name\\\""), "{malformed:?}");
}

#[test]
fn describe_gives_the_real_definition_in_the_lists_format() {
    let registry = registry();
    // Anthropic and Responses search natively, with no bridge (tests/native_search.rs).
    for format in [Format::OpenAi, Format::Gemini, Format::Mcp] {
        let shown = registry
            .definitions(
                &DefinitionsRequest::all()
                    .format(format)
                    .defer(Deferral::default().all()),
            )
            .unwrap();
        let options = CallOptions::new().definitions(shown.clone());
        let answer = registry.call_blocking_with(
            "tool_describe",
            r#"{"names": ["send_email", "send_mail"]}"#,
            &ToolContext::new(),
            &options,
        );
        let value = answer.to_value();
        assert_eq!(
            value["tools"][0],
            *shown.full_definition("send_email").unwrap(),
            "{format:?}"
        );
        assert_eq!(value["unknown"][0]["did_you_mean"][0], "send_email");
    }
}

#[test]
fn bridge_names_never_shadow_a_real_tool() {
    let registry = registry();
    registry
        .register(tool(
            "tool_search",
            "web",
            "Search the web's tool catalogue.",
            json!({}),
        ))
        .unwrap();
    let shown = registry
        .definitions(&DefinitionsRequest::all().defer(Deferral::default().toolsets(["mail"])))
        .unwrap();
    let bridge = shown.bridge().unwrap();
    assert_eq!(bridge.search, "hermes_tool_search");
    let options = CallOptions::new().definitions(shown);
    // The real tool answers its own name.
    let real = registry.call_blocking_with("tool_search", "{}", &ToolContext::new(), &options);
    assert_eq!(real.to_value()["ran"], "tool_search");
    // With the prefixed names taken too, nothing is deferred rather than shadow a tool.
    registry
        .register(tool("hermes_tool_call", "web", "Another.", json!({})))
        .unwrap();
    let shown = registry
        .definitions(&DefinitionsRequest::all().defer(Deferral::default().toolsets(["mail"])))
        .unwrap();
    assert!(shown.bridge().is_none());
    assert!(shown.contains("send_email") && shown.deferred().next().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_runs_bridged_calls_with_the_real_tools_parallel_safety() {
    type Spans = Arc<Mutex<Vec<(&'static str, Instant, Instant)>>>;
    let spans: Spans = Arc::default();
    let registry = ToolRegistry::new();
    let nap = |name: &'static str, parallel: bool| {
        let spans = Arc::clone(&spans);
        Tool::builder(name, "slow")
            .description("Wait a little, then answer.")
            .parameters(json!({"type": "object", "properties": {}}))
            .parallel(parallel)
            .handler(move |_: Value, _: &ToolContext| {
                let start = Instant::now();
                std::thread::sleep(Duration::from_millis(200));
                spans.lock().push((name, start, Instant::now()));
                json!({"ran": name})
            })
            .build()
    };
    registry.register(nap("nap_a", true)).unwrap();
    registry.register(nap("nap_b", true)).unwrap();
    registry.register(nap("nap_c", false)).unwrap();
    let shown = registry
        .definitions(&DefinitionsRequest::all().defer(Deferral::default().all()))
        .unwrap();
    let bridged = |id: &str, name: &str| {
        ToolCall::new(
            id,
            "tool_call",
            format!(r#"{{"name": "{name}", "arguments": {{}}}}"#),
        )
    };
    let calls = [
        bridged("1", "nap_a"),
        bridged("2", "nap_b"),
        bridged("3", "nap_c"),
        ToolCall::new("4", "tool_search", r#"{"queries": ["wait"]}"#),
    ];
    let turn = Turn::new().options(CallOptions::new().definitions(shown));
    let answers = registry.run_turn(&calls, &ToolContext::new(), &turn).await;
    assert_eq!(answers[0].to_value()["ran"], "nap_a");
    assert_eq!(answers[1].to_value()["ran"], "nap_b");
    assert_eq!(answers[2].to_value()["ran"], "nap_c");
    assert_eq!(
        answers[3].to_value()["results"][0]["tools"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let spans = spans.lock().clone();
    let span = |name: &str| *spans.iter().find(|s| s.0 == name).unwrap();
    let (a, b, c) = (span("nap_a"), span("nap_b"), span("nap_c"));
    // The two parallel-safe tools overlapped; the unsafe one waited for both.
    assert!(a.1 < b.2 && b.1 < a.2, "nap_a and nap_b did not overlap");
    assert!(
        c.1 >= a.2 && c.1 >= b.2,
        "nap_c started before the batch ended"
    );
}

/// The bytes of the list `render` asks for, in this process.
fn rendered(registry: &ToolRegistry, discovered: &[&str]) -> String {
    let request = DefinitionsRequest::all()
        .format(Format::Gemini)
        .defer(
            Deferral::default()
                .toolsets(["mail", "mcp-github"])
                .pin(["list_inbox"]),
        )
        .discovered(discovered.iter().copied());
    serde_json::to_string(&registry.definitions(&request).unwrap()).unwrap()
}

const CHILD: &str = "HERMES_SEARCH_TEST_RENDER";

/// Run by the test below in a second process: prints the list's bytes.
#[test]
fn render_in_a_child_process() {
    if std::env::var_os(CHILD).is_some() {
        println!("<<<{}>>>", rendered(&registry(), &["send_email"]));
    }
}

#[test]
fn lists_are_byte_stable_across_processes_and_unrelated_tools_and_discovery_appends() {
    let registry = registry();
    let here = rendered(&registry, &["send_email"]);
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "render_in_a_child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8(child.stdout).unwrap();
    let there = stdout
        .split("<<<")
        .nth(1)
        .and_then(|rest| rest.split(">>>").next())
        .unwrap_or_else(|| panic!("no list from the child: {stdout}"));
    assert_eq!(here, there, "the same list in another process");

    // An unrelated tool (of a toolset the list does not select) changes nothing.
    let selected = |registry: &ToolRegistry| {
        let request = DefinitionsRequest::all()
            .enable(["files", "mail"])
            .defer(Deferral::default().toolsets(["mail"]));
        serde_json::to_string(&registry.definitions(&request).unwrap()).unwrap()
    };
    let before = selected(&registry);
    registry
        .register(tool("weather", "web", "The weather forecast.", json!({})))
        .unwrap();
    assert_eq!(before, selected(&registry));

    // Discovery appends: what was sent before is a prefix of what is sent after.
    let first = rendered(&registry, &[]);
    let second = rendered(&registry, &["send_email"]);
    let third = rendered(&registry, &["send_email", "mcp__github__create_issue"]);
    let open = |s: &str| s[..s.len() - 1].to_owned();
    assert!(second.starts_with(&open(&first)), "{first}\n{second}");
    assert!(third.starts_with(&open(&second)), "{second}\n{third}");
    let listed: Vec<Value> = serde_json::from_str(&third).unwrap();
    let last: Vec<&str> = listed[listed.len() - 2..]
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(last, ["send_email", "mcp__github__create_issue"]);
}

#[test]
fn a_conversation_keeps_what_it_sent_in_place_as_the_registry_changes() {
    let registry = registry();
    let request = DefinitionsRequest::all()
        .format(Format::Mcp)
        .defer(Deferral::default().toolsets(["mail", "mcp-github"]));
    let conversation = Conversation::new(request.clone());
    let bytes = |d: &hermes_tools::definitions::Definitions| serde_json::to_string(d).unwrap();
    let first = bytes(&conversation.definitions(&registry).unwrap());
    let open = |s: &str| s[..s.len() - 1].to_owned();

    // An MCP server's list changes: a tool that sorts first, and one in a deferred toolset.
    registry
        .register(tool(
            "a_new_tool",
            "files",
            "Sorts before everything.",
            json!({}),
        ))
        .unwrap();
    registry
        .register(tool(
            "mcp__github__merge_pull_request",
            "mcp-github",
            "Merge a pull request.",
            json!({"repo": {"type": "string"}}),
        ))
        .unwrap();
    let second = bytes(&conversation.definitions(&registry).unwrap());
    assert!(second.starts_with(&open(&first)), "{first}\n{second}");
    // The freshly listed tool is not in the first manifest, yet search finds it.
    assert!(!second.contains("merge_pull_request (") && second.contains("a_new_tool"));
    let options = CallOptions::new().definitions(conversation.definitions(&registry).unwrap());
    let found = registry.call_blocking_with(
        "tool_search",
        r#"{"queries": ["merge a pull request"]}"#,
        &ToolContext::new(),
        &options,
    );
    assert_eq!(
        found.to_value()["results"][0]["tools"][0]["name"],
        "mcp__github__merge_pull_request"
    );

    // Discovery appends; a tool that leaves gives up its place and nothing else moves.
    conversation.discover(["send_email"]);
    let third = bytes(&conversation.definitions(&registry).unwrap());
    assert!(third.starts_with(&open(&second)), "{second}\n{third}");
    registry.deregister("a_new_tool");
    let fourth: Vec<Value> =
        serde_json::from_str(&bytes(&conversation.definitions(&registry).unwrap())).unwrap();
    let order: Vec<&str> = fourth.iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(
        order,
        [
            "read_file",
            "resize_image",
            "search_files",
            "write_file",
            "tool_search",
            "tool_describe",
            "tool_call",
            "send_email"
        ]
    );
}

#[test]
fn the_bridge_takes_the_shapes_models_send_and_keeps_the_agent_loop_rule() {
    let registry = registry();
    registry
        .register(tool(
            "memory",
            "memory",
            "Remember a fact.",
            json!({"fact": {"type": "string"}}),
        ))
        .unwrap();
    let shown = registry
        .definitions(&DefinitionsRequest::all().defer(Deferral::default().all()))
        .unwrap();
    let options = CallOptions::new().definitions(shown);
    let ctx = ToolContext::new();
    let call = |args: &str| registry.call_blocking_with("tool_call", args, &ctx, &options);
    // Flattened arguments, other key names, arguments as JSON text: the same call.
    for args in [
        r#"{"name": "send_email", "to": "ada@example.org"}"#,
        r#"{"tool": "send_email", "args": {"to": "ada@example.org"}}"#,
        r#"{"tool_name": "send_email", "arguments": "{\"to\": \"ada@example.org\"}"}"#,
    ] {
        let answer = call(args).to_value();
        assert_eq!(answer["ran"], "send_email", "{args}: {answer}");
        assert_eq!(answer["args"]["to"], "ada@example.org", "{args}: {answer}");
    }
    // The bridge cannot call itself.
    assert!(call(r#"{"name": "tool_call", "arguments": {}}"#).is_error());
    // Only the agent loop may run `memory`, through the bridge as directly.
    let refused = call(r#"{"name": "memory", "arguments": {"fact": "x"}}"#);
    assert!(refused.as_str().contains("agent loop"), "{refused:?}");
    let options = options.clone().from_agent_loop();
    let allowed = registry.call_blocking_with(
        "tool_call",
        r#"{"name": "memory", "arguments": {"fact": "x"}}"#,
        &ctx,
        &options,
    );
    assert_eq!(allowed.to_value()["ran"], "memory");
}

#[test]
fn a_conversation_does_not_withdraw_what_a_budget_let_through() {
    let registry = registry();
    let one = hermes_tools::search::estimate_tokens(
        &registry.definitions(&DefinitionsRequest::all()).unwrap()[0],
    );
    let request = DefinitionsRequest::all().defer(Deferral::default().budget(one * 3));
    let conversation = Conversation::new(request.clone());
    let first = conversation.definitions(&registry).unwrap();
    let sent: Vec<String> = first.names().map(str::to_owned).collect();
    assert!(!sent.is_empty());
    // A tool that sorts first would take the budget's room in a fresh list...
    registry
        .register(tool("aaa_first", "files", "Sorts first.", json!({})))
        .unwrap();
    let fresh = registry.definitions(&request).unwrap();
    assert!(fresh.names().any(|name| name == "aaa_first"));
    // ...but the conversation keeps what it sent, in place.
    let second = conversation.definitions(&registry).unwrap();
    let kept: Vec<String> = second
        .names()
        .filter(|n| sent.iter().any(|s| s == n))
        .map(str::to_owned)
        .collect();
    assert_eq!(kept, sent);
    let bytes = |d: &hermes_tools::definitions::Definitions| serde_json::to_string(d).unwrap();
    let (first, second) = (bytes(&first), bytes(&second));
    assert!(
        second.starts_with(&first[..first.len() - 1]),
        "{first}\n{second}"
    );
}
