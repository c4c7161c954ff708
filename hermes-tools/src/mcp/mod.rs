//! MCP both ways (feature `mcp`, built on the official Rust SDK, `rmcp`).
//!
//! - [`client`]: the tools of MCP servers listed in the config become toolsets `mcp-<server>`;
//! - [`server`]: the registry served over MCP, on stdio or Streamable HTTP.

pub mod client;
pub mod server;
