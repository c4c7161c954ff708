//! The [`ToolRegistry`] handle: its shared state, its constructors, and registering and
//! deregistering tools, toolsets and aliases under the rules of the [module docs](super).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::sync::{Mutex, RwLock};

use super::{Conflict, RegisterError, Snapshot, check_tool, toolset_name};
use crate::call::context::ToolContext;
use crate::config::Config;
use crate::definitions::cache::DefinitionsCache;
use crate::hooks::{ApprovalGate, Hooks};
use crate::search::SearchIndex;
use crate::tool::discovery::{TOOLS, TOOLSETS};
use crate::tool::{Tool, ToolDecl};
use crate::toolsets::Composite;
use crate::toolsets::availability::{Availability, Clock};

/// The tools an agent can call: a cheap [`Clone`] handle to shared state. See the
/// [`registry` module docs](crate::registry) for the rules of registering.
///
/// ```
/// use hermes_tools::{ToolContext, ToolRegistry, tool};
///
/// /// Add two integers.
/// #[tool(toolset = "math")]
/// fn add(
///     /// The first addend.
///     a: i64,
///     /// The second addend.
///     b: i64,
/// ) -> i64 {
///     a + b
/// }
///
/// let registry = ToolRegistry::global();
/// let answer = registry.call_blocking("add", r#"{"a": 2, "b": "40"}"#, &ToolContext::new());
/// assert_eq!(answer.as_str(), "42");
/// ```
#[derive(Clone, Default)]
pub struct ToolRegistry {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    snapshot: RwLock<Arc<Snapshot>>,
    conflicts: Mutex<Vec<Conflict>>,
    availability: Availability,
    hooks: Hooks,
    definitions_cache: DefinitionsCache,
    /// The search index of the latest generation searched (built on first search).
    search_index: Mutex<Option<SearchIndex>>,
    /// The generation, sent on every change, for those who wait for one (MCP servers).
    changes: tokio::sync::watch::Sender<u64>,
    approval_gate: RwLock<Option<Arc<dyn ApprovalGate>>>,
    /// This registry's configuration and the number of times it was set (cached definitions
    /// key on it, so a description that depends on the config is computed anew).
    config: RwLock<(Arc<Config>, u64)>,
    /// Why the tools under a name prefix are missing (the tools of an MCP server that is down
    /// or failed to start), longest prefix first: a call of such a name is told why.
    absences: RwLock<Vec<(String, String)>>,
    /// Bumped after every change of the snapshot or the config, under its lock: a turn keeps
    /// both across its calls and takes them anew only when this moved ([`Current`]).
    epoch: AtomicU64,
}

/// The registry's tools and configuration as a call sees them, kept by a turn across its
/// calls: [`ToolRegistry::refresh`] takes them anew only when the registry changed since,
/// which costs one atomic load instead of a lock and two reference counts per call.
pub(crate) struct Current {
    epoch: u64,
    /// The tools.
    pub(crate) snapshot: Arc<Snapshot>,
    /// The configuration.
    pub(crate) config: Arc<Config>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let snapshot = self.snapshot();
        f.debug_struct("ToolRegistry")
            .field("tools", &snapshot.tools.len())
            .field("generation", &snapshot.generation)
            .field("hooks", &self.inner.hooks)
            .field("approval_gate", &self.inner.approval_gate.read().is_some())
            .finish_non_exhaustive()
    }
}

/// What a tool learns of the registry running it, through its [`ToolContext`].
impl ToolContext {
    /// The registry running this call (set by the registry's [`call`](ToolRegistry::call) and
    /// raw dispatch), if any: a tool that calls other tools (`delegate_task`) calls through it.
    pub fn registry(&self) -> Option<ToolRegistry> {
        let inner = Arc::clone(self.runner()?).downcast::<Inner>().ok()?;
        Some(ToolRegistry { inner })
    }

    /// The configuration of the registry running this call (the default one outside a call).
    pub fn config(&self) -> Arc<Config> {
        self.registry().map_or_else(
            || Arc::clone(Config::shared_default()),
            |registry| registry.config(),
        )
    }

    /// This context, running on `registry` (what a registry does before it calls a tool).
    /// Borrowed when it already does (no reference count touched).
    pub(crate) fn on(&self, registry: &ToolRegistry) -> Cow<'_, ToolContext> {
        let same = self.runner().is_some_and(|runner| {
            std::ptr::addr_eq(Arc::as_ptr(runner), Arc::as_ptr(&registry.inner))
        });
        if same {
            Cow::Borrowed(self)
        } else {
            Cow::Owned(
                self.with_runner(Arc::clone(&registry.inner) as crate::call::context::Runner),
            )
        }
    }
}

impl ToolRegistry {
    /// An empty registry, for tests and embedding.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty registry whose availability cache reads time from `clock` (for tests).
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self::from_inner(Inner {
            availability: Availability::new(clock),
            ..Inner::default()
        })
    }

    fn from_inner(inner: Inner) -> Self {
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Whether two handles share one registry.
    pub fn ptr_eq(&self, other: &ToolRegistry) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The hooks [`call`](Self::call) runs around each call.
    pub fn hooks(&self) -> &Hooks {
        &self.inner.hooks
    }

    /// Sets (or with `None` removes) the gate that approves calls needing approval.
    pub fn set_approval_gate(&self, gate: Option<Arc<dyn ApprovalGate>>) {
        *self.inner.approval_gate.write() = gate;
    }

    /// The approval gate, if one is set.
    pub fn approval_gate(&self) -> Option<Arc<dyn ApprovalGate>> {
        self.inner.approval_gate.read().clone()
    }

    /// This registry's configuration (the default one until [`set_config`](Self::set_config)).
    pub fn config(&self) -> Arc<Config> {
        Arc::clone(&self.inner.config.read().0)
    }

    /// Replaces this registry's configuration. Cached definitions are computed anew (they key
    /// on the config), and a new check TTL applies at once to the answers already cached.
    /// Other registries (and the global one) are not affected.
    pub fn set_config(&self, config: Config) {
        let ttl = std::time::Duration::from_secs(config.check_ttl_secs);
        {
            let mut guard = self.inner.config.write();
            guard.0 = Arc::new(config);
            guard.1 += 1;
            self.changed();
        }
        self.inner.availability.set_default_ttl(ttl);
    }

    /// A number that changes each time [`set_config`](Self::set_config) is called.
    /// Records why the tools whose names start with `prefix` are missing (`None`: they are
    /// not, or no longer, explained).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn set_absence(&self, prefix: &str, reason: Option<String>) {
        let mut absences = self.inner.absences.write();
        absences.retain(|(known, _)| known != prefix);
        if let Some(reason) = reason {
            absences.push((prefix.to_owned(), reason));
            absences.sort_by_key(|(known, _)| std::cmp::Reverse(known.len()));
        }
    }

    /// Why tool `name` is missing, if its prefix was explained.
    pub(crate) fn absence(&self, name: &str) -> Option<String> {
        self.inner
            .absences
            .read()
            .iter()
            .find(|(prefix, _)| name.starts_with(prefix.as_str()))
            .map(|(_, reason)| reason.clone())
    }

    pub(crate) fn config_version(&self) -> u64 {
        self.inner.config.read().1
    }

    pub(crate) fn definitions_cache(&self) -> &DefinitionsCache {
        &self.inner.definitions_cache
    }

    /// The search index slot: the index of the latest generation searched.
    pub(crate) fn search_slot(&self) -> &Mutex<Option<SearchIndex>> {
        &self.inner.search_index
    }

    /// How many definitions lists are cached (at most 64 selections).
    pub fn cached_definitions(&self) -> usize {
        self.inner.definitions_cache.len()
    }

    /// The cache of check results: probe availability through it.
    pub fn availability(&self) -> &Availability {
        &self.inner.availability
    }

    /// The registry of every `#[tool]` and [`toolset!`](crate::toolset!) linked into this
    /// binary, built at first use; every call returns a handle to the same registry.
    ///
    /// When two linked crates declare one name, one declaration wins deterministically (one
    /// declaring `overrides` first, then the smaller crate name, module path and line) and the
    /// other is reported in [`conflicts`](Self::conflicts) and as a `tracing` warning.
    pub fn global() -> ToolRegistry {
        Self::global_ref().clone()
    }

    /// The global registry, borrowed for the whole program.
    pub(crate) fn global_ref() -> &'static ToolRegistry {
        static GLOBAL: OnceLock<ToolRegistry> = OnceLock::new();
        GLOBAL.get_or_init(Self::linked)
    }

    /// A new registry of every `#[tool]` and [`toolset!`](crate::toolset!) linked into this
    /// binary, independent of [`global`](Self::global): its own config, hooks and caches.
    pub fn linked() -> ToolRegistry {
        let registry = Self::from_decls(&TOOLS);
        for decl in TOOLSETS.iter() {
            let composite = Composite::new(decl.name, decl.description.trim())
                .with_tools(decl.tools.iter().copied())
                .with_includes(decl.includes.iter().copied());
            // `toolset!` refuses a bad name at compile time; a declaration written by hand is
            // refused here, logged by `register_toolset`.
            let _ = registry.register_toolset(composite);
        }
        registry
    }

    /// A registry of the given static declarations, with duplicates settled as in [`global`](Self::global).
    pub(crate) fn from_decls(decls: &'static [ToolDecl]) -> Self {
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
        Self::from_inner(Inner {
            snapshot: RwLock::new(Arc::new(Snapshot {
                tools,
                ..Snapshot::default()
            })),
            conflicts: Mutex::new(conflicts),
            ..Inner::default()
        })
    }

    /// The current snapshot; holding it never blocks writers.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.inner.snapshot.read().clone()
    }

    /// The tool of that name.
    pub fn get(&self, name: &str) -> Option<Arc<Tool>> {
        self.inner.snapshot.read().tools.get(name).cloned()
    }

    /// A number that changes on every successful change of the registry (tools, composite
    /// toolsets, aliases), and never on a refused one.
    pub fn generation(&self) -> u64 {
        self.inner.snapshot.read().generation
    }

    /// A receiver that sees the [generation](Self::generation) each time it changes: await
    /// `changed()` instead of polling.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// Duplicate declarations dropped when the registry was built from the linked slice.
    pub fn conflicts(&self) -> Vec<Conflict> {
        self.inner.conflicts.lock().clone()
    }

    /// Adds `tool`, following the rules in the [`registry` module docs](crate::registry).
    ///
    /// Returns the tool it replaced, if any.
    /// It takes a [`Tool`] or an `Arc<Tool>`, so a tool taken out can be put back as it was.
    pub fn register(&self, tool: impl Into<Arc<Tool>>) -> Result<Option<Arc<Tool>>, RegisterError> {
        let tool: Arc<Tool> = tool.into();
        if let Err(err) = check_tool(&tool) {
            tracing::warn!(error = %err, "tool registration refused");
            return Err(err);
        }
        let mut guard = self.inner.snapshot.write();
        if let Some(existing) = guard.tools.get(tool.name())
            && let Err(err) = admit(existing, &tool)
        {
            drop(guard);
            tracing::warn!(tool = tool.name(), error = %err, "tool registration refused");
            return Err(err);
        }
        let snapshot = Arc::make_mut(&mut guard);
        snapshot.generation += 1;
        self.inner.changes.send_replace(snapshot.generation);
        // The tool's own name, shared: no second copy per tool.
        let name = Arc::clone(tool.name_arc());
        let replaced = snapshot.tools.insert(name, tool);
        self.changed();
        Ok(replaced)
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
    /// Its name must pass [`check_toolset_name`](crate::toolsets::check_toolset_name). Members are checked when the toolset is
    /// resolved, since the tools it names may be registered later (by a plugin, an MCP server).
    ///
    /// # Errors
    ///
    /// [`RegisterError::InvalidToolset`] for a name such as `""`, `all` or `my tools`.
    pub fn register_toolset(
        &self,
        composite: Composite,
    ) -> Result<Option<Composite>, RegisterError> {
        if let Err(err) = toolset_name(&composite.name, || "composite toolset".to_owned()) {
            tracing::warn!(error = %err, "toolset registration refused");
            return Err(err);
        }
        // The same declaration again changes nothing, and must not invalidate cached lists.
        if self.snapshot().composites.get(&composite.name) == Some(&composite) {
            return Ok(Some(composite));
        }
        Ok(self.mutate(|snapshot| {
            snapshot
                .composites
                .insert(composite.name.clone(), composite)
        }))
    }

    /// Removes a composite toolset.
    pub fn deregister_toolset(&self, name: &str) -> Option<Composite> {
        self.mutate_if(|snapshot| snapshot.composites.remove(name))
    }

    /// Makes `alias` a second name of `toolset` (an MCP server's bare name for `mcp-<server>`).
    ///
    /// # Errors
    ///
    /// [`RegisterError::InvalidToolset`] when `alias` or `toolset` breaks the rule of
    /// [`check_toolset_name`](crate::toolsets::check_toolset_name) (an alias `all` could never be selected by its name).
    pub fn register_alias(
        &self,
        alias: impl Into<String>,
        toolset: impl Into<String>,
    ) -> Result<(), RegisterError> {
        let (alias, toolset) = (alias.into(), toolset.into());
        let checked = toolset_name(&alias, || "alias".to_owned())
            .and_then(|()| toolset_name(&toolset, || format!("the target of alias {alias:?}")));
        if let Err(err) = checked {
            tracing::warn!(error = %err, "alias registration refused");
            return Err(err);
        }
        if self.snapshot().aliases.get(&alias) == Some(&toolset) {
            return Ok(());
        }
        self.mutate(|snapshot| snapshot.aliases.insert(alias, toolset));
        Ok(())
    }

    /// Removes an alias.
    pub fn deregister_alias(&self, alias: &str) -> Option<String> {
        self.mutate_if(|snapshot| snapshot.aliases.remove(alias))
    }

    /// Applies `change` to a copy of the snapshot and bumps the generation.
    fn mutate<R>(&self, change: impl FnOnce(&mut Snapshot) -> R) -> R {
        let mut guard = self.inner.snapshot.write();
        let snapshot = Arc::make_mut(&mut guard);
        snapshot.generation += 1;
        self.inner.changes.send_replace(snapshot.generation);
        let out = change(snapshot);
        self.changed();
        out
    }

    /// Like [`mutate`](Self::mutate), bumping the generation only when `change` returns `Some`.
    fn mutate_if<R>(&self, change: impl FnOnce(&mut Snapshot) -> Option<R>) -> Option<R> {
        let mut guard = self.inner.snapshot.write();
        let mut next = Snapshot::clone(&guard);
        let removed = change(&mut next)?;
        next.generation += 1;
        self.inner.changes.send_replace(next.generation);
        *guard = Arc::new(next);
        self.changed();
        Some(removed)
    }

    /// Marks a change of the snapshot or the config (called under its lock, after it).
    fn changed(&self) {
        self.inner.epoch.fetch_add(1, Ordering::Release);
    }

    /// The tools and configuration as they are now.
    pub(crate) fn current(&self) -> Current {
        // Read before them: a change made after this load moves the epoch past it, so the
        // next `refresh` sees it.
        let epoch = self.inner.epoch.load(Ordering::Acquire);
        Current {
            epoch,
            snapshot: self.snapshot(),
            config: self.config(),
        }
    }

    /// Takes `current` anew if the tools or the configuration changed since it was taken.
    pub(crate) fn refresh(&self, current: &mut Current) {
        if self.inner.epoch.load(Ordering::Acquire) != current.epoch {
            *current = self.current();
        }
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
