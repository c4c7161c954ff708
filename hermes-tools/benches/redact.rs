//! Redaction of a tool's answer: what every answer pays (a ~2 KB clean JSON answer through
//! `redact_json`, against parsing the same text with serde_json and against one `memmem`
//! scan), and what an answer holding one credential pays; and, beside 64 KB of clean text, 64 KB
//! of each hostile shape (texts built to make a pattern or a resume rule go quadratic, as the
//! linearity test builds them), so a hostile answer's cost is read as a ratio to a clean one.

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

/// 64 KB of each hostile shape, named by its start.
fn hostile(n: usize) -> Vec<(&'static str, String)> {
    vec![
        ("token=a,", "token=a,".repeat(n / 8)),
        ("xsk-", "xsk-".repeat(n / 4)),
        ("passpass", "pass".repeat(n / 4) + "=x"),
        ("password=aaa", format!("password={}", "a".repeat(n))),
        (
            "BEGIN PRIVATE KEY",
            "-----BEGIN PRIVATE KEY-----\n".repeat(n / 28),
        ),
        ("http://a:", "http://a:".repeat(n / 9) + "@"),
        ("eyJ", "eyJ".repeat(n / 3)),
        ("\"password\": \"", "\"password\": \"".repeat(n / 13)),
        ("Authorization: ", "Authorization: ".repeat(n / 15)),
        ("key%3Da&", "key%3Da&".repeat(n / 8)),
        ("MY_KEY=a ", "MY_KEY=a ".repeat(n / 9)),
        ("secret: |", "secret: |\n".repeat(n / 10)),
    ]
}

/// Plain prose and code with no credential, `n` bytes or so.
fn clean_text(n: usize) -> String {
    let line = "fn parse(path: &Path) -> Result<Config> { let text = read(path)?; Ok(text) }\n";
    line.repeat(n / line.len())
}

fn hostile_shapes(c: &mut Criterion) {
    const N: usize = 64 * 1024;
    let mut group = c.benchmark_group("redact hostile 64KB");
    group.sample_size(10);
    let clean = clean_text(N);
    group.bench_function("clean text: redact", |b| {
        b.iter(|| redact(black_box(&clean)).len())
    });
    for (name, text) in hostile(N) {
        group.bench_function(format!("{name}: redact"), |b| {
            b.iter(|| redact(black_box(&text)).len())
        });
    }
    group.finish();
}

criterion_group!(benches, redaction, hostile_shapes);
criterion_main!(benches);
