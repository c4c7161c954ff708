//! Input schemas of MCP tools, made into the parameter schemas our own tools have.
//!
//! MCP servers publish JSON Schema of any draft (the TypeScript SDK writes draft-07 with a
//! `$schema` in every `inputSchema`), sometimes without `type`, sometimes with `required`
//! naming properties that do not exist, sometimes with no schema at all. Providers want a
//! Draft 2020-12 object schema, and some reject the rest with an HTTP 400 that takes every
//! tool of the request down with it. [`normalise`] repairs what can be repaired:
//!
//! - `$schema` is removed wherever it appears;
//! - `definitions` becomes `$defs` (merged into an existing `$defs`), and every local `$ref`
//!   is rewritten to match, segment by segment, so a *property* named `definitions` is kept;
//! - draft-07 tuple `items: [..]` becomes `prefixItems`, with `additionalItems` as `items`;
//!   `dependencies` splits into `dependentRequired` and `dependentSchemas`; draft-04 boolean
//!   `exclusiveMinimum`/`exclusiveMaximum` become the numbers they qualify;
//! - a node with `properties` but no `type` gets `"type": "object"`, and the root is always
//!   an object schema with `properties` (`{"type":"object","properties":{}}` when the server
//!   sent nothing);
//! - in an object schema with `properties` (and at the root), `required` keeps only names of
//!   real properties, each once. A bare `{"required": [..]}` (in `anyOf`, say) constrains the
//!   enclosing object and is kept as is.
//!
//! The result is then [`check`]ed: every subschema is a schema, every keyword has the type
//! Draft 2020-12 gives it, and every local `$ref` resolves. A schema that still fails cannot be
//! fixed without guessing, and the tool is skipped and reported rather than published.
//!
//! (Example: the unit test `module_example_holds`.)

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::tool::schema::resolve_ref;

/// Keywords whose value maps names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is one schema.
const SCHEMA_VALUES: &[&str] = &[
    "items",
    "additionalProperties",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
/// Keywords whose value is a non-empty array of schemas.
const SCHEMA_ARRAYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value is a non-negative integer.
const COUNTS: &[&str] = &[
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minContains",
    "maxContains",
];
/// Keywords whose value is a number.
const NUMBERS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];
/// Keywords whose value is a string.
const STRINGS: &[&str] = &[
    "title",
    "description",
    "pattern",
    "format",
    "$comment",
    "contentEncoding",
    "contentMediaType",
    "$anchor",
];
/// The primitive types of JSON Schema.
const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "integer", "string",
];

/// Repairs a tool's input schema; `Err` says why it cannot be
/// published.
pub fn normalise(schema: Option<&Map<String, Value>>) -> Result<Value, String> {
    let Some(schema) = schema.filter(|schema| !schema.is_empty()) else {
        return Ok(json!({"type": "object", "properties": {}}));
    };
    let mut root = Value::Object(schema.clone());
    repair(&mut root)?;
    let Value::Object(object) = &mut root else {
        return Err("the input schema is not a JSON object".into());
    };
    match object.get("type") {
        None => {
            object.insert("type".into(), "object".into());
        }
        Some(Value::String(kind)) if kind == "object" => {}
        // `["object", "null"]`: tool arguments are always an object, so the rest can go.
        Some(Value::Array(kinds)) if kinds.iter().any(|kind| kind == "object") => {
            object.insert("type".into(), "object".into());
        }
        Some(other) => {
            return Err(format!(
                "the input schema has type {other}, but tool arguments are a JSON object"
            ));
        }
    }
    if !object.contains_key("properties") {
        object.insert("properties".into(), Value::Object(Map::new()));
    }
    // At the root, a name that is no property can only be a mistake: providers reject it.
    prune_required(object);
    check(&root)?;
    Ok(root)
}

/// Applies every repair to `schema` and, recursively, to its subschemas.
fn repair(schema: &mut Value) -> Result<(), String> {
    let Value::Object(object) = schema else {
        return Ok(());
    };
    object.remove("$schema");
    move_definitions(object)?;
    upgrade_draft7(object);
    if let Some(Value::String(reference)) = object.get_mut("$ref") {
        *reference = rewrite_ref(reference);
    }
    for (key, value) in object.iter_mut() {
        if SCHEMA_MAPS.contains(&key.as_str()) {
            if let Value::Object(map) = value {
                for sub in map.values_mut() {
                    repair(sub)?;
                }
            }
        } else if SCHEMA_VALUES.contains(&key.as_str()) {
            repair(value)?;
        } else if SCHEMA_ARRAYS.contains(&key.as_str())
            && let Value::Array(items) = value
        {
            for sub in items {
                repair(sub)?;
            }
        }
    }
    // Only a node with its own `properties` is an object schema for sure: `{"required": ["a"]}`
    // alone is a constraint on the enclosing object (in `anyOf`, `dependentSchemas`...), whose
    // properties it names, so it gets no type and keeps its `required`.
    if object.contains_key("properties") {
        if matches!(object.get("type"), None | Some(Value::Null)) {
            object.insert("type".into(), "object".into());
        }
        if object.get("type").is_some_and(|kind| kind == "object") {
            prune_required(object);
        }
    }
    Ok(())
}

/// `definitions` (draft-07) becomes `$defs` (Draft 2020-12); a name defined in both with
/// different schemas cannot be merged without breaking one side's references.
fn move_definitions(object: &mut Map<String, Value>) -> Result<(), String> {
    let Some(definitions) = object.remove("definitions") else {
        return Ok(());
    };
    let Value::Object(definitions) = definitions else {
        return Err("`definitions` is not an object of schemas".into());
    };
    let defs = object
        .entry("$defs")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(defs) = defs else {
        return Err("`$defs` is not an object of schemas".into());
    };
    for (name, schema) in definitions {
        match defs.get(&name) {
            Some(existing) if *existing != schema => {
                return Err(format!(
                    "`definitions` and `$defs` both define {name:?}, differently"
                ));
            }
            _ => {
                defs.insert(name, schema);
            }
        }
    }
    Ok(())
}

/// Draft-07 (and draft-04) keywords that Draft 2020-12 spells differently.
fn upgrade_draft7(object: &mut Map<String, Value>) {
    if matches!(object.get("items"), Some(Value::Array(_))) {
        if let Some(tuple) = object.remove("items") {
            object.insert("prefixItems".into(), tuple);
        }
        if let Some(rest) = object.remove("additionalItems") {
            object.insert("items".into(), rest);
        }
    } else {
        // Without tuple `items`, `additionalItems` never applied.
        object.remove("additionalItems");
    }
    if let Some(Value::Object(dependencies)) = object.remove("dependencies") {
        let (required, schemas): (Map<_, _>, Map<_, _>) = dependencies
            .into_iter()
            .partition(|(_, dependency)| dependency.is_array());
        for (keyword, map) in [
            ("dependentRequired", required),
            ("dependentSchemas", schemas),
        ] {
            if !map.is_empty() {
                object.insert(keyword.into(), Value::Object(map));
            }
        }
    }
    // Draft-04: `"maximum": 5, "exclusiveMaximum": true` is Draft 2020-12's `"exclusiveMaximum": 5`.
    for (bound, exclusive) in [
        ("minimum", "exclusiveMinimum"),
        ("maximum", "exclusiveMaximum"),
    ] {
        match object.get(exclusive) {
            Some(Value::Bool(true)) => {
                match object.remove(bound) {
                    Some(limit) => object.insert(exclusive.into(), limit),
                    None => object.remove(exclusive),
                };
            }
            Some(Value::Bool(false)) => {
                object.remove(exclusive);
            }
            _ => {}
        }
    }
}

/// Rewrites a local `$ref` from `definitions` to `$defs`, keyword segments only: in
/// `#/properties/definitions/...` the segment names a property and stays.
fn rewrite_ref(reference: &str) -> String {
    let Some(pointer) = reference.strip_prefix("#/") else {
        return reference.to_owned();
    };
    let mut out = String::from("#");
    let mut naming = false;
    for segment in pointer.split('/') {
        out.push('/');
        if naming {
            out.push_str(segment);
            naming = false;
            continue;
        }
        let keyword = if segment == "definitions" {
            "$defs"
        } else {
            segment
        };
        out.push_str(keyword);
        // The next segment is a name (or an index), not a keyword.
        naming = SCHEMA_MAPS.contains(&segment) || SCHEMA_ARRAYS.contains(&segment);
    }
    out
}

/// Keeps in `required` only the names of properties, each once.
fn prune_required(object: &mut Map<String, Value>) {
    let Some(Value::Array(required)) = object.get("required") else {
        return;
    };
    let properties = object.get("properties").and_then(Value::as_object);
    let mut seen = BTreeSet::new();
    let kept: Vec<Value> = required
        .iter()
        .filter_map(Value::as_str)
        .filter(|name| properties.is_some_and(|props| props.contains_key(*name)))
        .filter(|name| seen.insert(*name))
        .map(|name| Value::String(name.to_owned()))
        .collect();
    if kept.is_empty() {
        object.remove("required");
    } else {
        object.insert("required".into(), Value::Array(kept));
    }
}

/// Checks that `root` is a tool parameter schema: a Draft 2020-12 object schema whose
/// keywords have their types and whose local `$ref`s resolve. `Err` names the first fault by
/// its JSON pointer.
pub fn check(root: &Value) -> Result<(), String> {
    let Some(object) = root.as_object() else {
        return Err("the schema is not a JSON object".into());
    };
    if object.get("type").and_then(Value::as_str) != Some("object") {
        return Err("the schema's `type` is not \"object\"".into());
    }
    if !object.get("properties").is_some_and(Value::is_object) {
        return Err("the schema has no `properties` object".into());
    }
    check_node(root, root, "")
}

fn check_node(root: &Value, schema: &Value, at: &str) -> Result<(), String> {
    let object = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(object) => object,
        _ => {
            return Err(format!(
                "{}: a schema must be an object or a boolean",
                here(at)
            ));
        }
    };
    for (key, value) in object {
        let path = format!("{at}/{}", escape(key));
        let fault = |what: &str| Err(format!("{}: `{key}` must be {what}", here(at)));
        let key = key.as_str();
        if SCHEMA_MAPS.contains(&key) {
            let Value::Object(map) = value else {
                return fault("an object of schemas");
            };
            for (name, sub) in map {
                check_node(root, sub, &format!("{path}/{}", escape(name)))?;
            }
        } else if SCHEMA_VALUES.contains(&key) {
            check_node(root, value, &path)?;
        } else if SCHEMA_ARRAYS.contains(&key) {
            match value {
                Value::Array(items) if !items.is_empty() => {
                    for (index, sub) in items.iter().enumerate() {
                        check_node(root, sub, &format!("{path}/{index}"))?;
                    }
                }
                _ => return fault("a non-empty array of schemas"),
            }
        } else if COUNTS.contains(&key) {
            if value.as_u64().is_none() {
                return fault("a non-negative integer");
            }
        } else if NUMBERS.contains(&key) {
            let Some(number) = value.as_f64() else {
                return fault("a number");
            };
            if key == "multipleOf" && number <= 0.0 {
                return fault("greater than 0");
            }
        } else if STRINGS.contains(&key) {
            if !value.is_string() {
                return fault("a string");
            }
        } else {
            let expected = match key {
                "type" => check_type(value).err(),
                "required" if !unique_strings(value) => Some("an array of distinct strings"),
                "dependentRequired"
                    if !value
                        .as_object()
                        .is_some_and(|map| map.values().all(unique_strings)) =>
                {
                    Some("an object of arrays of distinct strings")
                }
                "enum" | "examples" if !value.is_array() => Some("an array"),
                "uniqueItems" | "readOnly" | "writeOnly" | "deprecated" if !value.is_boolean() => {
                    Some("a boolean")
                }
                "$ref" => match value.as_str() {
                    None => Some("a string"),
                    Some(reference) if resolve_ref(root, reference).is_none() => {
                        return Err(format!(
                            "{}: `$ref` {reference:?} does not resolve inside the schema",
                            here(at)
                        ));
                    }
                    Some(_) => None,
                },
                // Anything else (`default`, `const`, vendor keywords) constrains nothing here.
                _ => None,
            };
            if let Some(expected) = expected {
                return fault(expected);
            }
        }
    }
    Ok(())
}

fn check_type(value: &Value) -> Result<(), &'static str> {
    let known = |kind: &Value| kind.as_str().is_some_and(|kind| TYPES.contains(&kind));
    match value {
        Value::String(_) if known(value) => Ok(()),
        Value::Array(kinds)
            if !kinds.is_empty() && kinds.iter().all(known) && unique_strings(value) =>
        {
            Ok(())
        }
        _ => Err("a type name or a non-empty array of distinct type names"),
    }
}

fn unique_strings(value: &Value) -> bool {
    let Some(items) = value.as_array() else {
        return false;
    };
    let mut seen = BTreeSet::new();
    items
        .iter()
        .all(|item| item.as_str().is_some_and(|name| seen.insert(name)))
}

/// A property name as a JSON Pointer segment.
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn here(at: &str) -> String {
    if at.is_empty() {
        "at the root".to_owned()
    } else {
        format!("at {at}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(schema: Value) -> Result<Value, String> {
        normalise(schema.as_object())
    }

    #[test]
    fn a_missing_or_empty_schema_is_an_empty_object_schema() {
        let empty = json!({"type": "object", "properties": {}});
        assert_eq!(normalise(None), Ok(empty.clone()));
        assert_eq!(fix(json!({})), Ok(empty.clone()));
        assert_eq!(fix(json!({"type": "object"})), Ok(empty));
    }

    #[test]
    fn draft7_schema_keyword_goes_everywhere() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"a": {"$schema": "x", "type": "string"}}
        });
        assert_eq!(
            fix(schema),
            Ok(json!({"type": "object", "properties": {"a": {"type": "string"}}}))
        );
    }

    #[test]
    fn definitions_become_defs_and_refs_follow_but_property_names_stay() {
        let schema = json!({
            "type": "object",
            "properties": {
                "definitions": {"type": "array", "items": {"$ref": "#/definitions/Id"}},
                "nested": {"$ref": "#/properties/definitions"},
                "deep": {"$ref": "#/definitions/Box/definitions/Inner"}
            },
            "definitions": {
                "Id": {"type": "integer"},
                "Box": {
                    "type": "object",
                    "properties": {"inner": {"$ref": "#/definitions/Box/definitions/Inner"}},
                    "definitions": {"Inner": {"type": "string"}}
                }
            }
        });
        let fixed = fix(schema).unwrap();
        assert_eq!(
            fixed["properties"]["definitions"]["items"]["$ref"],
            "#/$defs/Id"
        );
        assert_eq!(
            fixed["properties"]["nested"]["$ref"],
            "#/properties/definitions"
        );
        assert_eq!(
            fixed["properties"]["deep"]["$ref"],
            "#/$defs/Box/$defs/Inner"
        );
        assert_eq!(
            fixed["$defs"]["Box"]["$defs"]["Inner"],
            json!({"type": "string"})
        );
        assert!(fixed.get("definitions").is_none());
    }

    #[test]
    fn definitions_merge_into_defs_unless_they_disagree() {
        let agree = json!({
            "properties": {},
            "definitions": {"A": {"type": "string"}},
            "$defs": {"A": {"type": "string"}, "B": {"type": "integer"}}
        });
        let fixed = fix(agree).unwrap();
        assert_eq!(
            fixed["$defs"],
            json!({"A": {"type": "string"}, "B": {"type": "integer"}})
        );
        let disagree = json!({
            "definitions": {"A": {"type": "string"}},
            "$defs": {"A": {"type": "integer"}}
        });
        let err = fix(disagree).unwrap_err();
        assert!(err.contains("\"A\""), "{err}");
    }

    #[test]
    fn missing_types_become_object_where_properties_say_so() {
        let schema = json!({
            "properties": {
                "filter": {"properties": {"tag": {"type": "string"}}, "required": ["tag"]},
                "free": {"description": "Anything."}
            }
        });
        let fixed = fix(schema).unwrap();
        assert_eq!(fixed["type"], "object");
        assert_eq!(fixed["properties"]["filter"]["type"], "object");
        assert!(fixed["properties"]["free"].get("type").is_none());
    }

    #[test]
    fn bare_required_constraints_are_kept() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "anyOf": [{"required": ["a"]}, {"required": ["b"]}]
        });
        assert_eq!(fix(schema.clone()), Ok(schema));
    }

    #[test]
    fn required_keeps_real_properties_once() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {}, "b": {}},
            "required": ["a", "ghost", "a", 7, "b"]
        });
        assert_eq!(fix(schema).unwrap()["required"], json!(["a", "b"]));
        let all_ghosts = json!({"type": "object", "properties": {}, "required": ["x"]});
        assert!(fix(all_ghosts).unwrap().get("required").is_none());
        let no_properties = json!({"type": "object", "required": ["x"]});
        assert_eq!(
            fix(no_properties),
            Ok(json!({"type": "object", "properties": {}}))
        );
    }

    #[test]
    fn draft7_tuples_dependencies_and_draft4_bounds_are_upgraded() {
        let schema = json!({
            "type": "object",
            "properties": {
                "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false},
                "list": {"type": "array", "items": {"type": "string"}, "additionalItems": false},
                "card": {"type": "object", "properties": {"n": {}, "cvv": {}}, "dependencies": {"n": ["cvv"], "cvv": {"required": ["n"]}}},
                "ratio": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 1, "exclusiveMaximum": false}
            }
        });
        let fixed = fix(schema).unwrap();
        let props = &fixed["properties"];
        assert_eq!(
            props["pair"],
            json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false})
        );
        assert_eq!(
            props["list"],
            json!({"type": "array", "items": {"type": "string"}})
        );
        assert_eq!(props["card"]["dependentRequired"], json!({"n": ["cvv"]}));
        assert_eq!(
            props["card"]["dependentSchemas"],
            json!({"cvv": {"required": ["n"]}})
        );
        assert_eq!(
            props["ratio"],
            json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1})
        );
    }

    #[test]
    fn root_type_must_allow_an_object() {
        assert_eq!(
            fix(json!({"type": ["object", "null"], "properties": {}})),
            Ok(json!({"type": "object", "properties": {}}))
        );
        let err = fix(json!({"type": "string"})).unwrap_err();
        assert!(err.contains("JSON object"), "{err}");
    }

    #[test]
    fn unfixable_schemas_are_refused_with_the_place_at_fault() {
        let cases = [
            (
                json!({"properties": {"a": 5}}),
                "at /properties/a: a schema must be",
            ),
            (
                json!({"properties": {"a": {"type": "text"}}}),
                "`type` must be",
            ),
            (
                json!({"properties": {"a": {"minLength": -1}}}),
                "`minLength` must be",
            ),
            (
                json!({"properties": {"a": {"anyOf": []}}}),
                "`anyOf` must be",
            ),
            (
                json!({"properties": {"a": {"$ref": "#/$defs/Nope"}}}),
                "does not resolve",
            ),
            (
                json!({"properties": {"a": {"$ref": "https://example.com/s.json"}}}),
                "does not resolve",
            ),
            (
                json!({"properties": {"a": {"enum": "x"}}}),
                "`enum` must be",
            ),
            (
                json!({"properties": {"a/b": {"multipleOf": 0}}}),
                "at /properties/a~1b:",
            ),
            (json!({"properties": []}), "no `properties` object"),
        ];
        for (schema, expected) in cases {
            let err = fix(schema.clone()).unwrap_err();
            assert!(err.contains(expected), "{schema}: {err}");
        }
    }

    #[test]
    fn every_repaired_schema_passes_the_draft_2020_12_meta_schema() {
        let schemas = [
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}),
            json!({"properties": {"x": {"items": [{"type": "string"}], "additionalItems": {"type": "integer"}}}}),
            json!({"properties": {"x": {"$ref": "#/definitions/X"}}, "definitions": {"X": {"type": "integer", "minimum": 1, "exclusiveMinimum": true}}}),
            json!({"properties": {"d": {"dependencies": {"a": ["b"], "c": {"properties": {}}}, "properties": {"a": {}, "b": {}, "c": {}}}}}),
        ];
        for schema in schemas {
            let fixed = fix(schema.clone()).unwrap();
            if let Err(err) = jsonschema::draft202012::meta::validate(&fixed) {
                panic!("{schema} became {fixed}, which the meta-schema rejects: {err}");
            }
        }
    }

    #[test]
    fn module_example_holds() {
        use crate::mcp::client::normalise::normalise;
        use serde_json::json;

        let draft7 = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"when": {"$ref": "#/definitions/Time"}},
            "required": ["when", "ghost"],
            "definitions": {"Time": {"type": "string"}}
        });
        assert_eq!(
            normalise(draft7.as_object()).unwrap(),
            json!({
                "type": "object",
                "properties": {"when": {"$ref": "#/$defs/Time"}},
                "required": ["when"],
                "$defs": {"Time": {"type": "string"}}
            })
        );
    }
}
