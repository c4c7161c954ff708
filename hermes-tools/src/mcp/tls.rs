//! TLS for the HTTP the MCP client and server send (feature `mcp-remote`): remote servers'
//! endpoints, an OAuth authorization server's metadata and introspection. Neither side reaches
//! into the other for it.

/// reqwest is built without a TLS provider of its own (the tree already holds rustls with
/// ring, through ureq): make ring the process's provider unless one is installed already.
pub(crate) fn install_crypto_provider() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // Losing a race with another installer leaves theirs, which serves as well.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
}
