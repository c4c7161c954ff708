//! Dispatch end to end: every bad input answers JSON with an error, never a panic.

use hermes_tools::{
    CallOptions, DefinitionsRequest, Format, ToolAnswer, ToolContext, ToolRegistry, config::Config,
    tool, tool::Tool,
};
use serde_json::{Value, json};

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool(toolset = "math", emoji = "➕")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Pick up to two colours.
#[tool(toolset = "paint")]
fn pick(
    /// The colours, at most two.
    #[arg(max_items = 2)]
    colours: Vec<String>,
    /// How many coats.
    #[arg(minimum = 1, maximum = 3, default = 1)]
    coats: u8,
) -> Value {
    json!({ "colours": colours, "coats": coats })
}

/// Always panics, to show that a panic becomes an answer.
#[tool(toolset = "faulty")]
fn explode(
    /// Ignored.
    reason: Option<String>,
) -> String {
    panic!("boom: {}", reason.unwrap_or_default())
}

/// Note something down, maybe several times.
#[tool(toolset = "notes")]
fn jot(
    /// What to note.
    note: Option<String>,
    /// How many times.
    times: Option<u32>,
) -> Value {
    json!({ "note": note, "times": times })
}

/// Label something with a title and a description.
#[tool(toolset = "notes")]
fn label(
    /// A parameter named like a schema keyword.
    title: String,
    /// Another one.
    description: Option<String>,
) -> String {
    format!("{title}: {}", description.unwrap_or_default())
}

/// Fails with a message that holds a credential.
#[tool(toolset = "faulty")]
fn leak() -> Result<String, String> {
    Err("request failed with Authorization: Bearer abcdefghijklmnopqrstuvwxyz".into())
}

/// A greeting prefix the caller must provide.
struct Greeting(&'static str);

/// Greet someone with the caller's greeting.
#[tool(toolset = "social")]
fn greet(
    /// Who to greet.
    name: String,
    greeting: &Greeting,
    ctx: &ToolContext,
) -> String {
    format!(
        "{} {name} from {}",
        greeting.0,
        ctx.session_id().unwrap_or("nowhere")
    )
}

/// Count to `n` asynchronously.
#[tool(toolset = "async")]
async fn count(
    /// Where to stop.
    n: u32,
) -> Vec<u32> {
    let mut out = Vec::new();
    for i in 1..=n {
        tokio::task::yield_now().await;
        out.push(i);
    }
    out
}

/// Panics after an await.
#[tool(toolset = "async")]
async fn explode_later() -> String {
    tokio::task::yield_now().await;
    panic!("late boom")
}

fn call(name: &str, args: &str) -> ToolAnswer {
    let answer = ToolRegistry::global().call_blocking(name, args, &ToolContext::new());
    // Whatever happens, the answer is JSON.
    let _: Value = serde_json::from_str(answer.as_str()).expect("every answer is JSON");
    answer
}

fn error_of(answer: &ToolAnswer) -> String {
    assert!(answer.is_error(), "expected an error, got {answer}");
    answer.to_value()["error"]
        .as_str()
        .expect("error is a string")
        .to_owned()
}

#[test]
fn well_typed_arguments_take_the_fast_path() {
    assert_eq!(call("add", r#"{"a": 2, "b": 40}"#).as_str(), "42");
}

#[test]
fn string_numbers_are_repaired() {
    assert_eq!(call("add", r#"{"a": "2", "b": " 40 "}"#).as_str(), "42");
}

#[test]
fn malformed_json_is_explained() {
    let error = error_of(&call("add", r#"{"a": 2,"#));
    assert!(error.starts_with("[TOOL_ERROR] "), "{error}");
    assert!(error.contains("not valid JSON"), "{error}");
}

#[test]
fn non_object_arguments_are_refused() {
    for args in ["[1, 2]", "42", "\"a\"", "\"None\"", "false"] {
        let error = error_of(&call("add", args));
        assert!(error.contains("object"), "{args}: {error}");
    }
}

#[test]
fn null_and_the_strings_null_and_empty_are_no_arguments_on_every_path() {
    for args in ["null", " null ", "\"null\"", "\"\"", ""] {
        // A tool with required parameters says which one is missing, not "send an object".
        let error = error_of(&call("add", args));
        assert!(
            error.contains(r#"missing required argument "/a""#),
            "{args}: {error}"
        );
        assert!(!error.contains("object"), "{args}: {error}");
        // A tool whose parameters may all be left out runs with none.
        assert_eq!(
            call("jot", args).to_value(),
            json!({"note": null, "times": null}),
            "{args}"
        );
        let error = error_of(&call("leak", args));
        assert!(
            error.contains("request failed"),
            "{args} ran the tool: {error}"
        );
        let jot = ToolRegistry::global().get("jot").unwrap();
        for slow_only in [false, true] {
            let judged = hermes_tools::__private::judge_arguments(&jot, args, slow_only);
            assert_eq!(judged, Ok(json!({})), "{args}, slow only: {slow_only}");
        }
    }
}

#[test]
fn the_string_null_for_an_optional_string_is_that_string_on_every_path() {
    // Fast path: the arguments deserialize as sent.
    let fast = call("jot", r#"{"note": "null"}"#).to_value();
    assert_eq!(fast, json!({"note": "null", "times": null}));
    // Slow path: "5" needs repair, and "null" stays the string the schema accepts.
    let slow = call("jot", r#"{"note": "null", "times": "5"}"#).to_value();
    assert_eq!(slow, json!({"note": "null", "times": 5}));
    let jot = ToolRegistry::global().get("jot").unwrap();
    for slow_only in [false, true] {
        let judged =
            hermes_tools::__private::judge_arguments(&jot, r#"{"note": "null"}"#, slow_only);
        assert_eq!(
            judged,
            Ok(json!({"note": "null"})),
            "slow only: {slow_only}"
        );
    }
    // JSON null means "left out", on both paths.
    for args in [r#"{"note": null}"#, r#"{"note": null, "times": "5"}"#] {
        assert_eq!(call("jot", args).to_value()["note"], Value::Null, "{args}");
    }
}

#[test]
fn the_string_null_for_an_optional_string_is_that_string_in_the_strict_format_too() {
    let registry = ToolRegistry::global();
    let request = DefinitionsRequest::all()
        .enable(["notes", "paint"])
        .format(Format::OpenAiStrict);
    let definitions = registry.definitions(&request).unwrap();
    let jot = definitions.definition("jot").unwrap();
    let parameters = &jot["function"]["parameters"];
    assert_eq!(
        parameters["properties"]["note"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(parameters["required"], json!(["note", "times"]));
    let options = CallOptions::new().definitions(definitions);
    let strict = |args: &str| {
        registry
            .call_blocking_with("jot", args, &ToolContext::new(), &options)
            .to_value()
    };
    assert_eq!(
        strict(r#"{"note": "null", "times": null}"#),
        json!({"note": "null", "times": null})
    );
    assert_eq!(
        strict(r#"{"note": "null", "times": "5"}"#),
        json!({"note": "null", "times": 5})
    );
    assert_eq!(
        strict(r#"{"note": null, "times": null}"#),
        json!({"note": null, "times": null})
    );
    // A defaulted parameter, nullable and required in the strict schema: null is its default.
    let answer = registry.call_blocking_with(
        "pick",
        r#"{"colours": ["red"], "coats": null}"#,
        &ToolContext::new(),
        &options,
    );
    assert_eq!(answer.to_value(), json!({"colours": ["red"], "coats": 1}));
}

#[test]
fn wrong_types_name_the_argument() {
    let error = error_of(&call("add", r#"{"a": "two", "b": 1}"#));
    assert!(error.contains("/a"), "{error}");
    assert!(error.contains("integer"), "{error}");
}

#[test]
fn missing_required_argument_is_named() {
    let error = error_of(&call("add", r#"{"a": 1}"#));
    assert!(error.contains("/b") || error.contains("`b`"), "{error}");
}

#[test]
fn an_undeclared_argument_is_refused_unless_the_config_ignores_it() {
    let error = error_of(&call("add", r#"{"a": 1, "b": 2, "bb": 3}"#));
    assert!(error.contains(r#"Unknown argument "bb""#), "{error}");
    assert!(error.contains(r#"Did you mean "b"?"#), "{error}");
    // A registry of its own, so the global one keeps the default rule.
    let registry = ToolRegistry::linked();
    registry.set_config(Config {
        unknown_arguments: hermes_tools::config::UnknownArguments::Ignore,
        ..Config::default()
    });
    let answer = registry.call_blocking("add", r#"{"a": 1, "b": 2, "bb": 3}"#, &ToolContext::new());
    assert_eq!(answer.as_str(), "3");
}

#[test]
fn schema_keywords_sent_as_arguments_are_dropped_with_a_notice() {
    let args = json!({
        "type": "object",
        "a": 1,
        "required": ["a", "b"],
        "b": 2,
        "properties": {"a": {"type": "integer"}},
        "additionalProperties": false,
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "add"
    });
    assert_eq!(
        call("add", &args.to_string()).to_value(),
        json!({
            "result": 3,
            "notice": "dropped schema keywords sent as arguments: \"type\", \"required\", \
                       \"properties\", \"additionalProperties\", \"$schema\", \"title\""
        })
    );
    // A tool without parameters too.
    let error = error_of(&call("leak", r#"{"type": "object", "properties": {}}"#));
    assert!(error.contains("request failed"), "{error}");
}

#[test]
fn a_parameter_named_like_a_schema_keyword_stays_a_parameter() {
    let answer = call(
        "label",
        r#"{"title": "t", "description": "d", "type": "object"}"#,
    );
    assert_eq!(
        answer.to_value(),
        json!({
            "result": "t: d",
            "notice": "dropped schema keywords sent as arguments: \"type\""
        })
    );
}

#[test]
fn other_unknown_keys_beside_schema_keywords_are_still_refused() {
    let error = error_of(&call(
        "add",
        r#"{"type": "object", "a": 1, "b": 2, "bb": 3}"#,
    ));
    assert!(error.contains(r#"Unknown argument "bb""#), "{error}");
    assert!(error.contains(r#"Did you mean "b"?"#), "{error}");
    assert!(!error.contains("Also unknown"), "{error}");
    // With unknown arguments ignored, the keywords still get their notice.
    let registry = ToolRegistry::linked();
    registry.set_config(Config {
        unknown_arguments: hermes_tools::config::UnknownArguments::Ignore,
        ..Config::default()
    });
    let answer = registry.call_blocking(
        "add",
        r#"{"type": "object", "a": 1, "b": 2, "bb": 3}"#,
        &ToolContext::new(),
    );
    assert_eq!(
        answer.to_value(),
        json!({"result": 3, "notice": "dropped schema keywords sent as arguments: \"type\""})
    );
}

#[test]
fn an_mcp_servers_tool_keeps_its_own_rule_for_schema_keywords() {
    let registry = ToolRegistry::new();
    let echo = Tool::builder("mcp__srv__echo", "mcp-srv")
        .description("Echo the arguments.")
        .parameters(json!({"type": "object", "properties": {"a": {"type": "integer"}}}))
        .handler(|args: Value, _: &ToolContext| args)
        .build();
    registry.register(echo).unwrap();
    let answer = registry.call_blocking(
        "mcp__srv__echo",
        r#"{"a": "1", "type": "object"}"#,
        &ToolContext::new(),
    );
    assert_eq!(answer.to_value(), json!({"a": 1, "type": "object"}));
}

#[test]
fn constraints_schemars_does_not_enforce_are_validated() {
    let error = error_of(&call("pick", r#"{"colours": ["red", "green", "blue"]}"#));
    assert!(error.contains("/colours"), "{error}");
    assert!(error.contains('2'), "{error}");
    let error = error_of(&call("pick", r#"{"colours": ["red"], "coats": 9}"#));
    assert!(error.contains("/coats"), "{error}");
    assert_eq!(
        call("pick", r#"{"colours": "red"}"#).to_value(),
        json!({"colours": ["red"], "coats": 1}),
        "a scalar is wrapped into a one-item array and the default applies"
    );
}

#[test]
fn a_panicking_tool_answers_an_error() {
    let answer = call("explode", r#"{"reason": "test"}"#);
    assert!(error_of(&answer).contains("boom: test"), "{answer}");
    // Marked as a panic (an MCP task then ends `failed`), unlike an error the tool returns.
    assert!(answer.panicked(), "{answer}");
    let answer = call("explode_later", "{}");
    assert!(error_of(&answer).contains("late boom"), "{answer}");
    assert!(answer.panicked(), "{answer}");
    let reported = call("leak", "{}");
    assert!(reported.is_error() && !reported.panicked(), "{reported}");
}

#[test]
fn unknown_tool_suggests_the_nearest_names() {
    let answer = call("ad", "{}");
    let error = error_of(&answer);
    assert!(error.contains("Unknown tool"), "{error}");
    assert_eq!(answer.to_value()["suggestions"][0], "add");
    let answer = call("zzzzzz", "{}");
    assert_eq!(answer.to_value()["suggestions"], json!([]));
}

#[test]
fn errors_are_sanitised_and_redacted() {
    let error = error_of(&call("leak", "{}"));
    assert_eq!(
        error,
        "[TOOL_ERROR] request failed with Authorization: Bearer abcdef...wxyz"
    );
}

#[test]
fn extensions_are_injected_and_missing_ones_explained() {
    let ctx = ToolContext::new()
        .with_session_id("s1")
        .with_extension(Greeting("Hello"));
    let answer = ToolRegistry::global().call_blocking("greet", r#"{"name": "Ada"}"#, &ctx);
    assert_eq!(answer.to_value(), json!({"result": "Hello Ada from s1"}));
    let error = error_of(&call("greet", r#"{"name": "Ada"}"#));
    assert!(error.contains("Greeting"), "{error}");
}

#[test]
fn async_tools_run_from_sync_code_without_a_runtime() {
    assert_eq!(call("count", r#"{"n": 3}"#).to_value(), json!([1, 2, 3]));
}

#[test]
fn async_tools_run_from_sync_code_inside_a_current_thread_runtime() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let answer = runtime.block_on(async { call("count", r#"{"n": 2}"#) });
    assert_eq!(answer.to_value(), json!([1, 2]));
}

#[test]
fn async_tools_run_from_sync_code_inside_a_multi_thread_runtime() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let answer = runtime.block_on(async { call("count", r#"{"n": 2}"#) });
    assert_eq!(answer.to_value(), json!([1, 2]));
}

#[tokio::test(flavor = "current_thread")]
async fn async_call_awaits_async_tools_and_runs_sync_ones() {
    let registry = ToolRegistry::global();
    let ctx = ToolContext::new();
    let answer = registry.call("count", r#"{"n": 4}"#, &ctx).await;
    assert_eq!(answer.to_value(), json!([1, 2, 3, 4]));
    let answer = registry.call("add", r#"{"a": 1, "b": 1}"#, &ctx).await;
    assert_eq!(answer.as_str(), "2");
    let answer = registry.call("explode", "{}", &ctx).await;
    assert!(answer.is_error());
}

#[test]
fn the_function_stays_callable_and_the_schema_carries_the_docs() {
    assert_eq!(add(1, 2), 3);
    let tool = ToolRegistry::global().get("add").unwrap();
    assert_eq!(tool.description(), "Add two integers.");
    assert_eq!(
        tool.parameters()["properties"]["a"]["description"],
        "The first addend."
    );
    assert_eq!(tool.parameters()["required"], json!(["a", "b"]));
    let keys: Vec<_> = tool.parameters()["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["a", "b"], "parameter order is kept");
    assert_eq!(ADD_TOOL.emoji, "➕");
    assert_eq!(ADD_TOOL.provenance.crate_name, "dispatch");
}
