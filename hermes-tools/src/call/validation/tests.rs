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

/// Every Unicode class is checked in every configuration: regex's parser is built with all
/// its tables (the macro crate's build of it), with or without `regex-full`.
#[test]
fn patterns_with_any_unicode_class_are_checked() {
    let greek = json!({"pattern": r"^\p{Greek}+$"});
    assert_eq!(validate(&json!("αβγ"), &greek), Ok(()));
    assert_eq!(
        rejected(&json!("abc"), &greek),
        error("", r"a string matching ^\p{Greek}+$", "the string \"abc\"")
    );
    let ticket = json!({"pattern": r"^\p{Lu}{2}-\d+$"});
    assert_eq!(validate(&json!("ΔZ-7"), &ticket), Ok(()));
    assert!(
        rejected(&json!("dz-7"), &ticket)
            .to_string()
            .contains("dz-7")
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

#[test]
fn a_list_longer_than_the_work_budget_is_checked_to_its_end() {
    // 1.2 million items take more steps than the million a small call may: the budget grows
    // with what was sent, so the list is checked, and its last item found wrong.
    let schema = json!({"type": "object",
                        "properties": {"items": {"type": "array", "items": {"type": "integer"}}}});
    let mut items = vec![json!(7); 1_200_000];
    let args = json!({ "items": items.clone() });
    assert!(validate(&args, &schema).is_ok());
    items[1_199_999] = json!("x");
    let failure = rejected(&json!({ "items": items }), &schema);
    assert_eq!(failure.path, "/items/1199999");
    assert_eq!(failure.expected, "integer");
}
