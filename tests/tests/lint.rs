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
    assert!(text.trim_end().ends_with("findings"), "{text}");
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
