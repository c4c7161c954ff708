//! Checking a tool's arguments against the JSON Schema the model was shown.
//!
//! schemars describes the arguments but validates nothing: `#[schemars(length(max = 4))]` puts
//! `"maxItems": 4` in the schema and serde accepts five items all the same. [`validate`] closes
//! that gap for the Draft 2020-12 keywords tool schemas use, and answers a call that breaks them
//! with an [`ArgumentError`] the model can act on, e.g.
//! `argument "/choices": expected at most 4 items, received an array of 5 items: [...]`.
//!
//! Checked: `type` (a name or a list; `"integer"` is any number without a fractional part),
//! `properties`, `required`, `additionalProperties` (bool or schema), `patternProperties`,
//! `items`, `prefixItems` (and Draft 7 tuple `items` with `additionalItems`), `minItems`,
//! `maxItems`, `uniqueItems`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//! `multipleOf`, `minLength` and `maxLength` (in characters, not bytes), `pattern`, `enum`,
//! `const`, `anyOf`, `oneOf`, `allOf`, `not`, local `$ref`s (`#/$defs/...`, `#/definitions/...`,
//! `#`), `true`/`false` schemas, and the integer `format`s schemars emits (`int8`..`int64`,
//! `uint8`..`uint64`, `int`, `uint`) as range checks. Every other keyword is ignored, and so are
//! a `$ref` that does not resolve and a `pattern` the `regex` crate cannot compile (lookaround,
//! backreferences): a schema's mistake must not reject every call.
//!
//! Numbers are compared exactly: integers as integers (no trip through `f64`), and an integer
//! against a fractional bound without rounding. Errors come in a fixed order (the schema's order
//! of properties), so the same call always gets the same answer.
//!
//! The arguments come from a model and may be hostile; the schema comes from the program and
//! may be recursive. The work is bounded either way: values nested deeper than 128 levels, more
//! than 32 `$ref`s followed without moving into the value (a reference cycle), or more than a
//! million schema steps (16 per value sent, for larger arguments; combinators over recursive
//! schemas) end the check with an error instead of a stack overflow or an endless loop.

use std::cell::Cell;
use std::fmt;

use serde_json::{Map, Value};

pub(crate) use self::equality::json_eq;
use self::keywords::{check_literals, check_string, check_type, same_kind};
pub(crate) use self::keywords::{item_schema, pattern_properties, type_matches};
use self::messages::invalid;
pub(crate) use self::messages::render;
use self::numbers::check_number;
pub(crate) use self::paths::Path;
use crate::tool::schema::resolve_ref;

mod combinators;
mod equality;
mod keywords;
mod messages;
mod numbers;
mod paths;
/// The type names `rules` declares (`"type": "x"` or `"type": [...]`), if any.
pub(crate) fn declared_types(rules: &Map<String, Value>) -> Option<Vec<&str>> {
    match rules.get("type")? {
        Value::String(name) => Some(vec![name.as_str()]),
        Value::Array(names) => Some(names.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests;

/// Deepest nesting of the arguments that is checked; serde_json's parser refuses deeper input.
pub(crate) const MAX_DEPTH: u32 = 128;
/// Most `$ref`s followed without moving into the value: a longer chain is a reference cycle.
pub(crate) const MAX_REF_HOPS: u32 = 32;
/// Schema steps one call may take, so that nested combinators over a recursive schema cannot
/// take exponential time: this many, or [`FUEL_PER_VALUE`] per value of the arguments if that
/// is more (a list of two million numbers takes two million steps to check at the least).
const FUEL: u64 = 1_000_000;
/// Schema steps allowed per value of the arguments beyond [`FUEL`]: the work stays linear in
/// the size of what was sent.
const FUEL_PER_VALUE: u64 = 16;
/// [`ArgumentError::received`] for a required property that is missing.
const NOTHING: &str = "nothing";

/// Why a tool's arguments were rejected: where, what the schema wanted, and what was sent.
///
/// Its [`Display`](fmt::Display) is one sentence meant to be shown to the model, e.g.
/// `argument "/choices": expected at most 4 items, received an array of 5 items: [...]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgumentError {
    /// JSON pointer to the offending value (`"/choices/4"`), `""` for the arguments as a whole;
    /// for a missing required property, the pointer the property would have.
    pub path: String,
    /// What the schema wanted there, e.g. `at most 4 items`, `integer`, `one of "a", "b"`.
    pub expected: String,
    /// What was sent: the value's kind and its text cut to about 80 characters, e.g.
    /// `the string "3.5"`, or `nothing` for a missing property.
    pub received: String,
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let subject = if self.path.is_empty() {
            String::from("arguments")
        } else {
            format!("argument \"{}\"", self.path)
        };
        if self.received == NOTHING {
            write!(f, "missing required {subject}: expected {}", self.expected)
        } else {
            write!(
                f,
                "{subject}: expected {}, received {}",
                self.expected, self.received
            )
        }
    }
}

impl std::error::Error for ArgumentError {}

/// Checks `args` against `schema` (a tool's parameter schema, the root for `$ref`s) and
/// reports the first violation found.
///
/// Dispatch runs this check after repair; run on the arguments as the model sent them, it
/// tells a call that was right from one the repair saved.
///
/// ```
/// use hermes_tools::call::validate;
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"limit": {"type": "integer"}}});
/// assert!(validate(&json!({"limit": 3}), &schema).is_ok());
/// // Repair would read "3" as 3; as sent, it is not an integer.
/// assert_eq!(validate(&json!({"limit": "3"}), &schema).unwrap_err().path, "/limit");
/// ```
///
/// # Errors
///
/// The first [`ArgumentError`], in schema order: a property's own checks come before those of
/// the properties after it.
pub fn validate(args: &Value, schema: &Value) -> Result<(), ArgumentError> {
    let walk = Walk::new(schema, args);
    walk.check(args, schema, &Path::root(0), 0)
        .map_err(|fail| match fail {
            Fail::Invalid(error) => error,
            Fail::TooComplex(path) => ArgumentError {
                path,
                expected: String::from(
                    "arguments simple enough to check (nesting, $ref or work limit reached)",
                ),
                received: render(args),
            },
        })
}

/// The number of values in `value`, itself included (a few nanoseconds each; the walk it
/// sizes takes longer per value).
fn values_in(value: &Value) -> u64 {
    match value {
        Value::Array(items) => 1 + items.iter().map(values_in).sum::<u64>(),
        Value::Object(map) => 1 + map.values().map(values_in).sum::<u64>(),
        _ => 1,
    }
}

/// Why a check failed.
pub(crate) enum Fail {
    /// The value breaks the schema.
    Invalid(ArgumentError),
    /// A limit on depth, `$ref` hops or work was reached at this pointer. Unlike `Invalid`, no
    /// alternative of a combinator is tried after it: they would all stop the same way.
    TooComplex(String),
}

type Checked = Result<(), Fail>;

/// One traversal of a schema: its root, for `$ref`s, and the work left.
pub(crate) struct Walk<'s> {
    root: &'s Value,
    fuel: Cell<u64>,
}

impl<'s> Walk<'s> {
    /// Starts a traversal of the schema `root` for the arguments `args`, with a full work
    /// budget for their size.
    pub(crate) fn new(root: &'s Value, args: &Value) -> Self {
        Walk {
            root,
            fuel: Cell::new(FUEL.max(values_in(args).saturating_mul(FUEL_PER_VALUE))),
        }
    }

    /// Spends one step; `false` when the value is too deep, the `$ref` chain too long or the
    /// budget spent, and the caller must stop.
    pub(crate) fn step(&self, depth: u32, hops: u32) -> bool {
        let left = self.fuel.get();
        if left == 0 || depth > MAX_DEPTH || hops > MAX_REF_HOPS {
            return false;
        }
        self.fuel.set(left - 1);
        true
    }

    /// The schema a `$ref` in `rules` points to, when it is local and resolves.
    pub(crate) fn follow(&self, rules: &'s Map<String, Value>) -> Option<&'s Value> {
        resolve_ref(self.root, rules.get("$ref")?.as_str()?)
    }

    /// Whether `value` (found at nesting `depth`) satisfies `schema`.
    pub(crate) fn is_valid(&self, value: &Value, schema: &'s Value, depth: u32) -> bool {
        self.check(value, schema, &Path::root(depth), 0).is_ok()
    }

    /// Whether `schema` allows values of `value`'s JSON kind at all (any number counts for
    /// `"integer"`), whatever its other constraints: the alternative a value was meant for.
    pub(crate) fn admits_kind(&self, value: &Value, schema: &'s Value, hops: u32) -> bool {
        let Some(rules) = schema.as_object() else {
            return schema.as_bool().unwrap_or(true);
        };
        // Out of budget, any alternative may be the one meant.
        if !self.step(0, hops) {
            return true;
        }
        if let Some(target) = self.follow(rules)
            && !self.admits_kind(value, target, hops + 1)
        {
            return false;
        }
        if let Some(types) = declared_types(rules) {
            return types.iter().any(|name| match *name {
                "integer" | "number" => value.is_number(),
                other => type_matches(value, other),
            });
        }
        if let Some(constant) = rules.get("const") {
            return same_kind(value, constant);
        }
        if let Some(Value::Array(options)) = rules.get("enum") {
            return options.iter().any(|option| same_kind(value, option));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = rules.get(key).and_then(Value::as_array) {
                return branches
                    .iter()
                    .any(|branch| self.admits_kind(value, branch, hops + 1));
            }
        }
        true
    }

    fn check(&self, value: &Value, schema: &'s Value, path: &Path<'_>, hops: u32) -> Checked {
        if !self.step(path.depth, hops) {
            return Err(Fail::TooComplex(path.pointer()));
        }
        let rules = match schema {
            Value::Object(rules) => rules,
            Value::Bool(false) => return Err(invalid(path, "no value here", value)),
            _ => return Ok(()),
        };
        if let Some(target) = self.follow(rules) {
            self.check(value, target, path, hops + 1)?;
        }
        check_type(value, rules, path)?;
        check_literals(value, rules, path)?;
        match value {
            Value::Number(number) => check_number(number, rules, path, value)?,
            Value::String(text) => check_string(text, rules, path, value)?,
            Value::Array(items) => self.check_array(items, rules, path, value)?,
            Value::Object(map) => self.check_object(map, rules, path)?,
            Value::Null | Value::Bool(_) => {}
        }
        self.check_combinators(value, rules, path, hops)
    }
}
