//! `plugin.toml`: the manifest of a command plugin, read and validated before anything runs.
//!
//! Every error names the file, the line when it is known, and the field, as
//! `plugins/word_count/plugin.toml:7: tools[0].command: must be a non-empty list of strings`.
//! Unknown keys are errors, so a typo never passes silently.

use std::collections::BTreeSet;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::registry::is_valid_tool_name;

use super::MANIFEST_FILE;

/// A command plugin's manifest.
///
/// ```toml
/// name = "word_count"          # the plugin's directory name
/// description = "Counts words."
///
/// [[tools]]
/// name = "word_count"
/// toolset = "text"
/// description = "Count the words, lines and characters of a text."
/// emoji = "🔢"
/// command = ["python3", "count.py"]
/// parameters = { type = "object", properties = { text = { type = "string" } }, required = ["text"] }
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Manifest {
    /// The plugin's name: `^[a-zA-Z0-9_-]{1,64}$`, and the name of its directory.
    pub name: String,
    /// What the plugin does.
    #[serde(default)]
    pub description: String,
    /// Its tools; at least one.
    pub tools: Vec<ToolManifest>,
}

/// One tool of a command plugin.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ToolManifest {
    /// The tool's name, as the model calls it.
    pub name: String,
    /// Its toolset.
    pub toolset: String,
    /// The description shown to the model; not empty.
    pub description: String,
    /// An emoji shown in listings (non-empty, at most 8 bytes).
    #[serde(default)]
    pub emoji: Option<String>,
    /// The program and its arguments. A program given as a relative path (`./count.sh`,
    /// `bin/count`) is resolved against the plugin's directory; a bare name (`python3`) is
    /// looked up in `PATH`. The command runs in the plugin's directory.
    #[serde(deserialize_with = "argv")]
    pub command: Vec<String>,
    /// How long one run may take, in seconds (else the config's `default_timeout_secs`).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// The JSON Schema of the arguments, an object schema (no parameters when absent).
    #[serde(default)]
    pub parameters: Option<Map<String, Value>>,
    /// What stdout holds.
    #[serde(default)]
    pub output: OutputFormat,
    /// Whether the tool may replace a tool of the same name (with the operator's permission).
    #[serde(default)]
    pub overrides: bool,
    /// Whether every call goes through the approval gate.
    #[serde(default)]
    pub needs_approval: bool,
    /// The largest answer, in characters, before it is cut.
    #[serde(default)]
    pub max_result_chars: Option<usize>,
    /// Environment variables that must be set for the tool to be available.
    #[serde(default)]
    pub requires_env: Vec<String>,
}

/// What a command writes to stdout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    /// One JSON document, which is the answer; anything else is an error (the default, so a
    /// script that prints a stray line fails loudly instead of answering nonsense).
    #[default]
    Json,
    /// Text: kept as is when it is JSON, else answered as `{"result": text}`, as a `#[tool]`
    /// returning a `String` is.
    Text,
}

/// A manifest that could not be read or is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestError {
    /// The manifest file.
    pub file: PathBuf,
    /// The 1-based line at fault, when known.
    pub line: Option<usize>,
    /// The field at fault, as `tools[0].command` (empty for the whole file).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl std::error::Error for ManifestError {}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

fn argv<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let value = toml::Value::deserialize(deserializer)?;
    let argv: Option<Vec<String>> = match value {
        toml::Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                toml::Value::String(text) => Some(text),
                _ => None,
            })
            .collect(),
        _ => None,
    };
    match argv {
        Some(argv) if argv.first().is_some_and(|program| !program.is_empty()) => Ok(argv),
        _ => Err(serde::de::Error::custom(
            "must be a non-empty list of strings",
        )),
    }
}

impl Manifest {
    /// Reads and validates `dir/plugin.toml`; the manifest's name must be the directory's.
    pub fn load(dir: &Path) -> Result<Manifest, ManifestError> {
        let file = dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&file).map_err(|err| ManifestError {
            file: file.clone(),
            line: None,
            field: String::new(),
            message: format!("cannot read the manifest: {err}"),
        })?;
        let manifest = Self::from_toml_str(&text, &file)?;
        let dir_name = dir.file_name().map(|name| name.to_string_lossy());
        match dir_name {
            Some(dir_name) if dir_name == manifest.name => Ok(manifest),
            dir_name => Err(ManifestError {
                line: Locator::new(&text).line_of("name"),
                file,
                field: "name".into(),
                message: format!(
                    "{:?} is not the name of the plugin's directory ({:?}); they must match",
                    manifest.name,
                    dir_name.unwrap_or_default()
                ),
            }),
        }
    }

    /// Parses and validates manifest text; `file` is only named in errors.
    pub fn from_toml_str(text: &str, file: &Path) -> Result<Manifest, ManifestError> {
        let error = |line, field: String, message: String| ManifestError {
            file: file.to_owned(),
            line,
            field,
            message,
        };
        let manifest: Manifest = toml::from_str(text).map_err(|err| {
            let span = err.span();
            let field = span
                .clone()
                .and_then(|span| Locator::new(text).field_at(span))
                .unwrap_or_default();
            let line = span.map(|span| line_of_offset(text, span.start));
            error(line, field, err.message().to_owned())
        })?;
        manifest.validate().map_err(|(field, message)| {
            let line = Locator::new(text).line_of(&field);
            error(line, field, message)
        })?;
        Ok(manifest)
    }

    /// The rules serde cannot express; `Err` is the field and what is wrong with it.
    fn validate(&self) -> Result<(), (String, String)> {
        name_rule(&self.name).map_err(|message| ("name".to_owned(), message))?;
        if self.tools.is_empty() {
            return Err(("tools".into(), "must declare at least one tool".into()));
        }
        let mut names = BTreeSet::new();
        for (index, tool) in self.tools.iter().enumerate() {
            let field = |name: &str| format!("tools[{index}].{name}");
            if !names.insert(tool.name.as_str()) {
                return Err((
                    field("name"),
                    format!("tool {:?} is declared twice", tool.name),
                ));
            }
            tool.validate()
                .map_err(|(name, message)| (field(&name), message))?;
        }
        Ok(())
    }
}

impl ToolManifest {
    fn validate(&self) -> Result<(), (String, String)> {
        name_rule(&self.name).map_err(|message| ("name".to_owned(), message))?;
        name_rule(&self.toolset).map_err(|message| ("toolset".to_owned(), message))?;
        if self.description.trim().is_empty() {
            return Err((
                "description".into(),
                "must not be empty: the model chooses tools by it".into(),
            ));
        }
        if let Some(emoji) = &self.emoji
            && (emoji.is_empty() || emoji.len() > 8)
        {
            return Err((
                "emoji".into(),
                format!("must be one emoji (1 to 8 bytes), found {emoji:?}"),
            ));
        }
        if self.timeout_secs == Some(0) {
            return Err((
                "timeout_secs".into(),
                "must be a positive number of seconds".into(),
            ));
        }
        if self.max_result_chars == Some(0) {
            return Err((
                "max_result_chars".into(),
                "must be a positive number of characters".into(),
            ));
        }
        for (index, var) in self.requires_env.iter().enumerate() {
            if var.is_empty() || var.contains(['=', '\0']) {
                return Err((
                    format!("requires_env[{index}]"),
                    format!("invalid environment variable name {var:?}"),
                ));
            }
        }
        if let Some(parameters) = &self.parameters {
            validate_parameters(parameters)
                .map_err(|(name, message)| (format!("parameters.{name}"), message))?;
        }
        Ok(())
    }

    /// The parameter schema as the registry takes it.
    pub fn parameters_schema(&self) -> Value {
        match &self.parameters {
            Some(parameters) => Value::Object(parameters.clone()),
            None => crate::tool::schema::empty_object(),
        }
    }
}

fn name_rule(name: &str) -> Result<(), String> {
    if is_valid_tool_name(name) {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is invalid: use 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'"
        ))
    }
}

/// The shape providers require: an object schema whose `required` names its properties.
fn validate_parameters(parameters: &Map<String, Value>) -> Result<(), (String, String)> {
    if let Some(kind) = parameters.get("type")
        && kind != "object"
    {
        return Err((
            "type".into(),
            format!("must be \"object\" (tool arguments are an object), found {kind}"),
        ));
    }
    let properties = match parameters.get("properties") {
        None => None,
        Some(Value::Object(properties)) => Some(properties),
        Some(_) => {
            return Err((
                "properties".into(),
                "must be a table of parameter schemas".into(),
            ));
        }
    };
    if let Some(required) = parameters.get("required") {
        let names = required.as_array().and_then(|items| {
            items
                .iter()
                .map(Value::as_str)
                .collect::<Option<Vec<&str>>>()
        });
        let Some(names) = names else {
            return Err((
                "required".into(),
                "must be a list of parameter names".into(),
            ));
        };
        if let Some(missing) = names
            .iter()
            .find(|name| !properties.is_some_and(|p| p.contains_key(**name)))
        {
            return Err((
                "required".into(),
                format!("names {missing:?}, which is not in `properties`"),
            ));
        }
    }
    Ok(())
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Every key and value of a document with its dotted path, to turn spans into field names
/// and field names into lines (the TOML parser reports spans, not paths).
struct Locator<'t> {
    text: &'t str,
    /// Path, key span (none for array items), value span.
    nodes: Vec<(String, Option<Range<usize>>, Range<usize>)>,
}

impl<'t> Locator<'t> {
    fn new(text: &'t str) -> Self {
        let mut locator = Self {
            text,
            nodes: Vec::new(),
        };
        if let Ok(root) = DeTable::parse(text) {
            locator.table(root.get_ref(), "");
        }
        locator
    }

    fn table(&mut self, table: &DeTable<'_>, prefix: &str) {
        for (key, value) in table.iter() {
            let path = if prefix.is_empty() {
                key.get_ref().to_string()
            } else {
                format!("{prefix}.{}", key.get_ref())
            };
            self.nodes
                .push((path.clone(), Some(key.span()), value.span()));
            self.value(value, &path);
        }
    }

    fn value(&mut self, value: &Spanned<DeValue<'_>>, path: &str) {
        match value.get_ref() {
            DeValue::Table(table) => self.table(table, path),
            DeValue::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    let path = format!("{path}[{index}]");
                    self.nodes.push((path.clone(), None, item.span()));
                    self.value(item, &path);
                }
            }
            _ => {}
        }
    }

    /// The most specific field whose key or value holds `span`.
    fn field_at(&self, span: Range<usize>) -> Option<String> {
        let holds = |range: &Range<usize>| range.start <= span.start && span.end <= range.end;
        self.nodes
            .iter()
            .filter(|(_, key, value)| key.as_ref().is_some_and(holds) || holds(value))
            .max_by_key(|(path, _, value)| (path.len(), std::cmp::Reverse(value.len())))
            .map(|(path, _, _)| path.clone())
    }

    /// The line of `field`'s key (or of the value, for an array item).
    fn line_of(&self, field: &str) -> Option<usize> {
        self.nodes
            .iter()
            .find(|(path, _, _)| path == field)
            .map(|(_, key, value)| line_of_offset(self.text, key.as_ref().unwrap_or(value).start))
    }
}
