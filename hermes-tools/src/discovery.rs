//! Link-time discovery: every `#[tool]` in every linked crate lands in [`TOOLS`].
//!
//! # The linking rule
//!
//! A binary only links the crates it names. A crate of tools that the final binary never
//! mentions is not linked, and its tools are silently missing. Name it once at the root of the
//! binary (or of a library the binary uses):
//!
//! ```ignore
//! use example_tools as _;
//! ```
//!
//! This holds in debug and release builds, with thin and fat LTO.

use linkme::distributed_slice;

use crate::tool::ToolDecl;

/// Every tool declared with `#[tool]` in the crates linked into this binary.
///
/// Read it through [`ToolRegistry::global`](crate::ToolRegistry::global), which also settles
/// duplicate names.
#[distributed_slice]
pub static TOOLS: [ToolDecl];
