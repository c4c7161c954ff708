//! The tool the MCP benches call (`benches/mcp.rs`), declared both ways: ours with `#[tool]`
//! ([`registry`]), `rmcp`'s with `#[tool_router]` ([`RmcpServer`]). The `add-server` and
//! `rmcp-add-server` binaries serve them over stdio, so the stdio bench spawns the same tools
//! the in-memory bench calls in process.
//!
//! Both are `add` (sync) and `add_async` (async), taking integers `a` and `b` and answering
//! their sum as text: `"42"` for 40 and 2.

use hermes_tools::{ToolRegistry, tool, tool::Tool};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool_router;

/// Add two integers.
#[tool(toolset = "bench", unlisted)]
pub fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Add two integers, asynchronously.
#[tool(toolset = "bench", unlisted)]
pub async fn add_async(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// A registry with exactly the two bench tools (they are `unlisted`: no binary linking this
/// crate sees them in its global registry).
pub fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    for decl in [&ADD_TOOL, &ADD_ASYNC_TOOL] {
        registry
            .register(Tool::from_decl(decl))
            .expect("a fresh registry takes the bench tools");
    }
    registry
}

/// `rmcp`'s arguments for the same tool.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct AddArgs {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

/// The same two tools as an `rmcp` `#[tool_router]` server.
#[derive(Clone, Debug)]
pub struct RmcpServer;

#[tool_router(server_handler)]
impl RmcpServer {
    #[rmcp::tool(name = "add", description = "Add two integers.")]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }

    #[rmcp::tool(name = "add_async", description = "Add two integers, asynchronously.")]
    async fn add_async(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }
}
