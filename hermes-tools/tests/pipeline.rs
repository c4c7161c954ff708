//! The call pipeline, step by step, with Hermes' cases.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hermes_tools::hooks::{ApprovalRequest, Directive, Status};
use hermes_tools::{CallOptions, ToolContext, ToolRegistry, tool};
use parking_lot::Mutex;
use serde_json::{Value, json};

/// Echo the text back.
#[tool(toolset = "demo")]
fn echo(
    /// The text.
    text: String,
) -> Value {
    json!({ "echo": text })
}

/// Sleep, then answer.
#[tool(toolset = "demo", blocking)]
fn nap(
    /// How long, in milliseconds.
    ms: u64,
) -> &'static str {
    std::thread::sleep(Duration::from_millis(ms));
    "rested"
}

/// Write text somewhere important.
#[tool(toolset = "demo", needs_approval)]
fn guarded_write(
    /// The text.
    text: String,
) -> String {
    format!("wrote {text}")
}

/// Name the thread it runs on.
#[tool(toolset = "demo")]
fn whereami() -> String {
    format!("{:?}", std::thread::current().id())
}

/// Block a thread for longer than allowed.
#[tool(toolset = "slow", blocking, timeout_secs = 1)]
fn stuck_sync() -> &'static str {
    std::thread::sleep(Duration::from_secs(30));
    "too late"
}

static DROPPED: AtomicBool = AtomicBool::new(false);

struct DropFlag;

impl Drop for DropFlag {
    fn drop(&mut self) {
        DROPPED.store(true, Ordering::SeqCst);
    }
}

/// Wait for longer than allowed.
#[tool(toolset = "slow", timeout_secs = 1)]
async fn stuck_async() -> &'static str {
    let _flag = DropFlag;
    tokio::time::sleep(Duration::from_secs(30)).await;
    "too late"
}

/// Keep a session's task list.
#[tool(toolset = "todo", name = "todo")]
fn todo_stub() -> &'static str {
    "todo ran"
}

/// A registry of only these linked tools, independent of the global one (its own hooks).
fn registry(names: &[&str]) -> ToolRegistry {
    let registry = ToolRegistry::linked();
    let others: Vec<String> = registry
        .snapshot()
        .names()
        .filter(|name| !names.contains(name))
        .map(str::to_owned)
        .collect();
    for name in others {
        registry.deregister(&name);
    }
    assert_eq!(registry.snapshot().names().len(), names.len());
    registry
}

fn demo() -> ToolRegistry {
    registry(&["echo", "nap", "guarded_write", "todo"])
}

#[derive(Debug, Clone, PartialEq)]
struct Seen {
    name: String,
    args: Value,
    result: String,
    duration_ms: u64,
    status: Status,
}

fn record_posts(registry: &ToolRegistry) -> Arc<Mutex<Vec<Seen>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    registry.hooks().add_post_call(None, move |record| {
        sink.lock().push(Seen {
            name: record.name.to_owned(),
            args: record.args.clone(),
            result: record.result.to_owned(),
            duration_ms: record.duration_ms,
            status: record.status,
        });
    });
    seen
}

fn ctx() -> ToolContext {
    ToolContext::new()
}

#[test]
fn no_hooks_is_a_straight_call() {
    let registry = demo();
    let answer = registry.call_blocking("echo", r#"{"text":"hi"}"#, &ctx());
    assert_eq!(answer.to_value(), json!({"echo": "hi"}));
}

#[test]
fn a_block_directive_answers_its_message_and_post_hooks_see_blocked() {
    let registry = demo();
    registry.hooks().add_pre_call(None, |call| {
        (call.name == "echo").then(|| Directive::Block("echo is off today".into()))
    });
    let seen = record_posts(&registry);
    let answer = registry.call_blocking("echo", r#"{"text":"hi"}"#, &ctx());
    assert_eq!(answer.as_str(), r#"{"error":"echo is off today"}"#);
    let seen = seen.lock();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].status, Status::Blocked);
    assert_eq!(seen[0].args, json!({"text": "hi"}));
}

#[test]
fn malformed_directives_are_ignored() {
    let registry = demo();
    registry
        .hooks()
        .add_pre_call(None, |_| Some(Directive::Block("   ".into())));
    registry
        .hooks()
        .add_pre_call(None, |_| Some(Directive::Approve(String::new())));
    let answer = registry.call_blocking("echo", r#"{"text":"hi"}"#, &ctx());
    assert_eq!(answer.to_value(), json!({"echo": "hi"}));
}

#[test]
fn skipping_pre_hooks_still_runs_post_hooks_and_transforms() {
    let registry = demo();
    let pre_runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&pre_runs);
    registry.hooks().add_pre_call(None, move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
        Some(Directive::Block("blocked".into()))
    });
    let seen = record_posts(&registry);
    registry.hooks().add_transform(None, |record| {
        Some(format!(r#"{{"wrapped":{}}}"#, record.result))
    });
    let options = CallOptions::new().skip_pre_hooks();
    let answer = registry.call_blocking_with("echo", r#"{"text":"hi"}"#, &ctx(), &options);
    assert_eq!(answer.to_value(), json!({"wrapped": {"echo": "hi"}}));
    assert_eq!(pre_runs.load(Ordering::SeqCst), 0);
    assert_eq!(seen.lock()[0].status, Status::Ok);
}

#[test]
fn duration_is_whole_milliseconds() {
    let registry = demo();
    let seen = record_posts(&registry);
    registry.call_blocking("nap", r#"{"ms": 30}"#, &ctx());
    let duration = seen.lock()[0].duration_ms;
    assert!((30..5_000).contains(&duration), "{duration}");
}

#[test]
fn the_first_transform_wins() {
    let registry = demo();
    registry.hooks().add_transform(None, |_| None);
    registry
        .hooks()
        .add_transform(None, |_| Some(r#"{"first":true}"#.into()));
    registry
        .hooks()
        .add_transform(None, |_| Some(r#"{"second":true}"#.into()));
    let answer = registry.call_blocking("echo", r#"{"text":"x"}"#, &ctx());
    assert_eq!(answer.to_value(), json!({"first": true}));
}

#[test]
fn a_transform_that_returns_plain_text_still_answers_json() {
    let registry = demo();
    registry
        .hooks()
        .add_transform(None, |_| Some("not json".into()));
    let answer = registry.call_blocking("echo", r#"{"text":"x"}"#, &ctx());
    assert_eq!(answer.to_value(), json!({"result": "not json"}));
}

#[test]
fn agent_loop_tools_are_refused_unless_the_loop_calls_them() {
    let registry = demo();
    let answer = registry.call_blocking("todo", "{}", &ctx());
    assert_eq!(
        answer.as_str(),
        r#"{"error":"todo must be handled by the agent loop"}"#
    );
    let options = CallOptions::new().from_agent_loop();
    let answer = registry.call_blocking_with("todo", "{}", &ctx(), &options);
    assert_eq!(answer.to_value(), json!({"result": "todo ran"}));
}

#[test]
fn unknown_tools_pass_through_the_hooks() {
    let registry = demo();
    let seen = record_posts(&registry);
    let answer = registry.call_blocking("ecko", "{}", &ctx());
    assert!(answer.is_error());
    assert_eq!(answer.to_value()["suggestions"][0], "echo");
    let seen = seen.lock();
    assert_eq!(seen[0].name, "ecko");
    assert_eq!(seen[0].status, Status::Error);
    drop(seen);
    registry.hooks().add_pre_call(None, |call| {
        (call.name == "nonexistent").then(|| Directive::Block("no".into()))
    });
    let answer = registry.call_blocking("nonexistent", "{}", &ctx());
    assert_eq!(answer.as_str(), r#"{"error":"no"}"#);
}

#[test]
fn approval_without_a_gate_is_refused() {
    let registry = demo();
    registry
        .hooks()
        .add_pre_call(None, |_| Some(Directive::Approve("sensitive".into())));
    let answer = registry.call_blocking("echo", r#"{"text":"x"}"#, &ctx());
    let error = answer.to_value()["error"].as_str().unwrap().to_owned();
    assert!(error.contains("no approval gate"), "{error}");
}

#[test]
fn marked_tools_go_through_the_gate() {
    let registry = demo();
    let answer = registry.call_blocking("guarded_write", r#"{"text":"x"}"#, &ctx());
    assert!(answer.is_error(), "no gate: refused");

    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&asked);
    registry.set_approval_gate(Some(Arc::new(move |request: &ApprovalRequest<'_>| {
        log.lock()
            .push(format!("{}: {}", request.tool, request.reason));
        request.args["text"] == "ok"
    })));
    let answer = registry.call_blocking("guarded_write", r#"{"text":"ok"}"#, &ctx());
    assert_eq!(answer.to_value(), json!({"result": "wrote ok"}));
    let answer = registry.call_blocking("guarded_write", r#"{"text":"no"}"#, &ctx());
    assert!(
        answer.to_value()["error"]
            .as_str()
            .unwrap()
            .contains("did not approve")
    );
    assert_eq!(
        asked.lock().as_slice(),
        [
            "guarded_write: guarded_write requires approval before it runs",
            "guarded_write: guarded_write requires approval before it runs"
        ]
    );
    let answer = registry.call_blocking("echo", r#"{"text":"x"}"#, &ctx());
    assert_eq!(
        answer.to_value(),
        json!({"echo": "x"}),
        "unmarked tools skip the gate"
    );
}

#[test]
fn a_panicking_hook_is_contained_and_the_call_goes_on() {
    let registry = demo();
    registry
        .hooks()
        .add_pre_call(None, |_| panic!("pre hook bug"));
    registry
        .hooks()
        .add_post_call(None, |_| panic!("post hook bug"));
    registry
        .hooks()
        .add_transform(None, |_| panic!("transform bug"));
    let answer = registry.call_blocking("echo", r#"{"text":"x"}"#, &ctx());
    assert_eq!(answer.to_value(), json!({"echo": "x"}));
}

#[test]
fn a_timed_out_sync_tool_answers_an_error() {
    let registry = registry(&["stuck_sync"]);
    let started = Instant::now();
    let answer = registry.call_blocking("stuck_sync", "{}", &ctx());
    // The timeout is 1 s, the tool sleeps 30 s: a wide bound between them.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        answer.to_value()["error"]
            .as_str()
            .unwrap()
            .contains("timed out after 1 s")
    );
}

#[test]
fn a_timed_out_async_tool_is_cancelled() {
    let registry = registry(&["stuck_async"]);
    let started = Instant::now();
    let answer = registry.call_blocking("stuck_async", "{}", &ctx());
    // The timeout is 1 s, the tool sleeps 30 s: a wide bound between them.
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        answer.to_value()["error"]
            .as_str()
            .unwrap()
            .contains("timed out")
    );
    assert!(DROPPED.load(Ordering::SeqCst), "the future was dropped");
}

#[test]
fn sync_entry_point_works_inside_each_kind_of_runtime() {
    let registry = demo();
    let call = |registry: &ToolRegistry| {
        registry
            .call_blocking("echo", r#"{"text":"rt"}"#, &ctx())
            .to_value()
    };
    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    assert_eq!(
        current.block_on(async { call(&registry) }),
        json!({"echo": "rt"})
    );
    let multi = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    assert_eq!(
        multi.block_on(async { call(&registry) }),
        json!({"echo": "rt"})
    );
    assert_eq!(call(&registry), json!({"echo": "rt"}));
}

#[test]
fn a_sync_tool_not_declared_blocking_runs_on_the_callers_thread() {
    let registry = registry(&["whereami"]);
    let answer = registry.call_blocking("whereami", "{}", &ctx());
    let here = format!("{:?}", std::thread::current().id());
    assert_eq!(answer.to_value(), json!({ "result": here }));
}

#[test]
fn the_async_form_runs_a_sync_tool_on_the_worker_of_a_multi_thread_runtime() {
    // With the `multi-thread` feature inside `block_in_place`, without it as is: on the
    // calling task's thread either way, and CI runs this test both ways.
    let registry = std::sync::Arc::new(registry(&["whereami"]));
    let multi = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (here, answer) = multi.block_on(async move {
        tokio::spawn(async move {
            let here = whereami();
            let answer = registry.call("whereami", "{}", &ctx()).await;
            (here, answer.to_value())
        })
        .await
        .unwrap()
    });
    assert_eq!(answer, json!({ "result": here }));
}

#[tokio::test(flavor = "current_thread")]
async fn the_async_form_runs_sync_tools_off_the_executor() {
    let registry = demo();
    // Four 500 ms naps of a `blocking` sync tool at once on a single-threaded executor:
    // concurrent only if none blocks the executor thread. One at a time cannot take less than
    // 2 s however slow the machine; under 1.5 s, at least two overlapped.
    let ctx = ctx();
    let started = Instant::now();
    let (a, b, c, d) = tokio::join!(
        registry.call("nap", r#"{"ms": 500}"#, &ctx),
        registry.call("nap", r#"{"ms": 500}"#, &ctx),
        registry.call("nap", r#"{"ms": 500}"#, &ctx),
        registry.call("nap", r#"{"ms": 500}"#, &ctx),
    );
    for answer in [a, b, c, d] {
        assert_eq!(answer.to_value(), json!({"result": "rested"}));
    }
    assert!(
        started.elapsed() < Duration::from_millis(1_500),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_transformed_error_stays_an_error() {
    let registry = demo();
    registry.hooks().add_transform(None, |record| {
        (record.status == Status::Error).then(|| r#"{"error":"rephrased"}"#.to_owned())
    });
    let answer = registry.call_blocking("ecko", "{}", &ctx());
    assert!(answer.is_error());
    assert_eq!(answer.as_str(), r#"{"error":"rephrased"}"#);
}
