//! Formats: one tool definition in the shape each provider's API takes.
//!
//! A tool is a name, a description and a parameter schema (JSON Schema Draft 2020-12, as
//! [`schema`](crate::schema) produces it, or whatever an MCP server registered). Providers want
//! that triple wrapped differently, and some accept only a subset of JSON Schema:
//!
//! | [`Format`] | definition | parameters |
//! | --- | --- | --- |
//! | `openai` | `{"type":"function","function":{name, description, parameters}}` | as given |
//! | `openai-strict` | the same with `"strict": true` | rewritten for OpenAI structured outputs |
//! | `responses` | `{"type":"function", name, description, parameters, "strict": false}` | as given |
//! | `anthropic` | `{name, description, input_schema}` | as given |
//! | `gemini` | `{name, description, parameters}` (a `FunctionDeclaration`) | rewritten to Gemini's OpenAPI 3.0 subset |
//! | `mcp` | `{name, description, inputSchema}` | as given, with `"type": "object"` at the root |
//!
//! The rewrites only ever loosen what the schema accepts (a dropped `maxLength`, a numeric enum
//! turned into a description): dispatch still validates arguments against the tool's own schema,
//! so a constraint a provider cannot express is enforced there instead. No input makes these
//! functions panic; cyclic `$ref`s and non-object values are handled.
//!
//! ```
//! use hermes_tools::formats::{self, Format};
//! use serde_json::json;
//!
//! let parameters = json!({
//!     "type": "object",
//!     "properties": {
//!         "city": {"type": "string"},
//!         "days": {"type": ["integer", "null"], "format": "uint8"}
//!     },
//!     "required": ["city"]
//! });
//! let format: Format = "gemini".parse().unwrap();
//! assert_eq!(
//!     formats::definition(format, "forecast", "The weather to come.", &parameters),
//!     json!({
//!         "name": "forecast",
//!         "description": "The weather to come.",
//!         "parameters": {
//!             "type": "object",
//!             "properties": {
//!                 "city": {"type": "string"},
//!                 "days": {"type": "integer", "nullable": true}
//!             },
//!             "required": ["city"]
//!         }
//!     })
//! );
//! ```

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value, json};

/// A provider's shape for tool definitions. See the [module documentation](self) for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Format {
    /// OpenAI chat completions: `{"type":"function","function":{...}}`, parameters as given.
    #[default]
    OpenAi,
    /// OpenAI chat completions with `"strict": true`, parameters in the structured-outputs subset.
    OpenAiStrict,
    /// OpenAI Responses API: a flat function tool with `"strict": false`.
    Responses,
    /// Anthropic Messages API: `{name, description, input_schema}`.
    Anthropic,
    /// Google Gemini: a `FunctionDeclaration` with an OpenAPI 3.0 schema.
    Gemini,
    /// Model Context Protocol `tools/list` entry: `{name, description, inputSchema}`.
    Mcp,
}

impl Format {
    /// Every format, in declaration order.
    pub const ALL: [Format; 6] = [
        Format::OpenAi,
        Format::OpenAiStrict,
        Format::Responses,
        Format::Anthropic,
        Format::Gemini,
        Format::Mcp,
    ];

    /// The format's name: `openai`, `openai-strict`, `responses`, `anthropic`, `gemini` or `mcp`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::OpenAi => "openai",
            Format::OpenAiStrict => "openai-strict",
            Format::Responses => "responses",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::Mcp => "mcp",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string named no [`Format`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool format {name:?}; valid formats are {}", valid_names())]
pub struct UnknownFormat {
    /// The name given.
    pub name: String,
}

fn valid_names() -> String {
    Format::ALL.map(Format::as_str).join(", ")
}

impl FromStr for Format {
    type Err = UnknownFormat;

    /// Parses a name from [`Format::as_str`], ignoring ASCII case and reading `_` as `-`.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let wanted = name.trim().to_ascii_lowercase().replace('_', "-");
        Format::ALL
            .into_iter()
            .find(|format| format.as_str() == wanted)
            .ok_or_else(|| UnknownFormat {
                name: name.to_owned(),
            })
    }
}

/// The definition of one tool in `format`: what goes in the provider's list of tools.
///
/// `parameters` is transformed as [`parameters_for`] does. For Gemini, a tool whose parameters
/// declare no property gets no `parameters` key: Gemini has rejected
/// `"properties": {}` ("should be non-empty for OBJECT type"), and its `FunctionDeclaration`
/// documents the key as optional for functions without parameters.
pub fn definition(format: Format, name: &str, description: &str, parameters: &Value) -> Value {
    let parameters = parameters_for(format, parameters);
    match format {
        Format::OpenAi => json!({
            "type": "function",
            "function": {"name": name, "description": description, "parameters": parameters},
        }),
        Format::OpenAiStrict => json!({
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": parameters,
                "strict": true,
            },
        }),
        // `strict` is explicit: the Responses API otherwise tries to make the schema strict
        // itself, and falls back silently when it cannot.
        Format::Responses => json!({
            "type": "function",
            "name": name,
            "description": description,
            "parameters": parameters,
            "strict": false,
        }),
        Format::Anthropic => json!({
            "name": name,
            "description": description,
            "input_schema": parameters,
        }),
        Format::Gemini => {
            let mut declaration = json!({"name": name, "description": description});
            if declares_parameters(&parameters) {
                declaration["parameters"] = parameters;
            }
            declaration
        }
        Format::Mcp => json!({
            "name": name,
            "description": description,
            "inputSchema": parameters,
        }),
    }
}

/// `parameters` transformed for `format`; see the [module documentation](self) for the rules.
///
/// A tool with no parameters, `{"type":"object","properties":{}}`, is the same in every format.
pub fn parameters_for(format: Format, parameters: &Value) -> Value {
    match format {
        Format::OpenAi | Format::Responses | Format::Anthropic => parameters.clone(),
        Format::OpenAiStrict => strict::parameters(parameters),
        Format::Gemini => gemini::parameters(parameters),
        Format::Mcp => Value::Object(object_root(parameters)),
    }
}

/// Deeper than this, a subschema is replaced by `{}`: serde_json parses no deeper than 128, so
/// only a hand-built value gets here, and recursion stays bounded for it too.
const MAX_DEPTH: usize = 128;

/// The root of a parameter schema as a map with `"type": "object"`: every provider requires an
/// object root, and a non-object value (`true`, `null`) is read as "no declared parameters".
fn object_root(parameters: &Value) -> Map<String, Value> {
    let mut root = match parameters {
        Value::Object(map) => map.clone(),
        _ => Map::from_iter([("properties".to_owned(), json!({}))]),
    };
    root.insert("type".to_owned(), json!("object"));
    root
}

fn declares_parameters(parameters: &Value) -> bool {
    let no_properties = parameters
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    !no_properties || parameters.get("anyOf").is_some()
}

/// The subschema a local `$ref` (`#`, `#/$defs/X`, `#/definitions/X`, any JSON pointer) names.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

/// `$ref`'s target with the referring schema's other keywords laid over it, as both
/// `to_strict_json_schema` and Gemini's `process_schema` inline: the referrer's words win.
fn inline_ref(referrer: &Map<String, Value>, target: &Map<String, Value>) -> Map<String, Value> {
    let mut merged = target.clone();
    for (key, value) in referrer {
        if key != "$ref" {
            merged.insert(key.clone(), value.clone());
        }
    }
    merged
}

/// `allOf`'s items merged into `map`: properties and `required` unite, otherwise the first
/// word on a keyword wins. Neither strict mode nor Gemini takes `allOf`. Items that are `$ref`s
/// are resolved one level; a merged item's own `allOf` is merged in the next of a few rounds.
fn flatten_all_of<'a>(map: &'a Map<String, Value>, root: &Value) -> Cow<'a, Map<String, Value>> {
    if !map.contains_key("allOf") {
        return Cow::Borrowed(map);
    }
    let mut merged = map.clone();
    for _ in 0..8 {
        let Some(items) = merged.remove("allOf") else {
            break;
        };
        for item in items.as_array().into_iter().flatten() {
            let Value::Object(item) = item else { continue };
            let target = item
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| resolve(root, reference))
                .and_then(Value::as_object);
            match target {
                Some(target) => merge_into(&mut merged, &inline_ref(item, target)),
                None => merge_into(&mut merged, item),
            }
        }
    }
    merged.remove("allOf");
    Cow::Owned(merged)
}

fn merge_into(target: &mut Map<String, Value>, part: &Map<String, Value>) {
    for (key, value) in part {
        match (key.as_str(), target.get_mut(key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    mine.entry(name.clone()).or_insert_with(|| schema.clone());
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            (_, None, _) => {
                target.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
}

/// `prefixItems` (and draft-07's array `items`) as one `items` schema: neither OpenAI strict
/// mode nor Gemini takes tuples, so each position may hold any of the tuple's item types;
/// `minItems`/`maxItems` still fix the length.
fn tuple_items(map: &Map<String, Value>) -> Option<Value> {
    let (positions, rest) = match (map.get("prefixItems"), map.get("items")) {
        (Some(Value::Array(prefix)), rest) => (prefix, rest),
        (_, Some(Value::Array(items))) => (items, map.get("additionalItems")),
        _ => return None,
    };
    let mut variants: Vec<Value> = Vec::new();
    for schema in positions.iter().chain(rest.filter(|rest| rest.is_object())) {
        if !variants.contains(schema) {
            variants.push(schema.clone());
        }
    }
    Some(match variants.len() {
        0 => json!({}),
        1 => variants.remove(0),
        _ => json!({"anyOf": variants}),
    })
}

fn type_names(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

mod strict {
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
        "type",
        "enum",
        "const",
        "$ref",
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

    pub(super) fn parameters(parameters: &Value) -> Value {
        let root = Value::Object(object_root(parameters));
        let prepared = prepare(&root, &root, 0);
        ensure_strict(prepared.clone(), &prepared, &mut Inlining::default(), 0)
    }

    /// Pass one: the subset strict mode accepts, with optional properties made nullable.
    pub(super) fn prepare(node: &Value, root: &Value, depth: usize) -> Value {
        let Value::Object(map) = node else {
            return node.clone();
        };
        if depth > MAX_DEPTH {
            return json!({});
        }
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
                "anyOf" => value
                    .as_array()
                    .map(|variants| variants.iter().map(child).collect()),
                "oneOf" if !map.contains_key("anyOf") => {
                    let variants = value.as_array().map(|v| v.iter().map(child).collect());
                    if let Some(variants) = variants {
                        out.insert("anyOf".to_owned(), variants);
                    }
                    continue;
                }
                "format" => value
                    .as_str()
                    .filter(|format| STRING_FORMATS.contains(format))
                    .map(|_| value.clone()),
                key if KEPT.contains(&key) => Some(value.clone()),
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
        let has =
            |map: &Map<String, Value>, keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
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
            if let [item] = items.as_mut_slice() {
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
}

mod gemini {
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
        "propertyOrdering",
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
                if let Some(value) = map.get(*key) {
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
                let required: Vec<Value> = map
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|name| {
                        name.as_str()
                            .is_some_and(|name| properties.contains_key(name))
                    })
                    .cloned()
                    .collect();
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
    /// has none), with the description, and nothing deeper.
    fn cut_off(referrer: &Map<String, Value>, target: &Map<String, Value>) -> Map<String, Value> {
        let kind = target
            .get("type")
            .and_then(Value::as_str)
            .filter(|kind| *kind != "null")
            .unwrap_or("object");
        let mut out = Map::from_iter([("type".to_owned(), json!(kind))]);
        if let Some(description) = referrer.get("description").or(target.get("description")) {
            out.insert("description".to_owned(), description.clone());
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
                Some(whole) if integer => {
                    whole.checked_add(step).map_or(bound.clone(), Value::from)
                }
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
}
