//! The registry: where tools live, and the rules of registering them.
//!
//! A [`ToolRegistry`](crate::ToolRegistry) holds an immutable snapshot behind a lock. Readers clone an `Arc` of the
//! snapshot and release the lock before running anything, so no check function, handler or
//! schema function ever runs under it, and a handler may call back into the registry (to
//! dispatch another tool, or to register one). Writers copy on write and bump the
//! [generation](crate::ToolRegistry::generation), which caches key on.
//!
//! # Rules of [`register`](crate::ToolRegistry::register)
//!
//! | existing tool of the same name | new tool | outcome |
//! |---|---|---|
//! | none | any | added |
//! | same toolset | any | replaced |
//! | `mcp-*` toolset | `mcp-*` toolset | replaced (servers may take over each other's tools) |
//! | not MCP | `mcp-*` toolset | refused: an MCP server never replaces a built-in tool |
//! | another toolset | `overrides` set | replaced |
//! | another toolset | `overrides` not set | refused |
//!
//! Before those rules, the tool itself is checked: its name (`^[a-zA-Z0-9_-]{1,64}$`), its
//! toolset's name (the rule of [`check_toolset_name`]), and, for a tool built at run time, its
//! parameter schema (an object schema, valid under Draft 2020-12, every `$ref` resolvable, at
//! most 64 levels deep), so that no plugin or MCP server can publish a schema that makes
//! providers reject every request. [`register_toolset`](crate::ToolRegistry::register_toolset) and
//! [`register_alias`](crate::ToolRegistry::register_alias) check their names the same way.
//!
//! A refusal is an [`Err`] and a `tracing` warning; it never changes the generation.
//!
//! # One handle, many files
//!
//! A `ToolRegistry` is a cheap [`Clone`] handle (one `Arc`), like axum's `Router` or reqwest's
//! `Client`: clones share the same tools, hooks, config and caches. This file holds storage and
//! the rules of registering; the other `impl ToolRegistry` blocks live beside the concept they
//! serve: `call` and the pipeline in `pipeline.rs`, raw dispatch in `dispatch.rs`,
//! `definitions` in `definitions/mod.rs`.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::tool::{Provenance, Tool};
use crate::toolsets::{Catalog, Composite, ToolsetNameError, check_toolset_name};

/// Why a tool was not registered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegisterError {
    /// The name is not `^[a-zA-Z0-9_-]{1,64}$`, which every provider requires.
    InvalidName {
        /// The refused name.
        name: String,
    },
    /// A tool of another toolset has the name, and the new tool does not declare `overrides`.
    Shadowing {
        /// The contested name.
        name: String,
        /// The toolset of the refused tool.
        toolset: String,
        /// The toolset of the tool kept.
        existing_toolset: String,
        /// Where the kept tool was declared (boxed: errors stay small on the `Ok` path).
        existing: Box<Provenance>,
    },
    /// A name used as a toolset name (a tool's toolset, a composite's name, an alias or
    /// its target) breaks the rule of [`check_toolset_name`].
    InvalidToolset {
        /// What the name was given as, such as `toolset of tool "search"` or `alias`.
        used_as: String,
        /// The refused name.
        name: String,
        /// The rule it breaks.
        problem: ToolsetNameError,
    },
    /// The parameter schema of a tool built at run time is not one every provider accepts
    /// (see [`ToolBuilder::parameters`](crate::tool::ToolBuilder::parameters)).
    InvalidSchema {
        /// The refused tool.
        name: String,
        /// The JSON Pointer of the fault in the schema (`""` for the root).
        pointer: String,
        /// What is wrong, and what to write instead.
        problem: String,
    },
    /// An MCP server's tool may never replace a tool that is not from MCP.
    McpOverBuiltin {
        /// The contested name.
        name: String,
        /// The MCP toolset refused.
        toolset: String,
        /// The toolset of the built-in tool kept.
        existing_toolset: String,
    },
}

impl std::fmt::Display for RegisterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::InvalidName { name } => write!(
                f,
                "tool name {name:?} is invalid: use 1 to 64 characters from a-z, A-Z, 0-9, '_' \
                 and '-'"
            ),
            Self::Shadowing {
                name,
                toolset,
                existing_toolset,
                existing,
            } => write!(
                f,
                "tool {name:?} of toolset {toolset:?} would replace the tool of toolset \
                 {existing_toolset:?} declared at {existing}; rename it, or declare it with \
                 `overrides` to replace it"
            ),
            Self::InvalidToolset {
                used_as,
                name,
                problem,
            } => write!(
                f,
                "{used_as} {name:?} is not a valid toolset name: {problem}"
            ),
            Self::InvalidSchema {
                name,
                pointer,
                problem,
            } => write!(
                f,
                "tool {name:?} has an invalid parameter schema at {}: {problem}",
                at_pointer(pointer)
            ),
            Self::McpOverBuiltin {
                name,
                toolset,
                existing_toolset,
            } => write!(
                f,
                "MCP tool {name:?} of toolset {toolset:?} would replace the built-in tool of \
                 toolset {existing_toolset:?}; the built-in tool is kept"
            ),
        }
    }
}

impl std::error::Error for RegisterError {}

fn at_pointer(pointer: &str) -> String {
    if pointer.is_empty() {
        "the root".to_owned()
    } else {
        format!("{pointer:?}")
    }
}

/// `name` as a toolset name, or the refusal that says what it was used as.
fn toolset_name(name: &str, used_as: impl FnOnce() -> String) -> Result<(), RegisterError> {
    check_toolset_name(name).map_err(|problem| RegisterError::InvalidToolset {
        used_as: used_as(),
        name: name.to_owned(),
        problem,
    })
}

/// What is checked of a tool before the rules of registering: see the [module docs](self).
fn check_tool(tool: &Tool) -> Result<(), RegisterError> {
    if !is_valid_tool_name(tool.name()) {
        return Err(RegisterError::InvalidName {
            name: tool.name().to_owned(),
        });
    }
    toolset_name(tool.toolset(), || {
        format!("the toolset of tool {:?}", tool.name())
    })?;
    tool.check_published_schema()
        .map_err(|fault| RegisterError::InvalidSchema {
            name: tool.name().to_owned(),
            pointer: fault.pointer,
            problem: fault.problem,
        })
}

/// Two linked declarations of one tool name: the one kept and the one dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The tool name both declare.
    pub name: String,
    /// Toolset and provenance of the declaration kept.
    pub kept: (String, Provenance),
    /// Toolset and provenance of the declaration dropped.
    pub dropped: (String, Provenance),
}

/// An immutable view of the registry at one generation.
#[derive(Clone, Default, Debug)]
pub struct Snapshot {
    tools: BTreeMap<Arc<str>, Arc<Tool>>,
    composites: BTreeMap<String, Composite>,
    aliases: BTreeMap<String, String>,
    generation: u64,
}

impl Snapshot {
    /// The tool of that name.
    pub fn get(&self, name: &str) -> Option<&Arc<Tool>> {
        self.tools.get(name)
    }
    /// Every tool, ordered by name.
    pub fn tools(&self) -> impl ExactSizeIterator<Item = &Arc<Tool>> {
        self.tools.values()
    }
    /// Every tool name, in order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.tools.keys().map(|name| &**name)
    }
    /// The generation this snapshot was taken at.
    pub fn generation(&self) -> u64 {
        self.generation
    }
    /// The composite toolsets, by name.
    pub fn composites(&self) -> &BTreeMap<String, Composite> {
        &self.composites
    }
    /// The toolset aliases (bare name to toolset).
    pub fn aliases(&self) -> &BTreeMap<String, String> {
        &self.aliases
    }

    /// Each tool's name and toolset, for [`Catalog`].
    pub fn tool_toolsets(&self) -> Vec<(&str, &str)> {
        self.tools
            .values()
            .map(|tool| (tool.name(), tool.toolset()))
            .collect()
    }

    /// Resolves toolsets over this snapshot: `f` gets the [`Catalog`].
    pub fn with_catalog<R>(&self, f: impl FnOnce(&Catalog<'_>) -> R) -> R {
        let tools = self.tool_toolsets();
        f(&Catalog::new(&tools, &self.composites, &self.aliases))
    }
}

/// Whether `name` is a valid tool name for every provider: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

pub(crate) mod handle;
