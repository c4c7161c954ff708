//! Each limit at its boundary: one under passes, one over fails, naming the limit.

use serde_json::{Map, Value, json};

use super::*;

fn openai(name: &str, description: &str, parameters: Value) -> Value {
    json!({"type": "function", "function": {
        "name": name, "description": description, "parameters": parameters
    }})
}

fn strict(parameters: Value) -> Value {
    json!({"type": "function", "function": {
        "name": "t", "description": "d", "parameters": parameters, "strict": true
    }})
}

fn named(name: &str, key: &str, parameters: Value) -> Value {
    json!({"name": name, "description": "d", key: parameters})
}

/// The limits `definitions` break in `format` (empty: none).
fn broken(format: Format, definitions: &[Value]) -> Vec<&'static Limit> {
    match check(format, definitions) {
        Ok(()) => Vec::new(),
        Err(violations) => violations.iter().map(|v| v.limit).collect(),
    }
}

/// Asserts `under` passes and `over` breaks exactly `limit`, whose source the message cites.
fn boundary(format: Format, limit: &'static Limit, under: &[Value], over: &[Value]) {
    assert_eq!(
        broken(format, under),
        Vec::<&Limit>::new(),
        "{}",
        limit.what
    );
    let violations = check(format, over).unwrap_err();
    assert_eq!(
        violations.iter().map(|v| v.limit).collect::<Vec<_>>(),
        [limit],
        "{violations:#?}"
    );
    let message = violations[0].to_string();
    assert!(message.contains(limit.source), "{message}");
    assert!(
        message.contains(&limit.max.to_string()) || limit.max == 0,
        "{message}"
    );
}

fn empty() -> Value {
    json!({"type": "object", "properties": {}})
}

fn tools(count: usize, shape: impl Fn(&str) -> Value) -> Vec<Value> {
    (0..count).map(|i| shape(&format!("tool_{i}"))).collect()
}

#[test]
fn openai_tools_per_request() {
    let shape = |name: &str| openai(name, "d", empty());
    let over = tools(129, shape);
    boundary(Format::OpenAi, &OPENAI_MAX_TOOLS, &tools(128, shape), &over);
    let violations = check(Format::OpenAiStrict, &over).unwrap_err();
    assert_eq!(
        violations[0].tool.as_deref(),
        Some("tool_128"),
        "the first past it"
    );
}

#[test]
fn openai_function_names() {
    let at = |name: &str| [openai(name, "d", empty())];
    boundary(
        Format::OpenAi,
        &OPENAI_NAME,
        &at(&"n".repeat(64)),
        &at(&"n".repeat(65)),
    );
    boundary(
        Format::OpenAi,
        &OPENAI_NAME,
        &at("web-search_2"),
        &at("web.search"),
    );
    let responses = |name: &str| [json!({"type": "function", "name": name, "parameters": empty()})];
    boundary(
        Format::Responses,
        &OPENAI_NAME,
        &responses("a"),
        &responses(""),
    );
}

#[test]
fn openai_description_length() {
    let at = |chars: usize| [openai("t", &"é".repeat(chars), empty())];
    boundary(
        Format::OpenAi,
        &OPENAI_DESCRIPTION_CHARS,
        &at(1024),
        &at(1025),
    );
    boundary(
        Format::OpenAiStrict,
        &OPENAI_DESCRIPTION_CHARS,
        &at(1024),
        &at(1025),
    );
    assert!(broken(Format::Anthropic, &[named("t", "input_schema", empty())]).is_empty());
}

/// An object schema `levels` objects deep.
fn nested(levels: usize) -> Value {
    let mut schema = json!({"type": "string"});
    for _ in 0..levels {
        schema = json!({"type": "object", "properties": {"inner": schema}});
    }
    schema
}

#[test]
fn strict_nesting_depth() {
    let depth = &OPENAI_STRICT_DEPTH;
    boundary(
        Format::OpenAiStrict,
        depth,
        &[strict(nested(10))],
        &[strict(nested(11))],
    );
    // Arrays of objects nest too.
    let array =
        json!({"type": "object", "properties": {"rows": {"type": "array", "items": nested(10)}}});
    boundary(
        Format::OpenAiStrict,
        depth,
        &[strict(nested(10))],
        &[strict(array)],
    );
    // Not strict: not checked.
    assert!(broken(Format::OpenAi, &[openai("t", "d", nested(11))]).is_empty());
}

fn with_properties(count: usize, key: impl Fn(usize) -> String) -> Value {
    let properties: Map<String, Value> = (0..count)
        .map(|i| (key(i), json!({"type": "string"})))
        .collect();
    json!({"type": "object", "properties": properties})
}

#[test]
fn strict_total_properties() {
    let key = |i: usize| format!("p{i}");
    boundary(
        Format::OpenAiStrict,
        &OPENAI_STRICT_PROPERTIES,
        &[strict(with_properties(5000, key))],
        &[strict(with_properties(5001, key))],
    );
}

fn with_enum(values: Vec<String>) -> Value {
    json!({"type": "object", "properties": {"pick": {"type": "string", "enum": values}}})
}

#[test]
fn strict_enum_values() {
    let values = |count: usize| (0..count).map(|i| format!("v{i}")).collect();
    boundary(
        Format::OpenAiStrict,
        &OPENAI_STRICT_ENUM_VALUES,
        &[strict(with_enum(values(1000)))],
        &[strict(with_enum(values(1001)))],
    );
}

#[test]
fn strict_large_enum_characters() {
    // 251 values: 250 of 59 characters and one of `last` (15,000 characters with 250).
    let values = |last: usize| {
        let mut values: Vec<String> = (0..250).map(|i| format!("{i:0>59}")).collect();
        values.push("z".repeat(last));
        values
    };
    boundary(
        Format::OpenAiStrict,
        &OPENAI_STRICT_LARGE_ENUM_CHARS,
        &[strict(with_enum(values(250)))],
        &[strict(with_enum(values(251)))],
    );
    // 250 values are no large enum, whatever their length.
    let small: Vec<String> = (0..250).map(|i| format!("{i:0>100}")).collect();
    assert!(broken(Format::OpenAiStrict, &[strict(with_enum(small))]).is_empty());
}

#[test]
fn strict_total_string_length() {
    // 100 property names of 1,200 characters: 120,000 in all.
    let under = with_properties(100, |i| format!("{i:0>1200}"));
    let over = with_properties(100, |i| {
        if i == 0 {
            format!("{i:0>1201}")
        } else {
            format!("{i:0>1200}")
        }
    });
    boundary(
        Format::OpenAiStrict,
        &OPENAI_STRICT_STRING_CHARS,
        &[strict(under)],
        &[strict(over)],
    );
}

#[test]
fn anthropic_names_and_property_keys() {
    let at = |name: &str| [named(name, "input_schema", empty())];
    boundary(
        Format::Anthropic,
        &ANTHROPIC_NAME,
        &at(&"a".repeat(64)),
        &at(&"a".repeat(65)),
    );
    boundary(
        Format::Anthropic,
        &ANTHROPIC_NAME,
        &at("get_weather-2"),
        &at("get weather"),
    );
    let keyed = |key: &str| {
        [named(
            "t",
            "input_schema",
            with_properties(1, |_| key.to_owned()),
        )]
    };
    let limit = &ANTHROPIC_PROPERTY_KEY;
    boundary(
        Format::Anthropic,
        limit,
        &keyed(&"k".repeat(64)),
        &keyed(&"k".repeat(65)),
    );
    boundary(
        Format::Anthropic,
        limit,
        &keyed("ticket.code"),
        &keyed("ticket code"),
    );
    // Nested keys count.
    let deep = json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b c": {}}}}});
    boundary(
        Format::Anthropic,
        limit,
        &keyed("a"),
        &[named("t", "input_schema", deep)],
    );
}

#[test]
fn gemini_declarations_names_and_keywords() {
    let shape = |name: &str| named(name, "parameters", empty());
    boundary(
        Format::Gemini,
        &GEMINI_MAX_DECLARATIONS,
        &tools(128, shape),
        &tools(129, shape),
    );
    let at = |name: &str| [shape(name)];
    boundary(
        Format::Gemini,
        &GEMINI_NAME,
        &at(&"g".repeat(64)),
        &at(&"g".repeat(65)),
    );
    boundary(
        Format::Gemini,
        &GEMINI_NAME,
        &at("_ns.tool:v2"),
        &at("2nd_tool"),
    );
    let schema = |extra: Value| {
        let mut city = json!({"type": "string", "minLength": 1});
        city.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        [named(
            "t",
            "parameters",
            json!({"type": "object", "properties": {"city": city}}),
        )]
    };
    let violations = check(Format::Gemini, &schema(json!({"const": "Paris"}))).unwrap_err();
    assert!(
        violations[0].message.contains("\"/properties/city\""),
        "{violations:?}"
    );
    boundary(
        Format::Gemini,
        &GEMINI_SCHEMA_KEYWORDS,
        &schema(json!({"maxLength": 9})),
        &schema(json!({"const": "Paris"})),
    );
}

#[test]
fn mcp_has_no_limits_and_every_violation_is_reported() {
    let long = "n".repeat(200);
    assert!(
        check(
            Format::Mcp,
            &tools(300, |_| named(&long, "inputSchema", empty()))
        )
        .is_ok()
    );
    let both = [openai(&long, &"d".repeat(2000), empty())];
    assert_eq!(
        broken(Format::OpenAi, &both),
        [&OPENAI_NAME, &OPENAI_DESCRIPTION_CHARS]
    );
}

#[test]
fn every_limit_cites_a_source() {
    for limit in ALL {
        assert!(limit.source.starts_with("https://"), "{}", limit.what);
    }
}
