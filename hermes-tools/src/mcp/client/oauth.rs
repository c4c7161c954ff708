//! OAuth 2.1 authorization of remote servers (`[mcp_servers.<name>.oauth]`), on rmcp's OAuth
//! client: discovery, client identification, PKCE, token exchange and refresh are rmcp's; what
//! is here decides when to authorize, who approves, and where the tokens live.
//!
//! Authorization is reactive, as the MCP specification describes it: a request goes out with
//! the stored token (or none), and the server's challenge drives the rest. A 401 (no token, or
//! one that neither works nor refreshes) or a 403 `insufficient_scope` (step-up: the operation
//! needs more scopes) starts an authorization seeded by the challenge's `WWW-Authenticate`
//! header, approved through the agent's [`Authorizer`], and the request is sent once more with
//! the new token. A server that refuses token after token is not asked forever: after
//! [`MAX_AUTHORIZATIONS`] authorizations without a request it accepted, the client stops and
//! the connection fails, saying so.
//!
//! A machine client (`grant = "client_credentials"`, MCP's
//! `io.modelcontextprotocol/oauth-client-credentials` extension) asks no one: rmcp's client
//! credentials flow (`OAuthState::authenticate_client_credentials`, with a client secret or a
//! `private_key_jwt` assertion) gets its token when the connection starts, and again whenever
//! the server challenges, which is also what an expired token leads to (such a token has no
//! refresh token: rmcp sends the request without it, and the 401 brings a new one). A refused
//! credential is an error naming the settings to check; the secret is never in it.

#[cfg(feature = "mcp-remote")]
pub(super) use flow::OAuth;
#[cfg(feature = "mcp-remote")]
mod machine;
use std::fmt;

/// Without `mcp-remote` no server is authorized (a remote server is reported failed).
#[cfg(not(feature = "mcp-remote"))]
pub(super) enum OAuth {}

use crate::call::combinators::BoxFuture;

/// What the user is asked to approve when a server needs authorization.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthorizationPrompt {
    /// The server's name in the configuration.
    pub server: String,
    /// Where the user approves the access: open it in a browser.
    pub url: String,
    /// Where the authorization server sends the browser back, with the code, once approved
    /// (`oauth.redirect_uri`).
    pub redirect_uri: String,
}

/// Has the user approve an MCP server's access, for an agent that reaches servers behind OAuth
/// ([`McpOptions::authorizer`](super::McpOptions::authorizer)).
///
/// The implementation opens (or shows) `prompt.url`, waits for the browser to be sent back to
/// `prompt.redirect_uri`, and returns that full URL, holding `code` and `state`. The CLI's
/// prints the URL and listens on the redirect URI's loopback port. Without an authorizer a
/// server with no stored token fails to connect, saying that it needs one.
///
/// ```
/// use hermes_tools::call::BoxFuture;
/// use hermes_tools::mcp::client::{AuthorizationPrompt, Authorizer};
///
/// /// Hands the URL to the agent's UI and waits for the redirect it captures.
/// #[derive(Debug)]
/// struct Ui;
///
/// impl Authorizer for Ui {
///     fn authorize(&self, prompt: AuthorizationPrompt) -> BoxFuture<'static, Result<String, String>> {
///         Box::pin(async move {
///             Err(format!("open {} and try again", prompt.url))
///         })
///     }
/// }
/// ```
pub trait Authorizer: Send + Sync + fmt::Debug {
    /// The URL the browser was sent back to after the user approved `prompt.url`, or why
    /// there is none (declined, timed out).
    fn authorize(&self, prompt: AuthorizationPrompt) -> BoxFuture<'static, Result<String, String>>;
}

/// Authorizations in a row, none followed by a request the server accepted, after which the
/// client gives up (the MCP specification asks clients to bound step-up retries).
pub const MAX_AUTHORIZATIONS: u32 = 3;

/// The least time a connection that may need the user's approval is given to connect.
#[cfg(feature = "mcp-remote")]
pub(super) const APPROVAL_TIME: std::time::Duration = std::time::Duration::from_secs(300);

#[cfg(feature = "mcp-remote")]
mod flow {
    use std::collections::HashMap;
    use std::future::Future;
    use std::path::{Path, PathBuf};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

    use crate::sync::Mutex;
    use futures_util::stream::BoxStream;
    use http::{HeaderName, HeaderValue};
    use rmcp::model::ClientJsonRpcMessage;
    use rmcp::transport::auth::{
        AuthClient, AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationRequest,
        CredentialStore, InMemoryCredentialStore, OAuthState, StoredCredentials,
    };
    use rmcp::transport::streamable_http_client::{
        StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
        StreamableHttpResponseLimits,
    };
    use sse_stream::{Error as SseError, Sse};

    use super::{AuthorizationPrompt, Authorizer, MAX_AUTHORIZATIONS, machine};
    use crate::config::{OAuthConfig, OAuthGrant};

    /// One server's authorization: its settings, its tokens, and who approves.
    pub(in crate::mcp::client) struct OAuth {
        server: String,
        url: String,
        config: OAuthConfig,
        tokens: Tokens,
        authorizer: Option<Arc<dyn Authorizer>>,
        /// Authorizations since the server last accepted a request.
        unanswered: AtomicU32,
        /// Authorizations completed: a request that failed before the latest one is sent again
        /// with its token instead of asking the user again.
        authorized: AtomicU64,
        /// Why the last authorization failed, for the connection's error.
        failure: Mutex<Option<String>>,
        /// One authorization at a time: a burst of 401s asks the user once.
        running: tokio::sync::Mutex<()>,
    }

    impl OAuth {
        pub(in crate::mcp::client) fn new(
            server: &str,
            url: &str,
            config: &OAuthConfig,
            authorizer: Option<Arc<dyn Authorizer>>,
        ) -> Self {
            let tokens = match &config.token_store {
                Some(path) => Tokens::File(Arc::from(path.as_path())),
                None => Tokens::Memory(InMemoryCredentialStore::new()),
            };
            Self {
                server: server.to_owned(),
                url: url.to_owned(),
                config: config.clone(),
                tokens,
                authorizer,
                unanswered: AtomicU32::new(0),
                authorized: AtomicU64::new(0),
                failure: Mutex::new(None),
                running: tokio::sync::Mutex::new(()),
            }
        }

        /// The HTTP client of one connection: `http` carrying the server's token, authorizing
        /// when the server challenges.
        pub(in crate::mcp::client) async fn client(
            self: &Arc<Self>,
            http: reqwest::Client,
        ) -> Result<Authorizing, String> {
            *self.failure.lock() = None;
            let manager = if self.machine() {
                // A machine has its token before its first request.
                self.client_credentials().await?
            } else {
                self.manager().await?
            };
            Ok(Authorizing {
                inner: AuthClient::new(http, manager),
                oauth: Arc::clone(self),
            })
        }

        /// How long a connection may take: `limit`, or when the user may have to approve,
        /// at least [`APPROVAL_TIME`](super::APPROVAL_TIME).
        pub(in crate::mcp::client) fn connect_limit(
            &self,
            limit: std::time::Duration,
        ) -> std::time::Duration {
            if self.authorizer.is_some() && !self.machine() {
                limit.max(super::APPROVAL_TIME)
            } else {
                limit
            }
        }

        /// Why the last authorization failed, if it did since the connection began.
        pub(in crate::mcp::client) fn failure(&self) -> Option<String> {
            self.failure.lock().clone()
        }

        /// Whether the client authorizes as itself (`grant = "client_credentials"`), no user
        /// involved.
        fn machine(&self) -> bool {
            self.config.grant == OAuthGrant::ClientCredentials
        }

        /// A manager holding a token got with the client's own credentials.
        async fn client_credentials(&self) -> Result<AuthorizationManager, String> {
            let credentials = machine::credentials(&self.config, &self.url)?;
            let manager = self.unconfigured().await?;
            // rmcp 3.11's exchange holds a `form_urlencoded::Serializer` (not `Send`) across
            // an await when `private_key_jwt` is built in, so its future cannot move between
            // workers: it runs to completion on a blocking thread of this runtime instead.
            let runtime = tokio::runtime::Handle::current();
            let exchange = tokio::task::spawn_blocking(move || {
                runtime.block_on(async move {
                    let mut state = OAuthState::Unauthorized(manager);
                    let result = state.authenticate_client_credentials(credentials).await;
                    result.map(|()| state.into_authorization_manager())
                })
            });
            let manager = exchange
                .await
                .map_err(|err| {
                    format!("getting a token with this client's credentials failed: {err}")
                })?
                .map_err(|err| machine::refused(&self.config, &err.to_string()))?;
            tracing::info!(server = %self.server, "MCP server authorized this client's credentials");
            manager.ok_or_else(|| "the client credentials did not end authorized".to_owned())
        }

        /// A manager of the server's authorization over its token store, as it comes.
        async fn unconfigured(&self) -> Result<AuthorizationManager, String> {
            let mut manager = AuthorizationManager::new(self.url.as_str())
                .await
                .map_err(|err| format!("its OAuth client could not be set up: {err}"))?;
            manager.set_credential_store(self.tokens.clone());
            Ok(manager)
        }

        /// A manager over the server's token store; with a stored token, configured for it.
        async fn manager(&self) -> Result<AuthorizationManager, String> {
            let mut manager = self.unconfigured().await?;
            manager
                .initialize_from_store()
                .await
                .map_err(|err| format!("its stored OAuth token could not be used: {err}"))?;
            Ok(manager)
        }

        /// The server accepted a request: the count of authorizations starts again.
        fn accepted(&self) {
            self.unanswered.store(0, Ordering::Relaxed);
        }

        /// Authorizes anew after the server's `challenge`, and gives `client` the manager of
        /// the new token. `step_up`: the challenge is a 403 for more scopes, which it names.
        /// `sent_after`: the authorizations completed when the refused request was sent; if
        /// one has completed since, its token is used and the user is not asked again.
        async fn authorize(
            &self,
            client: &AuthClient<reqwest::Client>,
            challenge: &str,
            step_up: bool,
            sent_after: u64,
        ) -> Result<(), String> {
            let _one = self.running.lock().await;
            if self.authorized.load(Ordering::Acquire) != sent_after {
                return Ok(());
            }
            let result = self.authorize_once(challenge, step_up).await;
            match result {
                Ok(manager) => {
                    *client.auth_manager.lock().await = manager;
                    *self.failure.lock() = None;
                    self.authorized.fetch_add(1, Ordering::Release);
                    Ok(())
                }
                Err(why) => {
                    tracing::warn!(server = %self.server, error = %crate::secrets::redact(&why), "MCP authorization failed");
                    *self.failure.lock() = Some(why.clone());
                    Err(why)
                }
            }
        }

        async fn authorize_once(
            &self,
            challenge: &str,
            step_up: bool,
        ) -> Result<AuthorizationManager, String> {
            let attempt = self.unanswered.fetch_add(1, Ordering::Relaxed) + 1;
            if attempt > MAX_AUTHORIZATIONS {
                return Err(format!(
                    "it refused the tokens of {MAX_AUTHORIZATIONS} authorizations in a row \
                     ({}), so the client stopped asking; check the scopes its operator \
                     granted this client",
                    if step_up {
                        "each lacking a scope it wants"
                    } else {
                        "each invalid"
                    }
                ));
            }
            if self.machine() {
                if step_up {
                    return Err(format!(
                        "it wants scopes beyond `oauth.scopes` {:?} ({challenge}); a \
                         `client_credentials` client asks for the scopes it is configured \
                         with: add those the server names",
                        self.config.scopes
                    ));
                }
                return self.client_credentials().await;
            }
            let Some(authorizer) = &self.authorizer else {
                return Err("it needs an OAuth authorization, and this agent has no \
                            authorizer to ask the user with (McpOptions::authorizer; the CLI \
                            has one): authorize once with the CLI and a `token_store`, or \
                            give the agent an authorizer"
                    .to_owned());
            };
            let mut request = AuthorizationRequest::new(&self.config.redirect_uri)
                .with_client_name(&self.config.client_name)
                .with_challenge(challenge);
            // A step-up asks for what the challenge names; the configured scopes are the
            // first authorization's.
            if !step_up && !self.config.scopes.is_empty() {
                request = request.with_scopes(self.config.scopes.iter().cloned());
            }
            if let Some(id) = &self.config.client_id {
                request = request.with_preregistered_client(id);
            }
            if let Some(secret) = &self.config.client_secret {
                request = request.with_client_secret(crate::mcp::client::expand::expand(
                    "oauth.client_secret",
                    secret,
                )?);
            }
            if let Some(url) = &self.config.client_metadata_url {
                request = request.with_client_metadata_url(url);
            }
            let failed = |step: &str, err: AuthError| format!("{step} failed: {err}");
            let mut state = OAuthState::Unauthorized(self.unconfigured().await?);
            state
                .start_authorization(request)
                .await
                .map_err(|err| failed("starting its OAuth authorization", err))?;
            let url = state
                .get_authorization_url()
                .await
                .map_err(|err| failed("building its authorization URL", err))?;
            tracing::info!(server = %self.server, step_up, "MCP server asks for authorization");
            let redirect = authorizer
                .authorize(AuthorizationPrompt {
                    server: self.server.clone(),
                    url,
                    redirect_uri: self.config.redirect_uri.clone(),
                })
                .await
                .map_err(|why| format!("its authorization was not approved: {why}"))?;
            let callback = AuthorizationCallback::from_redirect_url(&redirect)
                .map_err(|err| failed("reading the authorization's redirect", err))?;
            state
                .handle_callback_with_issuer(
                    &callback.code,
                    &callback.csrf_token,
                    callback.issuer.as_deref(),
                )
                .await
                .map_err(|err| failed("exchanging the authorization code", err))?;
            state
                .into_authorization_manager()
                .ok_or_else(|| "the authorization did not end authorized".to_owned())
        }
    }

    /// Where a server's tokens live: in memory, or in the operator's file.
    #[derive(Clone)]
    enum Tokens {
        Memory(InMemoryCredentialStore),
        File(Arc<Path>),
    }

    fn store_error(path: &Path, what: &str, err: impl std::fmt::Display) -> AuthError {
        AuthError::CredentialStoreError(format!("{what} {}: {err}", path.display()))
    }

    // Plain `std::fs`: a token file is a few hundred bytes, read when a connection starts
    // and written when a token is issued or refreshed.
    #[async_trait::async_trait]
    impl CredentialStore for Tokens {
        async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
            match self {
                Tokens::Memory(memory) => memory.load().await,
                Tokens::File(path) => match std::fs::read(path) {
                    Ok(bytes) => serde_json::from_slice(&bytes)
                        .map(Some)
                        .map_err(|err| store_error(path, "cannot read the token file", err)),
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(err) => Err(store_error(path, "cannot read the token file", err)),
                },
            }
        }

        async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
            match self {
                Tokens::Memory(memory) => memory.save(credentials).await,
                Tokens::File(path) => {
                    let text = serde_json::to_vec_pretty(&credentials)
                        .map_err(|err| store_error(path, "cannot encode the tokens for", err))?;
                    write_private(path, &text)
                        .map_err(|err| store_error(path, "cannot write the token file", err))
                }
            }
        }

        async fn clear(&self) -> Result<(), AuthError> {
            match self {
                Tokens::Memory(memory) => memory.clear().await,
                Tokens::File(path) => match std::fs::remove_file(path) {
                    Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                        Err(store_error(path, "cannot remove the token file", err))
                    }
                    _ => Ok(()),
                },
            }
        }
    }

    /// Writes `bytes` to `path` readable by its owner only, whole or not at all (a temporary
    /// file beside it, renamed over it).
    fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        let mut temporary = PathBuf::from(path);
        temporary.as_mut_os_string().push(".partial");
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    }

    /// The HTTP client of an authorized connection: rmcp's [`AuthClient`] (token attached,
    /// refreshed when it expires), which this wraps to authorize when the server challenges
    /// and send the request again, once.
    #[derive(Clone)]
    pub(in crate::mcp::client) struct Authorizing {
        inner: AuthClient<reqwest::Client>,
        oauth: Arc<OAuth>,
    }

    type HttpResult<T> = Result<T, StreamableHttpError<reqwest::Error>>;

    impl Authorizing {
        /// `call`, and when the server challenges it, an authorization and `call` again.
        async fn challenged<T, F, Fut>(&self, call: F) -> HttpResult<T>
        where
            F: Fn() -> Fut,
            Fut: Future<Output = HttpResult<T>>,
        {
            let sent_after = self.oauth.authorized.load(Ordering::Acquire);
            let first = call().await;
            let (challenge, step_up) = match &first {
                Ok(_) => {
                    self.oauth.accepted();
                    return first;
                }
                Err(StreamableHttpError::AuthRequired(error)) => {
                    (error.www_authenticate_header.clone(), false)
                }
                Err(StreamableHttpError::InsufficientScope(error)) => {
                    (error.www_authenticate_header.clone(), true)
                }
                Err(_) => return first,
            };
            if self
                .oauth
                .authorize(&self.inner, &challenge, step_up, sent_after)
                .await
                .is_err()
            {
                return first;
            }
            let again = call().await;
            if again.is_ok() {
                self.oauth.accepted();
            }
            again
        }
    }

    impl StreamableHttpClient for Authorizing {
        type Error = reqwest::Error;

        async fn post_message(
            &self,
            uri: Arc<str>,
            message: ClientJsonRpcMessage,
            session_id: Option<Arc<str>>,
            auth_header: Option<String>,
            custom_headers: HashMap<HeaderName, HeaderValue>,
        ) -> HttpResult<StreamableHttpPostResponse> {
            self.challenged(|| {
                self.inner.post_message(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    auth_header.clone(),
                    custom_headers.clone(),
                )
            })
            .await
        }

        async fn post_message_with_response_limits(
            &self,
            uri: Arc<str>,
            message: ClientJsonRpcMessage,
            session_id: Option<Arc<str>>,
            auth_header: Option<String>,
            custom_headers: HashMap<HeaderName, HeaderValue>,
            limits: StreamableHttpResponseLimits,
        ) -> HttpResult<StreamableHttpPostResponse> {
            self.challenged(|| {
                self.inner.post_message_with_response_limits(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    auth_header.clone(),
                    custom_headers.clone(),
                    limits,
                )
            })
            .await
        }

        async fn delete_session(
            &self,
            uri: Arc<str>,
            session_id: Arc<str>,
            auth_header: Option<String>,
            custom_headers: HashMap<HeaderName, HeaderValue>,
        ) -> HttpResult<()> {
            // Ending a session is no reason to ask the user for an approval.
            self.inner
                .delete_session(uri, session_id, auth_header, custom_headers)
                .await
        }

        async fn get_stream(
            &self,
            uri: Arc<str>,
            session_id: Option<Arc<str>>,
            last_event_id: Option<String>,
            auth_header: Option<String>,
            custom_headers: HashMap<HeaderName, HeaderValue>,
        ) -> HttpResult<BoxStream<'static, Result<Sse, SseError>>> {
            self.challenged(|| {
                self.inner.get_stream(
                    uri.clone(),
                    session_id.clone(),
                    last_event_id.clone(),
                    auth_header.clone(),
                    custom_headers.clone(),
                )
            })
            .await
        }

        async fn get_stream_with_max_sse_event_size(
            &self,
            uri: Arc<str>,
            session_id: Option<Arc<str>>,
            last_event_id: Option<String>,
            auth_header: Option<String>,
            custom_headers: HashMap<HeaderName, HeaderValue>,
            max_sse_event_size: usize,
        ) -> HttpResult<BoxStream<'static, Result<Sse, SseError>>> {
            self.challenged(|| {
                self.inner.get_stream_with_max_sse_event_size(
                    uri.clone(),
                    session_id.clone(),
                    last_event_id.clone(),
                    auth_header.clone(),
                    custom_headers.clone(),
                    max_sse_event_size,
                )
            })
            .await
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[tokio::test]
        async fn a_token_file_is_private_and_survives_a_new_store() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("tokens.json");
            let store = Tokens::File(Arc::from(path.as_path()));
            assert!(store.load().await.unwrap().is_none(), "no file: no token");
            store
                .save(StoredCredentials::new(
                    "client-1".to_owned(),
                    None,
                    vec!["a".to_owned()],
                    None,
                ))
                .await
                .unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(&path).unwrap().permissions().mode();
                assert_eq!(mode & 0o777, 0o600);
            }
            let again = Tokens::File(Arc::from(path.as_path()));
            let loaded = again.load().await.unwrap().expect("the saved credentials");
            assert_eq!(loaded.client_id, "client-1");
            assert_eq!(loaded.granted_scopes, ["a"]);
            again.clear().await.unwrap();
            assert!(!path.exists());
            again.clear().await.unwrap();
        }

        #[tokio::test]
        async fn a_damaged_token_file_is_an_error_naming_it() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("tokens.json");
            std::fs::write(&path, "{ not json").unwrap();
            let err = Tokens::File(Arc::from(path.as_path()))
                .load()
                .await
                .unwrap_err();
            assert!(err.to_string().contains("tokens.json"), "{err}");
        }
    }
}
