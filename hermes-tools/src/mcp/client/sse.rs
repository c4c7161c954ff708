//! The legacy HTTP+SSE transport (MCP 2024-11-05), for servers that have not moved to
//! Streamable HTTP (`transport = "sse"`; rmcp dropped its client for it).
//!
//! The client opens `GET url` as an event stream; the server's first event, `endpoint`, names
//! where to POST messages (relative to the URL); every answer and notification then arrives
//! on the stream as a `message` event. When the stream ends the session ends, and the
//! supervisor connects again.

use std::io;
use std::sync::Arc;

use futures_util::StreamExt;
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use sse_stream::{Sse, SseStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::session::{AUTH_HINT, causes};

/// Messages read from the stream and not yet taken by the session.
const QUEUE: usize = 64;

/// A session's transport over one event stream and its POST endpoint.
pub(super) struct SseTransport {
    client: reqwest::Client,
    endpoint: Arc<str>,
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    reader: JoinHandle<()>,
}

impl SseTransport {
    /// Opens the event stream at `url` with `client` (which sends the operator's headers) and
    /// waits for its `endpoint` event.
    pub(super) async fn connect(client: reqwest::Client, url: &str) -> Result<Self, String> {
        let response = client
            .get(url)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|err| format!("the event stream did not open: {}", causes(&err)))?;
        let status = response.status();
        if !status.is_success() {
            let hint = if status == reqwest::StatusCode::UNAUTHORIZED {
                format!(" ({AUTH_HINT})")
            } else {
                String::new()
            };
            return Err(format!("the event stream was refused: HTTP {status}{hint}"));
        }
        let base = response.url().clone();
        let mut events = SseStream::from_bytes_stream(response.bytes_stream());
        let endpoint = loop {
            match events.next().await {
                Some(Ok(Sse {
                    event: Some(event),
                    data: Some(data),
                    ..
                })) if event == "endpoint" => break data,
                Some(Ok(_)) => continue,
                Some(Err(err)) => return Err(format!("the event stream failed: {err}")),
                None => {
                    return Err(
                        "the event stream ended before naming its endpoint: is this a legacy \
                         SSE server? (a Streamable HTTP server needs no `transport`)"
                            .to_owned(),
                    );
                }
            }
        };
        let endpoint = base
            .join(endpoint.trim())
            .map_err(|err| format!("the server's endpoint {endpoint:?} is not a URL: {err}"))?;
        // Every POST carries the operator's headers (a token): only to the stream's origin.
        if endpoint.origin() != base.origin() {
            return Err(format!(
                "the server named a message endpoint on another origin ({}); refused, since the \
                 headers would go there",
                crate::config::display_url(endpoint.as_str())
            ));
        }
        let (sender, incoming) = mpsc::channel(QUEUE);
        let reader = tokio::spawn(async move {
            while let Some(Ok(event)) = events.next().await {
                if !matches!(event.event.as_deref(), None | Some("message")) {
                    continue;
                }
                let Some(data) = event.data else { continue };
                match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&data) {
                    Ok(message) => {
                        if sender.send(message).await.is_err() {
                            break;
                        }
                    }
                    Err(err) => {
                        tracing::debug!(%err, "skipped an SSE message that is not JSON-RPC")
                    }
                }
            }
        });
        Ok(Self {
            client,
            endpoint: Arc::from(endpoint.as_str()),
            incoming,
            reader,
        })
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let (client, endpoint) = (self.client.clone(), Arc::clone(&self.endpoint));
        async move {
            let response = client
                .post(&*endpoint)
                .json(&item)
                .send()
                .await
                .map_err(|err| io::Error::other(causes(&err)))?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(io::Error::other(format!(
                    "the server refused a message: HTTP {}",
                    response.status()
                )))
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        Ok(())
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}
