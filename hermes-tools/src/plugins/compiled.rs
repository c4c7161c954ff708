//! Compiled plugins: a `#[plugin]` function, collected at link time into [`PLUGINS`].
//!
//! Being linked does not load a plugin: the [`PluginManager`](super::PluginManager) calls
//! its register function only when the operator enables it by name.

use linkme::distributed_slice;

use super::PluginContext;
use crate::tool::Provenance;

/// The static declaration of a compiled plugin, written by [`#[plugin]`](macro@crate::plugin).
///
/// `#[plugin] fn foo` also names it `FOO_PLUGIN`, with the function's visibility.
#[derive(Debug)]
pub struct PluginDecl {
    /// The plugin's name, as `plugins.enabled` names it (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: &'static str,
    /// What the plugin does: the register function's doc comment.
    pub description: &'static str,
    /// Registers the plugin's tools, hooks and toolsets through the context.
    pub register: fn(&mut PluginContext<'_>),
    /// Where the register function is declared.
    pub provenance: Provenance,
}

/// Every compiled plugin declared with [`#[plugin]`](macro@crate::plugin) in the linked crates.
///
/// Linked is not loaded: see [`PluginManager`](super::PluginManager).
#[distributed_slice]
pub static PLUGINS: [PluginDecl];
