//! Which browser origins may call the HTTP endpoint.
//!
//! The MCP specification says a Streamable HTTP server MUST validate `Origin`: without it, a
//! web page the user visits can post to a server on the user's machine (DNS rebinding, or a
//! plain cross-origin `fetch`). The rule here:
//!
//! 1. a request without `Origin` passes: browsers send one with every cross-origin request,
//!    and non-browser clients (SDKs, `curl`) send none;
//! 2. a loopback origin passes: `http` or `https`, host `localhost`, `127.0.0.0/8` or `[::1]`,
//!    any port;
//! 3. an origin the operator allowed passes (exactly: scheme, host and port, the port taken
//!    as the scheme's default when left out; `null` only if allowed as such);
//! 4. anything else, and an `Origin` that is not an origin at all, is refused.

use std::fmt;
use std::net::IpAddr;

use axum::http::Uri;

/// An origin as compared: lowercase scheme and host, explicit port.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    /// `Origin: null` (sandboxed frames, `file:` pages).
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: u16,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Null => f.write_str("null"),
            Self::Tuple { scheme, host, port } if host.contains(':') => {
                write!(f, "{scheme}://[{host}]:{port}")
            }
            Self::Tuple { scheme, host, port } => write!(f, "{scheme}://{host}:{port}"),
        }
    }
}

/// Why an origin in the allow list could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{origin:?} is not an origin: write it as scheme://host or scheme://host:port, such as \
     https://app.example.com or http://localhost:3000 (or `null`)"
)]
pub struct InvalidOrigin {
    /// The refused entry.
    pub origin: String,
}

/// The origins allowed beside loopback ones.
#[derive(Debug, Clone, Default)]
pub(crate) struct AllowedOrigins {
    extra: Vec<Origin>,
}

impl AllowedOrigins {
    /// Reads the operator's list.
    pub(crate) fn parse(origins: &[String]) -> Result<Self, InvalidOrigin> {
        let extra = origins
            .iter()
            .map(|text| {
                parse(text).ok_or_else(|| InvalidOrigin {
                    origin: text.clone(),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { extra })
    }

    /// `Ok` when a request with this `Origin` header (if any) may be served; otherwise the
    /// reason, for the refusal.
    pub(crate) fn check(&self, header: Option<&[u8]>) -> Result<(), String> {
        let Some(header) = header else {
            return Ok(());
        };
        let text = String::from_utf8_lossy(header);
        let Some(origin) = parse(&text) else {
            return Err(format!(
                "Forbidden: the Origin header {text:?} is not an origin (scheme://host[:port])."
            ));
        };
        if is_loopback(&origin) || self.extra.contains(&origin) {
            return Ok(());
        }
        Err(format!(
            "Forbidden: requests from the origin {origin} are not accepted. This server takes \
             browser requests only from loopback origins (http://localhost, http://127.0.0.1, \
             http://[::1]) and from origins its operator allows (`serve --allow-origin`, \
             ToolServer::allow_origins)."
        ))
    }
}

fn parse(text: &str) -> Option<Origin> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("null") {
        return Some(Origin::Null);
    }
    let uri: Uri = text.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    // An origin is scheme, host and port: a path (beyond "/"), query or user info is not one.
    if uri.path_and_query().is_some_and(|p| p.as_str() != "/")
        || uri.authority()?.as_str().contains('@')
    {
        return None;
    }
    let host = uri
        .host()?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    let port = match (uri.port_u16(), scheme.as_str()) {
        (Some(port), _) => port,
        (None, "http" | "ws") => 80,
        (None, "https" | "wss") => 443,
        (None, _) => return None,
    };
    Some(Origin::Tuple { scheme, host, port })
}

fn is_loopback(origin: &Origin) -> bool {
    let Origin::Tuple { scheme, host, .. } = origin else {
        return false;
    };
    matches!(scheme.as_str(), "http" | "https")
        && (host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(extra: &[&str], origin: Option<&str>) -> bool {
        let extra: Vec<String> = extra.iter().map(|s| (*s).to_owned()).collect();
        AllowedOrigins::parse(&extra)
            .expect("a valid list")
            .check(origin.map(str::as_bytes))
            .is_ok()
    }

    #[test]
    fn rule_1_no_origin_passes() {
        assert!(allowed(&[], None));
    }

    #[test]
    fn rule_2_loopback_origins_pass_on_any_port() {
        for origin in [
            "http://localhost",
            "http://localhost:5173",
            "https://LOCALHOST:8443",
            "http://127.0.0.1:3000",
            "http://127.1.2.3",
            "http://[::1]:8080",
        ] {
            assert!(allowed(&[], Some(origin)), "{origin}");
        }
    }

    #[test]
    fn rule_3_allowed_origins_pass_exactly() {
        let extra = [
            "https://app.example.com",
            "http://tools.example:8080",
            "null",
        ];
        assert!(allowed(&extra, Some("https://app.example.com")));
        assert!(allowed(&extra, Some("https://app.example.com:443")));
        assert!(allowed(&extra, Some("http://tools.example:8080")));
        assert!(allowed(&extra, Some("null")));
        assert!(
            !allowed(&extra, Some("http://app.example.com")),
            "another scheme"
        );
        assert!(
            !allowed(&extra, Some("https://app.example.com:444")),
            "another port"
        );
        assert!(!allowed(&extra, Some("https://evil.app.example.com")));
    }

    #[test]
    fn rule_4_everything_else_is_refused_with_the_reason() {
        for origin in [
            "http://evil.example.com",
            "http://localhost.evil.example",
            "null",
            "file://",
            "ftp://localhost",
            "http://127.0.0.1.nip.io",
            "http://localhost/path",
            "not an origin",
        ] {
            assert!(!allowed(&[], Some(origin)), "{origin}");
        }
        let refusal = AllowedOrigins::default()
            .check(Some(b"http://evil.example.com"))
            .unwrap_err();
        assert!(refusal.contains("http://evil.example.com:80"), "{refusal}");
        assert!(refusal.contains("--allow-origin"), "{refusal}");
    }

    #[test]
    fn an_allow_list_entry_that_is_not_an_origin_is_an_error_naming_it() {
        let err = AllowedOrigins::parse(&["app.example.com".to_owned()]).unwrap_err();
        assert_eq!(err.origin, "app.example.com");
        assert!(err.to_string().contains("scheme://host"), "{err}");
        assert!(AllowedOrigins::parse(&["https://a.example/x".to_owned()]).is_err());
    }
}
