//! Streamable HTTP: `rmcp`'s tower service, served by axum at `/mcp` on a loopback address.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use super::{ServeError, ToolServer};

/// A bound Streamable HTTP endpoint, not yet serving; see [`ToolServer::bind_http`].
#[derive(Debug)]
pub struct HttpEndpoint {
    server: ToolServer,
    listener: TcpListener,
    addr: SocketAddr,
}

impl HttpEndpoint {
    pub(super) async fn bind(server: ToolServer, addr: SocketAddr) -> Result<Self, ServeError> {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        let addr = listener.local_addr()?;
        Ok(Self {
            server,
            listener,
            addr,
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
        // rmcp checks `Host` against these (DNS rebinding): the defaults are localhost,
        // 127.0.0.1 and ::1, so another loopback address bound must be added.
        let mut hosts = vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "::1".to_owned(),
        ];
        hosts.push(self.addr.ip().to_string());
        let config = StreamableHttpServerConfig::default().with_allowed_hosts(hosts);
        let sessions_end = config.cancellation_token.clone();
        let server = self.server;
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let router = axum::Router::new().route_service("/mcp", service);
        axum::serve(self.listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                // Open SSE streams would otherwise hold the graceful shutdown forever.
                sessions_end.cancel();
            })
            .await?;
        Ok(())
    }
}
