//! `[mcp_servers.<name>]`: how the MCP client reaches one server, and what it takes from it.
//!
//! A server is either a program the client starts and speaks to over stdio (`command`), or a
//! remote server it reaches over Streamable HTTP (`url`, feature `mcp-remote`), or over the
//! legacy HTTP+SSE transport (`url` and `transport = "sse"`). Each is one [`McpTransport`],
//! so a configuration naming both `command` and `url`, or neither, is refused when it is
//! read, with the key to fix:
//!
//! ```
//! # #[cfg(feature = "toml")] {
//! use hermes_tools::config::Config;
//! use hermes_tools::config::McpTransport;
//!
//! let config = Config::from_toml_str(r#"
//!     [mcp_servers.time]
//!     command = "uvx"
//!     args = ["mcp-server-time"]
//!
//!     [mcp_servers.search]
//!     url = "https://search.example.com/mcp"
//!     headers = { Authorization = "Bearer ${SEARCH_TOKEN}" }
//! "#).unwrap();
//! assert!(matches!(config.mcp_servers["time"].transport, McpTransport::Stdio { .. }));
//! assert!(matches!(config.mcp_servers["search"].transport, McpTransport::Http { .. }));
//!
//! let err = Config::from_toml_str("[mcp_servers.x]\nargs = [\"-v\"]").unwrap_err();
//! assert!(err.to_string().contains("give `command`"), "{err}");
//! # }
//! ```
//!
//! Header values may name environment variables as `${NAME}`: they are read when the client
//! connects, so the file holds no secret, and they are never written to a log or a status.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::oauth::OAuthConfig;
use super::url::check_url;

/// How the client reaches an MCP server.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum McpTransport {
    /// A program the client starts, speaking newline-delimited JSON-RPC on its stdin and
    /// stdout. It gets a filtered inherited environment (PATH, HOME, ...) and `env`.
    Stdio {
        /// The program to start.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Environment variables set for it.
        env: BTreeMap<String, String>,
    },
    /// A remote server over Streamable HTTP (feature `mcp-remote`; without it the server is
    /// reported failed, saying so).
    Http {
        /// The endpoint, `http://` or `https://`.
        url: String,
        /// Headers sent with every request. A value may hold `${NAME}`, replaced by the
        /// environment variable `NAME` when the client connects (a bearer token:
        /// `Authorization = "Bearer ${TOKEN}"`).
        headers: BTreeMap<String, String>,
    },
    /// A remote server over the legacy HTTP+SSE transport of MCP 2024-11-05
    /// (`transport = "sse"`; feature `mcp-remote`): `url` is its event stream.
    Sse {
        /// The event stream, `http://` or `https://`.
        url: String,
        /// Headers sent with every request, as for [`McpTransport::Http`].
        headers: BTreeMap<String, String>,
    },
}

/// One MCP server: how to reach it ([`McpTransport`]), which of its tools to take, and its
/// timeouts.
///
/// Built from the `[mcp_servers.<name>]` table of a [`Config`](super::Config), or in code from
/// [`McpServerConfig::stdio`] or [`McpServerConfig::http`] and then its public fields.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "RawServer")]
#[non_exhaustive]
pub struct McpServerConfig {
    /// How the client reaches the server.
    pub transport: McpTransport,
    /// Only these tools (by the server's names) are registered, when given.
    pub include: Vec<String>,
    /// These tools (by the server's names) are never registered.
    pub exclude: Vec<String>,
    /// How long starting (or reaching) and initialising the server may take, in seconds.
    pub connect_timeout_secs: u64,
    /// How long one tool call may take, in seconds.
    pub call_timeout_secs: u64,
    /// How often an idle connection is checked with a `ping`, in seconds (0: never). An
    /// unanswered ping ends the connection and the server is reached again; without it a
    /// remote server that went away unnoticed looks running until a call fails. Default 30.
    pub keepalive_secs: u64,
    /// Seconds without a call after which the server is stopped, its tools kept; the next
    /// call starts it again (0, the default: never; Hermes' `idle_timeout_seconds`).
    pub idle_timeout_secs: u64,
    /// Seconds a connection lasts before the server is stopped between calls, to be started
    /// afresh by the next one (0, the default: forever; Hermes' `max_lifetime_seconds`).
    pub max_lifetime_secs: u64,
    /// Whether calls of this server's tools may run concurrently within a model turn (see
    /// [`ToolRegistry::run_turn`](crate::ToolRegistry::run_turn); Hermes'
    /// `supports_parallel_tool_calls`). Off by default: the server's own `readOnlyHint` is
    /// not trusted for this, since it is a hint from a process we do not control (the MCP
    /// specification calls annotations untrusted unless the server is), and a server that
    /// serialises its work, or shares state between calls, says nothing about it. The
    /// operator, who knows the server, opts in.
    pub parallel_tool_calls: bool,
    /// What the server may ask of the agent's model (`[mcp_servers.<name>.sampling]`), when
    /// the agent's asker answers sampling.
    pub sampling: SamplingConfig,
    /// Which era of MCP the client speaks to the server (`protocol`, default
    /// [`McpProtocol::Auto`]): the 2026-07-28 revision's `server/discover` and per-request
    /// `_meta`, the `initialize` handshake of earlier revisions, or the first that works.
    pub protocol: McpProtocol,
    /// The MCP protocol version the client asks for (one of [`MCP_PROTOCOL_VERSIONS`]), which
    /// also settles the era: `"2026-07-28"` is spoken through `server/discover` only, an
    /// earlier version through the `initialize` handshake only (no probe). None: the newest of
    /// the era (2026-07-28 through `server/discover`, and 2025-11-25 offered in `initialize`,
    /// where a server that supports an older one answers with it and the client follows).
    /// A version of the other era than an explicit `protocol` is refused when the config is
    /// read.
    pub protocol_version: Option<String>,
    /// OAuth 2.1 authorization of a Streamable HTTP server (`[mcp_servers.<name>.oauth]`);
    /// none: the server is reached with its `headers` only.
    pub oauth: Option<OAuthConfig>,
}

/// Which era of MCP the client speaks to a server (`protocol = "auto" | "modern" | "legacy"` in
/// `[mcp_servers.<name>]`).
///
/// The 2026-07-28 revision of MCP has no handshake: the client asks `server/discover` and
/// every request carries the protocol version and the client's capabilities in its `_meta`;
/// a server asks its questions by answering a call `input_required` (Multi Round-Trip
/// Requests). Earlier revisions open a session with `initialize`, and a server asks through
/// requests of its own. The version the client ends up with shows in
/// [`ServerStatus`](crate::mcp::client::ServerStatus) (and `list`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpProtocol {
    /// `"auto"`, the default: `server/discover` first; a server that does not answer it
    /// (method not found or another JSON-RPC error, an HTTP 4xx other than 401/403, no
    /// answer within 10 s, or an unsupported-version error naming only earlier versions) is
    /// spoken to through `initialize`. Over the legacy SSE transport, always `initialize`.
    #[default]
    Auto,
    /// `"modern"`: the 2026-07-28 revision only; a server that does not answer
    /// `server/discover` fails to start, saying so.
    Modern,
    /// `"legacy"`: the `initialize` handshake only (the client before 2026-07-28 support).
    Legacy,
}

impl McpProtocol {
    /// Reads `protocol`'s value, or says which values there are.
    fn parse(value: &str) -> Result<Self, String> {
        match value {
            "auto" => Ok(Self::Auto),
            "modern" => Ok(Self::Modern),
            "legacy" => Ok(Self::Legacy),
            other => Err(format!(
                "`protocol` {other:?} is not one the client speaks: give \"auto\" (the \
                 default: `server/discover`, falling back to `initialize`), \"modern\" \
                 (MCP 2026-07-28 only) or \"legacy\" (the `initialize` handshake only)"
            )),
        }
    }
}

/// The protocol version without an `initialize` handshake (the first of the modern era).
pub(crate) const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";

/// The MCP protocol versions the client speaks, oldest first.
pub const MCP_PROTOCOL_VERSIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// The bounds of one server's sampling requests (`sampling/createMessage`), which the agent
/// answers through its [`Asker`](crate::call::Asker), if that answers sampling.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SamplingConfig {
    /// Whether the server is offered sampling at all (default true, when the asker samples).
    pub enabled: bool,
    /// The most tokens one request may have generated; a request asking more is capped
    /// (default 4096).
    pub max_tokens: u32,
    /// The most requests in any minute; more are refused (default 10).
    pub max_per_minute: u32,
    /// The models that may answer this server (empty, the default: any). The asker is told
    /// them and sees only the server's hints among them; a reply by another model is not
    /// sent, and the server is answered with an error naming the list. A name ending in `*`
    /// is a prefix (`claude-haiku-*`).
    pub allowed_models: Vec<String>,
}

impl Default for SamplingConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_tokens: 4096,
            max_per_minute: 10,
            allowed_models: Vec::new(),
        }
    }
}

/// Default time to start (or reach) and initialise a server, in seconds.
pub(super) const DEFAULT_MCP_CONNECT_TIMEOUT_SECS: u64 = 30;

/// Default time one MCP tool call may take, in seconds.
pub(super) const DEFAULT_MCP_CALL_TIMEOUT_SECS: u64 = 120;

/// Default time between keepalive pings, in seconds.
pub(super) const DEFAULT_MCP_KEEPALIVE_SECS: u64 = 30;

impl McpServerConfig {
    /// A server started as `command args…`, with every other setting at its default.
    ///
    /// ```
    /// use hermes_tools::config::McpServerConfig;
    ///
    /// let mut time = McpServerConfig::stdio("uvx", ["mcp-server-time"]);
    /// time.call_timeout_secs = 10;
    /// ```
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::with_transport(McpTransport::Stdio {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
        })
    }

    /// A remote server at `url` over Streamable HTTP, with no headers and every other setting
    /// at its default.
    pub fn http(url: impl Into<String>) -> Self {
        Self::with_transport(McpTransport::Http {
            url: url.into(),
            headers: BTreeMap::new(),
        })
    }

    /// A remote server still on the legacy HTTP+SSE transport, its event stream at `url`.
    pub fn sse(url: impl Into<String>) -> Self {
        Self::with_transport(McpTransport::Sse {
            url: url.into(),
            headers: BTreeMap::new(),
        })
    }

    fn with_transport(transport: McpTransport) -> Self {
        Self {
            transport,
            include: Vec::new(),
            exclude: Vec::new(),
            connect_timeout_secs: DEFAULT_MCP_CONNECT_TIMEOUT_SECS,
            call_timeout_secs: DEFAULT_MCP_CALL_TIMEOUT_SECS,
            keepalive_secs: DEFAULT_MCP_KEEPALIVE_SECS,
            idle_timeout_secs: 0,
            max_lifetime_secs: 0,
            parallel_tool_calls: false,
            sampling: SamplingConfig::default(),
            protocol: McpProtocol::Auto,
            protocol_version: None,
            oauth: None,
        }
    }
}

/// The table as written, checked into an [`McpServerConfig`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    transport: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default = "default_connect_timeout")]
    connect_timeout_secs: u64,
    #[serde(default = "default_call_timeout")]
    call_timeout_secs: u64,
    #[serde(default = "default_keepalive")]
    keepalive_secs: u64,
    #[serde(default)]
    idle_timeout_secs: u64,
    #[serde(default)]
    max_lifetime_secs: u64,
    #[serde(default)]
    parallel_tool_calls: bool,
    #[serde(default)]
    sampling: SamplingConfig,
    protocol: Option<String>,
    protocol_version: Option<String>,
    oauth: Option<OAuthConfig>,
}

fn default_connect_timeout() -> u64 {
    DEFAULT_MCP_CONNECT_TIMEOUT_SECS
}

fn default_call_timeout() -> u64 {
    DEFAULT_MCP_CALL_TIMEOUT_SECS
}

fn default_keepalive() -> u64 {
    DEFAULT_MCP_KEEPALIVE_SECS
}

impl TryFrom<RawServer> for McpServerConfig {
    type Error = String;

    fn try_from(raw: RawServer) -> Result<Self, String> {
        for (key, secs) in [
            ("connect_timeout_secs", raw.connect_timeout_secs),
            ("call_timeout_secs", raw.call_timeout_secs),
        ] {
            if secs == 0 {
                return Err(format!(
                    "`{key}` is 0: nothing could finish in no time; give a number of seconds"
                ));
            }
        }
        if let Some(version) = &raw.protocol_version
            && !MCP_PROTOCOL_VERSIONS.contains(&version.as_str())
        {
            return Err(format!(
                "`protocol_version` {version:?} is not one this client speaks: give one of {}",
                MCP_PROTOCOL_VERSIONS.join(", ")
            ));
        }
        let protocol = raw
            .protocol
            .as_deref()
            .map_or(Ok(McpProtocol::Auto), McpProtocol::parse)?;
        let pinned_modern = raw
            .protocol_version
            .as_deref()
            .map(|v| v == MODERN_PROTOCOL_VERSION);
        match (protocol, pinned_modern) {
            (McpProtocol::Modern, Some(false)) => {
                return Err(format!(
                    "`protocol = \"modern\"` speaks MCP {MODERN_PROTOCOL_VERSION}, and \
                     `protocol_version` names an earlier one, spoken through `initialize`: \
                     remove `protocol_version`, or give `protocol = \"legacy\"`"
                ));
            }
            (McpProtocol::Legacy, Some(true)) => {
                return Err(format!(
                    "`protocol = \"legacy\"` is the `initialize` handshake, which MCP \
                     {MODERN_PROTOCOL_VERSION} does not have: give an earlier \
                     `protocol_version`, or `protocol = \"modern\"`"
                ));
            }
            _ => {}
        }
        let sse = raw.transport.as_deref() == Some("sse");
        if sse && (protocol == McpProtocol::Modern || pinned_modern == Some(true)) {
            return Err(format!(
                "the legacy HTTP+SSE transport (`transport = \"sse\"`) only carries the \
                 `initialize` handshake, not MCP {MODERN_PROTOCOL_VERSION}: remove `protocol` \
                 and `protocol_version`, or use Streamable HTTP"
            ));
        }
        let transport = match (raw.command, raw.url) {
            (Some(_), Some(_)) => {
                return Err(
                    "give `command` (a server started over stdio) or `url` (a remote \
                            server), not both"
                        .to_owned(),
                );
            }
            (None, None) => {
                return Err(
                    "give `command` (a server started over stdio) or `url` (a remote \
                            server over Streamable HTTP)"
                        .to_owned(),
                );
            }
            (Some(command), None) => {
                if raw.oauth.is_some() {
                    return Err(
                        "`oauth` authorizes a remote server (`url`); a server started \
                                with `command` takes its credentials in `env`"
                            .to_owned(),
                    );
                }
                if raw.transport.is_some() {
                    return Err(
                        "`transport` is for a remote server (`url`); a server started \
                                with `command` speaks stdio"
                            .to_owned(),
                    );
                }
                if !raw.headers.is_empty() {
                    return Err("`headers` are sent to a remote server (`url`); a server \
                                started with `command` takes `env`"
                        .to_owned());
                }
                if command.trim().is_empty() {
                    return Err("`command` is empty: name the program to start".to_owned());
                }
                McpTransport::Stdio {
                    command,
                    args: raw.args,
                    env: raw.env,
                }
            }
            (None, Some(url)) => {
                if !raw.args.is_empty() || !raw.env.is_empty() {
                    return Err(
                        "`args` and `env` are for a server started with `command`; a \
                                remote server (`url`) takes `headers`"
                            .to_owned(),
                    );
                }
                check_url(&url)?;
                let headers = raw.headers;
                if let Some(oauth) = &raw.oauth {
                    if raw.transport.as_deref() == Some("sse") {
                        return Err("`oauth` is for a Streamable HTTP server; the legacy SSE \
                                    transport takes a token in `headers`"
                            .to_owned());
                    }
                    oauth.check()?;
                }
                match raw.transport.as_deref() {
                    None | Some("streamable-http") => McpTransport::Http { url, headers },
                    Some("sse") => McpTransport::Sse { url, headers },
                    Some(other) => {
                        return Err(format!(
                            "`transport` {other:?} is not one the client speaks: give \
                             \"streamable-http\" (the default) or \"sse\" (the legacy \
                             HTTP+SSE transport)"
                        ));
                    }
                }
            }
        };
        Ok(Self {
            transport,
            include: raw.include,
            exclude: raw.exclude,
            connect_timeout_secs: raw.connect_timeout_secs,
            call_timeout_secs: raw.call_timeout_secs,
            keepalive_secs: raw.keepalive_secs,
            idle_timeout_secs: raw.idle_timeout_secs,
            max_lifetime_secs: raw.max_lifetime_secs,
            parallel_tool_calls: raw.parallel_tool_calls,
            sampling: raw.sampling,
            protocol,
            protocol_version: raw.protocol_version,
            oauth: raw.oauth,
        })
    }
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use super::super::oauth::DEFAULT_OAUTH_REDIRECT_URI;
    use super::*;

    fn read(table: &str) -> Result<McpServerConfig, String> {
        toml::from_str(table).map_err(|err| err.to_string())
    }

    #[test]
    fn a_command_is_a_stdio_server_and_a_url_a_remote_one() {
        let stdio = read("command = \"uvx\"\nargs = [\"mcp-server-time\"]").unwrap();
        assert_eq!(stdio, McpServerConfig::stdio("uvx", ["mcp-server-time"]));
        let remote = read("url = \"http://127.0.0.1:3001/mcp\"\nheaders = { X-Key = \"${K}\" }");
        let McpTransport::Http { url, headers } = remote.unwrap().transport else {
            panic!("a url is a remote server");
        };
        assert_eq!(url, "http://127.0.0.1:3001/mcp");
        assert_eq!(headers["X-Key"], "${K}");
    }

    #[test]
    fn a_transport_of_sse_is_the_legacy_transport_and_nothing_else_is_taken() {
        let sse = read("url = \"http://h/sse\"\ntransport = \"sse\"").unwrap();
        assert!(matches!(sse.transport, McpTransport::Sse { .. }), "{sse:?}");
        let http = read("url = \"http://h/mcp\"\ntransport = \"streamable-http\"").unwrap();
        assert!(
            matches!(http.transport, McpTransport::Http { .. }),
            "{http:?}"
        );
        let ws = read("url = \"http://h/mcp\"\ntransport = \"ws\"").unwrap_err();
        assert!(ws.contains("give \"streamable-http\""), "{ws}");
        let stdio = read("command = \"x\"\ntransport = \"sse\"").unwrap_err();
        assert!(
            stdio.contains("`transport` is for a remote server"),
            "{stdio}"
        );
    }

    #[test]
    fn both_or_neither_of_command_and_url_is_refused_saying_which_to_give() {
        let both = read("command = \"x\"\nurl = \"http://h/mcp\"").unwrap_err();
        assert!(both.contains("not both"), "{both}");
        let neither = read("include = [\"a\"]").unwrap_err();
        assert!(neither.contains("give `command`"), "{neither}");
    }

    #[test]
    fn keys_of_the_other_transport_are_refused_naming_the_right_one() {
        let headers = read("command = \"x\"\nheaders = { A = \"b\" }").unwrap_err();
        assert!(headers.contains("takes `env`"), "{headers}");
        let env = read("url = \"http://h/mcp\"\nenv = { A = \"b\" }").unwrap_err();
        assert!(env.contains("takes `headers`"), "{env}");
    }

    #[test]
    fn a_url_must_be_http_with_a_host() {
        let ftp = read("url = \"ftp://h/mcp\"").unwrap_err();
        assert!(ftp.contains("not an HTTP URL"), "{ftp}");
        let hostless = read("url = \"https:///mcp\"").unwrap_err();
        assert!(hostless.contains("names no host"), "{hostless}");
        assert!(read("url = \"https://h\"").is_ok());
        let empty = read("command = \" \"").unwrap_err();
        assert!(empty.contains("`command` is empty"), "{empty}");
    }

    #[test]
    fn sampling_has_bounds_by_default_and_takes_the_operators() {
        assert_eq!(
            read("command = \"x\"").unwrap().sampling,
            SamplingConfig::default()
        );
        let bounded = read("command = \"x\"\n[sampling]\nmax_tokens = 100\nmax_per_minute = 2")
            .unwrap()
            .sampling;
        assert_eq!(
            (bounded.enabled, bounded.max_tokens, bounded.max_per_minute),
            (true, 100, 2)
        );
        let err = read("command = \"x\"\n[sampling]\nmax_token = 100").unwrap_err();
        assert!(err.contains("max_token"), "{err}");
    }

    #[test]
    fn protocol_is_auto_modern_or_legacy_and_agrees_with_a_pinned_version() {
        assert_eq!(read("command = \"x\"").unwrap().protocol, McpProtocol::Auto);
        for (value, expected) in [
            ("auto", McpProtocol::Auto),
            ("modern", McpProtocol::Modern),
            ("legacy", McpProtocol::Legacy),
        ] {
            let server = read(&format!("command = \"x\"\nprotocol = \"{value}\"")).unwrap();
            assert_eq!(server.protocol, expected);
        }
        let err = read("command = \"x\"\nprotocol = \"2026\"").unwrap_err();
        assert!(
            err.contains("`protocol` \"2026\" is not one the client speaks")
                && err.contains("\"auto\"")
                && err.contains("\"modern\"")
                && err.contains("\"legacy\""),
            "{err}"
        );
        let err = read("command = \"x\"\nprotocol = \"modern\"\nprotocol_version = \"2025-06-18\"")
            .unwrap_err();
        assert!(err.contains("remove `protocol_version`"), "{err}");
        let err = read("command = \"x\"\nprotocol = \"legacy\"\nprotocol_version = \"2026-07-28\"")
            .unwrap_err();
        assert!(err.contains("does not have"), "{err}");
        let err =
            read("url = \"http://h/sse\"\ntransport = \"sse\"\nprotocol = \"modern\"").unwrap_err();
        assert!(
            err.contains("only carries the `initialize` handshake"),
            "{err}"
        );
        let err = read("command = \"x\"\nprotocol = 1").unwrap_err();
        assert!(err.contains("protocol"), "{err}");
        // Both agree, or the version alone settles the era under `auto`.
        let pinned =
            read("command = \"x\"\nprotocol = \"modern\"\nprotocol_version = \"2026-07-28\"");
        assert!(pinned.is_ok(), "{pinned:?}");
        let pinned = read("command = \"x\"\nprotocol_version = \"2025-06-18\"").unwrap();
        assert_eq!(pinned.protocol, McpProtocol::Auto);
    }

    #[test]
    fn a_protocol_version_must_be_one_the_client_speaks() {
        let pinned = read("command = \"x\"\nprotocol_version = \"2025-11-25\"").unwrap();
        assert_eq!(pinned.protocol_version.as_deref(), Some("2025-11-25"));
        let err = read("command = \"x\"\nprotocol_version = \"2025-13-01\"").unwrap_err();
        assert!(err.contains("give one of 2024-11-05"), "{err}");
    }

    #[test]
    fn oauth_is_for_streamable_http_and_its_settings_are_checked() {
        let oauth = read("url = \"https://h/mcp\"\n[oauth]\nscopes = [\"read\"]").unwrap();
        let oauth = oauth.oauth.expect("an oauth table");
        assert_eq!(oauth.scopes, ["read"]);
        assert_eq!(oauth.redirect_uri, DEFAULT_OAUTH_REDIRECT_URI);
        assert_eq!(oauth.client_name, "hermes-tools");
        for (table, says) in [
            ("command = \"x\"\n[oauth]", "takes its credentials in `env`"),
            (
                "url = \"http://h/sse\"\ntransport = \"sse\"\n[oauth]",
                "legacy SSE",
            ),
            (
                "url = \"http://h/mcp\"\n[oauth]\nclient_secret = \"s\"",
                "give its `client_id`",
            ),
            (
                "url = \"http://h/mcp\"\n[oauth]\nclient_metadata_url = \"http://c/m.json\"",
                "not an https:// URL",
            ),
            (
                "url = \"http://h/mcp\"\n[oauth]\nredirect_uri = \"cb\"",
                "`oauth.redirect_uri`",
            ),
            ("url = \"http://h/mcp\"\n[oauth]\nscope = [\"a\"]", "scope"),
        ] {
            let err = read(table).unwrap_err();
            assert!(err.contains(says), "{table}: {err}");
        }
    }

    #[test]
    fn an_oauth_client_secret_is_never_shown() {
        let server =
            read("url = \"http://h/mcp\"\n[oauth]\nclient_id = \"c\"\nclient_secret = \"hunter2\"")
                .unwrap();
        let shown = format!("{server:?}");
        assert!(
            !shown.contains("hunter2") && shown.contains("[REDACTED]"),
            "{shown}"
        );
    }

    #[test]
    fn a_timeout_of_zero_is_refused() {
        let err = read("command = \"x\"\ncall_timeout_secs = 0").unwrap_err();
        assert!(err.contains("`call_timeout_secs` is 0"), "{err}");
    }

    #[test]
    fn unknown_keys_are_still_refused() {
        let err = read("command = \"x\"\ncall_timeout = 3").unwrap_err();
        assert!(err.contains("call_timeout"), "{err}");
    }
}
