//! The schema walk: a tool's locked definition in one format against its current one, keyword
//! by keyword, each difference a [`ChangeKind`] at a parameter path.
//!
//! The question each keyword answers: is every call the locked schema allowed still allowed
//! (compatible), or may one now be refused (breaking)? A keyword this walk does not know is
//! breaking when it changes: it cannot tell, and a false alarm costs one `--update`.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use serde_json::{Map, Value};

use super::report::ChangeKind;
use crate::definitions::formats::Format;
use crate::tool::schema::resolve_ref;

/// Lower bounds: raising one (or adding it) tightens.
const LOWER: [&str; 6] = [
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "minContains",
];
/// Upper bounds: lowering one (or adding it) tightens.
const UPPER: [&str; 6] = [
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "maxContains",
];
/// Keywords whose addition or change tightens and whose removal widens.
const RESTRICTIONS: [&str; 3] = ["pattern", "format", "multipleOf"];
/// Annotations: a change is compatible.
const ANNOTATIONS: [&str; 8] = [
    "title",
    "examples",
    "deprecated",
    "$comment",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
];
/// Keywords handled elsewhere in the walk, or reached through `$ref` (`$defs`).
const HANDLED: [&str; 19] = [
    "type",
    "nullable",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "description",
    "default",
    "$ref",
    "$defs",
    "definitions",
    "uniqueItems",
    "propertyOrdering",
    "strict",
];
/// What a schema that is no object (`true`, or none) is walked as.
static EMPTY: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);
/// How deep the walk follows nested schemas (and `$ref`s, which may be cyclic).
const MAX_DEPTH: usize = 48;

/// The differences between a tool's locked and current definition in `format`.
pub(super) fn compare(format: Format, old: &Value, new: &Value) -> Vec<(String, ChangeKind)> {
    let (old, new) = (Parts::of(old), Parts::of(new));
    let mut walk = Walk {
        format,
        old_root: old.parameters,
        new_root: new.parameters,
        found: Vec::new(),
    };
    if old.description != new.description {
        walk.push("", ChangeKind::DescriptionChanged);
    }
    if old.strict != new.strict {
        walk.push(
            "",
            ChangeKind::StrictnessChanged {
                from: old.strict,
                to: new.strict,
            },
        );
    }
    for key in old
        .rest
        .keys()
        .chain(new.rest.keys())
        .collect::<BTreeSet<_>>()
    {
        if old.rest.get(key) == new.rest.get(key) {
            continue;
        }
        let kind = match key.as_str() {
            "annotations" | "title" | "_meta" => ChangeKind::AnnotationChanged {
                keyword: key.clone(),
            },
            "outputSchema" => ChangeKind::OutputSchemaChanged,
            _ => ChangeKind::KeywordChanged {
                keyword: key.clone(),
            },
        };
        walk.push("", kind);
    }
    walk.schema("", old.parameters, new.parameters, 0);
    walk.found
}

/// A definition taken apart: what every format has, whatever its wrapper.
struct Parts<'a> {
    description: Option<&'a Value>,
    parameters: &'a Value,
    strict: Option<bool>,
    /// Whatever else the wrapper holds (`annotations`, `outputSchema`, ...).
    rest: Map<String, Value>,
}

impl<'a> Parts<'a> {
    fn of(definition: &'a Value) -> Self {
        // `openai` and `openai-strict` wrap the function in `function`.
        let inner = definition.get("function").unwrap_or(definition);
        let parameters = ["parameters", "input_schema", "inputSchema"]
            .iter()
            .find_map(|key| inner.get(*key))
            .unwrap_or(&Value::Null);
        let strict = inner
            .get("strict")
            .or_else(|| definition.get("strict"))
            .and_then(Value::as_bool);
        let known = [
            "type",
            "function",
            "name",
            "description",
            "parameters",
            "input_schema",
            "inputSchema",
            "strict",
        ];
        let mut rest = Map::new();
        for map in [definition.as_object(), inner.as_object()]
            .into_iter()
            .flatten()
        {
            for (key, value) in map {
                if !known.contains(&key.as_str()) {
                    rest.insert(key.clone(), value.clone());
                }
            }
        }
        Parts {
            description: inner.get("description"),
            parameters,
            strict,
            rest,
        }
    }
}

struct Walk<'a> {
    format: Format,
    old_root: &'a Value,
    new_root: &'a Value,
    found: Vec<(String, ChangeKind)>,
}

impl<'a> Walk<'a> {
    fn push(&mut self, path: &str, kind: ChangeKind) {
        self.found.push((path.to_owned(), kind));
    }

    fn schema(&mut self, path: &str, old: &'a Value, new: &'a Value, depth: usize) {
        // A `$ref` is compared by what it names: the same name may name a changed schema.
        let old = deref(self.old_root, old);
        let new = deref(self.new_root, new);
        if old == new || depth > MAX_DEPTH {
            return;
        }
        let (o, n) = (
            old.as_object().unwrap_or(&EMPTY),
            new.as_object().unwrap_or(&EMPTY),
        );
        self.types(path, o, n);
        self.values(path, o, n);
        self.bounds(path, o, n);
        if o.get("description") != n.get("description") && !path.is_empty() {
            self.push(path, ChangeKind::DescriptionChanged);
        }
        if o.get("default") != n.get("default") {
            self.push(path, ChangeKind::DefaultChanged);
        }
        self.properties(path, o, n, depth);
        self.additional(path, o, n, depth);
        if let (Some(old_items), Some(new_items)) = (o.get("items"), n.get("items")) {
            self.schema(&format!("{path}[]"), old_items, new_items, depth + 1);
        } else if o.get("items") != n.get("items") {
            let kind = if n.get("items").is_some() {
                ChangeKind::BoundTightened {
                    keyword: "items".to_owned(),
                    from: None,
                    to: n.get("items").cloned(),
                }
            } else {
                ChangeKind::BoundWidened {
                    keyword: "items".to_owned(),
                    from: o.get("items").cloned(),
                    to: None,
                }
            };
            self.push(path, kind);
        }
        for keyword in ["anyOf", "oneOf", "prefixItems"] {
            self.variants(path, keyword, o, n, depth);
        }
        for key in o.keys().chain(n.keys()).collect::<BTreeSet<_>>() {
            let known = HANDLED.contains(&key.as_str())
                || LOWER.contains(&key.as_str())
                || UPPER.contains(&key.as_str())
                || RESTRICTIONS.contains(&key.as_str());
            if known || o.get(key) == n.get(key) {
                continue;
            }
            let keyword = key.clone();
            let kind = if ANNOTATIONS.contains(&key.as_str()) {
                ChangeKind::AnnotationChanged { keyword }
            } else {
                ChangeKind::KeywordChanged { keyword }
            };
            self.push(path, kind);
        }
    }

    /// `type` (and Gemini's `nullable`): the set of accepted types, `integer` within `number`.
    fn types(&mut self, path: &str, o: &Map<String, Value>, n: &Map<String, Value>) {
        let (old, new) = (types(o), types(n));
        if old == new {
            return;
        }
        let covers = |set: &Option<BTreeSet<String>>, of: &Option<BTreeSet<String>>| match (set, of)
        {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(set), Some(of)) => of
                .iter()
                .all(|t| set.contains(t) || (t == "integer" && set.contains("number"))),
        };
        let names = |set: &Option<BTreeSet<String>>| {
            set.as_ref()
                .map_or(vec!["any".to_owned()], |set| set.iter().cloned().collect())
        };
        let (from, to) = (names(&old), names(&new));
        let kind = match (covers(&new, &old), covers(&old, &new)) {
            (true, true) => return,
            (true, false) => ChangeKind::TypeWidened { from, to },
            _ => ChangeKind::TypeNarrowed { from, to },
        };
        self.push(path, kind);
    }

    /// `enum` and `const`: the set of accepted values.
    fn values(&mut self, path: &str, o: &Map<String, Value>, n: &Map<String, Value>) {
        let (old, new) = (values(o), values(n));
        let kind = match (old, new) {
            (None, None) => return,
            (None, Some(_)) => ChangeKind::EnumNarrowed { removed: vec![] },
            (Some(_), None) => ChangeKind::EnumWidened { added: vec![] },
            (Some(old), Some(new)) => {
                let removed: Vec<Value> =
                    old.iter().filter(|v| !new.contains(v)).cloned().collect();
                let added: Vec<Value> = new.iter().filter(|v| !old.contains(v)).cloned().collect();
                if !removed.is_empty() {
                    ChangeKind::EnumNarrowed { removed }
                } else if !added.is_empty() {
                    ChangeKind::EnumWidened { added }
                } else {
                    return;
                }
            }
        };
        self.push(path, kind);
    }

    /// Numeric and length bounds, `pattern`, `format`, `multipleOf` and `uniqueItems`.
    fn bounds(&mut self, path: &str, o: &Map<String, Value>, n: &Map<String, Value>) {
        for keyword in LOWER.iter().chain(&UPPER).chain(&RESTRICTIONS) {
            let (from, to) = (o.get(*keyword), n.get(*keyword));
            if from == to {
                continue;
            }
            let tightened = match (from.and_then(Value::as_f64), to.and_then(Value::as_f64)) {
                _ if from.is_none() => true,
                _ if to.is_none() => false,
                (Some(a), Some(b)) if LOWER.contains(keyword) => b > a,
                (Some(a), Some(b)) if UPPER.contains(keyword) => b < a,
                // A pattern, format or multipleOf that changed: it may refuse what it took.
                _ => true,
            };
            let (keyword, from, to) = (keyword.to_string(), from.cloned(), to.cloned());
            let kind = if tightened {
                ChangeKind::BoundTightened { keyword, from, to }
            } else {
                ChangeKind::BoundWidened { keyword, from, to }
            };
            self.push(path, kind);
        }
        let unique = |map: &Map<String, Value>| map.get("uniqueItems") == Some(&Value::Bool(true));
        if unique(o) != unique(n) {
            let (from, to) = (o.get("uniqueItems").cloned(), n.get("uniqueItems").cloned());
            let keyword = "uniqueItems".to_owned();
            let kind = if unique(n) {
                ChangeKind::BoundTightened { keyword, from, to }
            } else {
                ChangeKind::BoundWidened { keyword, from, to }
            };
            self.push(path, kind);
        }
    }

    /// `properties` and `required`: parameters added, removed, renamed, made (not) required.
    fn properties(
        &mut self,
        path: &str,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        depth: usize,
    ) {
        let old = o
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&EMPTY);
        let new = n
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&EMPTY);
        let (old_required, new_required) = (required(o), required(n));
        let join = |name: &str| {
            if path.is_empty() {
                name.to_owned()
            } else {
                format!("{path}.{name}")
            }
        };
        let mut added: Vec<&String> = new.keys().filter(|k| !old.contains_key(*k)).collect();
        for (name, schema) in old {
            if let Some(current) = new.get(name) {
                let (was, is) = (
                    old_required.contains(name.as_str()),
                    new_required.contains(name.as_str()),
                );
                if !was && is && !self.optional_in_strict(current) {
                    self.push(&join(name), ChangeKind::BecameRequired);
                } else if was && !is {
                    self.push(&join(name), ChangeKind::BecameOptional);
                }
                self.schema(&join(name), schema, current, depth + 1);
                continue;
            }
            // A new parameter with the same schema (description aside) is this one renamed.
            let renamed = added
                .iter()
                .position(|candidate| same_but_description(schema, &new[candidate.as_str()]));
            let kind = match renamed {
                Some(at) => ChangeKind::ParameterRenamed {
                    to: added.remove(at).clone(),
                },
                None => ChangeKind::ParameterRemoved,
            };
            self.push(&join(name), kind);
        }
        for name in added {
            let required = new_required.contains(name.as_str())
                && !self.optional_in_strict(&new[name.as_str()]);
            self.push(&join(name), ChangeKind::ParameterAdded { required });
        }
    }

    /// In `openai-strict` every property is required, and an optional one is nullable.
    fn optional_in_strict(&self, schema: &Value) -> bool {
        self.format == Format::OpenAiStrict && admits_null(deref(self.new_root, schema))
    }

    /// `additionalProperties`: open (absent or `true`), closed (`false`) or a schema.
    fn additional(
        &mut self,
        path: &str,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        depth: usize,
    ) {
        let (old, new) = (o.get("additionalProperties"), n.get("additionalProperties"));
        if old == new {
            return;
        }
        let closed = |value: Option<&Value>| value == Some(&Value::Bool(false));
        let open = |value: Option<&Value>| matches!(value, None | Some(Value::Bool(true)));
        match (old, new) {
            (Some(old @ Value::Object(_)), Some(new @ Value::Object(_))) => {
                self.schema(&format!("{path}.*"), old, new, depth + 1);
            }
            _ if closed(new) || (open(old) && !open(new)) => {
                self.push(path, ChangeKind::AdditionalPropertiesClosed);
            }
            _ if !open(old) && (open(new) || closed(old)) => {
                self.push(path, ChangeKind::AdditionalPropertiesOpened);
            }
            _ => {}
        }
    }

    /// `anyOf`, `oneOf` and `prefixItems`: pairwise when the count is the same, else as sets.
    fn variants(
        &mut self,
        path: &str,
        keyword: &str,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        depth: usize,
    ) {
        let (old, new) = (o.get(keyword), n.get(keyword));
        if old == new {
            return;
        }
        let list = |value: Option<&'a Value>| value.and_then(Value::as_array);
        let (old_list, new_list) = (list(old), list(new));
        if let (Some(old), Some(new)) = (old_list, new_list)
            && old.len() == new.len()
        {
            for (index, (old, new)) in old.iter().zip(new).enumerate() {
                self.schema(
                    &format!("{path}{{{keyword}[{index}]}}"),
                    old,
                    new,
                    depth + 1,
                );
            }
            return;
        }
        let keyword = keyword.to_owned();
        let (old_list, new_list) = (
            old_list.map(Vec::as_slice).unwrap_or_default(),
            new_list.map(Vec::as_slice).unwrap_or_default(),
        );
        // No list: the schema itself is the one variant.
        let removed = if old.is_some() {
            old_list.iter().any(|v| !new_list.contains(v))
        } else {
            new.is_some()
        };
        let kind = if removed {
            ChangeKind::VariantRemoved { keyword }
        } else {
            ChangeKind::VariantAdded { keyword }
        };
        self.push(path, kind);
    }
}

/// The schema a `$ref` names (its own keywords beside the `$ref` kept over it), followed a few
/// times; any other schema as is.
fn deref<'v>(root: &'v Value, schema: &'v Value) -> &'v Value {
    let mut schema = schema;
    for _ in 0..8 {
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| resolve_ref(root, reference))
        {
            Some(target) if target != schema => schema = target,
            _ => break,
        }
    }
    schema
}

fn types(map: &Map<String, Value>) -> Option<BTreeSet<String>> {
    let mut set: BTreeSet<String> = match map.get("type")? {
        Value::String(name) => [name.clone()].into(),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => return None,
    };
    if map.get("nullable") == Some(&Value::Bool(true)) {
        set.insert("null".to_owned());
    }
    Some(set)
}

fn values(map: &Map<String, Value>) -> Option<Vec<Value>> {
    match (map.get("enum"), map.get("const")) {
        (Some(Value::Array(values)), _) => Some(values.clone()),
        (_, Some(value)) => Some(vec![value.clone()]),
        _ => None,
    }
}

fn required(map: &Map<String, Value>) -> BTreeSet<&str> {
    map.get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn admits_null(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    types(map).is_some_and(|set| set.contains("null"))
        || ["anyOf", "oneOf"].iter().any(|keyword| {
            map.get(*keyword)
                .and_then(Value::as_array)
                .is_some_and(|variants| {
                    variants
                        .iter()
                        .any(|v| v.get("type") == Some(&"null".into()))
                })
        })
}

fn same_but_description(a: &Value, b: &Value) -> bool {
    let strip = |value: &Value| {
        let mut value = value.clone();
        if let Some(map) = value.as_object_mut() {
            map.remove("description");
        }
        value
    };
    strip(a) == strip(b)
}
