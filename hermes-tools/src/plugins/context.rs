//! What a plugin's register function receives, and the record of what it added.
//!
//! The context registers straight into the registry (so a later registration of the same
//! plugin sees the earlier ones) and writes down everything it added, so that a failed load
//! can be rolled back and a loaded plugin unloaded.

use std::sync::Arc;

use crate::ToolRegistry;
use crate::hooks::{CallRecord, Directive, HookId, HookKind, PendingCall};
use crate::registry::RegisterError;
use crate::tool::{Provenance, Tool, ToolBuilder};
use crate::toolsets::Composite;

/// Why a plugin did not load, or could not be unloaded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PluginError {
    /// The plugin declared a tool with `overrides`, and the operator has not allowed it to.
    OverrideNotAllowed {
        /// The plugin.
        plugin: String,
        /// The tool declared with `overrides`.
        tool: String,
    },
    /// The plugin's tool has the name of an existing tool and does not declare `overrides`.
    WouldReplace {
        /// The plugin.
        plugin: String,
        /// The contested tool name.
        tool: String,
        /// The toolset of the tool kept.
        existing_toolset: String,
        /// Where the kept tool was declared.
        existing: String,
    },
    /// The registry refused the tool (an invalid name, an MCP rule).
    Register {
        /// The plugin.
        plugin: String,
        /// The registry's refusal.
        source: RegisterError,
    },
    /// A composite toolset of that name exists already; plugins add toolsets, never replace them.
    ToolsetExists {
        /// The plugin.
        plugin: String,
        /// The toolset.
        toolset: String,
    },
    /// The register function panicked.
    Panicked {
        /// The plugin.
        plugin: String,
        /// The panic's message.
        message: String,
    },
    /// No plugin of that name is known.
    NotFound(String),
    /// The plugin is known but not loaded.
    NotLoaded(String),
}

impl std::fmt::Display for PluginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::OverrideNotAllowed { plugin, tool } => write!(
                f,
                "plugin {plugin:?} may not override tool {tool:?}: add {plugin:?} to \
                 plugins.allow_tool_override in the config to allow it"
            ),
            Self::WouldReplace {
                plugin,
                tool,
                existing_toolset,
                existing,
            } => write!(
                f,
                "plugin {plugin:?} registers tool {tool:?}, which would replace the tool of \
                 toolset {existing_toolset:?} declared at {existing}; rename it, or declare it \
                 with `overrides` (the operator must also allow the plugin in \
                 plugins.allow_tool_override)"
            ),
            Self::Register { plugin, source } => write!(f, "plugin {plugin:?}: {source}"),
            Self::ToolsetExists { plugin, toolset } => write!(
                f,
                "plugin {plugin:?} registers toolset {toolset:?}, which already exists"
            ),
            Self::Panicked { plugin, message } => {
                write!(f, "plugin {plugin:?} panicked while registering: {message}")
            }
            Self::NotFound(plugin) => write!(f, "no plugin is named {plugin:?}"),
            Self::NotLoaded(plugin) => write!(f, "plugin {plugin:?} is not loaded"),
        }
    }
}

impl std::error::Error for PluginError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Register { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// A tool a plugin registered: enough to take it away again.
#[derive(Debug)]
pub(crate) struct AddedTool {
    pub(crate) name: String,
    /// The entry the registry held right after registering, to tell it from a later
    /// replacement by someone else, which unloading must leave alone.
    pub(crate) entry: Option<Arc<Tool>>,
    /// The tool this one replaced (with `overrides`), restored when the plugin goes.
    pub(crate) replaced: Option<Arc<Tool>>,
}

/// Everything one plugin added to the registry.
#[derive(Debug, Default)]
pub(crate) struct Added {
    pub(crate) tools: Vec<AddedTool>,
    pub(crate) hooks: Vec<(HookId, HookKind)>,
    pub(crate) toolsets: Vec<Composite>,
}

impl Added {
    /// Takes everything away, newest first, leaving alone what others replaced since.
    pub(crate) fn remove_from(&self, registry: &ToolRegistry) {
        for (id, _) in &self.hooks {
            registry.hooks().remove(*id);
        }
        for composite in self.toolsets.iter().rev() {
            let ours = registry.snapshot().composites().get(&composite.name) == Some(composite);
            if ours {
                registry.deregister_toolset(&composite.name);
            }
        }
        for tool in self.tools.iter().rev() {
            // Only the very entry it registered: a later replacement by someone else stays.
            let ours = tool
                .entry
                .as_ref()
                .is_some_and(|entry| registry.deregister_exact(entry));
            if !ours {
                continue;
            }
            if let Some(replaced) = &tool.replaced
                && let Err(err) = registry.register(Arc::clone(replaced))
            {
                tracing::warn!(tool = replaced.name(), error = %err, "could not restore an overridden tool");
            }
        }
    }
}

/// What a plugin's register function receives: registers tools, hooks and toolsets on the
/// plugin's behalf and remembers them, so the plugin can be unloaded.
///
/// Registration stops at the first refusal: later calls do nothing, and the plugin is
/// reported as failed with that reason, with everything it registered rolled back. This is
/// Hermes' behaviour (its `register_tool` raises), without forcing every plugin to handle a
/// `Result` it cannot recover from.
///
/// A tool replaces an existing tool only when it declares `overrides` *and* the operator
/// lists the plugin in `plugins.allow_tool_override`; declaring `overrides` without that
/// permission fails even when there is nothing to replace, so a plugin behaves the same
/// whatever else is linked. Replacing a tool of the same toolset needs `overrides` too: a
/// plugin never silently swaps out a built-in.
pub struct PluginContext<'a> {
    name: &'a str,
    registry: &'a ToolRegistry,
    may_override: bool,
    provenance: Provenance,
    added: Added,
    error: Option<PluginError>,
}

impl std::fmt::Debug for PluginContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginContext")
            .field("name", &self.name)
            .field("may_override", &self.may_override)
            .field("added", &self.added)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<'a> PluginContext<'a> {
    /// A context registering into `registry` for the plugin `name`, whose tools built with
    /// [`tool_builder`](Self::tool_builder) get `provenance`.
    pub(crate) fn new(
        name: &'a str,
        registry: &'a ToolRegistry,
        may_override: bool,
        provenance: Provenance,
    ) -> Self {
        Self {
            name,
            registry,
            may_override,
            provenance,
            added: Added::default(),
            error: None,
        }
    }

    /// The plugin's name.
    pub fn name(&self) -> &str {
        self.name
    }

    /// The first refusal, if a registration failed (the plugin will be reported as failed).
    pub fn error(&self) -> Option<&PluginError> {
        self.error.as_ref()
    }

    /// A [`Tool::builder`] whose provenance is this plugin (shown by `list`).
    pub fn tool_builder(
        &self,
        name: impl Into<Arc<str>>,
        toolset: impl Into<Arc<str>>,
    ) -> ToolBuilder {
        Tool::builder(name, toolset).provenance(self.provenance.clone())
    }

    /// Registers a tool (see the [type docs](Self) for when it may replace another).
    pub fn register_tool(&mut self, tool: Tool) -> &mut Self {
        if self.error.is_none()
            && let Err(err) = self.try_register_tool(tool)
        {
            tracing::warn!(plugin = self.name, error = %err, "plugin tool refused");
            self.error = Some(err);
        }
        self
    }

    fn try_register_tool(&mut self, tool: Tool) -> Result<(), PluginError> {
        let name = tool.name().to_owned();
        if tool.overrides() && !self.may_override {
            return Err(PluginError::OverrideNotAllowed {
                plugin: self.name.to_owned(),
                tool: name,
            });
        }
        let own = self.added.tools.iter().position(|added| added.name == name);
        if own.is_none()
            && !tool.overrides()
            && let Some(existing) = self.registry.get(&name)
        {
            return Err(PluginError::WouldReplace {
                plugin: self.name.to_owned(),
                tool: name,
                existing_toolset: existing.toolset().to_owned(),
                existing: existing.provenance().to_string(),
            });
        }
        let tool = Arc::new(tool);
        let replaced = self
            .registry
            .register(Arc::clone(&tool))
            .map_err(|source| PluginError::Register {
                plugin: self.name.to_owned(),
                source,
            })?;
        let entry = Some(tool);
        match own {
            // Replacing its own tool: what it first replaced is still what to restore.
            Some(index) => self.added.tools[index].entry = entry,
            None => self.added.tools.push(AddedTool {
                name,
                entry,
                replaced,
            }),
        }
        Ok(())
    }

    /// Registers a composite toolset; one of that name must not exist yet.
    pub fn register_toolset(&mut self, composite: Composite) -> &mut Self {
        if self.error.is_some() {
            return self;
        }
        if self
            .registry
            .snapshot()
            .composites()
            .contains_key(&composite.name)
        {
            let err = PluginError::ToolsetExists {
                plugin: self.name.to_owned(),
                toolset: composite.name,
            };
            tracing::warn!(plugin = self.name, error = %err, "plugin toolset refused");
            self.error = Some(err);
            return self;
        }
        if let Err(source) = self.registry.register_toolset(composite.clone()) {
            self.error = Some(PluginError::Register {
                plugin: self.name.to_owned(),
                source,
            });
            return self;
        }
        self.added.toolsets.push(composite);
        self
    }

    /// Adds a pre-call hook owned by the plugin (see [`crate::hooks`]).
    pub fn add_pre_call(
        &mut self,
        hook: impl Fn(&PendingCall<'_>) -> Option<Directive> + Send + Sync + 'static,
    ) -> &mut Self {
        if self.error.is_none() {
            let id = self.registry.hooks().add_pre_call(Some(self.name), hook);
            self.added.hooks.push((id, HookKind::PreCall));
        }
        self
    }

    /// Adds a post-call hook owned by the plugin.
    pub fn add_post_call(
        &mut self,
        hook: impl Fn(&CallRecord<'_>) + Send + Sync + 'static,
    ) -> &mut Self {
        if self.error.is_none() {
            let id = self.registry.hooks().add_post_call(Some(self.name), hook);
            self.added.hooks.push((id, HookKind::PostCall));
        }
        self
    }

    /// Adds a result transform owned by the plugin.
    pub fn add_transform(
        &mut self,
        hook: impl Fn(&CallRecord<'_>) -> Option<String> + Send + Sync + 'static,
    ) -> &mut Self {
        if self.error.is_none() {
            let id = self.registry.hooks().add_transform(Some(self.name), hook);
            self.added.hooks.push((id, HookKind::Transform));
        }
        self
    }

    /// Ends registration: what was added, or the refusal with everything rolled back.
    pub(crate) fn finish(self) -> Result<Added, PluginError> {
        match self.error {
            None => Ok(self.added),
            Some(err) => {
                self.added.remove_from(self.registry);
                Err(err)
            }
        }
    }

    /// Rolls back everything added so far (after a panic in the register function).
    pub(crate) fn abandon(self) {
        self.added.remove_from(self.registry);
    }
}
