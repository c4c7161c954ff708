//! Dispatch cost: a two-argument sync tool called from its argument string through the
//! registry, beside the generated wrapper called directly and a hand-written baseline
//! (`serde_json::from_str` into a struct, then the function). Also the cost of building the
//! registry from the linked slice, with and without building every schema.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
// The generated wrapper is macro ABI (`__private`): named here only to measure it directly.
use hermes_tools::__private::StaticHandler;
use hermes_tools::{ToolContext, ToolRegistry};
use serde::Deserialize;

mod common;

use common::{ADD_TOOL, add};

#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

const ARGS: &str = r#"{"a": 40, "b": 2}"#;

fn dispatch(c: &mut Criterion) {
    let registry = ToolRegistry::global();
    let ctx = ToolContext::new();
    let StaticHandler::Sync(wrapper) = ADD_TOOL.handler else {
        unreachable!("add is a sync tool")
    };
    // Build the schema outside the measurement (it is built once, at first use).
    let _ = registry.get("add").map(|tool| tool.parameters().clone());

    let mut group = c.benchmark_group("dispatch_two_args");
    group.bench_function("baseline_from_str_then_call", |b| {
        b.iter(|| {
            let args: AddArgs = serde_json::from_str(black_box(ARGS)).unwrap();
            black_box(serde_json::to_string(&add(args.a, args.b)).unwrap())
        })
    });
    group.bench_function("generated_wrapper", |b| {
        b.iter(|| black_box(wrapper(black_box(ARGS), &ctx).unwrap()))
    });
    group.bench_function("registry_dispatch", |b| {
        b.iter(|| {
            black_box(registry.dispatch_unguarded_blocking(black_box("add"), black_box(ARGS), &ctx))
        })
    });
    group.bench_function("registry_dispatch_repaired", |b| {
        b.iter(|| {
            black_box(registry.dispatch_unguarded_blocking(
                "add",
                black_box(r#"{"a": "40", "b": "2"}"#),
                &ctx,
            ))
        })
    });
    group.finish();
}

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("build_registry");
    let count = ToolRegistry::linked().snapshot().tools().len();
    group.bench_function(format!("from_slice_{count}_tools"), |b| {
        b.iter(|| black_box(ToolRegistry::linked()))
    });
    group.bench_function(format!("from_slice_{count}_tools_with_schemas"), |b| {
        b.iter(|| {
            let registry = ToolRegistry::linked();
            for tool in registry.snapshot().tools() {
                black_box(tool.parameters());
            }
            registry
        })
    });
    group.finish();
}

criterion_group!(benches, dispatch, build);
criterion_main!(benches);
