//! The rules of `Catalog` (see the module docs), one test per rule, named as a sentence.

use super::*;

const TOOLS: &[(&str, &str)] = &[
    ("web_search", "web"),
    ("web_extract", "web"),
    ("read_file", "files"),
    ("write_file", "files"),
    ("terminal", "terminal"),
    ("todo", "todo"),
    ("time_now", "mcp-time"),
];

struct Fixture {
    composites: BTreeMap<String, Composite>,
    aliases: BTreeMap<String, String>,
}

impl Fixture {
    fn new(composites: impl IntoIterator<Item = Composite>) -> Self {
        Self {
            composites: composites
                .into_iter()
                .map(|c| (c.name.clone(), c))
                .collect(),
            aliases: BTreeMap::from([("time".to_owned(), "mcp-time".to_owned())]),
        }
    }

    fn standard() -> Self {
        Self::new([
            Composite::new("coding", "Files and a shell.").with_includes(["files", "terminal"]),
            Composite::new("research", "Web and notes.")
                .with_tools(["todo"])
                .with_includes(["web"]),
            Composite::new("everything", "Both bundles.").with_includes(["coding", "research"]),
        ])
    }

    fn catalog(&self) -> Catalog<'_> {
        Catalog::new(TOOLS, &self.composites, &self.aliases)
    }
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|&name| name.to_owned()).collect()
}

fn selection(enabled: &[&str], disabled: &[&str]) -> Selection {
    let owned = |names: &[&str]| names.iter().map(|&name| name.to_owned()).collect();
    Selection {
        enabled: owned(enabled),
        disabled: owned(disabled),
    }
}

const EVERY_TOOL: &[&str] = &[
    "read_file",
    "terminal",
    "time_now",
    "todo",
    "web_extract",
    "web_search",
    "write_file",
];

#[test]
fn toolset_names_are_basic_and_composite_sorted_without_aliases() {
    let fixture = Fixture::standard();
    assert_eq!(
        fixture.catalog().toolset_names(),
        [
            "coding",
            "everything",
            "files",
            "mcp-time",
            "research",
            "terminal",
            "todo",
            "web"
        ]
    );
}

#[test]
fn resolves_basic_composite_nested_alias_and_all() {
    let fixture = Fixture::standard();
    let catalog = fixture.catalog();
    assert_eq!(
        catalog.resolve("web"),
        Ok(set(&["web_extract", "web_search"]))
    );
    assert_eq!(
        catalog.resolve("coding"),
        Ok(set(&["read_file", "terminal", "write_file"]))
    );
    assert_eq!(
        catalog.resolve("everything"),
        Ok(set(&[
            "read_file",
            "terminal",
            "todo",
            "web_extract",
            "web_search",
            "write_file"
        ]))
    );
    assert_eq!(catalog.resolve("time"), Ok(set(&["time_now"])));
    assert_eq!(catalog.resolve("all"), Ok(set(EVERY_TOOL)));
    assert_eq!(catalog.resolve("*"), Ok(set(EVERY_TOOL)));
}

#[test]
fn resolve_of_an_unknown_name_suggests() {
    let fixture = Fixture::standard();
    let err = fixture.catalog().resolve("codding").unwrap_err();
    assert_eq!(
        err,
        SelectionError::UnknownToolset {
            name: "codding".into(),
            list: "requested",
            suggestions: vec!["coding".into()],
        }
    );
}

#[test]
fn a_cycle_terminates_and_both_sides_resolve_to_the_union() {
    let fixture = Fixture::new([
        Composite::new("a", "A.")
            .with_tools(["todo"])
            .with_includes(["b"]),
        Composite::new("b", "B.")
            .with_tools(["terminal"])
            .with_includes(["a"]),
        Composite::new("self", "Itself.")
            .with_tools(["todo"])
            .with_includes(["self"]),
    ]);
    let catalog = fixture.catalog();
    assert_eq!(catalog.resolve("a"), Ok(set(&["terminal", "todo"])));
    assert_eq!(catalog.resolve("b"), Ok(set(&["terminal", "todo"])));
    assert_eq!(catalog.resolve("self"), Ok(set(&["todo"])));
}

#[test]
fn a_diamond_resolves_each_tool_once() {
    let fixture = Fixture::new([
        Composite::new("top", "Top.").with_includes(["left", "right"]),
        Composite::new("left", "Left.").with_includes(["files"]),
        Composite::new("right", "Right.").with_includes(["files", "web"]),
    ]);
    assert_eq!(
        fixture.catalog().resolve("top"),
        Ok(set(&[
            "read_file",
            "web_extract",
            "web_search",
            "write_file"
        ]))
    );
}

#[test]
fn a_composite_sharing_a_basic_name_adds_to_it() {
    let fixture = Fixture::new([Composite::new("web", "Web plus notes.").with_tools(["todo"])]);
    assert_eq!(
        fixture.catalog().resolve("web"),
        Ok(set(&["todo", "web_extract", "web_search"]))
    );
}

#[test]
fn includes_may_name_aliases_and_all() {
    let fixture = Fixture::new([
        Composite::new("clock", "The clock.").with_includes(["time"]),
        Composite::new("max", "Everything.").with_includes(["all"]),
    ]);
    let catalog = fixture.catalog();
    assert_eq!(catalog.resolve("clock"), Ok(set(&["time_now"])));
    assert_eq!(catalog.resolve("max"), Ok(set(EVERY_TOOL)));
}

#[test]
fn an_absent_member_resolves_to_nothing_and_validate_reports_it() {
    let fixture = Fixture::new([
        Composite::new("bad_tool", "Typo.").with_tools(["web_serch"]),
        Composite::new("bad_include", "Typo.").with_includes(["fils"]),
        Composite::new("outer", "Includes a broken one.").with_includes(["bad_tool"]),
    ]);
    let catalog = fixture.catalog();
    let member = |toolset: &str, member: &str| SelectionError::UnknownMember {
        toolset: toolset.into(),
        member: member.into(),
    };
    assert_eq!(catalog.resolve("bad_tool"), Ok(set(&[])));
    assert_eq!(catalog.resolve("bad_include"), Ok(set(&[])));
    assert_eq!(catalog.resolve("outer"), Ok(set(&[])));
    assert_eq!(
        catalog.select(&selection(&["web"], &["outer"])),
        Ok(set(&["web_extract", "web_search"]))
    );
    assert_eq!(
        catalog.validate(),
        [
            member("bad_include", "fils"),
            member("bad_tool", "web_serch")
        ]
    );
    assert_eq!(
        member("x", "y").to_string(),
        r#"composite toolset "x" lists "y", but no tool or toolset has that name; fix the composite's declaration"#
    );
}

#[test]
fn validate_is_empty_for_sound_declarations() {
    assert_eq!(Fixture::standard().catalog().validate(), []);
}

#[test]
fn an_alias_is_shadowed_by_a_toolset_and_dangling_aliases_are_unknown() {
    let mut fixture = Fixture::standard();
    fixture.aliases.insert("web".into(), "files".into());
    fixture.aliases.insert("gone".into(), "mcp-gone".into());
    let catalog = fixture.catalog();
    assert_eq!(
        catalog.resolve("web"),
        Ok(set(&["web_extract", "web_search"]))
    );
    assert!(matches!(
        catalog.resolve("gone"),
        Err(SelectionError::UnknownToolset { .. })
    ));
}

#[test]
fn empty_enabled_selects_every_tool() {
    let fixture = Fixture::standard();
    assert_eq!(
        fixture.catalog().select(&Selection::default()),
        Ok(set(EVERY_TOOL))
    );
}

#[test]
fn enabled_is_the_union_of_resolutions() {
    let fixture = Fixture::standard();
    assert_eq!(
        fixture
            .catalog()
            .select(&selection(&["coding", "time"], &[])),
        Ok(set(&["read_file", "terminal", "time_now", "write_file"]))
    );
}

#[test]
fn unknown_enabled_or_disabled_names_are_errors_with_suggestions() {
    let fixture = Fixture::standard();
    let catalog = fixture.catalog();
    let err = catalog
        .select(&selection(&["web", "termnal"], &[]))
        .unwrap_err();
    assert_eq!(
        err,
        SelectionError::UnknownToolset {
            name: "termnal".into(),
            list: "enabled",
            suggestions: vec!["terminal".into()],
        }
    );
    let err = catalog.select(&selection(&[], &["tim"])).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"unknown toolset "tim" in disabled toolsets; did you mean time, mcp-time?"#
    );
    let err = catalog.select(&selection(&["zzzz"], &[])).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"unknown toolset "zzzz" in enabled toolsets"#
    );
}

#[test]
fn suggestions_are_at_most_three() {
    let fixture = Fixture::new([
        Composite::new("web1", "1."),
        Composite::new("web2", "2."),
        Composite::new("web3", "3."),
    ]);
    let Err(SelectionError::UnknownToolset { suggestions, .. }) = fixture.catalog().resolve("wb")
    else {
        panic!("expected an unknown toolset");
    };
    assert_eq!(suggestions.len(), 3);
}

#[test]
fn a_name_in_both_lists_is_an_error_even_through_an_alias() {
    let fixture = Fixture::standard();
    let catalog = fixture.catalog();
    assert_eq!(
        catalog.select(&selection(&["web"], &["web"])),
        Err(SelectionError::EnabledAndDisabled { name: "web".into() })
    );
    assert_eq!(
        catalog.select(&selection(&["time"], &["mcp-time"])),
        Err(SelectionError::EnabledAndDisabled {
            name: "mcp-time".into()
        })
    );
    assert_eq!(
        catalog.select(&selection(&["*"], &["all"])),
        Err(SelectionError::EnabledAndDisabled { name: "all".into() })
    );
}

#[test]
fn disabling_a_basic_toolset_strips_it_from_an_enabled_composite() {
    let fixture = Fixture::standard();
    assert_eq!(
        fixture
            .catalog()
            .select(&selection(&["coding"], &["terminal"])),
        Ok(set(&["read_file", "write_file"]))
    );
}

#[test]
fn disabling_a_composite_keeps_explicitly_enabled_basic_toolsets() {
    let fixture = Fixture::standard();
    let catalog = fixture.catalog();
    // `files` is named explicitly, so disabling `coding` (which includes it) keeps it.
    assert_eq!(
        catalog.select(&selection(&["files", "web"], &["coding"])),
        Ok(set(&[
            "read_file",
            "web_extract",
            "web_search",
            "write_file"
        ]))
    );
    // Through an alias too.
    let fixture = Fixture::new([Composite::new("clock", "C.").with_includes(["mcp-time"])]);
    assert_eq!(
        fixture.catalog().select(&selection(&["time"], &["clock"])),
        Ok(set(&["time_now"]))
    );
}

#[test]
fn disabling_a_composite_removes_tools_enabled_only_through_composites() {
    let fixture = Fixture::standard();
    assert_eq!(
        fixture
            .catalog()
            .select(&selection(&["everything"], &["research"])),
        Ok(set(&["read_file", "terminal", "write_file"]))
    );
}

#[test]
fn disabling_all_keeps_only_explicit_basic_toolsets() {
    let fixture = Fixture::standard();
    let catalog = fixture.catalog();
    assert_eq!(
        catalog.select(&selection(&["web", "coding"], &["all"])),
        Ok(set(&["web_extract", "web_search"]))
    );
    assert_eq!(catalog.select(&selection(&[], &["*"])), Ok(set(&[])));
}

#[test]
fn enabling_all_then_disabling_subtracts() {
    let fixture = Fixture::standard();
    assert_eq!(
        fixture
            .catalog()
            .select(&selection(&["all"], &["research", "time"])),
        Ok(set(&["read_file", "terminal", "write_file"]))
    );
}

#[test]
fn including_lists_every_toolset_containing_a_tool() {
    let fixture = Fixture::standard();
    let catalog = fixture.catalog();
    assert_eq!(
        catalog.including("todo"),
        ["everything", "research", "todo"]
    );
    assert_eq!(catalog.including("time_now"), ["mcp-time"]);
    assert!(catalog.including("nope").is_empty());
}

#[test]
fn including_counts_composites_with_an_absent_member() {
    let fixture = Fixture::new([
        Composite::new("broken", "B.").with_tools(["todo", "missing"]),
        Composite::new("fine", "F.").with_tools(["todo"]),
    ]);
    assert_eq!(
        fixture.catalog().including("todo"),
        ["broken", "fine", "todo"]
    );
}

#[test]
fn a_large_catalog_is_indexed_and_resolves_as_a_small_one() {
    // Past `INDEX_FROM` tools, lookups go through the index instead of scans.
    let names: Vec<(String, String)> = (0..INDEX_FROM * 2)
        .map(|i| (format!("tool_{i:03}"), format!("ts_{}", i / 10)))
        .collect();
    let tools: Vec<(&str, &str)> = names
        .iter()
        .map(|(t, s)| (t.as_str(), s.as_str()))
        .collect();
    let composites = BTreeMap::from([(
        "pair".to_owned(),
        Composite::new("pair", "Two toolsets and a tool.")
            .with_includes(["ts_1", "ts_2"])
            .with_tools(["tool_000", "ghost"]),
    )]);
    let aliases = BTreeMap::from([("one".to_owned(), "ts_1".to_owned())]);
    let catalog = Catalog::new(&tools, &composites, &aliases);
    assert!(catalog.index().is_some());
    let ts_1: BTreeSet<String> = (10..20).map(|i| format!("tool_{i:03}")).collect();
    assert_eq!(catalog.resolve("one"), Ok(ts_1.clone()));
    assert_eq!(catalog.resolve("pair").map(|tools| tools.len()), Ok(21));
    let selected = catalog.select(&selection(&["pair", "ts_1"], &["ts_2", "all"]));
    assert_eq!(selected, Ok(ts_1));
    assert_eq!(catalog.including("tool_000"), ["pair", "ts_0"]);
    assert_eq!(catalog.including("tool_015"), ["pair", "ts_1"]);
    let memberships = catalog.memberships();
    assert_eq!(memberships.len(), tools.len());
    for (tool, _) in &tools {
        assert_eq!(catalog.including(tool), memberships[tool], "{tool}");
    }
    assert_eq!(
        catalog.validate(),
        [SelectionError::UnknownMember {
            toolset: "pair".into(),
            member: "ghost".into()
        }]
    );
    let typo = catalog.select(&selection(&["ts_x1"], &[])).unwrap_err();
    assert!(matches!(typo, SelectionError::UnknownToolset { .. }));
}

#[test]
fn memberships_say_what_including_says_for_every_tool() {
    let fixture = Fixture::standard();
    let catalog = fixture.catalog();
    let memberships = catalog.memberships();
    for &(tool, _) in TOOLS {
        assert_eq!(catalog.including(tool), memberships[tool], "{tool}");
    }
    assert_eq!(memberships["todo"], ["everything", "research", "todo"]);
}
