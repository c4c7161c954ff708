//! [`Rule::SchemaMismatch`](super::Rule::SchemaMismatch): does the argument type accept what
//! its schema admits? An example is built from the schema and handed to the tool's own parse.

use serde_json::{Map, Value};

use crate::tool::Tool;

/// How deep the example follows nested schemas (and `$ref` cycles).
const MAX_DEPTH: usize = 16;

/// Why the tool's argument type refuses an example its schema admits, if it does.
pub(super) fn mismatch(tool: &Tool) -> Option<String> {
    let parse = tool.static_parse()?;
    let schema = tool.parameters();
    let example = example(schema, schema, 0);
    // An example the schema itself refuses says nothing about the type (a `pattern` we
    // cannot satisfy, say): only what validates is held against the type.
    crate::call::coercion::coerce_and_validate(example.clone(), schema).ok()?;
    let err = parse(&example.to_string()).err()?;
    Some(format!(
        "the schema admits {example} but the argument type refuses it ({err}); a serde \
         attribute that schemars does not mirror (or the reverse) makes the model's valid \
         calls fail"
    ))
}

/// A value `schema` admits, with every property of every object present (optional ones
/// too, so that a field only serde renames is caught). Best effort: `pattern` and `format`
/// are not honoured.
pub(crate) fn example(schema: &Value, root: &Value, depth: usize) -> Value {
    let Some(map) = schema.as_object().filter(|_| depth <= MAX_DEPTH) else {
        return Value::String("example".into());
    };
    if let Some(target) = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| crate::tool::schema::resolve_ref(root, reference))
    {
        return example(target, root, depth + 1);
    }
    if let Some(value) = map.get("const") {
        return value.clone();
    }
    if let Some(first) = map
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|v| v.first())
    {
        return first.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        let branches = map.get(key).and_then(Value::as_array);
        // The first branch that is not `null`: an `Option<T>` is exercised with a `T`.
        if let Some(branch) = branches
            .into_iter()
            .flatten()
            .find(|branch| branch.get("type") != Some(&Value::String("null".into())))
        {
            return example(branch, root, depth + 1);
        }
    }
    let kind = match map.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|kind| *kind != "null")
            .unwrap_or("null"),
        _ if map.contains_key("properties") => "object",
        _ => "string",
    };
    let bound = |key: &str| map.get(key).and_then(Value::as_f64);
    match kind {
        "object" => {
            let properties = map.get("properties").and_then(Value::as_object);
            let object: Map<String, Value> = properties
                .into_iter()
                .flatten()
                .map(|(name, schema)| (name.clone(), example(schema, root, depth + 1)))
                .collect();
            Value::Object(object)
        }
        "array" => {
            let items = map
                .get("items")
                .map_or(Value::String("example".into()), |items| {
                    example(items, root, depth + 1)
                });
            let count = bound("minItems").unwrap_or(1.0).max(1.0) as usize;
            let count = count.min(bound("maxItems").map_or(count, |max| max as usize));
            Value::Array(vec![items; count])
        }
        "integer" => {
            let value = bound("minimum").map_or(1.0, |min| {
                min.max(1.0).min(bound("maximum").unwrap_or(f64::MAX))
            });
            Value::from(value as i64)
        }
        "number" => Value::from(bound("minimum").unwrap_or(1.5)),
        "boolean" => Value::Bool(true),
        "null" => Value::Null,
        _ => {
            let length = bound("minLength").unwrap_or(7.0).max(1.0) as usize;
            Value::String("e".repeat(length.min(bound("maxLength").map_or(length, |m| m as usize))))
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::example;

    #[test]
    fn an_example_has_every_property_with_an_admitted_value() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "limit": {"type": ["integer", "null"], "minimum": 1, "maximum": 2000},
                "mode": {"enum": ["a", "b"]},
                "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}, "minItems": 2},
            },
            "$defs": {"Tag": {"type": "object", "properties": {"name": {"type": "string"}}}}
        });
        let value = example(&schema, &schema, 0);
        assert_eq!(value["limit"], 1);
        assert_eq!(value["mode"], "a");
        assert_eq!(value["tags"].as_array().unwrap().len(), 2);
        assert!(value["tags"][0]["name"].is_string());
        crate::call::coercion::coerce_and_validate(value, &schema).unwrap();
    }
}
