//! The keywords checked on one value: `type`, `const` and `enum`, the string keywords, and the
//! array and object keywords with what they apply to the items and properties (numbers are in
//! [`numbers`](super::numbers), combinators in [`combinators`](super::combinators)).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};

use regex::Regex;
use serde_json::{Map, Value};

use super::equality::{first_duplicate, json_eq};
use super::messages::{
    count, invalid, join_alternatives, len_u64, literal, literal_list, render, unknown_property,
};
use super::numbers::is_integral;
use super::{ArgumentError, Checked, Fail, NOTHING, Path, Walk, declared_types};

/// Compiled patterns kept; the cache is emptied when it reaches this size.
const PATTERN_CACHE_LIMIT: usize = 512;

impl<'s> Walk<'s> {
    pub(super) fn check_array(
        &self,
        items: &[Value],
        rules: &'s Map<String, Value>,
        path: &Path<'_>,
        value: &Value,
    ) -> Checked {
        let len = len_u64(items.len());
        if let Some(min) = rules.get("minItems").and_then(Value::as_u64)
            && len < min
        {
            return Err(invalid(
                path,
                format!("at least {}", count(min, "item")),
                value,
            ));
        }
        if let Some(max) = rules.get("maxItems").and_then(Value::as_u64)
            && len > max
        {
            return Err(invalid(
                path,
                format!("at most {}", count(max, "item")),
                value,
            ));
        }
        if rules.get("uniqueItems") == Some(&Value::Bool(true))
            && let Some((first, again)) = first_duplicate(items)
        {
            let expected = format!("a value different from item {first} (items must be unique)");
            return Err(invalid(&path.index(again), expected, &items[again]));
        }
        for (index, item) in items.iter().enumerate() {
            if let Some(schema) = item_schema(rules, index) {
                self.check(item, schema, &path.index(index), 0)?;
            }
        }
        Ok(())
    }

    pub(super) fn check_object(
        &self,
        map: &Map<String, Value>,
        rules: &'s Map<String, Value>,
        path: &Path<'_>,
    ) -> Checked {
        let required: Vec<&str> = rules
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let properties = rules.get("properties").and_then(Value::as_object);
        // Declared properties first, in schema order, so the first error is the first one the
        // model reads in the schema; a missing one is reported where it is declared.
        for (name, schema) in properties.into_iter().flatten() {
            match map.get(name) {
                Some(item) => self.check(item, schema, &path.key(name), 0)?,
                None if required.contains(&name.as_str()) => {
                    return Err(self.missing(path, name, Some(schema)));
                }
                None => {}
            }
        }
        let declared = |name: &str| properties.is_some_and(|known| known.contains_key(name));
        if let Some(name) = required
            .iter()
            .find(|name| !declared(name) && !map.contains_key(**name))
        {
            return Err(self.missing(path, name, None));
        }
        let patterns = pattern_properties(rules);
        for (name, item) in map.iter().filter(|(name, _)| !declared(name)) {
            let mut matched = false;
            for (regex, schema) in &patterns {
                if regex.is_match(name) {
                    matched = true;
                    self.check(item, schema, &path.key(name), 0)?;
                }
            }
            match rules.get("additionalProperties") {
                _ if matched => {}
                Some(Value::Bool(false)) => {
                    let expected = unknown_property(name, properties);
                    return Err(invalid(&path.key(name), expected, item));
                }
                Some(schema) => self.check(item, schema, &path.key(name), 0)?,
                None => {}
            }
        }
        Ok(())
    }

    fn missing(&self, path: &Path<'_>, name: &str, schema: Option<&'s Value>) -> Fail {
        Fail::Invalid(ArgumentError {
            path: path.key(name).pointer(),
            expected: schema.map_or_else(|| String::from("a value"), |s| self.describe(s, 0)),
            received: String::from(NOTHING),
        })
    }
}

/// Whether `value` is of the JSON Schema type `name`; unknown names accept anything.
pub(crate) fn type_matches(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.as_number().is_some_and(is_integral),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

pub(super) fn same_kind(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// The schema of array item `index`: `prefixItems`, then `items`; Draft 7 tuples (`items` as
/// an array) with `additionalItems` too.
pub(crate) fn item_schema(rules: &Map<String, Value>, index: usize) -> Option<&Value> {
    let prefix = rules.get("prefixItems").and_then(Value::as_array);
    match (prefix, rules.get("items")) {
        (Some(prefix), rest) => prefix.get(index).or(rest),
        (None, Some(Value::Array(tuple))) => {
            tuple.get(index).or_else(|| rules.get("additionalItems"))
        }
        (None, rest) => rest,
    }
}

/// `patternProperties`, compiled; patterns that do not compile are left out.
pub(crate) fn pattern_properties(rules: &Map<String, Value>) -> Vec<(Regex, &Value)> {
    rules
        .get("patternProperties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(pattern, schema)| Some((compiled(pattern)?, schema)))
        .collect()
}

/// `pattern` compiled, from a process-wide cache: validation runs for every repaired call and
/// the patterns are the same few from the tool schemas. `None` when it does not compile.
fn compiled(pattern: &str) -> Option<Regex> {
    static CACHE: LazyLock<Mutex<HashMap<String, Option<Regex>>>> = LazyLock::new(Mutex::default);
    // A panic elsewhere while holding the lock cannot leave the map half-updated.
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(found) = cache.get(pattern) {
        return found.clone();
    }
    if cache.len() >= PATTERN_CACHE_LIMIT {
        cache.clear();
    }
    let regex = Regex::new(pattern).ok();
    cache.insert(pattern.to_owned(), regex.clone());
    regex
}

pub(super) fn check_type(value: &Value, rules: &Map<String, Value>, path: &Path<'_>) -> Checked {
    match declared_types(rules) {
        Some(types) if !types.iter().any(|name| type_matches(value, name)) => {
            Err(invalid(path, join_alternatives(&types), value))
        }
        _ => Ok(()),
    }
}

pub(super) fn check_literals(
    value: &Value,
    rules: &Map<String, Value>,
    path: &Path<'_>,
) -> Checked {
    if let Some(constant) = rules.get("const")
        && !json_eq(value, constant)
    {
        return Err(invalid(path, literal(constant), value));
    }
    if let Some(Value::Array(options)) = rules.get("enum")
        && !options.iter().any(|option| json_eq(value, option))
    {
        let options: Vec<&Value> = options.iter().collect();
        return Err(invalid(path, literal_list(&options), value));
    }
    Ok(())
}

pub(super) fn check_string(
    text: &str,
    rules: &Map<String, Value>,
    path: &Path<'_>,
    value: &Value,
) -> Checked {
    let length = len_u64(text.chars().count());
    let sized = |expected: String| {
        Fail::Invalid(ArgumentError {
            path: path.pointer(),
            expected,
            received: format!("{} ({})", render(value), count(length, "character")),
        })
    };
    if let Some(min) = rules.get("minLength").and_then(Value::as_u64)
        && length < min
    {
        return Err(sized(format!("at least {}", count(min, "character"))));
    }
    if let Some(max) = rules.get("maxLength").and_then(Value::as_u64)
        && length > max
    {
        return Err(sized(format!("at most {}", count(max, "character"))));
    }
    if let Some(pattern) = rules.get("pattern").and_then(Value::as_str)
        && let Some(regex) = compiled(pattern)
        && !regex.is_match(text)
    {
        return Err(invalid(path, format!("a string matching {pattern}"), value));
    }
    Ok(())
}
