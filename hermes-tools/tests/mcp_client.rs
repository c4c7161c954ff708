//! The MCP client against real servers: PyPI `mcp-server-time`, npm
//! `@modelcontextprotocol/server-everything`, and a scripted server for the failure cases.
//!
//! The real servers come from `bash .ci/test`, which installs them pinned and exports
//! `HERMES_PYTHON` and `HERMES_NODE_MODULES`; without them these tests fail and say so.
#![cfg(feature = "mcp")]

#[path = "servers/fake.rs"]
mod fake;
#[path = "servers/third_party.rs"]
mod third_party;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fake::{Fake, config, eventually, server, set_env, tools_of};
use hermes_tools::mcp::client::{McpClients, McpOptions, ServerState};
use hermes_tools::toolsets::availability::ManualClock;
use hermes_tools::{
    DefinitionsRequest, Format, ToolContext, ToolRegistry, tool::Tool, toolsets::Selection,
};
use serde_json::{Value, json};
use third_party::everything_entry;

const INSTALL: &str = "run `bash .ci/test` (it installs .ci/requirements.txt and .ci/package.json and exports HERMES_PYTHON and HERMES_NODE_MODULES)";

/// The virtualenv python with `mcp-server-time`, or a failure saying how to get it.
fn venv_python() -> PathBuf {
    let python = std::env::var_os("HERMES_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("HERMES_PYTHON is not set: {INSTALL}"));
    let probe = std::process::Command::new(&python)
        .args(["-c", "import mcp_server_time"])
        .output()
        .unwrap_or_else(|err| {
            panic!(
                "cannot run HERMES_PYTHON {}: {err}; {INSTALL}",
                python.display()
            )
        });
    assert!(
        probe.status.success(),
        "mcp-server-time is not installed for {}: {INSTALL}",
        python.display()
    );
    python
}

fn names(registry: &ToolRegistry, toolset: &str) -> Vec<String> {
    registry
        .snapshot()
        .tools()
        .filter(|tool| tool.toolset() == toolset)
        .map(|tool| tool.name().to_owned())
        .collect()
}

async fn call(registry: &ToolRegistry, name: &str, args: &str) -> hermes_tools::ToolAnswer {
    registry.call(name, args, &ToolContext::new()).await
}

fn definitions(registry: &ToolRegistry, format: Format, selection: Selection) -> Vec<Value> {
    let request = DefinitionsRequest {
        selection,
        format,
        ..DefinitionsRequest::default()
    };
    registry.definitions(&request).unwrap().to_vec()
}

fn assert_meta_valid(schema: &Value) {
    if let Err(err) = jsonschema::draft202012::meta::validate(schema) {
        panic!("{schema} is not a valid Draft 2020-12 schema: {err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn time_server_tools_are_registered_described_and_called() {
    let python = venv_python();
    let registry = ToolRegistry::new();
    let config = config([(
        "time",
        server(python.to_str().unwrap(), &["-m", "mcp_server_time"]),
    )]);
    let clients = McpClients::start(&registry, &config, &Selection::default()).await;

    let status = clients.status("time").unwrap();
    assert_eq!(
        tools_of(&status),
        ["mcp__time__convert_time", "mcp__time__get_current_time"]
    );
    assert!(
        status.rejected_tools.is_empty(),
        "{:?}",
        status.rejected_tools
    );
    assert_eq!(
        registry
            .snapshot()
            .aliases()
            .get("time")
            .map(String::as_str),
        Some("mcp-time")
    );
    let tool = registry.get("mcp__time__get_current_time").unwrap();
    assert_eq!(tool.toolset(), "mcp-time");
    assert_eq!(tool.provenance().crate_name, "mcp:time");
    assert!(tool.provenance().file.ends_with("-m mcp_server_time"));

    // Listed by the bare server name, in the MCP and strict OpenAI shapes.
    let time_only = Selection {
        enabled: vec!["time".into()],
        disabled: vec![],
    };
    let mcp = definitions(&registry, Format::Mcp, time_only.clone());
    let listed: Vec<&str> = mcp.iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(
        listed,
        ["mcp__time__convert_time", "mcp__time__get_current_time"]
    );
    assert_eq!(
        mcp[1]["description"],
        "Get current time in a specific timezone"
    );
    assert_eq!(mcp[1]["inputSchema"]["required"], json!(["timezone"]));
    assert_meta_valid(&mcp[1]["inputSchema"]);
    let strict = definitions(&registry, Format::OpenAiStrict, time_only);
    assert_eq!(strict[1]["function"]["name"], "mcp__time__get_current_time");
    assert_eq!(strict[1]["function"]["strict"], true);
    assert_eq!(
        strict[1]["function"]["parameters"]["additionalProperties"],
        false
    );

    // Called through the pipeline: the tool declares an output schema, so its structured
    // content is the answer as it is, not its JSON copy in a string.
    let answer = call(
        &registry,
        "mcp__time__get_current_time",
        r#"{"timezone":"UTC"}"#,
    )
    .await;
    assert!(!answer.is_error(), "{answer}");
    let result = &answer.to_value();
    assert_eq!(result["timezone"], "UTC");
    assert!(
        result["datetime"].as_str().unwrap().ends_with("+00:00"),
        "{answer}"
    );
    assert!(result["is_dst"].is_boolean());

    // The synchronous pipeline works too (from inside this runtime, as a sync agent would).
    let registry2 = registry.clone();
    let sync = tokio::task::spawn_blocking(move || {
        registry2.call_blocking(
            "mcp__time__convert_time",
            r#"{"source_timezone":"UTC","time":"12:00","target_timezone":"Asia/Tokyo"}"#,
            &ToolContext::new(),
        )
    })
    .await
    .unwrap();
    assert_eq!(
        sync.to_value()["target"]["datetime"]
            .as_str()
            .map(|d| &d[11..16]),
        Some("21:00"),
        "{sync}"
    );

    // The server's own error for a bad timezone is an error answer.
    let bad = call(
        &registry,
        "mcp__time__get_current_time",
        r#"{"timezone":"Mars/Olympus"}"#,
    )
    .await;
    assert!(bad.is_error(), "{bad}");

    clients.shutdown().await;
    assert!(registry.get("mcp__time__get_current_time").is_none());
    assert!(registry.snapshot().aliases().get("time").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_times_out_is_cancelled_at_the_server() {
    let fake = Fake::new();
    let registry = ToolRegistry::new();
    let mut slow = fake.config();
    slow.call_timeout_secs = 1;
    let clients =
        McpClients::start(&registry, &config([("fake", slow)]), &Selection::default()).await;
    let timed_out = call(&registry, "mcp__fake__hang", "{}").await;
    assert!(
        timed_out.as_str().contains("did not answer within 1 s"),
        "{timed_out}"
    );
    // The cancellation is sent from a task of its own: give it a moment.
    let deadline = Instant::now() + Duration::from_secs(5);
    while fake.count("cancelled") == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(fake.count("cancelled"), 1, "{:?}", fake.log());
    // An answered call is not cancelled.
    let echo = call(&registry, "mcp__fake__echo", r#"{"text":"x"}"#).await;
    assert!(!echo.is_error(), "{echo}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(fake.count("cancelled"), 1, "{:?}", fake.log());
    clients.shutdown().await;
}

/// Our clients of `server-everything` over stdio, its tools in `registry`.
async fn start_everything(registry: &ToolRegistry) -> McpClients {
    let entry = everything_entry();
    let config = config([(
        "everything",
        server("node", &[entry.to_str().unwrap(), "stdio"]),
    )]);
    McpClients::start(registry, &config, &Selection::default()).await
}

/// What a follower saw: each report's done and total.
type Seen = Arc<parking_lot::Mutex<Vec<(f64, Option<f64>)>>>;

/// A sink of progress reports for one caller, and what it saw.
fn follower() -> (ToolContext, Seen) {
    let seen = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let ctx = ToolContext::new().with_progress(move |p| sink.lock().push((p.done, p.total)));
    (ctx, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn a_servers_progress_reports_reach_the_call_that_follows_them_and_no_other() {
    let registry = ToolRegistry::new();
    let clients = start_everything(&registry).await;
    let tool = "mcp__everything__trigger_long_running_operation";
    let (first, first_seen) = follower();
    let (second, second_seen) = follower();
    // Three calls at once on one connection: two followed (3 and 4 steps), one not.
    let unfollowed = ToolContext::new();
    let (a, b, c) = tokio::join!(
        registry.call(tool, r#"{"duration": 0.6, "steps": 3}"#, &first),
        registry.call(tool, r#"{"duration": 0.6, "steps": 4}"#, &second),
        registry.call(tool, r#"{"duration": 0.3, "steps": 5}"#, &unfollowed),
    );
    for answer in [&a, &b, &c] {
        assert!(!answer.is_error(), "{answer}");
    }
    // The last report of a call races its answer (rmcp handles notifications on tasks of
    // their own), so it may come too late and be dropped; the earlier ones are there, in order.
    for (seen, steps) in [(first_seen, 3.0), (second_seen, 4.0)] {
        let seen = seen.lock().clone();
        let done: Vec<f64> = seen.iter().map(|(done, _)| *done).collect();
        let expected: Vec<f64> = (1..=steps as u32).map(f64::from).collect();
        assert!(
            done.len() >= expected.len() - 1 && expected.starts_with(&done),
            "{steps} steps: saw {seen:?}"
        );
        assert!(
            seen.iter().all(|(_, total)| *total == Some(steps)),
            "{seen:?}"
        );
    }
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs MCP servers from PyPI or npm that `bash .ci/test` installs"]
async fn everything_server_tools_are_registered_described_called_and_refreshed() {
    let registry = ToolRegistry::new();
    let clients = start_everything(&registry).await;

    let status = clients.status("everything").unwrap();
    let expected = [
        "mcp__everything__echo",
        "mcp__everything__get_annotated_message",
        "mcp__everything__get_env",
        "mcp__everything__get_prompt",
        "mcp__everything__get_resource_links",
        "mcp__everything__get_resource_reference",
        "mcp__everything__get_structured_content",
        "mcp__everything__get_sum",
        "mcp__everything__get_tiny_image",
        "mcp__everything__gzip_file_as_resource",
        "mcp__everything__list_prompts",
        "mcp__everything__list_resources",
        "mcp__everything__read_resource",
        "mcp__everything__simulate_research_query",
        "mcp__everything__toggle_simulated_logging",
        "mcp__everything__toggle_subscriber_updates",
        "mcp__everything__trigger_long_running_operation",
    ];
    assert_eq!(tools_of(&status), expected);
    assert!(
        status.rejected_tools.is_empty(),
        "{:?}",
        status.rejected_tools
    );

    // Every inputSchema is draft-07 with `$schema`; none of that reaches a provider.
    for format in [Format::Mcp, Format::OpenAiStrict] {
        let listed = definitions(&registry, format, Selection::default());
        assert_eq!(listed.len(), expected.len());
        for definition in &listed {
            let text = definition.to_string();
            assert!(!text.contains("$schema"), "{text}");
        }
    }
    for definition in definitions(&registry, Format::Mcp, Selection::default()) {
        assert_meta_valid(&definition["inputSchema"]);
    }

    let echo = call(&registry, "mcp__everything__echo", r#"{"message":"hi"}"#).await;
    assert_eq!(echo.to_value(), json!({"result": "Echo: hi"}));
    // What a server answers is redacted like any answer: the model never reads the key.
    let key = "sk-proj-Zq8wLm3Np5Rt7Vx9Bc2Df4Gh6Jk8Lm0Np2Qr4";
    let args = json!({ "message": format!("my key is {key}") }).to_string();
    let echo = call(&registry, "mcp__everything__echo", &args).await;
    assert!(!echo.as_str().contains(key), "{echo}");
    assert!(echo.as_str().contains("Echo: my key is sk-pro"), "{echo}");

    // Arguments are validated against the server's schema before any call: a string for a
    // number is repaired, a word is refused by us (the message is dispatch's).
    let sum = call(
        &registry,
        "mcp__everything__get_sum",
        r#"{"a": 2, "b": "40"}"#,
    )
    .await;
    assert!(sum.as_str().contains("42"), "{sum}");
    let refused = call(
        &registry,
        "mcp__everything__get_sum",
        r#"{"a": 2, "b": "lots"}"#,
    )
    .await;
    assert!(refused.is_error());
    assert!(
        refused.as_str().contains("Invalid arguments for tool"),
        "{refused}"
    );

    let structured = call(
        &registry,
        "mcp__everything__get_structured_content",
        r#"{"location":"Chicago"}"#,
    )
    .await;
    // It declares an output schema: the structured content is the answer as it is.
    assert!(
        structured.to_value()["temperature"].is_number(),
        "{structured}"
    );

    let image = call(&registry, "mcp__everything__get_tiny_image", "{}").await;
    let parts = image.content().expect("image parts are kept");
    assert!(parts.iter().any(|part| matches!(part, hermes_tools::call::ContentPart::Image { mime_type, .. } if mime_type == "image/png")));

    // The server announces its tool list once initialised (its conditional tools); the
    // client re-lists, and the unchanged list leaves the registry as it was.
    eventually("the list_changed refresh", || {
        clients.status("everything").unwrap().refreshes >= 1
    })
    .await;
    assert_eq!(tools_of(&clients.status("everything").unwrap()), expected);
    drop(clients);
    assert!(names(&registry, "mcp-everything").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_replaces_the_toolset_and_nothing_else() {
    let fake = Fake::new();
    let registry = ToolRegistry::new();
    let native = Tool::builder("native_tool", "native")
        .description("A tool of ours.")
        .handler(|_, _| "ok")
        .build();
    registry.register(native).unwrap();
    let native_before = registry.get("native_tool").unwrap();
    let clients = McpClients::start(
        &registry,
        &config([("fake", fake.config())]),
        &Selection::default(),
    )
    .await;
    assert!(registry.get("mcp__fake__to_remove").is_some());
    let before = definitions(&registry, Format::OpenAi, Selection::default());
    let generation = registry.generation();

    let answer = call(&registry, "mcp__fake__swap", "{}").await;
    assert_eq!(answer.to_value(), json!({"result": "swapped"}));
    eventually("the new tool is registered", || {
        registry.get("mcp__fake__added").is_some()
    })
    .await;
    eventually("the stale tool is gone", || {
        registry.get("mcp__fake__to_remove").is_none()
    })
    .await;

    assert_ne!(registry.generation(), generation);
    let after = definitions(&registry, Format::OpenAi, Selection::default());
    let listed = |defs: &[Value]| -> BTreeSet<String> {
        defs.iter()
            .map(|d| d["function"]["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let (before, after) = (listed(&before), listed(&after));
    assert_eq!(
        before.difference(&after).collect::<Vec<_>>(),
        ["mcp__fake__to_remove"]
    );
    assert_eq!(
        after.difference(&before).collect::<Vec<_>>(),
        ["mcp__fake__added"]
    );
    // Other toolsets are untouched: the very same entry, not a re-registration.
    assert!(Arc::ptr_eq(
        &native_before,
        &registry.get("native_tool").unwrap()
    ));
    // Unchanged tools of the server were not registered again either.
    assert_eq!(clients.status("fake").unwrap().refreshes, 1);
    let answer = call(&registry, "mcp__fake__added", "{}").await;
    assert_eq!(answer.to_value(), json!({"result": "ok"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_command_is_reported_and_the_others_go_on() {
    let fake = Fake::new();
    let registry = ToolRegistry::new();
    let config = config([
        ("fake", fake.config()),
        (
            "ghost",
            server(
                "/nonexistent/mcp-server-ghost",
                &["--token=sk-abcdefghijklmnopqrstuvwxyz"],
            ),
        ),
    ]);
    let clients = McpClients::start(&registry, &config, &Selection::default()).await;
    let report = clients.report();
    assert_eq!(
        report.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["fake", "ghost"]
    );
    assert!(matches!(report[0].state, ServerState::Running { .. }));
    let ServerState::Failed { reason } = &report[1].state else {
        panic!("{:?}", report[1].state);
    };
    assert!(
        reason.starts_with("cannot start `/nonexistent/mcp-server-ghost"),
        "{reason}"
    );
    assert!(reason.contains("No such file or directory"), "{reason}");
    assert!(
        !reason.contains("abcdefghijklmnop"),
        "the token is redacted: {reason}"
    );
    // Calling one of its tools says the server failed to start, and why.
    let failed = call(&registry, "mcp__ghost__search", "{}").await;
    assert!(
        failed.as_str().contains(
            r#"is unavailable: MCP server \"ghost\" failed to start: cannot start `/nonexistent/mcp-server-ghost"#
        ),
        "{failed}"
    );
    assert!(!failed.as_str().contains("abcdefghijklmnop"), "{failed}");
    // The running server's tools are not affected.
    let listed = names(&registry, "mcp-fake");
    assert!(!listed.is_empty());
    // The failed server's toolset still resolves (to nothing), so selections naming it work.
    let selection = Selection {
        enabled: vec![],
        disabled: vec!["ghost".into()],
    };
    assert!(!definitions(&registry, Format::OpenAi, selection).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_on_stdout_that_are_not_json_rpc_are_skipped_and_reported() {
    let fake = Fake::new();
    let mut chatty = fake.config();
    set_env(
        &mut chatty,
        "FAKE_STDOUT_BANNER",
        "Fake server v1 ready on stdio",
    );
    let mut silent = fake.config();
    set_env(
        &mut silent,
        "FAKE_STDOUT_ONLY",
        "usage: fake [--stdio] (token=hunter2hunter2)",
    );
    silent.connect_timeout_secs = 2;
    let registry = ToolRegistry::new();
    let clients = McpClients::start(
        &registry,
        &config([("chatty", chatty), ("silent", silent)]),
        &Selection::default(),
    )
    .await;
    // A banner before the protocol costs nothing: the session goes on.
    let echo = call(&registry, "mcp__chatty__echo", r#"{"text":"hi"}"#).await;
    assert!(!echo.is_error(), "{echo}");
    // A server that only prints is not "a server that never answers": it says what it printed.
    let ServerState::Failed { reason } = clients.status("silent").expect("reported").state else {
        panic!("silent must fail")
    };
    assert!(
        reason.contains("did not finish initialising within 2 s"),
        "{reason}"
    );
    assert!(
        reason.contains("1 line(s) on stdout that are not JSON-RPC"),
        "{reason}"
    );
    assert!(reason.contains("usage: fake [--stdio]"), "{reason}");
    assert!(!reason.contains("hunter2hunter2"), "{reason}");
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_in_pages_is_followed_to_its_end() {
    let fake = Fake::new();
    // The same script twice: one lists its tools at once, the other in pages of three.
    let (whole, mut paged) = (fake.config(), fake.config());
    set_env(&mut paged, "FAKE_PAGE_SIZE", "3");
    let registry = ToolRegistry::new();
    let clients = McpClients::start(
        &registry,
        &config([("whole", whole), ("paged", paged)]),
        &Selection::default(),
    )
    .await;
    // The names without their server's prefix (a shortened name's hash covers the server's
    // name too, so it differs; only its start is kept).
    let strip = |tools: Vec<String>, server: &str| -> Vec<String> {
        let prefix = format!("mcp__{server}__");
        tools
            .into_iter()
            .map(|tool| tool.trim_start_matches(&prefix).chars().take(30).collect())
            .collect()
    };
    let whole = strip(tools_of(&clients.status("whole").unwrap()), "whole");
    let paged = strip(tools_of(&clients.status("paged").unwrap()), "paged");
    assert!(whole.len() > 6, "{whole:?}");
    assert_eq!(paged, whole);
    assert!(fake.count("list from 3") >= 1, "{:?}", fake.log());
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_and_prompts_in_pages_are_followed_to_their_end() {
    let fake = Fake::new();
    let mut paged = fake.config();
    // Seven resources and seven prompts, in pages of three: three pages of each.
    set_env(&mut paged, "FAKE_CONTENT", "7");
    set_env(&mut paged, "FAKE_PAGE_SIZE", "3");
    let registry = ToolRegistry::new();
    let clients = McpClients::start(
        &registry,
        &config([("paged", paged)]),
        &Selection::default(),
    )
    .await;
    let ctx = ToolContext::new();
    let listed = registry
        .call("mcp__paged__list_resources", "{}", &ctx)
        .await
        .to_value();
    let uris: Vec<&str> = listed["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .filter_map(|resource| resource["uri"].as_str())
        .collect();
    let expected: Vec<String> = (0..7).map(|i| format!("fake://r/{i}")).collect();
    assert_eq!(uris, expected);
    let listed = registry
        .call("mcp__paged__list_prompts", "{}", &ctx)
        .await
        .to_value();
    let names: Vec<&str> = listed["prompts"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .filter_map(|prompt| prompt["name"].as_str())
        .collect();
    let expected: Vec<String> = (0..7).map(|i| format!("prompt_{i}")).collect();
    assert_eq!(names, expected);
    // Each list was walked to its last page.
    for last in ["resources from 6", "prompts from 6"] {
        assert!(fake.count(last) >= 1, "{last}: {:?}", fake.log());
    }
    clients.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_busy_with_a_long_call_is_not_taken_for_dead_by_the_keepalive() {
    let fake = Fake::new();
    let mut busy = fake.config();
    busy.keepalive_secs = 1;
    let registry = ToolRegistry::new();
    let clients =
        McpClients::start(&registry, &config([("fake", busy)]), &Selection::default()).await;
    // The script answers nothing, pings included, while it sleeps.
    let slept = call(&registry, "mcp__fake__sleep", r#"{"seconds": 3}"#).await;
    assert_eq!(slept.as_str(), r#"{"result":"slept"}"#);
    assert_eq!(fake.count("start"), 1, "{:?}", fake.log());
    clients.shutdown().await;
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_server_started_is_stopped_with_it() {
    let fake = Fake::new();
    let mut parent = fake.config();
    set_env(&mut parent, "FAKE_GRANDCHILD", "1");
    let registry = ToolRegistry::new();
    let clients = McpClients::start(
        &registry,
        &config([("fake", parent)]),
        &Selection::default(),
    )
    .await;
    let pid: u32 = fake
        .log()
        .iter()
        .find_map(|line| line.strip_prefix("grandchild ")?.parse().ok())
        .unwrap_or_else(|| panic!("no grandchild in {:?}", fake.log()));
    let alive = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            // A zombie (state Z) is dead, only not yet reaped.
            .is_ok_and(|stat| {
                !stat
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
    };
    assert!(alive(pid), "the grandchild runs while the server does");
    clients.shutdown().await;
    eventually("the grandchild is stopped with its server", || !alive(pid)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_failing_at_start_is_reported_with_its_stderr() {
    let fake = Fake::new();
    let mut failing = fake.config();
    set_env(
        &mut failing,
        "FAKE_EXIT_ON_START",
        "fatal: bad credentials password=hunter2hunter2",
    );
    let registry = ToolRegistry::new();
    let clients = McpClients::start(
        &registry,
        &config([("fake", failing)]),
        &Selection::default(),
    )
    .await;
    let ServerState::Failed { reason } = clients.status("fake").unwrap().state else {
        panic!("expected a failure");
    };
    assert!(reason.starts_with("initialisation failed"), "{reason}");
    assert!(
        reason.contains("its stderr ends with: booting | fatal: bad credentials password=***"),
        "{reason}"
    );
    // A failed first start is not retried.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(fake.count("start"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_breaker_opens_after_three_failures_and_closes_after_the_cooldown() {
    let fake = Fake::new();
    let registry = ToolRegistry::new();
    let clock = Arc::new(ManualClock::new());
    let options = McpOptions {
        clock: clock.clone(),
        ..McpOptions::default()
    };
    let mut slow = fake.config();
    slow.call_timeout_secs = 1;
    let _clients = McpClients::start_with(
        &registry,
        &config([("fake", slow)]),
        &Selection::default(),
        options,
    )
    .await;

    // A tool's own error is an answer from a working server: it does not count.
    for _ in 0..3 {
        let failed = call(&registry, "mcp__fake__fail", "{}").await;
        assert_eq!(
            failed.to_value(),
            json!({"error": "[TOOL_ERROR] upstream said: Bearer abcdef...0123 is revoked"})
        );
    }
    for _ in 0..3 {
        let timed_out = call(&registry, "mcp__fake__hang", "{}").await;
        assert!(
            timed_out.as_str().contains("did not answer within 1 s"),
            "{timed_out}"
        );
    }
    let calls = fake.count("call hang") + fake.count("call echo");
    let open = call(&registry, "mcp__fake__echo", r#"{"text":"x"}"#).await;
    assert!(open.is_error());
    assert!(open.as_str().contains("failed 3 times in a row"), "{open}");
    assert!(open.as_str().contains("another 60 s"), "{open}");
    assert_eq!(
        fake.count("call hang") + fake.count("call echo"),
        calls,
        "no call reached the server"
    );

    clock.advance(Duration::from_secs(60));
    let probe = call(&registry, "mcp__fake__echo", r#"{"text":"back"}"#).await;
    assert_eq!(probe.to_value(), json!({"result": "back"}));
    let closed = call(&registry, "mcp__fake__echo", r#"{"text":"still"}"#).await;
    assert_eq!(closed.to_value(), json!({"result": "still"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disabled_server_is_never_started() {
    let fake = Fake::new();
    let registry = ToolRegistry::new();
    let config = config([("fake", fake.config())]);
    for (enabled, disabled) in [
        (vec![], vec!["fake"]),
        (vec![], vec!["mcp-fake"]),
        (vec!["all"], vec!["fake"]),
        (vec![], vec!["all"]),
        (vec!["native"], vec![]),
    ] {
        let selection = Selection {
            enabled: enabled.iter().map(|s| (*s).to_owned()).collect(),
            disabled: disabled.iter().map(|s| (*s).to_owned()).collect(),
        };
        let clients = McpClients::start(&registry, &config, &selection).await;
        let status = clients.status("fake").unwrap();
        assert!(
            matches!(status.state, ServerState::Skipped { .. }),
            "{selection:?}: {}",
            status.state
        );
        // Its name stays a known toolset, so the selection that skipped it is valid.
        let request = DefinitionsRequest {
            selection: Selection {
                enabled: vec![],
                disabled: vec!["fake".into()],
            },
            format: Format::OpenAi,
            ..DefinitionsRequest::default()
        };
        assert!(registry.definitions(&request).is_ok());
        let skipped = call(&registry, "mcp__fake__echo", r#"{"text":"x"}"#).await;
        assert!(
            skipped
                .as_str()
                .contains(r#"is unavailable: MCP server \"fake\" was not started"#),
            "{skipped}"
        );
        drop(clients);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(fake.log().is_empty(), "the server ran: {:?}", fake.log());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemas_are_repaired_names_shortened_and_unusable_tools_reported() {
    let fake = Fake::new();
    let registry = ToolRegistry::new();
    let clients = McpClients::start(
        &registry,
        &config([("fake", fake.config())]),
        &Selection::default(),
    )
    .await;
    let status = clients.status("fake").unwrap();

    let weird = registry.get("mcp__fake__weird").unwrap();
    assert_eq!(
        weird.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "when": {"$ref": "#/$defs/When"},
                "tags": {"type": "array", "prefixItems": [{"type": "string"}], "items": false}
            },
            "required": ["when"],
            "$defs": {"When": {"type": "string", "description": "A time."}}
        })
    );
    assert_eq!(
        registry.get("mcp__fake__no_schema").unwrap().parameters(),
        &json!({"type": "object", "properties": {}})
    );
    for tool in registry.snapshot().tools() {
        assert_meta_valid(tool.parameters());
    }
    // `$ref`s are followed when validating the model's arguments.
    let bad = call(&registry, "mcp__fake__weird", r#"{"when": 5}"#).await;
    assert!(bad.as_str().contains("Invalid arguments"), "{bad}");

    let rejected: Vec<(&str, &str)> = status
        .rejected_tools
        .iter()
        .map(|r| (r.name.as_str(), r.reason.as_str()))
        .collect();
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert_eq!(rejected[0].0, "broken");
    assert!(rejected[0].1.contains("type \"string\""), "{rejected:?}");
    assert!(registry.get("mcp__fake__broken").is_none());

    // A name over 64 characters is shortened, stably, and the tool still works.
    let long = "mcp__fake__a_tool_with_a_name_long_enough_to_need_short_a2c51100";
    assert_eq!(long.len(), 64);
    assert!(
        tools_of(&status).iter().any(|name| name == long),
        "{:?}",
        tools_of(&status)
    );
    assert_eq!(
        call(&registry, long, "{}").await.to_value(),
        json!({"result": "ok"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_built_in_tool_is_never_replaced() {
    let fake = Fake::new();
    let registry = ToolRegistry::new();
    let ours = Tool::builder("mcp__fake__echo", "native")
        .description("Our echo.")
        .handler(|_, _| "ours")
        .build();
    registry.register(ours).unwrap();
    let mut only_echo = fake.config();
    only_echo.include = vec!["echo".into(), "count".into()];
    let clients = McpClients::start(
        &registry,
        &config([("fake", only_echo)]),
        &Selection::default(),
    )
    .await;
    let status = clients.status("fake").unwrap();
    assert_eq!(tools_of(&status), ["mcp__fake__count"]);
    assert_eq!(status.rejected_tools.len(), 1);
    assert_eq!(status.rejected_tools[0].name, "echo");
    assert!(
        status.rejected_tools[0]
            .reason
            .contains("the built-in tool is kept")
    );
    assert_eq!(registry.get("mcp__fake__echo").unwrap().toolset(), "native");
    let answer = call(&registry, "mcp__fake__echo", "{}").await;
    assert_eq!(answer.to_value(), json!({"result": "ours"}));
    drop(clients);
    assert_eq!(registry.get("mcp__fake__echo").unwrap().toolset(), "native");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the virtualenv python `bash .ci/test` makes: a pyenv shim's python3 adds PYENV_* variables, which this test counts as leaked"]
async fn the_server_gets_a_filtered_environment_and_its_own() {
    // Cargo sets this for every test process; it is not among the inherited variables.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let fake = Fake::new();
    let mut with_env = fake.config();
    set_env(&mut with_env, "FAKE_TOKEN", "t0k3n");
    let registry = ToolRegistry::new();
    let _clients = McpClients::start(
        &registry,
        &config([("fake", with_env)]),
        &Selection::default(),
    )
    .await;
    let answer = call(&registry, "mcp__fake__env", "{}").await.to_value();
    // It arrived (the server read it), and the model reads it masked: a member named like a
    // secret is redacted in every answer.
    assert_eq!(answer["result"]["token"], "***");
    assert!(
        answer["result"]["keys"].to_string().contains("FAKE_TOKEN"),
        "{answer}"
    );
    let keys: BTreeSet<&str> = answer["result"]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(keys.contains("PATH"), "{keys:?}");
    let allowed: BTreeSet<&str> = [
        "HOME",
        "LOGNAME",
        "PATH",
        "SHELL",
        "TERM",
        "USER",
        "LANG",
        "LC_ALL",
        "TMPDIR",
        "FAKE_TOKEN",
        "FAKE_LOG",
        "LC_CTYPE",
    ]
    .into();
    let leaked: Vec<&&str> = keys.difference(&allowed).collect();
    assert!(
        leaked.is_empty(),
        "variables leaked to the server: {leaked:?}"
    );
}
