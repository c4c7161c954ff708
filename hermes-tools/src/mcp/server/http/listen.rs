//! The endpoint's connections: accepted, bounded, and served HTTP/1.1 by hyper.
//!
//! A connection is a task and a socket held by whoever opened it, so none is held on the
//! client's terms alone:
//!
//! - **header read timeout**: a connection that has not sent a whole request head within
//!   [`header_read_timeout`](super::super::ToolServer::header_read_timeout) of being opened,
//!   or of its previous answer (an idle keep-alive connection), is closed. A request being
//!   answered (a call's SSE stream, however long) is not timed by it;
//! - **connection cap**: at most [`max_connections`](super::super::ToolServer::max_connections)
//!   are served at once. One past it is answered `503` with a JSON-RPC error and `Retry-After`,
//!   and closed; while as many again are being answered so, further ones are closed unanswered
//!   (each refusal lasts at most the header read timeout);
//! - **`TCP_NODELAY`** on every accepted socket: an SSE event or a small answer leaves at once
//!   instead of waiting for the peer's delayed acknowledgment.
//!
//! On shutdown the listener is closed, idle connections are closed, and those answering a
//! request are waited for.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use futures_util::FutureExt as _;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::super::jsonrpc::{self, JsonRpcError};
use super::json_error;

/// How long to wait before accepting again after the listener failed (out of file
/// descriptors, say): the failure is then likely to pass as connections close.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// What bounds the endpoint's connections.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConnectionLimits {
    /// The most connections served at once.
    pub(crate) max_connections: usize,
    /// The longest wait for a request's head.
    pub(crate) header_read_timeout: Duration,
}

/// Serves `listener`'s connections until `shutdown` completes, then waits for the connections
/// answering a request. `answer` answers each request.
///
/// `answer` is called directly, not through a `tower` service such as `axum::Router`: hyper
/// keeps a connection's request future in one place it reuses, where a router boxes each
/// request's future anew (about 3 KB here, one allocation and copy per request).
pub(crate) async fn serve<A, F>(
    listener: TcpListener,
    answer: A,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) where
    A: Fn(Request) -> F + Clone + Send + 'static,
    F: Future<Output = Response> + Send + 'static,
{
    let mut served = http1::Builder::new();
    served
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let mut refused = http1::Builder::new();
    refused
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(false);
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let refusing = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(err) => {
                    tracing::warn!(%err, "the HTTP listener failed to accept a connection");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
        };
        if let Err(err) = stream.set_nodelay(true) {
            tracing::debug!(%err, "TCP_NODELAY could not be set on a connection");
        }
        let io = TokioIo::new(stream);
        if let Ok(place) = Arc::clone(&open).try_acquire_owned() {
            let answer = answer.clone();
            // `map`, not an `async` block awaiting the future: such a block holds the future
            // twice (as captured and as awaited), which doubled what hyper keeps per
            // connection (8.4 KB), and a build whose compiler did not build it in place
            // copied all of it at every request.
            let service = hyper::service::service_fn(move |request: Request<_>| {
                answer(request.map(Body::new)).map(Ok::<_, Infallible>)
            });
            let connection = graceful.watch(served.serve_connection(io, service));
            tokio::spawn(async move {
                if let Err(err) = connection.await {
                    tracing::debug!(%err, "an HTTP connection ended with an error");
                }
                drop(place);
            });
        } else if let Ok(place) = Arc::clone(&refusing).try_acquire_owned() {
            let max = limits.max_connections;
            tracing::warn!(limit = max, "refused an HTTP connection: too many open");
            let service =
                hyper::service::service_fn(move |_| async move { Ok::<_, Infallible>(busy(max)) });
            let connection = refused.serve_connection(io, service);
            tokio::spawn(async move {
                let _ = connection.await;
                drop(place);
            });
        }
        // Past both: dropped, so closed unanswered.
    }
    drop(listener);
    graceful.shutdown().await;
}

/// The answer to a connection past the cap.
fn busy(max: usize) -> Response {
    let error = JsonRpcError::new(
        None,
        jsonrpc::SERVER_BUSY,
        format!(
            "Too many connections: this server serves at most {max} HTTP connections at once \
             and all are open, so this one is closed. Retry later, or reuse an open connection."
        ),
    );
    let mut response = json_error(StatusCode::SERVICE_UNAVAILABLE, &error);
    let headers = response.headers_mut();
    headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
