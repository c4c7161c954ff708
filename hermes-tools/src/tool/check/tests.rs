//! The rules of the schema check, one test per rule, and the meta-schema oracle.

use serde_json::{Value, json};

use super::*;

fn refused(schema: &Value) -> SchemaFault {
    match check_parameters(schema) {
        Ok(()) => panic!("{schema} passed"),
        Err(fault) => fault,
    }
}

fn object_with(property: Value) -> Value {
    json!({"type": "object", "properties": {"x": property}})
}

#[test]
fn object_schemas_pass() {
    for schema in [
        json!({"type": "object", "properties": {}}),
        json!({"type": "object"}),
        json!({"properties": {"a": {"type": "string"}}}),
        json!({}),
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "when": {"$ref": "#/$defs/When"},
                "tags": {"type": "array", "prefixItems": [{"type": "string"}], "items": false},
                "n": {"type": ["integer", "null"], "minimum": 0, "maxItems": 2.0},
                "self": {"$ref": "#"},
                "odd": {"$ref": "#/$defs/a~1b~0c"}
            },
            "required": ["when"],
            "additionalProperties": false,
            "$defs": {"When": {"type": "string", "format": "date-time"}, "a/b~c": true},
            "x-vendor": {"anything": [1, 2, 3]}
        }),
    ] {
        assert_eq!(check_parameters(&schema), Ok(()), "{schema}");
    }
}

#[test]
fn a_root_that_is_not_an_object_schema_is_refused_at_the_root() {
    for (schema, says) in [
        (json!(42), "the number 42"),
        (json!(null), "null"),
        (json!(false), "false"),
        (json!(true), "true"),
        (json!("object"), "the string \"object\""),
        (json!([{"type": "object"}]), "an array"),
    ] {
        let fault = refused(&schema);
        assert_eq!(fault.pointer, "", "{schema}");
        assert!(fault.problem.contains(says), "{fault:?}");
        assert!(
            fault.problem.contains("{\"type\": \"object\""),
            "says what to write: {fault:?}"
        );
    }
}

#[test]
fn a_root_of_another_type_is_refused_at_its_type() {
    for schema in [
        json!({"type": "array", "items": {"type": "string"}}),
        json!({"type": "string"}),
        json!({"type": ["object", "null"], "properties": {}}),
    ] {
        let fault = refused(&schema);
        assert_eq!(fault.pointer, "/type", "{schema}");
        assert!(
            fault.problem.contains("use \"type\": \"object\""),
            "{fault:?}"
        );
    }
    let fault = refused(&json!({"description": "No type, no properties."}));
    assert_eq!(fault.pointer, "");
    assert!(
        fault.problem.contains("add \"type\": \"object\""),
        "{fault:?}"
    );
}

#[test]
fn keywords_of_the_wrong_shape_are_refused_where_they_are() {
    let cases = [
        (
            json!({"type": 7}),
            "/properties/x/type",
            "\"type\" must be one of",
        ),
        (
            json!({"type": "text"}),
            "/properties/x/type",
            "not \"text\"",
        ),
        (json!({"type": []}), "/properties/x/type", "non-empty array"),
        (
            json!({"type": ["string", "string"]}),
            "/properties/x/type",
            "distinct",
        ),
        (
            json!({"properties": []}),
            "/properties/x/properties",
            "object whose values are schemas",
        ),
        (
            json!({"properties": {"a": 1}}),
            "/properties/x/properties/a",
            "object or a boolean",
        ),
        (
            json!({"items": [{"type": "string"}]}),
            "/properties/x/items",
            "object or a boolean",
        ),
        (
            json!({"anyOf": []}),
            "/properties/x/anyOf",
            "non-empty array of schemas",
        ),
        (
            json!({"allOf": [true, 3]}),
            "/properties/x/allOf/1",
            "the number 3",
        ),
        (
            json!({"required": ["a", "a"]}),
            "/properties/x/required",
            "distinct strings",
        ),
        (
            json!({"required": "a"}),
            "/properties/x/required",
            "distinct strings",
        ),
        (
            json!({"minLength": -1}),
            "/properties/x/minLength",
            "at least 0",
        ),
        (
            json!({"maxItems": 1.5}),
            "/properties/x/maxItems",
            "integer",
        ),
        (
            json!({"multipleOf": 0}),
            "/properties/x/multipleOf",
            "greater than 0",
        ),
        (json!({"minimum": "3"}), "/properties/x/minimum", "a number"),
        (json!({"enum": "a"}), "/properties/x/enum", "an array"),
        (
            json!({"uniqueItems": "yes"}),
            "/properties/x/uniqueItems",
            "true or false",
        ),
        (
            json!({"description": 5}),
            "/properties/x/description",
            "a string",
        ),
        (
            json!({"$anchor": "1st"}),
            "/properties/x/$anchor",
            "starts with a letter",
        ),
        (json!({"$id": "a#b"}), "/properties/x/$id", "fragment"),
        (
            json!({"$vocabulary": {"v": 1}}),
            "/properties/x/$vocabulary",
            "true or false",
        ),
        (
            json!({"dependentRequired": {"a": [1]}}),
            "/properties/x/dependentRequired/a",
            "distinct strings",
        ),
        (
            json!({"dependencies": {"a": ["b", "b"]}}),
            "/properties/x/dependencies/a",
            "distinct strings",
        ),
        (
            json!({"dependencies": {"a": 3}}),
            "/properties/x/dependencies/a",
            "object or a boolean",
        ),
        (
            json!({"$defs": {"a/b": {"not": 1}}}),
            "/properties/x/$defs/a~1b/not",
            "object or a boolean",
        ),
    ];
    for (property, pointer, says) in cases {
        let fault = refused(&object_with(property.clone()));
        assert_eq!(fault.pointer, pointer, "{property}");
        assert!(fault.problem.contains(says), "{property}: {fault:?}");
    }
}

#[test]
fn refs_must_resolve_inside_the_schema() {
    let fault = refused(&object_with(json!({"$ref": "#/$defs/Missing"})));
    assert_eq!(fault.pointer, "/properties/x/$ref");
    assert!(fault.problem.contains("names nothing"), "{fault:?}");
    for external in [
        "other.json#/$defs/A",
        "https://example.com/schema.json",
        "#anchor",
    ] {
        let fault = refused(&object_with(json!({"$ref": external})));
        assert!(fault.problem.contains("not a local reference"), "{fault:?}");
    }
    let fault = refused(&object_with(json!({"$ref": 5})));
    assert!(fault.problem.contains("a string"), "{fault:?}");
}

/// `depth` arrays, one inside the other, with `{}` at the bottom.
fn nested(depth: usize) -> Value {
    let mut value = json!({});
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

/// Takes a deep [`nested`] value apart without recursion (dropping it whole would recurse
/// once per level).
fn dismantle(mut value: Value) {
    while let Value::Array(mut items) = value {
        match items.pop() {
            Some(inner) => value = inner,
            None => return,
        }
    }
}

#[test]
fn nesting_is_bounded_without_recursion() {
    // Root object (1) + "properties" (2) + "x" (3) + "enum" (4): the rest are arrays.
    let at_limit = object_with(json!({"enum": nested(MAX_SCHEMA_DEPTH - 4)}));
    assert_eq!(check_parameters(&at_limit), Ok(()));
    let over = object_with(json!({"enum": nested(MAX_SCHEMA_DEPTH - 3)}));
    let fault = refused(&over);
    assert!(fault.problem.contains("deeper than 64"), "{fault:?}");
    assert_eq!(
        fault.pointer,
        // The innermost `{}` is the 65th container: under 61 arrays, the first being `enum`.
        format!("/properties/x/enum{}", "/0".repeat(MAX_SCHEMA_DEPTH - 3))
    );

    let mut deep = object_with(json!({}));
    deep["properties"]["x"]["enum"] = nested(100_000);
    assert!(check_parameters(&deep).is_err());
    dismantle(deep["properties"]["x"]["enum"].take());
}

/// A tiny deterministic generator (xorshift), for the oracle test.
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Every keyword of the meta-schema, and some it does not know.
const KEYWORDS: &[&str] = &[
    "items",
    "contains",
    "additionalProperties",
    "propertyNames",
    "if",
    "then",
    "else",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
    "prefixItems",
    "allOf",
    "anyOf",
    "oneOf",
    "type",
    "enum",
    "examples",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "multipleOf",
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "uniqueItems",
    "deprecated",
    "readOnly",
    "writeOnly",
    "title",
    "description",
    "$comment",
    "format",
    "contentEncoding",
    "contentMediaType",
    "pattern",
    "$schema",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "required",
    "dependentRequired",
    "dependencies",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$id",
    "$vocabulary",
    "const",
    "default",
    "x-vendor",
    "nullable",
];

fn random_value(random: &mut Random, depth: usize) -> Value {
    let scalars = [
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(3),
        json!(-1),
        json!(2.0),
        json!(1.5),
        json!(0.0),
        json!(""),
        json!("a"),
        json!("string"),
        json!("object"),
        json!("_a-1.b"),
        json!("1bad"),
        json!("https://example.com/s"),
        json!("https://example.com/s#frag"),
        json!("#"),
        json!("x#"),
    ];
    match random.below(if depth == 0 { 1 } else { 6 }) {
        0..=2 => random.pick(&scalars).clone(),
        3 => random_schema(random, depth - 1),
        4 => Value::Array(
            (0..random.below(4))
                .map(|_| match random.below(3) {
                    0 => random
                        .pick(&[json!("a"), json!("b"), json!("string"), json!("null")])
                        .clone(),
                    1 => random_schema(random, depth - 1),
                    _ => random_value(random, depth - 1),
                })
                .collect(),
        ),
        _ => Value::Object(
            (0..random.below(3))
                .map(|i| {
                    let value = if random.below(2) == 0 {
                        random_schema(random, depth - 1)
                    } else {
                        random_value(random, depth - 1)
                    };
                    (format!("k{i}"), value)
                })
                .collect(),
        ),
    }
}

fn random_schema(random: &mut Random, depth: usize) -> Value {
    if random.below(6) == 0 {
        return Value::Bool(random.below(2) == 0);
    }
    let mut object = Map::new();
    for _ in 0..random.below(3) + 1 {
        let keyword = *random.pick(KEYWORDS);
        // `"#"` always resolves, so the oracle (which knows nothing of rule 3) agrees on refs.
        let value = match keyword {
            "$ref" if random.below(4) != 0 => json!("#"),
            "$ref" => random.pick(&[json!(5), json!(null), json!(["#"])]).clone(),
            _ => random_value(random, depth),
        };
        object.insert(keyword.to_owned(), value);
    }
    Value::Object(object)
}

#[test]
fn the_meta_schema_check_agrees_with_the_jsonschema_crate() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let (mut valid, mut invalid) = (0, 0);
    for _ in 0..20_000 {
        let property = random_schema(&mut random, 3);
        let schema = object_with(property);
        let ours = check_parameters(&schema);
        let oracle = jsonschema::draft202012::meta::validate(&schema);
        // Rule 6 (`required` naming no property) is beyond the meta-schema: valid to it.
        let ours = match ours {
            Err(fault) if fault.problem.contains("which is not in \"properties\"") => Ok(()),
            other => other,
        };
        assert_eq!(
            ours.is_ok(),
            oracle.is_ok(),
            "{schema}\nours: {ours:?}\njsonschema: {oracle:?}"
        );
        if ours.is_ok() {
            valid += 1;
        } else {
            invalid += 1;
        }
    }
    // Both sides of the line are exercised, not just one.
    assert!(
        valid > 2_000 && invalid > 2_000,
        "{valid} valid, {invalid} invalid"
    );
}
