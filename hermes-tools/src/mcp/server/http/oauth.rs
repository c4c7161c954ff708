//! OAuth 2.1 resource-server mode: the Streamable HTTP endpoint accepts access tokens issued
//! by an external authorization server, as the MCP authorization specification asks of a
//! server.
//!
//! - It publishes its protected-resource metadata (RFC 9728) at
//!   `/.well-known/oauth-protected-resource` (and that path followed by the endpoint's path):
//!   its URL, the authorization server, the scopes it needs. A request without an accepted
//!   token is answered 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, which is how
//!   a client (ours, the SDKs') finds where to get one.
//! - It checks each token by introspection (RFC 7662) at the authorization server, as a client
//!   of its own (HTTP Basic): the token must be active, issued for this resource (its `aud`
//!   names the endpoint's URL, RFC 8707, so a token for another server is refused), unexpired,
//!   and carry the required scopes (else 403 `insufficient_scope`). Verdicts are kept for at
//!   most a minute (never past the token's expiry), by token, in memory only; a token never
//!   reaches a log. At most 8 introspections run at once: a token that waits over a second for
//!   its turn is answered 503 unasked, so that made-up tokens cannot flood the authorization
//!   server.
//!
//! TLS stays a reverse proxy's job, as with static bearer tokens.

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::sync::Mutex;
use serde_json::{Value, json};

use super::owners::{self, Owner};

/// How long a verdict is kept at most.
const KEEP: Duration = Duration::from_secs(60);

/// How long a refusal is kept (an inactive token stays so).
const KEEP_REFUSAL: Duration = Duration::from_secs(10);

/// The most verdicts kept; beyond, the store is emptied (tokens are few in practice).
const MAX_KEPT: usize = 1024;

/// The most introspections in flight at once. Anyone can send made-up tokens, each of which
/// the server must ask about: beyond this many, a token waits for a slot, then is told to try
/// again later, and the authorization server is not asked.
const MAX_INTROSPECTIONS: usize = 8;

/// How long a token waits for an introspection slot.
const INTROSPECTION_WAIT: Duration = Duration::from_secs(1);

/// How long the authorization server may take to answer.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The configuration of resource-server mode.
#[derive(Clone)]
pub struct OAuthResourceConfig {
    /// The authorization server's issuer URL; its metadata (RFC 8414) names the introspection
    /// endpoint.
    pub issuer: String,
    /// The endpoint's public URL (`https://tools.example/mcp`): what tokens must be issued
    /// for. `None`: the bound endpoint's own URL (`http://ADDR/mcp`).
    pub resource: Option<String>,
    /// This server's client id at the authorization server, for introspection.
    pub client_id: String,
    /// Its client secret.
    pub client_secret: String,
    /// The scopes every request's token must carry.
    pub scopes: Vec<String>,
}

impl fmt::Debug for OAuthResourceConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthResourceConfig")
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("client_id", &self.client_id)
            .field("client_secret", &"…")
            .field("scopes", &self.scopes)
            .finish()
    }
}

/// Why resource-server mode could not start: what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ResourceServerError(String);

impl ResourceServerError {
    pub(crate) fn new(message: String) -> Self {
        Self(message)
    }
}

/// The running resource server: the discovered endpoint and the verdicts kept.
pub(crate) struct ResourceServer {
    config: OAuthResourceConfig,
    resource: String,
    introspection: String,
    http: reqwest::Client,
    kept: Mutex<Kept>,
    /// The introspection slots.
    introspecting: tokio::sync::Semaphore,
}

/// The verdicts kept, by token, each with the instant it lapses.
type Kept = HashMap<Box<[u8]>, (Verdict, Instant)>;

/// What the introspection said of a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Accepted; the identity it names (its subject), if any, to which the sessions it opens
    /// belong.
    Accepted(Option<Owner>),
    /// Not a token for this server: the reason, for the client (never the token).
    Invalid(String),
    /// A token for this server without the scopes it needs.
    InsufficientScope,
}

impl fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceServer")
            .field("resource", &self.resource)
            .field("introspection", &self.introspection)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// Discovers the issuer's introspection endpoint; `endpoint` is the bound endpoint's URL,
    /// the resource when the config names none.
    pub(crate) async fn start(
        config: OAuthResourceConfig,
        endpoint: &str,
    ) -> Result<Self, ResourceServerError> {
        crate::mcp::tls::install_crypto_provider();
        let http = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .build()
            .map_err(|err| ResourceServerError(format!("cannot build an HTTP client: {err}")))?;
        let issuer = config.issuer.trim_end_matches('/');
        let metadata_url = format!("{issuer}/.well-known/oauth-authorization-server");
        let metadata = json_of(http.get(&metadata_url)).await.map_err(|err| {
            ResourceServerError(format!(
                "cannot read the authorization server's metadata at {metadata_url}: {err}"
            ))
        })?;
        let introspection = metadata["introspection_endpoint"]
            .as_str()
            .ok_or_else(|| {
                ResourceServerError(format!(
                    "the authorization server's metadata ({metadata_url}) names no \
                     `introspection_endpoint`; resource-server mode checks tokens by \
                     introspection (RFC 7662)"
                ))
            })?
            .to_owned();
        let resource = config
            .resource
            .clone()
            .unwrap_or_else(|| endpoint.to_owned());
        Ok(Self {
            config,
            resource,
            introspection,
            http,
            kept: Mutex::new(HashMap::new()),
            introspecting: tokio::sync::Semaphore::new(MAX_INTROSPECTIONS),
        })
    }

    /// The protected-resource metadata (RFC 9728).
    pub(crate) fn metadata(&self) -> Value {
        json!({
            "resource": self.resource,
            "authorization_servers": [self.config.issuer],
            "scopes_supported": self.config.scopes,
            "bearer_methods_supported": ["header"],
        })
    }

    /// The URL of the metadata: the well-known path, then the resource's path (RFC 9728 3.1).
    pub(crate) fn metadata_url(&self) -> String {
        let (origin, path) = split_origin(&self.resource);
        format!("{origin}/.well-known/oauth-protected-resource{path}")
    }

    /// The scopes every token must carry, space-separated (for a challenge).
    pub(crate) fn scope(&self) -> String {
        self.config.scopes.join(" ")
    }

    /// The verdict on `token`: kept, or asked of the authorization server. `Err`: the
    /// authorization server could not be asked (nothing is kept then).
    pub(crate) async fn judge(&self, token: &[u8]) -> Result<Verdict, String> {
        if let Some(verdict) = self.kept_verdict(token) {
            return Ok(verdict);
        }
        let Ok(Ok(_slot)) =
            tokio::time::timeout(INTROSPECTION_WAIT, self.introspecting.acquire()).await
        else {
            return Err(format!(
                "{MAX_INTROSPECTIONS} tokens are being checked already (made-up tokens, \
                 perhaps); this one was not"
            ));
        };
        // Judged meanwhile, perhaps, for a request that sent the same token.
        if let Some(verdict) = self.kept_verdict(token) {
            return Ok(verdict);
        }
        let (verdict, keep) = self.introspect(token).await?;
        let now = Instant::now();
        let mut kept = self.kept.lock();
        if kept.len() >= MAX_KEPT {
            // Lapsed verdicts go first; only a store full of live ones starts afresh.
            kept.retain(|_, (_, until)| *until > now);
            if kept.len() >= MAX_KEPT {
                kept.clear();
            }
        }
        kept.insert(Box::from(token), (verdict.clone(), now + keep));
        Ok(verdict)
    }

    /// The verdict kept for `token`, if it has not lapsed.
    fn kept_verdict(&self, token: &[u8]) -> Option<Verdict> {
        let kept = self.kept.lock();
        let (verdict, until) = kept.get(token)?;
        (*until > Instant::now()).then(|| verdict.clone())
    }

    /// Asks the authorization server about `token`; the verdict and how long to keep it.
    async fn introspect(&self, token: &[u8]) -> Result<(Verdict, Duration), String> {
        let body = format!("token={}&token_type_hint=access_token", form_encode(token));
        let request = self
            .http
            .post(&self.introspection)
            .basic_auth(&self.config.client_id, Some(&self.config.client_secret))
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body);
        let answer = json_of(request).await.map_err(|err| {
            format!(
                "token introspection at {} failed: {err}",
                self.introspection
            )
        })?;
        Ok(judge_introspection(
            &answer,
            &self.resource,
            &self.config.scopes,
            SystemTime::now(),
        ))
    }
}

/// The JSON answer to `request`, refusing an error status.
async fn json_of(request: reqwest::RequestBuilder) -> Result<Value, reqwest::Error> {
    request.send().await?.error_for_status()?.json().await
}

/// The verdict on an introspection answer, and how long to keep it.
fn judge_introspection(
    answer: &Value,
    resource: &str,
    scopes: &[String],
    now: SystemTime,
) -> (Verdict, Duration) {
    let refuse = |reason: &str| (Verdict::Invalid(reason.to_owned()), KEEP_REFUSAL);
    if answer["active"] != Value::Bool(true) {
        return refuse("the token is not active (revoked, expired or unknown)");
    }
    let now_secs = now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    let left = match answer["exp"].as_u64() {
        Some(exp) if exp <= now_secs => return refuse("the token has expired"),
        Some(exp) => Duration::from_secs(exp - now_secs),
        None => KEEP,
    };
    let same = |aud: &str| aud.trim_end_matches('/') == resource.trim_end_matches('/');
    let for_us = match &answer["aud"] {
        Value::String(aud) => same(aud),
        Value::Array(auds) => auds.iter().filter_map(Value::as_str).any(same),
        _ => false,
    };
    if !for_us {
        return refuse("the token was not issued for this server (its audience is another)");
    }
    let granted: Vec<&str> = answer["scope"]
        .as_str()
        .unwrap_or_default()
        .split(' ')
        .collect();
    let keep = left.min(KEEP);
    if !scopes.iter().all(|scope| granted.contains(&scope.as_str())) {
        return (Verdict::InsufficientScope, keep);
    }
    let owner = owners::oauth(answer["sub"].as_str());
    (Verdict::Accepted(owner), keep)
}

/// `url` as its origin (`scheme://host[:port]`) and its path (`/mcp`, or empty).
fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    match url[after_scheme..].find('/') {
        Some(slash) => url.split_at(after_scheme + slash),
        None => (url, ""),
    }
}

/// `bytes` percent-encoded for a form body (RFC 3986 unreserved characters kept).
fn form_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &byte in bytes {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESOURCE: &str = "https://tools.example/mcp";

    fn judged(answer: Value) -> Verdict {
        let now = UNIX_EPOCH + Duration::from_secs(1_000_000);
        judge_introspection(&answer, RESOURCE, &["mcp:tools".to_owned()], now).0
    }

    #[test]
    fn introspection_answers_are_judged_by_activity_audience_expiry_and_scope() {
        let good = json!({"active": true, "aud": RESOURCE, "scope": "mcp:tools x",
            "exp": 1_000_100, "sub": "alice", "client_id": "agent"});
        assert_eq!(
            judged(good),
            Verdict::Accepted(Some(Owner::Subject("alice".into())))
        );
        let listed = json!({"active": true, "aud": ["other", "https://tools.example/mcp/"],
            "scope": "mcp:tools", "client_id": "agent"});
        assert_eq!(
            judged(listed),
            Verdict::Accepted(None),
            "a client is no identity"
        );
        let anonymous = json!({"active": true, "aud": RESOURCE, "scope": "mcp:tools"});
        assert_eq!(judged(anonymous), Verdict::Accepted(None));
        let narrow = json!({"active": true, "aud": RESOURCE, "scope": "profile"});
        assert_eq!(judged(narrow), Verdict::InsufficientScope);
        for refused in [
            json!({"active": false}),
            json!({"active": "true", "aud": RESOURCE, "scope": "mcp:tools"}),
            json!({"active": true, "aud": "https://elsewhere.example/mcp", "scope": "mcp:tools"}),
            json!({"active": true, "scope": "mcp:tools"}),
            json!({"active": true, "aud": RESOURCE, "scope": "mcp:tools", "exp": 999_999}),
        ] {
            assert!(
                matches!(judged(refused.clone()), Verdict::Invalid(_)),
                "{refused}"
            );
        }
    }

    #[test]
    fn a_verdict_is_kept_no_longer_than_the_token_lives() {
        let now = UNIX_EPOCH + Duration::from_secs(1_000_000);
        let scopes = ["mcp:tools".to_owned()];
        let soon = json!({"active": true, "aud": RESOURCE, "scope": "mcp:tools", "exp": 1_000_005});
        assert_eq!(
            judge_introspection(&soon, RESOURCE, &scopes, now).1,
            Duration::from_secs(5)
        );
        let later =
            json!({"active": true, "aud": RESOURCE, "scope": "mcp:tools", "exp": 2_000_000});
        assert_eq!(judge_introspection(&later, RESOURCE, &scopes, now).1, KEEP);
    }

    #[test]
    fn metadata_urls_and_form_bodies() {
        assert_eq!(
            split_origin("https://tools.example:8443/mcp"),
            ("https://tools.example:8443", "/mcp")
        );
        assert_eq!(split_origin("http://h"), ("http://h", ""));
        assert_eq!(form_encode(b"a b+c/=~"), "a%20b%2Bc%2F%3D~");
    }
}
