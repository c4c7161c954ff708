//! Definitions for 50 tools, cached and cold, and resolving a composite toolset.
//!
//! For scale, Hermes 0.19 takes 13.8 µs cached and 4.48 ms cold for 50 tools on this machine
//! class (the figures). Cold here means the cache entry is stale (the config version
//! changed), so the list is assembled again from each tool's pre-rendered definition; "cold,
//! checks too" also forgets every cached check result; "first" is a registry whose tools have
//! never been shown in that format (each schema is built and rendered: a once-per-tool cost).

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use hermes_tools::{DefinitionsRequest, Format, ToolRegistry, config::Config, toolsets::Selection};

mod common;

hermes_tools::toolset! {
    /// The filler tools.
    static LAYER_ONE = "layer_one" {
        tools: [],
        includes: ["filler"],
    }
}

hermes_tools::toolset! {
    /// Layer one and the bench tool, and layer one again through a diamond.
    static LAYER_TWO = "layer_two" {
        tools: ["add"],
        includes: ["layer_one", "filler"],
    }
}

hermes_tools::toolset! {
    /// Everything, through two layers.
    static EVERYTHING = "everything" {
        tools: [],
        includes: ["layer_two", "bench"],
    }
}

fn definitions(c: &mut Criterion) {
    let registry = ToolRegistry::global();
    let count = registry.snapshot().tools().len();
    let mut group = c.benchmark_group(format!("definitions_{count}_tools"));
    for format in Format::ALL {
        let request = DefinitionsRequest::all().format(format);
        registry.definitions(&request).unwrap();
        group.bench_function(format!("cached_{format}"), |b| {
            b.iter(|| black_box(registry.definitions(black_box(&request)).unwrap()))
        });
        group.bench_function(format!("cold_{format}"), |b| {
            b.iter(|| {
                registry.set_config(Config::default());
                black_box(registry.definitions(&request).unwrap())
            })
        });
    }
    for format in [Format::OpenAi, Format::OpenAiStrict] {
        let request = DefinitionsRequest::all().format(format);
        group.bench_function(format!("first_{format}"), |b| {
            b.iter_batched(
                ToolRegistry::linked,
                |fresh| black_box(fresh.definitions(&request).unwrap()),
                BatchSize::SmallInput,
            )
        });
    }
    let request = DefinitionsRequest::all();
    group.bench_function("cold_openai_checks_too", |b| {
        b.iter(|| {
            registry.set_config(Config::default());
            registry.availability().invalidate();
            black_box(registry.definitions(&request).unwrap())
        })
    });
    group.finish();
}

fn resolution(c: &mut Criterion) {
    let snapshot = ToolRegistry::global().snapshot();
    let selection = Selection {
        enabled: vec!["everything".into()],
        disabled: vec!["bench".into()],
    };
    let mut group = c.benchmark_group("toolsets");
    group.bench_function("resolve_composite_two_layers", |b| {
        b.iter(|| {
            snapshot.with_catalog(|catalog| {
                black_box(catalog.resolve(black_box("everything")).unwrap())
            })
        })
    });
    group.bench_function("select_with_disable", |b| {
        b.iter(|| {
            snapshot
                .with_catalog(|catalog| black_box(catalog.select(black_box(&selection)).unwrap()))
        })
    });
    group.finish();
    let _ = (&LAYER_ONE, &LAYER_TWO, &EVERYTHING, common::add(1, 2));
}

criterion_group!(benches, definitions, resolution);
criterion_main!(benches);
