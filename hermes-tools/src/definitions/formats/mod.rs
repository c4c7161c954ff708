//! Formats: one tool definition in the shape each provider's API takes.
//!
//! The rules are documented on [`Format`], where users read them.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value, json};

// The subschema a local `$ref` names; `strict` and `gemini` call it `super::resolve` too.
use crate::tool::schema::resolve_ref as resolve;

mod gemini;
pub(crate) mod native;
mod strict;

#[cfg(feature = "lint")]
pub(crate) use strict::inexpressible as strict_inexpressible;
#[cfg(test)]
mod tests;

/// Formats: one tool definition in the shape each provider's API takes.
///
/// A tool is a name, a description and a parameter schema (JSON Schema Draft 2020-12, as
/// `#[tool]` derives it, or whatever an MCP server registered). Providers want
/// that triple wrapped differently, and some accept only a subset of JSON Schema:
///
/// | [`Format`] | definition | parameters |
/// | --- | --- | --- |
/// | `openai` | `{"type":"function","function":{name, description, parameters}}` | as given |
/// | `openai-strict` | the same with `"strict": true` | rewritten for OpenAI structured outputs (see below) |
/// | `responses` | `{"type":"function", name, description, parameters, "strict": false}` | as given |
/// | `anthropic` | `{name, description, input_schema}` | as given |
/// | `gemini` | `{name, description, parameters}` (a `FunctionDeclaration`) | rewritten to Gemini's OpenAPI 3.0 subset |
/// | `mcp` | `{name, description, inputSchema}` | as given, with `"type": "object"` at the root |
///
/// The rewrites only ever loosen what the schema accepts (a dropped `maxLength`, a numeric enum
/// turned into a description): dispatch still validates arguments against the tool's own schema,
/// so a constraint a provider cannot express is enforced there instead. No input makes these
/// functions panic; cyclic `$ref`s and non-object values are handled.
///
/// Strict mode cannot express every schema: a free-form object (a map with any keys, such as
/// `delegate_task`'s `arguments`) would have to become an empty closed object, and the model
/// could then send nothing in it. Such a tool is published in `openai-strict` with
/// `"strict": false` and its schema as given (the model still calls it; OpenAI just does not
/// constrain its output), and `lint` reports it ([`Rule::StrictMode`](crate::definitions::lint::Rule)).
///
/// ```
/// use hermes_tools::{DefinitionsRequest, Format, tool::Tool, ToolRegistry};
/// use serde_json::json;
///
/// let parameters = json!({
///     "type": "object",
///     "properties": {
///         "city": {"type": "string"},
///         "days": {"type": ["integer", "null"], "format": "uint8"}
///     },
///     "required": ["city"]
/// });
/// let registry = ToolRegistry::new();
/// let tool = Tool::builder("forecast", "weather")
///     .description("The weather to come.")
///     .parameters(parameters)
///     .build();
/// registry.register(tool).unwrap();
/// let format: Format = "gemini".parse().unwrap();
/// let definitions = registry.definitions(&DefinitionsRequest::all().format(format)).unwrap();
/// assert_eq!(
///     definitions[0],
///     json!({
///         "name": "forecast",
///         "description": "The weather to come.",
///         "parameters": {
///             "type": "object",
///             "properties": {
///                 "city": {"type": "string"},
///                 "days": {"type": "integer", "nullable": true}
///             },
///             "required": ["city"]
///         }
///     })
/// );
/// ```
///
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormat {
    /// The name given.
    pub name: String,
}

impl std::fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown tool format {:?}; valid formats are {}",
            self.name,
            valid_names()
        )
    }
}

impl std::error::Error for UnknownFormat {}

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
/// `parameters` is transformed as [`parameters_for`] does (for `openai-strict`, only when strict
/// mode can express them; otherwise they go out as given with `"strict": false`). A tool without parameters publishes
/// `{"type":"object","properties":{}}` in every format, Gemini included (which documents the key
/// as optional and has at times refused an empty `properties`: one shape everywhere wins here).
pub(crate) fn definition(
    format: Format,
    name: &str,
    description: &str,
    parameters: &Value,
) -> Value {
    // Built by moving values into maps: `json!` would serialize the schema into a second copy.
    // What strict mode cannot express goes out as given, not strict (see the module docs):
    // decided before the strict rewrite, which such a schema would only waste.
    let strict = format == Format::OpenAiStrict && strict::inexpressible(parameters).is_none();
    let parameters = match format {
        Format::OpenAiStrict if !strict => Value::Object(object_root(parameters)),
        _ => parameters_for(format, parameters),
    };
    let text = |value: &str| Value::String(value.to_owned());
    let function = |strict: Option<bool>, parameters: Value| {
        let mut function = Map::with_capacity(4);
        function.insert("name".into(), text(name));
        function.insert("description".into(), text(description));
        function.insert("parameters".into(), parameters);
        if let Some(strict) = strict {
            function.insert("strict".into(), Value::Bool(strict));
        }
        function
    };
    let tagged = |mut body: Map<String, Value>| {
        let mut tool = Map::with_capacity(body.len() + 1);
        tool.insert("type".into(), text("function"));
        tool.append(&mut body);
        Value::Object(tool)
    };
    let named = |key: &str, parameters: Value| {
        let mut tool = Map::with_capacity(3);
        tool.insert("name".into(), text(name));
        tool.insert("description".into(), text(description));
        tool.insert(key.into(), parameters);
        Value::Object(tool)
    };
    match format {
        Format::OpenAi => tagged(Map::from_iter([(
            "function".to_owned(),
            Value::Object(function(None, parameters)),
        )])),
        Format::OpenAiStrict => tagged(Map::from_iter([(
            "function".to_owned(),
            Value::Object(function(Some(strict), parameters)),
        )])),
        // `strict` is explicit: the Responses API otherwise tries to make the schema strict
        // itself, and falls back silently when it cannot.
        Format::Responses => tagged(function(Some(false), parameters)),
        Format::Anthropic => named("input_schema", parameters),
        // Gemini documents `parameters` as optional and has refused an empty `properties`,
        // but every format publishes the same empty object schema for a tool without
        // parameters, so that one declaration reads the same everywhere.
        Format::Gemini => named("parameters", parameters),
        Format::Mcp => named("inputSchema", parameters),
    }
}

/// `parameters` transformed for `format`; see the [module documentation](self) for the rules.
///
/// A tool with no parameters, `{"type":"object","properties":{}}`, stays that in every format
/// but `openai-strict`, which closes it with `"additionalProperties": false, "required": []`.
pub(crate) fn parameters_for(format: Format, parameters: &Value) -> Value {
    match format {
        Format::OpenAi | Format::Responses | Format::Anthropic => parameters.clone(),
        Format::OpenAiStrict => strict::parameters(parameters),
        Format::Gemini => gemini::parameters(parameters),
        Format::Mcp => Value::Object(object_root(parameters)),
    }
}

/// How deep the rewrites follow a schema; below that a subschema is `{}` (or left as it is by
/// the port of openai-python). serde_json parses no deeper than 128, so only a hand-built value
/// gets here, and recursion stays bounded for it too.
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

/// The JSON Schema type names.
const TYPE_NAMES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// The valid names in `type`, each once: a single name or a list of them.
fn type_names(map: &Map<String, Value>) -> Vec<&str> {
    let names: Vec<&str> = match map.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mut valid = Vec::new();
    for name in names {
        if TYPE_NAMES.contains(&name) && !valid.contains(&name) {
            valid.push(name);
        }
    }
    valid
}

/// Whether a keyword copied as it is has a value of the kind its meta-schema wants, so that a
/// malformed input (`"minItems": -1`, `"description": 5`) cannot make the output invalid.
fn well_typed(key: &str, value: &Value) -> bool {
    match key {
        "title" | "description" | "pattern" => value.is_string(),
        "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties" | "maxProperties" => {
            value.is_u64()
        }
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => value.is_number(),
        "multipleOf" => value.as_f64().is_some_and(|factor| factor > 0.0),
        "enum" => value.is_array(),
        _ => true,
    }
}
