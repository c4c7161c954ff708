//! A binary that names `example_tools` links it: every one of its tools is in the global registry.

use example_tools as _;
use hermes_tools::ToolRegistry;
use hermes_tools_tests::EXAMPLE_TOOLS;

#[test]
fn sees_every_example_tool() {
    let registry = ToolRegistry::global();
    for name in EXAMPLE_TOOLS {
        let tool = registry
            .get(name)
            .unwrap_or_else(|| panic!("{name} is linked"));
        assert_eq!(tool.provenance().crate_name, "example_tools");
    }
}
