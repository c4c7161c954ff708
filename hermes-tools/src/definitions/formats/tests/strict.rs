//! `openai-strict`: every object closed and fully required, only the keywords strict mode
//! supports, and exactly what openai-python gives (its port is checked against openai-python
//! itself in tests/tests/strict_schema_interop.rs).

use serde_json::{Value, json};

use super::common::{all_shapes, hostile_schemas, schema_of};
use super::shapes::*;
use crate::definitions::formats::{Format, parameters_for, type_names};

/// Keywords OpenAI strict mode supports ("Supported schemas").
const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// Asserts every object in `schema` is closed and requires all its properties, no keyword
/// strict mode rejects appears, and no `$ref` has siblings.
pub(super) fn assert_strict(schema: &Value, path: &str) {
    let map = schema
        .as_object()
        .unwrap_or_else(|| panic!("{path}: strict mode needs a schema object: {schema}"));
    for key in map.keys() {
        assert!(
            STRICT_KEYWORDS.contains(&key.as_str()),
            "{path}/{key}: rejected in strict mode"
        );
    }
    assert!(
        !map.contains_key("$ref") || map.len() == 1,
        "{path}: $ref with siblings"
    );
    if let Some(format) = map.get("format") {
        let supported = [
            "date-time",
            "time",
            "date",
            "duration",
            "email",
            "hostname",
            "ipv4",
            "ipv6",
            "uuid",
        ];
        assert!(
            supported.contains(&format.as_str().unwrap_or_default()),
            "{path}/format: {format}"
        );
    }
    if type_names(map).contains(&"object") || map.contains_key("properties") {
        assert_eq!(
            map.get("additionalProperties"),
            Some(&json!(false)),
            "{path}: open object"
        );
        let properties = map["properties"]
            .as_object()
            .expect("objects have properties");
        let names: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
        assert_eq!(
            map.get("required"),
            Some(&Value::Array(names)),
            "{path}: required"
        );
    }
    let children = ["properties", "$defs", "definitions"]
        .iter()
        .filter_map(|key| {
            map.get(*key)?
                .as_object()
                .map(|m| (key, m.iter().collect::<Vec<_>>()))
        });
    for (key, schemas) in children {
        for (name, child) in schemas {
            assert_strict(child, &format!("{path}/{key}/{name}"));
        }
    }
    if let Some(items) = map.get("items") {
        assert_strict(items, &format!("{path}/items"));
    }
    for (index, variant) in map
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        assert_strict(variant, &format!("{path}/anyOf/{index}"));
    }
}

#[test]
fn strict_parameters_close_every_object_and_keep_only_supported_keywords() {
    for (name, schema) in all_shapes() {
        let strict = parameters_for(Format::OpenAiStrict, &schema);
        assert_strict(&strict, name);
    }
}

fn strict(schema: &Value) -> Value {
    parameters_for(Format::OpenAiStrict, schema)
}

#[test]
fn strict_primitives_lose_integer_and_number_formats() {
    // openai-python keeps `format: uint8` etc.; strict mode supports string formats only.
    assert_eq!(
        strict(&schema_of::<Primitives>()),
        json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "minimum": 0, "maximum": 255, "description": "How many."},
                "big": {"type": "integer"},
                "size": {"type": "integer", "minimum": 0},
                "ratio": {"type": "number"},
                "small": {"type": "number"},
                "name": {"type": "string"},
                "flag": {"type": "boolean"},
            },
            "required": ["count", "big", "size", "ratio", "small", "name", "flag"],
            "additionalProperties": false,
        })
    );
}

#[test]
fn strict_optional_and_defaulted_fields_become_required_nullable() {
    // openai-python gives `retries`/`limit` as `{"type": "integer", "default": ...}`:
    // required but not nullable, so the model could never leave them to their default,
    // and with `default`, which strict mode rejects. Here they accept null, which dispatch
    // reads as "left out".
    assert_eq!(
        strict(&schema_of::<Optionals>()),
        json!({
            "type": "object",
            "properties": {
                "nickname": {"type": ["string", "null"], "description": "A nickname."},
                "age": {"type": ["integer", "null"], "minimum": 0},
                "retries": {"type": ["integer", "null"], "minimum": 0},
                "limit": {"type": ["integer", "null"], "minimum": 0, "maximum": 65535},
            },
            "required": ["nickname", "age", "retries", "limit"],
            "additionalProperties": false,
        })
    );
}

#[test]
fn strict_keeps_item_and_number_bounds_and_pattern_but_not_string_lengths() {
    // `minLength`/`maxLength` are not among the supported string properties.
    assert_eq!(
        strict(&schema_of::<Constrained>()),
        json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
                "slug": {"type": "string", "pattern": "^[a-z]+$"},
                "level": {"type": "integer", "minimum": 1, "maximum": 10},
            },
            "required": ["tags", "slug", "level"],
            "additionalProperties": false,
        })
    );
}

#[test]
fn strict_nested_struct_is_what_openai_python_gives() {
    // Pinned from openai-python 3.57.0's `_ensure_strict_json_schema` on the same schema:
    // the documented `$ref` is inlined, the `Option`s stay `anyOf` with a bare `$ref`.
    assert_eq!(
        strict(&schema_of::<Nested>()),
        json!({
            "type": "object",
            "properties": {
                "home": {
                    "description": "Home address.",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
                    "required": ["street", "city"],
                    "additionalProperties": false,
                },
                "work": {
                    "anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}],
                    "description": "Work address, if any.",
                },
                "other": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}]},
            },
            "required": ["home", "work", "other"],
            "$defs": {
                "Address": {
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
                    "required": ["street", "city"],
                    "additionalProperties": false,
                },
            },
            "additionalProperties": false,
        })
    );
}

#[test]
fn strict_enums_use_any_of_and_close_tagged_variants() {
    // openai-python leaves `oneOf` as it is and does not look inside it, so its tagged
    // variants stay open objects; strict mode supports `anyOf` only.
    assert_eq!(
        strict(&schema_of::<Enums>()),
        json!({
            "type": "object",
            "properties": {
                "color": {"$ref": "#/$defs/Color"},
                "unit": {"anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}]},
                "shape": {"$ref": "#/$defs/Shape"},
            },
            "required": ["color", "unit", "shape"],
            "$defs": {
                "Color": {"type": "string", "enum": ["Red", "Green", "Blue"]},
                "Unit": {"anyOf": [
                    {"type": "string", "const": "celsius", "description": "Degrees Celsius."},
                    {"type": "string", "const": "fahrenheit", "description": "Degrees Fahrenheit."},
                ]},
                "Shape": {"anyOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"type": "string", "const": "circle"}, "radius": {"type": "number"}},
                        "required": ["kind", "radius"],
                        "additionalProperties": false,
                    },
                    {
                        "type": "object",
                        "properties": {"kind": {"type": "string", "const": "square"}, "side": {"type": "number"}},
                        "required": ["kind", "side"],
                        "additionalProperties": false,
                    },
                ]},
            },
            "additionalProperties": false,
        })
    );
}

#[test]
fn strict_recursive_types_keep_their_refs() {
    // As openai-python gives them, less `format: int32`.
    assert_eq!(
        strict(&schema_of::<Tree>()),
        json!({
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#"}, "description": "Sub trees."},
            },
            "required": ["value", "children"],
            "additionalProperties": false,
        })
    );
    let tree = json!({
        "type": "object",
        "properties": {
            "value": {"type": "integer"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}, "description": "Sub trees."},
        },
        "required": ["value", "children"],
        "additionalProperties": false,
    });
    assert_eq!(
        strict(&schema_of::<Forest>()),
        json!({
            "type": "object",
            "properties": {
                "root": {"$ref": "#/$defs/Tree"},
                "maybe": {"anyOf": [{"$ref": "#/$defs/Tree"}, {"type": "null"}]},
            },
            "required": ["root", "maybe"],
            "$defs": {"Tree": tree},
            "additionalProperties": false,
        })
    );
}

#[test]
fn strict_maps_become_closed_empty_objects() {
    // Strict mode has no `additionalProperties` but `false`, so a map can hold no key;
    // openai-python keeps `additionalProperties: {schema}`, which the API rejects.
    assert_eq!(
        strict(&schema_of::<Maps>()),
        json!({
            "type": "object",
            "properties": {
                "counts": {"type": "object", "properties": {}, "required": [], "additionalProperties": false},
                "labels": {"type": ["object", "null"], "properties": {}, "required": [], "additionalProperties": false},
            },
            "required": ["counts", "labels"],
            "$defs": {
                "Address": {
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
                    "required": ["street", "city"],
                    "additionalProperties": false,
                },
            },
            "additionalProperties": false,
        })
    );
}

#[test]
fn strict_tuples_and_optional_lists() {
    assert_eq!(
        strict(&schema_of::<Misc>()),
        json!({
            "type": "object",
            "properties": {
                "pair": {
                    "type": "array",
                    "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                    "minItems": 2,
                    "maxItems": 2,
                },
                "n": {"type": ["integer", "null"], "minimum": 0, "maximum": 255},
                "colors": {"type": ["array", "null"], "items": {"$ref": "#/$defs/Color"}},
            },
            "required": ["pair", "n", "colors"],
            "$defs": {"Color": {"type": "string", "enum": ["Red", "Green", "Blue"]}},
            "additionalProperties": false,
        })
    );
}

#[test]
fn strict_rewrites_what_strict_mode_rejects() {
    let schema = json!({
        "type": "object",
        "properties": {
            "site": {"type": "string", "format": "uri", "minLength": 1},
            "when": {"type": "string", "format": "date-time", "default": "now"},
            "both": {"allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"$ref": "#/$defs/B"},
            ]},
            "one": {"allOf": [{"$ref": "#/$defs/B"}], "description": "Just B."},
            "pick": {"enum": ["x", "y"]},
            "same": {"not": {"type": "string"}, "uniqueItems": true, "examples": [1]},
        },
        "required": ["site", "when", "both", "one", "pick", "same"],
        "$defs": {"B": {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}},
    });
    let b = json!({
        "type": "object",
        "properties": {"b": {"type": "integer"}},
        "required": ["b"],
        "additionalProperties": false,
    });
    assert_eq!(
        strict(&schema),
        json!({
            "type": "object",
            "properties": {
                "site": {"type": "string"},
                "when": {"type": "string", "format": "date-time"},
                "both": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                    "required": ["a", "b"],
                    "additionalProperties": false,
                },
                "one": {
                    "type": "object",
                    "properties": {"b": {"type": "integer"}},
                    "required": ["b"],
                    "additionalProperties": false,
                    "description": "Just B.",
                },
                "pick": {"enum": ["x", "y"]},
                "same": {},
            },
            "required": ["site", "when", "both", "one", "pick", "same"],
            "$defs": {"B": b},
            "additionalProperties": false,
        })
    );
}

#[test]
fn strict_nullable_keeps_enums_and_refs_exact() {
    let schema = json!({
        "type": "object",
        "properties": {
            "unit": {"type": "string", "enum": ["c", "f"]},
            "point": {"$ref": "#/$defs/P", "description": "Where."},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "fixed": {"const": 3},
        },
        "$defs": {"P": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}},
    });
    assert_eq!(
        strict(&schema)["properties"],
        json!({
            "unit": {"anyOf": [{"type": "string", "enum": ["c", "f"]}, {"type": "null"}]},
            "point": {"description": "Where.", "anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            "fixed": {"anyOf": [{"const": 3}, {"type": "null"}]},
        })
    );
}

#[test]
fn strict_survives_cycles_and_blow_ups() {
    let hostile = hostile_schemas();
    let cyclic = strict(&hostile[8]);
    // A `$ref` with siblings that reaches itself is kept bare instead of inlined forever.
    assert_eq!(cyclic["$defs"]["A"], json!({"$ref": "#/$defs/A"}));
    assert_eq!(cyclic["properties"]["self"], json!({"$ref": "#/$defs/A"}));
    // Not a schema: no constraint, and optional, so null too.
    let any_or_null = json!({"anyOf": [{}, {"type": "null"}]});
    assert_eq!(cyclic["properties"]["bad"], any_or_null);
    assert_eq!(cyclic["properties"]["odd"], any_or_null);
    // Twelve levels of three documented refs each would inline 3^12 copies.
    let fan_out = strict(&hostile[7]).to_string();
    assert!(fan_out.len() < 200_000, "{} bytes", fan_out.len());
    // Non-object parameters are read as no parameters.
    let closed =
        json!({"type": "object", "properties": {}, "additionalProperties": false, "required": []});
    for value in &hostile[..5] {
        assert_eq!(strict(value), closed, "{value}");
    }
    // Ill-typed keywords are dropped, not copied into an invalid schema.
    assert_eq!(
        strict(&hostile[10]),
        json!({
            "type": "object",
            "properties": {
                "odd": {"type": "string"},
                "num": {"type": "number"},
                "empty": {"anyOf": [{}, {"type": "null"}]},
                "bare": {"anyOf": [{}, {"type": "null"}]},
            },
            "required": ["odd", "num", "empty", "bare"],
            "additionalProperties": false,
        })
    );
    // `true` (any value) cannot be said in strict mode and is left for the API to refuse.
    let any = json!({"type": "object", "properties": {"any": true}, "required": ["any"]});
    assert_eq!(strict(&any)["properties"]["any"], json!(true));
}
