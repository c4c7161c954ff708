//! Our side of `bench/compare`: the four numbers it puts beside Hermes 0.19's, measured on the
//! same shapes as its Python half (a two-argument `add` and 49 three-parameter filler tools,
//! 50 in all, each filler behind a check function).
//!
//! - `dispatch`: the raw dispatch (`dispatch_unguarded_blocking`) of `add` from its argument
//!   string, beside Hermes' `registry.dispatch` (which is given the parsed dict);
//! - `handle_function_call`: the pipeline's sync entry (`call_blocking`), beside Hermes'
//!   `model_tools.handle_function_call`;
//! - `definitions_cached` / `definitions_cold`: the 50 OpenAI definitions, cached and after a
//!   config change made the cached list stale, beside `get_tool_definitions(quiet_mode=True)`
//!   warm and after `_clear_tool_defs_cache()`;
//! - `startup_linked_<n>_tools`: building the registry from every tool linked into this
//!   binary (the bench's 50 and `example_tools`' own), beside importing `model_tools` (which
//!   discovers Hermes' built-in tools) timed inside the interpreter;
//! - `startup_process_<n>_tools`: a fresh process of this binary that builds that registry and
//!   exits, beside a fresh `python -c "import model_tools"`.
//!
//! `bench/compare` reads criterion's medians from `target/criterion/compare/`.

use std::hint::black_box;

use std::process::Command;

use criterion::{Criterion, criterion_group};
// Linked, so that start-up discovers a real crate's tools besides the bench's own.
use example_tools as _;
use hermes_tools::{DefinitionsRequest, ToolContext, ToolRegistry, config::Config, tool::Tool};

/// Set in the child process that `startup_process` times: it builds the registry and exits.
const CHILD: &str = "HERMES_TOOLS_COMPARE_STARTUP_CHILD";

// The same 50 tools as the runtime's own benches: `add` and 49 fillers behind a check.
#[path = "../../hermes-tools/benches/common/mod.rs"]
mod common;

use common::*;

/// The 50 tools both sides list.
fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    let declarations = [
        &ADD_TOOL, &F01_TOOL, &F02_TOOL, &F03_TOOL, &F04_TOOL, &F05_TOOL, &F06_TOOL, &F07_TOOL,
        &F08_TOOL, &F09_TOOL, &F10_TOOL, &F11_TOOL, &F12_TOOL, &F13_TOOL, &F14_TOOL, &F15_TOOL,
        &F16_TOOL, &F17_TOOL, &F18_TOOL, &F19_TOOL, &F20_TOOL, &F21_TOOL, &F22_TOOL, &F23_TOOL,
        &F24_TOOL, &F25_TOOL, &F26_TOOL, &F27_TOOL, &F28_TOOL, &F29_TOOL, &F30_TOOL, &F31_TOOL,
        &F32_TOOL, &F33_TOOL, &F34_TOOL, &F35_TOOL, &F36_TOOL, &F37_TOOL, &F38_TOOL, &F39_TOOL,
        &F40_TOOL, &F41_TOOL, &F42_TOOL, &F43_TOOL, &F44_TOOL, &F45_TOOL, &F46_TOOL, &F47_TOOL,
        &F48_TOOL, &F49_TOOL,
    ];
    for decl in declarations {
        registry
            .register(Tool::from_decl(decl))
            .expect("a fresh registry takes 50 distinct tools");
    }
    registry
}

const ARGS: &str = r#"{"a": 40, "b": 2}"#;

fn compare(c: &mut Criterion) {
    let registry = registry();
    let ctx = ToolContext::new();
    let request = DefinitionsRequest::all();
    let listed = registry
        .definitions(&request)
        .expect("every toolset resolves");
    assert_eq!(listed.len(), 50, "the 50 bench tools are listed");
    assert_eq!(
        registry.call_blocking("add", ARGS, &ctx).as_str(),
        "42",
        "the pipeline answers"
    );

    let mut group = c.benchmark_group("compare");
    group.bench_function("dispatch", |b| {
        b.iter(|| black_box(registry.dispatch_unguarded_blocking("add", black_box(ARGS), &ctx)))
    });
    group.bench_function("handle_function_call", |b| {
        b.iter(|| black_box(registry.call_blocking("add", black_box(ARGS), &ctx)))
    });
    group.bench_function("definitions_cached", |b| {
        b.iter(|| black_box(registry.definitions(black_box(&request))))
    });
    group.bench_function("definitions_cold", |b| {
        b.iter(|| {
            registry.set_config(Config::default());
            black_box(registry.definitions(&request))
        })
    });
    let linked = ToolRegistry::linked().snapshot().tools().len();
    group.bench_function(format!("startup_linked_{linked}_tools"), |b| {
        b.iter(|| black_box(ToolRegistry::linked()))
    });
    let this = std::env::current_exe().expect("the bench binary's path");
    group.bench_function(format!("startup_process_{linked}_tools"), |b| {
        b.iter(|| {
            let status = Command::new(&this)
                .env(CHILD, "1")
                .status()
                .expect("the bench binary starts");
            assert!(status.success());
        })
    });
    group.finish();
}

criterion_group!(benches, compare);

fn main() {
    if std::env::var_os(CHILD).is_some() {
        // A process's whole start-up: load, build the registry from the linked tools, exit.
        black_box(ToolRegistry::linked());
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
