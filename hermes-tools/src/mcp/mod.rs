//! MCP both ways (feature `mcp`, built on the official Rust SDK, `rmcp`).
//!
//! - [`client`]: the tools of MCP servers listed in the config become toolsets `mcp-<server>`;
//! - [`server`]: the registry served over MCP, on stdio or Streamable HTTP.

pub mod client;
pub mod server;

use std::ops::Deref;
use std::sync::Arc;

use crate::ToolRegistry;

/// A registry MCP works with: the global one (or any leaked one), or one shared with an `Arc`.
#[derive(Clone, Debug)]
pub enum RegistryRef {
    /// A registry that lives for the whole program, such as [`ToolRegistry::global`].
    Static(&'static ToolRegistry),
    /// A registry shared by reference counting (tests, embedding).
    Shared(Arc<ToolRegistry>),
}

impl Deref for RegistryRef {
    type Target = ToolRegistry;

    fn deref(&self) -> &ToolRegistry {
        match self {
            RegistryRef::Static(registry) => registry,
            RegistryRef::Shared(registry) => registry,
        }
    }
}

impl From<&'static ToolRegistry> for RegistryRef {
    fn from(registry: &'static ToolRegistry) -> Self {
        RegistryRef::Static(registry)
    }
}

impl From<Arc<ToolRegistry>> for RegistryRef {
    fn from(registry: Arc<ToolRegistry>) -> Self {
        RegistryRef::Shared(registry)
    }
}
