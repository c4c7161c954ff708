//! One MCP session from the client's side: what the client says of itself (name, protocol
//! version, the capabilities the agent can answer), the notifications and requests it hears
//! (list changes, sampling, elicitation), and how the transports' failures read.

use std::future::Future;
use std::sync::{Arc, Weak};
use std::time::Duration;

use rmcp::ClientHandler;
use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationCapability,
    ExtensionCapabilities, FormElicitationCapability, Implementation, JsonObject,
    ProgressNotificationParam, ProtocolVersion, SamplingCapability, TASKS_EXTENSION_ID,
};
#[allow(deprecated, reason = "sampling: see `requests`")]
use rmcp::model::{CreateMessageRequestParams, CreateMessageResult};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, MaybeSendFuture, NotificationContext,
    RequestContext, RoleClient, RunningService,
};
use rmcp::transport::DynamicTransportError;
use tokio::sync::Notify;

use super::Era;
use super::progress::ProgressRoutes;
use super::requests::Answerers;
#[cfg(doc)]
use crate::config::display_url;
use crate::config::{MODERN_PROTOCOL_VERSION, McpProtocol, McpServerConfig, McpTransport};

/// An initialised session with a server.
pub(super) type Running = RunningService<RoleClient, Handler>;

/// How the client begins with one server, from its `protocol` and `protocol_version`.
#[derive(Debug, Clone)]
pub(super) struct Lifecycle {
    /// rmcp's mode for the first attempt.
    pub(super) mode: ClientLifecycleMode,
    /// `protocol = "auto"`: a server whose `server/discover` names only earlier versions is
    /// reached again through `initialize` (rmcp's auto mode gives up there).
    pub(super) fall_back: bool,
    /// `protocol = "modern"`, for a failure that says what the setting requires.
    pub(super) modern_only: bool,
}

impl Lifecycle {
    /// The lifecycle `config` asks for (see [`McpProtocol`]).
    pub(super) fn of(config: &McpServerConfig) -> Self {
        let modern = || vec![ProtocolVersion::V_2026_07_28];
        let legacy = Self {
            mode: ClientLifecycleMode::Initialize,
            fall_back: false,
            modern_only: false,
        };
        if matches!(config.transport, McpTransport::Sse { .. }) {
            return legacy;
        }
        // A pinned version settles the era: no probe for one that has a handshake.
        match (config.protocol, config.protocol_version.as_deref()) {
            (_, Some(version)) if version != MODERN_PROTOCOL_VERSION => legacy,
            (McpProtocol::Legacy, _) => legacy,
            (McpProtocol::Modern, _) | (_, Some(_)) => Self {
                mode: ClientLifecycleMode::Discover {
                    preferred_versions: modern(),
                },
                fall_back: false,
                modern_only: true,
            },
            _ => Self {
                mode: ClientLifecycleMode::Auto {
                    preferred_versions: modern(),
                    legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
                },
                fall_back: true,
                modern_only: false,
            },
        }
    }

    /// The `initialize` handshake alone, for the second attempt of `auto`.
    pub(super) fn handshake() -> Self {
        Self {
            mode: ClientLifecycleMode::Initialize,
            fall_back: false,
            modern_only: false,
        }
    }
}

/// Why a connection was not made, and whether `auto` should try again with `initialize`.
#[derive(Debug)]
pub(super) struct Failure {
    /// What went wrong, for a person.
    pub(super) reason: String,
    /// The server answered `server/discover` naming only versions with a handshake.
    pub(super) wants_handshake: bool,
}

impl From<String> for Failure {
    fn from(reason: String) -> Self {
        Self {
            reason,
            wants_handshake: false,
        }
    }
}

impl Failure {
    /// The same failure with its reason rewritten by `f`.
    pub(super) fn map(self, f: impl FnOnce(String) -> String) -> Self {
        Self {
            reason: f(self.reason),
            ..self
        }
    }
}

/// Which era a running session speaks, as [`ServerStatus`](super::ServerStatus) shows it.
pub(super) fn era(running: &Running) -> Option<Era> {
    let info = running.peer_info()?;
    let version = info.protocol_version.as_str().to_owned();
    Some(if info.protocol_version.has_initialize() {
        Era::Legacy { version }
    } else {
        Era::Modern { version }
    })
}

/// `initialise` (a handler's `serve_with_lifecycle` on a transport) within `limit`, or why
/// not.
pub(super) async fn initialised<F>(
    limit: Duration,
    lifecycle: &Lifecycle,
    initialise: F,
) -> Result<Running, Failure>
where
    F: Future<Output = Result<Running, ClientInitializeError>>,
{
    match tokio::time::timeout(limit, initialise).await {
        Ok(Ok(running)) => Ok(running),
        Ok(Err(err)) => {
            let wants_handshake = matches!(
                &err,
                ClientInitializeError::NoCompatibleProtocolVersion { server_supported, .. }
                    if !server_supported.is_empty()
                        && server_supported.iter().all(ProtocolVersion::has_initialize)
            );
            let mut reason = format!("initialisation failed: {}", describe(&err));
            let refused = matches!(
                err,
                ClientInitializeError::JsonRpcError(_)
                    | ClientInitializeError::NoCompatibleProtocolVersion { .. }
            );
            if lifecycle.modern_only && refused {
                reason.push_str(&format!(
                    " (the server does not speak MCP {MODERN_PROTOCOL_VERSION} through \
                     `server/discover`, which `protocol = \"modern\"` or `protocol_version = \
                     \"{MODERN_PROTOCOL_VERSION}\"` requires: give `protocol = \"auto\"` or \
                     `\"legacy\"`)"
                ));
            }
            Err(Failure {
                reason,
                wants_handshake: lifecycle.fall_back && wants_handshake,
            })
        }
        Err(_) => Err(format!(
            "it did not finish initialising within {} s",
            limit.as_secs()
        )
        .into()),
    }
}

/// What went wrong, for a person.
fn describe(err: &ClientInitializeError) -> String {
    match err {
        ClientInitializeError::TransportError { error, context } => {
            format!("{context}: {}", transport_failure(error))
        }
        ClientInitializeError::LegacyFallbackFailed { discover, fallback } => format!(
            "`server/discover` was refused ({}), and so was `initialize`: {}",
            describe(discover),
            describe(fallback)
        ),
        other => other.to_string(),
    }
}

/// A transport's failure as its chain of causes (without the transport's type name, which
/// rmcp puts first), with what to do when the server wants a token.
pub(super) fn transport_failure(error: &DynamicTransportError) -> String {
    let text = causes(error.error.as_ref());
    match hint(error.error.as_ref()) {
        Some(hint) => format!("{text} ({hint})"),
        None => text,
    }
}

/// An error and its causes, as one line, with any URL an HTTP error names shown without its
/// user information or query (they may hold credentials).
pub(super) fn causes(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = without_url_secrets(err);
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&without_url_secrets(cause));
        source = cause.source();
    }
    text
}

/// `err`'s message, the URL of a reqwest error shown as [`display_url`] does.
fn without_url_secrets(err: &(dyn std::error::Error + 'static)) -> String {
    let text = err.to_string();
    #[cfg(feature = "mcp-remote")]
    if let Some(url) = err
        .downcast_ref::<reqwest::Error>()
        .and_then(reqwest::Error::url)
    {
        return text.replace(url.as_str(), &crate::config::display_url(url.as_str()));
    }
    text
}

/// What to do about a server that answers 401. Worded so that redaction leaves it whole: no
/// `name: value` or `Bearer x` in it.
#[cfg(feature = "mcp-remote")]
pub(super) const AUTH_HINT: &str = "the server requires authorisation: add an Authorization \
     header to the server's `headers`, a bearer token read from an environment variable, or \
     an `oauth` table (the `hermes_tools::mcp` docs, Remote servers)";

/// What the operator should do about a failure of the HTTP transport, when we know.
#[cfg(feature = "mcp-remote")]
pub(super) fn hint(error: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    use rmcp::transport::streamable_http_client::StreamableHttpError;

    match error.downcast_ref::<StreamableHttpError<reqwest::Error>>()? {
        StreamableHttpError::AuthRequired(_) => Some(AUTH_HINT),
        StreamableHttpError::InsufficientScope(_) => {
            Some("the server refused the token's scope: give a token with more rights")
        }
        _ => None,
    }
}

/// Without the HTTP transport there is nothing to say.
#[cfg(not(feature = "mcp-remote"))]
pub(super) fn hint(_error: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    None
}

/// The client side of the session: identifies us, offers what the agent can answer, hears
/// about list changes and answers the server's requests.
pub(crate) struct Handler {
    /// Woken on a list change (weak: the session never keeps its server alive).
    refresh: Weak<Notify>,
    /// What answers the server's sampling and elicitation requests.
    answerers: Arc<Answerers>,
    /// Where the server's progress reports go.
    progress: Arc<ProgressRoutes>,
    /// The protocol version offered.
    version: ProtocolVersion,
}

impl Handler {
    /// A handler that wakes `refresh` on list changes, answers requests through
    /// `answerers`, and offers protocol `version` in `initialize` (none: the newest with a
    /// handshake, 2025-11-25).
    pub(super) fn new(
        refresh: &Arc<Notify>,
        answerers: &Arc<Answerers>,
        progress: &Arc<ProgressRoutes>,
        version: Option<&str>,
    ) -> Self {
        Self {
            refresh: Arc::downgrade(refresh),
            answerers: Arc::clone(answerers),
            progress: Arc::clone(progress),
            version: version.map_or(ProtocolVersion::LATEST_WITH_INITIALIZE, protocol_version),
        }
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        // Offer what the agent provided a handler for, so a server never asks in vain.
        let mut capabilities = ClientCapabilities::default();
        if self.answerers.offers_sampling() {
            capabilities.sampling = Some(SamplingCapability::default());
        }
        if self.answerers.offers_elicitation() {
            capabilities.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        }
        // Tasks: a long call the server runs as a task is followed to its end (see `tasks`).
        capabilities
            .extensions
            .get_or_insert_with(ExtensionCapabilities::new)
            .insert(TASKS_EXTENSION_ID.to_owned(), JsonObject::new());
        ClientConfig::new(
            capabilities,
            Implementation::new("hermes-tools", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(self.version.clone())
    }

    #[allow(deprecated, reason = "sampling: see `requests`")]
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> impl Future<Output = Result<CreateMessageResult, ErrorData>> + MaybeSendFuture + '_ {
        self.answerers.sample(params)
    }

    fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> impl Future<Output = Result<ElicitResult, ErrorData>> + MaybeSendFuture + '_ {
        self.answerers.elicit(request)
    }

    fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.progress.report(&params);
        std::future::ready(())
    }

    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.refresh()
    }

    fn on_resource_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        // Resources appearing (or all going) add (or remove) the resource utilities.
        self.refresh()
    }

    fn on_prompt_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.refresh()
    }
}

/// rmcp's constant for `version`, one of `MCP_PROTOCOL_VERSIONS` (checked when the config
/// was read; anything else is 2026-07-28).
fn protocol_version(version: &str) -> ProtocolVersion {
    match version {
        "2024-11-05" => ProtocolVersion::V_2024_11_05,
        "2025-03-26" => ProtocolVersion::V_2025_03_26,
        "2025-06-18" => ProtocolVersion::V_2025_06_18,
        "2025-11-25" => ProtocolVersion::V_2025_11_25,
        _ => ProtocolVersion::V_2026_07_28,
    }
}

impl Handler {
    /// Asks the supervisor for a new listing. The refresh runs there, never in a notification
    /// callback: listing here would wait on the very message loop that is delivering the
    /// notification. A notification arriving mid-refresh leaves a permit, so the newest list
    /// is always fetched.
    fn refresh(&self) -> std::future::Ready<()> {
        if let Some(refresh) = self.refresh.upgrade() {
            refresh.notify_one();
        }
        std::future::ready(())
    }
}
