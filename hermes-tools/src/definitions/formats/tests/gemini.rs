//! `gemini`: OpenAPI 3.0 Schema Objects, exactly.

use serde_json::{Value, json};

use super::common::{all_shapes, hostile_schemas, schema_of};
use super::shapes::*;
use crate::definitions::formats::{Format, parameters_for};

/// Keywords of the OpenAPI 3.0 Schema Object that Gemini's `Schema` has, plus its
/// `propertyOrdering`.
const OPENAPI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "anyOf",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minProperties",
    "maxProperties",
    "default",
    "example",
    "propertyOrdering",
];

/// Asserts `schema` is a Schema Object as Gemini takes it: OpenAPI 3.0 keywords only, one
/// `type` name, no `$ref`, string enums, supported formats, a non-empty `properties`.
pub(super) fn assert_openapi_30(schema: &Value, path: &str) {
    let map = schema
        .as_object()
        .unwrap_or_else(|| panic!("{path}: not a Schema Object: {schema}"));
    for (key, value) in map {
        let at = format!("{path}/{key}");
        assert!(
            OPENAPI_KEYWORDS.contains(&key.as_str()),
            "{at}: not an OpenAPI 3.0 keyword"
        );
        match key.as_str() {
            "type" => assert!(
                ["string", "number", "integer", "boolean", "array", "object"]
                    .contains(&value.as_str().unwrap_or_default()),
                "{at}: {value} is not one OpenAPI type"
            ),
            "nullable" => assert_eq!(value, &json!(true), "{at}"),
            "enum" => assert!(
                value
                    .as_array()
                    .is_some_and(|v| v.iter().all(Value::is_string)),
                "{at}: Gemini enums are strings: {value}"
            ),
            "format" => {
                let allowed: &[&str] = match map.get("type").and_then(Value::as_str) {
                    Some("string") => &["date-time", "enum"],
                    Some("integer") => &["int32", "int64"],
                    Some("number") => &["float", "double"],
                    _ => &[],
                };
                assert!(
                    allowed.contains(&value.as_str().unwrap_or_default()),
                    "{at}: {value}"
                );
            }
            "properties" => {
                let properties = value.as_object().expect("properties is a map");
                assert!(!properties.is_empty() || path.is_empty(), "{at}: empty");
                for (name, property) in properties {
                    assert_openapi_30(property, &format!("{at}/{name}"));
                }
            }
            "required" => {
                let names = value.as_array().expect("required is a list");
                for name in names {
                    let name = name.as_str().expect("required names are strings");
                    let declared = map.get("properties").and_then(|p| p.get(name));
                    assert!(declared.is_some(), "{at}: {name} undeclared");
                }
            }
            "items" => assert_openapi_30(value, &at),
            "anyOf" => {
                for (index, variant) in value
                    .as_array()
                    .expect("anyOf is a list")
                    .iter()
                    .enumerate()
                {
                    assert_openapi_30(variant, &format!("{at}/{index}"));
                }
            }
            "description" | "title" | "pattern" => assert!(value.is_string(), "{at}"),
            "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties"
            | "maxProperties" => assert!(value.is_u64(), "{at}"),
            "minimum" | "maximum" => assert!(value.is_number(), "{at}"),
            _ => {}
        }
    }
}

#[test]
fn gemini_parameters_are_openapi_3_schema_objects() {
    let mut inputs: Vec<Value> = all_shapes().into_iter().map(|(_, schema)| schema).collect();
    inputs.extend(hostile_schemas());
    for schema in &inputs {
        assert_openapi_30(&parameters_for(Format::Gemini, schema), "");
    }
}

fn gemini(schema: &Value) -> Value {
    parameters_for(Format::Gemini, schema)
}

#[test]
fn gemini_primitives_keep_only_its_formats() {
    assert_eq!(
        gemini(&schema_of::<Primitives>()),
        json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "minimum": 0, "maximum": 255, "description": "How many."},
                "big": {"type": "integer", "format": "int64"},
                "size": {"type": "integer", "minimum": 0},
                "ratio": {"type": "number", "format": "double"},
                "small": {"type": "number", "format": "float"},
                "name": {"type": "string"},
                "flag": {"type": "boolean"},
            },
            "required": ["count", "big", "size", "ratio", "small", "name", "flag"],
        })
    );
}

#[test]
fn gemini_optionals_are_nullable_and_defaults_stay() {
    assert_eq!(
        gemini(&schema_of::<Optionals>()),
        json!({
            "type": "object",
            "properties": {
                "nickname": {"type": "string", "nullable": true, "description": "A nickname."},
                "age": {"type": "integer", "nullable": true, "minimum": 0},
                "retries": {"type": "integer", "minimum": 0, "default": 0},
                "limit": {"type": "integer", "minimum": 0, "maximum": 65535, "default": 5},
            },
        })
    );
}

#[test]
fn gemini_keeps_constraints() {
    assert_eq!(
        gemini(&schema_of::<Constrained>()),
        json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
                "slug": {"type": "string", "minLength": 1, "maxLength": 20, "pattern": "^[a-z]+$"},
                "level": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 10},
            },
            "required": ["tags", "slug", "level"],
        })
    );
}

#[test]
fn gemini_inlines_refs_and_unwraps_options() {
    let address = json!({
        "type": "object",
        "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        "required": ["street", "city"],
    });
    let with = |extra: Value| {
        let mut schema = address.clone();
        schema
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        schema
    };
    assert_eq!(
        gemini(&schema_of::<Nested>()),
        json!({
            "type": "object",
            "properties": {
                "home": with(json!({"description": "Home address."})),
                "work": with(json!({"description": "Work address, if any.", "nullable": true})),
                "other": with(json!({"nullable": true})),
            },
            "required": ["home"],
        })
    );
}

#[test]
fn gemini_enums_are_string_enums_and_tagged_variants_any_of() {
    assert_eq!(
        gemini(&schema_of::<Enums>()),
        json!({
            "type": "object",
            "properties": {
                "color": {"type": "string", "enum": ["Red", "Green", "Blue"]},
                "unit": {
                    "type": "string",
                    "enum": ["celsius", "fahrenheit"],
                    "description": "celsius: Degrees Celsius.\nfahrenheit: Degrees Fahrenheit.",
                    "nullable": true,
                },
                "shape": {"anyOf": [
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "enum": ["circle"]},
                            "radius": {"type": "number", "format": "double"},
                        },
                        "required": ["kind", "radius"],
                    },
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "enum": ["square"]},
                            "side": {"type": "number", "format": "double"},
                        },
                        "required": ["kind", "side"],
                    },
                ]},
            },
            "required": ["color", "shape"],
        })
    );
}

/// A `Tree` as Gemini gets it: `levels` more levels, then the cut-off `{"type":"object"}`.
fn gemini_tree(levels: usize) -> Value {
    let items = match levels {
        0 => json!({"type": "object"}),
        _ => gemini_tree(levels - 1),
    };
    json!({
        "type": "object",
        "properties": {
            "value": {"type": "integer", "format": "int32"},
            "children": {"type": "array", "items": items, "description": "Sub trees."},
        },
        "required": ["value", "children"],
    })
}

#[test]
fn gemini_cuts_recursive_types_eight_refs_deep() {
    // The root and eight inlined levels below it; the ninth `$ref` is `{"type":"object"}`.
    assert_eq!(gemini(&schema_of::<Tree>()), gemini_tree(8));
    let mut maybe = gemini_tree(7);
    maybe["nullable"] = json!(true);
    assert_eq!(
        gemini(&schema_of::<Forest>()),
        json!({
            "type": "object",
            "properties": {"root": gemini_tree(7), "maybe": maybe},
            "required": ["root"],
        })
    );
}

#[test]
fn gemini_maps_tuples_and_optional_lists() {
    // The Gemini API takes no `additionalProperties`: a map is an object of unknown keys.
    assert_eq!(
        gemini(&schema_of::<Maps>()),
        json!({
            "type": "object",
            "properties": {
                "counts": {"type": "object"},
                "labels": {"type": "object", "nullable": true},
            },
            "required": ["counts"],
        })
    );
    assert_eq!(
        gemini(&schema_of::<Misc>()),
        json!({
            "type": "object",
            "properties": {
                "pair": {
                    "type": "array",
                    "items": {"anyOf": [{"type": "integer", "format": "int32"}, {"type": "string"}]},
                    "minItems": 2,
                    "maxItems": 2,
                },
                "n": {"type": "integer", "nullable": true, "minimum": 0, "maximum": 255},
                "colors": {
                    "type": "array",
                    "nullable": true,
                    "items": {"type": "string", "enum": ["Red", "Green", "Blue"]},
                },
            },
            "required": ["pair"],
        })
    );
}

#[test]
fn gemini_rewrites_draft_07_and_keywords_it_rejects() {
    assert_eq!(
        gemini(&hostile_schemas()[9]),
        json!({
            "type": "object",
            "properties": {
                "when": {"type": "string", "format": "date-time"},
                "site": {"type": "string", "minLength": 3},
                "point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}},
                "pair": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "number"}]}},
                "level": {"type": "integer", "minimum": 1, "maximum": 9},
                "ratio": {"type": "number", "minimum": 1},
                "code": {"description": "Allowed values: 1, 2, 3."},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "nothing": {"nullable": true},
                "never": {},
                "mixed": {"type": "string", "nullable": true},
                "not": {},
                "if": {},
                "both": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                    "required": ["a", "b"],
                },
            },
            "required": ["when"],
        })
    );
}

#[test]
fn gemini_survives_cycles_and_blow_ups() {
    let hostile = hostile_schemas();
    let cyclic = gemini(&hostile[8]);
    assert_eq!(
        cyclic["properties"],
        json!({
            // `A` is only a `$ref` to itself: eight hops, then the cut-off.
            "self": {"type": "object", "description": "loops"},
            "alias": {"type": "object", "title": "b"},
            "dangling": {"description": "gone"},
            "remote": {"title": "remote"},
            "bad": {},
            "odd": {},
        })
    );
    assert_eq!(cyclic["required"], json!(["self"]));
    assert_eq!(
        gemini(&hostile[10]),
        json!({
            "type": "object",
            "properties": {
                "odd": {"type": "string"},
                "num": {"type": "number"},
                "empty": {},
                "bare": {},
            },
            "required": ["odd", "num"],
        })
    );
    let fan_out = gemini(&hostile[7]).to_string();
    assert!(fan_out.len() < 200_000, "{} bytes", fan_out.len());
    for value in &hostile[..5] {
        assert_eq!(
            gemini(value),
            json!({"type": "object", "properties": {}}),
            "{value}"
        );
    }
}
