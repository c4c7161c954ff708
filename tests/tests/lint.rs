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
        ("short_summary", "summary", "tests/src/bin/bad-tools.rs:7:"),
        (
            "undocumented_parameter",
            "parameter-description",
            "tests/src/bin/bad-tools.rs:16:",
        ),
        (
            "cross_reference",
            "cross-toolset-reference",
            "tests/src/bin/bad-tools.rs:22:",
        ),
        (
            "marketing_only",
            "placeholder",
            "tests/src/bin/bad-tools.rs:31:",
        ),
        (
            "placeholder",
            "placeholder",
            "tests/src/bin/bad-tools.rs:35:",
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
