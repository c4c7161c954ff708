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
//! million schema steps (combinators over recursive schemas) end the check with an error instead
//! of a stack overflow or an endless loop.

use std::cell::Cell;
use std::cmp::{Ordering, Reverse};
use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::sync::{LazyLock, Mutex, PoisonError};

use regex::Regex;
use serde_json::{Map, Number, Value};

/// Deepest nesting of the arguments that is checked; serde_json's parser refuses deeper input.
pub(crate) const MAX_DEPTH: u32 = 128;
/// Most `$ref`s followed without moving into the value: a longer chain is a reference cycle.
pub(crate) const MAX_REF_HOPS: u32 = 32;
/// Schema steps one call may take, so that nested combinators over a recursive schema cannot
/// take exponential time.
const FUEL: u32 = 1_000_000;
/// Characters of a received value quoted back in an error.
const CLIP: usize = 80;
/// Literals listed in an expectation before the list is cut.
const MAX_LISTED: usize = 20;
/// Compiled patterns kept; the cache is emptied when it reaches this size.
const PATTERN_CACHE_LIMIT: usize = 512;
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
/// # Errors
///
/// The first [`ArgumentError`], in schema order: a property's own checks come before those of
/// the properties after it.
pub fn validate(args: &Value, schema: &Value) -> Result<(), ArgumentError> {
    let walk = Walk::new(schema);
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
    fuel: Cell<u32>,
}

impl<'s> Walk<'s> {
    /// Starts a traversal of the schema `root`, with a full work budget.
    pub(crate) fn new(root: &'s Value) -> Self {
        Walk {
            root,
            fuel: Cell::new(FUEL),
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
        let pointer = rules.get("$ref")?.as_str()?.strip_prefix('#')?;
        if pointer.is_empty() {
            Some(self.root)
        } else {
            self.root.pointer(pointer)
        }
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

    fn check_array(
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

    fn check_object(
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

    fn check_combinators(
        &self,
        value: &Value,
        rules: &'s Map<String, Value>,
        path: &Path<'_>,
        hops: u32,
    ) -> Checked {
        for branch in rules
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.check(value, branch, path, hops)?;
        }
        if let Some(branches) = rules.get("anyOf").and_then(Value::as_array) {
            self.check_any_of(value, branches, path, hops)?;
        }
        if let Some(branches) = rules.get("oneOf").and_then(Value::as_array) {
            self.check_one_of(value, branches, path, hops)?;
        }
        if let Some(forbidden) = rules.get("not") {
            match self.check(value, forbidden, path, hops) {
                Ok(()) => {
                    let expected = format!("not {}", self.describe(forbidden, hops));
                    return Err(invalid(path, expected, value));
                }
                Err(Fail::TooComplex(at)) => return Err(Fail::TooComplex(at)),
                Err(Fail::Invalid(_)) => {}
            }
        }
        Ok(())
    }

    fn check_any_of(
        &self,
        value: &Value,
        branches: &'s [Value],
        path: &Path<'_>,
        hops: u32,
    ) -> Checked {
        let mut failures = Vec::with_capacity(branches.len());
        for branch in branches {
            match self.check(value, branch, path, hops) {
                Ok(()) => return Ok(()),
                Err(Fail::Invalid(error)) => failures.push(error),
                Err(stop) => return Err(stop),
            }
        }
        Err(Fail::Invalid(
            self.union_failure(value, branches, failures, path, hops),
        ))
    }

    fn check_one_of(
        &self,
        value: &Value,
        branches: &'s [Value],
        path: &Path<'_>,
        hops: u32,
    ) -> Checked {
        let mut failures = Vec::with_capacity(branches.len());
        let mut first_match = None;
        for (index, branch) in branches.iter().enumerate() {
            match (self.check(value, branch, path, hops), first_match) {
                (Ok(()), None) => first_match = Some(index),
                (Ok(()), Some(first)) => {
                    let expected = format!(
                        "a value matching exactly one alternative (alternatives {} and {} both match)",
                        first + 1,
                        index + 1
                    );
                    return Err(invalid(path, expected, value));
                }
                (Err(Fail::Invalid(error)), _) => failures.push(error),
                (Err(stop), _) => return Err(stop),
            }
        }
        match first_match {
            Some(_) => Ok(()),
            None => Err(Fail::Invalid(
                self.union_failure(value, branches, failures, path, hops),
            )),
        }
    }

    /// The error to report when no alternative of a union accepts `value`: the error of the
    /// alternative the model evidently meant when one can be told (the only one of the value's
    /// kind, the one whose tag matches, the one the value got deepest into), else a list of
    /// what the alternatives accept.
    fn union_failure(
        &self,
        value: &Value,
        branches: &'s [Value],
        mut failures: Vec<ArgumentError>,
        path: &Path<'_>,
        hops: u32,
    ) -> ArgumentError {
        let combined = |walk: &Self| ArgumentError {
            path: path.pointer(),
            expected: walk.describe_union(branches, hops),
            received: render(value),
        };
        if failures.len() != branches.len() {
            return combined(self);
        }
        let admitting: Vec<usize> = (0..branches.len())
            .filter(|&i| self.admits_kind(value, &branches[i], hops))
            .collect();
        // serde's tagged enums: an alternative whose tag property holds another value is not
        // the one meant.
        let tagged: Vec<usize> = admitting
            .iter()
            .copied()
            .filter(|&i| self.tag_matches(value, &branches[i]) != Some(false))
            .collect();
        if tagged.is_empty()
            && let Some(error) = self.tag_error(value, branches, &admitting, path)
        {
            return error;
        }
        let pool = if tagged.is_empty() { admitting } else { tagged };
        if let [only] = pool.as_slice() {
            return failures.swap_remove(*only);
        }
        if value.is_object() || value.is_array() {
            let here = path.len();
            let deepest = pool
                .iter()
                .copied()
                .max_by_key(|&i| (reach(&failures[i]), Reverse(i)));
            if let Some(best) = deepest
                && reach(&failures[best]) > here
            {
                return failures.swap_remove(best);
            }
        }
        combined(self)
    }

    /// An object schema's tag: a required property whose value is fixed (`const` or a one-item
    /// `enum`), as serde's internally and adjacently tagged enums produce.
    fn tag_of(&self, branch: &'s Value) -> Option<(&'s str, &'s Value)> {
        let rules = self.resolved(branch)?;
        let properties = rules.get("properties")?.as_object()?;
        let required = rules.get("required")?.as_array()?;
        required.iter().filter_map(Value::as_str).find_map(|name| {
            let (key, schema) = properties.get_key_value(name)?;
            let fixed = match schema.get("enum").and_then(Value::as_array) {
                Some(options) if options.len() == 1 => options.first(),
                _ => schema.get("const"),
            };
            Some((key.as_str(), fixed?))
        })
    }

    /// `Some(true)` when `value` carries `branch`'s tag, `Some(false)` when it does not, `None`
    /// when `branch` has no tag.
    fn tag_matches(&self, value: &Value, branch: &'s Value) -> Option<bool> {
        let (key, tag) = self.tag_of(branch)?;
        Some(value.get(key).is_some_and(|sent| json_eq(sent, tag)))
    }

    /// When every alternative is tagged by the same property and none matches, the tag is
    /// what is wrong: report it with the tags allowed.
    fn tag_error(
        &self,
        value: &Value,
        branches: &'s [Value],
        admitting: &[usize],
        path: &Path<'_>,
    ) -> Option<ArgumentError> {
        let tags = admitting
            .iter()
            .map(|&i| self.tag_of(&branches[i]))
            .collect::<Option<Vec<_>>>()?;
        let (key, _) = *tags.first()?;
        if tags.iter().any(|(other, _)| *other != key) {
            return None;
        }
        let allowed: Vec<&Value> = tags.iter().map(|(_, tag)| *tag).collect();
        Some(ArgumentError {
            path: path.key(key).pointer(),
            expected: literal_list(&allowed),
            received: value.get(key).map_or_else(|| String::from(NOTHING), render),
        })
    }

    /// `schema`'s rules, through `$ref`-only wrappers.
    fn resolved(&self, mut schema: &'s Value) -> Option<&'s Map<String, Value>> {
        for _ in 0..=MAX_REF_HOPS {
            let rules = schema.as_object()?;
            match self.follow(rules) {
                Some(target)
                    if !rules.contains_key("type") && !rules.contains_key("properties") =>
                {
                    schema = target;
                }
                _ => return Some(rules),
            }
        }
        None
    }

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

    fn describe_union(&self, branches: &'s [Value], hops: u32) -> String {
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

/// Where a value sits in the arguments, built as the check descends and written out as a JSON
/// pointer only when an error needs it.
#[derive(Clone, Copy)]
pub(crate) struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    segment: Segment<'a>,
    /// Nesting level in the arguments, for the depth limit.
    depth: u32,
}

#[derive(Clone, Copy)]
enum Segment<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

impl<'a> Path<'a> {
    /// A path starting at a value nested `depth` levels deep.
    pub(crate) fn root(depth: u32) -> Self {
        Path {
            parent: None,
            segment: Segment::Root,
            depth,
        }
    }

    fn key<'b>(&'b self, key: &'b str) -> Path<'b> {
        self.child(Segment::Key(key))
    }

    fn index(&self, index: usize) -> Path<'_> {
        self.child(Segment::Index(index))
    }

    fn child<'b>(&'b self, segment: Segment<'b>) -> Path<'b> {
        Path {
            parent: Some(self),
            segment,
            depth: self.depth.saturating_add(1),
        }
    }

    fn segments(&self) -> Vec<Segment<'a>> {
        let mut segments = vec![self.segment];
        let mut at = self.parent;
        while let Some(path) = at {
            segments.push(path.segment);
            at = path.parent;
        }
        segments.reverse();
        segments
    }

    /// Number of steps from the root.
    fn len(&self) -> usize {
        self.segments()
            .iter()
            .filter(|segment| !matches!(segment, Segment::Root))
            .count()
    }

    /// The JSON pointer (RFC 6901) of this path.
    fn pointer(&self) -> String {
        let mut out = String::new();
        for segment in self.segments() {
            match segment {
                Segment::Root => {}
                Segment::Key(key) => {
                    out.push('/');
                    out.push_str(&key.replace('~', "~0").replace('/', "~1"));
                }
                Segment::Index(index) => {
                    let _ = write!(out, "/{index}");
                }
            }
        }
        out
    }
}

/// How deep into the value an error got: its pointer's length, one less for a missing
/// property (the object holding it was reached, not the property).
fn reach(error: &ArgumentError) -> usize {
    let depth = error.path.matches('/').count();
    depth.saturating_sub(usize::from(error.received == NOTHING))
}

fn invalid(path: &Path<'_>, expected: impl Into<String>, value: &Value) -> Fail {
    Fail::Invalid(ArgumentError {
        path: path.pointer(),
        expected: expected.into(),
        received: render(value),
    })
}

/// The type names `rules` declares (`"type": "x"` or `"type": [...]`), if any.
pub(crate) fn declared_types(rules: &Map<String, Value>) -> Option<Vec<&str>> {
    match rules.get("type")? {
        Value::String(name) => Some(vec![name.as_str()]),
        Value::Array(names) => Some(names.iter().filter_map(Value::as_str).collect()),
        _ => None,
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

fn same_kind(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

fn is_integral(number: &Number) -> bool {
    exact(number).is_some() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
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
pub(crate) fn compiled(pattern: &str) -> Option<Regex> {
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

fn check_type(value: &Value, rules: &Map<String, Value>, path: &Path<'_>) -> Checked {
    match declared_types(rules) {
        Some(types) if !types.iter().any(|name| type_matches(value, name)) => {
            Err(invalid(path, join_alternatives(&types), value))
        }
        _ => Ok(()),
    }
}

fn check_literals(value: &Value, rules: &Map<String, Value>, path: &Path<'_>) -> Checked {
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

fn check_number(
    number: &Number,
    rules: &Map<String, Value>,
    path: &Path<'_>,
    value: &Value,
) -> Checked {
    type Holds = fn(Ordering) -> bool;
    let bounds: [(&str, Holds, &str); 4] = [
        ("minimum", |o| o != Ordering::Less, "at least"),
        ("maximum", |o| o != Ordering::Greater, "at most"),
        (
            "exclusiveMinimum",
            |o| o == Ordering::Greater,
            "greater than",
        ),
        ("exclusiveMaximum", |o| o == Ordering::Less, "less than"),
    ];
    for (keyword, holds, words) in bounds {
        if let Some(limit) = rules.get(keyword).and_then(Value::as_number)
            && !compare(number, limit).is_some_and(holds)
        {
            return Err(invalid(path, format!("{words} {limit}"), value));
        }
    }
    if let Some(step) = rules.get("multipleOf").and_then(Value::as_number)
        && !is_multiple(number, step)
    {
        return Err(invalid(path, format!("a multiple of {step}"), value));
    }
    if let Some(format) = rules.get("format").and_then(Value::as_str)
        && let Some((low, high)) = integer_format_range(format)
        && !within(number, low, high)
    {
        let expected = format!("an integer from {low} to {high} ({format})");
        return Err(invalid(path, expected, value));
    }
    Ok(())
}

fn check_string(text: &str, rules: &Map<String, Value>, path: &Path<'_>, value: &Value) -> Checked {
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

/// The range of schemars' integer `format`s; `int`/`uint` are `isize`/`usize`, 64-bit here.
fn integer_format_range(format: &str) -> Option<(i128, i128)> {
    let range = |low: i128, high: i128| Some((low, high));
    match format {
        "int8" => range(i8::MIN.into(), i8::MAX.into()),
        "int16" => range(i16::MIN.into(), i16::MAX.into()),
        "int32" => range(i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => range(i64::MIN.into(), i64::MAX.into()),
        "uint8" => range(0, u8::MAX.into()),
        "uint16" => range(0, u16::MAX.into()),
        "uint32" => range(0, u32::MAX.into()),
        "uint64" | "uint" => range(0, u64::MAX.into()),
        _ => None,
    }
}

fn within(number: &Number, low: i128, high: i128) -> bool {
    match exact(number) {
        Some(integer) => (low..=high).contains(&integer),
        None => number.as_f64().is_some_and(|f| {
            compare_with_float(low, f) != Some(Ordering::Greater)
                && compare_with_float(high, f) != Some(Ordering::Less)
        }),
    }
}

/// `number` as an exact integer, when it is stored as one.
fn exact(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

/// Orders two JSON numbers exactly: no integer goes through `f64`.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (exact(a), exact(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        (Some(x), None) => compare_with_float(x, b.as_f64()?),
        (None, Some(y)) => compare_with_float(y, a.as_f64()?).map(Ordering::reverse),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn compare_with_float(x: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    let floor = f.floor();
    // `as` saturates at i128's ends, which no i64/u64 reaches, so the order stays right.
    match x.cmp(&(floor as i128)) {
        Ordering::Equal if f > floor => Some(Ordering::Less),
        other => Some(other),
    }
}

/// `multipleOf`: exact for integers; for fractions within a relative tolerance, since e.g.
/// 0.3 is not a multiple of 0.1 in binary floating point.
fn is_multiple(number: &Number, step: &Number) -> bool {
    if let (Some(x), Some(m)) = (exact(number), exact(step))
        && m > 0
    {
        return x % m == 0;
    }
    match (number.as_f64(), step.as_f64()) {
        (Some(x), Some(m)) if m > 0.0 => {
            let quotient = x / m;
            quotient.is_finite() && (quotient - quotient.round()).abs() < 1e-9
        }
        // A non-positive step is a broken schema: ignore it.
        _ => true,
    }
}

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
fn first_duplicate(items: &[Value]) -> Option<(usize, usize)> {
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

fn unknown_property(name: &str, properties: Option<&Map<String, Value>>) -> String {
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
fn join_alternatives<S: AsRef<str>>(parts: &[S]) -> String {
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
fn literal_list(values: &[&Value]) -> String {
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
fn literal(value: &Value) -> String {
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
fn quote(s: &str) -> String {
    Value::from(s).to_string()
}

/// `1 item`, `5 items`.
fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn len_u64(len: usize) -> u64 {
    u64::try_from(len).unwrap_or(u64::MAX)
}

#[cfg(test)]
pub(crate) mod tests {
    use serde_json::{Value, json};

    use super::{ArgumentError, validate};

    /// A tool's parameter schema as schemars 1.2 emits it (`schema_for!` output, trimmed) for
    /// `count: u32, ratio: f64, flag: bool, note: Option<String>, limit: Option<i64>,
    /// #[schemars(length(min = 1, max = 4))] choices: Vec<String>, mode: Mode,
    /// opt_mode: Option<Mode>, point: Option<Point>, origin: Point, shape: Shape (internally
    /// tagged), ext: Ext (externally tagged), id: IdOrName (untagged), tags: HashMap<String, u16>,
    /// size: usize, pair: (u8, String), #[schemars(regex(pattern = "^[a-z]+$"))] name: String,
    /// #[schemars(range(min = 1, max = 10))] level: i32, tree: Tree`.
    pub(crate) fn tool_schema() -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {
                "count": {"description": "The count", "type": "integer", "format": "uint32", "minimum": 0},
                "ratio": {"type": "number", "format": "double"},
                "flag": {"type": "boolean"},
                "note": {"type": ["string", "null"]},
                "limit": {"type": ["integer", "null"], "format": "int64"},
                "choices": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 4},
                "mode": {"$ref": "#/$defs/Mode"},
                "opt_mode": {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}]},
                "point": {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}]},
                "origin": {"description": "doc on ref", "$ref": "#/$defs/Point"},
                "shape": {"$ref": "#/$defs/Shape"},
                "ext": {"$ref": "#/$defs/Ext"},
                "id": {"$ref": "#/$defs/IdOrName"},
                "tags": {"type": "object", "additionalProperties": {"type": "integer", "format": "uint16", "minimum": 0, "maximum": 65535}},
                "size": {"type": "integer", "format": "uint", "minimum": 0},
                "pair": {
                    "type": "array",
                    "prefixItems": [
                        {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                        {"type": "string"}
                    ],
                    "minItems": 2,
                    "maxItems": 2
                },
                "name": {"type": "string", "pattern": "^[a-z]+$"},
                "level": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 10},
                "tree": {"$ref": "#/$defs/Tree"}
            },
            "required": ["count", "ratio", "flag", "choices", "mode", "origin", "shape", "ext",
                         "id", "tags", "size", "pair", "name", "level", "tree"],
            "$defs": {
                "Mode": {"type": "string", "enum": ["fast", "slow"]},
                "Point": {
                    "type": "object",
                    "properties": {
                        "x": {"type": "integer", "format": "int64"},
                        "y": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255}
                    },
                    "required": ["x", "y"]
                },
                "Shape": {"oneOf": [
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "const": "Circle"},
                            "r": {"type": "number", "format": "double"}
                        },
                        "required": ["kind", "r"]
                    },
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "const": "Square"},
                            "side": {"type": "integer", "format": "uint32", "minimum": 0}
                        },
                        "required": ["kind", "side"]
                    }
                ]},
                "Ext": {"oneOf": [
                    {
                        "type": "object",
                        "properties": {"A": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255}},
                        "required": ["A"],
                        "additionalProperties": false
                    },
                    {
                        "type": "object",
                        "properties": {"B": {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]}},
                        "required": ["B"],
                        "additionalProperties": false
                    }
                ]},
                "IdOrName": {"anyOf": [
                    {"type": "integer", "format": "uint64", "minimum": 0},
                    {"type": "string"}
                ]},
                "Tree": {
                    "type": "object",
                    "properties": {
                        "label": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}
                    },
                    "required": ["label", "children"]
                }
            }
        })
    }

    /// Arguments that satisfy [`tool_schema`].
    pub(crate) fn valid_args() -> Value {
        json!({
            "count": 3, "ratio": 0.5, "flag": true, "note": null, "limit": -4,
            "choices": ["a", "b"], "mode": "fast", "opt_mode": null, "point": {"x": -1, "y": 2},
            "origin": {"x": 0, "y": 0}, "shape": {"kind": "Circle", "r": 1.5}, "ext": {"A": 7},
            "id": "abc", "tags": {"a": 1}, "size": 9, "pair": [1, "one"], "name": "bob",
            "level": 10, "tree": {"label": "root", "children": [{"label": "leaf", "children": []}]}
        })
    }

    /// `valid_args` with `key` set to `value`.
    fn with(key: &str, value: Value) -> Value {
        let mut args = valid_args();
        args[key] = value;
        args
    }

    fn error(path: &str, expected: &str, received: &str) -> ArgumentError {
        ArgumentError {
            path: path.to_owned(),
            expected: expected.to_owned(),
            received: received.to_owned(),
        }
    }

    fn rejected(args: &Value, schema: &Value) -> ArgumentError {
        match validate(args, schema) {
            Ok(()) => panic!("{args} was accepted by {schema}"),
            Err(error) => error,
        }
    }

    fn in_tool(key: &str, value: Value) -> ArgumentError {
        rejected(&with(key, value), &tool_schema())
    }

    #[test]
    fn schemars_arguments_that_fit_pass() {
        assert_eq!(validate(&valid_args(), &tool_schema()), Ok(()));
    }

    #[test]
    fn type_mismatch_names_the_type() {
        assert_eq!(
            in_tool("count", json!("5")),
            error("/count", "integer", "the string \"5\"")
        );
        assert_eq!(
            in_tool("flag", json!(1)),
            error("/flag", "boolean", "the number 1")
        );
    }

    #[test]
    fn integer_is_a_number_without_fraction() {
        let schema = json!({"type": "integer"});
        assert_eq!(validate(&json!(3.0), &schema), Ok(()));
        assert_eq!(
            rejected(&json!(3.5), &schema),
            error("", "integer", "the number 3.5")
        );
        assert_eq!(
            rejected(&json!("3"), &schema),
            error("", "integer", "the string \"3\"")
        );
    }

    #[test]
    fn type_list_accepts_any_listed_type() {
        assert_eq!(validate(&with("note", json!(null)), &tool_schema()), Ok(()));
        assert_eq!(validate(&with("note", json!("hi")), &tool_schema()), Ok(()));
        assert_eq!(
            in_tool("note", json!(5)),
            error("/note", "string or null", "the number 5")
        );
        let three = json!({"type": ["integer", "string", "null"]});
        assert_eq!(
            rejected(&json!(true), &three),
            error("", "integer, string or null", "the boolean true")
        );
    }

    #[test]
    fn missing_required_property_is_reported_where_it_belongs() {
        let mut args = valid_args();
        args.as_object_mut().map(|map| map.remove("count"));
        let failure = rejected(&args, &tool_schema());
        assert_eq!(failure, error("/count", "integer", "nothing"));
        assert_eq!(
            failure.to_string(),
            "missing required argument \"/count\": expected integer"
        );
        let undeclared = json!({"type": "object", "required": ["ghost"]});
        assert_eq!(
            rejected(&json!({}), &undeclared),
            error("/ghost", "a value", "nothing")
        );
    }

    #[test]
    fn missing_enum_property_lists_its_values() {
        let mut args = valid_args();
        args.as_object_mut().map(|map| map.remove("mode"));
        assert_eq!(
            rejected(&args, &tool_schema()),
            error("/mode", "one of \"fast\", \"slow\"", "nothing")
        );
    }

    #[test]
    fn first_error_follows_schema_order_not_argument_order() {
        let schema = json!({
            "type": "object",
            "properties": {"first": {"type": "integer"}, "second": {"type": "integer"}}
        });
        let args = json!({"second": "b", "first": "a"});
        assert_eq!(
            rejected(&args, &schema),
            error("/first", "integer", "the string \"a\"")
        );
    }

    #[test]
    fn additional_properties_false_rejects_unknown_names() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
            "additionalProperties": false
        });
        assert_eq!(
            rejected(&json!({"a": 1, "extra": 2}), &schema),
            error(
                "/extra",
                "no property \"extra\" (known properties: \"a\", \"b\")",
                "the number 2"
            )
        );
        let closed = json!({"type": "object", "additionalProperties": false});
        assert_eq!(
            rejected(&json!({"x": null}), &closed),
            error("/x", "no property \"x\" (none are accepted here)", "null")
        );
    }

    #[test]
    fn additional_properties_schema_checks_map_values() {
        assert_eq!(
            in_tool("tags", json!({"a": 1, "b": 70000})),
            error("/tags/b", "at most 65535", "the number 70000")
        );
    }

    #[test]
    fn pattern_properties_check_matching_names_and_exempt_them() {
        let schema = json!({
            "type": "object",
            "patternProperties": {"^n_": {"type": "integer"}},
            "additionalProperties": false
        });
        assert_eq!(validate(&json!({"n_a": 1}), &schema), Ok(()));
        assert_eq!(
            rejected(&json!({"n_a": "1"}), &schema),
            error("/n_a", "integer", "the string \"1\"")
        );
    }

    #[test]
    fn items_are_checked_with_their_index() {
        assert_eq!(
            in_tool("choices", json!(["a", 5])),
            error("/choices/1", "string", "the number 5")
        );
    }

    #[test]
    fn prefix_items_check_tuple_positions() {
        assert_eq!(
            in_tool("pair", json!([300, "x"])),
            error("/pair/0", "at most 255", "the number 300")
        );
        assert_eq!(
            in_tool("pair", json!([1, 2])),
            error("/pair/1", "string", "the number 2")
        );
        let closed = json!({"prefixItems": [{"type": "integer"}], "items": false});
        assert_eq!(
            rejected(&json!([1, 2]), &closed),
            error("/1", "no value here", "the number 2")
        );
    }

    #[test]
    fn draft7_tuple_items_are_understood() {
        let schema = json!({"items": [{"type": "integer"}], "additionalItems": {"type": "string"}});
        assert_eq!(validate(&json!([1, "a"]), &schema), Ok(()));
        assert_eq!(
            rejected(&json!([1, 2]), &schema),
            error("/1", "string", "the number 2")
        );
    }

    #[test]
    fn min_and_max_items() {
        let failure = in_tool("choices", json!(["a", "b", "c", "d", "e"]));
        assert_eq!(
            failure,
            error(
                "/choices",
                "at most 4 items",
                "an array of 5 items: [\"a\",\"b\",\"c\",\"d\",\"e\"]"
            )
        );
        assert_eq!(
            failure.to_string(),
            "argument \"/choices\": expected at most 4 items, received an array of 5 items: [\"a\",\"b\",\"c\",\"d\",\"e\"]"
        );
        assert_eq!(
            in_tool("choices", json!([])),
            error("/choices", "at least 1 item", "an array of 0 items: []")
        );
    }

    #[test]
    fn unique_items_points_at_the_repeat() {
        let schema = json!({"type": "array", "uniqueItems": true});
        assert_eq!(
            rejected(&json!([1, 2, 1.0]), &schema),
            error(
                "/2",
                "a value different from item 0 (items must be unique)",
                "the number 1.0"
            )
        );
        assert_eq!(
            rejected(&json!([{"a": 1, "b": [2]}, {"b": [2], "a": 1}]), &schema),
            error(
                "/1",
                "a value different from item 0 (items must be unique)",
                "an object: {\"b\":[2],\"a\":1}"
            )
        );
        assert_eq!(validate(&json!([1, "1", [1], 1.5, true]), &schema), Ok(()));
    }

    #[test]
    fn numeric_bounds() {
        assert_eq!(
            in_tool("level", json!(0)),
            error("/level", "at least 1", "the number 0")
        );
        assert_eq!(
            in_tool("level", json!(11)),
            error("/level", "at most 10", "the number 11")
        );
        let open = json!({"exclusiveMinimum": 0, "exclusiveMaximum": 2.5});
        assert_eq!(
            rejected(&json!(0), &open),
            error("", "greater than 0", "the number 0")
        );
        assert_eq!(
            rejected(&json!(2.5), &open),
            error("", "less than 2.5", "the number 2.5")
        );
        assert_eq!(validate(&json!(2), &open), Ok(()));
    }

    #[test]
    fn numeric_bounds_are_exact_for_large_integers() {
        // As f64 both are 2^53, so a float comparison would accept it.
        let schema = json!({"maximum": 9_007_199_254_740_992_u64});
        assert_eq!(
            rejected(&json!(9_007_199_254_740_993_u64), &schema),
            error(
                "",
                "at most 9007199254740992",
                "the number 9007199254740993"
            )
        );
        let fractional = json!({"maximum": 2.5});
        assert_eq!(validate(&json!(2), &fractional), Ok(()));
        assert_eq!(
            rejected(&json!(3), &fractional),
            error("", "at most 2.5", "the number 3")
        );
    }

    #[test]
    fn multiple_of() {
        let five = json!({"multipleOf": 5});
        assert_eq!(validate(&json!(15), &five), Ok(()));
        assert_eq!(
            rejected(&json!(7), &five),
            error("", "a multiple of 5", "the number 7")
        );
        let tenth = json!({"multipleOf": 0.1});
        assert_eq!(validate(&json!(0.3), &tenth), Ok(()));
        assert_eq!(
            rejected(&json!(0.25), &tenth),
            error("", "a multiple of 0.1", "the number 0.25")
        );
    }

    #[test]
    fn string_lengths_count_characters_not_bytes() {
        let schema = json!({"type": "string", "minLength": 2, "maxLength": 5});
        // Six bytes, five characters.
        assert_eq!(validate(&json!("héllo"), &schema), Ok(()));
        assert_eq!(
            rejected(&json!("héllos"), &schema),
            error(
                "",
                "at most 5 characters",
                "the string \"héllos\" (6 characters)"
            )
        );
        assert_eq!(
            rejected(&json!("é"), &schema),
            error(
                "",
                "at least 2 characters",
                "the string \"é\" (1 character)"
            )
        );
    }

    #[test]
    fn pattern_is_a_regex_search() {
        assert_eq!(
            in_tool("name", json!("Bob")),
            error("/name", "a string matching ^[a-z]+$", "the string \"Bob\"")
        );
        let unanchored = json!({"pattern": "b+"});
        assert_eq!(validate(&json!("abba"), &unanchored), Ok(()));
        assert_eq!(
            rejected(&json!("ac"), &unanchored),
            error("", "a string matching b+", "the string \"ac\"")
        );
    }

    #[test]
    fn patterns_the_regex_crate_cannot_compile_are_ignored() {
        assert_eq!(validate(&json!("x"), &json!({"pattern": "("})), Ok(()));
        assert_eq!(validate(&json!("x"), &json!({"pattern": "(?=a)"})), Ok(()));
    }

    #[test]
    fn enum_lists_the_allowed_values() {
        let failure = in_tool("mode", json!("medium"));
        assert_eq!(
            failure,
            error(
                "/mode",
                "one of \"fast\", \"slow\"",
                "the string \"medium\""
            )
        );
        assert_eq!(
            failure.to_string(),
            "argument \"/mode\": expected one of \"fast\", \"slow\", received the string \"medium\""
        );
        assert_eq!(validate(&json!(1.0), &json!({"enum": [1, 2]})), Ok(()));
    }

    #[test]
    fn const_shows_the_value() {
        assert_eq!(
            rejected(&json!("y"), &json!({"const": "x"})),
            error("", "\"x\"", "the string \"y\"")
        );
        assert_eq!(
            validate(&json!({"a": [1.0]}), &json!({"const": {"a": [1]}})),
            Ok(())
        );
    }

    #[test]
    fn any_of_reports_inside_the_alternative_of_the_values_kind() {
        assert_eq!(
            in_tool("point", json!({"x": 1, "y": "2"})),
            error("/point/y", "integer", "the string \"2\"")
        );
        assert_eq!(
            in_tool("opt_mode", json!("medium")),
            error(
                "/opt_mode",
                "one of \"fast\", \"slow\"",
                "the string \"medium\""
            )
        );
    }

    #[test]
    fn any_of_without_a_fitting_kind_lists_the_alternatives() {
        assert_eq!(
            in_tool("point", json!("here")),
            error("/point", "object or null", "the string \"here\"")
        );
        assert_eq!(
            in_tool("opt_mode", json!(5)),
            error(
                "/opt_mode",
                "one of \"fast\", \"slow\", null",
                "the number 5"
            )
        );
        assert_eq!(
            in_tool("id", json!(true)),
            error("/id", "integer or string", "the boolean true")
        );
        assert_eq!(
            in_tool("id", json!(-1)),
            error("/id", "at least 0", "the number -1")
        );
    }

    #[test]
    fn one_of_tagged_enum_reports_the_meant_variant() {
        assert_eq!(
            in_tool("shape", json!({"kind": "Square", "side": "x"})),
            error("/shape/side", "integer", "the string \"x\"")
        );
        assert_eq!(
            in_tool("shape", json!({"kind": "Square"})),
            error("/shape/side", "integer", "nothing")
        );
    }

    #[test]
    fn one_of_tagged_enum_reports_an_unknown_tag() {
        assert_eq!(
            in_tool("shape", json!({"kind": "Triangle", "side": 1})),
            error(
                "/shape/kind",
                "one of \"Circle\", \"Square\"",
                "the string \"Triangle\""
            )
        );
        assert_eq!(
            in_tool("shape", json!({"side": 1})),
            error("/shape/kind", "one of \"Circle\", \"Square\"", "nothing")
        );
    }

    #[test]
    fn one_of_externally_tagged_enum() {
        assert_eq!(
            in_tool("ext", json!({"A": 300})),
            error("/ext/A", "at most 255", "the number 300")
        );
        assert_eq!(
            in_tool("ext", json!({"B": {}})),
            error("/ext/B/s", "string", "nothing")
        );
        assert_eq!(
            in_tool("ext", json!({"C": 1})),
            error(
                "/ext",
                "object with property \"A\" or object with property \"B\"",
                "an object: {\"C\":1}"
            )
        );
    }

    #[test]
    fn one_of_rejects_a_value_matching_two_alternatives() {
        let schema = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
        assert_eq!(validate(&json!(1.5), &schema), Ok(()));
        assert_eq!(
            rejected(&json!(1), &schema),
            error(
                "",
                "a value matching exactly one alternative (alternatives 1 and 2 both match)",
                "the number 1"
            )
        );
    }

    #[test]
    fn all_of_needs_every_branch() {
        let schema = json!({"allOf": [{"minimum": 1}, {"maximum": 3}]});
        assert_eq!(validate(&json!(2), &schema), Ok(()));
        assert_eq!(
            rejected(&json!(5), &schema),
            error("", "at most 3", "the number 5")
        );
    }

    #[test]
    fn not_rejects_what_its_schema_accepts() {
        let schema = json!({"not": {"type": "null"}});
        assert_eq!(validate(&json!(0), &schema), Ok(()));
        assert_eq!(
            rejected(&json!(null), &schema),
            error("", "not null", "null")
        );
    }

    #[test]
    fn local_refs_resolve_in_defs_and_definitions() {
        let schema = json!({
            "definitions": {"N": {"type": "integer"}},
            "type": "object",
            "properties": {"n": {"$ref": "#/definitions/N"}}
        });
        assert_eq!(
            rejected(&json!({"n": "x"}), &schema),
            error("/n", "integer", "the string \"x\"")
        );
        assert_eq!(
            in_tool("origin", json!({"x": 1, "y": -1})),
            error("/origin/y", "at least 0", "the number -1")
        );
        assert_eq!(
            validate(&json!(1), &json!({"$ref": "#/$defs/Missing"})),
            Ok(())
        );
    }

    #[test]
    fn recursive_schema_checks_deep_values() {
        let tree = json!({"label": "a", "children": [{"label": "b", "children": [
            {"label": 3, "children": []}
        ]}]});
        assert_eq!(
            in_tool("tree", tree),
            error(
                "/tree/children/0/children/0/label",
                "string",
                "the number 3"
            )
        );
    }

    #[test]
    fn integer_formats_are_range_checked() {
        let cases = [
            ("uint8", json!(256), "an integer from 0 to 255 (uint8)"),
            ("int8", json!(-129), "an integer from -128 to 127 (int8)"),
            (
                "uint16",
                json!(65536),
                "an integer from 0 to 65535 (uint16)",
            ),
            (
                "int16",
                json!(32768),
                "an integer from -32768 to 32767 (int16)",
            ),
            (
                "uint32",
                json!(-1),
                "an integer from 0 to 4294967295 (uint32)",
            ),
            (
                "int32",
                json!(2_147_483_648_u64),
                "an integer from -2147483648 to 2147483647 (int32)",
            ),
            (
                "uint64",
                json!(-1),
                "an integer from 0 to 18446744073709551615 (uint64)",
            ),
            (
                "uint",
                json!(-1),
                "an integer from 0 to 18446744073709551615 (uint)",
            ),
            (
                "int64",
                json!(9_223_372_036_854_775_808_u64),
                "an integer from -9223372036854775808 to 9223372036854775807 (int64)",
            ),
            (
                "int",
                json!(1e19),
                "an integer from -9223372036854775808 to 9223372036854775807 (int)",
            ),
        ];
        for (format, value, expected) in cases {
            let schema = json!({"type": "integer", "format": format});
            let received = super::render(&value);
            assert_eq!(
                rejected(&value, &schema),
                error("", expected, &received),
                "{format}"
            );
        }
        let byte = json!({"type": "integer", "format": "uint8"});
        assert_eq!(validate(&json!(255), &byte), Ok(()));
        assert_eq!(validate(&json!(255.0), &byte), Ok(()));
        let unsigned = json!({"format": "uint64"});
        assert_eq!(validate(&json!(u64::MAX), &unsigned), Ok(()));
        assert_eq!(validate(&json!(-1.5), &json!({"format": "double"})), Ok(()));
    }

    #[test]
    fn boolean_schemas() {
        assert_eq!(validate(&json!({"any": [1]}), &json!(true)), Ok(()));
        assert_eq!(
            rejected(&json!(1), &json!(false)),
            error("", "no value here", "the number 1")
        );
        let schema = json!({"properties": {"x": false}});
        assert_eq!(validate(&json!({}), &schema), Ok(()));
        assert_eq!(
            rejected(&json!({"x": 1}), &schema),
            error("/x", "no value here", "the number 1")
        );
    }

    #[test]
    fn pointer_escapes_slash_and_tilde() {
        let schema = json!({"properties": {"a/b~c": {"type": "integer"}}});
        assert_eq!(rejected(&json!({"a/b~c": "1"}), &schema).path, "/a~1b~0c");
    }

    #[test]
    fn received_values_are_cut_short() {
        let long = "x".repeat(100);
        let failure = rejected(&json!(long), &json!({"type": "integer"}));
        assert_eq!(
            failure.received,
            format!("the string \"{}\"…", "x".repeat(80))
        );
        let many: Vec<u32> = (0..100).collect();
        let failure = rejected(&json!(many), &json!({"maxItems": 1}));
        let shown = failure
            .received
            .strip_prefix("an array of 100 items: [0,1,2,")
            .map(|rest| (rest.ends_with('…'), rest.chars().count()));
        assert_eq!(shown, Some((true, 80 - 7 + 1)));
    }

    #[test]
    fn root_errors_read_as_arguments() {
        let failure = rejected(&json!([1]), &json!({"type": "object"}));
        assert_eq!(
            failure.to_string(),
            "arguments: expected object, received an array of 1 item: [1]"
        );
    }

    #[test]
    fn reference_cycles_end_with_an_error() {
        let cycle = json!({"$ref": "#"});
        assert_eq!(
            rejected(&json!(1), &cycle),
            error(
                "",
                "arguments simple enough to check (nesting, $ref or work limit reached)",
                "the number 1"
            )
        );
    }

    #[test]
    fn exponential_unions_stop_at_the_work_budget() {
        let schema = json!({
            "$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/A"}]}},
            "$ref": "#/$defs/A"
        });
        let failure = rejected(&json!(1), &schema);
        assert_eq!(
            failure.expected,
            "arguments simple enough to check (nesting, $ref or work limit reached)"
        );
    }

    #[test]
    fn exponential_unions_over_distinct_definitions_stop_at_the_work_budget() {
        // Each level doubles the alternatives: 2^30 leaf checks without a budget (30 $ref hops
        // stay under the cycle limit).
        let mut defs = serde_json::Map::new();
        for level in 0..30 {
            let next = json!({"$ref": format!("#/$defs/D{}", level + 1)});
            defs.insert(format!("D{level}"), json!({"anyOf": [next.clone(), next]}));
        }
        defs.insert(String::from("D30"), json!({"type": "string"}));
        let schema = json!({"$defs": defs, "$ref": "#/$defs/D0"});
        let failure = rejected(&json!(1), &schema);
        assert_eq!(
            failure.expected,
            "arguments simple enough to check (nesting, $ref or work limit reached)"
        );
    }

    #[test]
    fn values_nested_too_deep_are_rejected_without_overflowing() {
        let mut value = json!(1);
        for _ in 0..200 {
            value = Value::Array(vec![value]);
        }
        let failure = rejected(&value, &json!({"items": {"$ref": "#"}}));
        assert_eq!(failure.path, "/0".repeat(129));
        assert_eq!(
            failure.expected,
            "arguments simple enough to check (nesting, $ref or work limit reached)"
        );
    }
}
