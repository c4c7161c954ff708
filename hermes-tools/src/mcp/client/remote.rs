//! Remote servers: Streamable HTTP (rmcp's client transport over reqwest, feature
//! `mcp-remote`) or the legacy HTTP+SSE transport ([`super::sse`]), with the operator's
//! headers.
//!
//! Header values are expanded (`${NAME}` is the environment variable `NAME`) when the client
//! connects, each time it does, so a rotated token is picked up on reconnection. A variable
//! that is not set fails the connection, naming the header and the variable, never the value.
//! TLS is rustls with the ring provider and the platform's roots. Every connection sets
//! `TCP_NODELAY` (rmcp's client and [`http_client`]): a request's small writes leave at once
//! instead of waiting for the server's delayed acknowledgment.

use std::collections::BTreeMap;
use std::time::Duration;

use super::session::{Failure, Handler, Lifecycle, Running};
use crate::config::display_url;

/// Connects to `url` and begins the MCP session as `lifecycle` says, within `limit`, over
/// Streamable HTTP or, when `legacy_sse`, the 2024-11-05 HTTP+SSE transport.
#[cfg(feature = "mcp-remote")]
pub(super) async fn connect(
    (handler, lifecycle): (Handler, &Lifecycle),
    limit: Duration,
    url: &str,
    headers: &BTreeMap<String, String>,
    legacy_sse: bool,
    oauth: Option<&std::sync::Arc<super::oauth::OAuth>>,
) -> Result<Running, Failure> {
    use super::session::initialised;
    use rmcp::service::ClientServiceExt;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let mut set = http::HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        let header = http::HeaderName::try_from(name.as_str())
            .map_err(|_| format!("header name {name:?} is not a valid HTTP header name"))?;
        let value =
            http::HeaderValue::try_from(super::expand::expand(&format!("header `{name}`"), value)?)
                .map_err(|_| {
                    format!("header `{name}` holds a character an HTTP header value cannot carry")
                })?;
        set.insert(header, value);
    }
    crate::mcp::tls::install_crypto_provider();
    let at = |failure: String| format!("{failure} (at {})", display_url(url));
    let mode = lifecycle.mode.clone();
    if legacy_sse {
        let client = http_client()
            .default_headers(set)
            .build()
            .map_err(|err| at(format!("the HTTP client could not be built: {err}")))?;
        let transport = tokio::time::timeout(limit, super::sse::SseTransport::connect(client, url))
            .await
            .map_err(|_| {
                at(format!(
                    "its event stream did not open within {} s",
                    limit.as_secs()
                ))
            })?
            .map_err(at)?;
        return initialised(
            limit,
            lifecycle,
            handler.serve_with_lifecycle(transport, mode),
        )
        .await
        .map_err(|failure| failure.map(at));
    }
    let custom = set
        .into_iter()
        .filter_map(|(name, value)| Some((name?, value)))
        .collect();
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    let Some(oauth) = oauth else {
        // rmcp's own reqwest client: TCP_NODELAY (reqwest's default), same-origin redirects
        // only, no idle pool.
        let transport = StreamableHttpClientTransport::from_config(config);
        return initialised(
            limit,
            lifecycle,
            handler.serve_with_lifecycle(transport, mode),
        )
        .await
        .map_err(|failure| failure.map(at));
    };
    let http = http_client()
        .build()
        .map_err(|err| at(format!("the HTTP client could not be built: {err}")))?;
    let client = oauth.client(http).await.map_err(at)?;
    let transport = StreamableHttpClientTransport::with_client(client, config);
    let limit = oauth.connect_limit(limit);
    initialised(
        limit,
        lifecycle,
        handler.serve_with_lifecycle(transport, mode),
    )
    .await
    // What the authorization said explains a failure better than the 401 it left.
    .map_err(|failure| failure.map(|err| at(oauth.failure().unwrap_or(err))))
}

/// The HTTP client every remote connection starts from: `TCP_NODELAY` on each connection it
/// opens (reqwest's default too, said here so that it stays so).
#[cfg(feature = "mcp-remote")]
fn http_client() -> reqwest::ClientBuilder {
    reqwest::Client::builder().tcp_nodelay(true)
}

/// Without the `mcp-remote` feature: the server is reported failed, saying what to enable.
#[cfg(not(feature = "mcp-remote"))]
pub(super) async fn connect(
    _handler: (Handler, &Lifecycle),
    _limit: Duration,
    url: &str,
    _headers: &BTreeMap<String, String>,
    _legacy_sse: bool,
    _oauth: Option<&std::sync::Arc<super::oauth::OAuth>>,
) -> Result<Running, Failure> {
    Err(format!(
        "{} is a remote server, and this build has no remote MCP client: build hermes-tools \
         with the `mcp-remote` feature",
        display_url(url)
    )
    .into())
}
