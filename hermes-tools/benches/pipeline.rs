//! The pipeline (`call`) with no hooks and with three, beside dispatch alone
//! (`dispatch_unguarded`).
//!
//! For scale, Hermes 0.19's handle_function_call (its pipeline) costs 25.2 µs against 0.4 µs
//! for its dispatch (the issue's figures).

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};
use hermes_tools::hooks::Directive;
use hermes_tools::{ToolContext, ToolRegistry, tool};

mod common;

/// Add two integers, asynchronously.
#[tool(toolset = "bench")]
async fn add_async(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

const ARGS: &str = r#"{"a": 40, "b": 2}"#;

/// A registry of its own (its own hooks) holding `add` and `add_async` only.
fn registry() -> ToolRegistry {
    let registry = ToolRegistry::linked();
    let others: Vec<String> = registry
        .snapshot()
        .names()
        .filter(|name| !["add", "add_async"].contains(name))
        .map(str::to_owned)
        .collect();
    for name in others {
        registry.deregister(&name);
    }
    assert_eq!(registry.snapshot().names().len(), 2);
    registry
}

fn with_three_hooks() -> ToolRegistry {
    let registry = registry();
    let calls = Arc::new(AtomicU64::new(0));
    registry.hooks().add_pre_call(None, |call| {
        (call.name == "never").then(|| Directive::Block("no".into()))
    });
    let counter = Arc::clone(&calls);
    registry.hooks().add_post_call(None, move |record| {
        counter.fetch_add(record.duration_ms + 1, Ordering::Relaxed);
    });
    registry.hooks().add_transform(None, |_| None);
    registry
}

fn pipeline(c: &mut Criterion) {
    let plain = registry();
    let hooked = with_three_hooks();
    let ctx = ToolContext::new();
    let mut group = c.benchmark_group("pipeline_two_args");
    group.bench_function("dispatch", |b| {
        b.iter(|| black_box(plain.dispatch_unguarded_blocking("add", black_box(ARGS), &ctx)))
    });
    group.bench_function("call_no_hooks", |b| {
        b.iter(|| black_box(plain.call_blocking("add", black_box(ARGS), &ctx)))
    });
    group.bench_function("call_three_hooks", |b| {
        b.iter(|| black_box(hooked.call_blocking("add", black_box(ARGS), &ctx)))
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    group.bench_function("async_form_async_tool_no_hooks", |b| {
        b.iter(|| runtime.block_on(async { black_box(plain.call("add_async", ARGS, &ctx).await) }))
    });
    group.bench_function("async_form_sync_tool_no_hooks", |b| {
        b.iter(|| runtime.block_on(async { black_box(plain.call("add", ARGS, &ctx).await) }))
    });
    // The async entry where an agent calls it: in a task on a worker of a multi-thread
    // runtime, many calls per task (so the task's start is not what is timed).
    let runtime = &runtime;
    let on_worker = |name: &'static str, raw: bool| {
        let (registry, ctx) = (plain.clone(), ctx.clone());
        move |iters: u64| {
            let (registry, ctx) = (registry.clone(), ctx.clone());
            runtime
                .block_on(runtime.spawn(async move {
                    let start = std::time::Instant::now();
                    for _ in 0..iters {
                        if raw {
                            black_box(
                                registry
                                    .dispatch_unguarded(name, black_box(ARGS), &ctx)
                                    .await,
                            );
                        } else {
                            black_box(registry.call(name, black_box(ARGS), &ctx).await);
                        }
                    }
                    start.elapsed()
                }))
                .unwrap_or_default()
        }
    };
    group.bench_function("on_worker_dispatch_sync_tool", |b| {
        b.iter_custom(on_worker("add", true))
    });
    group.bench_function("on_worker_call_sync_tool", |b| {
        b.iter_custom(on_worker("add", false))
    });
    group.bench_function("on_worker_dispatch_async_tool", |b| {
        b.iter_custom(on_worker("add_async", true))
    });
    group.bench_function("on_worker_call_async_tool", |b| {
        b.iter_custom(on_worker("add_async", false))
    });
    group.finish();
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
