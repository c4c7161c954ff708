//! Search latency at 10,000 tools, over a registry of 10,000 generated tools
//! ([`listings::generated_tools`](hermes_tools_tests::listings::generated_tools)) and
//! `example_tools`' own:
//!
//! - `one query`: one natural-language query, ranked (the index built);
//! - `four queries`: four in one call, as a model's `tool_search` may send them
//!   ([`ToolRegistry::search`], which also fetches the registry's cached index);
//! - `select`: `select:` of three exact names;
//! - `no match`: a junk query, which the relevance floor answers with nothing;
//! - `build index`: indexing the 10,007 tools, what the first search after a registry change
//!   pays.
//!
//! ```sh
//! cargo bench -p hermes-tools-tests --bench search_latency
//! ```

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use example_tools as _;
use hermes_tools::ToolRegistry;
use hermes_tools::search::SearchIndex;
use hermes_tools_tests::listings::generated_tools;

/// How many generated tools the registry holds.
const TOOLS: usize = 10_000;

fn registry() -> ToolRegistry {
    let registry = ToolRegistry::linked();
    for tool in generated_tools(TOOLS) {
        registry.register(tool).expect("a generated tool registers");
    }
    registry
}

fn latency(c: &mut Criterion) {
    let registry = registry();
    let index = registry.search_index();
    // What each measured query finds, checked once: a bench of a search that finds nothing
    // would measure the floor, not the ranking.
    let found = index.query("refund a stripe charge", 5);
    assert!(!found.hits.is_empty(), "{found:?}");
    let queries = [
        "refund a stripe charge",
        "open a pull request on github",
        "read a file",
        "who is on call this week in pagerduty",
    ];
    let select = "select:jira_create_issue,stripe_eu3_get_invoice,read_file";
    assert_eq!(index.query(select, 5).hits.len(), 3);
    assert!(index.query("qwzx vbnm plorkt", 5).hits.is_empty());

    let mut group = c.benchmark_group("search 10k tools");
    group.bench_function("one query", |b| {
        b.iter(|| index.query(black_box(queries[0]), 5))
    });
    group.bench_function("four queries", |b| {
        b.iter(|| registry.search(black_box(&queries), 5))
    });
    group.bench_function("select", |b| b.iter(|| index.query(black_box(select), 5)));
    group.bench_function("no match", |b| {
        b.iter(|| index.query(black_box("qwzx vbnm plorkt"), 5))
    });
    let snapshot = registry.snapshot();
    group.sample_size(10);
    group.bench_function("build index", |b| {
        b.iter(|| SearchIndex::new(snapshot.tools().map(|tool| &**tool)))
    });
    group.finish();
}

criterion_group!(benches, latency);
criterion_main!(benches);
