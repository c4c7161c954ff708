//! Streamable HTTP: `rmcp`'s tower service at `/mcp`, behind a gate.
//!
//! `rmcp` runs the protocol and the sessions; the gate in front of it (hyper calls it through
//! `route`, which matches the path) adds what a server facing a browser-capable machine needs,
//! and keeps every answer JSON:
//!
//! - **tokens**: with [`require_bearer`](super::ToolServer::require_bearer), a request
//!   without an accepted `Authorization: Bearer` token is answered 401 before anything else
//!   reads it (see [`bearer`](super::bearer)); with `require_oauth` (feature `mcp-remote`), an
//!   OAuth access token checked at the authorization server, the protected-resource metadata
//!   served at `/.well-known/oauth-protected-resource` (see `resource_server`); with neither,
//!   the endpoint listens on loopback only. Each session belongs to the identity whose token
//!   opened it, and is answered to any other as a session that does not exist (see
//!   [`owners`](super::owners));
//! - **Origin**: a request from an origin that is neither loopback nor allowed is refused with
//!   403 (see [`origin`](super::origin)); `Host` is checked by `rmcp` (DNS rebinding);
//! - **bodies**: a body that is not JSON is 400 with the JSON-RPC error `-32700`, JSON that is
//!   not a message is 400 with `-32600`, a body over
//!   [`max_message_bytes`](super::ToolServer::max_message_bytes) is 413 with `-32600`;
//! - **connections**: served by hyper with a header read timeout, a cap and `TCP_NODELAY`
//!   (see [`listen`]);
//! - **answers**: a request whose answer comes first, and soon, is answered with one JSON
//!   body, in one write; else with its SSE stream (see [`answer`]);
//! - **sessions**: a session idle for [`session_idle_timeout`](super::ToolServer::session_idle_timeout)
//!   (no request, and no stream of it open: see [`liveness`], which also states the disconnect
//!   rule) ends (its state is dropped; its id then gets 404); at most
//!   [`max_sessions`](super::ToolServer::max_sessions) live at once, and an `initialize` beyond
//!   that is **refused** with 503 and the JSON-RPC error `-32000` saying so. Refusing, rather than
//!   evicting the least recently used session, never ends a session a client is still using;
//!   the idle timeout is what frees the slots of clients that went away;
//! - **SSE polling**: a `tools/call`'s stream is watched for its id, so that its tool can
//!   close it and its answer wait for the client to come back (see [`polling`](super::polling));
//! - **DELETE** of a session answers 204 (the Python SDK accepts 200 and 204, not `rmcp`'s
//!   202), and 404 for a session that does not exist;
//! - **fleet** (feature `mcp-redis`): with a shared store, `rmcp` writes each new session to
//!   it and restores, on this replica, a session another replica opened; the gate answers an
//!   `initialize` whose session did not reach the store as 503 (rmcp only logs that), refreshes
//!   a session's record on each of its requests (in the background: a session held here is
//!   served while the store is down), and serves a DELETE of a session held elsewhere. With
//!   `replica_id`, every answer names this replica in `Hermes-Replica`;
//! - any other error `rmcp` answers as plain text (406, 415, 404, ...) keeps its status and
//!   gets a JSON-RPC error body.

mod answer;
pub(crate) mod bearer;
mod listen;
mod liveness;
#[cfg(feature = "mcp-remote")]
pub(crate) mod oauth;
pub(crate) mod origin;
mod owners;
pub(crate) mod polling;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::sync::Mutex;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::future::Either;
use futures_util::{FutureExt as _, StreamExt};
use rmcp::model::ErrorCode;
#[cfg(feature = "mcp-redis")]
use rmcp::transport::streamable_http_server::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
#[cfg(feature = "mcp-redis")]
use serde_json::Value;
use tokio::net::TcpListener;

use self::bearer::BearerTokens;
use self::listen::ConnectionLimits;
use self::liveness::Liveness;
#[cfg(feature = "mcp-remote")]
use self::oauth::{ResourceServer, ResourceServerError, Verdict};
use self::origin::AllowedOrigins;
use self::owners::{Owner, SessionOwners};
use self::polling::Streams;
use super::jsonrpc::{self, JsonRpcError};
use super::{ServeError, ToolServer};

// Header names as `HeaderName`s, not `&str`s: a `&str` is parsed anew at every lookup.

/// The header naming a Streamable HTTP session.
pub(super) const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");

/// The header naming the replica that answered (see `ToolServer::replica_id`).
const REPLICA_HEADER: HeaderName = HeaderName::from_static("hermes-replica");

/// The header naming a request's protocol version.
const PROTOCOL_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// A session id no session has (`rmcp`'s are UUIDs of version 4), put in place of another
/// identity's.
const NO_SESSION: &str = "00000000-0000-0000-0000-000000000000";

/// The header with which a client resumes a stream.
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// The messages of a call's stream kept for its client to resume from.
const STREAM_MESSAGES_KEPT: usize = 64;

/// The first protocol version without sessions, whose calls have no stream to come back to.
const SESSIONLESS_PROTOCOL: &str = "2026-07-28";

/// The longest error text of `rmcp`'s that is carried into a JSON body.
const ERROR_TEXT_BYTES: usize = 64 * 1024;

/// A bound Streamable HTTP endpoint, not yet serving; see [`ToolServer::bind_http`].
#[derive(Debug)]
pub struct HttpEndpoint {
    server: ToolServer,
    origins: AllowedOrigins,
    listener: TcpListener,
    addr: SocketAddr,
    /// OAuth resource-server mode, started (its authorization server found).
    #[cfg(feature = "mcp-remote")]
    oauth: Option<Arc<ResourceServer>>,
}

impl HttpEndpoint {
    pub(super) async fn bind(
        server: ToolServer,
        origins: AllowedOrigins,
        addr: SocketAddr,
    ) -> Result<Self, ServeError> {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        let addr = listener.local_addr()?;
        #[cfg(feature = "mcp-remote")]
        let oauth = match server.shared.limits.oauth.clone() {
            Some(config) => {
                // Tokens name the URL clients reach; an address bound on every interface is
                // not one, so the operator says it.
                if config.resource.is_none() && addr.ip().is_unspecified() {
                    return Err(ServeError::Authorization(ResourceServerError::new(
                        format!(
                            "{addr} is every interface, not a URL clients reach: give the endpoint's \
                         public URL (`--oauth-resource https://host/mcp`; \
                         `OAuthResourceConfig::resource`), which tokens are issued for"
                        ),
                    )));
                }
                let endpoint = format!("http://{addr}/mcp");
                Some(Arc::new(ResourceServer::start(config, &endpoint).await?))
            }
            None => None,
        };
        Ok(Self {
            server,
            origins,
            listener,
            addr,
            #[cfg(feature = "mcp-remote")]
            oauth,
        })
    }

    /// The address bound (with the port chosen, when port 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint's URL, `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Serves until the listener fails.
    ///
    /// # Errors
    ///
    /// An I/O error of the listener.
    pub async fn serve(self) -> Result<(), ServeError> {
        self.serve_until(std::future::pending()).await
    }

    /// Serves until `shutdown` completes, then ends every session and waits for open
    /// connections to close.
    ///
    /// # Errors
    ///
    /// An I/O error of the listener.
    pub async fn serve_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let limits = self.server.shared.limits.clone();
        // rmcp checks `Host` against these (DNS rebinding): the defaults are localhost,
        // 127.0.0.1 and ::1, so another loopback address bound must be added.
        let mut hosts = vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "::1".to_owned(),
        ];
        hosts.push(self.addr.ip().to_string());
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(hosts)
            // A 2026-07-28 answer that comes first goes out as one JSON body (see `answer`).
            .with_json_response(true)
            .with_max_request_body_bytes(limits.max_message_bytes);
        // A token is what a rebinding page lacks; clients name this host as they reach it.
        if self.server.authenticates() {
            config = config.disable_allowed_hosts();
        }
        let sessions_end = config.cancellation_token.clone();
        let mut manager = LocalSessionManager::default();
        // The gate keeps the idle clock (see `liveness`): rmcp's would end a session under a
        // long call.
        manager.session_config.keep_alive = None;
        // What a stream keeps for a client that comes back (rmcp's default is 16 messages): a
        // tool that closed its stream may report progress and ask questions meanwhile.
        manager.session_config.channel_capacity = STREAM_MESSAGES_KEPT;
        let manager = Arc::new(manager);
        // Sessions continued on any replica: rmcp keeps each session's `initialize` in the
        // store and replays it on a replica that does not hold the session.
        #[cfg(feature = "mcp-redis")]
        let sessions = limits
            .store
            .as_ref()
            .map(|store| Arc::new(store.session_store(limits.session_idle_timeout)));
        #[cfg(feature = "mcp-redis")]
        if let Some(sessions) = &sessions {
            config.session_store = Some(Arc::clone(sessions) as _);
        }
        let streams = Arc::new(Streams::new(
            Arc::clone(&manager),
            limits.session_idle_timeout,
        ));
        let liveness = Arc::new(Liveness::new(
            Arc::clone(&manager),
            limits.session_idle_timeout,
        ));
        tokio::spawn(Arc::clone(&liveness).sweep(sessions_end.clone()));
        let server = self.server;
        // Each session gets its own clone, and so its own session state (see `ToolServer`).
        let service =
            StreamableHttpService::new(move || Ok(server.clone()), Arc::clone(&manager), config);
        let gate = Gate {
            service,
            manager,
            streams,
            liveness,
            owners: SessionOwners::default(),
            bearer: limits.bearer.clone(),
            #[cfg(feature = "mcp-remote")]
            oauth: self.oauth,
            origins: self.origins,
            #[cfg(feature = "mcp-redis")]
            sessions,
            replica: limits.replica.clone(),
            max_sessions: limits.max_sessions,
            max_body: limits.max_message_bytes,
            idle: limits.session_idle_timeout,
            opening: Mutex::new(0),
        };
        let gate = Arc::new(gate);
        let connections = ConnectionLimits {
            max_connections: limits.max_connections,
            header_read_timeout: limits.header_read_timeout,
        };
        let answer = move |request| route(Arc::clone(&gate), request);
        listen::serve(self.listener, answer, connections, async move {
            shutdown.await;
            // Open SSE streams would otherwise hold the graceful shutdown forever.
            sessions_end.cancel();
        })
        .await;
        Ok(())
    }
}

/// What the handler in front of `rmcp` needs.
struct Gate {
    service: StreamableHttpService<ToolServer, LocalSessionManager>,
    manager: Arc<LocalSessionManager>,
    /// Calls' streams closed by their tools, until their clients are back.
    streams: Arc<Streams>,
    /// What keeps each session alive; ends the idle ones.
    liveness: Arc<Liveness>,
    /// Who opened each session, when tokens are required.
    owners: SessionOwners,
    /// The tokens a request must carry, when required.
    bearer: Option<Arc<BearerTokens>>,
    /// The resource server checking OAuth access tokens, when required.
    #[cfg(feature = "mcp-remote")]
    oauth: Option<Arc<ResourceServer>>,
    origins: AllowedOrigins,
    /// The sessions shared with the other replicas, when there is a store.
    #[cfg(feature = "mcp-redis")]
    sessions: Option<Arc<crate::mcp::server::store::RedisSessionStore>>,
    /// This replica's name, sent on every answer.
    replica: Option<HeaderValue>,
    max_sessions: usize,
    max_body: usize,
    idle: Duration,
    /// Sessions being opened (an `initialize` in flight), counted against the cap with the
    /// live ones so that concurrent `initialize`s cannot overshoot it.
    opening: Mutex<usize>,
}

/// A place taken for a session being opened; given back when dropped.
struct Opening<'a>(&'a Mutex<usize>);

impl Drop for Opening<'_> {
    fn drop(&mut self) {
        *self.0.lock() -= 1;
    }
}

/// Every request to the endpoint, by its path: the endpoint's, or its protected-resource
/// metadata (RFC 9728: at the well-known path, and at it followed by the endpoint's path).
///
/// Not an `async fn`, nor are the steps it adds to [`answer`]: hyper keeps the returned
/// future, and every `async` level around the endpoint's would hold its own copies of the
/// request (240 bytes each, for the whole call) and its inner future, which hyper's slot then
/// holds and may copy at every request (see `listen::serve`).
fn route(gate: Arc<Gate>, request: Request) -> impl Future<Output = Response> + Send {
    let immediate = match request.uri().path() {
        "/mcp" => {
            let replica = gate.replica.clone();
            return Either::Left(answer(gate, request).map(move |mut response| {
                if let Some(replica) = replica {
                    response.headers_mut().insert(REPLICA_HEADER, replica);
                }
                response
            }));
        }
        "/.well-known/oauth-protected-resource" | "/.well-known/oauth-protected-resource/mcp" => {
            if matches!(*request.method(), Method::GET | Method::HEAD) {
                protected_resource(&gate)
            } else {
                let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
                response
                    .headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("GET,HEAD"));
                response
            }
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    };
    Either::Right(std::future::ready(immediate))
}

/// The endpoint's answer to `request`: who is asking and from where are checked, then the
/// request is served by its method.
///
/// A plain function returning an `async` block, as [`Gate::post`] is: an `async fn` would
/// keep its arguments twice (as passed, and as its body's own bindings), 240 bytes more of
/// request in the future hyper keeps.
#[expect(
    clippy::manual_async_fn,
    reason = "an async fn would hold its arguments twice"
)]
fn answer(gate: Arc<Gate>, mut request: Request) -> impl Future<Output = Response> + Send {
    async move {
        let gate = &*gate;
        // Who is asking, when tokens are required: the sessions they open are theirs alone.
        let mut owner = None;
        if let Some(tokens) = &gate.bearer {
            let sent = request.headers().get(header::AUTHORIZATION);
            match tokens.admitted(sent.map(HeaderValue::as_bytes)) {
                Some(index) => owner = Some(owners::bearer(index)),
                None => return unauthorized(sent.is_some()),
            }
        }
        #[cfg(feature = "mcp-remote")]
        if let Some(oauth) = &gate.oauth {
            // Owned: the request (its body) is not held across the introspection's await.
            let authorization = request
                .headers()
                .get(header::AUTHORIZATION)
                .map(|value| value.as_bytes().to_vec());
            match oauth_check(oauth, &gate.owners, authorization.as_deref()).await {
                Ok(identity) => owner = Some(identity),
                Err(refusal) => return refusal,
            }
        }
        let origin = request
            .headers()
            .get(header::ORIGIN)
            .map(HeaderValue::as_bytes);
        if let Err(reason) = gate.origins.check(origin) {
            tracing::warn!(%reason, "refused an MCP request");
            let error = JsonRpcError::new(None, ErrorCode::INVALID_REQUEST.0, reason);
            return json_error(StatusCode::FORBIDDEN, &error);
        }
        if let Some(owner) = &owner
            && let Some(session) = session_of(request.headers())
            && !gate.owners.admits(session, owner)
        {
            // Answered exactly as a session that does not exist: whether it does is not this
            // caller's to learn.
            tracing::debug!("a request named a session another identity opened");
            request
                .headers_mut()
                .insert(SESSION_HEADER, HeaderValue::from_static(NO_SESSION));
        }
        match *request.method() {
            Method::POST => gate.post(request, owner).await,
            Method::DELETE => gate.delete(request).await,
            Method::GET => gate.get(request).await,
            _ => gate.forward(request, None).await,
        }
    }
}

/// The protected-resource metadata (RFC 9728), in OAuth resource-server mode; 404 otherwise.
fn protected_resource(gate: &Gate) -> Response {
    #[cfg(feature = "mcp-remote")]
    if let Some(oauth) = &gate.oauth {
        let body = oauth.metadata().to_string();
        return ([(header::CONTENT_TYPE, "application/json")], body).into_response();
    }
    let _ = gate;
    StatusCode::NOT_FOUND.into_response()
}

/// The identity of a request's accepted OAuth access token, or the answer to a request whose
/// token is missing or refused. The challenge names the metadata, where a client learns whom
/// to ask for a token.
#[cfg(feature = "mcp-remote")]
async fn oauth_check(
    oauth: &ResourceServer,
    owners: &SessionOwners,
    authorization: Option<&[u8]>,
) -> Result<Owner, Response> {
    let token = authorization
        .and_then(|value| {
            let (scheme, token) = value.split_at(value.len().min(7));
            scheme.eq_ignore_ascii_case(b"bearer ").then_some(token)
        })
        .filter(|token| !token.is_empty());
    let metadata = oauth.metadata_url();
    let (status, challenge, reason) = match token {
        None => (
            StatusCode::UNAUTHORIZED,
            format!(r#"Bearer resource_metadata="{metadata}""#),
            format!(
                "this server needs an OAuth access token: get one from the authorization \
                 server its metadata names ({metadata}) and send `Authorization: Bearer <token>`"
            ),
        ),
        Some(token) => match oauth.judge(token).await {
            Ok(Verdict::Accepted(owner)) => {
                return Ok(owner.unwrap_or_else(|| owners.token(token)));
            }
            Ok(Verdict::Invalid(reason)) => (
                StatusCode::UNAUTHORIZED,
                format!(r#"Bearer error="invalid_token", resource_metadata="{metadata}""#),
                format!("the access token was refused: {reason}"),
            ),
            Ok(Verdict::InsufficientScope) => {
                let scope = oauth.scope();
                (
                    StatusCode::FORBIDDEN,
                    format!(
                        r#"Bearer error="insufficient_scope", scope="{scope}", resource_metadata="{metadata}""#
                    ),
                    format!("the access token lacks the scope this server needs: {scope}"),
                )
            }
            Err(failure) => {
                tracing::warn!(%failure, "an MCP request's access token could not be checked");
                let error = JsonRpcError::new(
                    None,
                    ErrorCode::INTERNAL_ERROR.0,
                    "the access token could not be checked now (the authorization server did \
                     not answer, or too many tokens are being checked); try again later"
                        .to_owned(),
                );
                let mut busy = json_error(StatusCode::SERVICE_UNAVAILABLE, &error);
                busy.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                return Err(busy);
            }
        },
    };
    tracing::warn!(status = status.as_u16(), "refused an MCP request: {reason}");
    let error = JsonRpcError::new(None, ErrorCode::INVALID_REQUEST.0, reason);
    let mut response = json_error(status, &error);
    if let Ok(challenge) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, challenge);
    }
    Err(response)
}

/// 401 for a request without an accepted token, with the challenge RFC 6750 asks for.
fn unauthorized(sent: bool) -> Response {
    tracing::warn!(
        token_sent = sent,
        "refused an MCP request: no accepted bearer token"
    );
    let (challenge, reason) = if sent {
        (
            r#"Bearer realm="mcp", error="invalid_token""#,
            "the bearer token sent is not one this server accepts; send \
             `Authorization: Bearer <token>` with a token its operator gave you",
        )
    } else {
        (
            r#"Bearer realm="mcp""#,
            "this server needs a bearer token: send `Authorization: Bearer <token>` with a \
             token its operator gave you",
        )
    };
    let error = JsonRpcError::new(None, ErrorCode::INVALID_REQUEST.0, reason.to_owned());
    let mut response = json_error(StatusCode::UNAUTHORIZED, &error);
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(challenge),
    );
    response
}

impl Gate {
    /// A POST; a session it opens is `owner`'s, when tokens are required.
    ///
    /// Not an `async fn`: its future would hold the request as passed beside the parts taken
    /// from it (see [`answer`]).
    fn post(
        &self,
        request: Request,
        owner: Option<Owner>,
    ) -> impl Future<Output = Response> + Send {
        let (mut parts, body) = request.into_parts();
        async move {
            let bytes = match read_body(body, self.max_body).await {
                Ok(bytes) => bytes,
                Err(response) => return response,
            };
            let session = session_of(&parts.headers);
            self.touch(session);
            // Only the method and id are read here: `rmcp` parses the message itself, and a body it
            // cannot read is answered with what is wrong with it (see `forward_body`).
            let Some(envelope) = jsonrpc::envelope(&bytes) else {
                return refused(&bytes);
            };
            let opens_session = envelope.is_request("initialize") && session.is_none();
            let is_call = envelope.is_request("tools/call");
            // A call in a session is answered on a stream its tool may close (SSE polling).
            let sessionless = parts
                .headers
                .get(PROTOCOL_HEADER)
                .and_then(|value| value.to_str().ok())
                .is_some_and(|version| version >= SESSIONLESS_PROTOCOL);
            let call = match session {
                Some(session) if is_call && !sessionless => Some(self.streams.call(session)),
                _ => None,
            };
            let session = session.map(str::to_owned);
            if let Some(call) = &call {
                parts.extensions.insert(Arc::clone(call));
            }
            let request = Request::from_parts(parts, Body::from(bytes.clone()));
            if !opens_session {
                let response = self.forward_body(request, &envelope, &bytes).await;
                let response = match call {
                    Some(call) if has_content_type(&response, "text/event-stream") => {
                        response.map(|body| call.watch(body))
                    }
                    _ => response,
                };
                let response = self.live(session.as_deref(), response).await;
                return answer::prefer_json(response).await;
            }
            let Some(place) = self.open().await else {
                tracing::warn!(limit = self.max_sessions, "refused a new MCP session: full");
                let error = JsonRpcError::new(
                    envelope.id(),
                    jsonrpc::SERVER_BUSY,
                    format!(
                        "Too many sessions: this server holds at most {} MCP sessions at once and \
                     all are in use, so no session was opened. End one (HTTP DELETE with its \
                     Mcp-Session-Id) or retry later: a session idle for {} s ends by itself.",
                        self.max_sessions,
                        self.idle.as_secs()
                    ),
                );
                return json_error(StatusCode::SERVICE_UNAVAILABLE, &error);
            };
            let response =
                answer::prefer_json(self.forward_body(request, &envelope, &bytes).await).await;
            // rmcp has registered the session (or failed to) by the time it answers.
            drop(place);
            if response.status().is_success()
                && let Some(session) = session_of(response.headers())
            {
                self.liveness.enter(session);
            }
            #[cfg(feature = "mcp-redis")]
            let response = self.shared(response, envelope.id()).await;
            if let Some(owner) = owner
                && let Some(session) = session_of(response.headers())
            {
                let live = self.manager.sessions.read().await;
                self.owners
                    .bind(session, owner, |session| live.contains_key(session));
            }
            response
        }
    }

    /// Takes a place for a new session, if there is one left.
    async fn open(&self) -> Option<Opening<'_>> {
        // The read guard keeps sessions from being added while the places are counted.
        let live = self.manager.sessions.read().await;
        let mut opening = self.opening.lock();
        if live.len() + *opening >= self.max_sessions {
            return None;
        }
        *opening += 1;
        Some(Opening(&self.opening))
    }

    /// A GET opens the session's stream, or resumes one after `Last-Event-ID`: a call whose
    /// tool closed that stream sends its answer once the resumed stream is flowing.
    async fn get(&self, request: Request) -> Response {
        let headers = request.headers();
        self.touch(session_of(headers));
        let resuming = session_of(headers)
            .zip(
                headers
                    .get(LAST_EVENT_ID)
                    .and_then(|value| value.to_str().ok()),
            )
            .and_then(|(session, last)| self.streams.resuming(session, last));
        let session = session_of(request.headers()).map(str::to_owned);
        let response = self.forward(request, None).await;
        let response = match resuming {
            Some(call) => response.map(|body| call.resumed(body)),
            None => response,
        };
        self.live(session.as_deref(), response).await
    }

    /// `response` to a request naming `session`: the session's clock restarts, and a stream
    /// keeps it alive while open (see [`liveness`]).
    ///
    /// Only a session `rmcp` holds is listed: it serves a request of the 2026-07-28 era
    /// without a session, whatever `Mcp-Session-Id` it names, and an id a client made up must
    /// take no place on the list. Whatever the answer: `rmcp` may restore a session from the
    /// shared store and then refuse the request (a bad header), and a session never listed
    /// would never be ended when idle.
    async fn live(&self, session: Option<&str>, response: Response) -> Response {
        let Some(session) = session else {
            return response;
        };
        if !self.liveness.touch(session) {
            // Unlisted: a session restored from the shared store (another replica opened it)
            // is listed now; an id no session of rmcp's has is not.
            let live = self.manager.sessions.read().await;
            if !live.contains_key(session) {
                return response;
            }
            self.liveness.enter(session);
        }
        if response.status().is_success() && has_content_type(&response, "text/event-stream") {
            response.map(|body| self.liveness.hold(session, body))
        } else {
            response
        }
    }

    async fn delete(&self, request: Request) -> Response {
        let session = session_of(request.headers()).map(str::to_owned);
        if let Some(session) = &session
            && !self
                .manager
                .sessions
                .read()
                .await
                .contains_key(session.as_str())
        {
            #[cfg(feature = "mcp-redis")]
            match self.held_elsewhere(session).await {
                // rmcp ends it here (nothing to end) and in the store.
                Ok(true) => {}
                Ok(false) => return no_such_session(),
                Err(response) => return response,
            }
            #[cfg(not(feature = "mcp-redis"))]
            return no_such_session();
        }
        let mut response = self.forward(request, None).await;
        if response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
            if let Some(session) = &session {
                self.liveness.forget(session);
            }
        }
        response
    }

    /// Keeps a shared session's record for another idle timeout, without holding up the
    /// request: a session this replica holds is served even while the store is down.
    fn touch(&self, session: Option<&str>) {
        #[cfg(feature = "mcp-redis")]
        if let (Some(sessions), Some(session)) = (&self.sessions, session) {
            let (sessions, session) = (Arc::clone(sessions), session.to_owned());
            tokio::spawn(async move {
                if let Err(err) = sessions.touch(&session).await {
                    tracing::warn!(%err, "a shared session's record was not refreshed");
                }
            });
        }
        #[cfg(not(feature = "mcp-redis"))]
        let _ = session;
    }

    /// Whether the store holds a session this replica does not (a DELETE of it is then
    /// served); the answer to give when the store failed.
    #[cfg(feature = "mcp-redis")]
    async fn held_elsewhere(&self, session: &str) -> Result<bool, Response> {
        let Some(sessions) = &self.sessions else {
            return Ok(false);
        };
        sessions
            .holds(session)
            .await
            .map_err(|err| store_failed(None, &err))
    }

    /// The answer to an `initialize`, once its session is in the store: rmcp only logs a
    /// failure to store it, which would leave a session the other replicas cannot continue.
    #[cfg(feature = "mcp-redis")]
    async fn shared(&self, response: Response, id: Option<Value>) -> Response {
        let (Some(sessions), Some(session)) = (&self.sessions, session_of(response.headers()))
        else {
            return response;
        };
        let failure = match sessions.holds(session).await {
            Ok(true) => return response,
            Ok(false) => crate::mcp::server::StoreError::from_message(
                "the new session was not written to the shared store".to_owned(),
            ),
            Err(err) => err,
        };
        // Not shared, so not opened: the client retries, and another replica may succeed.
        let session = session.to_owned();
        if let Err(err) = self.manager.close_session(&session.into()).await {
            tracing::warn!(%err, "an unshared session could not be ended");
        }
        store_failed(id, &failure)
    }

    /// [`forward`](Self::forward) of a POST whose body is `bytes`: a body `rmcp` could not
    /// read as a message (415) is answered with what is wrong with it, as a JSON-RPC error.
    async fn forward_body(
        &self,
        request: Request,
        envelope: &jsonrpc::Envelope<'_>,
        bytes: &Bytes,
    ) -> Response {
        let response = self.forward(request, Some(envelope)).await;
        if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE
            && let Some(error) = jsonrpc::refusal(bytes)
        {
            return json_error(StatusCode::BAD_REQUEST, &error);
        }
        response
    }

    /// `rmcp` answers; a plain-text error of its gets a JSON-RPC body (with the id of the
    /// message in `envelope`, if known).
    async fn forward(
        &self,
        request: Request,
        envelope: Option<&jsonrpc::Envelope<'_>>,
    ) -> Response {
        // Boxed: rmcp's future is about 7 KB, and each async fn that awaited it in place would
        // carry (and move) all of it; on the heap, it is moved once.
        let response = Box::pin(self.service.handle(request)).await.map(Body::new);
        let status = response.status();
        let is_json = has_content_type(&response, "application/json");
        if !(status.is_client_error() || status.is_server_error()) || is_json {
            return response;
        }
        let (parts, body) = response.into_parts();
        let text = axum::body::to_bytes(body, ERROR_TEXT_BYTES)
            .await
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default();
        let code = if status.is_server_error() {
            ErrorCode::INTERNAL_ERROR.0
        } else {
            ErrorCode::INVALID_REQUEST.0
        };
        let message = if text.is_empty() {
            status.canonical_reason().unwrap_or("error").to_owned()
        } else {
            text
        };
        let id = envelope.and_then(jsonrpc::Envelope::id);
        let mut rewritten = json_error(status, &JsonRpcError::new(id, code, message));
        // Keep what the status needs (`Allow` on a 405, say).
        for (name, value) in &parts.headers {
            if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
                rewritten.headers_mut().insert(name, value.clone());
            }
        }
        rewritten
    }
}

/// 503 for a request the shared store failed: what failed, and to retry.
#[cfg(feature = "mcp-redis")]
fn store_failed(id: Option<Value>, err: &crate::mcp::server::StoreError) -> Response {
    tracing::warn!(%err, "an MCP request failed on the shared store");
    let error = JsonRpcError::new(
        id,
        ErrorCode::INTERNAL_ERROR.0,
        format!("the request could not be served: {err}; retry later"),
    );
    let mut response = json_error(StatusCode::SERVICE_UNAVAILABLE, &error);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// 400 for a body that is not a JSON-RPC message, saying what is wrong with it.
fn refused(bytes: &[u8]) -> Response {
    let error = jsonrpc::refusal(bytes).unwrap_or_else(jsonrpc::not_a_message);
    json_error(StatusCode::BAD_REQUEST, &error)
}

/// 404 for a request naming a session that does not exist (for its caller).
fn no_such_session() -> Response {
    let error = JsonRpcError::new(
        None,
        ErrorCode::INVALID_REQUEST.0,
        "Not Found: no such session (it ended, expired, or never existed).",
    );
    json_error(StatusCode::NOT_FOUND, &error)
}

/// The session a request names, if any.
fn session_of(headers: &axum::http::HeaderMap) -> Option<&str> {
    headers
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
}

/// Whether `response`'s body is of media type `media` (parameters aside).
fn has_content_type(response: &Response, media: &str) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with(media))
}

/// The body, up to `limit` bytes; a longer body is answered 413 without reading the rest.
///
/// A body hyper read in one piece (a small POST with its `Content-Length`: nearly every
/// message) is returned as that piece, not copied; only a body that came in several is joined.
async fn read_body(body: Body, limit: usize) -> Result<Bytes, Response> {
    let mut stream = body.into_data_stream();
    let mut first = Bytes::new();
    let mut joined: Option<Vec<u8>> = None;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|err| {
            let error = JsonRpcError::new(
                None,
                ErrorCode::INVALID_REQUEST.0,
                format!("Invalid Request: the body could not be read: {err}."),
            );
            json_error(StatusCode::BAD_REQUEST, &error)
        })?;
        let read = joined.as_ref().map_or(first.len(), Vec::len);
        if read + chunk.len() > limit {
            let head = [joined.as_deref().unwrap_or(&first), &chunk].concat();
            let head = &head[..jsonrpc::id_search_bytes(limit).min(head.len())];
            return Err(json_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                &jsonrpc::oversize(head, limit),
            ));
        }
        match &mut joined {
            Some(joined) => joined.extend_from_slice(&chunk),
            None if first.is_empty() => first = chunk,
            None => joined = Some([&first[..], &chunk].concat()),
        }
    }
    Ok(joined.map_or(first, Bytes::from))
}

fn json_error(status: StatusCode, error: &JsonRpcError) -> Response {
    let body = error.to_value().to_string();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_of(chunks: &[&'static [u8]]) -> (Body, Vec<Bytes>) {
        let chunks: Vec<Bytes> = chunks.iter().copied().map(Bytes::from_static).collect();
        let stream =
            futures_util::stream::iter(chunks.clone().into_iter().map(Ok::<_, axum::Error>));
        (Body::from_stream(stream), chunks)
    }

    #[tokio::test]
    async fn a_body_in_one_piece_is_that_piece_and_one_in_several_is_joined() {
        let (body, chunks) = body_of(&[br#"{"jsonrpc":"2.0","method":"ping","id":1}"#]);
        let read = read_body(body, 1024).await.expect("within the limit");
        assert_eq!(read, chunks[0]);
        assert_eq!(read.as_ptr(), chunks[0].as_ptr(), "not copied");

        let (body, _) = body_of(&[
            br#"{"jsonrpc":"2.0","#,
            b"",
            br#""method":"ping","#,
            br#""id":1}"#,
        ]);
        let read = read_body(body, 1024).await.expect("within the limit");
        assert_eq!(&read[..], br#"{"jsonrpc":"2.0","method":"ping","id":1}"#);

        let (body, _) = body_of(&[]);
        assert!(read_body(body, 1024).await.expect("empty").is_empty());
    }

    #[tokio::test]
    async fn a_body_over_the_limit_in_any_piece_is_413_with_the_id_read_so_far() {
        for chunks in [
            &[
                br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"0123456789"}}"#
                    .as_slice(),
            ][..],
            &[
                br#"{"jsonrpc":"2.0","id":7,"#.as_slice(),
                br#""method":"tools/call","#,
                br#""params":{"x":"0123456789"}}"#,
            ][..],
        ] {
            let (body, _) = body_of(chunks);
            let refused = read_body(body, 48).await.expect_err("over the limit");
            assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
            let text = axum::body::to_bytes(refused.into_body(), 4096)
                .await
                .expect("the body");
            let error: serde_json::Value = serde_json::from_slice(&text).expect("JSON");
            assert_eq!(error["id"], 7, "{error}");
            assert!(
                error["error"]["message"]
                    .as_str()
                    .expect("a message")
                    .contains("48 bytes"),
                "{error}"
            );
        }
    }
}
