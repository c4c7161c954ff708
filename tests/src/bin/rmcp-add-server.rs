//! `rmcp`'s own `#[tool_router]` server over stdio with the MCP bench's two tools (`add` and
//! `add_async`, see [`hermes_tools_tests::add_tools::RmcpServer`]), for the `mcp_stdio` group
//! of `benches/mcp.rs`: the peer of `add-server serve`, served the way `rmcp` documents
//! (`rmcp::transport::stdio()`), or with `rmcp::transport::stdio_pipes()` (the non-blocking
//! pipe transport our `serve_stdio` uses) when run as `rmcp-add-server pipes`.

use std::process::ExitCode;

use hermes_tools_tests::add_tools::RmcpServer;
use rmcp::ServiceExt;

#[tokio::main]
async fn main() -> ExitCode {
    let served = if std::env::args().nth(1).as_deref() == Some("pipes") {
        RmcpServer.serve(rmcp::transport::stdio_pipes()).await
    } else {
        RmcpServer.serve(rmcp::transport::stdio()).await
    };
    let running = match served {
        Ok(running) => running,
        Err(err) => {
            eprintln!("error: the session did not begin: {err}");
            return ExitCode::FAILURE;
        }
    };
    match running.waiting().await {
        Ok(_) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
