//! MCP, the Model Context Protocol, both ways.
//!
//! - [`resources`] and [`prompts`]: what `#[resource]` and `#[prompt]` declare beside the
//!   tools, for an MCP client to read and fetch. Always compiled, so a library of tools declares
//!   them without the `mcp` feature; the binary that serves them turns it on.
//! - [`client`] (feature `mcp`): the tools of MCP servers listed in the config become toolsets
//!   `mcp-<server>`;
//! - [`server`] (feature `mcp`): the registry served over MCP, on stdio or Streamable HTTP.
//!
//! Both are built on the official Rust SDK, `rmcp`.

#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod client;
pub mod prompts;
pub mod resources;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod server;
