//! `serve`'s task flags, applied to the server (see
//! [Tasks](crate::mcp::server::tasks)).

use std::time::Duration;

use super::ServeFlags;
use crate::mcp::server::ToolServer;

/// `server` with the task threshold, TTL and lease the flags set (the defaults otherwise).
pub(super) fn configure(mut server: ToolServer, flags: &ServeFlags) -> ToolServer {
    if let Some(secs) = flags.task_after_secs {
        server = server.task_after(Duration::from_secs(secs));
    }
    if let Some(secs) = flags.task_ttl_secs {
        server = server.task_ttl(Duration::from_secs(secs));
    }
    if let Some(secs) = flags.task_lease_secs {
        server = server.task_lease(Duration::from_secs(secs));
    }
    server
}
