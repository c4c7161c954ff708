//! Arguments are judged one way: the fast path (straight deserialization) and the slow path
//! (repair and validation) never disagree, for every linked example tool; an unknown argument
//! is refused naming the nearest parameter; comfort bounds clamp; strict models can call
//! `delegate_task`; two agents on one registry are judged by their own definitions.

use std::collections::BTreeSet;
use std::sync::Arc;

use hermes_tools::{
    CallOptions, DefinitionsRequest, Format, ToolContext, ToolRegistry, config::Config,
    tool::SchemaOverride, tool::Tool,
};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use example_tools as _;

/// The same verdict and the same arguments on both paths, or the difference.
fn agree(tool: &Arc<Tool>, args: &str) -> Result<(), String> {
    let fast = hermes_tools::__private::judge_arguments(tool, args, false);
    let slow = hermes_tools::__private::judge_arguments(tool, args, true);
    match (&fast, &slow) {
        (Ok(a), Ok(b)) if a == b => Ok(()),
        (Err(_), Err(_)) => Ok(()),
        _ => Err(format!(
            "tool {:?}, arguments {args}: fast path {fast:?}, slow path {slow:?}",
            tool.name()
        )),
    }
}

/// Values of every JSON kind, the shapes models get wrong included.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-z_ ]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("5"),
            Just("-3"),
            Just("2.5"),
            Just("true"),
            Just("false"),
            Just("null"),
            Just("[1, 2]"),
            Just("{\"id\": \"1\"}"),
            Just("pending"),
            Just("in_progress"),
            Just("bogus"),
            Just("9007199254740993"),
            Just("")
        ]
        .prop_map(|s| Value::String(s.to_owned())),
        prop_oneof![
            Just(0u64),
            Just(1),
            Just(4),
            Just(256),
            Just(2000),
            Just(5000)
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("id".to_owned()),
                    Just("content".to_owned()),
                    Just("status".to_owned()),
                    Just("tool".to_owned()),
                    Just("arguments".to_owned()),
                    "[a-z]{1,6}"
                ],
                inner,
                0..4
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn example_tools() -> Vec<Arc<Tool>> {
    let registry = ToolRegistry::global();
    let tools: Vec<Arc<Tool>> = registry
        .snapshot()
        .tools()
        .filter(|tool| tool.provenance().crate_name == "example_tools")
        .cloned()
        .collect();
    assert!(
        tools.len() >= 7,
        "the example tools are linked: {}",
        tools.len()
    );
    tools
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Arguments built from each tool's own parameter names, with values of any kind: the two
    /// paths give the same verdict and, when they accept, the same arguments.
    #[test]
    fn fast_and_slow_paths_judge_every_example_tool_alike(
        tool_index in 0usize..64,
        values in prop::collection::vec((any::<prop::sample::Index>(), any_json()), 0..5),
        stray in prop::option::weighted(0.1, "[a-z]{1,8}"),
    ) {
        let tools = example_tools();
        let tool = &tools[tool_index % tools.len()];
        let names: Vec<String> = tool.parameters()["properties"]
            .as_object()
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default();
        let mut args = Map::new();
        for (index, value) in values {
            if !names.is_empty() {
                args.insert(index.get(&names).clone(), value);
            }
        }
        if let Some(stray) = stray {
            args.insert(stray, json!(1));
        }
        let text = Value::Object(args).to_string();
        prop_assert!(agree(tool, &text).is_ok(), "{}", agree(tool, &text).unwrap_err());
    }
}

#[test]
fn todo_with_an_invalid_status_is_refused_whatever_merge_says() {
    let todo = ToolRegistry::global().get("todo").unwrap();
    for merge in [json!(false), json!("false"), json!(true)] {
        let args =
            json!({"todos": [{"id": "1", "content": "x", "status": "bogus"}], "merge": merge});
        let text = args.to_string();
        agree(&todo, &text).unwrap();
        let verdict = hermes_tools::__private::judge_arguments(&todo, &text, false);
        assert!(verdict.is_err(), "merge = {merge}: {verdict:?}");
    }
}

#[test]
fn a_misnamed_argument_is_refused_naming_the_parameter_meant() {
    let registry = ToolRegistry::linked();
    let ctx = ToolContext::new().with_session_id("misnamed");
    let options = CallOptions::new().from_agent_loop();
    let answer = registry.call_blocking_with(
        "todo",
        r#"{"todo": [{"id": "1", "content": "write the tests"}]}"#,
        &ctx,
        &options,
    );
    assert!(answer.is_error(), "{answer}");
    let message = answer.to_value()["error"].as_str().unwrap().to_owned();
    assert!(message.contains(r#"Unknown argument "todo""#), "{message}");
    assert!(message.contains(r#"Did you mean "todos"?"#), "{message}");
    // Nothing was written: the list is still empty.
    let list = registry.call_blocking_with("todo", "{}", &ctx, &options);
    assert_eq!(list.to_value()["todos"], json!([]), "{list}");

    // The operator may relax the rule for one tool: the stray key is then dropped.
    let relaxed = Config::from_toml_str("[tools.todo]\nunknown_arguments = \"ignore\"\n").unwrap();
    registry.set_config(relaxed);
    let answer = registry.call_blocking_with("todo", r#"{"todo": [], "x": 1}"#, &ctx, &options);
    assert!(!answer.is_error(), "{answer}");
}

#[test]
fn read_file_clamps_a_limit_over_its_maximum_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (1..=2500).map(|n| format!("line {n}\n")).collect();
    std::fs::write(dir.path().join("long.txt"), text).unwrap();
    let ctx = ToolContext::new().with_extension(example_tools::Workspace::new(dir.path()));
    let registry = ToolRegistry::linked();
    let answer =
        registry.call_blocking("read_file", r#"{"path": "long.txt", "limit": 5000}"#, &ctx);
    assert!(!answer.is_error(), "{answer}");
    let value = answer.to_value();
    assert_eq!(
        value["notice"], "limit was 5000; clamped to the maximum 2000",
        "{value}"
    );
    assert_eq!(value["truncated"], true, "2,000 of 2,500 lines: {value}");
    // A limit sent as text is clamped the same way.
    let answer = registry.call_blocking(
        "read_file",
        r#"{"path": "long.txt", "limit": "9000"}"#,
        &ctx,
    );
    assert_eq!(
        answer.to_value()["notice"],
        "limit was 9000; clamped to the maximum 2000"
    );
    // Within bounds: no notice.
    let answer = registry.call_blocking("read_file", r#"{"path": "long.txt", "limit": 3}"#, &ctx);
    assert!(answer.to_value().get("notice").is_none(), "{answer}");
}

#[test]
fn strict_models_can_pass_delegate_task_its_arguments() {
    let registry = ToolRegistry::linked();
    let request = DefinitionsRequest::all()
        .enable(["delegation", "files"])
        .format(Format::OpenAiStrict);
    let definitions = registry.definitions(&request).unwrap();
    let delegate = definitions
        .iter()
        .find(|d| d["function"]["name"] == "delegate_task")
        .unwrap();
    // Published not strict, with the free-form object left open...
    assert_eq!(delegate["function"]["strict"], false, "{delegate}");
    let arguments =
        &delegate["function"]["parameters"]["$defs"]["DelegatedCall"]["properties"]["arguments"];
    assert_ne!(arguments["additionalProperties"], false, "{delegate}");
    // ...while a tool strict mode can express stays strict.
    let read = definitions
        .iter()
        .find(|d| d["function"]["name"] == "read_file")
        .unwrap();
    assert_eq!(read["function"]["strict"], true);
    // And the lint says which tools are not strict (delegate_task acknowledges it).
    let report = registry
        .lint_selection(&hermes_tools::toolsets::Selection::default())
        .unwrap();
    assert!(
        report
            .acknowledged
            .iter()
            .any(|a| a.finding.tool == "delegate_task"
                && a.finding.rule == hermes_tools::definitions::lint::Rule::StrictMode),
        "{report:?}"
    );

    // A strict model's call with arguments reaches the delegated tool.
    let ctx = ToolContext::new().with_session_id("strict");
    let options = CallOptions::new()
        .from_agent_loop()
        .definitions(definitions);
    let call = json!({"calls": [{"tool": "read_file", "arguments": {"path": "nope.txt"}}]});
    let answer = registry.call_blocking_with("delegate_task", &call.to_string(), &ctx, &options);
    let answers = answer.to_value();
    let inner = answers[0]["error"].as_str().unwrap_or_default();
    // The delegated read ran with the path it was given (no workspace here: it says so).
    assert!(inner.contains("read_file"), "{answers}");
    assert!(!inner.contains("Invalid arguments"), "{answers}");
}

/// A tool whose `target` parameter may only name a tool of the same selection.
fn picker() -> Tool {
    Tool::builder("pick", "picking")
        .description("Pick one of the other tools you were given.")
        .parameters(json!({
            "type": "object",
            "properties": {"target": {"type": "string", "description": "The tool to pick."}},
            "required": ["target"]
        }))
        .dynamic_schema(|context| {
            let others: BTreeSet<&String> = context
                .selected
                .iter()
                .filter(|name| *name != "pick")
                .collect();
            SchemaOverride {
                description: None,
                parameters: Some(json!({"properties": {"target": {
                    "type": "string",
                    "enum": others,
                    "description": "The tool to pick."
                }}})),
            }
        })
        .handler(|args, _ctx| args["target"].clone())
        .build()
}

fn plain(name: &str, toolset: &str) -> Tool {
    Tool::builder(name, toolset)
        .description("Do nothing useful at all, for a test.")
        .handler(|_, _| "ok")
        .build()
}

#[test]
fn two_agents_with_different_selections_are_each_judged_by_their_own_definitions() {
    let registry = ToolRegistry::new();
    registry.register(picker()).unwrap();
    registry.register(plain("alpha", "a")).unwrap();
    registry.register(plain("beta", "b")).unwrap();
    let ctx = ToolContext::new();

    // Both agents get their definitions before either calls: the order that broke the
    // "last definitions win" design.
    let first = registry
        .definitions(&DefinitionsRequest::all().enable(["picking", "a"]))
        .unwrap();
    let second = registry
        .definitions(&DefinitionsRequest::all().enable(["picking", "b"]))
        .unwrap();
    let first = CallOptions::new().definitions(first);
    let second = CallOptions::new().definitions(second);

    let call = |options: &CallOptions, target: &str| {
        registry.call_blocking_with(
            "pick",
            &json!({"target": target}).to_string(),
            &ctx,
            options,
        )
    };
    assert_eq!(call(&first, "alpha").as_str(), r#""alpha""#);
    assert_eq!(call(&second, "beta").as_str(), r#""beta""#);
    let refused = call(&first, "beta");
    assert!(
        refused.is_error() && refused.as_str().contains("alpha"),
        "{refused}"
    );
    let refused = call(&second, "alpha");
    assert!(
        refused.is_error() && refused.as_str().contains("beta"),
        "{refused}"
    );

    // Interleaved from two threads, many times: never the other agent's verdict.
    std::thread::scope(|scope| {
        for (options, own, other) in [(&first, "alpha", "beta"), (&second, "beta", "alpha")] {
            scope.spawn(move || {
                for _ in 0..200 {
                    assert!(!call(options, own).is_error());
                    assert!(call(options, other).is_error());
                }
            });
        }
    });

    // And each agent may only call what it was given.
    let outside = registry.call_blocking_with("beta", "{}", &ctx, &first);
    assert!(
        outside
            .as_str()
            .contains("not among the tools you were given"),
        "{outside}"
    );
}
