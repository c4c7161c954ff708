//! Link-time discovery: every `#[tool]` in every linked crate lands in [`TOOLS`], every
//! [`toolset!`](crate::toolset!) in [`TOOLSETS`]; [`ToolRegistry::global`](crate::ToolRegistry::global) reads both.
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

use crate::tool::{Provenance, ToolDecl};

/// Every tool declared with `#[tool]` in the crates linked into this binary.
///
/// Read it through [`ToolRegistry::global`](crate::ToolRegistry::global), which also settles
/// duplicate names.
#[distributed_slice]
pub static TOOLS: [ToolDecl];

/// A composite toolset declared in code with [`toolset!`](crate::toolset!).
#[derive(Debug)]
pub struct ToolsetDecl {
    /// The toolset's name.
    pub name: &'static str,
    /// What the toolset is for.
    pub description: &'static str,
    /// Member tools, by name.
    pub tools: &'static [&'static str],
    /// Other toolsets (basic or composite) it includes.
    pub includes: &'static [&'static str],
    /// Where it was declared.
    pub provenance: Provenance,
}

/// Every composite toolset declared with [`toolset!`](crate::toolset!) in the linked crates.
#[distributed_slice]
pub static TOOLSETS: [ToolsetDecl];

/// Declares a composite toolset: member tools and included toolsets, collected at link time.
///
/// The name must pass [`check_toolset_name`](crate::toolsets::check_toolset_name), at compile
/// time: `toolset! { /// Every tool. pub static ALL = "all" { .. } }` does not build.
///
/// ```
/// hermes_tools::toolset! {
///     /// Reading, writing and searching files, and running commands.
///     pub static CODING = "coding" {
///         tools: [],
///         includes: ["files", "terminal"],
///     }
/// }
/// assert_eq!(CODING.includes, ["files", "terminal"]);
/// let registry = hermes_tools::ToolRegistry::global();
/// assert!(registry.snapshot().composites().contains_key("coding"));
/// ```
#[macro_export]
macro_rules! toolset {
    (
        $(#[doc = $doc:literal])+
        $vis:vis static $ident:ident = $name:literal {
            tools: [$($tool:literal),* $(,)?],
            includes: [$($include:literal),* $(,)?] $(,)?
        }
    ) => {
        // A name no selection could reach (`""`, `all`, `my tools`) is a compile error.
        const _: () = if let ::core::result::Result::Err(err) =
            $crate::toolsets::check_toolset_name($name)
        {
            ::core::panic!("{}", err.compile_error_message())
        };
        $(#[doc = $doc])+
        #[$crate::__private::linkme::distributed_slice($crate::__private::TOOLSETS)]
        #[linkme(crate = $crate::__private::linkme)]
        $vis static $ident: $crate::__private::ToolsetDecl = $crate::__private::ToolsetDecl {
            name: $name,
            description: ::core::concat!($($doc, "\n"),+),
            tools: &[$($tool),*],
            includes: &[$($include),*],
            provenance: $crate::tool::Provenance::declared(
                ::core::env!("CARGO_CRATE_NAME"),
                ::core::module_path!(),
                ::core::file!(),
                ::core::line!(),
            ),
        };
    };
}
