//! The registry: where tools live, and the rules of registering them.
//!
//! A [`ToolRegistry`] holds an immutable snapshot behind a lock. Readers clone an `Arc` of the
//! snapshot and release the lock before running anything, so no check function, handler or
//! schema function ever runs under it, and a handler may call back into the registry (to
//! dispatch another tool, or to register one). Writers copy on write and bump the
//! [generation](ToolRegistry::generation), which caches key on.
//!
//! # Rules of [`register`](ToolRegistry::register)
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
//! A refusal is an [`Err`] and a `tracing` warning; it never changes the generation.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use parking_lot::{Mutex, RwLock};

use crate::discovery::TOOLS;
use crate::tool::{Provenance, Tool, ToolDecl};

/// Why a tool was not registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegisterError {
    /// The name is not `^[a-zA-Z0-9_-]{1,64}$`, which every provider requires.
    #[error(
        "tool name {name:?} is invalid: use 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'"
    )]
    InvalidName {
        /// The refused name.
        name: String,
    },
    /// A tool of another toolset has the name, and the new tool does not declare `overrides`.
    #[error(
        "tool {name:?} of toolset {toolset:?} would replace the tool of toolset {existing_toolset:?} \
         declared at {existing}; rename it, or declare it with `overrides` to replace it"
    )]
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
    /// An MCP server's tool may never replace a tool that is not from MCP.
    #[error(
        "MCP tool {name:?} of toolset {toolset:?} would replace the built-in tool of toolset \
         {existing_toolset:?}; the built-in tool is kept"
    )]
    McpOverBuiltin {
        /// The contested name.
        name: String,
        /// The MCP toolset refused.
        toolset: String,
        /// The toolset of the built-in tool kept.
        existing_toolset: String,
    },
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
}

/// The tools an agent can call. See the [module docs](self) for the rules.
#[derive(Debug, Default)]
pub struct ToolRegistry {
    snapshot: RwLock<Arc<Snapshot>>,
    conflicts: Mutex<Vec<Conflict>>,
}

/// Whether `name` is a valid tool name for every provider: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl ToolRegistry {
    /// An empty registry, for tests and embedding.
    pub fn new() -> Self {
        Self::default()
    }

    /// The registry of every `#[tool]` linked into this binary, built at first use.
    ///
    /// When two linked crates declare one name, one declaration wins deterministically (one
    /// declaring `overrides` first, then the smaller crate name, module path and line) and the
    /// other is reported in [`conflicts`](Self::conflicts) and as a `tracing` warning.
    pub fn global() -> &'static ToolRegistry {
        static GLOBAL: OnceLock<ToolRegistry> = OnceLock::new();
        GLOBAL.get_or_init(|| Self::from_decls(&TOOLS))
    }

    /// A registry of the given static declarations, with duplicates settled as in [`global`](Self::global).
    pub fn from_decls(decls: &'static [ToolDecl]) -> Self {
        let mut ordered: Vec<&'static ToolDecl> = decls.iter().collect();
        ordered.sort_by(|a, b| {
            (a.name, !a.overrides, &a.provenance).cmp(&(b.name, !b.overrides, &b.provenance))
        });
        let mut tools = BTreeMap::new();
        let mut conflicts = Vec::new();
        let mut kept: Option<&'static ToolDecl> = None;
        for decl in ordered {
            match kept {
                Some(winner) if winner.name == decl.name => {
                    let conflict = Conflict {
                        name: decl.name.to_owned(),
                        kept: (winner.toolset.to_owned(), winner.provenance.clone()),
                        dropped: (decl.toolset.to_owned(), decl.provenance.clone()),
                    };
                    tracing::warn!(
                        tool = decl.name,
                        kept = %winner.provenance,
                        dropped = %decl.provenance,
                        "two linked crates declare the same tool; one is dropped"
                    );
                    conflicts.push(conflict);
                }
                _ => {
                    kept = Some(decl);
                    tools.insert(Arc::from(decl.name), Arc::new(Tool::from_decl(decl)));
                }
            }
        }
        Self {
            snapshot: RwLock::new(Arc::new(Snapshot {
                tools,
                generation: 0,
            })),
            conflicts: Mutex::new(conflicts),
        }
    }

    /// The current snapshot; holding it never blocks writers.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshot.read().clone()
    }

    /// The tool of that name.
    pub fn get(&self, name: &str) -> Option<Arc<Tool>> {
        self.snapshot.read().tools.get(name).cloned()
    }

    /// A number that changes on every successful register or deregister, and on nothing else.
    pub fn generation(&self) -> u64 {
        self.snapshot.read().generation
    }

    /// Duplicate declarations dropped when the registry was built from the linked slice.
    pub fn conflicts(&self) -> Vec<Conflict> {
        self.conflicts.lock().clone()
    }

    /// Adds `tool`, following the rules in the [module docs](self).
    ///
    /// Returns the tool it replaced, if any.
    pub fn register(&self, tool: Tool) -> Result<Option<Arc<Tool>>, RegisterError> {
        if !is_valid_tool_name(tool.name()) {
            return Err(RegisterError::InvalidName {
                name: tool.name().to_owned(),
            });
        }
        let mut guard = self.snapshot.write();
        if let Some(existing) = guard.tools.get(tool.name())
            && let Err(err) = admit(existing, &tool)
        {
            drop(guard);
            tracing::warn!(tool = tool.name(), error = %err, "tool registration refused");
            return Err(err);
        }
        let snapshot = Arc::make_mut(&mut guard);
        snapshot.generation += 1;
        let name: Arc<str> = Arc::from(tool.name());
        Ok(snapshot.tools.insert(name, Arc::new(tool)))
    }

    /// Removes the tool of that name, returning it; the generation changes only if one was removed.
    pub fn deregister(&self, name: &str) -> Option<Arc<Tool>> {
        let mut guard = self.snapshot.write();
        if !guard.tools.contains_key(name) {
            return None;
        }
        let snapshot = Arc::make_mut(&mut guard);
        snapshot.generation += 1;
        snapshot.tools.remove(name)
    }
}

fn admit(existing: &Tool, new: &Tool) -> Result<(), RegisterError> {
    if existing.toolset() == new.toolset() || (existing.is_mcp() && new.is_mcp()) {
        return Ok(());
    }
    if new.is_mcp() && !existing.is_mcp() {
        return Err(RegisterError::McpOverBuiltin {
            name: new.name().to_owned(),
            toolset: new.toolset().to_owned(),
            existing_toolset: existing.toolset().to_owned(),
        });
    }
    if new.overrides() {
        return Ok(());
    }
    Err(RegisterError::Shadowing {
        name: new.name().to_owned(),
        toolset: new.toolset().to_owned(),
        existing_toolset: existing.toolset().to_owned(),
        existing: Box::new(existing.provenance().clone()),
    })
}
