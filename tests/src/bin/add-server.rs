//! The CLI over the MCP bench's two tools (`add` and `add_async`, see
//! [`hermes_tools_tests::add_tools`]), for the `mcp_stdio` group of `benches/mcp.rs`: run as
//! `add-server serve`, it is our `serve` over stdio as an MCP host spawns it, the peer of
//! `rmcp-add-server`.

use std::process::ExitCode;

fn main() -> ExitCode {
    hermes_tools::cli::Cli::new()
        .registry(hermes_tools_tests::add_tools::registry())
        .run()
}
