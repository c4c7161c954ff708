//! The HTTP side of the agent: one chat completion from an OpenAI-compatible endpoint.
//!
//! [`Endpoint::complete`] POSTs a request body to `{base}/chat/completions` and returns the
//! reply as JSON, or an [`EndpointError`] that names the URL, the HTTP status and the error
//! message the server put in its body, so that a wrong key, model or URL says what to fix.
//! The API key is sent as a bearer token and appears in no message and no log.
//!
//! The client is blocking (ureq): the agent makes one request at a time and calls it from
//! `tokio::task::spawn_blocking`, which keeps an async HTTP stack out of the build.

use std::fmt;
use std::time::Duration;

use serde_json::Value;

/// How much of a body an error message quotes, in characters.
const EXCERPT_CHARS: usize = 300;
/// The largest reply read: a chat completion is a few kilobytes; this bounds a runaway server.
const MAX_REPLY_BYTES: u64 = 16 * 1024 * 1024;
/// How long one completion may take, connection included. A small local model on two cores
/// answers in seconds; a hosted one under load in tens of seconds.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(600);

/// An OpenAI-compatible chat completions endpoint: where it is, and the key it wants.
#[derive(Clone)]
pub struct Endpoint {
    url: String,
    api_key: Option<String>,
    agent: ureq::Agent,
}

// By hand: the derived `Debug` would print the key.
impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .finish()
    }
}

impl Endpoint {
    /// The endpoint at `base_url` (such as `https://api.openai.com/v1` or
    /// `http://127.0.0.1:8080/v1`); requests go to `{base_url}/chat/completions`. An empty
    /// `api_key` counts as none (local servers need none).
    pub fn new(base_url: &str, api_key: Option<String>) -> Self {
        let agent = ureq::Agent::config_builder()
            // A 4xx/5xx reply is read like any other: its body says what went wrong.
            .http_status_as_error(false)
            .timeout_global(Some(REQUEST_TIMEOUT))
            .build()
            .new_agent();
        Self {
            url: format!("{}/chat/completions", base_url.trim_end_matches('/')),
            api_key: api_key.filter(|key| !key.is_empty()),
            agent,
        }
    }

    /// The URL requests go to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends `body` (a chat completions request) and returns the reply's JSON.
    ///
    /// # Errors
    ///
    /// [`EndpointError`]: the server cannot be reached, it answered a status other than 2xx,
    /// or its body is not JSON.
    pub fn complete(&self, body: &Value) -> Result<Value, EndpointError> {
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json");
        if let Some(key) = &self.api_key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let fail = |kind| EndpointError {
            url: self.url.clone(),
            kind,
        };
        let mut response = request
            .send(body.to_string())
            .map_err(|err| fail(ErrorKind::Unreachable(err.to_string())))?;
        let status = response.status();
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_REPLY_BYTES)
            .read_to_string()
            .map_err(|err| {
                fail(ErrorKind::Unreadable {
                    status: status.as_u16(),
                    reason: err.to_string(),
                })
            })?;
        let json = serde_json::from_str::<Value>(&text);
        if !status.is_success() {
            return Err(fail(ErrorKind::Status {
                status: status.as_u16(),
                reason: status.canonical_reason().unwrap_or("").to_owned(),
                message: json
                    .ok()
                    .and_then(|json| error_message(&json))
                    .unwrap_or_else(|| excerpt(&text)),
            }));
        }
        json.map_err(|_| {
            fail(ErrorKind::NotJson {
                status: status.as_u16(),
                excerpt: excerpt(&text),
            })
        })
    }
}

/// A request that did not bring back a JSON reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointError {
    url: String,
    kind: ErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ErrorKind {
    /// No HTTP exchange: refused connection, DNS, TLS, timeout.
    Unreachable(String),
    /// The status line came, the body could not be read.
    Unreadable { status: u16, reason: String },
    /// A status other than 2xx, with the server's error message.
    Status {
        status: u16,
        reason: String,
        message: String,
    },
    /// A 2xx reply whose body is not JSON.
    NotJson { status: u16, excerpt: String },
}

impl std::error::Error for EndpointError {}

impl fmt::Display for EndpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let url = &self.url;
        match &self.kind {
            ErrorKind::Unreachable(reason) => write!(
                f,
                "cannot reach {url}: {reason} (is the server running? check --base-url or \
                 OPENAI_BASE_URL)"
            ),
            ErrorKind::Unreadable { status, reason } => {
                write!(
                    f,
                    "{url} answered HTTP {status} but its body could not be read: {reason}"
                )
            }
            ErrorKind::Status {
                status,
                reason,
                message,
            } => {
                write!(f, "{url} answered HTTP {status}")?;
                if !reason.is_empty() {
                    write!(f, " {reason}")?;
                }
                if message.is_empty() {
                    f.write_str(" with an empty body")?;
                } else {
                    write!(f, ": {message}")?;
                }
                match status {
                    401 | 403 => f.write_str(" (check OPENAI_API_KEY)"),
                    404 => f.write_str(
                        " (check --base-url: it stops before /chat/completions, such as \
                         https://api.openai.com/v1)",
                    ),
                    _ => Ok(()),
                }
            }
            ErrorKind::NotJson { status, excerpt } => write!(
                f,
                "{url} answered HTTP {status} with a body that is not JSON (is --base-url an \
                 OpenAI-compatible API?): {excerpt}"
            ),
        }
    }
}

/// The error message in an error body: OpenAI's `{"error": {"message"}}`, a bare
/// `{"error": "..."}`, or FastAPI's `{"detail": ...}` (llama-cpp-python's server).
pub(super) fn error_message(body: &Value) -> Option<String> {
    let found = [
        body.pointer("/error/message"),
        body.get("error"),
        body.get("message"),
        body.get("detail"),
    ]
    .into_iter()
    .flatten()
    .find(|value| !value.is_null())?;
    Some(match found {
        Value::String(text) => excerpt(text),
        other => excerpt(&other.to_string()),
    })
}

/// The first [`EXCERPT_CHARS`] characters of `text`, on one line, marked when cut.
pub(super) fn excerpt(text: &str) -> String {
    let flat = text.trim().replace(['\n', '\r'], " ");
    super::shorten(&flat, EXCERPT_CHARS)
}
