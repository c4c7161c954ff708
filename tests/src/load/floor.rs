//! The load bench's floor: a minimal JSON-RPC endpoint on hyper that answers `add` directly
//! (no MCP runtime, no sessions kept), one JSON body per request, `TCP_NODELAY` set. What an
//! HTTP round trip with a JSON parse and a JSON answer costs on this machine.

use std::convert::Infallible;

use axum::body::Body;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// The session id the floor hands out: it keeps none.
const SESSION: &str = "floor";

/// Serves the floor on `listener` until the process ends.
pub async fn serve(listener: TcpListener) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let service =
                service_fn(|request| async { Ok::<_, Infallible>(answer(request).await) });
            let _ = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn answer(request: Request<hyper::body::Incoming>) -> Response<Body> {
    if request.method() == Method::DELETE {
        return status(StatusCode::NO_CONTENT);
    }
    let Ok(body) = axum::body::to_bytes(Body::new(request.into_body()), 1 << 20).await else {
        return status(StatusCode::BAD_REQUEST);
    };
    let Ok(message) = serde_json::from_slice::<Value>(&body) else {
        return status(StatusCode::BAD_REQUEST);
    };
    let Some(id) = message.get("id") else {
        // A notification.
        return status(StatusCode::ACCEPTED);
    };
    let result = match message.get("method").and_then(Value::as_str) {
        Some("initialize") => json!({
            "protocolVersion": super::LEGACY_VERSION,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "floor", "version": "1"},
        }),
        Some("tools/call") => {
            let argument = |name: &str| {
                message
                    .pointer(&format!("/params/arguments/{name}"))
                    .and_then(Value::as_i64)
                    .unwrap_or_default()
            };
            let sum = argument("a") + argument("b");
            json!({"content": [{"type": "text", "text": sum.to_string()}], "isError": false})
        }
        _ => return status(StatusCode::BAD_REQUEST),
    };
    let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
    let mut response = Response::new(Body::from(reply.to_string()));
    let headers = response.headers_mut();
    headers.insert("content-type", "application/json".parse().expect("a value"));
    headers.insert("mcp-session-id", SESSION.parse().expect("a value"));
    response
}

fn status(code: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = code;
    response
}
