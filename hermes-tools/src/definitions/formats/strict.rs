//! OpenAI structured outputs ("strict" function calling).
//!
//! Rules from OpenAI's guide, "Supported schemas"
//! (<https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>): every
//! object has `additionalProperties: false` and lists every property in `required`, an
//! optional field is a union with `null`; supported are `anyOf`, `enum`, `const`, `$ref`
//! with `$defs`/`definitions` (recursion included), string `pattern` and `format` (the nine
//! below), number `multipleOf`/`minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`,
//! array `minItems`/`maxItems`; `allOf`, `not`, `if`/`then`/`else`, `dependentRequired`
//! and `dependentSchemas` are rejected. Anything not listed as supported is dropped here.
//!
//! Two passes. [`prepare`] is what hermes does beyond openai-python: it drops what is not
//! supported, turns `oneOf` into `anyOf`, merges `allOf`, closes maps, and makes properties
//! that were not required nullable (pydantic already does that before openai-python runs;
//! a schemars schema says "optional" only by leaving the name out of `required`).
//! [`ensure_strict`] then ports openai-python's `_ensure_strict_json_schema`
//! (`src/openai/lib/_pydantic.py`) rule for rule, with guards against cyclic `$ref`s.

use serde_json::{Map, Value, json};

use super::{MAX_DEPTH, flatten_all_of, inline_ref, object_root, resolve, tuple_items};

/// The string `format`s strict mode supports; integer and number formats are not among them.
const STRING_FORMATS: &[&str] = &[
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

/// Keywords copied unchanged. The rest are handled one by one in [`prepare`] or dropped.
const KEPT: &[&str] = &[
    "enum",
    "const",
    "description",
    "title",
    "pattern",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// How many `$ref`s with siblings one schema may inline, so that a hostile schema whose
/// definitions each refer to several others cannot blow up exponentially.
const INLINE_BUDGET: usize = 256;

/// Where `parameters` has what strict mode cannot express, and what: a free-form object (a
/// map whose keys are not declared, which strict mode would close into `{}`), or a value of
/// any type (`true`, `{}`). `None` when the strict rewrite keeps every argument sendable.
pub(crate) fn inexpressible(parameters: &Value) -> Option<String> {
    find_inexpressible(parameters, parameters, "", 0)
}

fn find_inexpressible(node: &Value, root: &Value, path: &str, depth: usize) -> Option<String> {
    let map = match node {
        Value::Object(map) if depth <= MAX_DEPTH => map,
        Value::Bool(true) if !path.is_empty() => {
            return Some(format!("{path} accepts any value"));
        }
        _ => return None,
    };
    if !path.is_empty() && map.keys().all(|key| key == "description" || key == "title") {
        return Some(format!("{path} accepts any value"));
    }
    if let Some(target) = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| resolve(root, reference))
    {
        // A cycle stops at the depth limit.
        if let Some(found) = find_inexpressible(target, root, path, depth + 1) {
            return Some(found);
        }
    }
    let is_object = map.get("type").is_some_and(|t| {
        t == "object"
            || t.as_array()
                .is_some_and(|ts| ts.iter().any(|t| t == "object"))
    });
    let open = match map.get("additionalProperties") {
        None => !map.contains_key("properties") && !map.contains_key("patternProperties"),
        Some(Value::Bool(false)) => false,
        Some(_) => true,
    };
    if is_object && (open || map.contains_key("patternProperties")) && !path.is_empty() {
        return Some(format!("{path} is an object with free-form keys"));
    }
    let nested = |key: &str| map.get(key).and_then(Value::as_object);
    for (name, schema) in nested("properties").into_iter().flatten() {
        let at = format!("{path}/{name}");
        if let Some(found) = find_inexpressible(schema, root, &at, depth + 1) {
            return Some(found);
        }
    }
    let branches = ["anyOf", "oneOf", "allOf"]
        .iter()
        .filter_map(|key| map.get(*key).and_then(Value::as_array))
        .flatten();
    let items = map.get("items").into_iter();
    for schema in branches.chain(items) {
        if let Some(found) = find_inexpressible(schema, root, path, depth + 1) {
            return Some(found);
        }
    }
    None
}

pub(super) fn parameters(parameters: &Value) -> Value {
    let root = Value::Object(object_root(parameters));
    let prepared = prepare(&root, &root, 0);
    ensure_strict(prepared.clone(), &prepared, &mut Inlining::default(), 0)
}

/// Pass one: the subset strict mode accepts, with optional properties made nullable.
pub(super) fn prepare(node: &Value, root: &Value, depth: usize) -> Value {
    let map = match node {
        Value::Object(map) if depth <= MAX_DEPTH => map,
        Value::Bool(_) => return node.clone(),
        // Not a schema at all (or too deep to follow): no constraint.
        _ => return json!({}),
    };
    let map = flatten_all_of(map, root);
    let child = |schema: &Value| prepare(schema, root, depth + 1);
    let mut out = Map::new();
    for (key, value) in map.iter() {
        let kept = match key.as_str() {
            "properties" | "$defs" | "definitions" => value.as_object().map(|schemas| {
                let schemas = schemas.iter().map(|(name, s)| (name.clone(), child(s)));
                Value::Object(schemas.collect())
            }),
            "items" if value.is_array() => None,
            "items" => Some(child(value)),
            // `oneOf` is not supported; for disjoint variants (a tagged enum) it means the
            // same as `anyOf`, and for overlapping ones `anyOf` only accepts more.
            "anyOf" => variants(value, child),
            "oneOf" if !map.contains_key("anyOf") => {
                if let Some(variants) = variants(value, child) {
                    out.insert("anyOf".to_owned(), variants);
                }
                continue;
            }
            "type" => match super::type_names(&map)[..] {
                [] => None,
                [name] => Some(json!(name)),
                ref names => Some(json!(names)),
            },
            "$ref" => value.is_string().then(|| value.clone()),
            "format" => value
                .as_str()
                .filter(|format| STRING_FORMATS.contains(format))
                .map(|_| value.clone()),
            key if KEPT.contains(&key) && super::well_typed(key, value) => Some(value.clone()),
            _ => None,
        };
        if let Some(kept) = kept {
            out.insert(key.clone(), kept);
        }
    }
    if let Some(items) = tuple_items(&map) {
        out.insert("items".to_owned(), child(&items));
    }
    if is_object_schema(&out) {
        close_object(&mut out, map.get("required"));
    }
    Value::Object(out)
}

/// The prepared variants of an `anyOf`/`oneOf`, when there is any.
fn variants(value: &Value, child: impl Fn(&Value) -> Value) -> Option<Value> {
    let variants = value.as_array().filter(|variants| !variants.is_empty())?;
    Some(variants.iter().map(child).collect())
}

fn is_object_schema(map: &Map<String, Value>) -> bool {
    super::type_names(map).contains(&"object") || map.contains_key("properties")
}

/// Every object closed, with `properties`; a map (`additionalProperties: {schema}`) cannot
/// be expressed in strict mode and becomes an object with no keys.
fn close_object(map: &mut Map<String, Value>, required: Option<&Value>) {
    map.entry("type").or_insert_with(|| json!("object"));
    map.insert("additionalProperties".to_owned(), json!(false));
    let properties = map.entry("properties").or_insert_with(|| json!({}));
    let Value::Object(properties) = properties else {
        return;
    };
    let required: Vec<&str> = required
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, schema) in properties.iter_mut() {
        if !required.contains(&name.as_str()) {
            *schema = nullable(std::mem::take(schema));
        }
    }
}

/// `schema` or `null`. A plain schema gets `"null"` in its `type`, an `anyOf` gets a `null`
/// variant; anything else (a `$ref`, an `enum` or `const`, which `null` would fail) is
/// wrapped in `anyOf`, a `$ref`'s description moved out so that the `$ref` stays bare and
/// need not be inlined (pydantic's shape for `Optional[Model]`).
pub(super) fn nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    if accepts_null(&map) {
        return Value::Object(map);
    }
    let has = |map: &Map<String, Value>, keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
    let composite = has(&map, &["enum", "const", "$ref", "anyOf", "oneOf", "allOf"]);
    match map.get_mut("type") {
        Some(Value::String(name)) if !composite => {
            let name = std::mem::take(name);
            map.insert("type".to_owned(), json!([name, "null"]));
            return Value::Object(map);
        }
        Some(Value::Array(names)) if !composite => {
            names.push(json!("null"));
            return Value::Object(map);
        }
        _ => {}
    }
    if !has(&map, &["type", "enum", "const", "$ref", "oneOf", "allOf"])
        && let Some(Value::Array(variants)) = map.get_mut("anyOf")
    {
        variants.push(json!({"type": "null"}));
        return Value::Object(map);
    }
    let mut wrapper = Map::new();
    if map.contains_key("$ref") {
        for annotation in ["title", "description"] {
            if let Some(value) = map.remove(annotation) {
                wrapper.insert(annotation.to_owned(), value);
            }
        }
    }
    wrapper.insert(
        "anyOf".to_owned(),
        json!([Value::Object(map), {"type": "null"}]),
    );
    Value::Object(wrapper)
}

fn accepts_null(map: &Map<String, Value>) -> bool {
    let in_enum = |values: &Value| values.as_array().is_some_and(|v| v.contains(&Value::Null));
    super::type_names(map).contains(&"null")
        || map.get("enum").is_some_and(in_enum)
        || map.get("const") == Some(&Value::Null)
        || ["anyOf", "oneOf"].iter().any(|key| {
            map.get(*key)
                .and_then(Value::as_array)
                .is_some_and(|variants| {
                    variants.iter().any(|variant| match variant {
                        Value::Object(variant) => accepts_null(variant),
                        Value::Bool(accepts) => *accepts,
                        _ => false,
                    })
                })
        })
}

/// The `$ref`s being inlined on the current path, and how many were inlined in all.
#[derive(Default)]
pub(super) struct Inlining {
    path: Vec<String>,
    count: usize,
}

/// Pass two: openai-python's `_ensure_strict_json_schema`, on a value instead of in place.
///
/// Where openai-python raises (a non-object subschema, an unresolvable `$ref`) this leaves
/// the value as it is; where it would recurse forever (a `$ref` with siblings reaching
/// itself) or past [`INLINE_BUDGET`], the `$ref` is kept bare.
pub(super) fn ensure_strict(
    node: Value,
    root: &Value,
    inlining: &mut Inlining,
    depth: usize,
) -> Value {
    let Value::Object(mut map) = node else {
        return node;
    };
    if depth > MAX_DEPTH {
        return Value::Object(map);
    }
    let mut strict = |schema: &mut Value| {
        *schema = ensure_strict(std::mem::take(schema), root, inlining, depth + 1);
    };
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(definitions)) = map.get_mut(key) {
            definitions.values_mut().for_each(&mut strict);
        }
    }
    if map.get("type") == Some(&json!("object")) && !map.contains_key("additionalProperties") {
        map.insert("additionalProperties".to_owned(), json!(false));
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        let names = properties.keys().cloned().map(Value::String).collect();
        properties.values_mut().for_each(&mut strict);
        map.insert("required".to_owned(), Value::Array(names));
    }
    if let Some(items @ Value::Object(_)) = map.get_mut("items") {
        strict(items);
    }
    if let Some(Value::Array(variants)) = map.get_mut("anyOf") {
        variants.iter_mut().for_each(&mut strict);
    }
    if let Some(Value::Array(items)) = map.get_mut("allOf") {
        if let [item @ Value::Object(_)] = items.as_mut_slice() {
            strict(item);
            if let Value::Object(item) = std::mem::take(item) {
                map.remove("allOf");
                map.extend(item);
            }
        } else {
            items.iter_mut().for_each(&mut strict);
        }
    }
    if map.get("default") == Some(&Value::Null) {
        map.remove("default");
    }
    match map.get("$ref").and_then(Value::as_str) {
        Some(reference) if !reference.is_empty() && map.len() > 1 => {
            let reference = reference.to_owned();
            inline(map, reference, root, inlining, depth)
        }
        _ => Value::Object(map),
    }
}

/// openai-python's "we can't use `$ref`s if there are also other properties defined": the
/// target with the siblings laid over it, made strict again.
fn inline(
    map: Map<String, Value>,
    reference: String,
    root: &Value,
    inlining: &mut Inlining,
    depth: usize,
) -> Value {
    let Some(Value::Object(target)) = resolve(root, &reference) else {
        return Value::Object(map);
    };
    if inlining.path.contains(&reference) || inlining.count >= INLINE_BUDGET {
        return json!({"$ref": reference});
    }
    let merged = Value::Object(inline_ref(&map, target));
    inlining.count += 1;
    inlining.path.push(reference);
    let strict = ensure_strict(merged, root, inlining, depth + 1);
    inlining.path.pop();
    strict
}
