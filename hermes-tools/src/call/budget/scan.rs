//! Rendering an over-size answer straight from its JSON text (see the [module docs](super),
//! "Rendering"), without parsing it into a `Value`. An answer whose members are all strings,
//! integers, booleans or `null` (most big ones: a command's output, a file) is rendered in one
//! pass, as serde_json reads it, each string decoded straight into the rendering. Any other is
//! read member by member (after that pass gives up, so partly twice): serde_json reads the top
//! level, keeping each member (or item) as its raw text; a string member is then decoded
//! straight into the rendering, any other value parsed alone.
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
    if let Some(is_error) = render_flat(json, &mut out) {
        return Some(Scanned {
            rendering: out,
            is_error,
        });
    }
    out.clear();
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

/// The rendering of an object or array whose members are all strings, integers, booleans or
/// `null` (`{"result": "…"}`, `{"output": "…", "exit_code": 0}`), in one pass: each member is
/// rendered as serde_json reads it, a string decoded straight into the rendering. Those values
/// write back as they were read, so no member's raw text is needed to check that; any other
/// member (a float, an object, an array), a duplicate key or an empty answer ends this pass
/// with `None`, and [`render`] takes the answer member by member. Whether it is error-shaped.
///
/// Reading each member as raw text first costs a pass over the whole answer, about a tenth of
/// echoing a 20 MB string (`bench/README.md`, big inputs). The price: what this pass read
/// before a member it does not take is read again member by member.
pub(super) fn render_flat(json: &str, out: &mut String) -> Option<bool> {
    let mut de = serde_json::Deserializer::from_str(json);
    let is_error = de.deserialize_any(FlatTop { out }).ok()?;
    de.end().ok()?;
    Some(is_error)
}

/// [`render_flat`]'s top level: renders each member, answers whether the answer is
/// error-shaped.
struct FlatTop<'o> {
    out: &'o mut String,
}

impl<'de> Visitor<'de> for FlatTop<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object or array with members")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut seen: HashSet<String, foldhash::fast::RandomState> = HashSet::default();
        let mut is_error = false;
        while let Some(key) = map.next_key::<String>()? {
            let label = Value::from(key.as_str()).to_string();
            let shows = map.next_value_seed(FlatMember {
                out: self.out,
                label: &label,
            })?;
            if key == "error" {
                is_error = shows;
            }
            if !seen.insert(key) {
                return Err(de::Error::custom("a duplicate key"));
            }
        }
        if seen.is_empty() {
            return Err(de::Error::custom("empty"));
        }
        Ok(is_error)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let mut items = 0_usize;
        loop {
            let label = format!("[{items}]");
            let seed = FlatMember {
                out: self.out,
                label: &label,
            };
            if seq.next_element_seed(seed)?.is_none() {
                break;
            }
            items += 1;
        }
        if items == 0 {
            return Err(de::Error::custom("empty"));
        }
        Ok(false)
    }
}

/// One member of [`render_flat`], rendered as the section `label`: a string, an integer, a
/// boolean or `null`; whether it makes an `"error"` member error-shaped.
struct FlatMember<'o> {
    out: &'o mut String,
    label: &'o str,
}

impl<'de> de::DeserializeSeed<'de> for FlatMember<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl FlatMember<'_> {
    fn scalar<E>(self, json: &str, shows: bool) -> Result<bool, E> {
        push_section(self.out, Some(self.label), "json", json);
        Ok(shows)
    }
}

impl Visitor<'_> for FlatMember<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string, an integer, a boolean or null")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<bool, E> {
        let empty = StringSection {
            out: self.out,
            label: Some(self.label),
        }
        .visit_str(text)?;
        Ok(!empty)
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<bool, E> {
        self.scalar(if value { "true" } else { "false" }, value)
    }

    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        self.scalar("null", false)
    }

    // serde_json reads an integer within the range of `i64` or `u64` as one of these (`-0`, an
    // exponent, a fraction or a wider integer makes it a float), and writes it back with the
    // same digits.
    fn visit_i64<E: de::Error>(self, value: i64) -> Result<bool, E> {
        self.scalar(&value.to_string(), true)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<bool, E> {
        self.scalar(&value.to_string(), true)
    }
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
