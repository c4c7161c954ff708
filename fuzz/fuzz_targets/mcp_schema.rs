//! The MCP client's repair of a server's input schema, from arbitrary JSON. Properties: it
//! never panics; what it publishes is an object schema that passes its own check; repairing a
//! repaired schema changes nothing.

#![no_main]

use hermes_tools::__private::{check_mcp_schema, normalise_mcp_schema};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Object(schema)) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let Ok(repaired) = normalise_mcp_schema(Some(&schema)) else {
        return;
    };
    assert_eq!(repaired["type"], "object", "not an object root: {repaired}");
    assert!(repaired["properties"].is_object(), "no properties: {repaired}");
    check_mcp_schema(&repaired).expect("a published schema passes the check");
    let again = normalise_mcp_schema(repaired.as_object()).expect("a repaired schema repairs");
    assert_eq!(again, repaired, "repair is not idempotent");
});
