//! A 20 MB argument through the pipeline (`call_blocking`, what `hermes-tools call NAME @FILE`
//! runs) beside one `serde_json::from_str` of the same text, in time and in peak memory.
//!
//! One 20 MB string and one 20 MB array of numbers, each for a `#[tool]` function (whose
//! arguments are deserialized straight from the text) and for a tool built at run time from a
//! JSON Schema (whose arguments are parsed, repaired and validated as a `Value`); and the
//! string for a tool that answers it back (its answer redacted, then cut to the budget). Before criterion's timings, the bench prints each path's peak of heap bytes
//! allocated beyond what was live before it (a counting global allocator), as a multiple of the
//! input's size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use hermes_tools::tool::Tool;
use hermes_tools::{ToolContext, ToolRegistry, tool};
use serde_json::{Value, json};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only counters are added.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        if !moved.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        moved
    }
}

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most heap bytes `work` held at once beyond what was live before it.
fn peak_of<T>(work: impl FnOnce() -> T) -> usize {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    drop(black_box(work()));
    PEAK.load(Ordering::Relaxed) - before
}

/// The length of a text.
#[tool(toolset = "big")]
fn text_len(
    /// The text.
    text: String,
) -> usize {
    text.len()
}

/// The text, back (an answer as big as the argument: redacted, then cut to the answer budget).
#[tool(toolset = "big")]
fn echo_text(
    /// The text.
    text: String,
) -> String {
    text
}

/// The number of items.
#[tool(toolset = "big")]
fn items_len(
    /// The items.
    items: Vec<i64>,
) -> usize {
    items.len()
}

/// About 20 MB.
const SIZE: usize = 20 << 20;

/// `{"text": "…"}` of `SIZE` bytes: printable ASCII, with escapes, as a file's content is.
fn big_text() -> String {
    let line = r#"The quick brown fox \"jumps\" over the lazy dog.\n"#;
    let text: String = line.repeat(SIZE / line.len());
    format!(r#"{{"text": "{text}"}}"#)
}

/// `{"items": [...]}` of `SIZE` bytes: numbers of up to 7 digits.
fn big_array() -> String {
    let mut text = String::with_capacity(SIZE + 32);
    text.push_str(r#"{"items": ["#);
    let mut n: u64 = 0;
    while text.len() < SIZE {
        if n > 0 {
            text.push(',');
        }
        text.push_str(&(n * 7919 % 10_000_000).to_string());
        n += 1;
    }
    text.push_str("]}");
    text
}

/// The same two tools, built at run time from a JSON Schema: their arguments are parsed,
/// repaired and validated as a `Value`.
fn runtime_tools(registry: &ToolRegistry) {
    let text = Tool::builder("text_len_value", "big")
        .description("The length of a text.")
        .parameters(
            json!({"type": "object", "properties": {"text": {"type": "string"}},
                           "required": ["text"]}),
        )
        .handler(|args, _ctx| json!(args["text"].as_str().map_or(0, str::len)))
        .build();
    let items = Tool::builder("items_len_value", "big")
        .description("The number of items.")
        .parameters(
            json!({"type": "object", "properties": {"items": {"type": "array",
                           "items": {"type": "integer"}}}, "required": ["items"]}),
        )
        .handler(|args, _ctx| json!(args["items"].as_array().map_or(0, Vec::len)))
        .build();
    registry.register(text).unwrap();
    registry.register(items).unwrap();
}

struct Case {
    name: &'static str,
    tool: &'static str,
    args: String,
    /// The answer (none for the echo, whose answer is cut).
    expected: Option<usize>,
}

fn cases() -> Vec<Case> {
    let text = big_text();
    let array = big_array();
    let text_chars = serde_json::from_str::<Value>(&text).unwrap()["text"]
        .as_str()
        .unwrap()
        .len();
    let items = serde_json::from_str::<Value>(&array).unwrap()["items"]
        .as_array()
        .unwrap()
        .len();
    vec![
        Case {
            name: "string_tool_fn",
            tool: "text_len",
            args: text.clone(),
            expected: Some(text_chars),
        },
        Case {
            name: "string_runtime_schema",
            tool: "text_len_value",
            args: text.clone(),
            expected: Some(text_chars),
        },
        Case {
            name: "string_echo_tool_fn",
            tool: "echo_text",
            args: text,
            expected: None,
        },
        Case {
            name: "array_tool_fn",
            tool: "items_len",
            args: array.clone(),
            expected: Some(items),
        },
        Case {
            name: "array_runtime_schema",
            tool: "items_len_value",
            args: array,
            expected: Some(items),
        },
    ]
}

fn registry() -> ToolRegistry {
    let registry = ToolRegistry::linked();
    runtime_tools(&registry);
    registry
}

/// Peak memory of each path, printed once before the timings.
fn memory(registry: &ToolRegistry, cases: &[Case]) {
    let ctx = ToolContext::new();
    println!("peak heap beyond the input, as a multiple of the input's size:");
    for case in cases {
        let answer = registry.call_blocking(case.tool, &case.args, &ctx);
        match case.expected {
            Some(expected) => assert_eq!(
                answer.to_value(),
                json!(expected),
                "{}: {answer}",
                case.name
            ),
            None => assert!(!answer.is_error(), "{}: {answer}", case.name),
        }
        let parse = peak_of(|| serde_json::from_str::<Value>(&case.args).unwrap());
        let call = peak_of(|| registry.call_blocking(case.tool, &case.args, &ctx));
        let size = case.args.len() as f64;
        println!(
            "  {:<22} input {:.1} MB: call {:.2}x ({} bytes), serde_json::from_str::<Value> {:.2}x",
            case.name,
            size / 1e6,
            call as f64 / size,
            call,
            parse as f64 / size,
        );
    }
}

fn big_input(c: &mut Criterion) {
    let registry = registry();
    let cases = cases();
    memory(&registry, &cases);
    let ctx = ToolContext::new();
    let mut group = c.benchmark_group("big_input_20MB");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    for case in &cases {
        // The parse once, the baseline of every tool of its input.
        if case.tool == "text_len" || case.tool == "items_len" {
            group.bench_function(format!("{}/serde_json_from_str_value", case.name), |b| {
                b.iter(|| black_box(serde_json::from_str::<Value>(black_box(&case.args)).unwrap()))
            });
        }
        group.bench_function(format!("{}/call_blocking", case.name), |b| {
            b.iter(|| black_box(registry.call_blocking(case.tool, black_box(&case.args), &ctx)))
        });
    }
    group.finish();
}

criterion_group!(benches, big_input);
criterion_main!(benches);
