//! The parameters of a `#[tool]` function (without `#[args]`): how their values are read from
//! the argument text and how their schema is built, shared by every tool.
//!
//! A tool's expansion is compiled once per tool, so it holds only data: the parameters' names
//! and default functions (for [`parse`]) and a table of [`Field`]s (for [`schema`]). What is
//! generic is generic over the parameters' *types*, never over a type of the tool's own:
//!
//! - the values are read into a cons list of the parameter types, `(A, (B, ()))`, so tools
//!   whose parameters have the same types share one instantiation of the reading code (serde's
//!   derive writes a field enum, a visitor, `visit_seq` and `visit_map` per struct, and
//!   `serde_json::from_str` is instantiated again for each struct);
//! - the schema is built by one function from the table; what is generic in it is the
//!   subschema of each field type ([`field`]), compiled once per type.
//!
//! The behaviour is serde's derive with `deny_unknown_fields` (unknown and duplicate keys are
//! errors, a missing `Option` is `None`, any other missing field is an error unless it has a
//! default, with serde_json's messages and positions), and the schema is exactly what
//! schemars' derive writes for the same struct (its field order, `required`, titles,
//! descriptions, defaults and extensions): tests compare both.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::ArgumentsRejected;

/// The values of a tool's parameters, as the cons list `(A, (B, ()))` of their types.
#[diagnostic::on_unimplemented(
    message = "a parameter type of this `#[tool]` cannot be read from the model's arguments",
    note = "every parameter the model fills must implement serde's `Deserialize` (owned)"
)]
pub trait Fields: Sized {
    /// One `Option` per parameter: the value read so far.
    type Slots: Default;
    /// One optional default function per parameter (`#[arg(default = ...)]`).
    type Defaults: Copy;

    /// Reads the value of the current entry of `map` into the slot of parameter `index`
    /// (whose name is `names[index]`); a second value is serde's duplicate-field error.
    fn read<'de, A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        index: usize,
        map: &mut A,
        names: &'static [&'static str],
    ) -> Result<(), A::Error>;

    /// The values, once every entry is read: a missing one is its default, `None` for an
    /// `Option`, else serde's missing-field error (the first missing parameter's, in order).
    fn finish<E: de::Error>(
        slots: Self::Slots,
        defaults: Self::Defaults,
        names: &'static [&'static str],
    ) -> Result<Self, E>;
}

impl Fields for () {
    type Slots = ();
    type Defaults = ();

    fn read<'de, A: MapAccess<'de>>(
        _: &mut (),
        _: usize,
        _: &mut A,
        _: &'static [&'static str],
    ) -> Result<(), A::Error> {
        // Unreachable: a key is an index among the names, and there is one slot per name.
        Ok(())
    }

    fn finish<E: de::Error>(_: (), _: (), _: &'static [&'static str]) -> Result<(), E> {
        Ok(())
    }
}

impl<H: DeserializeOwned, T: Fields> Fields for (H, T) {
    type Slots = (Option<H>, T::Slots);
    type Defaults = (Option<fn() -> H>, T::Defaults);

    fn read<'de, A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        index: usize,
        map: &mut A,
        names: &'static [&'static str],
    ) -> Result<(), A::Error> {
        match index.checked_sub(1) {
            None => next(&mut slots.0, map, names[0]),
            Some(index) => T::read(&mut slots.1, index, map, &names[1..]),
        }
    }

    fn finish<E: de::Error>(
        slots: Self::Slots,
        defaults: Self::Defaults,
        names: &'static [&'static str],
    ) -> Result<Self, E> {
        let head = match (slots.0, defaults.0) {
            (Some(value), _) => value,
            (None, Some(default)) => default(),
            (None, None) => H::deserialize(Missing(names[0], PhantomData))?,
        };
        Ok((head, T::finish(slots.1, defaults.1, &names[1..])?))
    }
}

/// Reads a tool's argument text into its parameters' values: `names` are the parameters'
/// names in the argument object, in order, `defaults` their default functions.
///
/// The same judgement as [`parse_arguments`](super::parse_arguments) of serde's derive: an
/// empty text, `null`, `"null"` and `""` are `{}`, anything else but a JSON object is refused,
/// trailing characters are an error.
pub fn parse<F: Fields>(
    text: &str,
    names: &'static [&'static str],
    defaults: F::Defaults,
) -> Result<F, ArgumentsRejected> {
    let text = object_text(text)?;
    // What `serde_json::from_str` does, with a seed instead of a `Deserialize` type.
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = (&mut deserializer)
        .deserialize_map(Arguments::<F> { names, defaults })
        .map_err(ArgumentsRejected)?;
    deserializer.end().map_err(ArgumentsRejected)?;
    Ok(value)
}

/// The text to deserialize: `{}` for one that [means no arguments](means_no_arguments); an
/// error for anything else but an object (serde would also read a struct from an array). Not
/// generic, so compiled once.
pub(crate) fn object_text(text: &str) -> Result<&str, ArgumentsRejected> {
    if means_no_arguments(text) {
        return Ok("{}");
    }
    if !text.trim_start().starts_with('{') {
        return Err(ArgumentsRejected(de::Error::custom(
            "expected a JSON object of arguments",
        )));
    }
    Ok(text)
}

/// Whether the argument text means `{}`: empty or blank, the JSON `null`, or the JSON string
/// `"null"` or `""`, which models send for a tool without parameters. Both dispatch paths ask
/// this, so the fast one and the slow one read such a text alike.
pub(crate) fn means_no_arguments(text: &str) -> bool {
    matches!(text.trim(), "" | "null" | r#""null""# | r#""""#)
}

/// The visitor of the argument object.
struct Arguments<F: Fields> {
    names: &'static [&'static str],
    defaults: F::Defaults,
}

impl<'de, F: Fields> Visitor<'de> for Arguments<F> {
    type Value = F;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of arguments")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<F, A::Error> {
        let mut slots = F::Slots::default();
        while let Some(index) = map.next_key_seed(Key(self.names))? {
            F::read(&mut slots, index, &mut map, self.names)?;
        }
        F::finish(slots, self.defaults, self.names)
    }
}

/// Reads a key of the argument object as the index of the parameter it names among
/// `.0` (the parameters' names, in order); any other key is serde's unknown-field error.
#[derive(Clone, Copy)]
pub struct Key(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Key {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a parameter name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|name| *name == key)
            .ok_or_else(|| E::unknown_field(key, self.0))
    }
}

/// Reads the value of the current entry into `slot`; a second value for the same
/// parameter is serde's duplicate-field error.
fn next<'de, T: de::Deserialize<'de>, A: MapAccess<'de>>(
    slot: &mut Option<T>,
    map: &mut A,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// Deserializes a parameter that was not given: only an `Option` accepts that.
struct Missing<E>(&'static str, PhantomData<E>);

impl<'de, E: de::Error> Deserializer<'de> for Missing<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

/// One parameter in a tool's schema: what schemars' derive reads from the field of the
/// argument struct it would have written.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// Its name in the argument object.
    pub name: &'static str,
    /// The title of its doc comment (a first line starting with `#`), or empty.
    pub title: &'static str,
    /// Its description (the rest of its doc comment), or empty.
    pub description: &'static str,
    /// [`field::<T>`](field) of its type.
    pub schema: fn(&mut SchemaGenerator) -> (Schema, bool),
    /// Its `#[arg(default = ...)]` as JSON (`None` inside when the value does not serialize).
    pub default: Option<fn() -> Option<Value>>,
    /// The keywords added to its schema (`maxItems`, `minimum`, ...), in order.
    pub extend: &'static [Keyword],
}

/// A keyword added to a parameter's schema (`#[arg(maximum = ...)]`): its name, and its value
/// as schemars' `extend` writes it (`serde_json::to_value` of the expression).
pub type Keyword = (&'static str, fn() -> Value);

/// The subschema of a field of type `T`, and whether `T` may be left out (an `Option`).
pub fn field<T: JsonSchema>(generator: &mut SchemaGenerator) -> (Schema, bool) {
    (
        generator.subschema_for::<T>(),
        T::_schemars_private_is_option(),
    )
}

thread_local! {
    /// The fields whose schema [`FieldTable::json_schema`] writes: `JsonSchema` is implemented
    /// on a type, so the one type reads its table from here, for the duration of [`schema`].
    static TABLE: Cell<&'static [Field]> = const { Cell::new(&[]) };
}

/// The argument struct schemars' derive would see, with its fields in [`TABLE`].
struct FieldTable;

impl JsonSchema for FieldTable {
    fn schema_name() -> Cow<'static, str> {
        // The derive's name for the struct `#[tool]` used to write (a title the
        // normalisation removes).
        Cow::Borrowed("__HermesArgs")
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        struct_schema(TABLE.with(Cell::get), generator)
    }
}

/// The JSON Schema of a tool's parameters from its table: what `schema_for` gives for the
/// struct of these fields with schemars' derive and `deny_unknown_fields`, normalised.
pub fn schema(fields: &'static [Field]) -> Value {
    /// Puts the previous table back, even if a field's schema panics.
    struct Restore(&'static [Field]);
    impl Drop for Restore {
        fn drop(&mut self) {
            TABLE.with(|table| table.set(self.0));
        }
    }
    let _restore = Restore(TABLE.with(|table| table.replace(fields)));
    // Through schemars' own root generation, so that `$defs`, the meta-schema and the
    // generator's transforms are exactly what they are for a derived struct.
    crate::tool::schema::generate::<FieldTable>()
}

/// What schemars' derive writes in `json_schema` for a struct of `fields` with
/// `#[serde(deny_unknown_fields)]`, in the same order.
fn struct_schema(fields: &[Field], generator: &mut SchemaGenerator) -> Schema {
    let mut object = Map::new();
    object.insert("type".into(), "object".into());
    object.insert("additionalProperties".into(), false.into());
    let mut schema = Schema::from(object);
    for field in fields {
        let (mut subschema, is_option) = (field.schema)(generator);
        let optional =
            generator.contract().is_deserialize() && (field.default.is_some() || is_option);
        for (key, value) in [("title", field.title), ("description", field.description)] {
            if !value.is_empty() {
                subschema.insert(key.into(), value.into());
            }
        }
        if let Some(value) = field.default.and_then(|default| default()) {
            subschema.insert("default".into(), value);
        }
        for (key, value) in field.extend {
            subschema.insert((*key).into(), value());
        }
        insert_property(&mut schema, field.name, optional, subschema);
    }
    schema
}

/// schemars' `insert_object_property`: the property, and its name in `required` unless optional.
fn insert_property(schema: &mut Schema, key: &str, optional: bool, subschema: Schema) {
    let object = schema.ensure_object();
    if let Some(properties) = object
        .entry("properties")
        .or_insert(Value::Object(Map::new()))
        .as_object_mut()
    {
        properties.insert(key.to_owned(), subschema.into());
    }
    if !optional
        && let Some(required) = object
            .entry("required")
            .or_insert(Value::Array(Vec::new()))
            .as_array_mut()
    {
        required.push(key.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer() -> u32 {
        42
    }

    fn dot() -> String {
        ".".into()
    }

    /// A type that does not serialize: its default has no JSON, so the schema shows none.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Opaque(#[allow(dead_code)] u8);

    fn opaque() -> Opaque {
        Opaque(1)
    }

    /// A struct type: referenced through `$defs`.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Point {
        #[allow(dead_code)]
        x: i32,
    }

    // What schemars' derive writes for the fields of `FIELDS` (a plain comment: the struct
    // `#[tool]` stood for has no doc comment, which would be the schema's description).
    #[derive(schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Derived {
        /// # A title
        ///
        /// Its description.
        #[serde(rename = "p", default = "dot")]
        #[schemars(extend("pattern" = "^a", "minLength" = 1))]
        path: String,
        #[serde(default = "answer")]
        #[schemars(extend("minimum" = 1, "maximum" = 600))]
        limit: u32,
        /// Maybe.
        #[schemars(extend("maxItems" = 4))]
        choices: Option<Vec<String>>,
        #[serde(default = "opaque")]
        opaque: Opaque,
        /// Where.
        point: Point,
        /// Anything.
        any: Value,
    }

    const FIELDS: &[Field] = &[
        Field {
            name: "p",
            title: "A title",
            description: "Its description.",
            schema: field::<String>,
            default: Some(|| Some(Value::from(dot()))),
            extend: &[
                ("pattern", || Value::from("^a")),
                ("minLength", || Value::from(1)),
            ],
        },
        Field {
            name: "limit",
            title: "",
            description: "",
            schema: field::<u32>,
            default: Some(|| Some(Value::from(answer()))),
            extend: &[
                ("minimum", || Value::from(1)),
                ("maximum", || Value::from(600)),
            ],
        },
        Field {
            name: "choices",
            title: "",
            description: "Maybe.",
            schema: field::<Option<Vec<String>>>,
            default: None,
            extend: &[("maxItems", || Value::from(4))],
        },
        Field {
            name: "opaque",
            title: "",
            description: "",
            schema: field::<Opaque>,
            default: Some(|| None),
            extend: &[],
        },
        Field {
            name: "point",
            title: "",
            description: "Where.",
            schema: field::<Point>,
            default: None,
            extend: &[],
        },
        Field {
            name: "any",
            title: "",
            description: "Anything.",
            schema: field::<Value>,
            default: None,
            extend: &[],
        },
    ];

    #[test]
    fn the_table_schema_is_schemars_derive() {
        let derived = crate::tool::schema::generate::<Derived>();
        let table = schema(FIELDS);
        // Byte for byte, so the order of keys counts too.
        assert_eq!(table.to_string(), derived.to_string());
        assert!(table["$defs"]["Point"].is_object(), "{table}");
        assert_eq!(table["required"], serde_json::json!(["point", "any"]));
    }

    #[test]
    fn no_fields_is_an_empty_object_that_refuses_every_key() {
        #[derive(schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        struct Empty {}
        assert_eq!(
            schema(&[]).to_string(),
            crate::tool::schema::generate::<Empty>().to_string()
        );
        assert!(parse::<()>("{}", &[], ()).is_ok());
        let err = parse::<()>(r#"{"a": 1}"#, &[], ()).unwrap_err().to_string();
        assert!(
            err.starts_with("unknown field `a`, there are no fields"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_parameter_takes_its_default() {
        type Two = (String, (u32, ()));
        let defaults = (
            Some(dot as fn() -> String),
            (Some(answer as fn() -> u32), ()),
        );
        let (path, (limit, ())) = parse::<Two>("", &["p", "limit"], defaults).unwrap();
        assert_eq!((path.as_str(), limit), (".", 42));
        let (path, (limit, ())) =
            parse::<Two>(r#"{"limit": 3}"#, &["p", "limit"], defaults).unwrap();
        assert_eq!((path.as_str(), limit), (".", 3));
        let err = parse::<Two>(r#"{"limit": 3}"#, &["p", "limit"], (None, (None, ())))
            .unwrap_err()
            .to_string();
        assert_eq!(err, "missing field `p` at line 1 column 12");
    }
}
