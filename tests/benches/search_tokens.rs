//! The tokens of the tool definitions sent with each request, with and without deferral, per
//! format, for a registry of over 1,000 tools: 1,000 generated distractors
//! ([`listings::generated_tools`]), `example_tools`' own, and the tools of three real MCP
//! servers listed live through our client (server-everything, mcp-server-fetch,
//! mcp-server-time, from `bash .ci/test`'s installs).
//!
//! Tokens are counted with OpenAI's `o200k_base` BPE (tiktoken-rs), the vocabulary of GPT-4o and
//! every OpenAI model since; `cl100k_base` (GPT-4, GPT-3.5) is shown beside it. Anthropic and
//! Google publish no offline tokenizer, so their rows count the same bytes with `o200k_base`: a
//! measure of what is sent, not of what each provider bills (providers also wrap tools in their
//! own prompt template). What is counted is the JSON of the list as sent.
//!
//! ```sh
//! HERMES_PYTHON=... HERMES_NODE_MODULES=... cargo bench -p hermes-tools-tests --bench search_tokens
//! ```
//! prints a Markdown table (bench/README.md holds one).

use example_tools as _;
use hermes_tools::search::Deferral;
use hermes_tools::{DefinitionsRequest, Format, ToolRegistry};
use hermes_tools_tests::listings::{generated_tools, start_real_mcp_servers};
use serde_json::Value;
use tiktoken_rs::CoreBPE;

/// How many distractors the registry holds beside the real tools.
const DISTRACTORS: usize = 1_000;

/// The tokens of `text` in both vocabularies.
fn tokens(o200k: &CoreBPE, cl100k: &CoreBPE, text: &str) -> (usize, usize) {
    (
        o200k.encode_with_special_tokens(text).len(),
        cl100k.encode_with_special_tokens(text).len(),
    )
}

fn main() {
    // `cargo bench` passes `--bench`; a filter or `--list` from a harness run means nothing here.
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let registry = ToolRegistry::linked();
    for tool in generated_tools(DISTRACTORS) {
        registry.register(tool).expect("a distractor registers");
    }
    let _clients = runtime.block_on(start_real_mcp_servers(&registry));
    let tools = registry.snapshot().tools().count();
    let mcp = registry
        .snapshot()
        .tools()
        .filter(|tool| tool.is_mcp())
        .count();

    let o200k = tiktoken_rs::o200k_base().expect("o200k_base");
    let cl100k = tiktoken_rs::cl100k_base().expect("cl100k_base");
    println!(
        "{tools} tools ({DISTRACTORS} generated, {mcp} from the MCP servers, the rest example-tools'); \
         tokens of the definitions sent with each request (o200k_base, cl100k_base in brackets):\n"
    );
    println!(
        "| format | all {tools} tools in full | every tool deferred: sent | of which in the model's context | ratio (context) |"
    );
    println!("|---|---|---|---|---|");
    for format in Format::ALL {
        let full = registry
            .definitions(&DefinitionsRequest::all().format(format))
            .expect("every toolset");
        let full = serde_json::to_string(&full).expect("JSON");
        let (full_o200k, full_cl100k) = tokens(&o200k, &cl100k, &full);
        let (sent, deferred, context) = deferred_list(&registry, format);
        let (deferred_o200k, deferred_cl100k) = tokens(&o200k, &cl100k, &deferred);
        let (context_o200k, context_cl100k) = tokens(&o200k, &cl100k, &context);
        println!(
            "| {format} | {full_o200k} ({full_cl100k}) | {deferred_o200k} ({deferred_cl100k}) in {sent} definitions | {context_o200k} ({context_cl100k}) | {:.1}% |",
            100.0 * context_o200k as f64 / full_o200k as f64
        );
    }
}

/// What is sent instead when every tool is deferred: how many definitions, their JSON, and
/// the JSON of what enters the model's context. With the bridge (every format without native
/// search) the two are the same: its three meta-tools, `tool_search` carrying the manifest at
/// its default budget. A native list (Anthropic, Responses) still carries every definition,
/// marked `defer_loading: true`, which the provider keeps out of the context until its search
/// loads it: the context holds the search tool and, on Responses, each namespace's name and
/// description.
fn deferred_list(registry: &ToolRegistry, format: Format) -> (usize, String, String) {
    let request = DefinitionsRequest::all()
        .format(format)
        .defer(Deferral::default().all());
    let deferred = registry.definitions(&request).expect("every toolset");
    let context: Vec<Value> = deferred.iter().filter_map(in_context).collect();
    (
        deferred.len(),
        serde_json::to_string(&deferred).expect("JSON"),
        serde_json::to_string(&context).expect("JSON"),
    )
}

/// The part of one listed definition the provider puts in the model's context.
fn in_context(definition: &Value) -> Option<Value> {
    if definition.get("defer_loading") == Some(&Value::Bool(true)) {
        return None;
    }
    let mut definition = definition.clone();
    if let Some(Value::Array(tools)) = definition.get_mut("tools") {
        tools.retain(|tool| tool.get("defer_loading") != Some(&Value::Bool(true)));
    }
    Some(definition)
}
