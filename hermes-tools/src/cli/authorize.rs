//! The CLI's approval of an MCP server's OAuth authorization: the authorization URL on the
//! terminal, and the browser's redirect received on the loopback address of
//! `oauth.redirect_uri` (default `http://127.0.0.1:8976/callback`).

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::elicit::shown;
use crate::call::BoxFuture;
use crate::mcp::client::{AuthorizationPrompt, Authorizer};

/// How long the CLI waits for the user to approve in the browser.
const WAITING: Duration = Duration::from_secs(300);

/// The most bytes of a redirect request read: its request line is all that is needed.
const MOST_REQUEST_BYTES: usize = 16 * 1024;

/// Prints the authorization URL and waits for the browser on the redirect URI.
#[derive(Debug)]
pub(super) struct LoopbackAuthorizer;

impl Authorizer for LoopbackAuthorizer {
    fn authorize(&self, prompt: AuthorizationPrompt) -> BoxFuture<'static, Result<String, String>> {
        Box::pin(async move {
            let (authority, path) = loopback(&prompt.redirect_uri)?;
            let listener = TcpListener::bind(&authority).await.map_err(|err| {
                format!(
                    "cannot listen on {authority} for the browser's redirect ({err}); set \
                     `oauth.redirect_uri` to a free loopback port"
                )
            })?;
            eprintln!(
                "MCP server {:?} asks for authorization. Open this URL in a browser and approve:\n\n  \
                 {}\n\nWaiting up to {} s for the browser to come back to {} …",
                shown(&prompt.server),
                shown(&prompt.url),
                WAITING.as_secs(),
                prompt.redirect_uri
            );
            tokio::time::timeout(WAITING, redirect(&listener, &path))
                .await
                .map_err(|_| format!("no approval came within {} s", WAITING.as_secs()))?
                .map(|target| format!("http://{authority}{target}"))
        })
    }
}

/// The `host:port` to listen on and the path the browser comes back to, from an
/// `http://` loopback redirect URI; anything else cannot reach this process.
fn loopback(redirect_uri: &str) -> Result<(String, String), String> {
    let refused = || {
        format!(
            "the CLI receives the browser's redirect on a loopback address, and \
             `oauth.redirect_uri` is {redirect_uri:?}: give `http://127.0.0.1:PORT/PATH`"
        )
    };
    let rest = redirect_uri.strip_prefix("http://").ok_or_else(refused)?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = match authority.rsplit_once(':') {
        Some((host, _)) if !authority.ends_with(']') => host,
        _ => authority,
    };
    if !matches!(host, "127.0.0.1" | "localhost" | "[::1]") {
        return Err(refused());
    }
    let authority = if authority.contains(':') && !authority.ends_with(']') {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    let path = if path.is_empty() { "/" } else { path };
    Ok((authority, path.to_owned()))
}

/// The request target of the first request to `path` (with its query), answering every
/// request so the browser shows what happened.
async fn redirect(listener: &TcpListener, path: &str) -> Result<String, String> {
    loop {
        let (mut stream, _) = listener
            .accept()
            .await
            .map_err(|err| format!("waiting for the browser failed: {err}"))?;
        let Some(target) = request_target(&mut stream).await else {
            continue;
        };
        let ours = target.split('?').next() == Some(path);
        let (status, text) = if ours {
            (
                "200 OK",
                "Authorized. You can close this tab and return to the terminal.",
            )
        } else {
            (
                "404 Not Found",
                "This address waits for an MCP authorization's redirect only.",
            )
        };
        let response = format!(
            "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{text}",
            text.len()
        );
        // The browser's tab only: the redirect is what matters.
        let _ = stream.write_all(response.as_bytes()).await;
        if ours {
            return Ok(target);
        }
    }
}

/// The target of a `GET` request read from `stream` (`/callback?code=…&state=…`), if it is one.
async fn request_target(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 2048];
    while !head.windows(2).any(|pair| pair == b"\r\n") {
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 || head.len() + read > MOST_REQUEST_BYTES {
            return None;
        }
        head.extend_from_slice(&buffer[..read]);
    }
    let line = std::str::from_utf8(&head).ok()?.lines().next()?;
    let mut parts = line.split(' ');
    match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) if target.starts_with('/') => Some(target.to_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_http_redirects_are_received() {
        assert_eq!(
            loopback("http://127.0.0.1:8976/callback").unwrap(),
            ("127.0.0.1:8976".to_owned(), "/callback".to_owned())
        );
        assert_eq!(
            loopback("http://localhost/").unwrap(),
            ("localhost:80".to_owned(), "/".to_owned())
        );
        assert_eq!(loopback("http://[::1]/cb").unwrap().0, "[::1]:80");
        assert_eq!(loopback("http://[::1]:9/cb").unwrap().0, "[::1]:9");
        for refused in [
            "https://127.0.0.1/cb",
            "http://example.com:8976/cb",
            "ftp://x",
        ] {
            let err = loopback(refused).unwrap_err();
            assert!(err.contains("http://127.0.0.1:PORT/PATH"), "{err}");
        }
    }

    #[tokio::test]
    async fn the_browsers_redirect_is_returned_and_other_requests_answered_404() {
        let authorizer = LoopbackAuthorizer;
        let port = {
            let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            probe.local_addr().unwrap().port()
        };
        let prompt = AuthorizationPrompt {
            server: "tracker".to_owned(),
            url: "https://auth.example.com/authorize?x=1".to_owned(),
            redirect_uri: format!("http://127.0.0.1:{port}/callback"),
        };
        let waiting = tokio::spawn(authorizer.authorize(prompt));
        let get = |target: &'static str| async move {
            // The listener may not be bound yet.
            for _ in 0..100 {
                if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)).await {
                    let request = format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n");
                    stream.write_all(request.as_bytes()).await.unwrap();
                    let mut answer = String::new();
                    stream.read_to_string(&mut answer).await.unwrap();
                    return answer;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            panic!("nothing listened on {port}")
        };
        assert!(get("/favicon.ico").await.starts_with("HTTP/1.1 404"));
        assert!(
            get("/callback?code=abc&state=xyz")
                .await
                .starts_with("HTTP/1.1 200")
        );
        let redirect = waiting.await.unwrap().unwrap();
        assert_eq!(
            redirect,
            format!("http://127.0.0.1:{port}/callback?code=abc&state=xyz")
        );
    }
}
