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
pub fn empty_object() -> Value {
    json!({"type": "object", "properties": {}})
}

/// The parameter schema of the argument type `T`, normalised (see [`normalize`]).
pub fn generate<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    normalize(generator.into_root_schema_for::<T>().to_value())
}

/// Makes `schema` a tool parameter schema: an object with `properties` (even when empty),
/// without `$schema` and the generated `title`, which providers do not want.
pub fn normalize(schema: Value) -> Value {
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

/// A tool's parameter schema, with what dispatch needs to know about it computed once.
#[derive(Debug)]
pub(crate) struct ParameterSchema {
    pub(crate) value: Value,
    /// Whether arguments must be checked against the schema even when they deserialize.
    pub(crate) needs_validation: bool,
}

impl ParameterSchema {
    pub(crate) fn new(value: Value, always_validate: bool) -> Self {
        let needs_validation = always_validate || has_unenforced_keyword(&value);
        Self {
            value,
            needs_validation,
        }
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
}
