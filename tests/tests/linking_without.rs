//! A binary that depends on `example-tools` but never names it does not link it: none of its
//! tools are there, and nothing says so. This is the pitfall the README's linking rule is about.

use hermes_tools::ToolRegistry;

#[test]
fn sees_none_of_the_example_tools() {
    let registry = ToolRegistry::global();
    for name in [
        "clarify",
        "todo",
        "read_file",
        "write_file",
        "search_files",
        "terminal",
    ] {
        assert!(registry.get(name).is_none(), "{name} should not be linked");
    }
    assert_eq!(registry.snapshot().tools().len(), 0);
}
