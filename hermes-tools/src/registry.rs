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

use crate::availability::{Availability, Clock};
use crate::definitions::DefinitionsCache;
use crate::discovery::TOOLS;
use crate::discovery::TOOLSETS;
use crate::hooks::Hooks;
use crate::pipeline::ApprovalGate;
use crate::tool::{Provenance, Tool, ToolDecl};
use crate::toolsets::{Catalog, Composite};

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
        f(&Catalog {
            tools: &tools,
            composites: &self.composites,
            aliases: &self.aliases,
        })
    }
}

/// The tools an agent can call. See the [module docs](self) for the rules.
#[derive(Default)]
pub struct ToolRegistry {
    snapshot: RwLock<Arc<Snapshot>>,
    conflicts: Mutex<Vec<Conflict>>,
    availability: Availability,
    hooks: Hooks,
    definitions_cache: DefinitionsCache,
    /// The generation, sent on every change, for those who wait for one (MCP servers).
    changes: tokio::sync::watch::Sender<u64>,
    approval_gate: RwLock<Option<Arc<dyn ApprovalGate>>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let snapshot = self.snapshot();
        f.debug_struct("ToolRegistry")
            .field("tools", &snapshot.tools.len())
            .field("generation", &snapshot.generation)
            .field("hooks", &self.hooks)
            .field("approval_gate", &self.approval_gate.read().is_some())
            .finish_non_exhaustive()
    }
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

    /// An empty registry whose availability cache reads time from `clock` (for tests).
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self {
            availability: Availability::new(clock),
            ..Self::default()
        }
    }

    /// The hooks run by [`handle_function_call`](Self::handle_function_call).
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// Sets (or with `None` removes) the gate that approves calls needing approval.
    pub fn set_approval_gate(&self, gate: Option<Arc<dyn ApprovalGate>>) {
        *self.approval_gate.write() = gate;
    }

    /// The approval gate, if one is set.
    pub fn approval_gate(&self) -> Option<Arc<dyn ApprovalGate>> {
        self.approval_gate.read().clone()
    }

    pub(crate) fn definitions_cache(&self) -> &DefinitionsCache {
        &self.definitions_cache
    }

    /// How many definitions lists are cached (bounded by
    /// [`CACHE_CAPACITY`](crate::definitions::CACHE_CAPACITY)).
    pub fn cached_definitions(&self) -> usize {
        self.definitions_cache.len()
    }

    /// The cache of check results: probe availability through it.
    pub fn availability(&self) -> &Availability {
        &self.availability
    }

    /// The registry of every `#[tool]` linked into this binary, built at first use.
    ///
    /// When two linked crates declare one name, one declaration wins deterministically (one
    /// declaring `overrides` first, then the smaller crate name, module path and line) and the
    /// other is reported in [`conflicts`](Self::conflicts) and as a `tracing` warning.
    pub fn global() -> &'static ToolRegistry {
        static GLOBAL: OnceLock<ToolRegistry> = OnceLock::new();
        GLOBAL.get_or_init(|| {
            let registry = Self::from_decls(&TOOLS);
            for decl in TOOLSETS.iter() {
                let composite = Composite::new(decl.name, decl.description.trim())
                    .with_tools(decl.tools.iter().copied())
                    .with_includes(decl.includes.iter().copied());
                registry.register_toolset(composite);
            }
            registry
        })
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
                ..Snapshot::default()
            })),
            conflicts: Mutex::new(conflicts),
            ..Self::default()
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

    /// A number that changes on every successful change of the registry (tools, composite
    /// toolsets, aliases), and never on a refused one.
    pub fn generation(&self) -> u64 {
        self.snapshot.read().generation
    }

    /// A receiver that sees the [generation](Self::generation) each time it changes: await
    /// `changed()` instead of polling.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Duplicate declarations dropped when the registry was built from the linked slice.
    pub fn conflicts(&self) -> Vec<Conflict> {
        self.conflicts.lock().clone()
    }

    /// Adds `tool`, following the rules in the [module docs](self).
    ///
    /// Returns the tool it replaced, if any.
    /// It takes a [`Tool`] or an `Arc<Tool>`, so a tool taken out can be put back as it was.
    pub fn register(&self, tool: impl Into<Arc<Tool>>) -> Result<Option<Arc<Tool>>, RegisterError> {
        let tool: Arc<Tool> = tool.into();
        if !is_valid_tool_name(tool.name()) {
            let err = RegisterError::InvalidName {
                name: tool.name().to_owned(),
            };
            tracing::warn!(error = %err, "tool registration refused");
            return Err(err);
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
        self.changes.send_replace(snapshot.generation);
        let name: Arc<str> = Arc::from(tool.name());
        Ok(snapshot.tools.insert(name, tool))
    }

    /// Removes `tool` if it is still the one registered under its name (not a replacement
    /// registered since); returns whether it removed it. Owners (plugins, MCP clients) use this
    /// to take back exactly what they added, atomically.
    pub fn deregister_exact(&self, tool: &Arc<Tool>) -> bool {
        self.mutate_if(|snapshot| {
            let current = snapshot.tools.get(tool.name())?;
            Arc::ptr_eq(current, tool).then(|| snapshot.tools.remove(tool.name()))?
        })
        .is_some()
    }

    /// Adds (or replaces) a composite toolset; returns the one replaced.
    ///
    /// Members are checked when the toolset is resolved, since the tools it names may be
    /// registered later (by a plugin, an MCP server).
    pub fn register_toolset(&self, composite: Composite) -> Option<Composite> {
        // The same declaration again changes nothing, and must not invalidate cached lists.
        if self.snapshot().composites.get(&composite.name) == Some(&composite) {
            return Some(composite);
        }
        self.mutate(|snapshot| {
            snapshot
                .composites
                .insert(composite.name.clone(), composite)
        })
    }

    /// Removes a composite toolset.
    pub fn deregister_toolset(&self, name: &str) -> Option<Composite> {
        self.mutate_if(|snapshot| snapshot.composites.remove(name))
    }

    /// Makes `alias` a second name of `toolset` (an MCP server's bare name for `mcp-<server>`).
    pub fn register_alias(&self, alias: impl Into<String>, toolset: impl Into<String>) {
        let (alias, toolset) = (alias.into(), toolset.into());
        if self.snapshot().aliases.get(&alias) == Some(&toolset) {
            return;
        }
        self.mutate(|snapshot| snapshot.aliases.insert(alias, toolset));
    }

    /// Removes an alias.
    pub fn deregister_alias(&self, alias: &str) -> Option<String> {
        self.mutate_if(|snapshot| snapshot.aliases.remove(alias))
    }

    /// Applies `change` to a copy of the snapshot and bumps the generation.
    fn mutate<R>(&self, change: impl FnOnce(&mut Snapshot) -> R) -> R {
        let mut guard = self.snapshot.write();
        let snapshot = Arc::make_mut(&mut guard);
        snapshot.generation += 1;
        self.changes.send_replace(snapshot.generation);
        change(snapshot)
    }

    /// Like [`mutate`](Self::mutate), bumping the generation only when `change` returns `Some`.
    fn mutate_if<R>(&self, change: impl FnOnce(&mut Snapshot) -> Option<R>) -> Option<R> {
        let mut guard = self.snapshot.write();
        let mut next = Snapshot::clone(&guard);
        let removed = change(&mut next)?;
        next.generation += 1;
        self.changes.send_replace(next.generation);
        *guard = Arc::new(next);
        Some(removed)
    }

    /// Removes the tool of that name, returning it; the generation changes only if one was removed.
    pub fn deregister(&self, name: &str) -> Option<Arc<Tool>> {
        self.mutate_if(|snapshot| snapshot.tools.remove(name))
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
