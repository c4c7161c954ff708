//! Parameter schemas: generated from Rust types by schemars, normalised into the object schema
//! every provider accepts.

use schemars::JsonSchema;
use serde_json::{Map, Value, json};

/// Keywords whose constraints serde does not enforce while deserializing, so a tool whose
/// schema carries one of them is validated before it is called.
const UNENFORCED_KEYWORDS: &[&str] = &[
    "minItems",
    "maxItems",
    "uniqueItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "const",
    "not",
];

/// `{"type":"object","properties":{}}`: the schema of a tool with no parameters.
pub(crate) fn empty_object() -> Value {
    json!({"type": "object", "properties": {}})
}

/// The parameter schema of the argument type `T`, normalised.
pub fn generate<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    normalize(generator.into_root_schema_for::<T>().to_value())
}

/// Makes `schema` a tool parameter schema: an object with `properties` (even when empty),
/// without `$schema` and the generated `title`, which providers do not want.
pub(crate) fn normalize(schema: Value) -> Value {
    let mut object = match schema {
        Value::Object(object) => object,
        _ => Map::new(),
    };
    object.remove("$schema");
    object.remove("title");
    object
        .entry("type")
        .or_insert_with(|| Value::String("object".into()));
    object
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    Value::Object(object)
}

/// The subschema a local `$ref` names in `root`: `#` is `root` itself, `#/a/b` the JSON Pointer
/// `/a/b` (RFC 6901: `~1` reads as `/`, `~0` as `~`, an array item by its index), so `$defs`,
/// `definitions` and any other place in the document. `None` for a reference that is not local
/// (another document, an anchor) or names nothing, since a tool's schema must be
/// self-contained. Percent-encoding in the fragment is not decoded: tool schemas do not use it,
/// and decoding could only make a resolvable reference fail, never the reverse.
pub(crate) fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

/// A tool's parameter schema, with what dispatch needs to know about it computed once.
#[derive(Debug)]
pub(crate) struct ParameterSchema {
    pub(crate) value: Value,
    /// Whether arguments must be checked against the schema even when they deserialize.
    pub(crate) needs_validation: bool,
}

impl ParameterSchema {
    pub(crate) fn new(value: Value, always_validate: bool) -> Self {
        // Nested objects with properties: serde would drop their unknown keys, which the slow
        // path refuses at every depth, as at the top level.
        let needs_validation =
            always_validate || has_unenforced_keyword(&value) || has_nested_properties(&value);
        Self {
            value,
            needs_validation,
        }
    }
}

/// Whether a schema below the root (a property's, an item's, a definition's) has `properties`.
fn has_nested_properties(schema: &Value) -> bool {
    let below: Vec<&Value> = ["properties", "$defs", "definitions"]
        .iter()
        .filter_map(|key| schema.get(key).and_then(Value::as_object))
        .flat_map(|members| members.values())
        .collect();
    below.into_iter().any(mentions_properties)
}

/// Whether `properties` is a key anywhere in `value`.
fn mentions_properties(value: &Value) -> bool {
    match value {
        Value::Object(object) => {
            object.contains_key("properties") || object.values().any(mentions_properties)
        }
        Value::Array(items) => items.iter().any(mentions_properties),
        _ => false,
    }
}

fn has_unenforced_keyword(schema: &Value) -> bool {
    match schema {
        Value::Object(object) => object.iter().any(|(key, value)| {
            UNENFORCED_KEYWORDS.contains(&key.as_str())
                // `properties` maps names to schemas: a property named "pattern" is not a keyword.
                || if key == "properties" || key == "$defs" {
                    value.as_object().is_some_and(|props| props.values().any(has_unenforced_keyword))
                } else {
                    has_unenforced_keyword(value)
                }
        }),
        Value::Array(items) => items.iter().any(has_unenforced_keyword),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_struct_publishes_object_with_properties() {
        #[derive(JsonSchema)]
        struct NoArgs {}
        assert_eq!(
            generate::<NoArgs>(),
            json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn constraint_keywords_found_but_property_names_ignored() {
        let plain = json!({"type":"object","properties":{"pattern":{"type":"string"}}});
        assert!(!has_unenforced_keyword(&plain));
        let constrained =
            json!({"type":"object","properties":{"xs":{"type":"array","maxItems":4}}});
        assert!(has_unenforced_keyword(&constrained));
        let nested = json!({"$defs":{"A":{"type":"string","pattern":"^a"}}});
        assert!(has_unenforced_keyword(&nested));
    }

    #[test]
    fn local_refs_resolve_as_json_pointers() {
        let root = json!({
            "$defs": {"A": {"type": "string"}, "a/b~c": {"type": "integer"}},
            "definitions": {"B": {"type": "boolean"}},
            "anyOf": [{"type": "null"}, {"$ref": "#/$defs/A"}],
        });
        assert_eq!(resolve_ref(&root, "#"), Some(&root));
        assert_eq!(resolve_ref(&root, "#/$defs/A"), Some(&root["$defs"]["A"]));
        assert_eq!(
            resolve_ref(&root, "#/definitions/B"),
            Some(&root["definitions"]["B"])
        );
        assert_eq!(
            resolve_ref(&root, "#/$defs/a~1b~0c"),
            Some(&root["$defs"]["a/b~c"])
        );
        assert_eq!(resolve_ref(&root, "#/anyOf/1"), Some(&root["anyOf"][1]));
        for unresolved in [
            "",
            "#/$defs/Missing",
            "#/anyOf/2",
            "#/anyOf/01",
            "#anchor",
            "other.json#/$defs/A",
            "https://example.com/schema#/$defs/A",
            "#/$defs/a%2Fb~0c",
        ] {
            assert_eq!(resolve_ref(&root, unresolved), None, "{unresolved}");
        }
    }
}
