//! Provider limits: what each provider documents it refuses, checked before the request.
//!
//! A tool list past a provider's limit fails at run time with a 400 (too many tools, a name
//! or description too long, a strict schema nested too deep, a keyword Gemini does not know).
//! [`check`] finds those in definitions already shaped for a [`Format`], so CI or an agent can
//! refuse the list first, with the limit and its source named. `lint` runs it over the
//! selection an agent would send ([`Rule::ProviderLimit`](crate::definitions::lint::Rule)),
//! and `definitions` exits 1 past a limit.
//!
//! Each [`Limit`] cites the page that documents it. Limits change (OpenAI's strict-mode limits
//! were raised in 2025): when a provider moves one, change the constant and its source.
//!
//! ```
//! use hermes_tools::definitions::limits::{self, OPENAI_DESCRIPTION_CHARS};
//! use hermes_tools::Format;
//! use serde_json::json;
//!
//! let long = "x".repeat(1025);
//! let definitions = [json!({"type": "function", "function": {
//!     "name": "web_search", "description": long, "parameters": {"type": "object"}
//! }})];
//! let violations = limits::check(Format::OpenAi, &definitions).unwrap_err();
//! assert_eq!(violations[0].limit, &OPENAI_DESCRIPTION_CHARS);
//! assert!(violations[0].to_string().contains("platform.openai.com"));
//! ```

use std::fmt;

use serde_json::{Map, Value};

use super::formats::Format;

/// One documented limit of a provider.
#[derive(Debug, PartialEq, Eq)]
pub struct Limit {
    /// The provider that enforces it.
    pub provider: &'static str,
    /// What is limited, as the messages say it ("tools per request").
    pub what: &'static str,
    /// The largest accepted value (for a name rule, its longest length).
    pub max: usize,
    /// Where the provider documents it.
    pub source: &'static str,
}

/// Chat Completions `tools`: "A max of 128 functions are supported."
/// Source: <https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools>
pub const OPENAI_MAX_TOOLS: Limit = Limit {
    provider: "OpenAI",
    what: "tools per request",
    max: 128,
    source: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools",
};
/// A function's name: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a
/// maximum length of 64." Source:
/// <https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools-function-name>
pub const OPENAI_NAME: Limit = Limit {
    provider: "OpenAI",
    what: "function name (a-z, A-Z, 0-9, '_', '-'; characters)",
    max: 64,
    source: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools-function-name",
};
/// A function's description: refused past 1,024 characters (`string_above_max_length` on
/// `tools[i].function.description`). Source: the Chat Completions API's validation of
/// <https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools-function-description>
pub const OPENAI_DESCRIPTION_CHARS: Limit = Limit {
    provider: "OpenAI",
    what: "characters of a function description",
    max: 1024,
    source: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools-function-description",
};
/// Strict mode: "up to 10 levels of nesting". Source:
/// <https://platform.openai.com/docs/guides/structured-outputs#objects-have-limitations-on-nesting-depth-and-size>
pub const OPENAI_STRICT_DEPTH: Limit = Limit {
    provider: "OpenAI strict mode",
    what: "levels of object nesting in a schema",
    max: 10,
    source: "https://platform.openai.com/docs/guides/structured-outputs#objects-have-limitations-on-nesting-depth-and-size",
};
/// Strict mode: "up to 5000 object properties total". Source: as [`OPENAI_STRICT_DEPTH`].
pub const OPENAI_STRICT_PROPERTIES: Limit = Limit {
    provider: "OpenAI strict mode",
    what: "object properties in a schema",
    max: 5000,
    source: "https://platform.openai.com/docs/guides/structured-outputs#objects-have-limitations-on-nesting-depth-and-size",
};
/// Strict mode: "up to 1000 enum values across all enum properties". Source:
/// <https://platform.openai.com/docs/guides/structured-outputs#limitations-on-enum-size>
pub const OPENAI_STRICT_ENUM_VALUES: Limit = Limit {
    provider: "OpenAI strict mode",
    what: "enum values in a schema",
    max: 1000,
    source: "https://platform.openai.com/docs/guides/structured-outputs#limitations-on-enum-size",
};
/// Strict mode: one string enum of more than 250 values may have at most 15,000 characters
/// of values. Source: as [`OPENAI_STRICT_ENUM_VALUES`].
pub const OPENAI_STRICT_LARGE_ENUM_CHARS: Limit = Limit {
    provider: "OpenAI strict mode",
    what: "characters of the values of one string enum of more than 250 values",
    max: 15_000,
    source: "https://platform.openai.com/docs/guides/structured-outputs#limitations-on-enum-size",
};
/// The enum size past which [`OPENAI_STRICT_LARGE_ENUM_CHARS`] applies.
const OPENAI_STRICT_LARGE_ENUM: usize = 250;
/// Strict mode: "the total string length of all property names, definition names, enum
/// values, and const values cannot exceed 120,000 characters". Source:
/// <https://platform.openai.com/docs/guides/structured-outputs#limitations-on-total-string-size>
pub const OPENAI_STRICT_STRING_CHARS: Limit = Limit {
    provider: "OpenAI strict mode",
    what: "characters of property names, definition names, enum and const values in a schema",
    max: 120_000,
    source: "https://platform.openai.com/docs/guides/structured-outputs#limitations-on-total-string-size",
};
/// A tool's name "must match the regex `^[a-zA-Z0-9_-]{1,64}$`". Source:
/// <https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#specifying-client-tools>
pub const ANTHROPIC_NAME: Limit = Limit {
    provider: "Anthropic",
    what: "tool name (^[a-zA-Z0-9_-]{1,64}$; characters)",
    max: 64,
    source: "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#specifying-client-tools",
};
/// `input_schema` property keys: "Property keys should match pattern `^[a-zA-Z0-9_.-]{1,64}$`"
/// (the Messages API's validation error). Source: the `input_schema` of
/// <https://docs.anthropic.com/en/api/messages#body-tools>
pub const ANTHROPIC_PROPERTY_KEY: Limit = Limit {
    provider: "Anthropic",
    what: "property key (^[a-zA-Z0-9_.-]{1,64}$; characters)",
    max: 64,
    source: "https://docs.anthropic.com/en/api/messages#body-tools",
};
/// `Tool.functionDeclarations`: "Maximum 128 function declarations can be provided." Source:
/// <https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Tool>
pub const GEMINI_MAX_DECLARATIONS: Limit = Limit {
    provider: "Gemini",
    what: "function declarations per request",
    max: 128,
    source: "https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Tool",
};
/// `FunctionDeclaration.name`: "Must start with a letter or an underscore. Must be a-z, A-Z,
/// 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 64."
/// Source: <https://ai.google.dev/api/caching#FunctionDeclaration>
pub const GEMINI_NAME: Limit = Limit {
    provider: "Gemini",
    what: "function name (a letter or '_' first, then a-z, A-Z, 0-9, '_', '.', ':', '-'; characters)",
    max: 64,
    source: "https://ai.google.dev/api/caching#FunctionDeclaration",
};
/// `Schema`: the OpenAPI 3.0 subset Gemini accepts; any other keyword is refused. `max` is
/// unused (0). Source: <https://ai.google.dev/api/caching#Schema>
pub const GEMINI_SCHEMA_KEYWORDS: Limit = Limit {
    provider: "Gemini",
    what: "schema keywords (the fields of its Schema object)",
    max: 0,
    source: "https://ai.google.dev/api/caching#Schema",
};
/// The fields of Gemini's `Schema` object ([`GEMINI_SCHEMA_KEYWORDS`]).
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Every limit [`check`] applies, for documentation and tests.
pub const ALL: &[&Limit] = &[
    &OPENAI_MAX_TOOLS,
    &OPENAI_NAME,
    &OPENAI_DESCRIPTION_CHARS,
    &OPENAI_STRICT_DEPTH,
    &OPENAI_STRICT_PROPERTIES,
    &OPENAI_STRICT_ENUM_VALUES,
    &OPENAI_STRICT_LARGE_ENUM_CHARS,
    &OPENAI_STRICT_STRING_CHARS,
    &ANTHROPIC_NAME,
    &ANTHROPIC_PROPERTY_KEY,
    &GEMINI_MAX_DECLARATIONS,
    &GEMINI_NAME,
    &GEMINI_SCHEMA_KEYWORDS,
];

/// A definition list past a provider's limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitViolation {
    /// The tool at fault; for a limit on the list (tools per request), the first tool past it.
    pub tool: Option<String>,
    /// The limit.
    pub limit: &'static Limit,
    /// What is wrong and what to do, with the limit and its source.
    pub message: String,
}

impl fmt::Display for LimitViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(tool) = &self.tool {
            write!(f, "tool `{tool}`: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Checks `definitions`, shaped for `format` (as [`ToolRegistry::definitions`] returns them),
/// against every limit the format's provider documents; `mcp` has none. Violations are in
/// list order, the list's own limits first.
///
/// [`ToolRegistry::definitions`]: crate::ToolRegistry::definitions
///
/// # Errors
///
/// Every violation found, each naming the limit and where it is documented.
pub fn check<'a>(
    format: Format,
    definitions: impl IntoIterator<Item = &'a Value>,
) -> Result<(), Vec<LimitViolation>> {
    let definitions: Vec<&Value> = definitions.into_iter().collect();
    let mut found = Vec::new();
    let count_limit = match format {
        Format::OpenAi | Format::OpenAiStrict => Some(&OPENAI_MAX_TOOLS),
        Format::Gemini => Some(&GEMINI_MAX_DECLARATIONS),
        Format::Responses | Format::Anthropic | Format::Mcp => None,
    };
    if let Some(limit) = count_limit
        && definitions.len() > limit.max
    {
        let first_over = definitions
            .get(limit.max)
            .and_then(|definition| parts(format, definition).name);
        found.push(violation(
            first_over.map(str::to_owned),
            limit,
            format!(
                "the selection has {} tools, past the {} {} of {}; select fewer toolsets \
                 (`--toolsets`, `--disable`)",
                definitions.len(),
                limit.max,
                limit.what,
                limit.provider
            ),
        ));
    }
    for definition in definitions {
        check_one(format, definition, &mut found);
    }
    if found.is_empty() { Ok(()) } else { Err(found) }
}

/// The name, description, parameters and strictness of a definition in `format`.
struct Parts<'v> {
    name: Option<&'v str>,
    description: Option<&'v str>,
    parameters: Option<&'v Value>,
    strict: bool,
}

fn parts(format: Format, definition: &Value) -> Parts<'_> {
    let body = match format {
        Format::OpenAi | Format::OpenAiStrict => definition.get("function").unwrap_or(definition),
        _ => definition,
    };
    let key = match format {
        Format::Anthropic => "input_schema",
        Format::Mcp => "inputSchema",
        _ => "parameters",
    };
    Parts {
        name: body.get("name").and_then(Value::as_str),
        description: body.get("description").and_then(Value::as_str),
        parameters: body.get(key),
        strict: body.get("strict").and_then(Value::as_bool) == Some(true),
    }
}

fn check_one(format: Format, definition: &Value, found: &mut Vec<LimitViolation>) {
    let parts = parts(format, definition);
    let name = parts.name.unwrap_or_default();
    let tool = Some(name.to_owned());
    let mut push = |limit: &'static Limit, message: String| {
        found.push(violation(tool.clone(), limit, message));
    };
    let name_limit = match format {
        Format::OpenAi | Format::OpenAiStrict | Format::Responses => Some(&OPENAI_NAME),
        Format::Anthropic => Some(&ANTHROPIC_NAME),
        Format::Gemini => Some(&GEMINI_NAME),
        Format::Mcp => None,
    };
    if let Some(limit) = name_limit
        && !name_fits(limit, format == Format::Gemini, name)
    {
        push(
            limit,
            format!(
                "the name {name:?} breaks {}'s {} rule: at most {}; rename the tool",
                limit.provider, limit.what, limit.max
            ),
        );
    }
    if matches!(format, Format::OpenAi | Format::OpenAiStrict) {
        let chars = parts.description.unwrap_or_default().chars().count();
        let limit = &OPENAI_DESCRIPTION_CHARS;
        if chars > limit.max {
            push(
                limit,
                format!(
                    "the description has {chars} characters, past the {} {} of {}; move the \
                     detail into the parameters' descriptions or the system prompt",
                    limit.max, limit.what, limit.provider
                ),
            );
        }
    }
    let Some(parameters) = parts.parameters else {
        return;
    };
    match format {
        Format::OpenAiStrict | Format::Responses if parts.strict => {
            for (limit, message) in strict_limits(parameters) {
                push(limit, message);
            }
        }
        Format::Anthropic => {
            let mut keys = Vec::new();
            property_keys(parameters, 0, &mut keys);
            for key in keys.into_iter().filter(|key| !property_key_fits(key)) {
                let limit = &ANTHROPIC_PROPERTY_KEY;
                push(
                    limit,
                    format!(
                        "the parameter key {key:?} breaks {}'s {} rule: at most {}; rename it",
                        limit.provider, limit.what, limit.max
                    ),
                );
            }
        }
        Format::Gemini => {
            let mut unknown = Vec::new();
            gemini_keywords(parameters, "", 0, &mut unknown);
            for (at, keyword) in unknown {
                let limit = &GEMINI_SCHEMA_KEYWORDS;
                push(
                    limit,
                    format!(
                        "the schema keyword {keyword:?} at {at:?} is not one of Gemini's {}; \
                         remove it or express it in a description",
                        limit.what
                    ),
                );
            }
        }
        _ => {}
    }
}

fn violation(tool: Option<String>, limit: &'static Limit, message: String) -> LimitViolation {
    LimitViolation {
        tool,
        limit,
        message: format!("{message} (limit: {}, {})", limit.provider, limit.source),
    }
}

/// Whether `name` follows `limit`'s rule: Gemini's (a letter or `_` first; `.` and `:` too)
/// when `gemini`, else OpenAI's and Anthropic's `[a-zA-Z0-9_-]`.
fn name_fits(limit: &Limit, gemini: bool, name: &str) -> bool {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let sized = (1..=limit.max).contains(&name.len());
    if gemini {
        let first = name.bytes().next();
        sized
            && first.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && name.bytes().all(|b| plain(b) || b == b'.' || b == b':')
    } else {
        sized && name.bytes().all(plain)
    }
}

fn property_key_fits(key: &str) -> bool {
    (1..=ANTHROPIC_PROPERTY_KEY.max).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// Bounds the walks below (serde_json parses no deeper than 128).
const WALK_DEPTH: usize = 128;

/// The subschemas of `schema`: its properties, items, branches and definitions.
fn children(schema: &Map<String, Value>) -> impl Iterator<Item = (&str, &Value)> {
    let maps = ["properties", "$defs", "definitions", "patternProperties"]
        .into_iter()
        .filter_map(|key| Some((key, schema.get(key)?.as_object()?)))
        .flat_map(|(key, map)| map.values().map(move |value| (key, value)));
    let lists = ["anyOf", "allOf", "oneOf", "prefixItems"]
        .into_iter()
        .filter_map(|key| Some((key, schema.get(key)?.as_array()?)))
        .flat_map(|(key, list)| list.iter().map(move |value| (key, value)));
    let single = ["items", "additionalProperties", "not"]
        .into_iter()
        .filter_map(|key| Some((key, schema.get(key)?)))
        .filter(|(_, value)| value.is_object());
    maps.chain(lists).chain(single)
}

/// What strict mode counts in a schema.
#[derive(Default)]
struct StrictSize {
    depth: usize,
    properties: usize,
    enum_values: usize,
    strings: usize,
    /// The character count of the largest string enum of more than 250 values.
    large_enum_chars: usize,
}

fn strict_limits(parameters: &Value) -> Vec<(&'static Limit, String)> {
    let mut size = StrictSize::default();
    measure(parameters, 0, &mut size);
    let checks = [
        (&OPENAI_STRICT_DEPTH, size.depth),
        (&OPENAI_STRICT_PROPERTIES, size.properties),
        (&OPENAI_STRICT_ENUM_VALUES, size.enum_values),
        (&OPENAI_STRICT_LARGE_ENUM_CHARS, size.large_enum_chars),
        (&OPENAI_STRICT_STRING_CHARS, size.strings),
    ];
    checks
        .into_iter()
        .filter(|(limit, value)| value > &limit.max)
        .map(|(limit, value)| {
            (
                limit,
                format!(
                    "the strict schema has {value} {}, past the {} of {}; simplify the \
                     parameters, or publish the tool without strict mode",
                    limit.what, limit.max, limit.provider
                ),
            )
        })
        .collect()
}

/// Adds `schema`'s counts to `size`; `level` is the object nesting above it.
fn measure(schema: &Value, level: usize, size: &mut StrictSize) {
    let Some(map) = schema.as_object() else {
        return;
    };
    if level >= WALK_DEPTH {
        return;
    }
    let is_object = map.contains_key("properties")
        || match map.get("type") {
            Some(Value::String(kind)) => kind == "object",
            Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
            _ => false,
        };
    let level = level + usize::from(is_object);
    size.depth = size.depth.max(level);
    if let Some(properties) = map.get("properties").and_then(Value::as_object) {
        size.properties += properties.len();
        size.strings += properties
            .keys()
            .map(|key| key.chars().count())
            .sum::<usize>();
    }
    for key in ["$defs", "definitions"] {
        if let Some(definitions) = map.get(key).and_then(Value::as_object) {
            size.strings += definitions
                .keys()
                .map(|key| key.chars().count())
                .sum::<usize>();
        }
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        size.enum_values += values.len();
        let chars: usize = values
            .iter()
            .filter_map(Value::as_str)
            .map(|v| v.chars().count())
            .sum();
        size.strings += chars;
        if values.len() > OPENAI_STRICT_LARGE_ENUM && values.iter().all(Value::is_string) {
            size.large_enum_chars = size.large_enum_chars.max(chars);
        }
    }
    if let Some(Value::String(value)) = map.get("const") {
        size.strings += value.chars().count();
    }
    for (key, child) in children(map) {
        // A definition is a root of its own: it is nested where it is used.
        let base = if matches!(key, "$defs" | "definitions") {
            0
        } else {
            level
        };
        measure(child, base, size);
    }
}

/// Every property key of `schema`, nested ones included.
fn property_keys<'v>(schema: &'v Value, depth: usize, keys: &mut Vec<&'v str>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    if depth >= WALK_DEPTH {
        return;
    }
    if let Some(properties) = map.get("properties").and_then(Value::as_object) {
        keys.extend(properties.keys().map(String::as_str));
    }
    for (_, child) in children(map) {
        property_keys(child, depth + 1, keys);
    }
}

/// Every keyword of `schema` outside Gemini's `Schema`, with its JSON pointer.
fn gemini_keywords(schema: &Value, at: &str, depth: usize, unknown: &mut Vec<(String, String)>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    if depth >= WALK_DEPTH {
        return;
    }
    for (key, value) in map {
        if !GEMINI_KEYWORDS.contains(&key.as_str()) {
            unknown.push((
                if at.is_empty() { "/".into() } else { at.into() },
                key.clone(),
            ));
            continue;
        }
        match (key.as_str(), value) {
            ("properties", Value::Object(properties)) => {
                for (name, child) in properties {
                    gemini_keywords(
                        child,
                        &format!("{at}/properties/{name}"),
                        depth + 1,
                        unknown,
                    );
                }
            }
            ("anyOf", Value::Array(branches)) => {
                for (index, child) in branches.iter().enumerate() {
                    gemini_keywords(child, &format!("{at}/anyOf/{index}"), depth + 1, unknown);
                }
            }
            ("items", child) => gemini_keywords(child, &format!("{at}/items"), depth + 1, unknown),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
