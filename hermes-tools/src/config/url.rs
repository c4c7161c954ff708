//! The URLs of the configuration: checked when read, and shown in reports without what may
//! carry credentials (user information, query, fragment).

/// Refuses a URL no HTTP client could reach, saying what a valid one looks like. (The host
/// and the rest are the HTTP client's to judge when it connects.)
pub(super) fn check_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(rest) if !rest.is_empty() && !rest.starts_with('/') => Ok(()),
        // Shown without user information or query: they may hold credentials.
        Some(_) => Err(format!("`url` {:?} names no host", display_url(url))),
        None => Err(format!(
            "`url` {:?} is not an HTTP URL: give `http://host:port/path` or \
             `https://host/path`",
            display_url(url)
        )),
    }
}

/// `url` as reports show it: without user information, query or fragment, which may carry
/// credentials.
pub(crate) fn display_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    let rest = &rest[..end];
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    if scheme.is_empty() {
        format!("{host}{path}")
    } else {
        format!("{scheme}://{host}{path}")
    }
}

#[cfg(test)]
mod tests {
    use super::display_url;

    #[test]
    fn endpoints_drop_user_information_query_and_fragment() {
        assert_eq!(
            display_url("https://user:pw@api.example.com:8443/mcp?key=s3cret#x"),
            "https://api.example.com:8443/mcp"
        );
        assert_eq!(
            display_url("http://127.0.0.1:3001/mcp"),
            "http://127.0.0.1:3001/mcp"
        );
        assert_eq!(display_url("http://h?token=a@b"), "http://h");
    }
}
