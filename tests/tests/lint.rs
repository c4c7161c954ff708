//! `lint` over a crate that breaks every rule: it fails, and names tool, rule and file:line.

use std::process::Command;

#[test]
fn lint_fails_on_each_broken_rule_with_tool_rule_and_location() {
    let output = Command::new(env!("CARGO_BIN_EXE_bad-tools"))
        .arg("lint")
        .output()
        .expect("the bad-tools binary runs");
    assert_eq!(output.status.code(), Some(1), "lint must fail");
    let text = String::from_utf8(output.stdout).unwrap();
    let expected = [
        ("short_summary", "summary", "tests/src/bin/bad-tools.rs:10:"),
        (
            "undocumented_parameter",
            "parameter-description",
            "tests/src/bin/bad-tools.rs:19:",
        ),
        (
            "cross_reference",
            "cross-toolset-reference",
            "tests/src/bin/bad-tools.rs:25:",
        ),
        (
            "marketing_only",
            "placeholder",
            "tests/src/bin/bad-tools.rs:34:",
        ),
        (
            "placeholder",
            "placeholder",
            "tests/src/bin/bad-tools.rs:38:",
        ),
    ];
    for (tool, rule, location) in expected {
        let line = text
            .lines()
            .find(|line| line.contains(&format!("tool `{tool}` [{rule}]")))
            .unwrap_or_else(|| panic!("no [{rule}] finding for {tool} in:\n{text}"));
        assert!(line.starts_with(location), "{line}");
    }
    assert!(
        !text.contains("tool `read_text`"),
        "the clean tool has no finding:\n{text}"
    );
    assert!(text.lines().last().unwrap().starts_with("lint: "), "{text}");
}

fn bad_tools(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_bad-tools"))
        .args(args)
        .output()
        .expect("the bad-tools binary runs");
    let text = String::from_utf8(output.stdout).unwrap();
    (output.status.code(), text)
}

fn line_of<'t>(text: &'t str, tool: &str, rule: &str) -> Option<&'t str> {
    let marker = format!("tool `{tool}` [{rule}]");
    text.lines().find(|line| line.contains(&marker))
}

#[test]
fn an_acknowledgement_silences_its_rule_on_its_tool_only_and_lint_all_shows_it() {
    let (code, text) = bad_tools(&["lint"]);
    assert_eq!(code, Some(1), "unacknowledged findings still fail:\n{text}");
    assert_eq!(
        line_of(&text, "acknowledged_strict", "strict-mode"),
        None,
        "{text}"
    );
    assert_eq!(
        line_of(&text, "delegate_task", "strict-mode"),
        None,
        "{text}"
    );
    // The same tool's finding of another rule is not silenced.
    let other = line_of(&text, "acknowledged_strict", "parameter-description");
    assert!(
        other.is_some_and(|line| line.contains("`target`")),
        "{text}"
    );
    // An acknowledgement of a rule that does not fire is itself a finding.
    let stale = line_of(&text, "stale_acknowledgement", "stale-acknowledgement")
        .unwrap_or_else(|| panic!("no stale acknowledgement in:\n{text}"));
    assert!(stale.starts_with("tests/src/bin/bad-tools.rs:"), "{stale}");
    assert!(
        stale.contains("acknowledges `summary`, which no longer fires"),
        "{stale}"
    );
    assert!(
        text.contains("(2 acknowledged: `lint --all` lists them)"),
        "{text}"
    );

    let (code, all) = bad_tools(&["lint", "--all"]);
    assert_eq!(code, Some(1));
    let shown = line_of(&all, "acknowledged_strict", "strict-mode")
        .unwrap_or_else(|| panic!("--all lists the acknowledged finding:\n{all}"));
    assert!(
        shown.ends_with("(acknowledged: pandoc's options are free-form)"),
        "{shown}"
    );
    assert!(
        line_of(&all, "delegate_task", "strict-mode").is_some(),
        "{all}"
    );
}

#[test]
fn lint_over_a_selection_lints_only_its_tools() {
    let (code, text) = bad_tools(&["lint", "--toolsets", "other"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("no findings"), "{text}");
    // Every toolset but the two with findings: the example tools, `other` and `clarify`.
    let (code, text) = bad_tools(&["lint", "--disable", "bad,long"]);
    assert_eq!(
        (code, text.contains("no findings")),
        (Some(0), true),
        "{text}"
    );
    let (code, _) = bad_tools(&["lint", "--toolsets", "no_such_toolset"]);
    assert_eq!(code, Some(2), "an unknown toolset is a usage error");
}

#[test]
fn two_linked_crates_declaring_one_name_have_one_winner_shown_by_list() {
    let output = Command::new(env!("CARGO_BIN_EXE_bad-tools"))
        .arg("list")
        .output()
        .expect("the bad-tools binary runs");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let warning = text
        .lines()
        .find(|line| line.starts_with("warning: tool \"clarify\" is declared twice"))
        .unwrap_or_else(|| panic!("no duplicate warning in:\n{text}"));
    // The smaller crate name wins, every time: bad_tools before example_tools.
    assert!(warning.contains("kept bad_tools "), "{warning}");
    assert!(
        warning.contains("dropped example_tools::clarify "),
        "{warning}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("two linked crates declare the same tool"),
        "{stderr}"
    );
}

#[test]
fn definitions_exits_1_past_a_provider_limit_and_names_it() {
    let run = |format: &str| {
        Command::new(env!("CARGO_BIN_EXE_bad-tools"))
            .args(["definitions", "--toolsets", "long", "--format", format])
            .output()
            .expect("the bad-tools binary runs")
    };
    // Past OpenAI's 1,024 characters of a description; Anthropic documents no such limit.
    let openai = run("openai");
    let errors = String::from_utf8(openai.stderr).unwrap();
    assert_eq!(openai.status.code(), Some(1), "{errors}");
    assert!(
        errors.contains("tool `long_description`: the description has")
            && errors.contains("platform.openai.com"),
        "{errors}"
    );
    let anthropic = run("anthropic");
    assert_eq!(anthropic.status.code(), Some(0));
    let (code, text) = bad_tools(&["lint", "--toolsets", "long"]);
    assert_eq!(code, Some(1));
    assert!(
        line_of(&text, "long_description", "provider-limit").is_some(),
        "{text}"
    );
}
