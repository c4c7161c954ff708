//! Rendering an over-size answer straight from its JSON text (see the [module docs](super),
//! "Rendering"), in one parse: serde_json reads the top level, keeping each member (or item)
//! as its raw text; a string member is then decoded straight into the rendering, any other
//! value parsed alone.
//!
//! The general path parses the whole answer into a `Value`, writes it back and compares that
//! with the text made canonical (to catch what parsing loses), then renders the `Value`: about
//! six passes over a 20 MB answer and three copies of it alive at once. Here a string member,
//! which is what makes answers big (a file, a command's output), costs the parse, its decoding
//! and one copy, the rendering itself. Whatever this path is not sure of (a duplicate key, a
//! value that would not round trip, text that is not JSON, an empty object or array) it leaves
//! to the general path, which decides exactly; so where it answers, it answers what the
//! general path would.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::render::{count_newlines, push_header, push_section, round_trips};

/// The deepest a member's value may nest: serde_json refuses a whole answer nested deeper
/// than 127 levels (the member sits one level down), but skipping over a member as raw text
/// does not count its depth, so it is checked here.
const MAX_MEMBER_DEPTH: usize = 126;

/// An answer rendered, and whether it is error-shaped (an `"error"` member that is not
/// `null`, `false` or `""`).
pub(super) struct Scanned {
    pub rendering: String,
    pub is_error: bool,
}

/// The rendering of `json`, when it is an object or array with members (or a string) whose
/// rendering this path can tell for sure; `None` leaves the answer to the general path.
pub(super) fn render(json: &str) -> Option<Scanned> {
    let mut out = String::with_capacity(json.len() + 64);
    if json.trim_start().starts_with('"') {
        let mut de = serde_json::Deserializer::from_str(json);
        de.deserialize_str(StringSection {
            out: &mut out,
            label: None,
        })
        .ok()?;
        de.end().ok()?;
        return Some(Scanned {
            rendering: out,
            is_error: false,
        });
    }
    let is_error = match serde_json::from_str::<Top<'_>>(json).ok()? {
        Top::Object(members) => {
            let mut seen: HashSet<&str, foldhash::fast::RandomState> = HashSet::default();
            let mut is_error = false;
            for (key, raw) in &members {
                // A duplicate key is dropped by parsing: the general path renders the text as is.
                if !seen.insert(key) {
                    return None;
                }
                let error = member(&mut out, &Value::from(key.as_str()).to_string(), raw)?;
                if key == "error" {
                    is_error = error;
                }
            }
            is_error
        }
        Top::Array(items) => {
            for (index, raw) in items.iter().enumerate() {
                member(&mut out, &format!("[{index}]"), raw)?;
            }
            false
        }
    };
    Some(Scanned {
        rendering: out,
        is_error,
    })
}

/// Renders the member `raw` as the section `label`; whether it is one that makes an `"error"`
/// member error-shaped (anything but `null`, `false` and `""`).
fn member(out: &mut String, label: &str, raw: &RawValue) -> Option<bool> {
    let text = raw.get();
    if text.starts_with('"') {
        // Decoded by serde_json straight into the rendering (borrowed from the answer when the
        // string holds no escape): no `String` of the member on the way.
        let mut de = serde_json::Deserializer::from_str(text);
        return de
            .deserialize_str(StringSection {
                out,
                label: Some(label),
            })
            .ok()
            .map(|empty| !empty);
    }
    let value: Value = serde_json::from_str(text).ok()?;
    if depth(&value) > MAX_MEMBER_DEPTH || !round_trips(text, &value) {
        return None;
    }
    push_section(out, Some(label), "json", &format!("{value:#}"));
    Some(!matches!(value, Value::Null | Value::Bool(false)))
}

/// How many arrays and objects `value` nests (0 for a scalar).
fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(members) => 1 + members.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// An answer's top level as this path takes it: the members or items as their raw text; an
/// empty object or array, or any other value, is refused (the general path's).
enum Top<'a> {
    Object(Vec<(String, &'a RawValue)>),
    Array(Vec<&'a RawValue>),
}

impl<'de> serde::Deserialize<'de> for Top<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TopVisitor)
    }
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object or array with members")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(member) = map.next_entry::<String, &'de RawValue>()? {
            members.push(member);
        }
        if members.is_empty() {
            return Err(de::Error::custom("empty"));
        }
        Ok(Top::Object(members))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<&'de RawValue>()? {
            items.push(item);
        }
        if items.is_empty() {
            return Err(de::Error::custom("empty"));
        }
        Ok(Top::Array(items))
    }
}

/// Appends a decoded JSON string to the rendering as a `string` section (named `label`, for a
/// member); answers whether the string was empty.
struct StringSection<'o> {
    out: &'o mut String,
    label: Option<&'o str>,
}

impl Visitor<'_> for StringSection<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<bool, E> {
        push_header(self.out, self.label, "string", count_newlines(text) + 1);
        self.out.push_str(text);
        self.out.push('\n');
        Ok(text.is_empty())
    }
}
