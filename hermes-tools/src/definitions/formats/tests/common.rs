//! What the format tests share: the schemas the crate publishes for the realistic shapes, the
//! hostile schemas no derive produces, and the Draft 2020-12 check.

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::shapes::*;

/// What the crate publishes for `T`: schemars' Draft 2020-12 schema without `$schema` and
/// `title`, with `properties` even when empty.
pub(super) fn schema_of<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    let root = schema.as_object_mut().expect("schemars gives an object");
    root.remove("$schema");
    root.remove("title");
    root.entry("properties").or_insert_with(|| json!({}));
    schema
}

/// Every realistic shape, named.
pub(super) fn all_shapes() -> Vec<(&'static str, Value)> {
    vec![
        ("primitives", schema_of::<Primitives>()),
        ("optionals", schema_of::<Optionals>()),
        ("constrained", schema_of::<Constrained>()),
        ("nested", schema_of::<Nested>()),
        ("enums", schema_of::<Enums>()),
        ("tree", schema_of::<Tree>()),
        ("forest", schema_of::<Forest>()),
        ("maps", schema_of::<Maps>()),
        ("no_args", schema_of::<NoArgs>()),
        ("misc", schema_of::<Misc>()),
    ]
}

/// Schemas no derive produces: cycles, dangling refs, draft-07, non-objects, keywords no
/// provider takes.
pub(super) fn hostile_schemas() -> Vec<Value> {
    let deep = (0..200).fold(
        json!({"type": "string"}),
        |inner, _| json!({"type": "object", "properties": {"x": inner}}),
    );
    let fan_out = (0..12).fold(json!({}), |mut defs, level| {
        let next = format!("#/$defs/D{}", level + 1);
        defs[format!("D{level}")] = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": next, "description": "a"},
                "b": {"$ref": next, "description": "b"},
                "c": {"$ref": next, "description": "c"},
            },
        });
        defs
    });
    let malformed = json!({
        "type": "object",
        "properties": {
            "odd": {
                "type": ["foo", "string", "string"],
                "description": 5,
                "title": null,
                "minLength": -1,
                "maxLength": 2.5,
                "pattern": [],
                "enum": "a",
                "format": 3,
            },
            "num": {"type": "number", "maximum": "x", "multipleOf": 0, "exclusiveMinimum": true},
            "empty": {"anyOf": [], "oneOf": []},
            "bare": {"type": "foo"},
        },
        "required": ["odd", "odd", "num", "undeclared"],
    });
    vec![
        Value::Null,
        json!(true),
        json!(5),
        json!("schema"),
        json!([{"type": "object"}]),
        json!({}),
        deep,
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/D0"}}, "$defs": fan_out}),
        json!({
            "type": "object",
            "properties": {
                "self": {"$ref": "#/$defs/A", "description": "loops"},
                "alias": {"$ref": "#/$defs/B"},
                "dangling": {"$ref": "#/$defs/Missing", "description": "gone"},
                "remote": {"$ref": "https://example.com/schema", "title": "remote"},
                "bad": {"$ref": 7},
                "odd": [1, 2],
            },
            "required": ["self", 3, null],
            "$defs": {
                "A": {"$ref": "#/$defs/A", "description": "itself"},
                "B": {"$ref": "#/$defs/C", "title": "b"},
                "C": {"allOf": [{"$ref": "#/$defs/B"}, {"$ref": "#/$defs/C"}]},
            },
        }),
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "when": {"type": "string", "format": "date-time"},
                "site": {"type": "string", "format": "uri", "minLength": 3},
                "point": {"$ref": "#/definitions/Point"},
                "pair": {"type": "array", "items": [{"type": "integer"}, {"type": "number"}]},
                "level": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
                "ratio": {"type": "number", "exclusiveMinimum": 0.5, "minimum": 1},
                "code": {"enum": [1, 2, 3]},
                "either": {"type": ["string", "integer"]},
                "nothing": {"type": "null"},
                "never": false,
                "mixed": {"oneOf": [{"type": "string"}, {"type": "null"}]},
                "not": {"not": {"type": "string"}},
                "if": {"if": {"minimum": 1}, "then": {"maximum": 2}},
                "both": {"allOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "string"}}, "required": ["b"]}
                ]},
            },
            "required": ["when", "missing"],
            "additionalProperties": true,
            "definitions": {
                "Point": {
                    "type": "object",
                    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                    "patternProperties": {"^z": {"type": "number"}},
                },
            },
        }),
        malformed,
    ]
}

pub(super) fn assert_meta_valid(schema: &Value, context: &str) {
    if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
        panic!("{context}: not a Draft 2020-12 schema: {error}\n{schema:#}");
    }
}
