//! A binary that depends on `example-tools` but never names it does not link it: none of its
//! tools are there, and nothing says so. This is the pitfall the README's linking rule is about.

use hermes_tools::ToolRegistry;
use hermes_tools_tests::EXAMPLE_TOOLS;

#[test]
fn sees_none_of_the_example_tools() {
    let registry = ToolRegistry::global();
    for name in EXAMPLE_TOOLS {
        assert!(registry.get(name).is_none(), "{name} should not be linked");
    }
    assert_eq!(registry.snapshot().tools().len(), 0);
}
