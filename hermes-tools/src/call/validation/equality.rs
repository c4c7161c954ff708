//! JSON equality as JSON Schema means it, for `const`, `enum` and `uniqueItems`.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::MAX_DEPTH;
use super::messages::quote;
use super::numbers::{compare, exact};

/// JSON equality as JSON Schema means it: numbers by value (`1` equals `1.0`).
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, p)| y.get(key).is_some_and(|q| json_eq(p, q)))
        }
        _ => a == b,
    }
}

/// The first repeated item as (first index, repeat index). Hashes a canonical text of each
/// item, so a long array sent by a model costs linear time, not quadratic.
pub(super) fn first_duplicate(items: &[Value]) -> Option<(usize, usize)> {
    let mut seen = HashMap::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let mut key = String::new();
        // An item too deep to write out is taken as unique.
        canonical(item, &mut key, 0)?;
        if let Some(&first) = seen.get(&key) {
            return Some((first, index));
        }
        seen.insert(key, index);
    }
    None
}

/// Writes a text equal for values equal under [`json_eq`]: integral numbers as integers,
/// object keys sorted.
fn canonical(value: &Value, out: &mut String, depth: u32) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    match value {
        Value::Number(number) => {
            let integral = number
                .as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e18)
                .map(|f| f as i128);
            match exact(number).or(integral) {
                Some(integer) => write!(out, "{integer}").ok()?,
                None => write!(out, "{number}").ok()?,
            }
        }
        Value::Array(items) => {
            out.push('[');
            for item in items {
                canonical(item, out, depth + 1)?;
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by_key(|(key, _)| *key);
            out.push('{');
            for (key, item) in entries {
                out.push_str(&quote(key));
                out.push(':');
                canonical(item, out, depth + 1)?;
                out.push(',');
            }
            out.push('}');
        }
        other => write!(out, "{other}").ok()?,
    }
    Some(())
}
