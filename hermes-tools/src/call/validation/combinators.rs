//! The combinators (`allOf`, `anyOf`, `oneOf`, `not`), and which error a failed union reports:
//! that of the alternative the model evidently meant, when one can be told.

use std::cmp::Reverse;

use serde_json::{Map, Value};

use super::equality::json_eq;
use super::messages::{invalid, literal_list, render};
use super::{ArgumentError, Checked, Fail, MAX_REF_HOPS, NOTHING, Path, Walk};

impl<'s> Walk<'s> {
    pub(super) fn check_combinators(
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
    pub(super) fn resolved(&self, mut schema: &'s Value) -> Option<&'s Map<String, Value>> {
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
}

/// How deep into the value an error got: its pointer's length, one less for a missing
/// property (the object holding it was reached, not the property).
fn reach(error: &ArgumentError) -> usize {
    let depth = error.path.matches('/').count();
    depth.saturating_sub(usize::from(error.received == NOTHING))
}
