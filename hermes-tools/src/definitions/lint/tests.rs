//! The lint rules, one test per rule and case.
use serde_json::json;

use super::*;

const GOOD: &str = "Search the web for pages matching a query.\n\nReturns titles and links.";

fn params() -> Value {
    json!({"type": "object", "properties": {"query": {"type": "string", "description": "What to look for."}}})
}

fn tool<'a>(
    name: &'a str,
    toolset: &'a str,
    description: &'a str,
    parameters: &'a Value,
) -> LintTool<'a> {
    LintTool {
        name,
        toolset,
        description,
        parameters,
        location: format!("src/{toolset}.rs:10"),
    }
}

/// (rule, message) of each finding for one tool.
fn lint_one(description: &str, parameters: &Value) -> Vec<(Rule, String)> {
    lint(&[tool("web_search", "web", description, parameters)])
        .into_iter()
        .map(|finding| (finding.rule, finding.message))
        .collect()
}

fn rules(description: &str) -> Vec<Rule> {
    lint_one(description, &params())
        .into_iter()
        .map(|(rule, _)| rule)
        .collect()
}

#[test]
fn rule_names() {
    let names: Vec<_> = [
        Rule::Summary,
        Rule::ParameterDescription,
        Rule::CrossToolsetReference,
        Rule::Placeholder,
    ]
    .map(Rule::as_str)
    .into();
    assert_eq!(
        names,
        [
            "summary",
            "parameter-description",
            "cross-toolset-reference",
            "placeholder"
        ]
    );
}

#[test]
fn a_good_tool_has_no_findings() {
    assert_eq!(lint_one(GOOD, &params()), []);
}

#[test]
fn summary_is_the_first_sentence_or_paragraph() {
    assert_eq!(summary("Read a file. Then more."), "Read a file.");
    assert_eq!(summary("Is it there? Yes."), "Is it there?");
    assert_eq!(summary("Run it!\nNow."), "Run it!");
    assert_eq!(
        summary("  Read a file\nline two\n\nMore."),
        "Read a file\nline two"
    );
    assert_eq!(
        summary("Read v1.5 files, e.g. logs. More."),
        "Read v1.5 files, e.g. logs."
    );
    assert_eq!(summary("Wait... then go."), "Wait...");
}

#[test]
fn a_long_summary_is_a_finding() {
    let long = format!(
        "Search {} for pages. Short second sentence.",
        "the web ".repeat(20)
    );
    assert_eq!(
        lint_one(&long, &params()),
        [(
            Rule::Summary,
            "the summary (the first sentence) is 178 characters; cut it to 120 or fewer \
             and move the details to later sentences"
                .to_owned()
        )]
    );
    let exactly = format!("{}.", "a".repeat(119));
    assert_eq!(
        check_summary(&exactly).map(|m| m.contains("fragment")),
        Some(true)
    );
    let long_tail = format!("Search the web for pages. {}", "x ".repeat(200));
    assert_eq!(check_summary(&long_tail), None);
}

#[test]
fn a_fragment_summary_is_a_finding() {
    assert_eq!(
        lint_one("Web search.\n\nFinds pages on the web by query.", &params()),
        [(
            Rule::Summary,
            "the summary \"Web search.\" is a fragment; start with a sentence of at least 3 \
             words saying what the tool does"
                .to_owned()
        )]
    );
    assert_eq!(rules("Search the web."), []);
}

#[test]
fn empty_and_placeholder_descriptions() {
    assert_eq!(
        lint_one("  \n ", &params()),
        [(
            Rule::Placeholder,
            "the description is empty; write a one-sentence summary of what the tool does, \
             then how to use it"
                .to_owned()
        )]
    );
    let quoted = lint(&[tool(
        "search",
        "files",
        "Search files for a pattern such as 'TODO' or `FIXME`, listing matching lines.",
        &json!({"type": "object", "properties": {}}),
    )]);
    assert_eq!(quoted, [], "quoted markers are examples, not placeholders");
    for whole in ["TODO", "tbd.", "Description", "...", "…", "XXX", "n/a"] {
        assert_eq!(rules(whole), [Rule::Placeholder], "{whole:?}");
    }
    assert_eq!(
        lint_one("FIXME", &params()),
        [(
            Rule::Placeholder,
            "the description is the placeholder \"FIXME\"; write what the tool does".to_owned()
        )]
    );
}

#[test]
fn a_marker_inside_real_text_is_a_finding_but_the_summary_is_still_checked() {
    assert_eq!(
        lint_one(
            "Search the web for pages. TODO: document limits.",
            &params()
        ),
        [(
            Rule::Placeholder,
            "the description contains the placeholder \"TODO\"; finish the text and remove it"
                .to_owned()
        )]
    );
    assert_eq!(rules("Lorem ipsum dolor sit amet."), [Rule::Placeholder]);
    assert_eq!(
        rules("Web. Lorem Ipsum."),
        [Rule::Summary, Rule::Placeholder]
    );
    // Lowercase "todo" is a word, not a marker.
    assert_eq!(rules("Add an item to the todo list."), []);
}

#[test]
fn marketing_only_descriptions() {
    assert_eq!(
        lint_one("The most powerful and amazing tool ever!", &params()),
        [(
            Rule::Placeholder,
            "the description is marketing (powerful, amazing) with nothing concrete; say \
             what the tool does, what it takes and what it returns"
                .to_owned()
        )]
    );
    assert_eq!(
        rules("Seamless, blazing fast, world-class search."),
        [Rule::Placeholder]
    );
    assert_eq!(
        rules("The best revolutionary file reader."),
        [Rule::Placeholder]
    );
    assert_eq!(
        rules("A powerful tool to search the web and rank the pages."),
        []
    );
}

#[test]
fn every_parameter_needs_a_description() {
    let parameters = json!({"type": "object", "properties": {
        "query": {"type": "string", "description": "What to look for."},
        "limit": {"type": "integer"},
        "lang": {"type": "string", "description": "  "},
        "site": {"type": "string", "description": "TBD"},
    }});
    assert_eq!(
        lint_one(GOOD, &parameters),
        [
            (
                Rule::ParameterDescription,
                "parameter `limit` has no description; say what the value means (for \
                 `#[tool]`, a `* `limit` - …` line under `# Arguments`, or a doc comment on \
                 the field)"
                    .to_owned()
            ),
            (
                Rule::ParameterDescription,
                "parameter `lang` has no description; say what the value means (for \
                 `#[tool]`, a `* `lang` - …` line under `# Arguments`, or a doc comment on \
                 the field)"
                    .to_owned()
            ),
            (
                Rule::ParameterDescription,
                "parameter `site` has the placeholder description \"TBD\"; say what the \
                 value means"
                    .to_owned()
            ),
        ]
    );
}

#[test]
fn a_ref_parameter_may_be_described_on_its_definition() {
    let parameters = json!({
        "type": "object",
        "properties": {
            "on_property": {"$ref": "#/$defs/Bare", "description": "Described here."},
            "on_definition": {"$ref": "#/$defs/Documented"},
            "optional": {"anyOf": [{"$ref": "#/$defs/Documented"}, {"type": "null"}]},
            "undocumented": {"$ref": "#/$defs/Bare"},
            "dangling": {"$ref": "#/$defs/Missing"},
        },
        "$defs": {
            "Bare": {"type": "object", "properties": {"x": {"type": "string"}}},
            "Documented": {"type": "object", "description": "A documented struct."},
        }
    });
    let findings: Vec<_> = check_parameters(&parameters)
        .into_iter()
        .map(|message| message.split(' ').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    // `Bare.x` is a nested field: out of scope.
    assert_eq!(
        findings,
        ["parameter `undocumented`", "parameter `dangling`"]
    );
}

#[test]
fn schemas_without_properties_are_fine() {
    assert_eq!(
        check_parameters(&json!({"type": "object"})),
        Vec::<String>::new()
    );
    assert_eq!(check_parameters(&json!(true)), Vec::<String>::new());
}

fn cross(description: &str) -> Vec<String> {
    let empty = json!({"type": "object", "properties": {"file_glob": {"description": "Glob."}}});
    let tools = [
        tool("search_files", "files", description, &empty),
        tool(
            "read_file",
            "files",
            "Read a text file from the workspace.",
            &empty,
        ),
        tool("web_search", "web", "Search the web for pages.", &empty),
        tool(
            "terminal",
            "terminal",
            "Run a shell command in the workspace.",
            &empty,
        ),
        tool(
            "todo",
            "todo",
            "Manage the task list of the session.",
            &empty,
        ),
        tool(
            "file_glob",
            "globs",
            "Expand a glob into matching paths.",
            &empty,
        ),
    ];
    lint(&tools)
        .into_iter()
        .filter(|finding| finding.rule == Rule::CrossToolsetReference)
        .map(|finding| finding.message)
        .collect()
}

fn named(descriptions: &[String]) -> Vec<&str> {
    descriptions
        .iter()
        .filter_map(|message| message.split('`').nth(1))
        .collect()
}

#[test]
fn cross_toolset_references_are_findings() {
    let found = cross("Search files; for the internet use web_search, or the `todo` list.");
    assert_eq!(
        found.first().map(String::as_str),
        Some(
            "the description names `todo` of toolset `todo`, which may not be present; \
             remove the reference, or move it into a `dynamic_schema` override that checks \
             the tool is there"
        )
    );
    assert_eq!(named(&found), ["todo", "web_search"]);
    assert_eq!(
        named(&cross("Search files. Prefer this to the Terminal tool.")),
        ["terminal"]
    );
    assert_eq!(
        named(&cross("Search files (see `terminal`).")),
        ["terminal"]
    );
}

#[test]
fn ordinary_words_same_toolset_and_own_parameters_are_not_references() {
    // Plain names as ordinary words; a same-toolset tool; a longer identifier; a parameter.
    let description = "Search files instead of grep in the terminal, then read_file each \
                       match; add a todo item. See web_search_v2 and `file_glob`.";
    assert_eq!(cross(description), Vec::<String>::new());
}

#[test]
fn references_are_found_word_by_word_as_the_patterns_say() {
    // Each name once, in name order, however often and in whatever case it is named; a
    // backticked span between two others; "tools" after several spaces; hyphen-joined words
    // and a name inside backticked code are other words.
    let description = "Search files. Use `WEB_SEARCH`, web_search or Web_Search, the `x` `todo` \
                       list, a TERMINAL   Tools call; not terminal-tools nor `todo list`.";
    assert_eq!(
        named(&cross(description)),
        ["terminal", "todo", "web_search"]
    );
    assert_eq!(
        cross("Search files; not terminal-tool, todo-list or `run terminal`."),
        Vec::<String>::new()
    );
}

#[test]
fn findings_are_sorted_by_file_then_numeric_line_then_tool_then_rule() {
    let parameters = json!({"type": "object", "properties": {"q": {}}});
    let mut late = tool("b", "x", "", &parameters);
    late.location = "src/a.rs:12".into();
    let mut early = tool("c", "x", "Ok", &parameters);
    early.location = "src/a.rs:9".into();
    let mut same_line = tool("a", "x", "TODO", &parameters);
    same_line.location = "src/a.rs:12".into();
    let order: Vec<_> = lint(&[late, early, same_line])
        .into_iter()
        .map(|finding| format!("{} {} {}", finding.location, finding.tool, finding.rule))
        .collect();
    assert_eq!(
        order,
        [
            "src/a.rs:9 c summary",
            "src/a.rs:9 c parameter-description",
            "src/a.rs:12 a parameter-description",
            "src/a.rs:12 a placeholder",
            "src/a.rs:12 b parameter-description",
            "src/a.rs:12 b placeholder",
        ]
    );
}

#[test]
fn finding_display() {
    let finding = Finding {
        tool: "x".into(),
        rule: Rule::Summary,
        message: "fix it".into(),
        location: "src/tools.rs:12".into(),
    };
    assert_eq!(
        finding.to_string(),
        "src/tools.rs:12: tool `x` [summary]: fix it"
    );
}
