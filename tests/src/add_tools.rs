//! The tool the MCP benches call (`benches/mcp.rs`), declared both ways: ours with `#[tool]`
//! ([`registry`]), `rmcp`'s with `#[tool_router]` ([`RmcpServer`]). The `add-server` and
//! `rmcp-add-server` binaries serve them over stdio, so the stdio bench spawns the same tools
//! the in-memory bench calls in process.
//!
//! Both are `add` (sync) and `add_async` (async), taking integers `a` and `b` and answering
//! their sum as text: `"42"` for 40 and 2.

use hermes_tools::call::{Elicitation, ElicitationReply};
use hermes_tools::{ToolContext, ToolRegistry, tool, tool::Tool};
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

/// Add `a` to the `b` the caller's user gives when asked: one question, so over MCP's
/// 2026-07-28 era one Multi Round-Trip Request (the MRTR bench's tool).
#[tool(toolset = "bench", unlisted)]
pub async fn add_asked(
    /// The first addend.
    a: i64,
    ctx: &ToolContext,
) -> Result<i64, String> {
    let form = serde_json::json!({
        "type": "object",
        "properties": {"b": {"type": "integer"}},
        "required": ["b"],
    });
    match ctx
        .elicit(Elicitation::new("The second addend?", form))
        .await
    {
        Ok(ElicitationReply::Accept(values)) => values
            .get("b")
            .and_then(serde_json::Value::as_i64)
            .map(|b| a + b)
            .ok_or_else(|| "the answer has no integer `b`".to_owned()),
        Ok(_) => Err("the user did not answer".to_owned()),
        Err(err) => Err(err.to_string()),
    }
}

/// A registry with exactly the bench tools (they are `unlisted`: no binary linking this
/// crate sees them in its global registry).
pub fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    for decl in [&ADD_TOOL, &ADD_ASYNC_TOOL, &ADD_ASKED_TOOL] {
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
