//! A model turn's batch (`run_turn`) of parallel-safe sync tools beside the same calls made one
//! after another with `call_blocking`: 64 cheap calls, which must cost no more than in sequence,
//! and 8 calls that sleep 50 ms, which must still overlap (about one sleep, not eight). The
//! `all_pooled` row hands every sync call to the blocking pool, as turns did before cheap
//! calls ran inline (`Turn::inline_under(Duration::ZERO)`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use hermes_tools::provider::ToolCall;
use hermes_tools::{ToolContext, ToolRegistry, Turn, tool};

/// Add two integers (parallel-safe): a tool that costs next to nothing.
#[tool(toolset = "turn", parallel)]
fn add_parallel(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Sleep, then answer (parallel-safe): a sync tool that waits on something slow.
#[tool(toolset = "turn", parallel)]
fn nap(
    /// How long, in milliseconds.
    ms: u64,
) -> u64 {
    std::thread::sleep(Duration::from_millis(ms));
    ms
}

const ARGS: &str = r#"{"a": 40, "b": 2}"#;
const CHEAP_CALLS: usize = 64;
const NAPS: usize = 8;
const NAP_ARGS: &str = r#"{"ms": 50}"#;

fn calls(name: &str, args: &str, n: usize) -> Vec<ToolCall> {
    (0..n)
        .map(|i| ToolCall::new(format!("call_{i}"), name, args))
        .collect()
}

fn turn(c: &mut Criterion) {
    let registry = ToolRegistry::linked();
    let ctx = ToolContext::new();
    let cheap = calls("add_parallel", ARGS, CHEAP_CALLS);
    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let multi = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Every answer is right before anything is timed.
    let answers = current.block_on(registry.run_turn(&cheap, &ctx, &Turn::new()));
    for answer in &answers {
        assert_eq!(answer.as_str(), "42");
    }

    let mut group = c.benchmark_group("turn_64_cheap_sync_calls");
    group.bench_function("sequential_call_blocking", |b| {
        b.iter(|| {
            for call in &cheap {
                black_box(registry.call_blocking(&call.name, black_box(&call.arguments), &ctx));
            }
        })
    });
    // What a loop making the calls one by one keeps, as a turn does: every answer (the model
    // is sent them together) and each call's id in its context.
    group.bench_function("sequential_call_blocking_answers_kept", |b| {
        b.iter(|| {
            let answers: Vec<_> = cheap
                .iter()
                .map(|call| registry.call_blocking(&call.name, black_box(&call.arguments), &ctx))
                .collect();
            black_box(answers)
        })
    });
    group.bench_function("sequential_call_blocking_answers_kept_ids", |b| {
        b.iter(|| {
            let answers: Vec<_> = cheap
                .iter()
                .map(|call| {
                    let ctx = ctx.clone().with_tool_call_id(call.id.as_str());
                    registry.call_blocking(&call.name, black_box(&call.arguments), &ctx)
                })
                .collect();
            black_box(answers)
        })
    });
    group.bench_function("run_turn_current_thread", |b| {
        b.iter(|| black_box(current.block_on(registry.run_turn(&cheap, &ctx, &Turn::new()))))
    });
    // As before cheap calls ran inline: every sync call of the batch hops to the blocking pool.
    let pooled = Turn::new().inline_under(Duration::ZERO);
    group.bench_function("run_turn_current_thread_all_pooled", |b| {
        b.iter(|| black_box(current.block_on(registry.run_turn(&cheap, &ctx, &pooled))))
    });
    // Where an agent loop runs a turn: in a task on a worker of a multi-thread runtime, many
    // turns per task (so the task's start is not what is timed).
    group.bench_function("run_turn_multi_thread_worker", |b| {
        b.iter_custom(|iters| {
            let (registry, ctx, cheap) = (registry.clone(), ctx.clone(), cheap.clone());
            multi
                .block_on(multi.spawn(async move {
                    let started = Instant::now();
                    for _ in 0..iters {
                        black_box(registry.run_turn(&cheap, &ctx, &Turn::new()).await);
                    }
                    started.elapsed()
                }))
                .unwrap()
        })
    });
    group.finish();

    let naps = calls("nap", NAP_ARGS, NAPS);
    let mut group = c.benchmark_group("turn_8_sleeps_of_50ms");
    group.sample_size(10);
    group.bench_function("one_call_blocking", |b| {
        b.iter(|| black_box(registry.call_blocking("nap", NAP_ARGS, &ctx)))
    });
    group.bench_function("run_turn_current_thread", |b| {
        b.iter(|| black_box(current.block_on(registry.run_turn(&naps, &ctx, &Turn::new()))))
    });
    group.finish();
}

criterion_group!(benches, turn);
criterion_main!(benches);
