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
