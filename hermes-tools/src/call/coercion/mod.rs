//! Repairing a model's tool arguments whose JSON types are off, guided by the tool's schema.
//!
//! Models often send `"42"` for an integer, `"true"` for a boolean, an array or object
//! JSON-encoded inside a string, or a bare value where a list was asked for. serde rejects all
//! of these, and a rejected call costs a round trip. When the arguments do not deserialize as
//! sent, the runtime calls [`coerce_and_validate`]: [`coerce`] repairs what the schema makes
//! unambiguous, then [`validate`](crate::call::validation::validate) checks the result and reports
//! what is still wrong.
//!
//! This follows Hermes Agent 0.19's `coerce_tool_args` (`model_tools.py`) and fixes its faults.
//! A value is only changed when its JSON type is not one the schema allows, and it is only ever
//! replaced by the value it denotes; what cannot be repaired is left as sent for validation to
//! report. The repairs, at any depth (object properties, `additionalProperties`,
//! `patternProperties`, `items`, `prefixItems`), through local `$ref`s and `allOf`:
//!
//! * `integer` from a string holding an integer exactly: `" 42 "`, `"9007199254740993"` (parsed
//!   as `i64`/`u64`, never through `f64`), `"3.0"`, `"1e3"`, `"2500e-2"`. `"3.5"`, `"1_000"`,
//!   `"inf"` and integers beyond `i64`/`u64` stay strings. An integral float (`3.0`) becomes the
//!   integer `3`, the same JSON Schema value, because serde will not read `3.0` as a `u32`.
//! * `number` from a string holding a finite number: an integer as above, else an `f64`.
//! * `boolean` from `"true"`/`"false"`, trimmed, any case.
//! * `null` from `"null"`, trimmed, any case, where the schema allows null (a `null` type, or
//!   OpenAPI's `"nullable": true`); `"None"` is not null, as in Hermes.
//! * `array`/`object` from a string holding that JSON (`"[\"a\",\"b\"]"`), then repaired inside.
//! * a one-item array from a value that is neither null nor an array, when the schema wants an
//!   array and the wrapped value, once repaired, validates (`"a.com"` → `["a.com"]`). A string
//!   that opens a JSON array but does not parse is no exception: `"[bad"` for a list of
//!   strings becomes `["[bad"]`, while `"[1, 2"` for a list of integers stays as sent, since
//!   `"[1, 2"` is not an integer.
//!
//! The string `"null"` stays a string where a string is accepted (an `Option<String>` gets
//! `Some("null")` on every path); JSON null for an optional property means "left out".
//!
//! A type list (`["integer", "null"]`) is tried in its declared order, wrapping last. For
//! `anyOf`/`oneOf`, the first alternative the value can be repaired into and that then
//! validates wins; if none does, the repairs inside the alternative of the value's own kind
//! are kept (an `Option<Struct>` with one bad field still gets its other fields repaired).
//!
//! The work is bounded as in [`validation`]: past 128 levels of nesting,
//! 32 `$ref`s in a row or a million steps (16 per value sent, for larger arguments), repair
//! stops and leaves the rest as sent.
//!
//! Fixed from Hermes: integers lost precision through `float()`; Python's `float()` also took
//! `"1_000"` and non-ASCII digits; a string was coerced even when the schema already accepted
//! it (`["string", "integer"]` turned `"42"` into `42`, and an `Option<String>` turned `"null"`
//! into null); `anyOf`/`oneOf` alternatives and `$ref`s were not looked at (an
//! `anyOf: [{integer}, {null}]` kept `"5"`); nested values only had JSON strings parsed, never
//! `"5"` or `"true"` repaired; a JSON array string was not repaired inside; values the items
//! cannot be were wrapped in a list anyway (`{"x": 1}` or the broken JSON array string
//! `"[1, 2"` for a list of integers; a broken one for a list of strings is wrapped here too,
//! being a string the items accept); `additionalProperties` values were not repaired.

use serde_json::{Map, Number, Value};

use crate::call::validation::{
    self, ArgumentError, Walk, declared_types, item_schema, json_eq, pattern_properties, render,
};

/// Repairs `args` in place so that its JSON types match `schema` (the tool's parameter schema,
/// also the root for `$ref`s), as described in the [module documentation](self).
///
/// Never fails and never panics: a value that cannot be repaired is left as it is.
pub(crate) fn coerce(args: &mut Value, schema: &Value) {
    Repair {
        walk: Walk::new(schema, args),
    }
    .repair(args, schema, 0, 0);
}

/// Repairs `args` with [`coerce`], then checks them with
/// [`validate`](crate::call::validation::validate); returns the repaired arguments.
///
/// # Errors
///
/// An [`ArgumentError`] at path `""` when the schema wants an object of arguments and `args`
/// is (even after repair) something else; otherwise the first error [`validate`] finds.
///
/// [`validate`]: crate::call::validation::validate
pub(crate) fn coerce_and_validate(mut args: Value, schema: &Value) -> Result<Value, ArgumentError> {
    coerce(&mut args, schema);
    let wants_object = schema
        .as_object()
        .and_then(declared_types)
        .is_some_and(|types| types == ["object"]);
    if wants_object && !args.is_object() {
        return Err(ArgumentError {
            path: String::new(),
            expected: String::from("an object of arguments"),
            received: render(&args),
        });
    }
    validation::validate(&args, schema)?;
    Ok(args)
}

/// One repair pass over one schema.
struct Repair<'s> {
    walk: Walk<'s>,
}

impl<'s> Repair<'s> {
    /// Repairs `value`, nested `depth` levels deep, against `schema`; `hops` counts the `$ref`s
    /// followed since the last step into the value.
    fn repair(&self, value: &mut Value, schema: &'s Value, depth: u32, hops: u32) {
        let Some(rules) = schema.as_object() else {
            return;
        };
        if !self.walk.step(depth, hops) {
            return;
        }
        if let Some(target) = self.walk.follow(rules) {
            self.repair(value, target, depth, hops + 1);
        }
        for branch in rules
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.repair(value, branch, depth, hops);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = rules.get(key).and_then(Value::as_array) {
                self.repair_union(value, schema, branches, depth, hops);
            }
        }
        self.repair_typed(value, rules, schema, depth);
    }

    /// Takes the first alternative that `value` can be repaired into and that then makes
    /// `node` (the schema holding the union) valid; failing that, keeps the repairs made inside
    /// the first alternative that left the value's kind alone.
    ///
    /// A value that is already valid is only rewritten into an equal one (`7.0` into `7`):
    /// an untagged `Id(u64) | Name(String)` keeps the name `"42"`.
    fn repair_union(
        &self,
        value: &mut Value,
        node: &'s Value,
        branches: &'s [Value],
        depth: u32,
        hops: u32,
    ) {
        let valid = self.walk.is_valid(value, node, depth);
        let mut partial = None;
        for branch in branches {
            let mut candidate = value.clone();
            self.repair(&mut candidate, branch, depth, hops);
            if candidate == *value || (valid && !json_eq(&candidate, value)) {
                continue;
            }
            if self.walk.is_valid(&candidate, node, depth) {
                *value = candidate;
                return;
            }
            if partial.is_none() && !valid && same_kind(value, &candidate) {
                partial = Some(candidate);
            }
        }
        if let Some(candidate) = partial {
            *value = candidate;
        }
    }

    /// Applies `type` (and OpenAPI's `nullable`): converts a value of a kind the schema does
    /// not allow, or repairs inside one of a kind it does.
    fn repair_typed(
        &self,
        value: &mut Value,
        rules: &'s Map<String, Value>,
        schema: &'s Value,
        depth: u32,
    ) {
        let types = declared_types(rules).unwrap_or_default();
        if types.is_empty() || types.iter().any(|name| satisfies(value, name)) {
            self.descend(value, rules, depth);
            return;
        }
        let nullable = rules.get("nullable") == Some(&Value::Bool(true));
        let conversions = types.iter().copied().chain(nullable.then_some("null"));
        for name in conversions {
            if let Some(mut repaired) = convert(value, name) {
                self.descend(&mut repaired, rules, depth);
                *value = repaired;
                return;
            }
        }
        // Last, so that an `Option<Vec<_>>` turns "null" into null, not into ["null"].
        if types.contains(&"array")
            && let Some(wrapped) = self.wrap(value, rules, schema, depth)
        {
            *value = wrapped;
        }
    }

    /// `[value]`, repaired, when that satisfies `schema`.
    fn wrap(
        &self,
        value: &Value,
        rules: &'s Map<String, Value>,
        schema: &'s Value,
        depth: u32,
    ) -> Option<Value> {
        // Null may mean "none" as much as "empty" (Hermes wraps it). A string opening a JSON
        // array that did not parse ("[bad") is wrapped like any other string, as in Hermes:
        // only when the item accepts it, which a list of integers does not.
        if value.is_null() || value.is_array() {
            return None;
        }
        let mut wrapped = Value::Array(vec![value.clone()]);
        self.descend(&mut wrapped, rules, depth);
        self.walk
            .is_valid(&wrapped, schema, depth)
            .then_some(wrapped)
    }

    /// Repairs the items or properties of a container against `rules`.
    fn descend(&self, value: &mut Value, rules: &'s Map<String, Value>, depth: u32) {
        match value {
            Value::Object(map) => self.descend_object(map, rules, depth),
            Value::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    if let Some(schema) = item_schema(rules, index) {
                        self.repair(item, schema, depth + 1, 0);
                    }
                }
            }
            _ => {}
        }
    }

    fn descend_object(
        &self,
        map: &mut Map<String, Value>,
        rules: &'s Map<String, Value>,
        depth: u32,
    ) {
        let properties = rules.get("properties").and_then(Value::as_object);
        if let Some(properties) = properties {
            self.drop_null_optionals(map, properties, rules, depth);
        }
        let patterns = pattern_properties(rules);
        let additional = rules.get("additionalProperties");
        for (name, item) in map.iter_mut() {
            if let Some(schema) = properties.and_then(|known| known.get(name)) {
                self.repair(item, schema, depth + 1, 0);
                continue;
            }
            let mut matched = false;
            for (regex, schema) in &patterns {
                if regex.is_match(name) {
                    matched = true;
                    self.repair(item, schema, depth + 1, 0);
                }
            }
            if !matched && let Some(schema) = additional {
                self.repair(item, schema, depth + 1, 0);
            }
        }
    }
}

impl<'s> Repair<'s> {
    /// A `null` for an optional property that does not accept null means "left out": strict
    /// provider formats make every property required and optional ones nullable, so the model
    /// sends `null` where the tool's own schema wants the property absent (its default applies).
    fn drop_null_optionals(
        &self,
        map: &mut Map<String, Value>,
        properties: &'s Map<String, Value>,
        rules: &'s Map<String, Value>,
        depth: u32,
    ) {
        let required: Vec<&str> = rules
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        map.retain(|name, value| {
            !(value.is_null()
                && !required.contains(&name.as_str())
                && properties
                    .get(name)
                    .is_some_and(|schema| !self.walk.is_valid(&Value::Null, schema, depth + 1)))
        });
    }
}

/// Whether `value` needs no conversion for the type `name`. Stricter than validation for
/// `integer`: `3.0` is an integer to JSON Schema, but serde wants it written `3`.
fn satisfies(value: &Value, name: &str) -> bool {
    match name {
        "integer" => value.is_i64() || value.is_u64(),
        other => validation::type_matches(value, other),
    }
}

fn same_kind(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// The value of type `name` that `value` denotes, if it denotes one.
fn convert(value: &Value, name: &str) -> Option<Value> {
    match (name, value) {
        ("integer", Value::String(text)) => parse_integer(text).map(Value::Number),
        ("integer", Value::Number(number)) => integral_float(number).map(Value::Number),
        ("number", Value::String(text)) => parse_number(text).map(Value::Number),
        ("boolean", Value::String(text)) => parse_boolean(text).map(Value::Bool),
        ("null", Value::String(text)) => is_null_word(text).then_some(Value::Null),
        ("array", Value::String(text)) => parse_json(text, '[').filter(Value::is_array),
        ("object", Value::String(text)) => parse_json(text, '{').filter(Value::is_object),
        _ => None,
    }
}

/// The integer `text` writes, exactly, in decimal with an optional sign, fraction and
/// exponent (`"42"`, `"+7"`, `"3.0"`, `"1e3"`, `"1.5e3"`, `"2500e-2"`); `None` when it has a
/// non-zero fraction, is outside `i64`/`u64`, or is not a plain decimal (`"1_000"`, `"0x10"`).
///
/// The digits are shifted as text and parsed with `i64`/`u64`, so no precision is lost.
fn parse_integer(text: &str) -> Option<Number> {
    /// `u64::MAX` has 20 digits: more integer digits cannot fit.
    const MAX_DIGITS: usize = 20;
    let text = text.trim();
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i64>().ok()?),
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let significant = digits.trim_start_matches('0');
    if significant.is_empty() {
        return Some(Number::from(0_u64));
    }
    // Where the decimal point falls in `significant`, once the exponent is applied.
    let leading_zeros = i64::try_from(digits.len() - significant.len()).ok()?;
    let point = i64::try_from(whole.len())
        .ok()?
        .saturating_add(exponent)
        .saturating_sub(leading_zeros);
    let point = usize::try_from(point)
        .ok()
        .filter(|&p| p > 0 && p <= MAX_DIGITS)?;
    let (integer, rest) = significant.split_at(point.min(significant.len()));
    if rest.bytes().any(|b| b != b'0') {
        return None;
    }
    let zeros = "0".repeat(point.saturating_sub(significant.len()));
    if negative {
        format!("-{integer}{zeros}")
            .parse::<i64>()
            .ok()
            .map(Number::from)
    } else {
        format!("{integer}{zeros}")
            .parse::<u64>()
            .ok()
            .map(Number::from)
    }
}

/// A finite number from `text`: an exact integer when it writes one, else an `f64`.
fn parse_number(text: &str) -> Option<Number> {
    parse_integer(text).or_else(|| {
        // Rust's grammar, unlike Python's `float()`, has no `_` separators or non-ASCII digits;
        // it does read "inf" and "NaN", which `from_f64` refuses.
        let float = text.trim().parse::<f64>().ok()?;
        Number::from_f64(float)
    })
}

/// An integral float as the integer it is, when it fits `i64`/`u64`.
fn integral_float(number: &Number) -> Option<Number> {
    /// 2^63 and 2^64, exactly representable as `f64`.
    const I64_END: f64 = 9_223_372_036_854_775_808.0;
    const U64_END: f64 = 18_446_744_073_709_551_616.0;
    let float = number.as_f64().filter(|f| f.fract() == 0.0)?;
    // The bounds are checked first, so the casts are exact.
    if (-I64_END..I64_END).contains(&float) {
        Some(Number::from(float as i64))
    } else if (0.0..U64_END).contains(&float) {
        Some(Number::from(float as u64))
    } else {
        None
    }
}

/// Hermes's spellings: `true`/`false`, trimmed, in any case.
fn parse_boolean(text: &str) -> Option<bool> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("true") {
        Some(true)
    } else if text.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

fn is_null_word(text: &str) -> bool {
    text.trim().eq_ignore_ascii_case("null")
}

/// `text` parsed as JSON when, trimmed, it starts with `opener`.
fn parse_json(text: &str, opener: char) -> Option<Value> {
    let text = text.trim();
    if !text.starts_with(opener) {
        return None;
    }
    serde_json::from_str(text).ok()
}

#[cfg(test)]
mod tests;
