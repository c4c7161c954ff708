//! A tool's output schema: the JSON Schema of what it answers, published to MCP clients as
//! `outputSchema` (its object answers then reach them as `structuredContent` that matches).
//!
//! `#[tool]` finds it from the function's return type by autoref specialisation, at a call
//! site that is never generic: `T` or `Result<T, E>` where `T: JsonSchema` has one when its
//! schema is an object (MCP's output schemas are); any other return type has none.
//! Generated code writes `(&&&OutputProbe::<R>::new()).__hermes_output_schema()` with the
//! three traits in scope.

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde_json::Value;

/// The probe of return type `R`.
pub struct OutputProbe<R: ?Sized>(PhantomData<fn() -> *const R>);

impl<R: ?Sized> OutputProbe<R> {
    /// The probe of `R`.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<R: ?Sized> Default for OutputProbe<R> {
    fn default() -> Self {
        Self::new()
    }
}

/// Picked first: a `Result` whose `Ok` type has a schema.
pub trait OutputSchemaOfOk {
    /// The output schema.
    fn __hermes_output_schema(&self) -> Option<Value>;
}

impl<T: JsonSchema, E> OutputSchemaOfOk for &&OutputProbe<Result<T, E>> {
    fn __hermes_output_schema(&self) -> Option<Value> {
        object_schema::<T>()
    }
}

/// Picked next: a return type that has a schema itself.
pub trait OutputSchemaOf {
    /// The output schema.
    fn __hermes_output_schema(&self) -> Option<Value>;
}

impl<T: JsonSchema> OutputSchemaOf for &OutputProbe<T> {
    fn __hermes_output_schema(&self) -> Option<Value> {
        object_schema::<T>()
    }
}

/// Picked last: no schema.
pub trait NoOutputSchema {
    /// None.
    fn __hermes_output_schema(&self) -> Option<Value>;
}

impl<R: ?Sized> NoOutputSchema for OutputProbe<R> {
    fn __hermes_output_schema(&self) -> Option<Value> {
        None
    }
}

/// `T`'s schema when it describes an object (a struct, a map), else `None`: a string or a
/// list answer has no structured form in MCP.
pub(super) fn object_schema<T: JsonSchema>() -> Option<Value> {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    let object = schema.as_object_mut()?;
    if object.get("type").and_then(Value::as_str) != Some("object") {
        return None;
    }
    // The title is the Rust type's name, which says nothing to a client.
    object.remove("title");
    Some(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Report {
        lines: u32,
        path: String,
    }

    // The probe as generated code writes it: the borrows choose the impl.
    #[test]
    #[allow(clippy::needless_borrow)]
    fn object_types_have_a_schema_and_others_none() {
        let of_struct = (&&&OutputProbe::<Report>::new()).__hermes_output_schema();
        let of_result = (&&&OutputProbe::<Result<Report, String>>::new()).__hermes_output_schema();
        let schema = of_struct.expect("a struct has an object schema");
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["lines"]["type"], "integer");
        assert_eq!(schema["required"], serde_json::json!(["lines", "path"]));
        assert_eq!(schema.get("title"), None);
        assert_eq!(of_result, Some(schema));
        assert_eq!(
            (&&&OutputProbe::<String>::new()).__hermes_output_schema(),
            None
        );
        assert_eq!(
            (&&&OutputProbe::<Result<Vec<u8>, String>>::new()).__hermes_output_schema(),
            None
        );
        assert_eq!(
            (&&&OutputProbe::<Result<crate::call::ToolContent, String>>::new())
                .__hermes_output_schema(),
            None
        );
        assert_eq!(
            (&&&OutputProbe::<Value>::new()).__hermes_output_schema(),
            None
        );
    }
}
