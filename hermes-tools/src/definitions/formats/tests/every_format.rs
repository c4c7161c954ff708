//! What holds for every format: the names, each provider's definition shape, the empty
//! parameter schema, valid Draft 2020-12 output, and the checks the other files rely on.

use serde_json::{Value, json};

use super::common::{all_shapes, assert_meta_valid, hostile_schemas, schema_of};
use super::gemini::assert_openapi_30;
use super::shapes::NoArgs;
use super::strict::assert_strict;
use crate::definitions::formats::{Format, UnknownFormat, definition, parameters_for};

#[test]
fn names_round_trip_and_unknown_names_list_the_valid_ones() {
    let names: Vec<&str> = Format::ALL.iter().map(|format| format.as_str()).collect();
    assert_eq!(
        names,
        [
            "openai",
            "openai-strict",
            "responses",
            "anthropic",
            "gemini",
            "mcp"
        ]
    );
    for format in Format::ALL {
        assert_eq!(format.to_string().parse::<Format>(), Ok(format));
    }
    assert_eq!("OpenAI_Strict".parse::<Format>(), Ok(Format::OpenAiStrict));
    assert_eq!(" MCP ".parse::<Format>(), Ok(Format::Mcp));
    assert_eq!(Format::default(), Format::OpenAi);
    let error = "claude".parse::<Format>().unwrap_err();
    assert_eq!(
        error,
        UnknownFormat {
            name: "claude".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "unknown tool format \"claude\"; valid formats are openai, openai-strict, responses, \
             anthropic, gemini, mcp"
    );
}

#[test]
fn definitions_have_each_providers_shape() {
    let parameters = json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
        "required": ["city"],
    });
    let strict = json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
        "required": ["city", "days"],
        "additionalProperties": false,
    });
    let gemini = json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "nullable": true}},
        "required": ["city"],
    });
    let expected = [
        json!({"type": "function", "function": {"name": "forecast", "description": "Weather.", "parameters": parameters}}),
        json!({"type": "function", "function": {"name": "forecast", "description": "Weather.", "parameters": strict, "strict": true}}),
        json!({"type": "function", "name": "forecast", "description": "Weather.", "parameters": parameters, "strict": false}),
        json!({"name": "forecast", "description": "Weather.", "input_schema": parameters}),
        json!({"name": "forecast", "description": "Weather.", "parameters": gemini}),
        json!({"name": "forecast", "description": "Weather.", "inputSchema": parameters}),
    ];
    for (format, expected) in Format::ALL.into_iter().zip(expected) {
        assert_eq!(
            definition(format, "forecast", "Weather.", &parameters),
            expected,
            "{format}"
        );
    }
}

#[test]
fn no_parameters_is_the_empty_object_everywhere() {
    let empty = json!({"type": "object", "properties": {}});
    assert_eq!(schema_of::<NoArgs>(), empty);
    for format in Format::ALL {
        let expected = if format == Format::OpenAiStrict {
            json!({"type": "object", "properties": {}, "additionalProperties": false, "required": []})
        } else {
            empty.clone()
        };
        assert_eq!(parameters_for(format, &empty), expected, "{format}");
    }
    assert_eq!(
        definition(Format::Gemini, "now", "The time.", &empty),
        json!({"name": "now", "description": "The time.", "parameters": empty})
    );
}

#[test]
fn every_format_gives_draft_2020_12_schemas() {
    // The rewriting formats give valid schemas for any input; the others pass valid ones on.
    for (name, schema) in all_shapes() {
        for format in Format::ALL {
            assert_meta_valid(
                &parameters_for(format, &schema),
                &format!("{name} as {format}"),
            );
        }
    }
    for (index, schema) in hostile_schemas().iter().enumerate() {
        for format in [Format::OpenAiStrict, Format::Gemini] {
            let context = format!("hostile schema {index} as {format}");
            assert_meta_valid(&parameters_for(format, schema), &context);
        }
    }
}

#[test]
fn the_checks_catch_what_they_look_for() {
    // Each helper rejects a schema with the one fault it checks for.
    type Check = fn(&Value, &str);
    let faults: [(Check, Value); 8] = [
        (assert_openapi_30, json!({"type": ["string", "null"]})),
        (assert_openapi_30, json!({"$ref": "#/$defs/A"})),
        (assert_openapi_30, json!({"type": "integer", "enum": [1]})),
        (
            assert_openapi_30,
            json!({"type": "integer", "format": "uint8"}),
        ),
        (
            assert_openapi_30,
            json!({"type": "object", "additionalProperties": false}),
        ),
        (
            assert_strict,
            json!({"type": "object", "properties": {"a": {}}, "required": [], "additionalProperties": false}),
        ),
        (
            assert_strict,
            json!({"type": "object", "properties": {}, "required": []}),
        ),
        (assert_strict, json!({"type": "string", "maxLength": 3})),
    ];
    for (check, schema) in faults {
        let caught = std::panic::catch_unwind(|| check(&schema, "")).is_err();
        assert!(caught, "not caught: {schema}");
    }
    let meta = std::panic::catch_unwind(|| assert_meta_valid(&json!({"type": 5}), "")).is_err();
    assert!(meta);
}
