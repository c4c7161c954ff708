//! The lock file's format: one canonical JSON document, keys sorted at every level, pretty
//! printed, one block per tool holding its `source` (`file:line`) and its definition in each
//! format. Sorted keys and one value per line make a change to one tool a small diff of its
//! own block.

use std::collections::BTreeMap;
use std::str::FromStr;

use serde_json::{Map, Value};

use crate::definitions::formats::Format;

/// The key naming the lock's format version, first in the document.
const VERSION_KEY: &str = "hermes-tools-lock";
/// The version this code writes and reads.
const VERSION: u64 = 1;

/// What the lock records of one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct LockedTool {
    /// Where the tool is declared, `file:line` (from its provenance).
    pub source: String,
    /// The tool's published definition in each format, canonical (keys sorted).
    pub definitions: BTreeMap<Format, Value>,
}

/// A lock: every tool's published definitions, by tool name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Lock {
    /// The tools, by name.
    pub tools: BTreeMap<String, LockedTool>,
}

impl Lock {
    /// The lock as the text of a lock file (canonical: the same tools give the same bytes).
    pub fn to_text(&self) -> String {
        let mut tools = Map::new();
        for (name, tool) in &self.tools {
            let mut block = Map::new();
            block.insert("source".to_owned(), Value::String(tool.source.clone()));
            for (format, definition) in &tool.definitions {
                block.insert(format.as_str().to_owned(), canonical(definition));
            }
            tools.insert(name.clone(), Value::Object(sorted(block)));
        }
        let mut root = Map::new();
        root.insert(VERSION_KEY.to_owned(), Value::from(VERSION));
        root.insert("tools".to_owned(), Value::Object(tools));
        // Serializing a `Value` cannot fail: its keys are strings.
        let mut text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads a lock file's text; `Err` says what is wrong with it.
    pub(super) fn parse(text: &str) -> Result<Lock, String> {
        let root: Value =
            serde_json::from_str(text).map_err(|err| format!("it is not JSON: {err}"))?;
        match root.get(VERSION_KEY).and_then(Value::as_u64) {
            Some(VERSION) => {}
            Some(other) => {
                return Err(format!(
                    "it is version {other} of the lock format; this hermes-tools reads version {VERSION}"
                ));
            }
            None => return Err(format!("it has no \"{VERSION_KEY}\": {VERSION} key")),
        }
        let Some(tools) = root.get("tools").and_then(Value::as_object) else {
            return Err("it has no \"tools\" object".to_owned());
        };
        let mut lock = Lock::default();
        for (name, block) in tools {
            let Some(block) = block.as_object() else {
                return Err(format!("tool {name:?} is not an object"));
            };
            let mut tool = LockedTool {
                source: String::new(),
                definitions: BTreeMap::new(),
            };
            for (key, value) in block {
                if key == "source" {
                    tool.source = value.as_str().unwrap_or_default().to_owned();
                    continue;
                }
                let format = Format::from_str(key)
                    .map_err(|err| format!("tool {name:?} has the key {key:?}: {err}"))?;
                tool.definitions.insert(format, canonical(value));
            }
            lock.tools.insert(name.clone(), tool);
        }
        Ok(lock)
    }
}

/// `value` with the keys of every object in sorted order (with serde_json's `preserve_order`,
/// a map keeps insertion order, so sorting is explicit).
pub(super) fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(sorted(
            map.iter()
                .map(|(key, value)| (key.clone(), canonical(value)))
                .collect(),
        )),
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

fn sorted(map: Map<String, Value>) -> Map<String, Value> {
    let mut entries: Vec<(String, Value)> = map.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}
