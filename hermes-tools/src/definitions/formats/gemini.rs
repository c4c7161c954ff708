//! Gemini's `Schema`: "a select subset of an OpenAPI 3.0 schema object".
//!
//! Sources: the fields of `Schema` in the Gemini v1beta API and google-genai 3.6.1
//! (`types.Schema`; its `_transformers.process_schema` for `$ref` inlining and
//! `anyOf: [X, {"type": "null"}]` → X with `nullable`); the API's own error
//! "format: only 'enum' and 'date-time' are supported for STRING type" (google-gemini/
//! gemini-cli#3178) and `Unknown name "exclusiveMinimum"` (fazer-ai/agents#64) for the
//! keywords it rejects; the `Schema.enum` docs (`enum: string[]`) and the
//! "Invalid value at ...enum[0] (TYPE_STRING), 0" errors for string-only enums.

use serde_json::{Map, Value, json};

use super::{MAX_DEPTH, flatten_all_of, inline_ref, object_root, resolve, tuple_items};

/// Keywords of Gemini's `Schema` copied unchanged; `type`, `format`, `enum`, `nullable`,
/// `anyOf`, `properties`, `required` and `items` are rebuilt by [`Converter::convert`].
const KEPT: &[&str] = &[
    "title",
    "description",
    "default",
    "example",
    "pattern",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
];

/// How many `$ref`s deep inlining goes before a recursive type is cut off.
const REF_DEPTH: usize = 8;
/// How many `$ref`s one schema may inline in all.
const REF_BUDGET: usize = 256;

pub(super) fn parameters(parameters: &Value) -> Value {
    let root = Value::Object(object_root(parameters));
    let mut converter = Converter {
        root: &root,
        ref_depth: 0,
        inlined: 0,
    };
    let mut schema = converter.convert(&root, 0);
    schema.insert("type".to_owned(), json!("object"));
    schema.remove("nullable");
    schema.entry("properties").or_insert_with(|| json!({}));
    Value::Object(schema)
}

struct Converter<'a> {
    root: &'a Value,
    /// `$ref`s inlined on the current path.
    ref_depth: usize,
    /// `$ref`s inlined in all.
    inlined: usize,
}

impl Converter<'_> {
    fn convert(&mut self, node: &Value, depth: usize) -> Map<String, Value> {
        let Value::Object(map) = node else {
            return Map::new();
        };
        if depth > MAX_DEPTH {
            return Map::new();
        }
        let map = flatten_all_of(map, self.root);
        let Some(reference) = map.get("$ref").and_then(Value::as_str) else {
            return self.convert_inline(&map, depth);
        };
        let target = resolve(self.root, reference).and_then(Value::as_object);
        let Some(target) = target else {
            let mut siblings = map.into_owned();
            siblings.remove("$ref");
            return self.convert_inline(&siblings, depth);
        };
        if self.ref_depth >= REF_DEPTH || self.inlined >= REF_BUDGET {
            return cut_off(&map, target);
        }
        self.ref_depth += 1;
        self.inlined += 1;
        let converted = self.convert(&Value::Object(inline_ref(&map, target)), depth + 1);
        self.ref_depth -= 1;
        converted
    }

    fn convert_inline(&mut self, map: &Map<String, Value>, depth: usize) -> Map<String, Value> {
        let mut out = Map::new();
        let types = super::type_names(map);
        let mut nullable = types.contains(&"null");
        let types: Vec<&str> = types.into_iter().filter(|name| *name != "null").collect();
        let mut variants = Vec::new();
        for variant in map
            .get("anyOf")
            .or(map.get("oneOf"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if is_null(variant) {
                nullable = true;
            } else {
                variants.push(self.convert(variant, depth + 1));
            }
        }
        for key in KEPT {
            if let Some(value) = map.get(*key).filter(|value| super::well_typed(key, value)) {
                out.insert((*key).to_owned(), value.clone());
            }
        }
        if let [name] = types.as_slice() {
            out.insert("type".to_owned(), json!(name));
        }
        nullable |= self.convert_enum(map, &mut out);
        exclusive_bounds(map, &mut out);
        if let Some(format) = map.get("format").and_then(Value::as_str) {
            keep_format(format, &mut out);
        }
        self.convert_children(map, &mut out, depth);
        if types.len() > 1 && variants.is_empty() {
            variants = types
                .iter()
                .map(|name| Map::from_iter([("type".to_owned(), json!(name))]))
                .collect();
        }
        if let Some((values, notes)) = string_choices(&variants) {
            out.entry("type").or_insert_with(|| json!("string"));
            out.entry("enum").or_insert(Value::Array(values));
            if !notes.is_empty() {
                append_description(&mut out, &notes.join("\n"));
            }
            variants.clear();
        }
        match variants.len() {
            0 => {}
            // `anyOf` of one schema (an `Option<T>` once `null` is gone) is that schema;
            // the referrer's own words (its description) win over the variant's.
            1 => merge_missing(&mut out, variants.remove(0)),
            _ => {
                out.insert(
                    "anyOf".to_owned(),
                    Value::Array(variants.into_iter().map(Value::Object).collect()),
                );
            }
        }
        if nullable {
            out.insert("nullable".to_owned(), json!(true));
        }
        out
    }

    fn convert_children(
        &mut self,
        map: &Map<String, Value>,
        out: &mut Map<String, Value>,
        depth: usize,
    ) {
        if let Some(Value::Object(properties)) = map.get("properties") {
            let properties: Map<String, Value> = properties
                .iter()
                .map(|(name, schema)| {
                    (name.clone(), Value::Object(self.convert(schema, depth + 1)))
                })
                .collect();
            let mut required: Vec<Value> = Vec::new();
            for name in map
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let declared = name
                    .as_str()
                    .is_some_and(|name| properties.contains_key(name));
                if declared && !required.contains(name) {
                    required.push(name.clone());
                }
            }
            // Gemini rejects an empty `properties` ("should be non-empty for OBJECT type").
            if !properties.is_empty() {
                out.insert("properties".to_owned(), Value::Object(properties));
            }
            if !required.is_empty() {
                out.insert("required".to_owned(), Value::Array(required));
            }
        }
        let items = tuple_items(map).or_else(|| {
            map.get("items")
                .filter(|items| !items.is_boolean())
                .cloned()
        });
        if let Some(items) = items {
            out.insert(
                "items".to_owned(),
                Value::Object(self.convert(&items, depth + 1)),
            );
        }
    }

    /// `enum`/`const` as Gemini's string-only `enum`; returns whether `null` was allowed.
    /// Other values cannot be sent as an enum, so they are listed in the description and the
    /// type kept: the model still sends the right type and dispatch checks the value.
    fn convert_enum(&self, map: &Map<String, Value>, out: &mut Map<String, Value>) -> bool {
        let values: Vec<&Value> = match (map.get("enum"), map.get("const")) {
            (Some(Value::Array(values)), _) => values.iter().collect(),
            (_, Some(value)) => vec![value],
            _ => return false,
        };
        let nullable = values.contains(&&Value::Null);
        let values: Vec<&Value> = values
            .into_iter()
            .filter(|value| !value.is_null())
            .collect();
        if values.is_empty() {
            return nullable;
        }
        if values.iter().all(|value| value.is_string()) {
            out.insert(
                "enum".to_owned(),
                Value::Array(values.into_iter().cloned().collect()),
            );
            out.entry("type").or_insert_with(|| json!("string"));
        } else {
            let listed: Vec<String> = values.iter().map(|value| value.to_string()).collect();
            append_description(out, &format!("Allowed values: {}.", listed.join(", ")));
        }
        nullable
    }
}

/// What a recursive `$ref` becomes past [`REF_DEPTH`]: its target's type (an object when it
/// has none), with the title and description, and nothing deeper.
fn cut_off(referrer: &Map<String, Value>, target: &Map<String, Value>) -> Map<String, Value> {
    let kind = target
        .get("type")
        .and_then(Value::as_str)
        .filter(|kind| *kind != "null")
        .unwrap_or("object");
    let mut out = Map::from_iter([("type".to_owned(), json!(kind))]);
    for annotation in ["title", "description"] {
        let text = referrer.get(annotation).or(target.get(annotation));
        if let Some(text) = text.filter(|text| text.is_string()) {
            out.insert(annotation.to_owned(), text.clone());
        }
    }
    out
}

/// Variants that are each one string (schemars' `oneOf` of documented unit variants) as the
/// values of one string `enum`, with the variants' descriptions as `value: description`
/// lines: the plainest form of a choice for Gemini, and no description is lost.
fn string_choices(variants: &[Map<String, Value>]) -> Option<(Vec<Value>, Vec<String>)> {
    if variants.len() < 2 {
        return None;
    }
    let mut values = Vec::new();
    let mut notes = Vec::new();
    for variant in variants {
        let plain = variant
            .keys()
            .all(|key| matches!(key.as_str(), "type" | "enum" | "description" | "title"));
        let value = match variant.get("enum").and_then(Value::as_array) {
            Some(one) if one.len() == 1 && plain => one[0].as_str()?,
            _ => return None,
        };
        if let Some(description) = variant.get("description").and_then(Value::as_str) {
            notes.push(format!("{value}: {description}"));
        }
        values.push(json!(value));
    }
    Some((values, notes))
}

/// `text` after the description, a space or line apart.
fn append_description(out: &mut Map<String, Value>, text: &str) {
    let description = match out.get("description").and_then(Value::as_str) {
        Some(description) if !description.is_empty() => {
            let gap = if text.contains('\n') { "\n" } else { " " };
            format!("{description}{gap}{text}")
        }
        _ => text.to_owned(),
    };
    out.insert("description".to_owned(), json!(description));
}

fn is_null(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
        || schema.get("const") == Some(&Value::Null)
        || schema.get("enum") == Some(&json!([null]))
}

fn merge_missing(out: &mut Map<String, Value>, variant: Map<String, Value>) {
    for (key, value) in variant {
        out.entry(key).or_insert(value);
    }
}

/// OpenAPI 3.0 has `exclusiveMinimum` only as a boolean and Gemini has none: an exclusive
/// bound on an integer becomes the next integer in; on a number it becomes inclusive.
fn exclusive_bounds(map: &Map<String, Value>, out: &mut Map<String, Value>) {
    let integer = out.get("type") == Some(&json!("integer"));
    for (exclusive, inclusive, step) in [
        ("exclusiveMinimum", "minimum", 1),
        ("exclusiveMaximum", "maximum", -1),
    ] {
        let Some(bound) = map.get(exclusive).filter(|bound| bound.is_number()) else {
            continue;
        };
        let bound = match bound.as_i64() {
            Some(whole) if integer => whole.checked_add(step).map_or(bound.clone(), Value::from),
            _ => bound.clone(),
        };
        let tightens = match (out.get(inclusive).and_then(Value::as_f64), bound.as_f64()) {
            (Some(current), Some(new)) if step > 0 => new > current,
            (Some(current), Some(new)) => new < current,
            _ => true,
        };
        if tightens {
            out.insert(inclusive.to_owned(), bound);
        }
    }
}

/// The formats Gemini takes for the schema's type; others (`uint8`, `uri`, …) are dropped.
fn keep_format(format: &str, out: &mut Map<String, Value>) {
    let allowed: &[&str] = match out.get("type").and_then(Value::as_str) {
        Some("string") => &["date-time", "enum"],
        Some("integer") => &["int32", "int64"],
        Some("number") => &["float", "double"],
        _ => &[],
    };
    if allowed.contains(&format) {
        out.insert("format".to_owned(), json!(format));
    }
}
