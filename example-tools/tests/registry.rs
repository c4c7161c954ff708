//! The crate seen from outside, as a binary sees it: linked by `use example_tools as _;`.

use example_tools as _;
use hermes_tools::ToolRegistry;

const TOOLS: [(&str, &str, &str); 6] = [
    ("clarify", "clarify", "❓"),
    ("read_file", "files", "📖"),
    ("search_files", "files", "🔎"),
    ("terminal", "terminal", "💻"),
    ("todo", "todo", "📋"),
    ("write_file", "files", "✍️"),
];

#[test]
fn every_tool_is_registered_with_its_toolset_and_emoji() {
    let registry = ToolRegistry::global();
    for (name, toolset, emoji) in TOOLS {
        let tool = registry
            .get(name)
            .unwrap_or_else(|| panic!("{name} is not registered"));
        assert_eq!((tool.toolset(), tool.emoji()), (toolset, emoji), "{name}");
        assert_eq!(tool.provenance().crate_name, "example_tools");
    }
    assert!(registry.conflicts().is_empty());
}

#[test]
fn descriptions_open_with_a_short_summary_and_document_every_parameter() {
    let registry = ToolRegistry::global();
    for (name, ..) in TOOLS {
        let tool = registry.get(name).unwrap();
        let summary = tool.description().lines().next().unwrap_or_default();
        assert!(summary.ends_with('.'), "{name}: {summary:?}");
        assert!(summary.chars().count() < 120, "{name}: {summary:?}");
        assert!(!tool.description().contains("# Arguments"), "{name}");
        let properties = tool.parameters()["properties"].as_object().unwrap();
        assert!(!properties.is_empty(), "{name}");
        for (param, schema) in properties {
            let description = schema["description"].as_str().unwrap_or_default();
            assert!(!description.is_empty(), "{name}.{param} has no description");
        }
    }
}
