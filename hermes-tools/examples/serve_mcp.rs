//! Serving a crate's tools over MCP on stdio, as an MCP host (Claude Desktop, an IDE, another
//! agent) spawns them: one JSON-RPC message a line on stdin and stdout, logs on stderr.
//!
//! ```sh
//! cargo build -p hermes-tools --features mcp --example serve_mcp
//! printf '%s\n' \
//!   '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}' \
//!   '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
//!   '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"roll","arguments":{"sides":"6","seed":3}}}' \
//!   | target/debug/examples/serve_mcp
//! ```
//!
//! The server ends when its client closes stdin. `example-tools serve` is the same server over
//! every tool that binary links, with `--http` for Streamable HTTP.

use std::process::ExitCode;

use hermes_tools::mcp::server::ToolServer;
use hermes_tools::{ToolContext, ToolRegistry, tool};

/// Roll a die: the same seed gives the same roll.
///
/// # Arguments
/// * `sides` - How many sides the die has.
/// * `seed` - Picks the roll.
#[tool(toolset = "dice", emoji = "🎲", read_only)]
fn roll(#[arg(minimum = 2, maximum = 120)] sides: u32, seed: u64) -> serde_json::Value {
    // A fixed mix of the seed, enough for a demonstration (not for a game of chance).
    let roll = seed.wrapping_mul(6_364_136_223_846_793_005).rotate_left(17) % u64::from(sides) + 1;
    serde_json::json!({ "sides": sides, "roll": roll })
}

#[tokio::main]
async fn main() -> ExitCode {
    let server = ToolServer::new(ToolRegistry::global())
        .context(ToolContext::new())
        .implementation("dice", env!("CARGO_PKG_VERSION"));
    match server.serve_stdio().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
