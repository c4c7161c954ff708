//! Each kind of change made to a real tool, registered and locked, with its verdict.

use serde_json::{Value, json};

use super::*;
use crate::tool::Tool;

const DESCRIPTION: &str = "Finds the files whose text matches a query.";

fn tool(name: &str, description: &str, parameters: Value) -> Tool {
    Tool::builder(name, "files")
        .description(description)
        .parameters(parameters)
        .build()
}

fn lock_of(tools: Vec<Tool>) -> Lock {
    let registry = ToolRegistry::new();
    for tool in tools {
        registry.register(tool).unwrap();
    }
    registry.lock()
}

/// The search tool's parameters, with `edit` applied to the JSON.
fn search(edit: impl FnOnce(&mut Value)) -> Value {
    let mut parameters = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The text to find.", "maxLength": 200},
            "limit": {"type": "integer", "description": "At most this many.", "minimum": 1,
                      "maximum": 100, "default": 10},
            "mode": {"type": "string", "description": "How to match.", "enum": ["exact", "fuzzy"]},
            "paths": {"type": "array", "description": "Where.", "items": {"type": "string"}},
            "options": {"$ref": "#/$defs/Options", "description": "Fine tuning."}
        },
        "required": ["query"],
        "additionalProperties": false,
        "$defs": {
            "Options": {
                "type": "object",
                "properties": {"case": {"type": "boolean", "description": "Match case."}},
                "additionalProperties": false
            }
        }
    });
    edit(&mut parameters);
    parameters
}

/// The changes from the search tool as locked to the search tool with `edit` applied.
fn changes(edit: impl FnOnce(&mut Value)) -> Vec<Change> {
    let before = lock_of(vec![tool("search", DESCRIPTION, search(|_| {}))]);
    let after = lock_of(vec![tool("search", DESCRIPTION, search(edit))]);
    before.compare(&after, "tools.lock").changes
}

/// The one change `edit` makes at `path` in the `openai` format (parameters as given), with
/// its verdict and the formats it shows in. (Strict mode's rewrite may show more there: an
/// optional parameter is nullable in it.)
fn only(edit: impl FnOnce(&mut Value), path: &str) -> (ChangeKind, Verdict, Vec<Format>) {
    let changes = changes(edit);
    let at: Vec<&Change> = (changes.iter())
        .filter(|c| c.path == path && c.formats.contains(&Format::OpenAi))
        .collect();
    assert_eq!(at.len(), 1, "one change at {path:?}: {changes:#?}");
    (at[0].kind.clone(), at[0].verdict(), at[0].formats.clone())
}

fn props(parameters: &mut Value) -> &mut serde_json::Map<String, Value> {
    parameters["properties"].as_object_mut().unwrap()
}

#[test]
fn the_same_tools_make_no_change_and_the_lock_text_round_trips() {
    let lock = lock_of(vec![tool("search", DESCRIPTION, search(|_| {}))]);
    assert!(lock.compare(&lock.clone(), "x").changes.is_empty());
    let text = lock.to_text();
    let parsed = Lock::parse(&text).unwrap();
    assert_eq!(parsed, lock);
    assert_eq!(parsed.to_text(), text, "canonical: the same bytes again");
    // Sorted keys, one tool per block.
    let first = text.find("\"anthropic\"").unwrap();
    assert!(first < text.find("\"gemini\"").unwrap() && first < text.find("\"source\"").unwrap());
}

#[test]
fn a_new_optional_parameter_is_compatible_in_every_format_strict_mode_included() {
    let (kind, verdict, formats) = only(
        |p| {
            props(p).insert(
                "hidden".into(),
                json!({"type": "boolean", "description": "Dotfiles."}),
            );
        },
        "hidden",
    );
    assert_eq!(kind, ChangeKind::ParameterAdded { required: false });
    assert_eq!(verdict, Verdict::Compatible);
    assert_eq!(
        formats.len(),
        Format::ALL.len(),
        "openai-strict's nullable counts as optional"
    );
}

#[test]
fn a_new_required_parameter_is_breaking() {
    let (kind, verdict, _) = only(
        |p| {
            props(p).insert(
                "root".into(),
                json!({"type": "string", "description": "Root."}),
            );
            p["required"] = json!(["query", "root"]);
        },
        "root",
    );
    assert_eq!(kind, ChangeKind::ParameterAdded { required: true });
    assert_eq!(verdict, Verdict::Breaking);
}

#[test]
fn a_removed_parameter_is_breaking_and_one_with_the_same_schema_is_a_rename() {
    let (kind, verdict, _) = only(|p| drop(props(p).shift_remove("paths")), "paths");
    assert_eq!(
        (kind, verdict),
        (ChangeKind::ParameterRemoved, Verdict::Breaking)
    );
    let (kind, verdict, _) = only(
        |p| {
            let mode = props(p).shift_remove("mode").unwrap();
            props(p).insert("matching".into(), mode);
        },
        "mode",
    );
    assert_eq!(
        kind,
        ChangeKind::ParameterRenamed {
            to: "matching".into()
        }
    );
    assert_eq!(verdict, Verdict::Breaking);
}

#[test]
fn optional_made_required_is_breaking_and_the_reverse_compatible() {
    let (kind, verdict, formats) = only(|p| p["required"] = json!(["query", "limit"]), "limit");
    assert_eq!(
        (kind, verdict),
        (ChangeKind::BecameRequired, Verdict::Breaking)
    );
    assert!(
        !formats.contains(&Format::OpenAiStrict),
        "strict mode required it already"
    );
    let changes = changes(|p| p["required"] = json!([]));
    let made_optional = changes
        .iter()
        .find(|c| c.path == "query" && c.kind == ChangeKind::BecameOptional)
        .unwrap_or_else(|| panic!("{changes:#?}"));
    assert_eq!(made_optional.verdict(), Verdict::Compatible);
}

#[test]
fn a_type_narrowed_is_breaking_and_widened_compatible() {
    let (kind, verdict, _) = only(
        |p| p["properties"]["limit"]["type"] = json!("number"),
        "limit",
    );
    assert_eq!(verdict, Verdict::Compatible, "{kind}");
    assert!(matches!(kind, ChangeKind::TypeWidened { .. }));
    let (kind, verdict, _) = only(
        |p| p["properties"]["query"]["type"] = json!(["string", "null"]),
        "query",
    );
    assert_eq!(verdict, Verdict::Compatible, "{kind}");
    // Narrowed: number to integer, in a fresh pair of tools.
    let number = json!({"type": "object", "properties": {"x": {"type": "number"}}});
    let integer = json!({"type": "object", "properties": {"x": {"type": "integer"}}});
    let report = lock_of(vec![tool("t", DESCRIPTION, number)])
        .compare(&lock_of(vec![tool("t", DESCRIPTION, integer)]), "x");
    assert_eq!(
        report.changes[0].kind,
        ChangeKind::TypeNarrowed {
            from: vec!["number".into()],
            to: vec!["integer".into()]
        }
    );
    assert!(report.is_breaking());
}

#[test]
fn an_enum_narrowed_or_added_is_breaking_and_widened_compatible() {
    let (kind, verdict, _) = only(
        |p| p["properties"]["mode"]["enum"] = json!(["exact"]),
        "mode",
    );
    assert_eq!(
        kind,
        ChangeKind::EnumNarrowed {
            removed: vec![json!("fuzzy")]
        }
    );
    assert_eq!(verdict, Verdict::Breaking);
    let (kind, verdict, _) = only(
        |p| p["properties"]["mode"]["enum"] = json!(["exact", "fuzzy", "regex"]),
        "mode",
    );
    assert_eq!(
        kind,
        ChangeKind::EnumWidened {
            added: vec![json!("regex")]
        }
    );
    assert_eq!(verdict, Verdict::Compatible);
    let (kind, verdict, _) = only(|p| p["properties"]["query"]["enum"] = json!(["a"]), "query");
    assert_eq!(
        (kind, verdict),
        (
            ChangeKind::EnumNarrowed { removed: vec![] },
            Verdict::Breaking
        )
    );
}

#[test]
fn a_bound_tightened_is_breaking_and_widened_compatible() {
    let (kind, verdict, _) = only(|p| p["properties"]["limit"]["maximum"] = json!(50), "limit");
    assert_eq!(verdict, Verdict::Breaking);
    assert_eq!(
        kind,
        ChangeKind::BoundTightened {
            keyword: "maximum".into(),
            from: Some(json!(100)),
            to: Some(json!(50))
        }
    );
    let (kind, verdict, _) = only(|p| p["properties"]["limit"]["minimum"] = json!(0), "limit");
    assert_eq!(verdict, Verdict::Compatible);
    assert!(matches!(kind, ChangeKind::BoundWidened { keyword, .. } if keyword == "minimum"));
    // A bound added (pattern, maxItems) tightens; one removed (maxLength) widens.
    let (kind, verdict, _) = only(
        |p| p["properties"]["query"]["pattern"] = json!("^[a-z]+$"),
        "query",
    );
    assert_eq!(verdict, Verdict::Breaking);
    assert!(
        matches!(kind, ChangeKind::BoundTightened { keyword, from: None, .. } if keyword == "pattern")
    );
    let (_, verdict, _) = only(|p| p["properties"]["paths"]["maxItems"] = json!(3), "paths");
    assert_eq!(verdict, Verdict::Breaking);
    let (kind, verdict, _) = only(
        |p| {
            drop(
                p["properties"]["query"]
                    .as_object_mut()
                    .unwrap()
                    .shift_remove("maxLength"),
            )
        },
        "query",
    );
    assert_eq!(verdict, Verdict::Compatible);
    assert!(matches!(kind, ChangeKind::BoundWidened { to: None, .. }));
    let (kind, verdict, _) = only(
        |p| p["properties"]["paths"]["uniqueItems"] = json!(true),
        "paths",
    );
    assert_eq!(verdict, Verdict::Breaking, "{kind}");
}

#[test]
fn additional_properties_closed_is_breaking_and_opened_compatible() {
    let (kind, verdict, _) = only(
        |p| p["$defs"]["Options"]["additionalProperties"] = json!(true),
        "options",
    );
    assert_eq!(
        (kind, verdict),
        (ChangeKind::AdditionalPropertiesOpened, Verdict::Compatible)
    );
    let open = json!({"type": "object", "properties": {"x": {"type": "string"}}});
    let closed = json!({"type": "object", "properties": {"x": {"type": "string"}},
                        "additionalProperties": false});
    let report = lock_of(vec![tool("t", DESCRIPTION, open)])
        .compare(&lock_of(vec![tool("t", DESCRIPTION, closed)]), "x");
    let closing = report
        .changes
        .iter()
        .find(|c| c.kind == ChangeKind::AdditionalPropertiesClosed)
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(closing.verdict(), Verdict::Breaking);
    assert!(
        !closing.formats.contains(&Format::OpenAiStrict),
        "strict mode closed it already: {closing}"
    );
}

#[test]
fn a_change_behind_a_ref_is_found_at_its_parameter_path() {
    let (kind, verdict, _) = only(
        |p| p["$defs"]["Options"]["properties"]["case"]["type"] = json!("string"),
        "options.case",
    );
    assert_eq!(verdict, Verdict::Breaking);
    assert!(matches!(kind, ChangeKind::TypeNarrowed { .. }), "{kind}");
    let (kind, _, _) = only(
        |p| p["properties"]["paths"]["items"]["maxLength"] = json!(9),
        "paths[]",
    );
    assert!(matches!(kind, ChangeKind::BoundTightened { .. }));
}

#[test]
fn descriptions_and_defaults_are_compatible_edits() {
    let (kind, verdict, _) = only(
        |p| p["properties"]["query"]["description"] = json!("The words to find."),
        "query",
    );
    assert_eq!(
        (kind, verdict),
        (ChangeKind::DescriptionChanged, Verdict::Compatible)
    );
    let (kind, verdict, _) = only(|p| p["properties"]["limit"]["default"] = json!(20), "limit");
    assert_eq!(
        (kind, verdict),
        (ChangeKind::DefaultChanged, Verdict::Compatible)
    );
    let before = lock_of(vec![tool("search", DESCRIPTION, search(|_| {}))]);
    let after = lock_of(vec![tool(
        "search",
        "Finds files by their text.",
        search(|_| {}),
    )]);
    let report = before.compare(&after, "x");
    assert_eq!(report.changes.len(), 1, "{report}");
    assert_eq!(report.changes[0].kind, ChangeKind::DescriptionChanged);
    assert_eq!(report.changes[0].path, "");
    assert!(!report.is_breaking() && !report.is_unchanged());
}

#[test]
fn a_variant_removed_is_breaking_and_added_compatible() {
    let with = |variants: Value| json!({"type": "object", "properties": {"at": {"description": "When.", "anyOf": variants}}});
    let two = with(json!([{"type": "string"}, {"type": "integer"}]));
    let three = with(json!([{"type": "string"}, {"type": "integer"}, {"type": "boolean"}]));
    let widen = lock_of(vec![tool("t", DESCRIPTION, two.clone())])
        .compare(&lock_of(vec![tool("t", DESCRIPTION, three.clone())]), "x");
    let added = widen.changes.iter().find(|c| c.path == "at").unwrap();
    assert_eq!(
        added.kind,
        ChangeKind::VariantAdded {
            keyword: "anyOf".into()
        }
    );
    assert_eq!(added.verdict(), Verdict::Compatible);
    let narrow = lock_of(vec![tool("t", DESCRIPTION, three)])
        .compare(&lock_of(vec![tool("t", DESCRIPTION, two)]), "x");
    assert!(narrow.is_breaking(), "{narrow}");
}

#[test]
fn strictness_changed_is_breaking_in_the_strict_format_alone() {
    // A free-form object cannot be strict: the tool is published with "strict": false.
    let free = json!({"type": "object", "properties": {
        "settings": {"type": "object", "description": "Any settings."}}, "required": ["settings"]});
    let closed = json!({"type": "object", "properties": {
        "settings": {"type": "object", "description": "Any settings.",
                     "properties": {"a": {"type": "string"}}, "required": ["a"],
                     "additionalProperties": false}}, "required": ["settings"]});
    let report = lock_of(vec![tool("t", DESCRIPTION, free)])
        .compare(&lock_of(vec![tool("t", DESCRIPTION, closed)]), "x");
    let strictness = report
        .changes
        .iter()
        .find(|c| matches!(c.kind, ChangeKind::StrictnessChanged { .. }))
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(
        strictness.kind,
        ChangeKind::StrictnessChanged {
            from: Some(false),
            to: Some(true)
        }
    );
    assert_eq!(strictness.formats, [Format::OpenAiStrict]);
    assert_eq!(strictness.verdict(), Verdict::Breaking);
}

#[test]
fn tools_added_removed_renamed_and_moved() {
    let other = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    let before = lock_of(vec![
        tool("search", DESCRIPTION, search(|_| {})),
        tool("count", DESCRIPTION, other.clone()),
    ]);
    let after = lock_of(vec![
        tool("find", DESCRIPTION, search(|_| {})),
        tool(
            "tally",
            DESCRIPTION,
            json!({"type": "object", "properties": {}}),
        ),
    ]);
    let report = before.compare(&after, "x");
    let kind = |name: &str| &report.changes.iter().find(|c| c.tool == name).unwrap().kind;
    assert_eq!(
        kind("search"),
        &ChangeKind::ToolRenamed { to: "find".into() }
    );
    assert_eq!(kind("count"), &ChangeKind::ToolRemoved);
    assert_eq!(kind("tally"), &ChangeKind::ToolAdded);
    assert_eq!(report.changes.len(), 3, "{report}");
    assert_eq!(ChangeKind::ToolAdded.verdict(), Verdict::Compatible);
    assert!(report.with_verdict(Verdict::Breaking).count() == 2);

    // Only the declaration's line moved: reported, unchanged, and a strict check passes.
    let mut moved = before.clone();
    for tool in moved.tools.values_mut() {
        tool.source = "src/search.rs:99".into();
    }
    let report = before.compare(&moved, "tools.lock");
    assert!(
        report.changes.iter().all(|c| c.verdict() == Verdict::Moved),
        "{report}"
    );
    assert_eq!(report.changes.len(), 2);
    assert!(report.is_unchanged() && !report.is_breaking());
    assert!(report.clone().strict().is_ok());
    assert!(
        report.to_string().contains("declaration moved from"),
        "{report}"
    );
}

#[test]
fn the_report_names_the_place_the_verdict_and_the_formats() {
    let changes = changes(|p| p["properties"]["limit"]["maximum"] = json!(50));
    let line = changes[0].to_string();
    assert!(
        line.contains("tool `search` [breaking] parameter `limit`: `maximum` tightened: 100 -> 50"),
        "{line}"
    );
    // Gemini keeps `maximum`; every format shows it, so no format list is printed.
    assert!(!line.contains("(in "), "{line}");
}

#[test]
fn a_missing_or_malformed_lock_says_how_to_create_it_and_update_accepts_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.lock");
    let registry = ToolRegistry::new();
    registry
        .register(tool("search", DESCRIPTION, search(|_| {})))
        .unwrap();
    let missing = Lock::read(&path).unwrap_err();
    assert!(matches!(missing, LockError::Missing(_)));
    assert!(missing.to_string().contains("--update"), "{missing}");
    std::fs::write(&path, "{\"tools\": {}}").unwrap();
    let malformed = registry.update_lock(dir.path().join("x")).map(|_| ());
    assert!(malformed.is_ok());
    let err = Lock::read(&path).unwrap_err();
    assert!(matches!(err, LockError::Malformed { .. }), "{err}");
    assert!(err.to_string().contains("hermes-tools-lock"), "{err}");

    let created = registry.update_lock(&path).unwrap();
    assert!(created.updated);
    assert!(Lock::read(&path).unwrap() == registry.lock());
    let later = ToolRegistry::new();
    later
        .register(tool(
            "search",
            DESCRIPTION,
            search(|p| p["required"] = json!(["query", "mode"])),
        ))
        .unwrap();
    let Err(LockError::Breaking(report)) = later.check_lock(&path) else {
        panic!("a breaking change fails the check");
    };
    assert_eq!(report.changes[0].kind, ChangeKind::BecameRequired);
    later.update_lock(&path).unwrap();
    assert!(later.check_lock(&path).unwrap().is_unchanged());
    // A compatible change passes, and fails a strict check.
    let edited = ToolRegistry::new();
    edited
        .register(tool(
            "search",
            "Finds files by text.",
            search(|p| p["required"] = json!(["query", "mode"])),
        ))
        .unwrap();
    let report = edited.check_lock(&path).unwrap();
    assert!(matches!(report.strict(), Err(LockError::Changed(_))));
}
