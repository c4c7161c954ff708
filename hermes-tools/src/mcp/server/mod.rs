//! The registry served over MCP: every selected tool, called through the call pipeline.
//!
//! A [`ToolServer`] is an `rmcp` [`ServerHandler`](rmcp::ServerHandler) over a
//! [`ToolRegistry`]. Serve it on stdio (what MCP hosts spawn) or on Streamable HTTP, at a
//! loopback address, or at any address when every request must carry a bearer token
//! ([`require_bearer`](ToolServer::require_bearer)) or an OAuth access token
//! (`require_oauth`, feature `mcp-remote`):
//!
//! ```no_run
//! use std::time::Duration;
//! use hermes_tools::mcp::server::ToolServer;
//! use hermes_tools::{toolsets::Selection, ToolContext, ToolRegistry};
//!
//! struct Workspace(std::path::PathBuf);
//!
//! # async fn run() -> Result<(), hermes_tools::mcp::server::ServeError> {
//! let server = ToolServer::new(ToolRegistry::global())
//!     .context(ToolContext::new().with_extension(Workspace("/srv/project".into())))
//!     .selection(Selection { enabled: vec!["files".into()], disabled: vec![] })
//!     .session_idle_timeout(Duration::from_secs(600));
//! server.serve_stdio().await
//! # }
//! ```
//!
//! What a client sees:
//!
//! - `tools/list`: the [`Format::Mcp`] definitions of the selected, available tools (the same
//!   cached list an agent gets), each with the annotations of [`annotations`]; in the
//!   2026-07-28 era every list carries `cacheScope: "public"` (no list varies by caller) and
//!   `ttlMs` of [`list_ttl`](ToolServer::list_ttl) (`serve --list-ttl-secs`); a list longer
//!   than [`page_size`](ToolServer::page_size) (`serve --page-size`, [`DEFAULT_PAGE_SIZE`])
//!   comes in pages, each ending with an opaque `nextCursor` that is stable while the list
//!   does not change (one given before a change, or never given, is -32602 saying to list
//!   again from the start); the list is rendered once per change and shared by every session;
//! - `tools/call`: the call goes through [`ToolRegistry::call_with`], judged by the listing the
//!   client was given, so hooks, the approval gate, timeouts and answer budgets apply as
//!   in-process. An error answer is a result with `isError: true` (the model reads it and
//!   retries); a tool that is not listed is the JSON-RPC error -32602, naming the nearest listed
//!   tools; params that are not a `tools/call`'s (`"name": 5`) are -32602 saying what is wrong.
//!   A sync tool runs right on the session's async worker, as in `rmcp`'s own server (no
//!   `block_in_place`, whose core handoff costs more than most tools): a sync tool that may
//!   block for long declares `#[tool(blocking)]` and runs on the blocking pool under its timeout;
//! - `elicitation/create` and `sampling/createMessage` to the client, when a tool asks with
//!   [`ToolContext::elicit`](crate::ToolContext::elicit) or
//!   [`sample`](crate::ToolContext::sample) and the client offered the capability on its
//!   session (else the tool is told at once that nobody can be asked);
//! - `notifications/tools/list_changed` when the listing changes (a plugin loads, an MCP server
//!   refreshes, a config is installed), on sessions that began with `initialize` and on
//!   `subscriptions/listen` streams of the 2026-07-28 protocol;
//! - `notifications/resources/updated` when
//!   [`resources::updated`](crate::mcp::resources::updated) names a URI: to the sessions that
//!   subscribed to it with `resources/subscribe`, and to the `subscriptions/listen` streams
//!   whose `resourceSubscriptions` name it. A stream is acknowledged the URIs that name a
//!   resource (by its URI or a template's) and `toolsListChanged`; never
//!   `resourcesListChanged` or `promptsListChanged`, as what `#[resource]` and `#[prompt]`
//!   declare is fixed when the program is linked;
//! - `notifications/message` for what a tool logs ([`ToolContext::log`](crate::ToolContext::log)),
//!   before the call's answer: in a session of the `initialize` era, at or above the level its
//!   client set with `logging/setLevel` (`info` until it does); for a request of the 2026-07-28
//!   era, at or above the `io.modelcontextprotocol/logLevel` of that request's `_meta`, and none
//!   when it sets none, whatever a legacy client set (an unknown level is -32602, naming the
//!   levels);
//! - an answer to every message: text that is not JSON gets -32700, JSON that is not a message
//!   -32600, a message over [`max_message_bytes`](ToolServer::max_message_bytes) -32600 (with
//!   its id when it can be read), on stdio as on HTTP.
//!
//! # Sessions
//!
//! Every connection is a [`Session`] of its own: each stdio connection and each
//! Streamable HTTP session (each `Mcp-Session-Id`) gets a fresh session id (`mcp-…`, the
//! server's own: the HTTP session id is a client's key to its session and is not shown to
//! tools) and an empty session state, which tools read with
//! [`ToolContext::session_state`](crate::ToolContext::session_state). Two clients never see
//! each other's state (`todo` lists, say), and a session's state is dropped when it ends: the
//! client disconnects, sends DELETE, or stays idle past
//! [`session_idle_timeout`](ToolServer::session_idle_timeout). A request of the 2026-07-28
//! protocol over HTTP belongs to no session (that protocol has none), so a tool that keeps
//! session state refuses it and says why.
//!
//! A [`ToolServer`] value serves one connection: a clone shares the registry and the
//! configuration but starts a session of its own. [`serve_stdio`](ToolServer::serve_stdio) and
//! [`bind_http`](ToolServer::bind_http) take care of this.
//!
//! # Streamable HTTP
//!
//! `rmcp` runs the protocol and its sessions; in front of it, the endpoint checks what a
//! server reachable from a browser must, and answers every error with a JSON-RPC body:
//!
//! - with [`require_bearer`](ToolServer::require_bearer), `Authorization: Bearer` must carry
//!   an accepted token: otherwise 401 with a `WWW-Authenticate: Bearer` challenge;
//! - `Host` must name a loopback host (DNS rebinding; not checked with tokens, which a
//!   rebinding page cannot send), and `Origin`, when sent, must be a
//!   loopback origin or one allowed with [`allow_origins`](ToolServer::allow_origins):
//!   otherwise 403;
//! - a body that is not JSON is 400 with -32700, JSON that is not a message 400 with -32600, a
//!   body over [`max_message_bytes`](ToolServer::max_message_bytes) 413 with -32600;
//! - a session idle for [`session_idle_timeout`](ToolServer::session_idle_timeout) (30 minutes:
//!   no request, and none of its streams open, so a long call or an open GET stream keeps it)
//!   ends; at most [`max_sessions`](ToolServer::max_sessions) (1,000) live at once, and an
//!   `initialize` beyond that is **refused** (503, -32000, saying why) rather than evicting a
//!   session a client may still be using: the idle timeout frees the places of clients that
//!   left without a DELETE;
//! - DELETE of a session answers 204 (404 for an unknown one);
//! - at most [`max_connections`](ToolServer::max_connections) (1024) connections are served at
//!   once (one more: 503, -32000, `Retry-After`, closed), a connection that sends no request
//!   head within [`header_read_timeout`](ToolServer::header_read_timeout) (30 s; idle
//!   keep-alive connections too) is closed, and every socket has `TCP_NODELAY`.
//!
//! # Disconnects
//!
//! A client that disconnects mid-call (its connection drops before the answer) meets one rule,
//! bounded by the session idle timeout:
//!
//! - in a session (the `initialize` era) the call runs on, and its answer is kept for the
//!   client to resume the call's stream (a GET with `Last-Event-ID`, as after an SSE-polling
//!   close) until the session has been idle (no request, no stream open) for
//!   [`session_idle_timeout`](ToolServer::session_idle_timeout); then the session ends and
//!   the call is cancelled: its future is dropped, so the `terminal` tool's processes are
//!   killed;
//! - without a session (a request of the 2026-07-28 era) nobody can resume, so the call is
//!   cancelled as soon as the disconnect is seen (at once while the call is silent; on the next
//!   event or keep-alive, within 15 s, once its stream has begun), except a call that became a
//!   task, which runs on for its client to fetch (see [`tasks`]).
//!
//! # Agent-loop tools
//!
//! The tools only an agent loop may run ([`Config::agent_loop_tools`](crate::config::Config::agent_loop_tools):
//! `todo`, `memory`, `session_search`, `delegate_task`) are neither listed nor callable, unless
//! the operator opts in with [`ToolServer::agent_loop_tools`] (`serve --agent-loop-tools`): the
//! client is then the agent loop, and those tools keep their state per session as above.
//!
//! Both protocol eras are served: `rmcp` answers `server/discover` (which Python SDK 2.x clients
//! send first) and the `initialize` handshake alike.
//!
//! # Questions
//!
//! A tool asks with [`ToolContext::elicit`](crate::ToolContext::elicit) or
//! [`sample`](crate::ToolContext::sample); how the question reaches the caller depends on the
//! era of the request, never on the serving process (its terminal, its operator: a
//! [`Cli::operator_extension`](crate::cli::Cli::operator_extension) is not given to served
//! calls):
//!
//! - a session of the `initialize` era gets `elicitation/create` or `sampling/createMessage`
//!   on the call's own stream, if its client declared the capability;
//! - a request of the 2026-07-28 era gets a Multi Round-Trip Request: the call answers
//!   `resultType: "input_required"` with the questions (only of the kinds the request's
//!   `clientCapabilities` declare) and a sealed `requestState`, and the client's retry with
//!   `inputResponses` **runs the tool again**, its questions answered in order. Work a tool
//!   does before its question runs once per round, so keep it idempotent, and return on a
//!   failed question (`?`). The state is sealed with HMAC-SHA256 under
//!   [`request_state_keys`](ToolServer::request_state_keys) (`serve` reads
//!   `HERMES_MCP_STATE_KEYS`: `id=secret` pairs, the first sealing, the others still accepted,
//!   for rotation), bound to the tool and its arguments, and accepted for
//!   [`request_state_ttl`](ToolServer::request_state_ttl); a forged, altered, foreign or expired
//!   state is refused with -32602 saying to start over. Replicas that share the keys open each
//!   other's states, so a retry may land on any of them. A question is named in
//!   `inputRequests` by its position (`q0`, `q1`...) unless the tool names it
//!   ([`Elicitation::with_key`](crate::call::Elicitation::with_key)). A call that failed
//!   because its tool asked for what the request did not declare answers -32021 (missing
//!   required client capability, HTTP 400) with `requiredCapabilities` naming it; a tool that
//!   did without (it checked [`can_sample`](crate::ToolContext::can_sample)) answers as usual.
//!
//! The methods the 2026-07-28 era removed (`initialize`, `ping`, `logging/setLevel`,
//! `resources/subscribe`, `resources/unsubscribe`) answer a request of that era -32601
//! (HTTP 404); sessions of the `initialize` era keep them.
//!
//! # Tasks
//!
//! The tasks extension (`io.modelcontextprotocol/tasks`) is advertised in `server/discover` and
//! `initialize`. A 2026-07-28 request whose `_meta` declares it may be answered with a task
//! handle (`resultType: "task"`) instead of the result, which the client then polls with
//! `tasks/get`; the [`tasks`] module has the details. What a **tool author** must know:
//!
//! - a call becomes a task when it outlives [`task_after`](ToolServer::task_after) (10 s), at
//!   once for a tool declared `#[tool(task)]` ([`ToolBuilder::task`](crate::tool::ToolBuilder::task)),
//!   or at its first question: inside a task, [`elicit`](crate::ToolContext::elicit) and
//!   [`sample`](crate::ToolContext::sample) wait for the client's `tasks/update` (the call is
//!   suspended, **not** run again as in a Multi Round-Trip Request), or where it calls
//!   [`become_task`](crate::ToolContext::become_task); a tool declared
//!   [`asks_before_task`](crate::tool::ToolBuilder::asks_before_task) asks through Multi
//!   Round-Trip Requests until `become_task` (re-run per round), and the retry that answers
//!   them gets the task handle;
//! - [`progress`](crate::ToolContext::progress) reports become the task's `statusMessage` (the
//!   latest, written at most every 250 ms); log messages are not kept;
//! - `tasks/cancel` drops the call, as a client's cancellation always did: an async tool stops
//!   at its next await and `terminal`'s processes are killed; a `blocking` tool finishes
//!   unobserved.
//!
//! What an **operator** must know: a task runs in the process that started it, whatever
//! becomes of the client (it may come back over a new connection, and fetch the result until
//! [`task_ttl`](ToolServer::task_ttl), an hour, after the task's creation; then its id is
//! -32602). `serve` sets them with `--task-after-secs`, `--task-ttl-secs` and
//! `--task-lease-secs`. Tasks live in this process's memory unless
//! [`task_store`](ToolServer::task_store) shares a [`TaskStore`](tasks::TaskStore) among
//! replicas (`serve --store` shares Redis: see [Fleet](self#fleet)), any of which then answers `tasks/get`, `tasks/update` and `tasks/cancel`; a task
//! whose process died is reported `failed`, saying so, once its
//! [lease](ToolServer::task_lease) (15 s) lapsed.
//!
//! # Fleet
//!
//! `serve --http` runs as several replicas behind a load balancer (round robin; no affinity
//! needed), each given the same tools, tokens and `HERMES_MCP_STATE_KEYS`, and, with feature
//! `mcp-redis`, the same Redis (`ToolServer::shared_store`; `serve --store`):
//!
//! ```text
//!                                  ┌─ serve --http 10.0.0.11:8080 --store redis://10.0.0.7:6379/0 --replica-id a
//! clients ── TLS, round robin ─────┼─ serve --http 10.0.0.12:8080 --store redis://10.0.0.7:6379/0 --replica-id b
//!            (HAProxy, nginx)      └─ serve --http 10.0.0.13:8080 --store redis://10.0.0.7:6379/0 --replica-id c
//! ```
//!
//! What crosses replicas, and how:
//!
//! - **requests of the 2026-07-28 era** belong to no session: any replica answers any. A
//!   tool's question travels in the sealed `requestState` the client sends back (see
//!   [Questions](self#questions)), which every replica holding the same keys opens: nothing is
//!   stored, so the retry may reach another replica;
//! - **sessions of the `initialize` era**, with a store: `rmcp` writes each session's
//!   `initialize` parameters at `<prefix>session:<id>` (prefix `hermes:mcp:` unless
//!   `--store-prefix`; `RedisSessionStore`), kept for the
//!   [idle timeout](ToolServer::session_idle_timeout) after the session's last request on any
//!   replica; a replica asked about a session it does not hold replays that `initialize` and
//!   serves the request. A DELETE on any replica ends the session in the store;
//! - **tasks**, with a store: each task's record (status, progress, questions and answers,
//!   result) is kept at `<prefix>task:<id>` until its [TTL](ToolServer::task_ttl) ends
//!   (`RedisTaskStore`), so `tasks/get`, `tasks/update` and `tasks/cancel` may reach any
//!   replica. The call itself runs on the replica that started it, which renews its
//!   [lease](ToolServer::task_lease) in the record, takes answers and sees a cancel from it
//!   (within a second); if that replica dies, the first replica to read the task after the
//!   lease lapsed reports it `failed`, naming the dead owner, and stores that.
//!
//! What stays in one replica's memory:
//!
//! - a session's **tool state** ([`ToolContext::session_state`](crate::ToolContext::session_state)):
//!   a session continued on another replica gets a session of its own there (another `mcp-…`
//!   id, an empty state). So [`agent_loop_tools`](ToolServer::agent_loop_tools), whose state
//!   (a todo list, memory) would silently start over, are refused with a store
//!   (`ServeError::AgentLoopToolsInFleet`; `--agent-loop-tools` conflicts with `--store`);
//! - **questions of the `initialize` era** (`elicitation/create` on a call's stream): the
//!   client's answer is a POST the balancer may send to another replica, where nobody waits for
//!   it. Serve those clients with session affinity (HAProxy: `stick on hdr(mcp-session-id)`), or
//!   let them speak the 2026-07-28 era;
//! - a call's stream closed by its tool (SSE polling), resumed with `Last-Event-ID`: only on
//!   the replica that ran it;
//! - [`max_sessions`](ToolServer::max_sessions) counts per replica, and a session's owner
//!   (bearer or OAuth, see [Streamable HTTP](self#streamable-http)) is checked by the replica
//!   that opened it: behind tokens, give a fleet the affinity above, or one identity.
//!
//! Redis must answer when a replica starts: otherwise `serve` refuses to serve, naming the
//! address. Later, each store command is bounded by the store's timeout (2 s; `--store-timeout-ms`):
//! a request that needs the store while it fails (a session this replica does not hold, a new
//! session, any task) is answered with a JSON-RPC error saying so, never left waiting; sessions
//! a replica holds and other requests of the 2026-07-28 era go on being served. The connection comes back by
//! itself when Redis does (an empty Redis has lost the sessions: their clients start new
//! ones). `--replica-id NAME` names the replica in a `Hermes-Replica` header on every answer.
//! The store speaks plain TCP: keep Redis beside the replicas (a password goes in the URL,
//! `redis://:password@host:port/db`, and is never shown).

use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::Implementation;
use rmcp::service::ServerInitializeError;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::DefinitionsRequest;
use crate::ToolRegistry;
use crate::call::pipeline::CallOptions;
use crate::definitions::formats::Format;
use crate::search::Deferral;
use crate::toolsets::{Selection, SelectionError};
use crate::{ToolContext, call::Session};

mod ask;
mod call;
mod content;
mod convert;
mod handler;
mod http;
mod jsonrpc;
mod listing;
mod mrtr;
mod pages;
mod session;
mod stdio;
#[cfg(feature = "mcp-redis")]
pub mod store;
pub mod tasks;
mod watch;

pub use convert::annotations;
pub use http::HttpEndpoint;
pub use http::bearer::{BearerError, BearerTokens, MIN_TOKEN_CHARS};
#[cfg(feature = "mcp-remote")]
pub use http::oauth::{OAuthResourceConfig, ResourceServerError};
pub use http::origin::InvalidOrigin;
use listing::Listing;
pub use mrtr::{
    DEFAULT_REQUEST_STATE_TTL, REQUEST_STATE_KEYS_ENV, RequestStateKeys, RequestStateKeysError,
};
pub use pages::DEFAULT_PAGE_SIZE;
#[cfg(feature = "mcp-redis")]
pub use store::{
    DEFAULT_KEY_PREFIX, DEFAULT_STORE_TIMEOUT, RedisSessionStore, RedisStore, RedisStoreConfig,
    RedisTaskStore, StoreError,
};

/// How often a server looks for a changed listing (once for all its sessions), unless set with
/// [`ToolServer::poll_interval`].
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(250);

/// The longest message read, unless set with [`ToolServer::max_message_bytes`]: 16 MiB, as
/// `rmcp` (and its HTTP client's largest event).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The smallest limit [`ToolServer::max_message_bytes`] takes (an `initialize` must fit).
pub const MIN_MAX_MESSAGE_BYTES: usize = 1024;

/// How long an HTTP session may stay idle before it ends, unless set with
/// [`ToolServer::session_idle_timeout`]: 30 minutes.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// How long a 2026-07-28 client may keep a list, unless set with [`ToolServer::list_ttl`]:
/// 60 seconds.
pub const DEFAULT_LIST_TTL: Duration = Duration::from_secs(60);

/// How many HTTP sessions may live at once, unless set with [`ToolServer::max_sessions`]:
/// 1,000. An idle session of the `initialize` era holds about 72 KiB of resident memory
/// (`bench/load`: 1,000 idle sessions, 2026-12-03), so a full server's idle sessions hold about
/// 70 MiB: room for many clients on a small machine, bounded well below what would exhaust it.
pub const DEFAULT_MAX_SESSIONS: usize = 1000;

/// How many HTTP connections are served at once, unless set with
/// [`ToolServer::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// How long an HTTP connection may take to send a request's head, unless set with
/// [`ToolServer::header_read_timeout`]: 30 seconds.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The registry as an MCP server, for one connection (see [Sessions](self#sessions)).
///
/// Cloning is cheap: clones share the registry and configuration (one reference count), and
/// each clone is a new session.
pub struct ToolServer {
    /// The registry and configuration, shared by every session: a session (made per
    /// connection) copies a pointer, and the futures `rmcp` moves it in stay small.
    shared: Arc<Shared>,
    /// This session's own state, boxed: the server is two pointers (see [`session`]).
    own: Box<session::SessionState>,
}

/// What the sessions of a [`ToolServer`] share: set by its builder methods, read by every
/// request.
#[derive(Clone)]
struct Shared {
    registry: ToolRegistry,
    context: ToolContext,
    selection: Selection,
    /// What `tools/list` defers behind the search bridge.
    deferral: Deferral,
    options: CallOptions,
    agent_loop_tools: bool,
    poll_interval: Duration,
    limits: Limits,
    implementation: Implementation,
    instructions: Option<String>,
    /// The registry generation when a `subscriptions/listen` request was last accepted: the
    /// acknowledgment reaches the client before `listen` runs, so a change the client makes
    /// in between must still be announced.
    accepted_at: Arc<AtomicU64>,
    /// The keys sealing `requestState` (none given: a random key of this process's).
    state_keys: Option<Arc<RequestStateKeys>>,
    /// How long a sealed `requestState` is accepted.
    state_ttl: Duration,
    /// How long a 2026-07-28 client may keep a list (`ttlMs`).
    list_ttl: Duration,
    /// The most tools a `tools/list` answer holds (0: all of them).
    page_size: usize,
    /// The listing last rendered for `tools/list`, shared by every session.
    rendered: Arc<pages::RenderedCache>,
    /// Where tasks are kept, and for how long.
    tasks: tasks::Tasks,
    /// The listing's changes, watched once for every session (a builder method that changes
    /// what is listed starts anew).
    listing_changes: Arc<watch::ListingChanges>,
}

/// What bounds a connection's input and the HTTP sessions.
#[derive(Clone, Debug)]
struct Limits {
    max_message_bytes: usize,
    session_idle_timeout: Duration,
    max_sessions: usize,
    max_connections: usize,
    header_read_timeout: Duration,
    allowed_origins: Vec<String>,
    /// The tokens every HTTP request must carry (none: loopback only, no token asked).
    bearer: Option<Arc<BearerTokens>>,
    /// OAuth resource-server mode, when required.
    #[cfg(feature = "mcp-remote")]
    oauth: Option<OAuthResourceConfig>,
    /// The store shared with the other replicas of a fleet, when there is one.
    #[cfg(feature = "mcp-redis")]
    store: Option<RedisStore>,
    /// The name of this replica, sent in the `Hermes-Replica` header of every HTTP answer.
    replica: Option<axum::http::HeaderValue>,
}

impl Clone for ToolServer {
    /// Another connection's server: same registry and configuration, a session of its own.
    fn clone(&self) -> Self {
        Self::session_of(Arc::clone(&self.shared))
    }
}

impl fmt::Debug for ToolServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolServer")
            .field("registry", &self.shared.registry)
            .field("selection", &self.shared.selection)
            .field("agent_loop_tools", &self.shared.agent_loop_tools)
            .field("poll_interval", &self.shared.poll_interval)
            .field("limits", &self.shared.limits)
            .field(
                "session",
                &self.own.context.get().and_then(ToolContext::session_id),
            )
            .finish_non_exhaustive()
    }
}

/// Why a server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The selection names an unknown toolset (or is otherwise invalid).
    #[error(transparent)]
    Selection(#[from] SelectionError),
    /// Streamable HTTP was asked for on an address other than loopback.
    #[error(
        "refusing to serve MCP on {addr} without authentication: give bearer tokens (`serve \
         --token-file PATH` or `--token-env NAME`; `ToolServer::require_bearer`) or OAuth (`serve \
         --oauth-issuer URL`; `ToolServer::require_oauth`), or listen on a \
         loopback address (127.0.0.0/8 or [::1]), such as 127.0.0.1:{port}",
        port = addr.port()
    )]
    NotLoopback {
        /// The refused address.
        addr: SocketAddr,
    },
    /// OAuth resource-server mode could not start (the authorization server's metadata).
    #[cfg(feature = "mcp-remote")]
    #[error("cannot serve MCP with OAuth: {0}")]
    Authorization(#[from] ResourceServerError),
    /// An entry of [`ToolServer::allow_origins`] is not an origin.
    #[error("cannot serve MCP over HTTP: an allowed origin is invalid: {0}")]
    Origin(#[from] InvalidOrigin),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The client went away or misbehaved before the session began.
    #[error("the MCP session did not start: {0}")]
    Initialize(#[source] Box<ServerInitializeError>),
    /// The shared store failed (see [`ToolServer::shared_store`]).
    #[cfg(feature = "mcp-redis")]
    #[error("refusing to serve MCP: {0}")]
    Store(#[from] StoreError),
    /// The agent-loop tools were asked for on a server sharing its sessions with other
    /// replicas: their state lives in one process (see [Fleet](self#fleet)).
    #[cfg(feature = "mcp-redis")]
    #[error(
        "refusing to serve the agent-loop tools from a fleet: their state (a todo list, \
         memory) lives in one replica's memory, and a session continued on another replica \
         would silently start over; drop `--agent-loop-tools` (`ToolServer::agent_loop_tools`) \
         or the shared store (`--store`; `ToolServer::shared_store`)"
    )]
    AgentLoopToolsInFleet,
    /// An invalid replica name (see [`ToolServer::replica_id`]).
    #[error(
        "the replica id {0:?} cannot be sent in an HTTP header: use letters, digits, `-`, `_` \
         and `.` (at most 64)"
    )]
    ReplicaId(String),
    /// The connection or listener failed while serving.
    #[error("MCP server I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The session's task ended abnormally.
    #[error("the MCP session task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

impl ToolServer {
    /// A server over `registry` (a handle: the server shares the registry with its caller).
    pub fn new(registry: ToolRegistry) -> Self {
        Self::session_of(Arc::new(Shared {
            registry,
            context: ToolContext::new(),
            selection: Selection::default(),
            deferral: Deferral::default(),
            options: CallOptions::default(),
            agent_loop_tools: false,
            poll_interval: DEFAULT_POLL_INTERVAL,
            limits: Limits {
                max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
                session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
                max_sessions: DEFAULT_MAX_SESSIONS,
                max_connections: DEFAULT_MAX_CONNECTIONS,
                header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
                allowed_origins: Vec::new(),
                bearer: None,
                #[cfg(feature = "mcp-remote")]
                oauth: None,
                #[cfg(feature = "mcp-redis")]
                store: None,
                replica: None,
            },
            implementation: Implementation::new("hermes-tools", env!("CARGO_PKG_VERSION")),
            instructions: None,
            accepted_at: Arc::default(),
            state_keys: None,
            state_ttl: DEFAULT_REQUEST_STATE_TTL,
            list_ttl: DEFAULT_LIST_TTL,
            page_size: DEFAULT_PAGE_SIZE,
            rendered: Arc::default(),
            tasks: tasks::Tasks::default(),
            listing_changes: Arc::default(),
        }))
    }

    /// A new session over `shared`: no context made yet, the `info` log level, not enrolled
    /// for the listing's changes.
    fn session_of(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            own: Box::default(),
        }
    }

    /// The configuration, to be changed by a builder method: this server's own copy if a
    /// clone (a session) shares it, so a change never reaches a session already made.
    fn shared_mut(&mut self) -> &mut Shared {
        Arc::make_mut(&mut self.shared)
    }

    /// [`shared_mut`](Self::shared_mut) for a builder method that changes what is listed: the
    /// listing's changes are watched anew, as the sessions made so far watch the old listing.
    fn listed_mut(&mut self) -> &mut Shared {
        let shared = self.shared_mut();
        shared.listing_changes = Arc::default();
        shared
    }

    /// The keys that seal the `requestState` of a question put to a 2026-07-28 client (see
    /// [Questions](self#questions)). Without them, a random key of this process's seals it,
    /// and a retry must come back to this process: replicas behind a load balancer share keys.
    #[must_use]
    pub fn request_state_keys(mut self, keys: RequestStateKeys) -> Self {
        self.shared_mut().state_keys = Some(Arc::new(keys));
        self
    }

    /// How long a client may take to answer a question of the 2026-07-28 protocol (the
    /// sealed `requestState`'s lifetime): [`DEFAULT_REQUEST_STATE_TTL`] unless set.
    #[must_use]
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.shared_mut().state_ttl = ttl;
        self
    }

    /// How long a client of the 2026-07-28 era may treat a list (`tools/list`,
    /// `resources/list`, `resources/templates/list`, `prompts/list`) as fresh: its `ttlMs`
    /// hint, with `cacheScope: "public"`, as no list varies by caller. A change within it is
    /// still announced to `subscriptions/listen` streams, which a caching client heeds.
    /// [`DEFAULT_LIST_TTL`] unless set; zero asks clients not to cache.
    #[must_use]
    pub fn list_ttl(mut self, ttl: Duration) -> Self {
        self.shared_mut().list_ttl = ttl;
        self
    }

    /// The most tools one `tools/list` answer holds ([`DEFAULT_PAGE_SIZE`] unless set; 0: all
    /// of them): a longer list is given in pages, each ending with a `nextCursor`.
    #[must_use]
    pub fn page_size(mut self, tools: usize) -> Self {
        self.shared_mut().page_size = tools;
        self
    }

    /// [`list_ttl`](Self::list_ttl) in milliseconds, as the wire carries it.
    fn list_ttl_ms(&self) -> u64 {
        u64::try_from(self.shared.list_ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// The sealing of `requestState`: the keys given, else this process's random key.
    fn sealing(&self) -> Result<mrtr::Sealing, ErrorData> {
        static RANDOM: OnceLock<Result<Arc<RequestStateKeys>, RequestStateKeysError>> =
            OnceLock::new();
        let keys = match &self.shared.state_keys {
            Some(keys) => Arc::clone(keys),
            None => RANDOM
                .get_or_init(|| RequestStateKeys::random().map(Arc::new))
                .clone()
                .map_err(|err| ErrorData::internal_error(err.to_string(), None))?,
        };
        Ok(mrtr::Sealing {
            keys,
            ttl: self.shared.state_ttl,
        })
    }

    /// The context every call receives (extensions such as a workspace root). Its session, if
    /// it has one, is replaced: each connection is a session of its own.
    #[must_use]
    pub fn context(mut self, context: ToolContext) -> Self {
        self.shared_mut().context = context;
        self.own.context = OnceLock::new();
        self
    }

    /// The toolsets served (default: every toolset).
    #[must_use]
    pub fn selection(mut self, selection: Selection) -> Self {
        self.listed_mut().selection = selection;
        self
    }

    /// How calls go through the pipeline (hooks skipped, a turn budget, ...). Whether the
    /// agent-loop tools are served is decided by [`agent_loop_tools`](Self::agent_loop_tools)
    /// alone, whatever `options` says.
    #[must_use]
    pub fn call_options(mut self, options: CallOptions) -> Self {
        self.shared_mut().options = options;
        self
    }

    /// Serves the agent-loop tools (`todo`, `memory`, ..., see
    /// [`Config::agent_loop_tools`](crate::config::Config::agent_loop_tools)): listed, and called as
    /// from the agent loop, each connection with its own session state. Off by default: a
    /// client of an MCP server is usually not the loop those tools belong to.
    ///
    /// ```
    /// use hermes_tools::ToolRegistry;
    /// use hermes_tools::mcp::server::ToolServer;
    ///
    /// let server = ToolServer::new(ToolRegistry::new()).agent_loop_tools(true);
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn agent_loop_tools(mut self, serve: bool) -> Self {
        self.listed_mut().agent_loop_tools = serve;
        self
    }

    /// Defers tools behind the search bridge ([`crate::search`]): `tools/list` shows the tools
    /// sent in full and `tool_search`, `tool_describe`, `tool_call` (`serve --search`: all).
    #[must_use]
    pub fn defer(mut self, deferral: Deferral) -> Self {
        self.listed_mut().deferral = deferral;
        self
    }

    /// How often the server checks whether its listing changed, for what has no change signal
    /// (an installed config, a check function whose answer expired); one check serves every
    /// session.
    #[must_use]
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.listed_mut().poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// The longest message read, in bytes (default [`DEFAULT_MAX_MESSAGE_BYTES`], at least
    /// [`MIN_MAX_MESSAGE_BYTES`]): a line on stdio, a request body on HTTP. A longer one is
    /// not read, and is answered with the JSON-RPC error -32600 naming the limit (HTTP 413),
    /// with the request's id when it comes before its params, as SDK clients write it. Memory
    /// held per connection for input stays under this bound.
    #[must_use]
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.shared_mut().limits.max_message_bytes = bytes.max(MIN_MAX_MESSAGE_BYTES);
        self
    }

    /// How long an HTTP session may go without a request, and with none of its streams open,
    /// before it ends and its state is dropped (default [`DEFAULT_SESSION_IDLE_TIMEOUT`]); its
    /// id then answers 404, which clients take as "start a new session". A call still running
    /// then is cancelled: this is also how long the answer of a client that disconnected
    /// mid-call is kept for it to resume (see [Disconnects](self#disconnects)). Stdio
    /// connections end when the client closes them.
    #[must_use]
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.shared_mut().limits.session_idle_timeout = idle.max(Duration::from_millis(1));
        self
    }

    /// How many HTTP sessions may live at once (default [`DEFAULT_MAX_SESSIONS`], at least
    /// one). An `initialize` beyond that is refused (HTTP 503, JSON-RPC error -32000 saying
    /// so); no live session is evicted to make room.
    #[must_use]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.shared_mut().limits.max_sessions = sessions.max(1);
        self
    }

    /// How many HTTP connections are served at once (default [`DEFAULT_MAX_CONNECTIONS`], at
    /// least one). One more is answered 503 with the JSON-RPC error -32000 and
    /// `Retry-After`, and closed.
    #[must_use]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.shared_mut().limits.max_connections = connections.max(1);
        self
    }

    /// How long an HTTP connection may take to send a request's head, once opened or once its
    /// previous request is answered (default [`DEFAULT_HEADER_READ_TIMEOUT`]); a connection
    /// that sends nothing for that long is closed. The time a request takes to be answered
    /// (a long call's stream) is not bounded by it.
    #[must_use]
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.shared_mut().limits.header_read_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Every HTTP request must carry one of `tokens` as `Authorization: Bearer <token>`, or
    /// it is answered 401 with a `WWW-Authenticate: Bearer` challenge; and
    /// [`bind_http`](Self::bind_http) may then listen on any address, not only loopback. With
    /// tokens the `Host` header is not checked (a DNS-rebinding page cannot send the token);
    /// the `Origin` check stays. Serve TLS in front of it (see
    /// [serving beyond one machine](crate::mcp#serving-beyond-one-machine)).
    ///
    /// ```
    /// use hermes_tools::ToolRegistry;
    /// use hermes_tools::mcp::server::{BearerTokens, ToolServer};
    ///
    /// let tokens = BearerTokens::new(["0123456789abcdef0123456789abcdef"]).unwrap();
    /// let server = ToolServer::new(ToolRegistry::new()).require_bearer(tokens);
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn require_bearer(mut self, tokens: BearerTokens) -> Self {
        self.shared_mut().limits.bearer = Some(Arc::new(tokens));
        self
    }

    /// Makes every HTTP request carry an access token from the authorization server of
    /// `config` (OAuth 2.1 resource-server mode, feature `mcp-remote`): the endpoint publishes
    /// its protected-resource metadata and checks each token by introspection (see
    /// [`OAuthResourceConfig`]). Like [`require_bearer`](Self::require_bearer), it lets
    /// [`bind_http`](Self::bind_http) listen beyond loopback.
    #[cfg(feature = "mcp-remote")]
    pub fn require_oauth(mut self, config: OAuthResourceConfig) -> Self {
        self.shared_mut().limits.oauth = Some(config);
        self
    }

    /// Shares this server's sessions of the `initialize` era and its tasks with the other
    /// replicas of a fleet through `store` (feature `mcp-redis`; `serve --store redis://...`):
    /// a session opened on one replica is continued on whichever replica the load balancer
    /// picks, and a task started on one is polled, answered and cancelled through any (its
    /// [`task_store`](Self::task_store) becomes [`RedisStore::task_store`], under the same
    /// prefix; a later `task_store` call overrides it). See [Fleet](self#fleet).
    /// [`bind_http`](Self::bind_http) refuses it with
    /// [`agent_loop_tools`](Self::agent_loop_tools), whose state cannot follow a session.
    ///
    /// ```no_run
    /// use hermes_tools::ToolRegistry;
    /// use hermes_tools::mcp::server::{RedisStore, RedisStoreConfig, ToolServer};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let store = RedisStore::connect(RedisStoreConfig::new("redis://10.0.0.7:6379/0")).await?;
    /// let server = ToolServer::new(ToolRegistry::global()).shared_store(store);
    /// server.bind_http("10.0.0.11:8080".parse()?).await?.serve().await?;
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "mcp-redis")]
    #[must_use]
    pub fn shared_store(self, store: RedisStore) -> Self {
        let mut server = self.task_store(Arc::new(store.task_store()));
        server.shared_mut().limits.store = Some(store);
        server
    }

    /// Names this replica in a `Hermes-Replica` header on every HTTP answer (`serve
    /// --replica-id NAME`): which replica of a fleet answered, for the operator's logs and
    /// tests. Letters, digits, `-`, `_` and `.`, at most 64; checked by
    /// [`bind_http`](Self::bind_http).
    ///
    /// # Errors
    ///
    /// [`ServeError::ReplicaId`] for another name.
    pub fn replica_id(mut self, id: &str) -> Result<Self, ServeError> {
        let valid = !id.is_empty()
            && id.len() <= 64
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        match axum::http::HeaderValue::from_str(id) {
            Ok(value) if valid => {
                self.shared_mut().limits.replica = Some(value);
                Ok(self)
            }
            _ => Err(ServeError::ReplicaId(id.to_owned())),
        }
    }

    /// Browser origins allowed to call the HTTP endpoint besides loopback ones, each
    /// `scheme://host[:port]` (or `null`), matched exactly. Requests with any other `Origin`
    /// are refused with 403; requests without one (SDKs, `curl`) are served. Checked by
    /// [`bind_http`](Self::bind_http).
    #[must_use]
    pub fn allow_origins<S: Into<String>>(mut self, origins: impl IntoIterator<Item = S>) -> Self {
        self.shared_mut().limits.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The name and version the server reports (default: `hermes-tools` and this crate's version).
    #[must_use]
    pub fn implementation(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.shared_mut().implementation = Implementation::new(name, version);
        self
    }

    /// Instructions for the client's model, sent when a session begins.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.shared_mut().instructions = Some(instructions.into());
        self
    }

    /// The registry served.
    pub fn registry(&self) -> &ToolRegistry {
        &self.shared.registry
    }

    /// Serves one client on stdin/stdout until it disconnects.
    ///
    /// # Errors
    ///
    /// An invalid selection (checked before reading anything), a client that leaves before
    /// the session begins, or a failed session task.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let (read, write) = rmcp::transport::stdio_pipes();
        self.serve_connection(read, write).await
    }

    /// Serves one client on a byte stream, one JSON-RPC message per line (what
    /// [`serve_stdio`](Self::serve_stdio) does with stdin and stdout), until it disconnects.
    /// The connection is one session.
    ///
    /// ```
    /// # use hermes_tools::{ToolRegistry, mcp::server::ToolServer};
    /// # use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let (server_end, client_end) = tokio::io::duplex(4096);
    /// let (read, write) = tokio::io::split(server_end);
    /// tokio::spawn(ToolServer::new(ToolRegistry::new()).serve_connection(read, write));
    ///
    /// let (client_read, mut client_write) = tokio::io::split(client_end);
    /// client_write.write_all(b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \n").await.unwrap();
    /// let mut answer = String::new();
    /// BufReader::new(client_read).read_line(&mut answer).await.unwrap();
    /// assert!(answer.contains("-32700"), "{answer}");
    /// # });
    /// ```
    ///
    /// # Errors
    ///
    /// As for [`serve_stdio`](Self::serve_stdio).
    pub async fn serve_connection<R, W>(self, read: R, write: W) -> Result<(), ServeError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        use rmcp::ServiceExt as _;

        self.check()?;
        let transport =
            stdio::LineTransport::new(read, write, self.shared.limits.max_message_bytes);
        let running = self
            .serve(transport)
            .await
            .map_err(|err| ServeError::Initialize(Box::new(err)))?;
        running.waiting().await?;
        Ok(())
    }

    /// Binds Streamable HTTP at `addr` (port 0 picks a free port); serve it with
    /// [`HttpEndpoint::serve`]. The endpoint is `http://ADDR/mcp`; see
    /// [Streamable HTTP](self#streamable-http) for what it checks.
    ///
    /// # Errors
    ///
    /// [`ServeError::NotLoopback`] for an address that is not loopback when no token is
    /// required ([`require_bearer`](Self::require_bearer)), an invalid selection or allowed
    /// origin, or a failed bind.
    pub async fn bind_http(self, addr: SocketAddr) -> Result<HttpEndpoint, ServeError> {
        if !addr.ip().is_loopback() && !self.authenticates() {
            return Err(ServeError::NotLoopback { addr });
        }
        self.check()?;
        #[cfg(feature = "mcp-redis")]
        if self.shared.limits.store.is_some() && self.shared.agent_loop_tools {
            return Err(ServeError::AgentLoopToolsInFleet);
        }
        let origins = http::origin::AllowedOrigins::parse(&self.shared.limits.allowed_origins)?;
        HttpEndpoint::bind(self, origins, addr).await
    }

    /// Whether every HTTP request must be authenticated (bearer tokens, or OAuth).
    fn authenticates(&self) -> bool {
        #[cfg(feature = "mcp-remote")]
        if self.shared.limits.oauth.is_some() {
            return true;
        }
        self.shared.limits.bearer.is_some()
    }

    /// The context of a call on this connection: the configured one, in this connection's
    /// session (made on first use).
    fn session_context(&self) -> &ToolContext {
        self.own.context.get_or_init(|| {
            self.shared
                .context
                .clone()
                .with_session(Session::new(session::next_id()))
        })
    }

    /// The tools a client is shown: the selection's available tools, in the MCP format,
    /// without the agent-loop tools unless the operator opted in.
    /// Checks made before serving: the selection resolves; a likely mistake is logged.
    fn check(&self) -> Result<(), SelectionError> {
        if self.shared.options.is_from_agent_loop() && !self.shared.agent_loop_tools {
            tracing::warn!(
                "the MCP server's call options say `from_agent_loop`, but agent-loop tools are \
                 served only with ToolServer::agent_loop_tools(true): they stay hidden"
            );
        }
        self.listing().map(drop)
    }

    fn listing(&self) -> Result<Listing, SelectionError> {
        let request = DefinitionsRequest {
            selection: self.shared.selection.clone(),
            format: Format::Mcp,
            deferral: self.shared.deferral.clone(),
            ..DefinitionsRequest::default()
        };
        // Per call: the shared config, not a copy of its list (a `tools/call` takes a listing).
        let hiding = (!self.shared.agent_loop_tools).then(|| self.shared.registry.config());
        Ok(Listing {
            definitions: self.shared.registry.definitions(&request)?,
            hiding,
        })
    }

    fn listing_or_error(&self) -> Result<Listing, ErrorData> {
        self.listing()
            .map_err(|err| ErrorData::internal_error(err.to_string(), None))
    }
}

/// Whether `request` is of the 2026-07-28 era or later: its `_meta` names the version (that
/// era's requests carry it; a session of the `initialize` era does not).
fn modern(request: &rmcp::service::RequestContext<rmcp::service::RoleServer>) -> bool {
    request
        .meta
        .protocol_version()
        .is_some_and(|version| version >= rmcp::model::ProtocolVersion::V_2026_07_28)
}
