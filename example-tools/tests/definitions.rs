//! Every example tool in every provider format: valid schemas that follow each format's rules,
//! and a clean lint.

use std::collections::BTreeSet;

use example_tools as _;
use hermes_tools::definitions::lint::Rule;
use hermes_tools::toolsets::Selection;
use hermes_tools::{DefinitionsRequest, Format, ToolRegistry};
use serde_json::Value;

/// The one tool strict mode cannot express: `delegate_task`'s `arguments` is a map with any
/// keys, so it is published in `openai-strict` with `"strict": false` and its schema as given.
const NOT_STRICT: &str = "delegate_task";

fn parameters(format: Format, definition: &Value) -> &Value {
    match format {
        Format::OpenAi | Format::OpenAiStrict => &definition["function"]["parameters"],
        Format::Responses | Format::Gemini => &definition["parameters"],
        Format::Anthropic => &definition["input_schema"],
        Format::Mcp => &definition["inputSchema"],
    }
}

/// Every schema object inside `schema`, the root included.
fn subschemas(schema: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(map) => {
                out.push(node);
                for (key, value) in map {
                    if key == "properties" || key == "$defs" {
                        stack.extend(value.as_object().into_iter().flat_map(|m| m.values()));
                    } else if key != "enum"
                        && key != "const"
                        && key != "default"
                        && key != "required"
                    {
                        stack.push(value);
                    }
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    out
}

#[test]
fn every_tool_in_every_format_follows_the_format_rules() {
    let registry = ToolRegistry::global();
    for format in Format::ALL {
        let definitions = registry
            .definitions(&DefinitionsRequest::all().format(format))
            .unwrap();
        let names: BTreeSet<_> = definitions
            .iter()
            .map(|d| {
                d.get("function")
                    .and_then(|f| f.get("name"))
                    .or_else(|| d.get("name"))
                    .and_then(Value::as_str)
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(names.len(), 7, "{format}: {names:?}");
        for definition in definitions.iter() {
            let schema = parameters(format, definition);
            let check = jsonschema::draft202012::meta::validate(schema);
            assert!(check.is_ok(), "{format}: {definition}: {check:?}");
            assert_eq!(schema["type"], "object", "{format}: {definition}");
            assert!(schema["properties"].is_object(), "{format}: {definition}");
            if format == Format::OpenAiStrict && definition["function"]["name"] == NOT_STRICT {
                assert_eq!(definition["function"]["strict"], false, "{definition}");
                let given = registry.definitions(&DefinitionsRequest::all()).unwrap();
                let given = given
                    .iter()
                    .find(|d| d["function"]["name"] == NOT_STRICT)
                    .unwrap();
                assert_eq!(schema, parameters(Format::OpenAi, given), "as given");
                continue;
            }
            for node in subschemas(schema) {
                match format {
                    Format::OpenAiStrict => strict_rules(node, definition),
                    Format::Gemini => gemini_rules(node, definition),
                    _ => {}
                }
            }
        }
    }
}

fn strict_rules(node: &Value, definition: &Value) {
    assert_eq!(definition["function"]["strict"], true);
    if let Some(properties) = node.get("properties").and_then(Value::as_object) {
        assert_eq!(node["additionalProperties"], false, "{definition}");
        let required: BTreeSet<_> = node["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let keys: BTreeSet<_> = properties.keys().map(String::as_str).collect();
        assert_eq!(required, keys, "every property required: {definition}");
    }
    for rejected in ["minLength", "maxLength", "default"] {
        assert!(node.get(rejected).is_none(), "{rejected} in {definition}");
    }
    if let Some(format) = node.get("format") {
        assert!(
            ![
                "uint", "uint8", "uint32", "uint64", "int32", "int64", "double", "float"
            ]
            .contains(&format.as_str().unwrap()),
            "format {format} in {definition}"
        );
    }
}

fn gemini_rules(node: &Value, definition: &Value) {
    for rejected in [
        "$ref",
        "$defs",
        "$schema",
        "additionalProperties",
        "oneOf",
        "const",
    ] {
        assert!(node.get(rejected).is_none(), "{rejected} in {definition}");
    }
    if let Some(kind) = node.get("type") {
        assert!(kind.is_string(), "no type lists: {definition}");
    }
}

#[test]
fn example_tools_pass_the_lint_with_the_strict_mode_finding_acknowledged() {
    let report = ToolRegistry::global()
        .lint_selection(&Selection::default())
        .unwrap();
    assert_eq!(report.findings, [], "{report:#?}");
    let found: Vec<_> = report
        .acknowledged
        .iter()
        .map(|done| (done.finding.tool.as_str(), done.finding.rule))
        .collect();
    assert_eq!(found, [(NOT_STRICT, Rule::StrictMode)], "{report:#?}");
    assert!(
        report.acknowledged[0]
            .finding
            .message
            .starts_with("/calls/arguments is an object with free-form keys"),
        "{report:#?}"
    );
}

#[test]
fn the_coding_composite_resolves_to_files_terminal_and_todo() {
    let request = DefinitionsRequest::all().enable(["coding"]);
    let definitions = ToolRegistry::global().definitions(&request).unwrap();
    let names: Vec<_> = definitions
        .iter()
        .map(|d| d["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "read_file",
            "search_files",
            "terminal",
            "todo",
            "write_file"
        ]
    );
    // Given the file tools, terminal's description points at them; alone, it does not.
    let terminal = |request: DefinitionsRequest| {
        let definitions = ToolRegistry::global().definitions(&request).unwrap();
        definitions
            .iter()
            .find(|d| d["function"]["name"] == "terminal")
            .unwrap()["function"]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(terminal(DefinitionsRequest::all().enable(["coding"])).contains("read_file"));
    assert!(!terminal(DefinitionsRequest::all().enable(["terminal"])).contains("read_file"));
}
