//! The registry served over MCP: every selected tool, called through the call pipeline.
//!
//! A [`ToolServer`] is an `rmcp` [`ServerHandler`] over a [`ToolRegistry`]. Serve it on stdio
//! (what MCP hosts spawn) or on Streamable HTTP at a loopback address:
//!
//! ```no_run
//! use hermes_tools::mcp::server::ToolServer;
//! use hermes_tools::{Selection, ToolContext, ToolRegistry};
//!
//! # async fn run() -> Result<(), hermes_tools::mcp::server::ServeError> {
//! let server = ToolServer::new(ToolRegistry::global())
//!     .context(ToolContext::new().with_session_id("mcp"))
//!     .selection(Selection { enabled: vec!["files".into()], disabled: vec![] });
//! server.serve_stdio().await
//! # }
//! ```
//!
//! What a client sees:
//!
//! - `tools/list`: the [`Format::Mcp`] definitions of the selected, available tools (the same
//!   cached list an agent gets), each with the annotations of [`annotations`];
//! - `tools/call`: the call goes through [`ToolRegistry::call_with`], judged by the listing the
//!   client was given, so hooks, the approval gate, timeouts and answer budgets apply as
//!   in-process. An error answer
//!   is a result with `isError: true` (the model reads it and retries); a tool that is not listed
//!   is the JSON-RPC error -32602, naming the nearest listed tools;
//! - `notifications/tools/list_changed` when the listing changes (a plugin loads, an MCP server
//!   refreshes, a config is installed), on sessions that began with `initialize` and on
//!   `subscriptions/listen` streams of the 2026-07-28 protocol.
//!
//! Both protocol eras are served: `rmcp` answers `server/discover` (which Python SDK 2.x clients
//! send first) and the `initialize` handshake alike.

use std::borrow::Cow;
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{
    NotificationContext, RequestContext, RoleServer, ServerInitializeError, SubscriptionContext,
};
use rmcp::{ErrorData, ServiceExt};
use serde_json::Value;

use crate::ToolContext;
use crate::definitions::{Definitions, DefinitionsRequest};
use crate::formats::Format;
use crate::nearest::nearest;
use crate::pipeline::CallOptions;
use crate::registry::ToolRegistry;
use crate::toolsets::{Selection, SelectionError};

mod convert;
mod http;
mod watch;

use watch::ListingWatch;

pub use convert::annotations;
pub use http::HttpEndpoint;

/// How often a connection looks for a changed listing, unless set with
/// [`ToolServer::poll_interval`].
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(250);

/// The registry as an MCP server. Cloning is cheap: sessions share the registry.
#[derive(Clone)]
pub struct ToolServer {
    registry: ToolRegistry,
    context: ToolContext,
    selection: Selection,
    options: CallOptions,
    poll_interval: Duration,
    implementation: Implementation,
    instructions: Option<String>,
    /// The registry generation when a `subscriptions/listen` request was last accepted: the
    /// acknowledgment reaches the client before `listen` runs, so a change the client makes
    /// in between must still be announced.
    accepted_at: Arc<std::sync::atomic::AtomicU64>,
}

impl fmt::Debug for ToolServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolServer")
            .field("registry", &self.registry)
            .field("selection", &self.selection)
            .field("poll_interval", &self.poll_interval)
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
        "refusing to serve MCP on {addr}: the server has no authentication, so it listens only on \
         loopback addresses (127.0.0.0/8 or [::1]), such as 127.0.0.1:{port}",
        port = addr.port()
    )]
    NotLoopback {
        /// The refused address.
        addr: SocketAddr,
    },
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
        Self {
            registry,
            context: ToolContext::new(),
            selection: Selection::default(),
            options: CallOptions::default(),
            poll_interval: DEFAULT_POLL_INTERVAL,
            implementation: Implementation::new("hermes-tools", env!("CARGO_PKG_VERSION")),
            instructions: None,
            accepted_at: Arc::default(),
        }
    }

    /// The context every call receives (extensions such as a workspace root).
    #[must_use]
    pub fn context(mut self, context: ToolContext) -> Self {
        self.context = context;
        self
    }

    /// The toolsets served (default: every toolset).
    #[must_use]
    pub fn selection(mut self, selection: Selection) -> Self {
        self.selection = selection;
        self
    }

    /// How calls go through the pipeline. With `from_agent_loop` set, the agent-loop tools
    /// (`todo`, `memory`, ...) are listed and callable; by default they are neither, since the
    /// pipeline would refuse every call to them.
    #[must_use]
    pub fn call_options(mut self, options: CallOptions) -> Self {
        self.options = options;
        self
    }

    /// How often each connection checks whether its listing changed.
    #[must_use]
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// The name and version the server reports (default: `hermes-tools` and this crate's version).
    #[must_use]
    pub fn implementation(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.implementation = Implementation::new(name, version);
        self
    }

    /// Instructions for the client's model, sent when a session begins.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The registry served.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// Serves one client on stdin/stdout until it disconnects.
    ///
    /// # Errors
    ///
    /// An invalid selection (checked before reading anything), a client that leaves before
    /// the session begins, or a failed session task.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        self.listing()?;
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|err| ServeError::Initialize(Box::new(err)))?;
        running.waiting().await?;
        Ok(())
    }

    /// Binds Streamable HTTP at `addr` (port 0 picks a free port); serve it with
    /// [`HttpEndpoint::serve`]. The endpoint is `http://ADDR/mcp`.
    ///
    /// # Errors
    ///
    /// [`ServeError::NotLoopback`] for an address that is not loopback (the server has no
    /// authentication), an invalid selection, or a failed bind.
    pub async fn bind_http(self, addr: SocketAddr) -> Result<HttpEndpoint, ServeError> {
        if !addr.ip().is_loopback() {
            return Err(ServeError::NotLoopback { addr });
        }
        self.listing()?;
        HttpEndpoint::bind(self, addr).await
    }

    /// The tools a client is shown: the selection's available tools, in the MCP format,
    /// without the agent-loop tools unless the call options allow them.
    fn listing(&self) -> Result<Listing, SelectionError> {
        let request = DefinitionsRequest {
            selection: self.selection.clone(),
            format: Format::Mcp,
        };
        let hidden = if self.options.is_from_agent_loop() {
            Vec::new()
        } else {
            self.registry.config().agent_loop_tools.clone()
        };
        Ok(Listing {
            definitions: self.registry.definitions(&request)?,
            hidden,
        })
    }

    fn listing_or_error(&self) -> Result<Listing, ErrorData> {
        self.listing()
            .map_err(|err| ErrorData::internal_error(err.to_string(), None))
    }
}

/// The tools a client is shown: the registry's shared, cached definitions, less the hidden
/// ones (filtered on the fly, so the common case copies nothing).
#[derive(Clone, PartialEq)]
struct Listing {
    definitions: Definitions,
    hidden: Vec<String>,
}

impl Listing {
    /// Each listed definition with its name, in name order.
    fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.definitions.iter().filter_map(|definition| {
            let name = definition["name"].as_str()?;
            (!self.hidden.iter().any(|hidden| hidden == name)).then_some((name, definition))
        })
    }

    fn contains(&self, name: &str) -> bool {
        self.iter().any(|(listed, _)| listed == name)
    }
}

/// The JSON-RPC error for a call to a tool that is not listed; `registered` says whether the
/// registry has it anyway (outside the selection, unavailable, or for the agent loop only).
fn unknown_tool(name: &str, listing: &Listing, registered: bool) -> ErrorData {
    let suggestions = nearest(name, listing.iter().map(|(name, _)| name));
    let mut message = if registered {
        format!("Unknown tool: {name:?} is not among the tools this server offers.")
    } else {
        format!("Unknown tool: {name:?}.")
    };
    if suggestions.is_empty() {
        message.push_str(" Call one of the tools in tools/list.");
    } else {
        message.push_str(&format!(" Did you mean: {}?", suggestions.join(", ")));
    }
    ErrorData::invalid_params(
        message,
        Some(serde_json::json!({"tool": name, "suggestions": suggestions})),
    )
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let config = ServerConfig::new(capabilities).with_server_info(self.implementation.clone());
        match &self.instructions {
            Some(text) => config.with_instructions(text.clone()),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let listing = self.listing_or_error()?;
        let snapshot = self.registry.snapshot();
        let tools = listing
            .iter()
            .map(|(name, definition)| convert::tool(definition, snapshot.get(name).map(|t| &**t)))
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let listing = self.listing_or_error()?;
        let name: &str = &request.name;
        if !listing.contains(name) {
            let registered = self.registry.get(name).is_some();
            return Err(unknown_tool(name, &listing, registered));
        }
        let args = match &request.arguments {
            Some(arguments) => serde_json::to_string(arguments)
                .map_err(|err| ErrorData::invalid_params(err.to_string(), None))?,
            None => "{}".to_owned(),
        };
        let options = self
            .options
            .clone()
            .definitions(listing.definitions.clone());
        let call = self
            .registry
            .call_with(name, &args, &self.context, &options);
        // A client's `notifications/cancelled` drops the call: an async tool stops at its next
        // await point (a sync one finishes on the blocking pool, unobserved).
        let answer = tokio::select! {
            answer = call => answer,
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error(
                    Cow::Owned(format!("the call to {name} was cancelled")),
                    None,
                ));
            }
        };
        Ok(convert::call_result(&answer).into())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Sessions of the `initialize` era are told of changes on the session itself.
        let peer = context.peer;
        let watch = ListingWatch::new(self);
        tokio::spawn(async move {
            let open = || !peer.is_transport_closed();
            let notify = || async { peer.notify_tool_list_changed().await.is_ok() };
            watch.run(open, notify).await;
        });
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.accepted_at.store(
            self.registry.generation(),
            std::sync::atomic::Ordering::Release,
        );
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        // The 2026-07-28 era has no session: changes go to `subscriptions/listen` streams.
        if context.accepted().tools_list_changed == Some(true) {
            let watch = ListingWatch::new(self);
            let sink = context.sink().clone();
            let notify = || async { sink.notify_tool_list_changed().await.is_ok() };
            // A change between the acknowledgment and now: announce it (an extra announcement,
            // should two subscriptions race here, only makes a client list again).
            let accepted_at = self.accepted_at.load(std::sync::atomic::Ordering::Acquire);
            if self.registry.generation() != accepted_at && !notify().await {
                return Ok(());
            }
            tokio::select! {
                () = context.cancelled() => {}
                () = watch.run(|| true, notify) => {}
            }
        } else {
            context.cancelled().await;
        }
        Ok(())
    }
}
