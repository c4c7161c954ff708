//! A binary that names `example_tools` links it: all six tools are in the global registry.

use example_tools as _;
use hermes_tools::ToolRegistry;

#[test]
fn sees_all_six_example_tools() {
    let registry = ToolRegistry::global();
    for name in [
        "clarify",
        "todo",
        "read_file",
        "write_file",
        "search_files",
        "terminal",
    ] {
        let tool = registry
            .get(name)
            .unwrap_or_else(|| panic!("{name} is linked"));
        assert_eq!(tool.provenance().crate_name, "example_tools");
    }
}
