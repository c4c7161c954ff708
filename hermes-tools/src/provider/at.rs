//! A place in a reply: a JSON value and the pointer to it, so every error says where it is.
//!
//! Replies are walked by hand rather than deserialized into types: a serde error says "invalid
//! type" at a line and column of text the caller may never have seen, where the model's reply
//! was a value; this says `/choices/0/message/tool_calls/1/function/arguments`.

use serde_json::{Map, Value};

use super::ReplyError;

/// A value in a reply, and the JSON pointer to it from the reply's root.
#[derive(Clone, Debug)]
pub(super) struct At<'a> {
    value: &'a Value,
    pointer: String,
}

impl<'a> At<'a> {
    /// The whole reply.
    pub(super) fn root(value: &'a Value) -> Self {
        Self {
            value,
            pointer: String::new(),
        }
    }

    pub(super) fn value(&self) -> &'a Value {
        self.value
    }

    #[cfg(test)]
    pub(super) fn pointer(&self) -> &str {
        &self.pointer
    }

    /// An error at this place.
    pub(super) fn error(&self, message: impl Into<String>) -> ReplyError {
        ReplyError::new(self.pointer.clone(), message)
    }

    /// An error at member `key` of this place (which may be absent).
    pub(super) fn error_at(&self, key: &str, message: impl Into<String>) -> ReplyError {
        ReplyError::new(child_pointer(&self.pointer, key), message)
    }

    /// The error for a value of the wrong JSON type.
    pub(super) fn expected(&self, what: &str) -> ReplyError {
        self.error(format!("expected {what}, found {}", kind(self.value)))
    }

    /// Member `key`, when this is an object holding it with a value other than `null`
    /// (providers write an absent optional field either way).
    pub(super) fn get(&self, key: &str) -> Option<At<'a>> {
        match self.value.get(key) {
            None | Some(Value::Null) => None,
            Some(value) => Some(At {
                value,
                pointer: child_pointer(&self.pointer, key),
            }),
        }
    }

    /// Member `key`, which must be there (and not `null`); `why` says what it is for.
    pub(super) fn field(&self, key: &str, why: &str) -> Result<At<'a>, ReplyError> {
        self.get(key)
            .ok_or_else(|| self.error_at(key, format!("missing: {why}")))
    }

    /// Whether this is an object with member `key` (even `null`).
    pub(super) fn has(&self, key: &str) -> bool {
        self.value.get(key).is_some()
    }

    pub(super) fn object(&self) -> Result<&'a Map<String, Value>, ReplyError> {
        self.value
            .as_object()
            .ok_or_else(|| self.expected("an object"))
    }

    /// The elements of this array, each with its pointer.
    pub(super) fn array(&self) -> Result<Vec<At<'a>>, ReplyError> {
        let items = self
            .value
            .as_array()
            .ok_or_else(|| self.expected("an array"))?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(index, value)| At {
                value,
                pointer: format!("{}/{index}", self.pointer),
            })
            .collect())
    }

    pub(super) fn str(&self) -> Result<&'a str, ReplyError> {
        self.value.as_str().ok_or_else(|| self.expected("a string"))
    }

    /// A name, which must be a string that is not empty (a call to no tool cannot be run or
    /// answered).
    pub(super) fn name(&self) -> Result<&'a str, ReplyError> {
        let name = self.str()?;
        if name.is_empty() {
            return Err(self.error("is empty: a tool call needs the tool's name"));
        }
        Ok(name)
    }

    /// A non-negative integer, such as a stream's `index`.
    pub(super) fn index(&self) -> Result<u64, ReplyError> {
        self.value
            .as_u64()
            .ok_or_else(|| self.expected("a non-negative integer"))
    }
}

/// Arguments given as a JSON object (Anthropic `input`, Gemini `args`, MCP `arguments`), as
/// JSON text: `{}` when absent or `null`, an error when not an object.
pub(super) fn object_arguments(arguments: Option<At<'_>>) -> Result<String, ReplyError> {
    match arguments {
        None => Ok(EMPTY_ARGUMENTS.to_owned()),
        Some(arguments) => {
            arguments.object()?;
            // Serializing recurses once per level: a value built in code (no parser bounded
            // it) could otherwise overflow the stack.
            if nested_as_deep_as(arguments.value(), MAX_DEPTH) {
                return Err(arguments.error(format!(
                    "is nested {MAX_DEPTH} or more levels deep, more than serde_json parses: \
                     flatten the arguments"
                )));
            }
            Ok(arguments.value().to_string())
        }
    }
}

/// Nesting of arrays and objects refused in a reply's arguments: serde_json's own parsing
/// bound (its recursion limit of 128 parses at most 127 levels).
pub(super) const MAX_DEPTH: usize = 128;

/// Whether `value` nests arrays and objects `limit` or more levels deep; found without
/// recursion, and without looking deeper than `limit` levels.
pub(super) fn nested_as_deep_as(value: &Value, limit: usize) -> bool {
    let mut stack = vec![(value, 1usize)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(members) => Box::new(members.values()),
            _ => continue,
        };
        if depth >= limit {
            return true;
        }
        stack.extend(children.map(|child| (child, depth + 1)));
    }
    false
}

/// Arguments given as JSON text (OpenAI's `arguments`), kept exactly as written: `{}` when
/// absent, `null` or blank, an error when not a string.
pub(super) fn text_arguments(arguments: Option<At<'_>>) -> Result<String, ReplyError> {
    match arguments {
        None => Ok(EMPTY_ARGUMENTS.to_owned()),
        Some(arguments) => Ok(or_empty_object(arguments.str()?.to_owned())),
    }
}

/// `text`, or `{}` when it is blank (a call of a tool without parameters).
pub(super) fn or_empty_object(text: String) -> String {
    if text.trim().is_empty() {
        EMPTY_ARGUMENTS.to_owned()
    } else {
        text
    }
}

/// The arguments of a call that sent none.
pub(super) const EMPTY_ARGUMENTS: &str = "{}";

/// What a JSON value is, for "expected …, found …".
pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `parent`'s pointer extended by member `key`, escaped as RFC 6901 says (`~` as `~0`, `/` as
/// `~1`).
fn child_pointer(parent: &str, key: &str) -> String {
    let mut pointer = String::with_capacity(parent.len() + key.len() + 1);
    pointer.push_str(parent);
    pointer.push('/');
    for c in key.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
    pointer
}
