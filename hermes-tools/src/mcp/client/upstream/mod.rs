//! One configured server as the client holds it: its connection, its tools in the registry,
//! its calls, and what it reports.
//!
//! The supervisor (see [`super::supervisor`]) owns the connection's lifecycle and tells this
//! state what happened; the tool handlers read the current connection from it. A handler holds
//! only a [`Weak`] reference, so a registry that outlives the client keeps no server alive.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use crate::sync::{Mutex, RwLock};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, RequestId, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, ServiceError};
use serde_json::{Map, Value};
use tokio::runtime::Handle;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::breaker::CircuitBreaker;
use super::normalise::normalise;
use super::oauth::OAuth;
use super::progress::ProgressRoutes;
use super::requests::Answerers;
use super::rest::{Activity, RestPolicy};
use super::utility::Utility;
use super::{Era, McpOptions, RejectedTool, ServerState, ServerStatus, call_result};
use super::{mrtr, naming, tasks};
use crate::ToolRegistry;
use crate::call::answer::ToolAnswer;
use crate::config::{McpServerConfig, McpTransport};
use crate::tool::{Provenance, Tool};
use crate::{ToolContext, tool::Annotations};

/// Time the pipeline's own timeout leaves over the MCP call timeout, so the call timeout (which
/// cancels the request on the server and counts for the breaker) is the one that fires.
const PIPELINE_GRACE_SECS: u64 = 5;

/// Time a woken server may take beyond its connect timeout: its rested connection closes first.
const WAKE_GRACE: Duration = Duration::from_secs(5);

/// A configured server.
pub(crate) struct Server {
    pub(crate) name: String,
    pub(crate) toolset: String,
    pub(crate) config: McpServerConfig,
    /// Where it is, for provenance and messages: its command line (never the environment, which
    /// holds secrets) or its URL (never its user information, query or headers).
    pub(crate) endpoint: String,
    pub(crate) breaker: CircuitBreaker,
    /// The runtime the connection lives on; calls run there whatever runtime the caller is on.
    pub(crate) runtime: Handle,
    /// Woken by a `list_changed` notification (tools, resources or prompts).
    pub(crate) refresh: Arc<Notify>,
    /// What answers the server's sampling and elicitation requests (the agent's).
    pub(crate) answerers: Arc<Answerers>,
    /// Where its progress reports go: the followed calls, by token.
    pub(crate) progress: Arc<ProgressRoutes>,
    /// Its calls, for resting (see [`super::rest`]).
    pub(crate) activity: Activity,
    /// Its OAuth authorization (`[mcp_servers.<name>.oauth]`), kept across connections.
    pub(crate) oauth: Option<Arc<OAuth>>,
    peer: RwLock<Option<Peer<RoleClient>>>,
    report: Mutex<Report>,
}

impl Server {
    /// Records the era of the connection just made.
    pub(crate) fn set_era(&self, era: Option<Era>) {
        self.report.lock().era = era;
    }
}

/// What the server's status reports, and what it has in the registry.
struct Report {
    state: ServerState,
    rejected: Vec<RejectedTool>,
    refreshes: u64,
    /// The era of the latest connection.
    era: Option<Era>,
    /// Registered tools by registry name, with what they were registered from.
    registered: BTreeMap<String, Planned>,
    /// While it reconnects, when it is expected back: the next attempt's start plus what its
    /// last good connection took (see [`Server::reconnecting`]).
    back_at: Option<tokio::time::Instant>,
    /// How long its last good connection took, from the attempt's start to its tools listed.
    connect_took: Duration,
}

/// What a server offers the registry: its tools, and the utility tools its resources and
/// prompts call for.
pub(crate) struct Listing {
    pub(crate) tools: Vec<rmcp::model::Tool>,
    pub(crate) utilities: Vec<Utility>,
    /// How long the tools listing stays fresh (the server's `ttlMs`, when above 0).
    pub(crate) fresh_for: Option<Duration>,
}

/// A tool of the listing (or a utility tool), ready to register.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Planned {
    pub(crate) local: String,
    /// The server's name for the tool (or the utility's name).
    pub(crate) remote: String,
    pub(crate) description: String,
    pub(crate) schema: Value,
    /// The server's hints for it (`readOnlyHint`, `destructiveHint`), passed on when the
    /// registry is served again; they decide nothing here.
    pub(crate) annotations: Annotations,
    /// The server's `outputSchema` for it (an object schema), passed on likewise.
    pub(crate) output_schema: Option<Value>,
    /// What a call of it does.
    pub(crate) kind: Kind,
}

/// What a call of a planned tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `tools/call` of the server's tool; `typed` when it declares an output schema, whose
    /// structured results are then its answers as they are.
    Tool { typed: bool },
    /// A utility tool over the server's resources or prompts.
    Utility(Utility),
}

impl Server {
    pub(crate) fn new(
        name: &str,
        config: &McpServerConfig,
        options: &McpOptions,
        runtime: Handle,
        state: ServerState,
    ) -> Self {
        Self {
            name: name.to_owned(),
            toolset: naming::toolset_name(name),
            config: config.clone(),
            endpoint: display_endpoint(&config.transport),
            breaker: CircuitBreaker::new(
                options.breaker_threshold,
                options.breaker_cooldown,
                Arc::clone(&options.clock),
            ),
            runtime,
            refresh: Arc::new(Notify::new()),
            answerers: Arc::new(Answerers::new(
                name,
                options.asker.clone(),
                config.sampling.clone(),
                Arc::clone(&options.clock),
            )),
            progress: Arc::default(),
            activity: Activity::new(),
            oauth: authorization(name, config, options),
            peer: RwLock::new(None),
            report: Mutex::new(Report {
                state,
                rejected: Vec::new(),
                refreshes: 0,
                era: None,
                registered: BTreeMap::new(),
                back_at: None,
                connect_took: Duration::ZERO,
            }),
        }
    }

    pub(crate) fn status(&self) -> ServerStatus {
        let report = self.report.lock();
        ServerStatus {
            name: self.name.clone(),
            toolset: self.toolset.clone(),
            endpoint: self.endpoint.clone(),
            state: report.state.clone(),
            rejected_tools: report.rejected.clone(),
            refreshes: report.refreshes,
            era: report.era.clone(),
        }
    }

    /// Records the server's state, and tells the registry why its tools are missing while it
    /// is not running (a call of one then says so instead of "unknown tool").
    pub(crate) fn set_state(&self, registry: &ToolRegistry, state: ServerState) {
        let absence = self.absence(&state);
        {
            let mut report = self.report.lock();
            if !matches!(state, ServerState::Reconnecting { .. }) {
                report.back_at = None;
            }
            report.state = state;
        }
        registry.set_absence(&naming::tool_prefix(&self.name), absence);
    }

    /// Marks the server reconnecting, its tools kept registered: the next attempt starts after
    /// `delay` (the backoff's), and a call in the meantime is told when to retry.
    pub(crate) fn set_reconnecting(
        &self,
        registry: &ToolRegistry,
        attempt: u32,
        last_error: String,
        delay: Duration,
    ) {
        let state = ServerState::Reconnecting {
            attempt,
            last_error,
        };
        let absence = self.absence(&state);
        {
            let mut report = self.report.lock();
            // The attempt itself takes time too: as long as the last good one, a fair guess
            // for the same command or URL.
            report.back_at = Some(tokio::time::Instant::now() + delay + report.connect_took);
            report.state = state;
        }
        registry.set_absence(&naming::tool_prefix(&self.name), absence);
    }

    /// Records how long a good connection took to have its tools listed.
    pub(crate) fn connected_in(&self, took: Duration) {
        self.report.lock().connect_took = took;
    }

    /// What a call of one of its tools answers while it reconnects (`None` when it does not):
    /// the server, its last error, and in how many seconds (at least 1) it is expected back.
    fn reconnecting(&self) -> Option<String> {
        let report = self.report.lock();
        let ServerState::Reconnecting { last_error, .. } = &report.state else {
            return None;
        };
        let left = report
            .back_at
            .map(|at| at.saturating_duration_since(tokio::time::Instant::now()))
            .unwrap_or_default();
        Some(format!(
            "MCP server {:?} is reconnecting (last error: {last_error}); retry in {} s.",
            self.name,
            retry_secs(left)
        ))
    }

    /// Why the server's tools are missing in `state` (`None` when running).
    fn absence(&self, state: &ServerState) -> Option<String> {
        let name = &self.name;
        match state {
            ServerState::Running { .. } => None,
            ServerState::Starting => Some(format!(
                "MCP server {name:?} is still starting. Try again in a moment."
            )),
            ServerState::Reconnecting {
                attempt,
                last_error,
            } => Some(format!(
                "MCP server {name:?} lost its connection and is reconnecting (attempt {attempt}; \
                 last error: {last_error}). Try again later, or do without it."
            )),
            ServerState::Failed { reason } => Some(format!(
                "MCP server {name:?} failed to start: {reason}. It is not retried until its \
                 configuration is fixed; tell the user."
            )),
            ServerState::Skipped { reason } => {
                Some(format!("MCP server {name:?} was not started: {reason}."))
            }
            // Its tools are still registered: a call starts it.
            ServerState::Resting { .. } => None,
        }
    }

    pub(crate) fn count_refresh(&self) {
        self.report.lock().refreshes += 1;
    }

    pub(crate) fn set_peer(&self, peer: Option<Peer<RoleClient>>) {
        let connected = peer.is_some();
        *self.peer.write() = peer;
        if connected {
            self.activity.connected.notify_waiters();
        }
    }

    fn peer(&self) -> Option<Peer<RoleClient>> {
        self.peer.read().clone()
    }

    /// The connection, started again first if the server rests (waiting up to its connect
    /// timeout), or `None` when there is none.
    async fn peer_or_wake(&self) -> Option<Peer<RoleClient>> {
        // The common case, with nothing to wait for.
        if let Some(peer) = self.peer() {
            return Some(peer);
        }
        let connected = self.activity.connected.notified();
        tokio::pin!(connected);
        // Registered before the check, so a connection made in between is not missed.
        connected.as_mut().enable();
        if let Some(peer) = self.peer() {
            return Some(peer);
        }
        if !matches!(self.report.lock().state, ServerState::Resting { .. }) {
            return None;
        }
        self.activity.ask_wake();
        // Closing the rested connection (at most a few seconds) comes before the new one.
        let limit = Duration::from_secs(self.config.connect_timeout_secs) + WAKE_GRACE;
        let _ = tokio::time::timeout(limit, connected).await;
        self.peer()
    }

    /// When this server's connections rest.
    pub(crate) fn rest_policy(&self) -> RestPolicy {
        RestPolicy {
            idle: Duration::from_secs(self.config.idle_timeout_secs),
            lifetime: Duration::from_secs(self.config.max_lifetime_secs),
        }
    }

    /// Makes the registry hold exactly the tools of `listed`: new and changed ones registered,
    /// unchanged ones left alone (so an identical listing changes no generation), vanished
    /// ones deregistered. No other toolset is touched.
    pub(crate) fn apply_listing(self: &Arc<Self>, registry: &ToolRegistry, listed: Listing) {
        let (planned, mut rejected) =
            plan(&self.name, &self.config, listed.tools, &listed.utilities);
        let previous = std::mem::take(&mut self.report.lock().registered);
        let mut registered = BTreeMap::new();
        for tool in planned {
            let unchanged =
                previous.get(&tool.local) == Some(&tool) && self.owns(registry, &tool.local);
            if unchanged {
                registered.insert(tool.local.clone(), tool);
                continue;
            }
            match registry.register(self.build_tool(&tool)) {
                Ok(_) => {
                    registered.insert(tool.local.clone(), tool);
                }
                Err(err) => {
                    tracing::warn!(server = %self.name, tool = %tool.remote, error = %err, "MCP tool not registered");
                    rejected.push(RejectedTool {
                        name: tool.remote,
                        reason: err.to_string(),
                    });
                }
            }
        }
        for stale in previous
            .keys()
            .filter(|name| !registered.contains_key(*name))
        {
            self.deregister_one(registry, stale);
        }
        let tools: Vec<String> = registered.keys().cloned().collect();
        tracing::info!(server = %self.name, tools = tools.len(), rejected = rejected.len(), "MCP tools registered");
        {
            let mut report = self.report.lock();
            report.registered = registered;
            report.rejected = rejected;
        }
        self.set_state(registry, ServerState::Running { tools });
    }

    /// Removes every tool of this server from the registry.
    pub(crate) fn deregister_all(&self, registry: &ToolRegistry) {
        let registered = std::mem::take(&mut self.report.lock().registered);
        for name in registered.keys() {
            self.deregister_one(registry, name);
        }
    }

    /// Whether the registry's tool `name` is this server's (another server may have taken it).
    fn owns(&self, registry: &ToolRegistry, name: &str) -> bool {
        registry
            .get(name)
            .is_some_and(|tool| tool.toolset() == self.toolset)
    }

    fn deregister_one(&self, registry: &ToolRegistry, name: &str) {
        if self.owns(registry, name) {
            registry.deregister(name);
        }
    }

    fn build_tool(self: &Arc<Self>, planned: &Planned) -> Tool {
        let server = Arc::downgrade(self);
        let remote: Arc<str> = Arc::from(planned.remote.as_str());
        let kind = planned.kind;
        let mut tool = Tool::builder(planned.local.as_str(), self.toolset.as_str())
            .description(planned.description.as_str())
            .emoji("🔌")
            .parameters(planned.schema.clone())
            .annotations(planned.annotations);
        if let Some(schema) = &planned.output_schema {
            tool = tool.output_schema(schema.clone());
        }
        tool.timeout_secs(
            self.config
                .call_timeout_secs
                .saturating_add(PIPELINE_GRACE_SECS),
        )
        .provenance(Provenance::runtime(
            format!("mcp:{}", self.name),
            self.endpoint.clone(),
        ))
        // Only the operator's word: the server's `readOnlyHint` is a hint from a process
        // we do not control (see `McpServerConfig::parallel_tool_calls`).
        .parallel(self.config.parallel_tool_calls)
        .async_handler(move |args, ctx| call(server.clone(), kind, Arc::clone(&remote), args, ctx))
        .build()
    }
}

/// Calls tool `remote` on the server, if it still exists.
async fn call(
    server: Weak<Server>,
    kind: Kind,
    remote: Arc<str>,
    args: Value,
    ctx: ToolContext,
) -> ToolAnswer {
    match server.upgrade() {
        Some(server) => server.call(kind, &remote, args, &ctx).await,
        None => ToolAnswer::error(format!(
            "The MCP server of tool {remote:?} has been stopped. Do not call its tools again."
        )),
    }
}

impl Server {
    /// One `tools/call` (or a utility's requests), within the breaker and the call timeout.
    /// The arguments were validated against the tool's schema by dispatch before this runs.
    async fn call(&self, kind: Kind, remote: &str, args: Value, ctx: &ToolContext) -> ToolAnswer {
        let name = &self.name;
        if let Err(open) = self.breaker.admit() {
            return ToolAnswer::error(format!(
                "MCP server {name:?} failed {} times in a row, so its tools are paused for another {} s. \
                 Do not retry this tool now: use another approach, or tell the user the server is not answering.",
                open.failures,
                open.retry_in.as_secs().max(1)
            ));
        }
        let _busy = self.activity.begin();
        let Some(peer) = self.peer_or_wake().await else {
            // Its tools stay while it reconnects, and the call says when to come back. No call
            // was made, so the breaker is not involved: the backoff already paces the server.
            if let Some(reconnecting) = self.reconnecting() {
                return ToolAnswer::error(reconnecting);
            }
            self.breaker.record_failure();
            return ToolAnswer::error(format!(
                "MCP server {name:?} is not connected; it is being restarted. Do not retry right away: \
                 use another approach or try again later."
            ));
        };
        let limit = Duration::from_secs(self.config.call_timeout_secs);
        let (server, tool) = (name.clone(), remote.to_owned());
        let follow = (
            Arc::clone(&self.progress),
            Arc::clone(&self.answerers),
            ctx.clone(),
        );
        // Dropping the request future (timeout, or the caller giving up) makes rmcp send
        // `notifications/cancelled`, so the server stops working on it too.
        let task = self.runtime.spawn(async move {
            tokio::time::timeout(limit, request(peer, kind, server, tool, args, follow)).await
        });
        match AbortOnDrop(task).await {
            Ok(Ok(Ok(answer))) => {
                self.breaker.record_success();
                answer
            }
            Ok(Ok(Err(err))) if is_transport_failure(&err) => {
                self.breaker.record_failure();
                let failure = match &err {
                    ServiceError::TransportSend(error) => super::session::transport_failure(error),
                    other => other.to_string(),
                };
                tracing::warn!(server = %name, tool = remote, error = %crate::secrets::redact(&failure), "MCP call failed");
                ToolAnswer::error(format!(
                    "MCP server {name:?} could not run {remote:?}: {failure}. Do not retry right away."
                ))
            }
            // The server answered, with a protocol error: it is alive, so the breaker is not
            // involved (a model's bad call must not shut the server's other tools).
            Ok(Ok(Err(err))) => {
                self.breaker.record_success();
                ToolAnswer::error(format!(
                    "MCP server {name:?} refused the call to {remote:?}: {}",
                    protocol_message(&err)
                ))
            }
            Ok(Err(_elapsed)) => {
                self.breaker.record_failure();
                tracing::warn!(server = %name, tool = remote, ?limit, "MCP call timed out");
                ToolAnswer::error(format!(
                    "MCP tool {remote:?} of server {name:?} did not answer within {} s and was cancelled. \
                     Try a smaller request, or another approach.",
                    limit.as_secs()
                ))
            }
            Err(join) => {
                self.breaker.record_failure();
                ToolAnswer::error(format!(
                    "MCP call to {remote:?} of server {name:?} did not finish: {join}"
                ))
            }
        }
    }
}

/// Cancels request `id` at the server when dropped armed: rmcp's `call_tool` does so for an
/// abandoned call, and a request sent by hand must too.
struct CancelOnDrop(Option<(Peer<RoleClient>, RequestId)>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some((peer, id)) = self.0.take() else {
            return;
        };
        let reason = Some("request abandoned by the caller".to_owned());
        let params = CancelledNotificationParam::new(Some(id), reason);
        // A drop cannot wait; without a runtime (shutting down) there is nobody to tell.
        if let Ok(runtime) = Handle::try_current() {
            runtime.spawn(async move { peer.notify_cancelled(params).await });
        }
    }
}

/// The requests of one call of `tool` (of kind `kind`) on server `server`, and its answer.
async fn request(
    peer: Peer<RoleClient>,
    kind: Kind,
    server: String,
    tool: String,
    args: Value,
    (progress, answerers, ctx): (Arc<ProgressRoutes>, Arc<Answerers>, ToolContext),
) -> Result<ToolAnswer, ServiceError> {
    match kind {
        Kind::Tool { typed } => {
            let arguments = match args {
                Value::Object(arguments) => arguments,
                _ => Map::new(),
            };
            let mut params = CallToolRequestParams::new(tool.clone()).with_arguments(arguments);
            // A server of the 2026-07-28 era asks by answering `input_required`: answered
            // here, the call goes again (see `mrtr`), within the call's one timeout.
            for round in 1..=mrtr::MAX_ROUNDS {
                let result = call_once(&peer, params.clone(), &progress, &ctx).await?;
                match result {
                    ServerResult::CallToolResult(result) => {
                        return Ok(call_result::from_result(&server, &tool, result, typed));
                    }
                    // `{}` (no content at all) reads as an empty result, as rmcp's
                    // `call_tool` reads it.
                    ServerResult::EmptyResult(_) => {
                        let empty = CallToolResult::default();
                        return Ok(call_result::from_result(&server, &tool, empty, typed));
                    }
                    // Asking the user once more would be in vain: no retry follows.
                    ServerResult::InputRequiredResult(_) if round == mrtr::MAX_ROUNDS => break,
                    ServerResult::InputRequiredResult(asked) => {
                        let retry = mrtr::answer(&answerers, asked, round).await?;
                        params.input_responses = retry.responses;
                        params.request_state = retry.state;
                    }
                    // A long call the server runs as a task: followed to its end (see
                    // `tasks`), within the call's one timeout.
                    ServerResult::CreateTaskResult(created) => {
                        let outcome = tasks::follow(&peer, created.task, &answerers, &ctx).await?;
                        return Ok(match outcome {
                            tasks::Outcome::Completed(result) => {
                                call_result::from_result(&server, &tool, result, typed)
                            }
                            tasks::Outcome::Failed(why) => ToolAnswer::error(format!(
                                "MCP server {server:?} ran the call to {tool:?} as a task, \
                                 which failed: {why}"
                            )),
                            tasks::Outcome::Cancelled => ToolAnswer::error(format!(
                                "MCP server {server:?} cancelled the task running the call to \
                                 {tool:?}."
                            )),
                        });
                    }
                    _ => return Err(ServiceError::UnexpectedResponse),
                }
            }
            Ok(ToolAnswer::error(format!(
                "MCP server {server:?} asked for input {} times without finishing the call to \
                 {tool:?}, and the client stops there. Do not retry: tell the user.",
                mrtr::MAX_ROUNDS
            )))
        }
        Kind::Utility(utility) => utility.run(peer, args).await,
    }
}

/// Whole seconds, rounded up, at least 1: "retry in 0 s" would invite a retry that fails.
fn retry_secs(left: Duration) -> u64 {
    let secs = left.as_secs() + u64::from(left.subsec_nanos() > 0);
    secs.max(1)
}

/// One `tools/call` request and its answer, its progress followed for `ctx`.
async fn call_once(
    peer: &Peer<RoleClient>,
    params: CallToolRequestParams,
    progress: &Arc<ProgressRoutes>,
    ctx: &ToolContext,
) -> Result<ServerResult, ServiceError> {
    // Sent by hand, not with `call_tool`, to learn the request's progress token.
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await?;
    // Both held until the call ends, however it ends: no report outlives it, and a call
    // dropped unanswered (timeout, the caller gone) is cancelled at the server.
    let _route = progress.follow(ctx, &handle.progress_token);
    let mut cancel = CancelOnDrop(Some((peer.clone(), handle.id.clone())));
    let result = handle.await_response().await;
    cancel.0 = None;
    result
}

/// Whether `err` means the server did not answer (as opposed to answering with an error).
fn is_transport_failure(err: &ServiceError) -> bool {
    matches!(
        err,
        ServiceError::TransportSend(_)
            | ServiceError::TransportClosed
            | ServiceError::Timeout { .. }
            | ServiceError::Cancelled { .. }
    )
}

fn protocol_message(err: &ServiceError) -> String {
    match err {
        ServiceError::McpError(error) => error.message.to_string(),
        other => other.to_string(),
    }
}

/// A spawned task that is aborted when the caller stops waiting for it.
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Future for AbortOnDrop<T> {
    type Output = Result<T, tokio::task::JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The tools of a listing to register, and those refused with why.
///
/// A tool is kept when `include` is empty or names it, and `exclude` does not (exclude wins:
/// "never register this" is the safer reading of a tool in both lists). The listing is taken
/// in name order, so when two names sanitise to one registry name the same one wins every time.
/// The `utilities` come after the server's tools, under the same `include` and `exclude`, and
/// give way to a tool of the same name.
pub(crate) fn plan(
    server: &str,
    config: &McpServerConfig,
    mut listed: Vec<rmcp::model::Tool>,
    utilities: &[Utility],
) -> (Vec<Planned>, Vec<RejectedTool>) {
    listed.sort_by(|a, b| a.name.cmp(&b.name));
    let mut rejected = Vec::new();
    let mut planned: Vec<Planned> = Vec::new();
    for wanted in &config.include {
        let utility = utilities.iter().any(|utility| utility.name() == wanted);
        if !utility && !listed.iter().any(|tool| tool.name == *wanted) {
            rejected.push(RejectedTool {
                name: wanted.clone(),
                reason: "listed in `include`, but the server has no tool of that name".into(),
            });
        }
    }
    for tool in listed {
        let remote = tool.name.to_string();
        let included = config.include.is_empty() || config.include.contains(&remote);
        if !included || config.exclude.contains(&remote) {
            tracing::debug!(server, tool = %remote, "MCP tool filtered out by include/exclude");
            continue;
        }
        let mut refuse = |reason: String| {
            tracing::warn!(server, tool = %remote, %reason, "MCP tool skipped");
            rejected.push(RejectedTool {
                name: remote.clone(),
                reason,
            });
        };
        if remote.is_empty() {
            refuse("the server lists a tool with an empty name".into());
            continue;
        }
        let local = naming::tool_name(server, &remote);
        if let Some(first) = planned.iter().find(|p| p.local == local) {
            refuse(format!(
                "its registry name {local:?} is also that of tool {:?}, which is kept",
                first.remote
            ));
            continue;
        }
        let schema = match normalise(Some(&tool.input_schema)) {
            Ok(schema) => schema,
            Err(reason) => {
                refuse(format!("its input schema cannot be used: {reason}"));
                continue;
            }
        };
        let description = tool
            .description
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
            .or_else(|| tool.title.clone())
            .unwrap_or_else(|| format!("Tool {remote:?} of the MCP server {server:?}."));
        let hints = tool.annotations.as_ref();
        let read_only = hints.and_then(|hints| hints.read_only_hint) == Some(true);
        let annotations = Annotations {
            read_only,
            destructive: !read_only && hints.and_then(|hints| hints.destructive_hint) == Some(true),
            parallel: None,
        };
        // Repaired like the input schema (draft-07 upgraded, one dialect); MCP's output
        // schemas describe objects, and another, or one beyond repair, is not passed on (no
        // client could be given a structured result that matches it).
        let output_schema = tool
            .output_schema
            .as_deref()
            .filter(|schema| schema.get("type").and_then(Value::as_str) == Some("object"))
            .and_then(|schema| normalise(Some(schema)).ok());
        planned.push(Planned {
            local,
            remote,
            description,
            schema,
            annotations,
            kind: Kind::Tool {
                typed: output_schema.is_some(),
            },
            output_schema,
        });
    }
    let prefix = naming::tool_prefix(server);
    for &utility in utilities {
        let remote = utility.name();
        let included =
            config.include.is_empty() || config.include.iter().any(|name| name == remote);
        if !included || config.exclude.iter().any(|name| name == remote) {
            continue;
        }
        let local = naming::tool_name(server, remote);
        if planned.iter().any(|tool| tool.local == local) {
            rejected.push(RejectedTool {
                name: remote.to_owned(),
                reason: format!(
                    "a utility tool for the server's {}, not added: the server has a tool of \
                     this name, which is kept",
                    if remote.contains("prompt") {
                        "prompts"
                    } else {
                        "resources"
                    }
                ),
            });
            continue;
        }
        planned.push(Planned {
            local,
            remote: remote.to_owned(),
            description: utility.description(server, &prefix),
            schema: utility.schema(),
            annotations: Annotations {
                read_only: true,
                ..Annotations::default()
            },
            output_schema: None,
            kind: Kind::Utility(utility),
        });
    }
    (planned, rejected)
}

/// The authorization of a Streamable HTTP server configured with `oauth`.
fn authorization(name: &str, config: &McpServerConfig, options: &McpOptions) -> Option<Arc<OAuth>> {
    #[cfg(feature = "mcp-remote")]
    if let (McpTransport::Http { url, .. }, Some(oauth)) = (&config.transport, &config.oauth) {
        return Some(Arc::new(OAuth::new(
            name,
            url,
            oauth,
            options.authorizer.clone(),
        )));
    }
    let _ = (name, config, options);
    None
}

/// Where the server is, as reports show it.
fn display_endpoint(transport: &McpTransport) -> String {
    match transport {
        McpTransport::Stdio { command, args, .. } => display_command(command, args),
        McpTransport::Http { url, .. } | McpTransport::Sse { url, .. } => {
            crate::config::display_url(url)
        }
    }
}

/// `command` and `args` as one line, arguments with spaces or quotes quoted.
pub(crate) fn display_command(command: &str, args: &[String]) -> String {
    std::iter::once(command)
        .chain(args.iter().map(String::as_str))
        .map(|part| {
            if part.is_empty()
                || part.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'')
            {
                format!("{part:?}")
            } else {
                part.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests;
