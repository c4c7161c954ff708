//! `mcp`: the parameter schema as it is, with an object root.

use serde_json::{Value, json};

use super::common::all_shapes;
use crate::definitions::formats::{Format, parameters_for};

#[test]
fn mcp_keeps_the_schema_and_makes_the_root_an_object() {
    for (name, schema) in all_shapes() {
        assert_eq!(parameters_for(Format::Mcp, &schema), schema, "{name}");
    }
    let draft7 = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {"p": {"$ref": "#/definitions/P"}},
        "definitions": {"P": {"type": "string"}},
    });
    let mut expected = draft7.clone();
    expected["type"] = json!("object");
    assert_eq!(parameters_for(Format::Mcp, &draft7), expected);
    assert_eq!(
        parameters_for(Format::Mcp, &json!({"type": "string"}))["type"],
        "object"
    );
    assert_eq!(
        parameters_for(Format::Mcp, &Value::Null),
        json!({"type": "object", "properties": {}})
    );
}
