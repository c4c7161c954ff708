use serde_json::{Value, json};

use super::{coerce, coerce_and_validate};
use crate::call::validation::tests::{tool_schema, valid_args};
use crate::call::validation::{ArgumentError, validate};

/// `value` repaired as the property `p` of an object whose schema for `p` is `property`.
fn repaired(property: Value, value: Value) -> Value {
    let schema = json!({"type": "object", "properties": {"p": property}});
    let mut args = json!({ "p": value });
    coerce(&mut args, &schema);
    args["p"].take()
}

/// `value` repaired as the tool argument `key` of [`tool_schema`].
fn repaired_in_tool(key: &str, value: Value) -> Value {
    let mut args = valid_args();
    args[key] = value;
    coerce(&mut args, &tool_schema());
    args[key].take()
}

// Hermes Agent 0.19 `coerce_tool_args` behaviours, model_tools.py: numbers 868-869 and
// 936-951, booleans 954-960, type lists 860-866, nullable "null" 857-858 and 881-902,
// JSON containers 872-875 and 905-933, wrapping 698-727, nested JSON strings 729-749 and
// 775-849, union kinds 755-772, unknown keys 685-688, non-dict arguments 674-675.

#[test]
fn hermes_integer_string_becomes_integer() {
    assert_eq!(repaired(json!({"type": "integer"}), json!("42")), json!(42));
    assert_eq!(repaired(json!({"type": "integer"}), json!("-7")), json!(-7));
}

#[test]
fn hermes_number_string_becomes_number() {
    assert_eq!(
        repaired(json!({"type": "number"}), json!("3.5")),
        json!(3.5)
    );
    assert_eq!(
        repaired(json!({"type": "number"}), json!("-0.25")),
        json!(-0.25)
    );
}

#[test]
fn hermes_integral_number_string_becomes_an_integer_for_number() {
    let value = repaired(json!({"type": "number"}), json!("42"));
    assert_eq!(value.as_u64(), Some(42));
}

#[test]
fn hermes_fractional_string_stays_for_integer() {
    assert_eq!(
        repaired(json!({"type": "integer"}), json!("3.5")),
        json!("3.5")
    );
}

#[test]
fn hermes_integral_fraction_string_becomes_integer() {
    assert_eq!(
        repaired(json!({"type": "integer"}), json!("3.0")).as_u64(),
        Some(3)
    );
}

#[test]
fn hermes_float_syntax_exponents_become_exact_integers() {
    let integer = json!({"type": "integer"});
    assert_eq!(repaired(integer.clone(), json!("1e3")).as_u64(), Some(1000));
    assert_eq!(
        repaired(integer.clone(), json!("1.5E3")).as_u64(),
        Some(1500)
    );
    assert_eq!(
        repaired(integer.clone(), json!("2500e-2")).as_u64(),
        Some(25)
    );
    assert_eq!(repaired(integer.clone(), json!("+7")).as_u64(), Some(7));
    assert_eq!(repaired(integer.clone(), json!("-0")).as_u64(), Some(0));
    assert_eq!(repaired(integer.clone(), json!("15e-1")), json!("15e-1"));
    assert_eq!(repaired(integer, json!("1e30")), json!("1e30"));
    assert_eq!(
        repaired(json!({"type": "number"}), json!("1e30")),
        json!(1e30)
    );
}

#[test]
fn hermes_non_finite_numbers_stay_strings() {
    for text in ["inf", "-inf", "nan", "NaN", "Infinity", "1e400"] {
        assert_eq!(
            repaired(json!({"type": "number"}), json!(text)),
            json!(text)
        );
    }
}

#[test]
fn hermes_number_strings_are_trimmed() {
    assert_eq!(
        repaired(json!({"type": "integer"}), json!(" 42 ")),
        json!(42)
    );
    assert_eq!(
        repaired(json!({"type": "number"}), json!("\t2.5\n")),
        json!(2.5)
    );
}

#[test]
fn hermes_boolean_spellings_trimmed_any_case() {
    let boolean = json!({"type": "boolean"});
    assert_eq!(repaired(boolean.clone(), json!(" True ")), json!(true));
    assert_eq!(repaired(boolean.clone(), json!("TRUE")), json!(true));
    assert_eq!(repaired(boolean.clone(), json!("false")), json!(false));
    assert_eq!(repaired(boolean.clone(), json!("False")), json!(false));
    for other in ["yes", "1", "on", "t"] {
        assert_eq!(repaired(boolean.clone(), json!(other)), json!(other));
    }
}

#[test]
fn hermes_type_list_is_tried_in_declared_order() {
    let list = json!({"type": ["integer", "boolean"]});
    assert_eq!(repaired(list.clone(), json!("true")), json!(true));
    assert_eq!(repaired(list, json!("7")), json!(7));
    let list = json!({"type": ["integer", "number"]});
    assert_eq!(repaired(list, json!("2.5")), json!(2.5));
}

#[test]
fn hermes_nullable_null_word_becomes_null() {
    assert_eq!(
        repaired(json!({"type": ["integer", "null"]}), json!("null")),
        Value::Null
    );
    assert_eq!(
        repaired(json!({"type": ["integer", "null"]}), json!(" NULL ")),
        Value::Null
    );
    assert_eq!(
        repaired(json!({"type": "null"}), json!("Null")),
        Value::Null
    );
    assert_eq!(
        repaired(json!({"type": "integer", "nullable": true}), json!("null")),
        Value::Null
    );
    assert_eq!(repaired_in_tool("point", json!("null")), Value::Null);
    assert_eq!(repaired_in_tool("opt_mode", json!("null")), Value::Null);
}

#[test]
fn hermes_null_word_stays_where_not_nullable() {
    assert_eq!(
        repaired(json!({"type": "integer"}), json!("null")),
        json!("null")
    );
    assert_eq!(repaired_in_tool("origin", json!("null")), json!("null"));
}

#[test]
fn hermes_none_word_is_not_null() {
    assert_eq!(
        repaired(json!({"type": ["integer", "null"]}), json!("None")),
        json!("None")
    );
}

#[test]
fn hermes_json_string_becomes_array() {
    let strings = json!({"type": "array", "items": {"type": "string"}});
    assert_eq!(repaired(strings, json!(r#"["a","b"]"#)), json!(["a", "b"]));
    assert_eq!(
        repaired_in_tool("choices", json!(r#" ["x"] "#)),
        json!(["x"])
    );
}

#[test]
fn hermes_json_string_becomes_object() {
    assert_eq!(
        repaired_in_tool("origin", json!(r#"{"x": 1, "y": 2}"#)),
        json!({"x": 1, "y": 2})
    );
}

#[test]
fn hermes_json_string_of_the_wrong_container_is_not_used() {
    let object = json!({"type": "object"});
    assert_eq!(repaired(object, json!("[1]")), json!("[1]"));
    // As in Hermes, a string that does not open an array becomes the array's one item.
    let strings = json!({"type": "array", "items": {"type": "string"}});
    assert_eq!(
        repaired(strings, json!(r#"{"a":1}"#)),
        json!([r#"{"a":1}"#])
    );
}

#[test]
fn hermes_bare_string_wrapped_in_list() {
    assert_eq!(
        repaired_in_tool("choices", json!("https://a.com")),
        json!(["https://a.com"])
    );
}

#[test]
fn hermes_bare_scalar_wrapped_in_list() {
    let integers = json!({"type": "array", "items": {"type": "integer"}});
    assert_eq!(repaired(integers.clone(), json!(5)), json!([5]));
    let booleans = json!({"type": "array", "items": {"type": "boolean"}});
    assert_eq!(repaired(booleans, json!(false)), json!([false]));
}

#[test]
fn hermes_null_is_not_wrapped() {
    let strings = json!({"type": "array", "items": {"type": "string"}});
    assert_eq!(repaired(strings, Value::Null), Value::Null);
}

#[test]
fn hermes_nullable_array_null_word_becomes_null_not_a_list() {
    let schema = json!({"type": ["array", "null"], "items": {"type": "string"}});
    assert_eq!(repaired(schema, json!("null")), Value::Null);
}

#[test]
fn hermes_json_string_items_of_a_native_array_are_parsed() {
    let todos = json!({"type": "array", "items": {
        "type": "object",
        "properties": {"id": {"type": "string"}, "content": {"type": "string"}}
    }});
    assert_eq!(
        repaired(todos, json!([r#"{"id": "1", "content": "x"}"#])),
        json!([{"id": "1", "content": "x"}])
    );
}

#[test]
fn hermes_json_string_field_of_a_native_object_is_parsed() {
    let task = json!({"type": "object", "properties": {
        "goal": {"type": "string"},
        "steps": {"type": "array", "items": {"type": "string"}}
    }});
    assert_eq!(
        repaired(task, json!({"goal": "g", "steps": r#"["a"]"#})),
        json!({"goal": "g", "steps": ["a"]})
    );
}

#[test]
fn hermes_json_looking_string_field_is_preserved() {
    assert_eq!(
        repaired(json!({"type": "string"}), json!("[1, 2]")),
        json!("[1, 2]")
    );
    let nested = json!({"type": "object", "properties": {"code": {"type": "string"}}});
    assert_eq!(
        repaired(nested, json!({"code": "{\"a\": 1}"})),
        json!({"code": "{\"a\": 1}"})
    );
}

#[test]
fn hermes_union_that_accepts_an_array_parses_a_json_string() {
    let schema =
        json!({"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]});
    assert_eq!(repaired(schema, json!(r#"["a"]"#)), json!(["a"]));
}

#[test]
fn hermes_unknown_keys_are_untouched() {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    let mut args = json!({"n": "1", "extra": "2"});
    coerce(&mut args, &schema);
    assert_eq!(args, json!({"n": 1, "extra": "2"}));
}

#[test]
fn hermes_values_of_an_allowed_type_are_untouched() {
    let mut args = valid_args();
    coerce(&mut args, &tool_schema());
    assert_eq!(args, valid_args());
    // Hermes never turns a number into a string, and neither does this.
    assert_eq!(repaired(json!({"type": "string"}), json!(42)), json!(42));
}

#[test]
fn hermes_non_object_arguments_are_left_alone() {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    for value in [json!(5), json!("text"), json!([1]), Value::Null] {
        let mut args = value.clone();
        coerce(&mut args, &schema);
        assert_eq!(args, value);
    }
}

// Hermes faults, fixed.

#[test]
fn big_integer_string_is_exact() {
    // Hermes: float("9007199254740993") == 9007199254740992.0.
    let value = repaired(json!({"type": "integer"}), json!("9007199254740993"));
    assert_eq!(value.as_u64(), Some(9_007_199_254_740_993));
    let value = repaired(json!({"type": "integer"}), json!("-9223372036854775808"));
    assert_eq!(value.as_i64(), Some(i64::MIN));
    let value = repaired(json!({"type": "number"}), json!("18446744073709551615"));
    assert_eq!(value.as_u64(), Some(u64::MAX));
    let beyond = json!("18446744073709551616");
    assert_eq!(repaired(json!({"type": "integer"}), beyond.clone()), beyond);
}

#[test]
fn fractional_string_for_integer_is_reported_by_validation() {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    assert_eq!(
        coerce_and_validate(json!({"n": "3.5"}), &schema),
        Err(ArgumentError {
            path: String::from("/n"),
            expected: String::from("integer"),
            received: String::from("the string \"3.5\""),
        })
    );
}

#[test]
fn python_only_number_spellings_stay_strings() {
    // Python's float() reads these; JSON tools should not.
    for text in ["1_000", "١٢", "0x10", "", " ", "1e", ".", "--1", "1 2"] {
        assert_eq!(
            repaired(json!({"type": "integer"}), json!(text)),
            json!(text),
            "{text:?}"
        );
        assert_eq!(
            repaired(json!({"type": "number"}), json!(text)),
            json!(text),
            "{text:?}"
        );
    }
}

#[test]
fn type_list_keeps_a_string_the_schema_accepts_in_either_order() {
    // Hermes turns "42" into 42 for both orders: it skips "string" because that coercion
    // is a no-op, and coerces values the schema already accepts.
    assert_eq!(
        repaired(json!({"type": ["string", "integer"]}), json!("42")),
        json!("42")
    );
    assert_eq!(
        repaired(json!({"type": ["integer", "string"]}), json!("42")),
        json!("42")
    );
    assert_eq!(
        repaired(json!({"type": ["integer", "string"]}), json!(42)),
        json!(42)
    );
}

#[test]
fn null_for_an_optional_property_means_left_out() {
    let schema = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "limit": {"type": "integer", "default": 500},
            "note": {"type": ["string", "null"]}
        },
        "required": ["path"]
    });
    let args = json!({"path": "a", "limit": null, "note": null});
    assert_eq!(
        coerce_and_validate(args, &schema),
        Ok(json!({"path": "a", "note": null})),
        "the default applies to limit; note accepts null and keeps it"
    );
    let missing = coerce_and_validate(json!({"path": null}), &schema).unwrap_err();
    assert_eq!(
        missing.path, "/path",
        "a required property is never dropped"
    );
}

#[test]
fn nullable_string_keeps_the_word_null() {
    // Hermes: Option<String> receiving "null" became None.
    assert_eq!(repaired_in_tool("note", json!("null")), json!("null"));
}

#[test]
fn any_of_with_an_integer_branch_is_repaired() {
    // Hermes: no "type" key, so "5" was left alone.
    let schema = json!({"anyOf": [{"type": "integer"}, {"type": "null"}]});
    assert_eq!(repaired(schema.clone(), json!("5")), json!(5));
    assert_eq!(repaired(schema, json!("null")), Value::Null);
}

#[test]
fn any_of_takes_the_first_branch_that_then_validates() {
    let schema = json!({"anyOf": [{"type": "integer", "minimum": 100}, {"type": "boolean"}]});
    assert_eq!(repaired(schema.clone(), json!("true")), json!(true));
    assert_eq!(repaired(schema.clone(), json!("150")), json!(150));
    // "5" repairs into the integer branch but breaks its minimum: left for validation.
    assert_eq!(repaired(schema, json!("5")), json!("5"));
}

#[test]
fn untagged_enum_keeps_a_valid_string() {
    assert_eq!(repaired_in_tool("id", json!("42")), json!("42"));
    assert_eq!(repaired_in_tool("id", json!(7.0)).as_u64(), Some(7));
}

#[test]
fn refs_are_resolved_in_defs_and_definitions() {
    assert_eq!(
        repaired_in_tool("origin", json!({"x": "-3", "y": "4"})),
        json!({"x": -3, "y": 4})
    );
    let schema = json!({
        "definitions": {"N": {"type": "integer"}},
        "type": "object",
        "properties": {"n": {"$ref": "#/definitions/N"}}
    });
    let mut args = json!({"n": "8"});
    coerce(&mut args, &schema);
    assert_eq!(args, json!({"n": 8}));
}

#[test]
fn option_struct_fields_are_repaired() {
    assert_eq!(
        repaired_in_tool("point", json!({"x": "1", "y": " 2 "})),
        json!({"x": 1, "y": 2})
    );
    assert_eq!(
        repaired_in_tool("point", json!(r#"{"x": "1", "y": 2}"#)),
        json!({"x": 1, "y": 2})
    );
}

#[test]
fn option_struct_keeps_partial_repairs() {
    assert_eq!(
        repaired_in_tool("point", json!({"x": "1", "y": "two"})),
        json!({"x": 1, "y": "two"})
    );
}

#[test]
fn nested_array_items_are_repaired() {
    let integers = json!({"type": "array", "items": {"type": "integer", "format": "uint32"}});
    assert_eq!(
        repaired(integers.clone(), json!(["1", 2, "x"])),
        json!([1, 2, "x"])
    );
    // Hermes parsed the JSON array string but not its items.
    assert_eq!(
        repaired(integers.clone(), json!(r#"["1","2"]"#)),
        json!([1, 2])
    );
    // Hermes wrapped "5" as ["5"].
    assert_eq!(repaired(integers, json!("5")), json!([5]));
}

#[test]
fn recursive_tree_is_repaired_at_every_level() {
    let tree = json!({"label": "a", "children": [
        {"label": "b", "children": r#"[{"label": "c", "children": []}]"#}
    ]});
    assert_eq!(
        repaired_in_tool("tree", tree),
        json!({"label": "a", "children": [
            {"label": "b", "children": [{"label": "c", "children": []}]}
        ]})
    );
}

#[test]
fn tagged_enums_are_repaired_in_their_variant() {
    assert_eq!(
        repaired_in_tool("shape", json!({"kind": "Square", "side": "3"})),
        json!({"kind": "Square", "side": 3})
    );
    assert_eq!(
        repaired_in_tool("shape", json!({"kind": "Circle", "r": "0.5"})),
        json!({"kind": "Circle", "r": 0.5})
    );
    assert_eq!(repaired_in_tool("ext", json!({"A": "9"})), json!({"A": 9}));
}

#[test]
fn additional_properties_values_are_repaired() {
    assert_eq!(
        repaired_in_tool("tags", json!({"a": "1", "b": 2})),
        json!({"a": 1, "b": 2})
    );
}

#[test]
fn pattern_properties_values_are_repaired() {
    let schema = json!({"type": "object", "patternProperties": {"^n_": {"type": "integer"}}});
    assert_eq!(
        repaired(schema, json!({"n_a": "1", "s": "2"})),
        json!({"n_a": 1, "s": "2"})
    );
}

#[test]
fn prefix_items_are_repaired_by_position() {
    assert_eq!(repaired_in_tool("pair", json!(["7", "x"])), json!([7, "x"]));
}

#[test]
fn integral_float_becomes_an_integer() {
    let value = repaired_in_tool("count", json!(3.0));
    assert_eq!(value.as_u64(), Some(3));
    assert_eq!(repaired_in_tool("count", json!(3.5)), json!(3.5));
    assert_eq!(repaired_in_tool("ratio", json!(3.0)), json!(3.0));
}

#[test]
fn broken_json_array_string_is_wrapped_where_the_item_accepts_a_string() {
    // As in Hermes: "[bad" did not parse as an array, so it is one string item.
    let strings = json!({"type": "array", "items": {"type": "string"}});
    assert_eq!(repaired(strings.clone(), json!("[bad")), json!(["[bad"]));
    assert_eq!(repaired(strings, json!(" [a, b")), json!([" [a, b"]));
    let optional = json!({"type": ["array", "null"], "items": {"type": "string"}});
    assert_eq!(repaired(optional, json!("[bad")), json!(["[bad"]));
}

#[test]
fn broken_json_array_string_is_not_wrapped_where_the_item_refuses_it() {
    // Hermes wrapped it as ["[1, 2"] with a warning, which no list of integers accepts.
    let integers = json!({"type": "array", "items": {"type": "integer"}});
    assert_eq!(repaired(integers, json!("[1, 2")), json!("[1, 2"));
    let objects = json!({"type": "array", "items": {"type": "object"}});
    assert_eq!(
        repaired(objects, json!("[{\"a\": 1}")),
        json!("[{\"a\": 1}")
    );
    let short = json!({"type": "array", "items": {"type": "string", "minLength": 9}});
    assert_eq!(repaired(short, json!("[bad")), json!("[bad"));
}

#[test]
fn broken_json_array_string_in_a_whole_call_is_wrapped_or_reported() {
    let schema = json!({"type": "object", "properties": {
        "names": {"type": "array", "items": {"type": "string"}},
        "ids": {"type": "array", "items": {"type": "integer"}}
    }});
    assert_eq!(
        coerce_and_validate(json!({"names": "[bad"}), &schema),
        Ok(json!({"names": ["[bad"]}))
    );
    let failure = coerce_and_validate(json!({"ids": "[1, 2"}), &schema).unwrap_err();
    assert_eq!(failure.path, "/ids");
}

#[test]
fn wrapping_only_when_the_item_fits() {
    // Hermes wrapped anything: [{"x": 1}] for a list of integers.
    let integers = json!({"type": "array", "items": {"type": "integer"}});
    assert_eq!(repaired(integers.clone(), json!({"x": 1})), json!({"x": 1}));
    assert_eq!(repaired(integers, json!("seven")), json!("seven"));
    let points = json!({"type": "array", "items": {
        "type": "object",
        "properties": {"x": {"type": "integer"}},
        "required": ["x"]
    }});
    assert_eq!(repaired(points, json!({"x": "1"})), json!([{"x": 1}]));
    let pair = json!({"type": "array", "items": {"type": "integer"}, "minItems": 2});
    assert_eq!(repaired(pair, json!(1)), json!(1));
}

#[test]
fn recursive_schemas_do_not_loop() {
    let cycle = json!({"$ref": "#"});
    let mut args = json!({"a": "1"});
    coerce(&mut args, &cycle);
    assert_eq!(args, json!({"a": "1"}));
    let mut defs = serde_json::Map::new();
    for level in 0..30 {
        let next = json!({"$ref": format!("#/$defs/D{}", level + 1)});
        defs.insert(format!("D{level}"), json!({"anyOf": [next.clone(), next]}));
    }
    defs.insert(
        String::from("D30"),
        json!({"type": "integer", "minimum": 10}),
    );
    let doubling = json!({"$defs": defs, "$ref": "#/$defs/D0"});
    let mut args = json!("5");
    coerce(&mut args, &doubling);
    assert_eq!(args, json!("5"));
}

#[test]
fn deep_values_do_not_overflow() {
    let mut value = json!("1");
    for _ in 0..200 {
        value = Value::Array(vec![value]);
    }
    let schema = json!({"anyOf": [{"type": "array", "items": {"$ref": "#"}}, {"type": "integer"}]});
    let before = value.clone();
    coerce(&mut value, &schema);
    assert_eq!(value, before);
}

// coerce_and_validate

#[test]
fn coerce_and_validate_repairs_a_whole_call() {
    let mut sent = valid_args();
    sent["count"] = json!("3");
    sent["flag"] = json!("TRUE");
    sent["choices"] = json!(r#"["a","b"]"#);
    sent["point"] = json!({"x": "-1", "y": "2"});
    sent["tags"] = json!({"a": "1"});
    sent["pair"] = json!(["1", "one"]);
    sent["limit"] = json!("-4");
    assert_eq!(coerce_and_validate(sent, &tool_schema()), Ok(valid_args()));
}

#[test]
fn coerce_and_validate_reports_what_stays_wrong() {
    let mut sent = valid_args();
    sent["count"] = json!("3");
    sent["choices"] = json!(["a", "b", "c", "d", "e"]);
    let failure = coerce_and_validate(sent, &tool_schema()).map_err(|e| e.to_string());
    assert_eq!(
        failure,
        Err(String::from(
            "argument \"/choices\": expected at most 4 items, received an array of 5 items: [\"a\",\"b\",\"c\",\"d\",\"e\"]"
        ))
    );
}

#[test]
fn coerce_and_validate_wants_an_object_of_arguments() {
    let schema = json!({"type": "object", "properties": {}});
    assert_eq!(
        coerce_and_validate(json!([1, 2]), &schema),
        Err(ArgumentError {
            path: String::new(),
            expected: String::from("an object of arguments"),
            received: String::from("an array of 2 items: [1,2]"),
        })
    );
    assert_eq!(
        coerce_and_validate(json!(r#"{"a": 1}"#), &schema),
        Ok(json!({"a": 1}))
    );
}

#[test]
fn coerce_and_validate_passes_an_unrepairable_value_to_validation() {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    let failure = coerce_and_validate(json!({"n": "many"}), &schema);
    assert_eq!(
        failure.map_err(|e| e.to_string()),
        Err(String::from(
            "argument \"/n\": expected integer, received the string \"many\""
        ))
    );
    assert_eq!(validate(&json!({"n": 1}), &schema), Ok(()));
}
