//! The words of an [`ArgumentError`]: what a schema accepts (`integer`, `string or null`,
//! `one of "a", "b"`) and what was received (`the string "3.5"`), cut short.

use std::fmt::{self, Write as _};

use serde_json::{Map, Value};

use super::{ArgumentError, Fail, Path, Walk, declared_types};

/// Characters of a received value quoted back in an error.
const CLIP: usize = 80;
/// Literals listed in an expectation before the list is cut.
const MAX_LISTED: usize = 20;

impl<'s> Walk<'s> {
    /// What `schema` accepts, in words: `integer`, `string or null`, `one of "a", "b"`.
    pub(crate) fn describe(&self, schema: &'s Value, hops: u32) -> String {
        self.describe_as(schema, hops, false)
    }

    /// As [`Walk::describe`]; `detailed` names the required properties of an object.
    fn describe_as(&self, schema: &'s Value, hops: u32, detailed: bool) -> String {
        let Some(rules) = schema.as_object() else {
            let words = if schema == &Value::Bool(false) {
                "no value"
            } else {
                "any value"
            };
            return String::from(words);
        };
        if !self.step(0, hops) {
            return String::from("a value");
        }
        if let Some(values) = self.literals(schema, hops) {
            return literal_list(&values);
        }
        if let Some(types) = declared_types(rules) {
            let required = rules.get("required").and_then(Value::as_array);
            return match required {
                Some(names) if detailed && types == ["object"] && !names.is_empty() => {
                    let noun = if names.len() == 1 {
                        "property"
                    } else {
                        "properties"
                    };
                    let names: Vec<String> = names.iter().map(literal).collect();
                    format!("object with {noun} {}", names.join(", "))
                }
                _ => join_alternatives(&types),
            };
        }
        if let Some(target) = self.follow(rules) {
            return self.describe_as(target, hops + 1, detailed);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = rules.get(key).and_then(Value::as_array) {
                return self.describe_union(branches, hops);
            }
        }
        String::from("a value")
    }

    pub(super) fn describe_union(&self, branches: &'s [Value], hops: u32) -> String {
        let literals: Option<Vec<Vec<&Value>>> = branches
            .iter()
            .map(|branch| self.literals(branch, hops))
            .collect();
        if let Some(literals) = literals {
            return literal_list(&literals.concat());
        }
        // Several object alternatives are told apart by their required properties.
        let objects = branches
            .iter()
            .filter_map(|branch| self.resolved(branch))
            .filter(|rules| declared_types(rules).is_some_and(|types| types == ["object"]))
            .count();
        let mut parts: Vec<String> = Vec::new();
        for branch in branches {
            let part = self.describe_as(branch, hops, objects > 1);
            if !parts.contains(&part) {
                parts.push(part);
            }
        }
        join_alternatives(&parts)
    }

    /// The only values `schema` allows, when it lists them (`const`, `enum`, `type: "null"`,
    /// or a union of such).
    fn literals(&self, schema: &'s Value, hops: u32) -> Option<Vec<&'s Value>> {
        static NULL: Value = Value::Null;
        if !self.step(0, hops) {
            return None;
        }
        let rules = schema.as_object()?;
        if let Some(constant) = rules.get("const") {
            return Some(vec![constant]);
        }
        if let Some(Value::Array(options)) = rules.get("enum") {
            return Some(options.iter().collect());
        }
        if declared_types(rules).is_some_and(|types| types == ["null"]) {
            return Some(vec![&NULL]);
        }
        if let Some(target) = self.follow(rules) {
            return self.literals(target, hops + 1);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = rules.get(key).and_then(Value::as_array) {
                let all: Option<Vec<Vec<&Value>>> = branches
                    .iter()
                    .map(|branch| self.literals(branch, hops + 1))
                    .collect();
                return all.map(|lists| lists.concat());
            }
        }
        None
    }
}

pub(super) fn invalid(path: &Path<'_>, expected: impl Into<String>, value: &Value) -> Fail {
    Fail::Invalid(ArgumentError {
        path: path.pointer(),
        expected: expected.into(),
        received: render(value),
    })
}

pub(super) fn unknown_property(name: &str, properties: Option<&Map<String, Value>>) -> String {
    let known: Vec<String> = properties
        .into_iter()
        .flatten()
        .map(|(key, _)| quote(key))
        .collect();
    if known.is_empty() {
        format!("no property {} (none are accepted here)", quote(name))
    } else {
        format!(
            "no property {} (known properties: {})",
            quote(name),
            known.join(", ")
        )
    }
}

/// `a`, `a or b`, `a, b or c`.
pub(super) fn join_alternatives<S: AsRef<str>>(parts: &[S]) -> String {
    match parts {
        [] => String::from("nothing"),
        [only] => only.as_ref().to_owned(),
        [init @ .., last] => {
            let init: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
            format!("{} or {}", init.join(", "), last.as_ref())
        }
    }
}

/// `"a"` for one value, `one of "a", "b"` for several.
pub(super) fn literal_list(values: &[&Value]) -> String {
    match values {
        [only] => literal(only),
        _ => {
            let mut listed: Vec<String> =
                values.iter().take(MAX_LISTED).map(|v| literal(v)).collect();
            if values.len() > MAX_LISTED {
                listed.push(String::from("…"));
            }
            format!("one of {}", listed.join(", "))
        }
    }
}

/// A value as JSON text, cut to [`CLIP`] characters.
pub(super) fn literal(value: &Value) -> String {
    clip(value)
}

/// How an error shows a received value: its kind and its text, cut short.
pub(crate) fn render(value: &Value) -> String {
    match value {
        Value::Null => String::from("null"),
        Value::Bool(flag) => format!("the boolean {flag}"),
        Value::Number(number) => format!("the number {number}"),
        Value::String(text) => {
            let head: String = text.chars().take(CLIP).collect();
            let more = if head.len() < text.len() { "…" } else { "" };
            format!("the string {}{more}", quote(&head))
        }
        Value::Array(items) => {
            format!(
                "an array of {}: {}",
                count(len_u64(items.len()), "item"),
                clip(value)
            )
        }
        Value::Object(_) => format!("an object: {}", clip(value)),
    }
}

/// `value`'s JSON text, at most [`CLIP`] characters of it; serialization stops there, so a
/// huge value costs no more than a small one.
fn clip(value: &Value) -> String {
    let mut out = Clipped {
        text: String::new(),
        left: CLIP,
        cut: false,
    };
    // An error here only means the limit was reached.
    let _ = write!(out, "{value}");
    if out.cut {
        out.text.push('…');
    }
    out.text
}

struct Clipped {
    text: String,
    left: usize,
    cut: bool,
}

impl fmt::Write for Clipped {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for ch in s.chars() {
            if self.left == 0 {
                self.cut = true;
                return Err(fmt::Error);
            }
            self.text.push(ch);
            self.left -= 1;
        }
        Ok(())
    }
}

/// `s` as a JSON string literal.
pub(super) fn quote(s: &str) -> String {
    Value::from(s).to_string()
}

/// `1 item`, `5 items`.
pub(super) fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

pub(super) fn len_u64(len: usize) -> u64 {
    u64::try_from(len).unwrap_or(u64::MAX)
}
