//! Inputs nobody should be able to publish or send: parameter schemas providers reject,
//! toolset names no selection can reach, answers strict JSON parsers refuse, and spill
//! directories that grow without end.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use hermes_tools::toolsets::ToolsetNameError;
use hermes_tools::{
    DefinitionsRequest, Format, ToolContext, ToolRegistry, config::Config, registry::RegisterError,
    tool, tool::Tool, toolsets::Composite,
};
use serde_json::{Value, json};

fn with_schema(name: &str, schema: Value) -> Tool {
    Tool::builder(name, "inputs")
        .description("A tool with a hand-written schema.")
        .parameters(schema)
        .handler(|_, _| "ok")
        .build()
}

fn refusal(registry: &ToolRegistry, schema: Value) -> (String, String) {
    match registry.register(with_schema("bad", schema.clone())) {
        Err(RegisterError::InvalidSchema {
            name,
            pointer,
            problem,
        }) => {
            assert_eq!(name, "bad");
            (pointer, problem)
        }
        other => panic!("{schema} was not refused for its schema: {other:?}"),
    }
}

#[test]
fn schemas_providers_reject_are_refused_with_where_and_why() {
    let registry = ToolRegistry::new();
    registry
        .register(with_schema(
            "good",
            json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        ))
        .unwrap();
    let generation = registry.generation();

    let cases = [
        (
            json!({"type": "array", "items": {"type": "string"}}),
            "/type",
        ),
        (
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}}),
            "/properties/a/$ref",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": 7}}}),
            "/properties/a/type",
        ),
        (
            json!({"type": "object", "properties": ["a", "b"]}),
            "/properties",
        ),
        (
            json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
            "/properties/a/$ref",
        ),
        (json!(42), ""),
        (json!(null), ""),
        (json!(false), ""),
        (json!("object"), ""),
    ];
    for (schema, pointer) in cases {
        let (at, problem) = refusal(&registry, schema.clone());
        assert_eq!(at, pointer, "{schema}: {problem}");
    }
    let (_, problem) = refusal(&registry, json!(null));
    assert!(problem.contains("null, not a JSON object"), "{problem}");
    let err = registry
        .register(with_schema(
            "bad",
            json!({"type": "object", "properties": {"a": {"type": 7}}}),
        ))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool \"bad\" has an invalid parameter schema at \"/properties/a/type\": \"type\" must \
         be one of \"array\", \"boolean\", \"integer\", \"null\", \"number\", \"object\", \
         \"string\", or a non-empty array of distinct ones, not the number 7"
    );

    // Nothing changed, and the good tool still goes out, alone and valid.
    assert_eq!(registry.generation(), generation);
    assert!(registry.get("bad").is_none());
    let definitions = registry
        .definitions(&DefinitionsRequest::all().format(Format::OpenAi))
        .unwrap();
    assert_eq!(definitions.len(), 1);
    let parameters = &definitions[0]["function"]["parameters"];
    jsonschema::draft202012::meta::validate(parameters).expect("a valid 2020-12 schema");
}

/// Echo nothing; its schema comes from schemars and is never walked by the check.
#[tool(toolset = "inputs_static")]
fn generated_schema(
    /// Anything.
    text: Option<String>,
) -> String {
    text.unwrap_or_default()
}

#[test]
fn generated_and_well_formed_schemas_register() {
    let registry = ToolRegistry::new();
    registry
        .register(Tool::from_decl(&GENERATED_SCHEMA_TOOL))
        .unwrap();
    for (name, schema) in [
        ("empty", json!({})),
        ("no_type", json!({"properties": {"a": {"type": "integer"}}})),
        (
            "refs",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"tree": {"$ref": "#/$defs/Tree"}},
                "$defs": {"Tree": {"type": "object", "properties": {"kids": {
                    "type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}
            }),
        ),
    ] {
        registry.register(with_schema(name, schema)).unwrap();
    }
    // `{}` and a schema without `type` go out as object schemas.
    assert_eq!(
        registry.get("empty").unwrap().parameters(),
        &json!({"type": "object", "properties": {}})
    );
    assert_eq!(
        registry.get("no_type").unwrap().parameters()["type"],
        "object"
    );
}

#[test]
fn toolset_names_no_selection_can_reach_are_refused() {
    let registry = ToolRegistry::new();
    let before = registry.generation();
    for (name, problem) in [
        ("", ToolsetNameError::Empty),
        ("all", ToolsetNameError::Reserved),
        ("*", ToolsetNameError::Reserved),
        ("my tools", ToolsetNameError::Whitespace),
        ("web\n", ToolsetNameError::Whitespace),
        ("web\u{1b}", ToolsetNameError::Control),
        ("web,files", ToolsetNameError::Comma),
    ] {
        let tool = Tool::builder("t", name).handler(|_, _| "ok").build();
        match registry.register(tool) {
            Err(RegisterError::InvalidToolset {
                name: refused,
                problem: why,
                used_as,
            }) => {
                assert_eq!((refused.as_str(), why), (name, problem));
                assert_eq!(used_as, "the toolset of tool \"t\"");
            }
            other => panic!("{name:?}: {other:?}"),
        }
        assert!(matches!(
            registry.register_toolset(Composite::new(name, "Bad.")),
            Err(RegisterError::InvalidToolset { problem: why, .. }) if why == problem
        ));
        assert!(registry.register_alias(name, "web").is_err(), "{name:?}");
        assert!(registry.register_alias("web2", name).is_err(), "{name:?}");
    }
    let err = registry.register_alias("all", "mcp-all").unwrap_err();
    assert_eq!(
        err.to_string(),
        "alias \"all\" is not a valid toolset name: `all` and `*` are reserved (they select \
         every tool); choose another name"
    );
    assert_eq!(registry.generation(), before, "no refusal changes anything");
    assert!(registry.snapshot().composites().is_empty());
    assert!(registry.snapshot().aliases().is_empty());

    // What is fine stays fine.
    registry
        .register_toolset(Composite::new("mcp-time", "Time."))
        .unwrap();
    registry.register_alias("time", "mcp-time").unwrap();
}

/// `depth` arrays, one inside the other.
fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// Return the text it is given, as `String` tools do.
#[tool(toolset = "inputs_static")]
fn deep_text(
    /// How deep to nest.
    depth: usize,
) -> String {
    nested(depth)
}

/// What a strict parser (serde_json's default) makes of an answer.
fn strictly(answer: &hermes_tools::ToolAnswer) -> Value {
    serde_json::from_str(answer.as_str())
        .unwrap_or_else(|err| panic!("a strict parser refuses the answer: {err}"))
}

#[test]
fn answers_too_deep_for_strict_parsers_are_sent_as_text_on_every_path() {
    let registry = ToolRegistry::new();
    registry.register(Tool::from_decl(&DEEP_TEXT_TOOL)).unwrap();
    registry
        .register(
            Tool::builder("deep_value", "inputs")
                .parameters(json!({"type": "object", "properties": {"depth": {"type": "integer"}}}))
                .handler(|args, _| {
                    let depth = args["depth"].as_u64().unwrap_or(0) as usize;
                    serde_json::from_str::<Value>(&nested(depth.min(120))).map(|mut value| {
                        // Past what a parse can build: nest a parsed value further by hand.
                        for _ in 120..depth {
                            value = Value::Array(vec![value]);
                        }
                        value
                    })
                })
                .build(),
        )
        .unwrap();
    let ctx = ToolContext::new();
    for depth in [127, 128, 129, 200, 10_000] {
        let args = json!({ "depth": depth }).to_string();
        let answer = registry.call_blocking("deep_text", &args, &ctx);
        let sent = strictly(&answer);
        if depth <= 127 {
            assert_eq!(
                answer.as_str(),
                nested(depth),
                "127 levels parse: sent as is"
            );
        } else {
            assert_eq!(sent, json!({ "result": nested(depth) }), "depth {depth}");
        }
        if depth <= 200 {
            let answer = registry.call_blocking("deep_value", &args, &ctx);
            let sent = strictly(&answer);
            if depth > 127 {
                assert_eq!(sent["result"], nested(depth), "depth {depth}");
            }
        }
    }

    // A transform hook's replacement too.
    registry.hooks().add_transform(None, |record| {
        (record.name == "deep_text").then(|| nested(10_000))
    });
    let answer = registry.call_blocking("deep_text", r#"{"depth": 1}"#, &ctx);
    assert_eq!(strictly(&answer), json!({ "result": nested(10_000) }));
}

/// Print a numbered report, far over its budget.
#[tool(toolset = "inputs_static", max_result_chars = 600)]
fn long_report(
    /// Which report.
    n: u32,
) -> String {
    (0..400)
        .map(|line| format!("report {n} line {line}\n"))
        .collect()
}

fn spill_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

fn spilling(dir: &Path, change: impl FnOnce(&mut Config)) -> ToolRegistry {
    let registry = ToolRegistry::new();
    registry
        .register(Tool::from_decl(&LONG_REPORT_TOOL))
        .unwrap();
    let mut config = Config {
        spill_dir: Some(dir.to_owned()),
        ..Config::default()
    };
    change(&mut config);
    registry.set_config(config);
    registry
}

fn spill_of(registry: &ToolRegistry, n: u32) -> (Value, Option<PathBuf>) {
    let answer = registry.call_blocking(
        "long_report",
        &json!({ "n": n }).to_string(),
        &ToolContext::new(),
    );
    let value = answer.to_value();
    let file = value["spill_file"].as_str().map(PathBuf::from);
    (value, file)
}

#[test]
fn spill_files_are_bounded_in_number_oldest_first_and_other_files_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("README.txt"), "the operator's own file").unwrap();
    let registry = spilling(dir.path(), |config| config.spill_max_files = 3);
    let mut files = Vec::new();
    for n in 0..6 {
        let (_, file) = spill_of(&registry, n);
        let file = file.expect("spilled");
        // Distinct modification times, so "oldest" is not a tie broken by name alone.
        std::thread::sleep(Duration::from_millis(20));
        files.push(file);
    }
    for (n, file) in files.iter().enumerate() {
        assert_eq!(file.exists(), n >= 3, "spill {n}: {}", file.display());
    }
    let names = spill_names(dir.path());
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(names.contains(&"README.txt".to_owned()));
    // The newest answer's file is whole: the report's last line is in it.
    let last = fs::read_to_string(&files[5]).unwrap();
    assert!(last.contains("report 5 line 399"));
}

#[test]
fn spill_files_are_bounded_in_bytes_and_age() {
    let dir = tempfile::tempdir().unwrap();
    // Each report renders to about 9 KB: two fit in 20,000 bytes, three do not.
    let registry = spilling(dir.path(), |config| config.spill_max_bytes = 20_000);
    let first = spill_of(&registry, 0).1.unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let second = spill_of(&registry, 1).1.unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let third = spill_of(&registry, 2).1.unwrap();
    assert!(!first.exists() && second.exists() && third.exists());
    let total: u64 = [&second, &third]
        .iter()
        .map(|file| fs::metadata(file).unwrap().len())
        .sum();
    assert!(total <= 20_000, "{total}");

    // An answer larger than the whole bound is not spilled, and the marker says why.
    let tiny = spilling(dir.path(), |config| config.spill_max_bytes = 1_000);
    let (cut, file) = spill_of(&tiny, 3);
    assert_eq!(file, None);
    let content = cut["content"].as_str().unwrap();
    assert!(
        content.contains("could not be saved (the answer is")
            && content.contains("spill_max_bytes (1000)"),
        "{content}"
    );

    // A spill file older than the age bound goes at the next spill; a new one stays.
    let aged = tempfile::tempdir().unwrap();
    let old = aged.path().join("long_report-1-1-1.txt");
    fs::write(&old, "== text, 1 line ==\nold\n").unwrap();
    let a_week_ago = SystemTime::now() - Duration::from_secs(7 * 86_400);
    fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(a_week_ago)
        .unwrap();
    let registry = spilling(aged.path(), |config| config.spill_max_age_secs = 3_600);
    let fresh = spill_of(&registry, 4).1.unwrap();
    assert!(!old.exists() && fresh.exists());
}

#[test]
#[cfg(feature = "toml")]
fn spill_bounds_are_config_keys_with_defaults() {
    let config = Config::from_toml_str(
        "spill_dir = \"spills\"\nspill_max_files = 10\nspill_max_bytes = 1000000\nspill_max_age_secs = 60\n",
    )
    .unwrap();
    assert_eq!(
        (
            config.spill_max_files,
            config.spill_max_bytes,
            config.spill_max_age_secs
        ),
        (10, 1_000_000, 60)
    );
    let defaults = Config::default();
    assert_eq!(
        (
            defaults.spill_max_files,
            defaults.spill_max_bytes,
            defaults.spill_max_age_secs
        ),
        (1_000, 256 * 1024 * 1024, 86_400)
    );
    let typo = Config::from_toml_str("spill_max_file = 3").unwrap_err();
    assert!(typo.to_string().contains("spill_max_file"), "{typo}");
}

/// The MCP side: a server's tool whose schema the client's repair lets through but the
/// registry refuses is skipped alone, with its reason; a deep answer reaches the model as JSON.
#[cfg(feature = "mcp")]
mod mcp {
    use hermes_tools::mcp::client::McpClients;
    use hermes_tools::{ToolContext, ToolRegistry, config::Config, toolsets::Selection};
    use serde_json::Value;

    const SERVER: &str = r#"
import json, sys

def deep(n):
    value = 0
    for _ in range(n):
        value = [value]
    return value

OBJ = {"type": "object", "properties": {}}
TOOLS = [
    {"name": "fine", "description": "Fine.", "inputSchema": OBJ},
    {"name": "bad_id", "description": "A $id that is no string.",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "$id": 5}}}},
    {"name": "bad_anchor", "description": "An anchor that is no name.",
     "inputSchema": {"type": "object", "properties": {"a": {"$anchor": "1st"}}}},
]
for line in sys.stdin:
    message = json.loads(line)
    method, ident, params = message.get("method"), message.get("id"), message.get("params") or {}
    if ident is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "deep", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        text = "[" * 10000 + "]" * 10000
        result = {"content": [{"type": "text", "text": text}], "structuredContent": {"v": deep(110)}}
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident,
                                     "error": {"code": -32601, "message": "no"}}) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + "\n")
    sys.stdout.flush()
"#;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_server_tool_with_a_bad_schema_is_skipped_alone_and_deep_answers_stay_json() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("server.py");
        std::fs::write(&script, SERVER).unwrap();
        let python = std::env::var("HERMES_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let toml = format!(
            "[mcp_servers.deep]\ncommand = {}\nargs = [{}]\n",
            Value::String(python),
            Value::String(script.display().to_string())
        );
        let config = Config::from_toml_str(&toml).unwrap();
        let registry = ToolRegistry::new();
        let clients = McpClients::start(&registry, &config, &Selection::default()).await;
        let status = clients.status("deep").unwrap();

        assert!(registry.get("mcp__deep__fine").is_some(), "{status:?}");
        let mut rejected: Vec<(&str, &str)> = status
            .rejected_tools
            .iter()
            .map(|r| (r.name.as_str(), r.reason.as_str()))
            .collect();
        rejected.sort();
        assert_eq!(rejected.len(), 2, "{rejected:?}");
        assert_eq!(rejected[0].0, "bad_anchor");
        assert!(
            rejected[0].1.contains("/properties/a/$anchor"),
            "{rejected:?}"
        );
        assert_eq!(rejected[1].0, "bad_id");
        assert!(rejected[1].1.contains("/properties/a/$id"), "{rejected:?}");

        let answer = registry
            .call("mcp__deep__fine", "{}", &ToolContext::new())
            .await;
        let sent: Value = serde_json::from_str(answer.as_str())
            .unwrap_or_else(|err| panic!("a strict parser refuses the answer: {err}"));
        assert_eq!(sent["result"], "[".repeat(10_000) + &"]".repeat(10_000));
        assert!(sent["structured"]["v"].is_array());
        clients.shutdown().await;
    }
}

/// The least time, in nanoseconds, of five runs of `run`.
fn least_nanos(mut run: impl FnMut()) -> u128 {
    (0..5)
        .map(|_| {
            let started = std::time::Instant::now();
            run();
            started.elapsed().as_nanos().max(1)
        })
        .min()
        .unwrap()
}

#[test]
fn a_2_mb_tool_name_is_refused_at_once_quoting_its_start() {
    let registry = ToolRegistry::new();
    for i in 0..50 {
        registry
            .register(with_schema(
                &format!("tool_number_{i}"),
                json!({"type": "object"}),
            ))
            .unwrap();
    }
    let ctx = ToolContext::new();
    let huge = "tool_number_".repeat(2 << 20 >> 4);
    let answer = registry.call_blocking(&huge, "{}", &ctx);
    assert!(answer.is_error());
    let text = answer.to_value()["error"].as_str().unwrap().to_owned();
    assert!(
        text.len() < 400,
        "only the name's start is quoted: {} bytes",
        text.len()
    );
    assert!(text.contains(&format!("({} bytes", huge.len())), "{text}");
    let control = registry.call_blocking("tool_number_1\u{7}", "{}", &ctx);
    assert!(control.as_str().contains("control characters"), "{control}");
    // A normal unknown name still gets its suggestions.
    let near = registry.call_blocking("tool_number_7x", "{}", &ctx);
    assert!(
        near.as_str().contains("Did you mean: tool_number_7"),
        "{near}"
    );

    // Bounded work: the 2 MB name costs about what a short one does (the nearest-name search
    // was linear in the name for every tool: minutes), compared in one run, never absolutely.
    let short = least_nanos(|| drop(registry.call_blocking("no_such_tool", "{}", &ctx)));
    let long = least_nanos(|| drop(registry.call_blocking(&huge, "{}", &ctx)));
    eprintln!("unknown tool: 2 MB name {long} ns, short name {short} ns");
    assert!(long < short * 200, "2 MB name {long} ns against {short} ns");
}

/// `{"a": {"a": ... 1}}`, `depth` objects deep, built without recursion (`json!` would
/// serialize its argument, recursively).
fn nested_value(depth: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..depth {
        let mut object = serde_json::Map::new();
        object.insert("a".into(), value);
        value = Value::Object(object);
    }
    value
}

/// An Anthropic message whose one `tool_use` block has `input`, built without recursion.
fn tool_use(input: Value) -> Value {
    let mut block = json!({"type": "tool_use", "id": "toolu_1", "name": "read_file"});
    block.as_object_mut().unwrap().insert("input".into(), input);
    let mut reply = json!({"role": "assistant"});
    reply
        .as_object_mut()
        .unwrap()
        .insert("content".into(), Value::Array(vec![block]));
    reply
}

#[test]
fn arguments_nested_100_000_deep_are_refused_not_a_stack_overflow() {
    use hermes_tools::provider::parse_calls;
    let reply = tool_use(nested_value(100_000));
    let error = parse_calls(Format::Anthropic, &reply).map_err(|e| e.to_string());
    // serde_json's Value drops recursively: this one would overflow the stack too.
    std::mem::forget(reply);
    let error = error.unwrap_err();
    assert!(error.contains("/content/0/input"), "{error}");
    assert!(error.contains("nested 128 or more levels deep"), "{error}");

    // The bound is serde_json's: what it parses, parse_calls reads; one level more, neither.
    for depth in 125..=130 {
        let reply = tool_use(nested_value(depth));
        let text = serde_json::to_string(&reply["content"][0]["input"]).unwrap();
        let parses = serde_json::from_str::<Value>(&text).is_ok();
        let calls = parse_calls(Format::Anthropic, &reply);
        assert_eq!(calls.is_ok(), parses, "depth {depth}: {calls:?}");
        if let Ok(calls) = calls {
            assert_eq!(calls[0].arguments, text);
        }
    }
}

#[test]
fn schemas_the_validator_cannot_enforce_are_refused_naming_the_pointer() {
    let registry = ToolRegistry::new();
    let string_with = |rules: Value| {
        let mut property = json!({"type": "string"});
        property
            .as_object_mut()
            .unwrap()
            .extend(rules.as_object().unwrap().clone());
        json!({"type": "object", "properties": {"code": property}})
    };
    // A pattern the validator cannot run would be published and never enforced.
    let (pointer, problem) = refusal(&registry, string_with(json!({"pattern": "(?<=x)y"})));
    assert_eq!(pointer, "/properties/code/pattern");
    assert!(problem.contains("\"(?<=x)y\" cannot be run"), "{problem}");
    let (pointer, _) = refusal(
        &registry,
        json!({"type": "object", "patternProperties": {"^(?!x)": {"type": "string"}}}),
    );
    assert_eq!(pointer, "/patternProperties/^(?!x)");

    // A $ref that comes back to itself without descending into the arguments.
    for (schema, at) in [
        (
            json!({"type": "object", "allOf": [{"$ref": "#"}]}),
            "/allOf/0/$ref",
        ),
        (
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
                   "$defs": {"A": {"anyOf": [{"$ref": "#/$defs/B"}]}, "B": {"$ref": "#/$defs/A"}}}),
            "/$defs/A/anyOf/0/$ref",
        ),
    ] {
        let (pointer, problem) = refusal(&registry, schema);
        assert_eq!(pointer, at);
        assert!(problem.contains("leads back to this schema"), "{problem}");
    }

    // `required` naming no property: no call could satisfy the tool.
    let (pointer, problem) = refusal(
        &registry,
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}),
    );
    assert_eq!(pointer, "/required/1");
    assert!(
        problem.contains("\"b\", which is not in \"properties\""),
        "{problem}"
    );

    // What each rule still lets through: runnable patterns, recursion through a nested
    // value, `required` met by a pattern or left to an `anyOf` branch.
    for (name, schema) in [
        ("runs", string_with(json!({"pattern": "^[a-z]+\\d*$"}))),
        (
            "tree",
            json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/node"}},
                   "$defs": {"node": {"type": "object", "properties": {
                       "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}}),
        ),
        (
            "matched",
            json!({"type": "object", "properties": {}, "patternProperties": {"^x_": {}},
                   "required": ["x_1"]}),
        ),
        (
            "either",
            json!({"type": "object", "properties": {"a": {}, "b": {}},
                   "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}),
        ),
    ] {
        registry
            .register(with_schema(name, schema))
            .unwrap_or_else(|err| panic!("{name}: {err}"));
    }
    let answer = registry.call_blocking("runs", r#"{"code": "ABC"}"#, &ToolContext::new());
    assert!(answer.is_error(), "the pattern is enforced: {answer}");
}

/// One step of a plan: a nested argument type of our own.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Step {
    /// What to do.
    title: String,
    /// Whether it is done.
    done: Option<bool>,
}

/// Counts the steps of a plan, and the done ones.
///
/// # Arguments
/// * `steps` - The steps.
/// * `first` - The step to start with.
#[tool(toolset = "inputs")]
fn plan(steps: Vec<Step>, first: Option<Step>) -> String {
    let done = steps.iter().filter(|step| step.done == Some(true)).count();
    let titles: Vec<&str> = steps.iter().map(|step| step.title.as_str()).collect();
    format!(
        "{} steps ({done} done): {}; first {}",
        steps.len(),
        titles.join(", "),
        first.map_or("none".to_owned(), |step| step.title)
    )
}

#[test]
fn unknown_keys_are_refused_at_every_depth_by_one_rule() {
    let registry = ToolRegistry::linked();
    let ctx = ToolContext::new();
    let ok = registry.call_blocking(
        "plan",
        r#"{"steps": [{"title": "a", "done": true}, {"title": "b"}]}"#,
        &ctx,
    );
    assert_eq!(
        ok.to_value()["result"],
        "2 steps (1 done): a, b; first none",
        "{ok}"
    );
    // A misspelt nested key was dropped by serde, silently: `dnoe` read as not done.
    for (arguments, at, key) in [
        (
            r#"{"steps": [{"title": "a"}, {"title": "b", "dnoe": true}]}"#,
            "/steps/1",
            "dnoe",
        ),
        (
            r#"{"steps": [], "first": {"title": "c", "extra": 1}}"#,
            "/first",
            "extra",
        ),
    ] {
        let answer = registry.call_blocking("plan", arguments, &ctx);
        assert!(answer.is_error(), "{answer}");
        let text = answer.as_str();
        assert!(
            text.contains(&format!(
                "Unknown argument \\\"{key}\\\" at {at} for tool \\\"plan\\\""
            )),
            "{text}"
        );
        assert!(text.contains(r#"takes \"title\", \"done\""#), "{text}");
    }
    // The top level's rule, `Ignore` included, is the nested one too.
    let ignoring = ToolRegistry::linked();
    ignoring.set_config(Config {
        unknown_arguments: hermes_tools::config::UnknownArguments::Ignore,
        ..Config::default()
    });
    let answer = ignoring.call_blocking(
        "plan",
        r#"{"steps": [{"title": "a", "dnoe": true}], "first": {"title": "c", "x": 1}}"#,
        &ctx,
    );
    assert_eq!(
        answer.to_value()["result"],
        "1 steps (0 done): a; first c",
        "{answer}"
    );
}
