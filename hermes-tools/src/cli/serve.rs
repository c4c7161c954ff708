//! `serve`: the registry over MCP, on stdio or Streamable HTTP, with its flags (see
//! [`ToolServer`](crate::mcp::server::ToolServer)).

use std::process::ExitCode;

use super::Cli;

/// `serve`'s flags beyond the selection (see [`crate::mcp::server::ToolServer`]).
#[derive(clap::Args)]
pub(super) struct ServeFlags {
    /// Serve the agent-loop tools (todo, memory, ...), each MCP session with its own state;
    /// without it they are neither listed nor callable.
    #[arg(long)]
    agent_loop_tools: bool,
    /// List `tool_search`, `tool_describe` and `tool_call` instead of every tool: the client
    /// finds the tools it needs and runs them through `tool_call` (the config's
    /// `[tool_search] pin` keeps tools listed).
    #[arg(long)]
    search: bool,
    /// A browser origin allowed to call the HTTP endpoint besides loopback ones
    /// (scheme://host[:port]); repeat or separate with commas.
    #[arg(long, value_delimiter = ',', value_name = "ORIGIN")]
    allow_origin: Vec<String>,
    /// How many HTTP sessions may live at once; another `initialize` is refused (503) [default:
    /// 1000: an idle session holds about 72 KiB, so a full server's idle sessions about 70 MiB;
    /// measured with bench/load].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_sessions: Option<u32>,
    /// Seconds an HTTP session may stay idle (no request, no stream open) before it ends, its
    /// calls still running cancelled: how long a disconnected client's answer is kept for it
    /// to resume [default: 1800].
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    session_idle_secs: Option<u64>,
    /// How many HTTP connections are served at once; another is answered 503 with
    /// Retry-After and closed [default: 1024].
    #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: Option<u32>,
    /// Seconds an HTTP connection may take to send a request's head (once opened, or idle
    /// after an answer) before it is closed [default: 30].
    #[arg(long, value_name = "SECS", requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout_secs: Option<u64>,
    /// Require a bearer token on every HTTP request, from this file (one per line; `#`
    /// comments): with it, `--http` may listen beyond loopback.
    #[arg(long, value_name = "PATH", requires = "http")]
    token_file: Option<std::path::PathBuf>,
    /// Require a bearer token on every HTTP request, from this environment variable (tokens
    /// separated by spaces or commas).
    #[arg(
        long,
        value_name = "NAME",
        requires = "http",
        conflicts_with = "token_file"
    )]
    token_env: Option<String>,
    /// Require an OAuth access token on every HTTP request, issued by this authorization
    /// server (its issuer URL) for this endpoint and checked by introspection: with it,
    /// `--http` may listen beyond loopback.
    #[cfg(feature = "mcp-remote")]
    #[arg(
        long,
        value_name = "URL",
        requires_all = ["http", "oauth_client_id"],
        conflicts_with_all = ["token_file", "token_env"]
    )]
    oauth_issuer: Option<String>,
    /// The endpoint's public URL, which tokens must be issued for [default: http://ADDR/mcp].
    #[cfg(feature = "mcp-remote")]
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    oauth_resource: Option<String>,
    /// This server's client id at the authorization server, for introspection.
    #[cfg(feature = "mcp-remote")]
    #[arg(long, value_name = "ID", requires = "oauth_issuer")]
    oauth_client_id: Option<String>,
    /// The environment variable holding its client secret.
    #[cfg(feature = "mcp-remote")]
    #[arg(
        long,
        value_name = "NAME",
        requires = "oauth_issuer",
        default_value = "HERMES_OAUTH_CLIENT_SECRET"
    )]
    oauth_client_secret_env: String,
    /// A scope every token must carry; repeat or separate with commas.
    #[cfg(feature = "mcp-remote")]
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "SCOPE",
        requires = "oauth_issuer"
    )]
    oauth_scope: Vec<String>,
    /// Seconds a 2026-07-28 client may take to answer a tool's question (the sealed
    /// requestState's lifetime) [default: 600]. The keys sealing it come from
    /// HERMES_MCP_STATE_KEYS (`id=secret`, comma-separated, the first sealing; replicas share
    /// them); without it, a random key of this process's.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    request_state_ttl_secs: Option<u64>,
    /// Seconds a 2026-07-28 client may keep a list as fresh (its `ttlMs`; 0: do not cache)
    /// [default: 60].
    #[arg(long, value_name = "SECS")]
    list_ttl_secs: Option<u64>,
    /// The most tools one tools/list answer holds; a longer list comes in pages, each ending
    /// with a nextCursor (0: every tool in one answer) [default: 1000].
    #[arg(long, value_name = "N")]
    page_size: Option<usize>,
    /// Seconds a call of a tasks-capable client runs before it becomes a task [default: 10].
    #[arg(long, value_name = "SECS")]
    task_after_secs: Option<u64>,
    /// Seconds a task (and its result) is kept after its creation [default: 3600].
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    task_ttl_secs: Option<u64>,
    /// Seconds a task outlives its process's silence before it is failed [default: 15].
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    task_lease_secs: Option<u64>,
    /// The longest message read, in bytes (a stdio line, an HTTP body) [default: 16 MiB].
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1024..))]
    max_message_bytes: Option<u64>,
    /// Name this replica in a `Hermes-Replica` header on every HTTP answer (letters, digits,
    /// `-`, `_`, `.`): which replica of a fleet answered.
    #[arg(long, value_name = "NAME", requires = "http")]
    replica_id: Option<String>,
    /// Share the HTTP sessions and the tasks with the other replicas of a fleet through this
    /// Redis (redis://[:password@]host:port/db): a session opened, or a task started, on one
    /// replica continues on any. The server refuses to start if Redis does not answer.
    #[cfg(feature = "mcp-redis")]
    #[arg(
        long,
        value_name = "URL",
        requires = "http",
        conflicts_with = "agent_loop_tools"
    )]
    store: Option<String>,
    /// The prefix of every key this fleet writes in the store [default: hermes:mcp:].
    #[cfg(feature = "mcp-redis")]
    #[arg(long, value_name = "PREFIX", requires = "store")]
    store_prefix: Option<String>,
    /// Milliseconds a store command may take before the request it serves fails
    /// [default: 2000].
    #[cfg(feature = "mcp-redis")]
    #[arg(long, value_name = "MS", requires = "store", value_parser = clap::value_parser!(u64).range(1..))]
    store_timeout_ms: Option<u64>,
}

impl Cli {
    pub(super) fn serve(
        &self,
        selection: crate::toolsets::Selection,
        http: Option<std::net::SocketAddr>,
        flags: ServeFlags,
    ) -> ExitCode {
        use crate::mcp::server::{
            BearerTokens, REQUEST_STATE_KEYS_ENV, RequestStateKeys, ServeError, ToolServer,
        };

        // Each MCP session gets the context in a session of its own (see ToolServer); never
        // the operator's extensions: a client's request must not reach this terminal.
        let mut server = ToolServer::new(self.tools().clone())
            .context(self.context.clone())
            .selection(selection)
            .agent_loop_tools(flags.agent_loop_tools)
            .allow_origins(flags.allow_origin);
        if flags.search {
            server = server.defer(crate::search::Deferral::default().all().from_config());
        }
        if let Some(sessions) = flags.max_sessions {
            server = server.max_sessions(usize::try_from(sessions).unwrap_or(usize::MAX));
        }
        // Tasks (see `mcp::server::tasks`): the threshold, TTL and lease the flags set.
        if let Some(secs) = flags.task_after_secs {
            server = server.task_after(std::time::Duration::from_secs(secs));
        }
        if let Some(secs) = flags.task_ttl_secs {
            server = server.task_ttl(std::time::Duration::from_secs(secs));
        }
        if let Some(secs) = flags.task_lease_secs {
            server = server.task_lease(std::time::Duration::from_secs(secs));
        }
        if let Some(secs) = flags.session_idle_secs {
            server = server.session_idle_timeout(std::time::Duration::from_secs(secs));
        }
        if let Some(connections) = flags.max_connections {
            server = server.max_connections(usize::try_from(connections).unwrap_or(usize::MAX));
        }
        if let Some(secs) = flags.header_timeout_secs {
            server = server.header_read_timeout(std::time::Duration::from_secs(secs));
        }
        if let Some(bytes) = flags.max_message_bytes {
            server = server.max_message_bytes(usize::try_from(bytes).unwrap_or(usize::MAX));
        }
        if let Some(secs) = flags.list_ttl_secs {
            server = server.list_ttl(std::time::Duration::from_secs(secs));
        }
        if let Some(tools) = flags.page_size {
            server = server.page_size(tools);
        }
        if let Some(secs) = flags.request_state_ttl_secs {
            server = server.request_state_ttl(std::time::Duration::from_secs(secs));
        }
        if std::env::var_os(REQUEST_STATE_KEYS_ENV).is_some() {
            match RequestStateKeys::from_env(REQUEST_STATE_KEYS_ENV) {
                Ok(keys) => server = server.request_state_keys(keys),
                Err(err) => {
                    eprintln!("error: {REQUEST_STATE_KEYS_ENV}: {err}");
                    return ExitCode::from(2);
                }
            }
        }
        if let Some(id) = &flags.replica_id {
            match server.replica_id(id) {
                Ok(named) => server = named,
                Err(err) => {
                    eprintln!("error: --replica-id: {err}");
                    return ExitCode::from(2);
                }
            }
        }
        let tokens = match (&flags.token_file, &flags.token_env) {
            (Some(path), _) => Some(BearerTokens::from_file(path)),
            (None, Some(name)) => Some(BearerTokens::from_env(name)),
            (None, None) => None,
        };
        match tokens {
            Some(Ok(tokens)) => server = server.require_bearer(tokens),
            Some(Err(err)) => {
                eprintln!("error: bearer tokens refused: {err}");
                return ExitCode::from(2);
            }
            None => {}
        }
        #[cfg(feature = "mcp-remote")]
        if let Some(issuer) = flags.oauth_issuer {
            let secret_env = flags.oauth_client_secret_env;
            let Some(client_secret) = std::env::var(&secret_env).ok().filter(|s| !s.is_empty())
            else {
                eprintln!(
                    "error: --oauth-issuer needs the client secret in the environment variable \
                     {secret_env} (set it, or name another with --oauth-client-secret-env)"
                );
                return ExitCode::from(2);
            };
            server = server.require_oauth(crate::mcp::server::OAuthResourceConfig {
                issuer,
                resource: flags.oauth_resource,
                client_id: flags.oauth_client_id.unwrap_or_default(),
                client_secret,
                scopes: flags.oauth_scope,
            });
        }
        let runtime = match super::runtime() {
            Ok(runtime) => runtime,
            Err(code) => return code,
        };
        #[cfg(feature = "mcp-redis")]
        let store = flags.store.map(|url| {
            let mut config = crate::mcp::server::RedisStoreConfig::new(url);
            if let Some(prefix) = flags.store_prefix {
                config = config.key_prefix(prefix);
            }
            if let Some(ms) = flags.store_timeout_ms {
                config = config.timeout(std::time::Duration::from_millis(ms));
            }
            config
        });
        let served = runtime.block_on(async move {
            // Redis must answer before anything is served: a replica that cannot share its
            // sessions would strand every client the load balancer sends it.
            #[cfg(feature = "mcp-redis")]
            if let Some(config) = store {
                let store = crate::mcp::server::RedisStore::connect(config).await?;
                server = server.shared_store(store);
            }
            match http {
                None => server.serve_stdio().await,
                Some(addr) => {
                    let endpoint = server.bind_http(addr).await?;
                    eprintln!("listening on {}", endpoint.url());
                    endpoint.serve().await
                }
            }
        });
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(
                err @ (ServeError::Selection(_)
                | ServeError::NotLoopback { .. }
                | ServeError::Origin(_)
                | ServeError::ReplicaId(_)),
            ) => {
                eprintln!("error: {err}");
                ExitCode::from(2)
            }
            Err(err) => {
                eprintln!("error: {err}");
                ExitCode::FAILURE
            }
        }
    }
}
