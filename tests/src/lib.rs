//! Cross-crate tests of hermes-tools: trybuild UI cases (`tests/ui.rs`), the linking rule
//! (`tests/linking_*.rs`) and end-to-end checks. The library links no tool on purpose: a test
//! binary must decide for itself whether it links `example_tools`. It holds [`EXAMPLE_TOOLS`]
//! and the MCP benches' tools ([`add_tools`]), which are `unlisted`: no global registry sees them;
//! the generated tools of the benches at scale ([`many_tools`]); the load bench's plain
//! HTTP/1.1 MCP client and floor server ([`load`]); and the listings of the search evaluation
//! and benches ([`listings`]), built at run time.

pub mod add_tools;
pub mod listings;
pub mod load;
pub mod many_tools;

/// The tools `example_tools` declares with `#[tool]`, by name.
pub const EXAMPLE_TOOLS: [&str; 7] = [
    "clarify",
    "todo",
    "read_file",
    "write_file",
    "search_files",
    "terminal",
    "delegate_task",
];

/// The README's Rust blocks, compiled and run as this crate's doctests, so that the front door
/// cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
