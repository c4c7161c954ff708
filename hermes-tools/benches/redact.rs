//! Redaction of a tool's answer: what every answer pays (a ~2 KB clean JSON answer through
//! `redact_json`, against parsing the same text with serde_json and against one `memmem`
//! scan), and what an answer holding one credential pays.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hermes_tools::__private::redact_json;
use hermes_tools::secrets::redact;
use serde::de::IgnoredAny;

/// A `search_files`-like answer of about 2 KB: paths, line numbers, lines of code and prose.
fn clean_answer() -> String {
    let lines = [
        "pub fn parse_config(path: &Path) -> Result<Config, ConfigError> {",
        "    let text = std::fs::read_to_string(path).map_err(ConfigError::Read)?;",
        "    // Unknown keys are refused with the nearest known one named.",
        "    toml::from_str(&text).map_err(|err| ConfigError::Parse(err.to_string()))",
        "Loads the operator's configuration file and validates every section of it.",
        "#[derive(Debug, Clone, Deserialize)] struct Limits { max_items: usize, timeout_ms: u64 }",
    ];
    let matches: Vec<serde_json::Value> = (0..14)
        .map(|i| {
            serde_json::json!({
                "path": format!("src/config/section_{i}.rs"),
                "line": 10 + i * 7,
                "text": lines[i % lines.len()],
            })
        })
        .collect();
    let answer = serde_json::json!({
        "matches": matches,
        "total": 14,
        "truncated": false,
        "hint": "Narrow the pattern or the path to see fewer matches.",
    });
    answer.to_string()
}

fn redaction(c: &mut Criterion) {
    let clean = clean_answer();
    assert!((1800..2600).contains(&clean.len()), "{} bytes", clean.len());
    assert!(matches!(redact_json(&clean), std::borrow::Cow::Borrowed(_)));
    let secret = clean.replacen(
        "Loads the operator's configuration file",
        "OPENAI_API_KEY=sk-proj-Zx81QmW0pLr5TvYb3NcK7sDfGh2JkL4n was found in the file",
        1,
    );
    assert!(!redact_json(&secret).contains("Zx81QmW0pLr5"));

    let mut group = c.benchmark_group("redact");
    group.bench_function("clean 2KB JSON: redact_json", |b| {
        b.iter(|| redact_json(black_box(&clean)).len())
    });
    group.bench_function("clean 2KB JSON: serde_json IgnoredAny (baseline)", |b| {
        b.iter(|| serde_json::from_str::<IgnoredAny>(black_box(&clean)).is_ok())
    });
    group.bench_function("clean 2KB JSON: memmem scan (baseline)", |b| {
        b.iter(|| memchr::memmem::find(black_box(clean.as_bytes()), b"sk-proj-").is_some())
    });
    group.bench_function("clean 2KB text: redact", |b| {
        b.iter(|| redact(black_box(&clean)).len())
    });
    // The answer of a small tool (what the pipeline bench's `add` returns).
    let small = r#"{"result":42}"#;
    group.bench_function("small answer: redact_json", |b| {
        b.iter(|| redact_json(black_box(small)).len())
    });
    group.bench_function("small answer: serde_json IgnoredAny (baseline)", |b| {
        b.iter(|| serde_json::from_str::<IgnoredAny>(black_box(small)).is_ok())
    });
    group.bench_function("2KB JSON with one key: redact_json", |b| {
        b.iter(|| redact_json(black_box(&secret)).len())
    });
    group.bench_function("2KB text with one key: redact", |b| {
        b.iter(|| redact(black_box(&secret)).len())
    });
    group.finish();
}

criterion_group!(benches, redaction);
criterion_main!(benches);
