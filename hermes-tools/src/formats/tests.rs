//! Tests of every format on realistic schemars schemas, hostile schemas, and openai-python.

use std::collections::HashMap;
use std::process::{Command, Stdio};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::*;

/// The openai-python release the pinned expectations and `strict::ensure_strict` follow.
const OPENAI_VERSION: &str = "3.57.0";

/// What the crate publishes for `T`: schemars' Draft 2020-12 schema without `$schema` and
/// `title`, with `properties` even when empty.
fn schema_of<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    let root = schema.as_object_mut().expect("schemars gives an object");
    root.remove("$schema");
    root.remove("title");
    root.entry("properties").or_insert_with(|| json!({}));
    schema
}

#[allow(dead_code)]
mod shapes {
    use super::*;

    #[derive(JsonSchema, Deserialize)]
    pub struct Primitives {
        /// How many.
        count: u8,
        big: i64,
        size: usize,
        ratio: f64,
        small: f32,
        name: String,
        flag: bool,
    }

    #[derive(JsonSchema, Deserialize)]
    pub struct Optionals {
        /// A nickname.
        nickname: Option<String>,
        age: Option<u32>,
        #[serde(default)]
        retries: u32,
        #[serde(default = "five")]
        limit: u16,
    }

    fn five() -> u16 {
        5
    }

    #[derive(JsonSchema, Deserialize)]
    pub struct Constrained {
        #[schemars(length(max = 5))]
        tags: Vec<String>,
        #[schemars(length(min = 1, max = 20), regex(pattern = "^[a-z]+$"))]
        slug: String,
        #[schemars(range(min = 1, max = 10))]
        level: i32,
    }

    #[derive(JsonSchema, Deserialize)]
    pub struct Address {
        street: String,
        city: String,
    }

    #[derive(JsonSchema, Deserialize)]
    pub struct Nested {
        /// Home address.
        home: Address,
        /// Work address, if any.
        work: Option<Address>,
        other: Option<Address>,
    }

    #[derive(JsonSchema, Deserialize)]
    pub enum Color {
        Red,
        Green,
        Blue,
    }

    #[derive(JsonSchema, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Unit {
        /// Degrees Celsius.
        Celsius,
        /// Degrees Fahrenheit.
        Fahrenheit,
    }

    #[derive(JsonSchema, Deserialize)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    pub enum Shape {
        Circle { radius: f64 },
        Square { side: f64 },
    }

    #[derive(JsonSchema, Deserialize)]
    pub struct Enums {
        color: Color,
        unit: Option<Unit>,
        shape: Shape,
    }

    #[derive(JsonSchema, Deserialize)]
    pub struct Tree {
        value: i32,
        /// Sub trees.
        children: Vec<Tree>,
    }

    #[derive(JsonSchema, Deserialize)]
    pub struct Forest {
        root: Tree,
        maybe: Option<Box<Tree>>,
    }

    #[derive(JsonSchema, Deserialize)]
    pub struct Maps {
        counts: HashMap<String, u32>,
        labels: Option<HashMap<String, Address>>,
    }

    #[derive(JsonSchema, Deserialize)]
    pub struct NoArgs {}

    #[derive(JsonSchema, Deserialize)]
    pub struct Misc {
        pair: (i32, String),
        n: Option<u8>,
        colors: Option<Vec<Color>>,
    }
}

use shapes::*;

/// Every realistic shape, named.
fn all_shapes() -> Vec<(&'static str, Value)> {
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
fn hostile_schemas() -> Vec<Value> {
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

fn assert_meta_valid(schema: &Value, context: &str) {
    if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
        panic!("{context}: not a Draft 2020-12 schema: {error}\n{schema:#}");
    }
}

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
fn assert_openapi_30(schema: &Value, path: &str) {
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
fn assert_strict(schema: &Value, path: &str) {
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

// --- names -----------------------------------------------------------------------------

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

// --- definitions -----------------------------------------------------------------------

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
fn openai_responses_and_anthropic_pass_parameters_through() {
    let mut inputs: Vec<Value> = all_shapes().into_iter().map(|(_, schema)| schema).collect();
    inputs.extend(hostile_schemas());
    for schema in &inputs {
        for format in [Format::OpenAi, Format::Responses, Format::Anthropic] {
            assert_eq!(&parameters_for(format, schema), schema, "{format}");
        }
    }
}

#[test]
fn mcp_keeps_the_schema_and_makes_the_root_an_object() {
    for (name, schema) in all_shapes() {
        assert_eq!(parameters_for(Format::Mcp, &schema), schema, "{name}");
    }
    let draft7 = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {"p": {"$ref": "#/definitions/P"}},
        "definitions": {"P": {"type": "string"}},
    });
    let mut expected = draft7.clone();
    expected["type"] = json!("object");
    assert_eq!(parameters_for(Format::Mcp, &draft7), expected);
    assert_eq!(
        parameters_for(Format::Mcp, &json!({"type": "string"}))["type"],
        "object"
    );
    assert_eq!(
        parameters_for(Format::Mcp, &Value::Null),
        json!({"type": "object", "properties": {}})
    );
}

// --- every format, every shape ---------------------------------------------------------

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
fn gemini_parameters_are_openapi_3_schema_objects() {
    let mut inputs: Vec<Value> = all_shapes().into_iter().map(|(_, schema)| schema).collect();
    inputs.extend(hostile_schemas());
    for schema in &inputs {
        assert_openapi_30(&parameters_for(Format::Gemini, schema), "");
    }
}

#[test]
fn strict_parameters_close_every_object_and_keep_only_supported_keywords() {
    for (name, schema) in all_shapes() {
        let strict = parameters_for(Format::OpenAiStrict, &schema);
        assert_strict(&strict, name);
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

// --- openai-strict, exact --------------------------------------------------------------

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

// --- gemini, exact ---------------------------------------------------------------------

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

// --- openai-python ---------------------------------------------------------------------

/// A python3 that can `import openai`: `$HERMES_PYTHON`, else `python3`.
fn python_with_openai() -> String {
    let candidates = std::env::var("HERMES_PYTHON")
        .into_iter()
        .chain(["python3".to_owned()]);
    for python in candidates {
        let imports = Command::new(&python)
            .args(["-c", "import openai"])
            .output()
            .is_ok_and(|output| output.status.success());
        if imports {
            return python;
        }
    }
    panic!(
        "no python3 here can `import openai`, which this test runs against: \
             `pip install openai=={OPENAI_VERSION}`, or point HERMES_PYTHON at a python that has it"
    );
}

/// openai-python's `_ensure_strict_json_schema` on each schema, as `to_strict_json_schema`
/// calls it, with the openai version.
fn openai_strict(python: &str, schemas: &[Value]) -> (Vec<Value>, String) {
    const SCRIPT: &str = "
import json, sys, openai
from openai.lib._pydantic import _ensure_strict_json_schema
out = [_ensure_strict_json_schema(s, path=(), root=s) for s in json.load(sys.stdin)]
json.dump({'version': openai.__version__, 'schemas': out}, sys.stdout)
";
    let mut child = Command::new(python)
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    let input = serde_json::to_vec(schemas).expect("schemas serialize");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &input).expect("write");
    let output = child.wait_with_output().expect("python runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "openai-python failed: {stderr}");
    let mut answer: Value = serde_json::from_slice(&output.stdout).expect("python prints JSON");
    let version = answer["version"].as_str().unwrap_or_default().to_owned();
    let Value::Array(schemas) = answer["schemas"].take() else {
        panic!("no schemas in {answer}");
    };
    (schemas, version)
}

/// `strict::ensure_strict` must give what openai-python gives, on what `strict::prepare`
/// makes of every shape (openai-python's input after our deliberate differences) and on
/// hand-written schemas that exercise each of its rules directly.
#[test]
fn strict_matches_openai_to_strict_json_schema() {
    let python = python_with_openai();
    let mut inputs: Vec<Value> = all_shapes()
        .iter()
        .map(|(_, schema)| {
            let root = Value::Object(object_root(schema));
            strict::prepare(&root, &root, 0)
        })
        .collect();
    inputs.extend([
            json!({
                "type": "object",
                "properties": {
                    "one": {"allOf": [{"$ref": "#/$defs/B"}], "description": "Just B."},
                    "list": {"type": "array", "items": {"$ref": "#/$defs/B", "title": "B"}},
                    "either": {"anyOf": [{"$ref": "#/$defs/B", "description": "b"}, {"type": "null"}]},
                    "none": {"type": ["string", "null"], "default": null},
                    "open": {"type": "object", "additionalProperties": true},
                },
                "$defs": {"B": {"type": "object", "properties": {"b": {"type": "integer", "default": 1}}}},
            }),
            json!({
                "type": "object",
                "properties": {"p": {"$ref": "#/definitions/P", "description": "A point."}},
                "definitions": {"P": {"type": "object", "properties": {"x": {"type": "number"}}}},
            }),
        ]);
    let (expected, version) = openai_strict(&python, &inputs);
    assert_eq!(expected.len(), inputs.len());
    for (input, expected) in inputs.iter().zip(expected) {
        let ours = strict::ensure_strict(input.clone(), input, &mut Default::default(), 0);
        assert_eq!(
            ours, expected,
            "differs from openai-python {version} on {input}"
        );
    }
}
