//! The life of one server's connection: reach it (start its process, see [`super::stdio`], or
//! connect over HTTP, see [`super::remote`]), initialise, list and register its tools, refresh
//! them on `notifications/tools/list_changed`, notice when the connection ends, and connect
//! again with exponential backoff.
//!
//! A server whose *first* connection fails is reported `Failed` and left alone: its command,
//! URL or configuration is wrong, and retrying would only delay the agent; its tools go. A
//! server that ran and then was lost is reached again, forever, at the backoff's pace (no
//! jitter: each client has its own connection, so there is no crowd of clients to spread out).
//! Its tools stay registered meanwhile, so nobody is told "unknown tool" for a tool that is
//! coming back (a call answers when to retry, see [`Server::set_reconnecting`]), and the new
//! connection's listing replaces them tool by tool: the same tools back change nothing, not
//! even the registry's generation, so no `list_changed` reaches the clients of `serve`.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{oneshot, watch};

use super::ServerState;
use super::upstream::{Listing, Server};
use rmcp::model::ClientRequest;
use rmcp::service::RoleClient;

use super::session::{Failure, Handler, Lifecycle, Running};
use super::utility::Utility;
use crate::ToolRegistry;
use crate::config::McpTransport;
use crate::secrets;

/// How long a stopping connection may take to close before it is dropped (and killed).
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// The pace of reconnection: `initial`, doubling up to `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// The wait before the first reconnection attempt.
    pub initial: Duration,
    /// The longest wait between attempts.
    pub max: Duration,
}

impl Default for Backoff {
    /// 1 s, doubling to 60 s.
    fn default() -> Self {
        Self {
            initial: Duration::from_secs(1),
            max: Duration::from_secs(60),
        }
    }
}

impl Backoff {
    /// The wait before attempt `attempt` (0 for the first).
    pub fn delay(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX);
        self.initial.saturating_mul(factor).min(self.max)
    }
}

/// Runs one server until `stop` says so (or its sender is dropped). `first` is answered once
/// the first attempt has settled, with the tools registered or the failure recorded.
pub(crate) async fn supervise(
    server: Arc<Server>,
    registry: ToolRegistry,
    backoff: Backoff,
    mut stop: watch::Receiver<bool>,
    first: oneshot::Sender<()>,
) {
    let mut first = Some(first);
    let mut attempt: u32 = 0;
    loop {
        let began = tokio::time::Instant::now();
        let connected = tokio::select! {
            connected = connect(&server) => connected,
            () = stopped(&mut stop) => break,
        };
        let ended = match connected {
            Ok(running) => serve(&server, &registry, running, began, &mut stop, &mut first).await,
            Err(reason) => Ended::Failed(reason),
        };
        let reason = match ended.redacted() {
            Ended::Stopped => break,
            Ended::Resting(reason) => {
                // Its tools stay; the first call wakes it, and it is started at once.
                tracing::info!(server = %server.name, %reason, "MCP server resting");
                tokio::select! {
                    () = server.activity.woken() => {}
                    () = stopped(&mut stop) => break,
                }
                attempt = 0;
                continue;
            }
            Ended::Lost(reason) => {
                // It ran: the next attempt starts the backoff afresh.
                attempt = 0;
                tracing::warn!(server = %server.name, %reason, "MCP server lost; reconnecting");
                reason
            }
            Ended::Failed(reason) if first.is_some() => {
                tracing::warn!(server = %server.name, %reason, "MCP server failed to start");
                server.set_state(&registry, ServerState::Failed { reason });
                server.deregister_all(&registry);
                settle(&mut first);
                return;
            }
            Ended::Failed(reason) => {
                tracing::warn!(server = %server.name, %reason, attempt, "MCP server reconnection failed");
                reason
            }
        };
        let delay = backoff.delay(attempt);
        attempt = attempt.saturating_add(1);
        // Its tools stay: a call of one is told the server is reconnecting and when to retry.
        server.set_reconnecting(&registry, attempt, reason, delay);
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = stopped(&mut stop) => break,
        }
    }
    server.set_peer(None);
    server.deregister_all(&registry);
    settle(&mut first);
}

/// How a connection (or an attempt at one) ended.
enum Ended {
    /// Told to stop.
    Stopped,
    /// It ran, then the connection closed.
    Lost(String),
    /// It never got to serve tools.
    Failed(String),
    /// It was closed to rest (see `super::rest`).
    Resting(String),
}

impl Ended {
    /// The same end with credentials in its reason redacted: reasons reach logs and `list`.
    fn redacted(self) -> Self {
        match self {
            Ended::Stopped => Ended::Stopped,
            Ended::Lost(reason) => Ended::Lost(redacted(reason)),
            Ended::Failed(reason) => Ended::Failed(redacted(reason)),
            Ended::Resting(reason) => Ended::Resting(reason),
        }
    }
}

fn settle(first: &mut Option<oneshot::Sender<()>>) {
    if let Some(first) = first.take() {
        let _ = first.send(());
    }
}

async fn stopped(stop: &mut watch::Receiver<bool>) {
    // A dropped sender (the clients dropped) is a stop too.
    let _ = stop.wait_for(|stop| *stop).await;
}

/// Serves one established connection until it closes or `stop`.
async fn serve(
    server: &Arc<Server>,
    registry: &ToolRegistry,
    running: Running,
    began: tokio::time::Instant,
    stop: &mut watch::Receiver<bool>,
    first: &mut Option<oneshot::Sender<()>>,
) -> Ended {
    let peer = running.peer().clone();
    server.set_peer(Some(peer.clone()));
    let listing = tokio::select! {
        listing = list_tools(server, &peer) => Some(listing),
        () = stopped(stop) => None,
    };
    // When the listing's `ttlMs` lapses, it is listed again (by this timer, so that the
    // registry, which the model reads tool definitions from, is never staler than the hint).
    let mut relist_at = None;
    let failed = match listing {
        Some(Ok(listed)) => {
            relist_at = lapse(&listed);
            server.apply_listing(registry, listed);
            server.connected_in(began.elapsed());
            None
        }
        Some(Err(reason)) => Some(Ended::Failed(reason)),
        None => Some(Ended::Stopped),
    };
    if let Some(ended) = failed {
        server.set_peer(None);
        let mut running = running;
        let _ = running.close_with_timeout(CLOSE_TIMEOUT).await;
        return ended;
    }
    // A fresh connection is a fresh start for the breaker.
    server.breaker.record_success();
    settle(first);
    let cancel = running.cancellation_token();
    let closed = running.waiting();
    tokio::pin!(closed);
    let keepalive = server.config.keepalive_secs;
    let period = Duration::from_secs(keepalive.max(1));
    let mut pings = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    let connected_at = tokio::time::Instant::now();
    pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            reason = server.activity.rest_when_due(server.rest_policy(), connected_at, |reason| {
                // Marked resting at once: a call from now on wakes it, none finds it "lost".
                server.set_peer(None);
                server.set_state(registry, ServerState::Resting { reason: reason.to_owned() });
            }) => {
                cancel.cancel();
                let _ = tokio::time::timeout(CLOSE_TIMEOUT, &mut closed).await;
                return Ended::Resting(reason);
            }
            // A connection can die without closing (a remote server gone, a server hung): a
            // ping that goes unanswered ends it, and the server is reached again.
            _ = pings.tick(), if keepalive > 0 => {
                // A connection with a call in flight is not idle: a server busy with a long
                // call may not answer a ping, and that says nothing about the connection.
                if server.activity.busy() {
                    continue;
                }
                let ping = peer.send_request(ClientRequest::PingRequest(Default::default()));
                let failure = match tokio::time::timeout(period, ping).await {
                    Ok(Ok(_)) => continue,
                    // Any answer shows the server alive: a server of the 2026-07-28 era, which
                    // has no `ping`, answers method not found (rmcp's does).
                    Ok(Err(rmcp::service::ServiceError::McpError(_))) => continue,
                    Err(_) if server.activity.busy() => continue,
                    Ok(Err(err)) => err.to_string(),
                    Err(_) => "no answer".to_owned(),
                };
                server.set_peer(None);
                cancel.cancel();
                let _ = tokio::time::timeout(CLOSE_TIMEOUT, &mut closed).await;
                return Ended::Lost(format!(
                    "it did not answer a keepalive ping within {keepalive} s ({failure})"
                ));
            }
            quit = &mut closed => {
                server.set_peer(None);
                return Ended::Lost(format!("the connection closed ({})", match quit {
                    Ok(reason) => format!("{reason:?}"),
                    Err(join) => join.to_string(),
                }));
            }
            () = relist(relist_at) => {
                // A failed re-listing is not tried again until the next list change.
                relist_at = list_again(server, registry, &peer, "re-listing after its ttlMs")
                    .await
                    .unwrap_or(None);
            }
            () = server.refresh.notified() => {
                server.count_refresh();
                // A dead server also fails here; `closed` says so on the next turn.
                if let Ok(next) = list_again(server, registry, &peer, "refresh").await {
                    relist_at = next;
                }
            }
            () = stopped(stop) => {
                server.set_peer(None);
                cancel.cancel();
                let _ = tokio::time::timeout(CLOSE_TIMEOUT, &mut closed).await;
                return Ended::Stopped;
            }
        }
    }
}

/// When `listed` lapses (its `ttlMs`; none without one, or with 0: then only a list change
/// makes the client list again).
fn lapse(listed: &Listing) -> Option<tokio::time::Instant> {
    // rmcp keeps the listing in its response cache until its `ttlMs` is over and reports the
    // time left in whole milliseconds, rounded down: a timer at exactly that mark can fire
    // under a millisecond before the cache lets go, and get the cached listing back with no
    // time left (so no next lapse, and no more re-listing). One millisecond more is past it.
    listed
        .fresh_for
        .map(|ttl| tokio::time::Instant::now() + ttl + Duration::from_millis(1))
}

/// Lists `server`'s tools again and applies the listing: when it lapses next, or `Err` (logged
/// as `what` failing) when the server could not list them.
async fn list_again(
    server: &Arc<Server>,
    registry: &ToolRegistry,
    peer: &rmcp::Peer<RoleClient>,
    what: &str,
) -> Result<Option<tokio::time::Instant>, ()> {
    match list_tools(server, peer).await {
        Ok(listed) => {
            let next = lapse(&listed);
            server.apply_listing(registry, listed);
            Ok(next)
        }
        Err(reason) => {
            tracing::warn!(
                server = %server.name,
                reason = %crate::secrets::redact(&reason),
                "MCP tool {what} failed"
            );
            Err(())
        }
    }
}

/// Waits until `at`, or forever without it.
async fn relist(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The server's tools and the utilities it calls for, within `connect_timeout_secs`.
async fn list_tools(server: &Server, peer: &rmcp::Peer<RoleClient>) -> Result<Listing, String> {
    let limit = Duration::from_secs(server.config.connect_timeout_secs);
    let listing = async {
        let tools = peer.list_all_tools_with_cache_hint().await?;
        let utilities = Utility::offered(peer).await;
        let fresh_for = tools
            .ttl_ms
            .filter(|ttl| *ttl > 0)
            .map(Duration::from_millis);
        Ok::<_, rmcp::service::ServiceError>(Listing {
            tools: tools.items,
            utilities,
            fresh_for,
        })
    };
    match tokio::time::timeout(limit, listing).await {
        Ok(Ok(listing)) => Ok(listing),
        Ok(Err(err)) => Err(format!("listing its tools failed: {err}")),
        Err(_) => Err(format!("listing its tools took over {} s", limit.as_secs())),
    }
}

/// Reaches the server over its transport and begins the MCP session in the era its
/// `protocol` asks for (see [`Lifecycle`]), within `connect_timeout_secs`: under `auto`, a
/// server whose `server/discover` names only versions with a handshake is reached again
/// through `initialize` (a new process, for a stdio server).
async fn connect(server: &Arc<Server>) -> Result<Running, String> {
    let lifecycle = Lifecycle::of(&server.config);
    let running = match connect_in(server, &lifecycle).await {
        Err(failure) if failure.wants_handshake => {
            tracing::info!(server = %server.name, reason = %redacted(failure.reason), "MCP server speaks only versions with a handshake; reaching it through `initialize`");
            connect_in(server, &Lifecycle::handshake()).await
        }
        other => other,
    }
    .map_err(|failure| failure.reason)?;
    server.set_era(super::session::era(&running));
    Ok(running)
}

/// One attempt of [`connect`].
async fn connect_in(server: &Arc<Server>, lifecycle: &Lifecycle) -> Result<Running, Failure> {
    let handler = Handler::new(
        &server.refresh,
        &server.answerers,
        &server.progress,
        server.config.protocol_version.as_deref(),
    );
    let limit = Duration::from_secs(server.config.connect_timeout_secs);
    match &server.config.transport {
        McpTransport::Stdio { command, args, env } => {
            let (name, endpoint) = (&server.name, &server.endpoint);
            super::stdio::connect(
                name, endpoint, handler, lifecycle, limit, command, args, env,
            )
            .await
        }
        McpTransport::Http { url, headers } => {
            let oauth = server.oauth.as_ref();
            super::remote::connect((handler, lifecycle), limit, url, headers, false, oauth).await
        }
        McpTransport::Sse { url, headers } => {
            super::remote::connect((handler, lifecycle), limit, url, headers, true, None).await
        }
    }
}

fn redacted(text: String) -> String {
    secrets::redact(&text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_its_cap() {
        let backoff = Backoff::default();
        let secs: Vec<u64> = (0..9).map(|n| backoff.delay(n).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(backoff.delay(u32::MAX), Duration::from_secs(60));
    }
}
