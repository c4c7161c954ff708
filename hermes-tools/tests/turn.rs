//! A model turn: concurrency where tools allow it, order where they do not, one budget, hooks,
//! unknown tools and cancellation.
//!
//! The timing bounds are coarse: a batch of 8 calls of 200 ms must take less than 3 calls'
//! time, which only concurrency can do, on a loaded 2-core machine too.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hermes_tools::provider::ToolCall;
use hermes_tools::{
    CallOptions, ToolContext, ToolRegistry, Turn, call::TurnBudget, config::Config,
    provider::TurnCancel, tool, tool::Annotations, tool::Tool,
};
use parking_lot::Mutex;
use serde_json::{Value, json};

const NAP: Duration = Duration::from_millis(200);

/// Concurrency shown: under the calls' time end to end (8 × 200 ms = 1.6 s), which calls one
/// at a time cannot take less than, however slow the machine (a bound of logic, not of speed).
const CONCURRENT: Duration = Duration::from_millis(7 * 200);

fn read_only() -> Annotations {
    Annotations {
        read_only: true,
        ..Annotations::default()
    }
}

fn n_schema() -> Value {
    json!({"type": "object", "properties": {"n": {"type": "integer"}}})
}

/// A read-only tool that sleeps its thread for `NAP`, then answers its `n`.
fn sync_sleeper(name: &str) -> Tool {
    Tool::builder(name, "reads")
        .annotations(read_only())
        .parameters(n_schema())
        .handler(|args, _ctx| {
            std::thread::sleep(NAP);
            json!({"n": args["n"]})
        })
        .build()
}

/// The same, sleeping asynchronously.
fn async_sleeper(name: &str) -> Tool {
    Tool::builder(name, "reads")
        .annotations(read_only())
        .parameters(n_schema())
        .async_handler(|args, _ctx| async move {
            tokio::time::sleep(NAP).await;
            json!({"n": args["n"]})
        })
        .build()
}

fn registry_with(tools: impl IntoIterator<Item = Tool>) -> ToolRegistry {
    let registry = ToolRegistry::new();
    for tool in tools {
        registry.register(tool).expect("a fresh registry");
    }
    registry
}

fn calls_of(name: &str, count: usize) -> Vec<ToolCall> {
    (0..count)
        .map(|n| ToolCall::new(format!("call_{n}"), name, json!({ "n": n }).to_string()))
        .collect()
}

/// Runs 8 calls of the registry's `read` and checks they overlapped and answered in order.
async fn eight_reads_overlap(registry: ToolRegistry) {
    let calls = calls_of("read", 8);
    let started = Instant::now();
    let answers = registry
        .run_turn(&calls, &ToolContext::new(), &Turn::new())
        .await;
    let elapsed = started.elapsed();
    eprintln!("8 calls of {NAP:?} in one turn: {elapsed:?}");
    assert!(elapsed >= NAP, "every call ran: {elapsed:?}");
    assert!(
        elapsed < CONCURRENT,
        "8 calls of {NAP:?} took {elapsed:?}: not concurrent"
    );
    let ns: Vec<Value> = answers.iter().map(|a| a.to_value()["n"].clone()).collect();
    assert_eq!(ns, (0..8).map(|n| json!(n)).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_sync_reads_run_concurrently_on_a_multi_thread_runtime() {
    eight_reads_overlap(registry_with([sync_sleeper("read")])).await;
}

#[tokio::test(flavor = "current_thread")]
async fn eight_sync_reads_run_concurrently_on_a_current_thread_runtime() {
    eight_reads_overlap(registry_with([sync_sleeper("read")])).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_async_reads_run_concurrently_on_a_multi_thread_runtime() {
    eight_reads_overlap(registry_with([async_sleeper("read")])).await;
}

#[tokio::test(flavor = "current_thread")]
async fn eight_async_reads_run_concurrently_on_a_current_thread_runtime() {
    eight_reads_overlap(registry_with([async_sleeper("read")])).await;
}

/// What happened, in order: `("start" | "end", call number)`.
type Events = Arc<Mutex<Vec<(&'static str, u64)>>>;

/// A tool that records its start and end around a sleep of `ms`.
fn recording(name: &str, annotations: Annotations, events: &Events, ms: u64) -> Tool {
    let events = Arc::clone(events);
    Tool::builder(name, "recorded")
        .annotations(annotations)
        .parameters(n_schema())
        .handler(move |args, _ctx| {
            let n = args["n"].as_u64().unwrap_or(u64::MAX);
            events.lock().push(("start", n));
            std::thread::sleep(Duration::from_millis(ms));
            events.lock().push(("end", n));
            json!({"n": n})
        })
        .build()
}

fn position(events: &[(&str, u64)], event: (&str, u64)) -> usize {
    events
        .iter()
        .position(|e| *e == event)
        .unwrap_or_else(|| panic!("{event:?} never happened: {events:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_runs_after_the_reads_before_it_and_before_the_reads_after_it() {
    let events = Events::default();
    let registry = registry_with([
        recording("read", read_only(), &events, 100),
        recording("write", Annotations::default(), &events, 50),
    ]);
    let call =
        |n: u64, name: &str| ToolCall::new(format!("c{n}"), name, json!({"n": n}).to_string());
    let calls = [
        call(0, "read"),
        call(1, "read"),
        call(2, "read"),
        call(3, "write"),
        call(4, "read"),
        call(5, "read"),
    ];
    let started = Instant::now();
    let answers = registry
        .run_turn(&calls, &ToolContext::new(), &Turn::new())
        .await;
    let elapsed = started.elapsed();
    let events = events.lock().clone();

    let write_start = position(&events, ("start", 3));
    let write_end = position(&events, ("end", 3));
    for before in 0..3 {
        assert!(
            position(&events, ("end", before)) < write_start,
            "{events:?}"
        );
    }
    for after in 4..6 {
        assert!(
            write_end < position(&events, ("start", after)),
            "{events:?}"
        );
    }
    // The reads on each side did overlap: all three started before any ended.
    let first_end = position(&events, ("end", 0))
        .min(position(&events, ("end", 1)))
        .min(position(&events, ("end", 2)));
    assert!(position(&events, ("start", 2)) < first_end, "{events:?}");
    // Three batches: 100 + 50 + 100 ms; the order of the events above shows the overlap, so
    // the time is only bounded by what one call at a time cannot beat (450 ms).
    assert!(elapsed < Duration::from_millis(450), "{elapsed:?}");
    let ns: Vec<u64> = answers
        .iter()
        .map(|a| a.to_value()["n"].as_u64().unwrap_or(u64::MAX))
        .collect();
    assert_eq!(ns, [0, 1, 2, 3, 4, 5]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_come_back_in_the_calls_order_not_the_finishing_order() {
    // Call n sleeps (8 - n) × 30 ms: the last call finishes first.
    let finished = Arc::new(Mutex::new(Vec::new()));
    let order = Arc::clone(&finished);
    let registry = registry_with([Tool::builder("read", "reads")
        .annotations(read_only())
        .parameters(n_schema())
        .async_handler(move |args, _ctx| {
            let order = Arc::clone(&order);
            async move {
                let n = args["n"].as_u64().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis((8 - n) * 30)).await;
                order.lock().push(n);
                json!({"n": n})
            }
        })
        .build()]);
    let answers = registry
        .run_turn(&calls_of("read", 8), &ToolContext::new(), &Turn::new())
        .await;
    assert_eq!(*finished.lock(), [7, 6, 5, 4, 3, 2, 1, 0]);
    let ns: Vec<u64> = answers
        .iter()
        .map(|a| a.to_value()["n"].as_u64().unwrap_or(u64::MAX))
        .collect();
    assert_eq!(ns, [0, 1, 2, 3, 4, 5, 6, 7]);
}

/// A read-only tool counting the calls in flight and the most there ever were.
fn counting(in_flight: &Arc<AtomicUsize>, most: &Arc<AtomicUsize>) -> Tool {
    let (in_flight, most) = (Arc::clone(in_flight), Arc::clone(most));
    Tool::builder("read", "reads")
        .annotations(read_only())
        .parameters(n_schema())
        .handler(move |_args, _ctx| {
            let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(50));
            in_flight.fetch_sub(1, Ordering::SeqCst);
            "done"
        })
        .build()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_concurrency_bounds_the_calls_in_flight() {
    let (in_flight, most) = (Arc::default(), Arc::default());
    let registry = registry_with([counting(&in_flight, &most)]);
    let answers = registry
        .run_turn(
            &calls_of("read", 7),
            &ToolContext::new(),
            &Turn::new().max_concurrency(2),
        )
        .await;
    assert_eq!(answers.len(), 7);
    assert!(answers.iter().all(|a| !a.is_error()), "{answers:?}");
    assert_eq!(most.load(Ordering::SeqCst), 2, "two at a time, never more");

    // 0 is taken as 1: still every call, one at a time.
    most.store(0, Ordering::SeqCst);
    let answers = registry
        .run_turn(
            &calls_of("read", 3),
            &ToolContext::new(),
            &Turn::new().max_concurrency(0),
        )
        .await;
    assert!(answers.iter().all(|a| !a.is_error()), "{answers:?}");
    assert_eq!(most.load(Ordering::SeqCst), 1);
}

/// A tool that counts its runs: what must not run after a cancellation.
fn counted_write(runs: &Arc<AtomicUsize>) -> Tool {
    let runs = Arc::clone(runs);
    Tool::builder("write", "writes")
        .handler(move |_args, _ctx| {
            runs.fetch_add(1, Ordering::SeqCst);
            "written"
        })
        .build()
}

fn error_text(answer: &hermes_tools::ToolAnswer) -> String {
    assert!(answer.is_error(), "{answer}");
    answer.to_value()["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_mid_turn_answers_every_call_and_returns_promptly() {
    let writes = Arc::new(AtomicUsize::new(0));
    let quick = Tool::builder("quick", "reads")
        .annotations(read_only())
        .async_handler(|_args, _ctx| async { "quick answer" })
        .build();
    let slow = Tool::builder("slow", "reads")
        .annotations(read_only())
        .async_handler(|_args, _ctx| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            "too late"
        })
        .build();
    let registry = registry_with([quick, slow, counted_write(&writes)]);
    let calls = [
        ToolCall::new("1", "quick", "{}"),
        ToolCall::new("2", "slow", "{}"),
        ToolCall::new("3", "write", "{}"),
        ToolCall::new("4", "quick", "{}"),
    ];
    let cancel = TurnCancel::new();
    let turn = Turn::new().cancel_on(cancel.clone());
    let timer = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    let answers = registry.run_turn(&calls, &ToolContext::new(), &turn).await;
    let elapsed = started.elapsed();
    timer.await.unwrap();

    // A hang guard: the cancel comes at 200 ms; the slow call would take 30 s.
    assert!(
        elapsed < Duration::from_secs(15),
        "returned after {elapsed:?}"
    );
    assert_eq!(answers.len(), 4);
    assert_eq!(answers[0].as_str(), r#"{"result":"quick answer"}"#);
    let interrupted = error_text(&answers[1]);
    assert!(
        interrupted.contains("cancelled while this slow call was running"),
        "{interrupted}"
    );
    for (answer, name) in [(&answers[2], "write"), (&answers[3], "quick")] {
        let text = error_text(answer);
        assert!(text.contains("cancelled before this"), "{text}");
        assert!(
            text.contains(name) && text.contains("did not run"),
            "{text}"
        );
    }
    assert_eq!(
        writes.load(Ordering::SeqCst),
        0,
        "the write after the cancel never ran"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_running_sync_call_is_left_to_finish_and_the_turn_returns_at_once() {
    let finished = Arc::new(AtomicUsize::new(0));
    let done = Arc::clone(&finished);
    let registry = registry_with([Tool::builder("crunch", "compute")
        .handler(move |_args, _ctx| {
            std::thread::sleep(Duration::from_millis(3_000));
            done.fetch_add(1, Ordering::SeqCst);
            "crunched"
        })
        .build()]);
    let cancel = TurnCancel::new();
    let turn = Turn::new().cancel_on(cancel.clone());
    let calls = [ToolCall::new("1", "crunch", "{}")];
    let canceller = cancel.clone();
    let timer = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        canceller.cancel();
    });
    let started = Instant::now();
    let answers = registry.run_turn(&calls, &ToolContext::new(), &turn).await;
    let elapsed = started.elapsed();
    timer.await.unwrap();
    // The cancel comes at 100 ms; waiting for the sync call would take 3 s: the bound is
    // 20 times the one and two thirds of the other.
    assert!(
        elapsed < Duration::from_millis(2_000),
        "waited for the sync call: {elapsed:?}"
    );
    assert!(error_text(&answers[0]).contains("cancelled while this crunch call was running"));
    assert_eq!(
        finished.load(Ordering::SeqCst),
        0,
        "still running when the turn returned"
    );

    // A turn run with a handle already cancelled runs nothing.
    let answers = registry.run_turn(&calls, &ToolContext::new(), &turn).await;
    assert!(error_text(&answers[0]).contains("did not run"));
}

/// A read-only tool answering `chars` characters.
fn big(name: &str, chars: usize) -> Tool {
    Tool::builder(name, "reads")
        .annotations(read_only())
        .handler(move |_args, _ctx| json!({ "text": "x".repeat(chars) }))
        .build()
}

/// Characters sent, notes for answers the turn had no room for aside.
fn sent_chars(answers: &[hermes_tools::ToolAnswer]) -> usize {
    answers
        .iter()
        .filter(|a| a.to_value().get("turn_budget_spent").is_none())
        .map(|a| a.as_str().chars().count())
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_budget_covers_all_answers_of_a_turn() {
    let registry = registry_with([big("page", 3_000), big("log", 3_000)]);
    let calls = [
        ToolCall::new("1", "page", "{}"),
        ToolCall::new("2", "log", "{}"),
        ToolCall::new("3", "page", "{}"),
        ToolCall::new("4", "log", "{}"),
    ];

    // The config's size, when the turn brings no budget of its own.
    registry.set_config(Config {
        turn_max_chars: 7_000,
        ..Config::default()
    });
    let answers = registry
        .run_turn(&calls, &ToolContext::new(), &Turn::new())
        .await;
    assert_eq!(answers.len(), 4);
    let sent = sent_chars(&answers);
    assert!(sent <= 7_000, "{sent} characters sent");
    assert!(
        sent > 6_000,
        "the budget is used, not just respected: {sent}"
    );
    assert!(
        answers.iter().any(|a| a.to_value()["truncated"] == true),
        "four answers of 3,000 characters cannot all fit in 7,000"
    );

    // The turn's own budget, when given: the same object is charged.
    let budget = Arc::new(TurnBudget::new(4_000));
    let turn = Turn::new().options(CallOptions::new().turn(Arc::clone(&budget)));
    let answers = registry.run_turn(&calls, &ToolContext::new(), &turn).await;
    let sent = sent_chars(&answers);
    assert!(sent <= 4_000, "{sent} characters sent");
    assert_eq!(budget.remaining(), 4_000 - sent);

    // Without one (0 in the config), each answer keeps only its own budget.
    registry.set_config(Config {
        turn_max_chars: 0,
        ..Config::default()
    });
    let answers = registry
        .run_turn(&calls, &ToolContext::new(), &Turn::new())
        .await;
    assert!(
        answers
            .iter()
            .all(|a| a.to_value().get("truncated").is_none())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_see_every_call_of_the_turn() {
    let events = Events::default();
    let registry = registry_with([
        recording("read", read_only(), &events, 10),
        recording("write", Annotations::default(), &events, 10),
    ]);
    let (pre, post) = (
        Arc::new(Mutex::new(Vec::new())),
        Arc::new(Mutex::new(Vec::new())),
    );
    let seen = Arc::clone(&pre);
    registry.hooks().add_pre_call(None, move |call| {
        seen.lock().push(call.name.to_owned());
        None
    });
    let seen = Arc::clone(&post);
    registry.hooks().add_post_call(None, move |record| {
        seen.lock().push((
            record.name.to_owned(),
            record.ctx.tool_call_id().map(str::to_owned),
        ));
    });
    let calls = [
        ToolCall::new("a", "read", r#"{"n": 0}"#),
        ToolCall::new("b", "read", r#"{"n": 1}"#),
        ToolCall::new("c", "write", r#"{"n": 2}"#),
        ToolCall::new("d", "nope", "{}"),
        ToolCall::new("e", "read", r#"{"n": 3}"#),
    ];
    registry
        .run_turn(&calls, &ToolContext::new(), &Turn::new())
        .await;
    let mut pre = pre.lock().clone();
    pre.sort();
    assert_eq!(pre, ["nope", "read", "read", "read", "write"]);
    let mut post = post.lock().clone();
    post.sort();
    let expected: Vec<(String, Option<String>)> = [
        ("nope", "d"),
        ("read", "a"),
        ("read", "b"),
        ("read", "e"),
        ("write", "c"),
    ]
    .iter()
    .map(|(name, id)| ((*name).to_owned(), Some((*id).to_owned())))
    .collect();
    assert_eq!(post, expected, "each call once, with its own call id");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_tool_gets_its_answer_in_its_place() {
    let registry = registry_with([async_sleeper("read_file")]);
    let calls = [
        ToolCall::new("1", "read_file", r#"{"n": 0}"#),
        ToolCall::new("2", "read_fil", r#"{"n": 1}"#),
        ToolCall::new("3", "read_file", r#"{"n": 2}"#),
    ];
    let answers = registry
        .run_turn(&calls, &ToolContext::new(), &Turn::new())
        .await;
    assert_eq!(answers[0].to_value()["n"], 0);
    let unknown = answers[1].to_value();
    assert!(answers[1].is_error());
    assert!(
        unknown.to_string().contains("read_file"),
        "names the nearest tool: {unknown}"
    );
    assert_eq!(answers[2].to_value()["n"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_calls_no_answers() {
    let registry = ToolRegistry::new();
    assert!(
        registry
            .run_turn(&[], &ToolContext::new(), &Turn::new())
            .await
            .is_empty()
    );
}

/// Look something up (read-only: calls overlap).
#[tool(toolset = "turn_demo", read_only, unlisted)]
fn look_up(n: u64) -> u64 {
    std::thread::sleep(Duration::from_millis(100));
    n
}

/// Ask the user (read-only, but one question at a time).
#[tool(toolset = "turn_demo", read_only, parallel = false, unlisted)]
fn ask(n: u64) -> u64 {
    std::thread::sleep(Duration::from_millis(100));
    n
}

/// Append to a log whose lines never interfere (writes, yet safe to overlap).
#[tool(toolset = "turn_demo", parallel, unlisted)]
async fn append(n: u64) -> u64 {
    tokio::time::sleep(Duration::from_millis(100)).await;
    n
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_tools_run_together_as_their_parallel_key_says() {
    let registry = registry_with([
        Tool::from_decl(&LOOK_UP_TOOL),
        Tool::from_decl(&ASK_TOOL),
        Tool::from_decl(&APPEND_TOOL),
    ]);
    assert!(
        registry
            .get("look_up")
            .is_some_and(|t| t.is_parallel_safe())
    );
    assert!(registry.get("ask").is_some_and(|t| !t.is_parallel_safe()));
    assert!(registry.get("append").is_some_and(|t| t.is_parallel_safe()));

    let time = |name: &'static str| {
        let registry = registry.clone();
        async move {
            let started = Instant::now();
            let answers = registry
                .run_turn(&calls_of(name, 4), &ToolContext::new(), &Turn::new())
                .await;
            let got: Vec<Value> = answers.iter().map(|a| a.to_value()).collect();
            assert_eq!(got, [json!(0), json!(1), json!(2), json!(3)], "{name}");
            started.elapsed()
        }
    };
    let (look_up, append) = (time("look_up").await, time("append").await);
    assert!(look_up < Duration::from_millis(300), "look_up: {look_up:?}");
    assert!(append < Duration::from_millis(300), "append: {append:?}");
    let ask = time("ask").await;
    assert!(
        ask >= Duration::from_millis(400),
        "ask ran alone each time: {ask:?}"
    );
}

/// `tokio::spawn` asks more of the future than `Send` at one lifetime: rustc must prove it
/// `Send` for every lifetime of what it borrows, which a closure taking a reference, held
/// across an await inside the turn, defeats ("implementation of `FnOnce` is not general
/// enough"). An agent loop spawns its turns, so this must compile.
#[tokio::test]
async fn a_turn_runs_in_a_spawned_task() {
    let registry = ToolRegistry::new();
    let echo = Tool::builder("echo", "test").parallel(true);
    registry
        .register(echo.handler(|_, _| "ok").build())
        .unwrap();
    let calls = vec![
        ToolCall::new("call_1", "echo", "{}"),
        ToolCall::new("call_1", "echo", "{}"),
        ToolCall::new("call_2", "echo", "{}"),
    ];
    let answers = tokio::spawn(async move {
        registry
            .run_turn(&calls, &ToolContext::new(), &Turn::new())
            .await
    })
    .await
    .unwrap();
    assert_eq!(answers.len(), 3);
    assert!(!answers[0].is_error() && answers[1].is_error() && !answers[2].is_error());
}

/// A real MCP server's tools in a turn: npm `@modelcontextprotocol/server-everything`
/// (installed by `bash .ci/test`, which exports `HERMES_NODE_MODULES`).
#[cfg(feature = "mcp")]
mod mcp {
    use std::path::PathBuf;
    use std::time::{Duration, Instant};

    use hermes_tools::config::{Config, McpServerConfig};
    use hermes_tools::mcp::client::McpClients;
    use hermes_tools::provider::ToolCall;
    use hermes_tools::{ToolContext, ToolRegistry, Turn, toolsets::Selection};

    const LONG: &str = "mcp__everything__trigger_long_running_operation";

    fn everything(parallel_tool_calls: bool) -> Config {
        let modules = std::env::var_os("HERMES_NODE_MODULES")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                panic!("HERMES_NODE_MODULES is not set: run `bash .ci/test`, which installs and exports it")
            });
        let entry = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
        assert!(
            entry.is_file(),
            "{} is missing: run `bash .ci/test`",
            entry.display()
        );
        let entry = entry.display().to_string();
        let mut server = McpServerConfig::stdio("node", [entry.as_str(), "stdio"]);
        server.parallel_tool_calls = parallel_tool_calls;
        Config {
            mcp_servers: [("everything".to_owned(), server)].into(),
            ..Config::default()
        }
    }

    /// Four 500 ms operations of the server in one turn, timed.
    async fn four_operations(parallel_tool_calls: bool) -> Duration {
        let registry = ToolRegistry::new();
        let clients = McpClients::start(
            &registry,
            &everything(parallel_tool_calls),
            &Selection::default(),
        )
        .await;
        let tool = registry.get(LONG).unwrap_or_else(|| {
            panic!(
                "{LONG} is not registered: {:?}",
                clients.status("everything")
            )
        });
        assert_eq!(tool.is_parallel_safe(), parallel_tool_calls);
        let calls: Vec<ToolCall> = (0..4)
            .map(|i| {
                ToolCall::new(
                    format!("call_{i}"),
                    LONG,
                    r#"{"duration": 0.5, "steps": 1}"#,
                )
            })
            .collect();
        let started = Instant::now();
        let answers = registry
            .run_turn(&calls, &ToolContext::new(), &Turn::new())
            .await;
        let elapsed = started.elapsed();
        for answer in &answers {
            assert!(
                answer.as_str().contains("Long running operation completed"),
                "{answer}"
            );
        }
        clients.shutdown().await;
        elapsed
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "needs the npm MCP server that `bash .ci/test` installs"]
    async fn a_servers_calls_overlap_only_when_its_config_allows_it() {
        // The tool says `readOnlyHint: true`; that alone does not make its calls overlap.
        let alone = four_operations(false).await;
        assert!(
            alone >= Duration::from_millis(2_000),
            "one at a time: {alone:?}"
        );
        let together = four_operations(true).await;
        eprintln!("4 MCP calls of 500 ms: {alone:?} one at a time, {together:?} together");
        assert!(
            together < Duration::from_millis(1_500),
            "concurrent: {together:?}"
        );
    }
}

/// Sleep `ms` (none: a call that costs next to nothing), then answer `n` and the thread the
/// call ran on.
#[tool(toolset = "turn_naps", parallel, unlisted)]
fn nap(n: u64, ms: u64) -> String {
    if ms > 0 {
        std::thread::sleep(Duration::from_millis(ms));
    }
    format!("{n} {:?}", std::thread::current().id())
}

fn napper() -> Tool {
    Tool::from_decl(&NAP_TOOL)
}

fn naps(count: usize, ms: u64) -> Vec<ToolCall> {
    (0..count)
        .map(|n| {
            ToolCall::new(
                format!("call_{n}"),
                "nap",
                json!({"n": n, "ms": ms}).to_string(),
            )
        })
        .collect()
}

/// The threads the calls ran on, after checking the answers came back in the calls' order.
fn threads_in_order(answers: &[hermes_tools::ToolAnswer]) -> Vec<String> {
    answers
        .iter()
        .enumerate()
        .map(|(n, answer)| {
            let value = answer.to_value();
            let (got, thread) = value["result"]
                .as_str()
                .and_then(|text| text.split_once(' '))
                .unwrap_or_else(|| panic!("{answer}"));
            assert_eq!(got, n.to_string(), "answers in the calls' order");
            thread.to_owned()
        })
        .collect()
}

/// A turn whose cheap calls run inline: these tests run unoptimised on a shared machine, where
/// a call of `nap` without a sleep is measured at 0.1 to 0.3 ms (20 µs, the default, is for
/// optimised builds); 50 ms is still a quarter of a sleeping call's `NAP`.
fn cheap_turn() -> Turn {
    Turn::new().inline_under(Duration::from_millis(50))
}

#[tokio::test(flavor = "current_thread")]
async fn cheap_sync_calls_run_inline_once_measured_cheap() {
    let registry = registry_with([napper()]);
    let here = format!("{:?}", std::thread::current().id());
    let calls = naps(16, 0);
    // Never measured: the batch hands its first calls to the blocking pool (the turn's thread
    // does not run them), and learns what they cost (calls started after the first is measured
    // may run inline already).
    let first = registry
        .run_turn(&calls, &ToolContext::new(), &cheap_turn())
        .await;
    assert_ne!(
        threads_in_order(&first)[0],
        here,
        "an unmeasured sync tool leaves the turn's thread"
    );
    // Measured cheap: the next batch runs them right here, in order.
    let second = registry
        .run_turn(&calls, &ToolContext::new(), &cheap_turn())
        .await;
    assert!(
        threads_in_order(&second)
            .iter()
            .all(|thread| *thread == here),
        "a cheap sync tool runs on the turn's thread"
    );
    // So does a turn that can be cancelled.
    let turn = cheap_turn().cancel_on(TurnCancel::new());
    let third = registry.run_turn(&calls, &ToolContext::new(), &turn).await;
    assert!(
        threads_in_order(&third)
            .iter()
            .all(|thread| *thread == here)
    );
    // A limit of zero hands every one to the pool.
    let turn = Turn::new().inline_under(Duration::ZERO);
    let fourth = registry.run_turn(&calls, &ToolContext::new(), &turn).await;
    assert!(
        threads_in_order(&fourth)
            .iter()
            .all(|thread| *thread != here)
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_cheap_tool_seen_slow_goes_back_to_the_pool_and_its_calls_overlap() {
    let registry = registry_with([napper()]);
    let ctx = ToolContext::new();
    for _ in 0..2 {
        registry.run_turn(&naps(8, 0), &ctx, &cheap_turn()).await;
    }
    // Taken as cheap, the first two slow calls run inline and hold the batch back (one alone
    // would be taken for noise); then the tool is known slow and the other 6 overlap on the
    // pool: about 3 naps, not 8.
    let started = Instant::now();
    let answers = registry.run_turn(&naps(8, 200), &ctx, &cheap_turn()).await;
    let elapsed = started.elapsed();
    let threads = threads_in_order(&answers);
    let here = format!("{:?}", std::thread::current().id());
    assert_eq!(
        threads[..2],
        [here.clone(), here.clone()],
        "the first calls were taken as cheap"
    );
    assert!(threads[2..].iter().all(|thread| *thread != here));
    assert!(
        elapsed < CONCURRENT,
        "8 calls of {NAP:?} took {elapsed:?}: not concurrent"
    );
    // Known slow now: a whole batch overlaps, none on the turn's thread.
    let started = Instant::now();
    let answers = registry.run_turn(&naps(8, 200), &ctx, &cheap_turn()).await;
    let elapsed = started.elapsed();
    assert!(
        threads_in_order(&answers)
            .iter()
            .all(|thread| *thread != here)
    );
    assert!(elapsed < CONCURRENT, "{elapsed:?}: not concurrent");
}

/// A cheap parallel-safe tool answering `tag` and the call id it sees.
fn id_teller(tag: &'static str) -> Tool {
    Tool::builder("tell_id", "ids")
        .parallel(true)
        .handler(move |_args, ctx| {
            json!({"tag": tag, "id": ctx.tool_call_id(), "thread": format!("{:?}", std::thread::current().id())})
        })
        .build()
}

/// Turns of `registry` until its `tell_id` (and `swap`, if it has one) are measured cheap.
async fn measured(registry: &ToolRegistry) {
    for _ in 0..2 {
        let mut calls = vec![
            ToolCall::new("w1", "tell_id", "{}"),
            ToolCall::new("w2", "tell_id", "{}"),
        ];
        if registry.get("swap").is_some() {
            calls.push(ToolCall::new("w3", "swap", r#"{"do": "nothing"}"#));
            calls.push(ToolCall::new("w4", "swap", r#"{"do": "nothing"}"#));
        }
        registry
            .run_turn(&calls, &ToolContext::new(), &cheap_turn())
            .await;
    }
}

#[tokio::test(flavor = "current_thread")]
async fn cheap_calls_see_their_own_ids_and_what_the_registry_holds_when_they_start() {
    // Every call of the batch runs inline, measured cheap, so each starts when the one before
    // it is done (concurrent calls would start before it). The replacement is measured cheap
    // elsewhere, so that it runs inline here too.
    let second = Arc::new(id_teller("second"));
    let elsewhere = ToolRegistry::new();
    elsewhere.register(Arc::clone(&second)).unwrap();
    measured(&elsewhere).await;

    let registry = registry_with([id_teller("first")]);
    let swap = Tool::builder("swap", "ids")
        .parallel(true)
        .parameters(json!({"type": "object", "properties": {"do": {"type": "string"}}}))
        .handler(move |args, ctx| {
            let registry = ctx.registry().expect("a call knows its registry");
            match args["do"].as_str() {
                Some("config") => {
                    registry.set_config(Config {
                        agent_loop_tools: vec!["tell_id".to_owned()],
                        ..Config::default()
                    });
                }
                Some("tool") => drop(registry.register(Arc::clone(&second)).unwrap()),
                _ => {}
            }
            "swapped"
        })
        .build();
    registry.register(swap).unwrap();
    measured(&registry).await;
    let calls = [
        ToolCall::new("a", "tell_id", "{}"),
        ToolCall::new("b", "tell_id", "{}"),
        ToolCall::new("s1", "swap", r#"{"do": "tool"}"#),
        ToolCall::new("c", "tell_id", "{}"),
        ToolCall::new("", "tell_id", "{}"),
        ToolCall::new("d", "tell_id", "{}"),
        ToolCall::new("s2", "swap", r#"{"do": "config"}"#),
        ToolCall::new("e", "tell_id", "{}"),
    ];
    let answers = registry
        .run_turn(&calls, &ToolContext::new(), &cheap_turn())
        .await;
    let here = format!("{:?}", std::thread::current().id());
    let seen: Vec<(Value, Value)> = answers[..6]
        .iter()
        .filter(|answer| answer.as_str() != r#"{"result":"swapped"}"#)
        .map(|answer| {
            let value = answer.to_value();
            assert_eq!(value["thread"], here.as_str(), "ran inline: {answer}");
            (value["tag"].clone(), value["id"].clone())
        })
        .collect();
    assert_eq!(
        seen,
        [
            (json!("first"), json!("a")),
            (json!("first"), json!("b")),
            (json!("second"), json!("c")),
            (json!("second"), Value::Null),
            (json!("second"), json!("d")),
        ],
        "each call its own id (none for an empty one), the tool registered as it started"
    );
    // The config set by a call of the batch holds for the calls after it.
    assert!(answers[7].is_error(), "{}", answers[7]);
    assert!(
        answers[7]
            .as_str()
            .contains("must be handled by the agent loop"),
        "{}",
        answers[7]
    );
}
