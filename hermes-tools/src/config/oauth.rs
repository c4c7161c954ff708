//! `[mcp_servers.<name>.oauth]`: how the MCP client is authorized by a remote server's
//! authorization server, either on behalf of a user (the authorization code flow, the user
//! approving in a browser) or as a machine (the client credentials grant of MCP's
//! `io.modelcontextprotocol/oauth-client-credentials` extension, SEP-1046: no user, the client
//! authenticates with a secret or a signed JWT). Settings no authorization could use are
//! refused when the configuration is read, naming the key to fix.

use std::path::PathBuf;

use serde::Deserialize;

use super::url::{check_url, display_url};

/// How the client is authorized by a remote server's authorization server, as the MCP
/// authorization specification has it (`[mcp_servers.<name>.oauth]`, feature `mcp-remote`).
///
/// The client discovers the authorization server from the MCP server (protected resource
/// metadata, RFC 9728, or the 2025-03-26 fallbacks). With the default `grant`
/// (`authorization_code`) it identifies itself with a pre-registered `client_id`, a client ID
/// metadata document (`client_metadata_url`) or dynamic client registration, in that order,
/// and runs the authorization code flow with PKCE: the user approves at the authorization URL,
/// through the agent's [`Authorizer`](crate::mcp::client::Authorizer) (the CLI prints the URL
/// and waits for the browser's redirect on `redirect_uri`). Tokens are refreshed before they
/// expire; they live in memory, or in `token_store` when given, so a restart needs no new
/// approval.
///
/// ```
/// # #[cfg(feature = "toml")] {
/// use hermes_tools::config::Config;
///
/// let config = Config::from_toml_str(r#"
///     [mcp_servers.tracker]
///     url = "https://tracker.example.com/mcp"
///     [mcp_servers.tracker.oauth]
///     scopes = ["issues:read"]
///     token_store = "/var/lib/agent/tracker-token.json"
/// "#).unwrap();
/// let oauth = config.mcp_servers["tracker"].oauth.as_ref().unwrap();
/// assert_eq!(oauth.scopes, ["issues:read"]);
/// # }
/// ```
///
/// With `grant = "client_credentials"` the client is a machine registered with the
/// authorization server (`client_id`), and proves it with a secret (`client_secret`, best as
/// `${ENV}`, or `client_secret_file`) or with a key (`private_key_jwt`, feature
/// `mcp-oauth-jwt`): it fetches a token when it connects and a new one when the token expires
/// or the server refuses it, asking no one.
///
/// ```
/// # #[cfg(feature = "toml")] {
/// use hermes_tools::config::{Config, OAuthGrant};
///
/// let config = Config::from_toml_str(r#"
///     [mcp_servers.billing]
///     url = "https://billing.example.com/mcp"
///     [mcp_servers.billing.oauth]
///     grant = "client_credentials"
///     client_id = "agent-7"
///     client_secret = "${BILLING_CLIENT_SECRET}"
///     scopes = ["invoices:read"]
/// "#).unwrap();
/// let oauth = config.mcp_servers["billing"].oauth.as_ref().unwrap();
/// assert_eq!(oauth.grant, OAuthGrant::ClientCredentials);
/// assert!(!format!("{oauth:?}").contains("BILLING_CLIENT_SECRET"));
/// # }
/// ```
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct OAuthConfig {
    /// The OAuth grant: a user's approval (`authorization_code`, the default) or the client's
    /// own credentials (`client_credentials`).
    pub grant: OAuthGrant,
    /// A client ID registered with the authorization server beforehand; none: the client
    /// uses `client_metadata_url` or registers itself. Required by `client_credentials`.
    pub client_id: Option<String>,
    /// The secret of a confidential pre-registered client (with `client_id`). May hold
    /// `${NAME}`, read from the environment when the client authorizes; never logged.
    pub client_secret: Option<String>,
    /// A file holding the client's secret (its trailing newline ignored), read when the client
    /// authorizes: for secrets mounted by the platform (`/run/secrets/…`). Instead of
    /// `client_secret`.
    pub client_secret_file: Option<PathBuf>,
    /// The key a `client_credentials` client signs its assertion with (`private_key_jwt`,
    /// RFC 7523), instead of a secret.
    pub private_key_jwt: Option<PrivateKeyJwt>,
    /// The HTTPS URL of this client's metadata document (SEP-991), used as its client ID by
    /// an authorization server that supports such documents.
    pub client_metadata_url: Option<String>,
    /// The name the client registers under (default `hermes-tools`).
    pub client_name: String,
    /// The scopes to ask for; empty (the default): those the server's challenge or metadata
    /// name (with `client_credentials`: none, the authorization server's default).
    pub scopes: Vec<String>,
    /// Where the authorization server sends the browser back (default
    /// [`DEFAULT_OAUTH_REDIRECT_URI`]).
    pub redirect_uri: String,
    /// A file the tokens are kept in (written with mode 0600), so that they outlive the
    /// process; none: in memory only.
    pub token_store: Option<PathBuf>,
}

/// The OAuth grant a client is authorized with (`oauth.grant`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OAuthGrant {
    /// A user approves the access in a browser (authorization code with PKCE).
    #[default]
    AuthorizationCode,
    /// The client is a machine and authenticates as itself (client credentials, SEP-1046).
    ClientCredentials,
}

/// A `client_credentials` client's key (`oauth.private_key_jwt = { key_file, algorithm }`):
/// each token request carries a JWT signed with it, which the authorization server checks
/// with the public key registered for the client.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct PrivateKeyJwt {
    /// A PEM file with the private key (PKCS#8 or PKCS#1 RSA, PKCS#8 or SEC1 EC), read when
    /// the client authorizes.
    pub key_file: PathBuf,
    /// The algorithm the key signs with, one the authorization server accepts.
    pub algorithm: JwtAlgorithm,
}

impl PrivateKeyJwt {
    /// The key in the PEM file `key_file`, signing with `algorithm`.
    pub fn new(key_file: impl Into<PathBuf>, algorithm: JwtAlgorithm) -> Self {
        Self {
            key_file: key_file.into(),
            algorithm,
        }
    }
}

/// The JWS algorithms a `private_key_jwt` assertion can be signed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
#[non_exhaustive]
pub enum JwtAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    Rs384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    Rs512,
    /// ECDSA on P-256 with SHA-256.
    Es256,
    /// ECDSA on P-384 with SHA-384.
    Es384,
}

/// Where the browser is sent back after the user approves, unless configured: the CLI
/// listens there for the one redirect.
pub const DEFAULT_OAUTH_REDIRECT_URI: &str = "http://127.0.0.1:8976/callback";

impl Default for OAuthConfig {
    fn default() -> Self {
        Self {
            grant: OAuthGrant::AuthorizationCode,
            client_id: None,
            client_secret: None,
            client_secret_file: None,
            private_key_jwt: None,
            client_metadata_url: None,
            client_name: "hermes-tools".to_owned(),
            scopes: Vec::new(),
            redirect_uri: DEFAULT_OAUTH_REDIRECT_URI.to_owned(),
            token_store: None,
        }
    }
}

// By hand: the secret is never shown (the files are paths, not secrets).
impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("grant", &self.grant)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "[REDACTED]"),
            )
            .field("client_secret_file", &self.client_secret_file)
            .field("private_key_jwt", &self.private_key_jwt)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("client_name", &self.client_name)
            .field("scopes", &self.scopes)
            .field("redirect_uri", &self.redirect_uri)
            .field("token_store", &self.token_store)
            .finish()
    }
}

impl OAuthConfig {
    /// Refuses settings no authorization could use, saying what to write.
    pub(super) fn check(&self) -> Result<(), String> {
        let secret = self.client_secret.is_some() || self.client_secret_file.is_some();
        if self.client_secret.is_some() && self.client_secret_file.is_some() {
            return Err(
                "`oauth.client_secret` and `oauth.client_secret_file` are both given: keep one"
                    .to_owned(),
            );
        }
        if secret && self.client_id.is_none() {
            return Err(
                "`oauth.client_secret` is given without `oauth.client_id`: a secret \
                        belongs to a pre-registered client; give its `client_id` too"
                    .to_owned(),
            );
        }
        if let Some(url) = &self.client_metadata_url
            && !url.starts_with("https://")
        {
            return Err(format!(
                "`oauth.client_metadata_url` {:?} is not an https:// URL, as a client ID \
                 metadata document's must be",
                display_url(url)
            ));
        }
        match self.grant {
            OAuthGrant::AuthorizationCode => {
                if self.private_key_jwt.is_some() {
                    return Err("`oauth.private_key_jwt` authenticates a machine client: \
                                add `grant = \"client_credentials\"` (a user's authorization \
                                takes a `client_secret` or none)"
                        .to_owned());
                }
            }
            OAuthGrant::ClientCredentials => self.check_machine(secret)?,
        }
        check_url(&self.redirect_uri).map_err(|err| format!("`oauth.redirect_uri`: {err}"))
    }

    /// The settings of `grant = "client_credentials"`: a registered client, one credential.
    fn check_machine(&self, secret: bool) -> Result<(), String> {
        if self.client_id.is_none() {
            return Err(
                "`grant = \"client_credentials\"` needs `oauth.client_id`: the ID \
                        the authorization server registered this client under"
                    .to_owned(),
            );
        }
        match (secret, &self.private_key_jwt) {
            (false, None) => {
                return Err(
                    "`grant = \"client_credentials\"` needs the client's credential: \
                            `client_secret = \"${ENV_VAR}\"`, `client_secret_file = \"…\"`, \
                            or `private_key_jwt = { key_file = \"…\", algorithm = \"ES256\" }`"
                        .to_owned(),
                );
            }
            (true, Some(_)) => {
                return Err(
                    "`oauth.private_key_jwt` and a client secret are both given: a \
                            client authenticates with one; keep the one registered with the \
                            authorization server"
                        .to_owned(),
                );
            }
            (false, Some(_)) if !cfg!(feature = "mcp-oauth-jwt") => {
                return Err("`oauth.private_key_jwt` needs hermes-tools built with the \
                            feature `mcp-oauth-jwt` (which signs the assertion); build with \
                            it, or authenticate with a `client_secret`"
                    .to_owned());
            }
            _ => {}
        }
        if self.client_metadata_url.is_some() {
            return Err(
                "`oauth.client_metadata_url` identifies a client a user approves; \
                        a `client_credentials` client is identified by its `client_id`"
                    .to_owned(),
            );
        }
        if self.token_store.is_some() {
            return Err(
                "`oauth.token_store` keeps a user's approval across restarts; a \
                        `client_credentials` client fetches a new token whenever it needs \
                        one, so remove `token_store`"
                    .to_owned(),
            );
        }
        Ok(())
    }
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use super::*;

    fn read(table: &str) -> Result<OAuthConfig, String> {
        let config: OAuthConfig = toml::from_str(table).map_err(|err| err.to_string())?;
        config.check().map(|()| config)
    }

    #[test]
    fn client_credentials_with_a_secret_or_a_secret_file() {
        let oauth = read(
            "grant = \"client_credentials\"\nclient_id = \"agent\"\n\
             client_secret = \"${SECRET}\"\nscopes = [\"a\", \"b\"]",
        )
        .unwrap();
        assert_eq!(oauth.grant, OAuthGrant::ClientCredentials);
        assert_eq!(oauth.client_id.as_deref(), Some("agent"));
        assert_eq!(oauth.client_secret.as_deref(), Some("${SECRET}"));
        assert_eq!(oauth.scopes, ["a", "b"]);
        let file = read(
            "grant = \"client_credentials\"\nclient_id = \"agent\"\n\
             client_secret_file = \"secrets/agent\"",
        )
        .unwrap();
        assert_eq!(
            file.client_secret_file.as_deref(),
            Some(std::path::Path::new("secrets/agent"))
        );
        assert_eq!(
            read("").unwrap().grant,
            OAuthGrant::AuthorizationCode,
            "a user's approval unless told"
        );
    }

    #[cfg(feature = "mcp-oauth-jwt")]
    #[test]
    fn client_credentials_with_a_key() {
        let oauth = read(
            "grant = \"client_credentials\"\nclient_id = \"agent\"\n\
             private_key_jwt = { key_file = \"agent.pem\", algorithm = \"ES256\" }",
        )
        .unwrap();
        let key = oauth.private_key_jwt.expect("the key");
        assert_eq!(key.key_file, std::path::Path::new("agent.pem"));
        assert_eq!(key.algorithm, JwtAlgorithm::Es256);
        for algorithm in ["RS256", "RS384", "RS512", "ES384"] {
            read(&format!(
                "grant = \"client_credentials\"\nclient_id = \"a\"\n\
                 private_key_jwt = {{ key_file = \"k\", algorithm = \"{algorithm}\" }}"
            ))
            .unwrap();
        }
    }

    #[test]
    fn client_credentials_settings_that_cannot_work_say_what_to_fix() {
        let machine = "grant = \"client_credentials\"\n";
        let key = "private_key_jwt = { key_file = \"k\", algorithm = \"ES256\" }\n";
        for (table, says) in [
            (
                format!("{machine}client_secret = \"s\""),
                "give its `client_id`",
            ),
            (
                format!("{machine}client_id = \"a\""),
                "needs the client's credential",
            ),
            (
                format!("{machine}client_id = \"a\"\nclient_secret = \"s\"\n{key}"),
                "both given",
            ),
            (
                format!(
                    "{machine}client_id = \"a\"\nclient_secret = \"s\"\nclient_secret_file = \"f\""
                ),
                "keep one",
            ),
            (
                format!("{machine}client_id = \"a\"\nclient_secret = \"s\"\ntoken_store = \"t\""),
                "remove `token_store`",
            ),
            (
                format!(
                    "{machine}client_id = \"a\"\nclient_secret = \"s\"\n\
                     client_metadata_url = \"https://c/m.json\""
                ),
                "identified by its `client_id`",
            ),
            (
                format!("client_id = \"a\"\n{key}"),
                "add `grant = \"client_credentials\"`",
            ),
            ("grant = \"password\"".to_owned(), "client_credentials"),
            (
                format!(
                    "{machine}client_id = \"a\"\n\
                     private_key_jwt = {{ key_file = \"k\", algorithm = \"HS256\" }}"
                ),
                "ES256",
            ),
            (
                format!("{machine}client_id = \"a\"\nprivate_key_jwt = {{ key_file = \"k\" }}"),
                "algorithm",
            ),
        ] {
            let err = read(&table).unwrap_err();
            assert!(err.contains(says), "{table}: {err}");
        }
    }

    #[test]
    fn a_client_credentials_secret_is_never_shown() {
        let oauth = read(
            "grant = \"client_credentials\"\nclient_id = \"agent\"\nclient_secret = \"hunter2\"",
        )
        .unwrap();
        let shown = format!("{oauth:?}");
        assert!(
            !shown.contains("hunter2") && shown.contains("[REDACTED]"),
            "{shown}"
        );
        assert!(shown.contains("ClientCredentials"), "{shown}");
    }
}
