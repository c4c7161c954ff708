//! The tools of MCP servers, as toolsets of the registry.
//!
//! Every server of [`Config::mcp_servers`] is started over stdio, or reached over Streamable
//! HTTP when it is given by `url` (feature `mcp-remote`; see
//! [`McpTransport`](crate::config::McpTransport) and [`McpClients::start`]), and each of its
//! tools is registered as `mcp__<server>__<tool>` (`naming`) in toolset `mcp-<server>`, which
//! the bare server name also names. The tools are ordinary registry
//! tools: they appear in `definitions`, go through the call pipeline, and their arguments are
//! validated against the server's input schema, repaired into a Draft 2020-12 object schema
//! first (`normalise`). A server that dies has its tools removed and is started again with
//! exponential backoff; a server that keeps failing calls is paused by a breaker.
//!
//! ```no_run
//! use std::sync::Arc;
//! use hermes_tools::config::Config;
//! use hermes_tools::mcp::client::McpClients;
//! use hermes_tools::{toolsets::Selection, ToolContext, ToolRegistry};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let config = Config::from_toml_str(r#"
//!     [mcp_servers.time]
//!     command = "python"
//!     args = ["-m", "mcp_server_time"]
//!
//!     [mcp_servers.search]
//!     url = "https://search.example.com/mcp"
//!     headers = { Authorization = "Bearer ${SEARCH_TOKEN}" }
//! "#)?;
//! let registry = ToolRegistry::new();
//! let clients = McpClients::start(&registry, &config, &Selection::default()).await;
//! for status in clients.report() {
//!     println!("{}: {}", status.name, status.state);
//! }
//! let answer = registry
//!     .call("mcp__time__get_current_time", r#"{"timezone":"UTC"}"#, &ToolContext::new())
//!     .await;
//! println!("{answer}");
//! clients.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! # What is done better than Hermes
//!
//! - A server whose toolset the [`Selection`] disables is never started (Hermes started it,
//!   and its process ran with whatever it does at start-up).
//! - A schema that cannot be repaired skips its tool, with the reason in the report, instead of
//!   sending providers a schema they reject with the whole request.
//! - Two tool names that sanitise alike, a name over 64 characters, a tool that would replace
//!   a built-in one: each is settled the same way every run and reported.
//! - Only a server that does not answer counts for the breaker; a tool's own error does not.
//! - A failed start says why, with the end of the server's stderr, or for a remote server the
//!   HTTP failure and what to do about it (a 401: add a token to `headers`).
//! - Header values name environment variables (`${TOKEN}`), read at each connection; no value
//!   reaches a log, a status or a message.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use crate::ToolRegistry;
use crate::call::Asker;
use crate::config::Config;
use crate::toolsets::availability::{Clock, SystemClock};
use crate::toolsets::{Composite, Selection};

mod breaker;
mod call_result;
#[cfg(feature = "mcp-remote")]
mod expand;
mod mrtr;
mod naming;
pub(crate) mod normalise;
mod oauth;
mod progress;
mod remote;
mod requests;
mod rest;
mod session;
#[cfg(feature = "mcp-remote")]
mod sse;
mod stdio;
mod stdout;
mod supervisor;
mod tasks;
mod upstream;
mod utility;

pub use oauth::{AuthorizationPrompt, Authorizer, MAX_AUTHORIZATIONS};
pub use supervisor::Backoff;
use upstream::Server;

/// How long [`McpClients::shutdown`] waits for servers to close before killing them.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(3);

/// What can be tuned beyond the config file: the pace of reconnection, the breaker, the clock.
#[derive(Clone)]
pub struct McpOptions {
    /// The wait between reconnection attempts (default: 1 s doubling to 60 s).
    pub backoff: Backoff,
    /// Consecutive failed calls that open a server's breaker (default 3).
    pub breaker_threshold: u32,
    /// How long an open breaker refuses calls (default 60 s).
    pub breaker_cooldown: Duration,
    /// The clock the breaker and the sampling rate limit read (a
    /// [`ManualClock`](crate::toolsets::availability::ManualClock) in tests).
    pub clock: Arc<dyn Clock>,
    /// Answers what servers ask: `sampling/createMessage` with the agent's model, when it
    /// [`can_sample`](crate::call::Asker::can_sample), and `elicitation/create` by asking the
    /// user, when it [`can_elicit`](crate::call::Asker::can_elicit); neither is offered to a
    /// server otherwise. The same [`Asker`] a tool's own questions go
    /// through; each request names the server asking.
    pub asker: Option<Arc<dyn Asker>>,
    /// Has the user approve servers' OAuth authorizations (none: a server with no stored
    /// token cannot be authorized). See [`Authorizer`].
    pub authorizer: Option<Arc<dyn Authorizer>>,
}

impl Default for McpOptions {
    fn default() -> Self {
        Self {
            backoff: Backoff::default(),
            breaker_threshold: 3,
            breaker_cooldown: Duration::from_secs(60),
            clock: Arc::new(SystemClock),
            asker: None,
            authorizer: None,
        }
    }
}

impl fmt::Debug for McpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpOptions")
            .field("backoff", &self.backoff)
            .field("breaker_threshold", &self.breaker_threshold)
            .field("breaker_cooldown", &self.breaker_cooldown)
            .field("clock", &self.clock)
            .field("asker", &self.asker.as_ref().map(|_| "..."))
            .field("authorizer", &self.authorizer)
            .finish()
    }
}

/// Where one configured server stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerStatus {
    /// The server's name (its key in the config).
    pub name: String,
    /// Its toolset, `mcp-<name>`.
    pub toolset: String,
    /// Where it is: the command line of a server started over stdio (without its
    /// environment, which may hold secrets), or the URL of a remote one (without its query or
    /// user information, which may too; never its headers).
    pub endpoint: String,
    /// Its state.
    pub state: ServerState,
    /// Tools of its listing that were not registered, and why (from the latest listing).
    pub rejected_tools: Vec<RejectedTool>,
    /// How many `notifications/tools/list_changed` it sent that led to a new listing.
    pub refreshes: u64,
    /// The era and protocol version of its latest connection (none before the first).
    pub era: Option<Era>,
}

/// The era of MCP a connection speaks, with the protocol version agreed (see
/// [`McpProtocol`](crate::config::McpProtocol)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Era {
    /// MCP 2026-07-28 or later: `server/discover`, `_meta` on every request, questions as
    /// `input_required` results.
    Modern {
        /// The protocol version, `2026-07-28`.
        version: String,
    },
    /// An `initialize` session of an earlier revision.
    Legacy {
        /// The protocol version the server answered `initialize` with.
        version: String,
    },
}

impl fmt::Display for Era {
    /// `MCP 2026-07-28 via server/discover`, or `MCP 2025-11-25 via initialize`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Era::Modern { version } => write!(f, "MCP {version} via server/discover"),
            Era::Legacy { version } => write!(f, "MCP {version} via initialize"),
        }
    }
}

impl fmt::Display for ServerStatus {
    /// `name (toolset): state`, with the era while it runs (`running, 2 tools (MCP 2026-07-28
    /// via server/discover)`), then one line per rejected tool (as `list` shows it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.name, self.toolset, self.state)?;
        if let (ServerState::Running { .. }, Some(era)) = (&self.state, &self.era) {
            write!(f, " ({era})")?;
        }
        for rejected in &self.rejected_tools {
            write!(
                f,
                "\n  tool {:?} not registered: {}",
                rejected.name, rejected.reason
            )?;
        }
        Ok(())
    }
}

/// The state of one configured server.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerState {
    /// Being started for the first time.
    Starting,
    /// Connected; its tools (registry names, sorted) are registered.
    Running {
        /// The registry names of its tools.
        tools: Vec<String>,
    },
    /// It ran, the connection was lost, and it is being started again at the backoff's pace.
    /// Its tools stay registered and listed; a call of one is answered at once that the server
    /// is reconnecting, with its last error and in how many seconds to retry.
    Reconnecting {
        /// Reconnection attempts so far.
        attempt: u32,
        /// Why the connection or the last attempt failed.
        last_error: String,
    },
    /// Its first start failed; it is not retried (its command or config needs fixing).
    Failed {
        /// Why, credentials redacted.
        reason: String,
    },
    /// Stopped between calls (idle, or past its lifetime); its tools stay registered and
    /// the next call starts it again.
    Resting {
        /// Why it rests.
        reason: String,
    },
    /// Not started, on purpose.
    Skipped {
        /// Why (its toolset is disabled, or not enabled).
        reason: String,
    },
}

impl fmt::Display for ServerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerState::Starting => f.write_str("starting"),
            ServerState::Running { tools } => write!(f, "running, {} tools", tools.len()),
            ServerState::Reconnecting {
                attempt,
                last_error,
            } => write!(f, "reconnecting (attempt {attempt}): {last_error}"),
            ServerState::Failed { reason } => write!(f, "failed: {reason}"),
            ServerState::Resting { reason } => {
                write!(f, "resting ({reason}); the next call starts it again")
            }
            ServerState::Skipped { reason } => write!(f, "not started: {reason}"),
        }
    }
}

/// A tool of a server's listing that was not registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RejectedTool {
    /// The tool's name as the server spells it.
    pub name: String,
    /// Why it was not registered.
    pub reason: String,
}

/// The running MCP servers of a config. Dropping it stops them and removes their tools;
/// [`shutdown`](Self::shutdown) does the same and waits for the processes to close.
pub struct McpClients {
    registry: ToolRegistry,
    servers: Vec<Arc<Server>>,
    tasks: Vec<JoinHandle<()>>,
    stop: watch::Sender<bool>,
}

impl fmt::Debug for McpClients {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpClients")
            .field("servers", &self.report())
            .finish_non_exhaustive()
    }
}

impl McpClients {
    /// Starts the servers of `config` that `selection` leaves on, on the current tokio runtime,
    /// and returns once each has registered its tools or failed (in parallel, each within its
    /// `connect_timeout_secs`).
    ///
    /// The servers' tools make their calls on this runtime whoever calls them. On a
    /// current-thread runtime, call them from that runtime with the async entry points
    /// ([`ToolRegistry::call`]): a synchronous call made on its only
    /// thread blocks the very runtime the call needs, and ends in the pipeline's timeout.
    ///
    /// Every configured server gets its toolset `mcp-<name>` and alias `<name>`, started or
    /// not, so selections naming it stay valid while it is down or skipped. A server is
    /// skipped when the selection disables its toolset or alias (directly, through a
    /// composite, or with `all`, unless `enabled` names it), or when `enabled` is not empty
    /// and reaches it neither directly, through a composite, nor with `all`.
    ///
    /// The runtime must outlive the clients; [`McpSession`] owns one for synchronous programs.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    pub async fn start(registry: &ToolRegistry, config: &Config, selection: &Selection) -> Self {
        Self::start_with(registry, config, selection, McpOptions::default()).await
    }

    /// [`start`](Self::start) with options other than the defaults.
    pub async fn start_with(
        registry: &ToolRegistry,
        config: &Config,
        selection: &Selection,
        options: McpOptions,
    ) -> Self {
        let registry = registry.clone();
        let runtime = Handle::current();
        let (stop, _) = watch::channel(false);
        let mut servers = Vec::new();
        let mut tasks = Vec::new();
        let mut first_attempts = Vec::new();
        // First every server's toolset and alias, then the selection: a selection names
        // servers configured after the one being decided (`--disable fetch` while deciding
        // `everything`), and is only valid once every name exists.
        let mut named = Vec::new();
        // Servers whose names sanitise alike would register the same tool names.
        let mut prefixes: BTreeMap<String, &String> = BTreeMap::new();
        for (name, server_config) in &config.mcp_servers {
            let toolset = register_names(&registry, name, &mut prefixes);
            named.push((name, server_config, toolset));
        }
        for (name, server_config, toolset) in named {
            let new = |state| {
                Arc::new(Server::new(
                    name,
                    server_config,
                    &options,
                    runtime.clone(),
                    state,
                ))
            };
            let toolset = match toolset {
                Ok(toolset) => toolset,
                Err(reason) => {
                    tracing::warn!(server = %name, %reason, "MCP server not started");
                    servers.push(new(ServerState::Failed { reason }));
                    continue;
                }
            };
            if let Some(reason) = skip_reason(&registry, &toolset, selection) {
                tracing::info!(server = %name, %reason, "MCP server not started");
                let server = new(ServerState::Starting);
                server.set_state(&registry, ServerState::Skipped { reason });
                servers.push(server);
                continue;
            }
            let server = new(ServerState::Starting);
            // Published before the supervisor runs, so it cannot overwrite a later state.
            server.set_state(&registry, ServerState::Starting);
            let (settled, first_attempt) = oneshot::channel();
            tasks.push(runtime.spawn(supervisor::supervise(
                Arc::clone(&server),
                registry.clone(),
                options.backoff,
                stop.subscribe(),
                settled,
            )));
            first_attempts.push(first_attempt);
            servers.push(server);
        }
        // The supervisors run in parallel; this only waits for the slowest first attempt.
        for first_attempt in first_attempts {
            let _ = first_attempt.await;
        }
        Self {
            registry,
            servers,
            tasks,
            stop,
        }
    }

    /// Where each configured server stands, in name order.
    pub fn report(&self) -> Vec<ServerStatus> {
        self.servers.iter().map(|server| server.status()).collect()
    }

    /// The status of server `name`, if it is configured.
    pub fn status(&self, name: &str) -> Option<ServerStatus> {
        self.servers
            .iter()
            .find(|server| server.name == name)
            .map(|server| server.status())
    }

    /// Stops every server, waiting (a few seconds at most) for their processes to close, and
    /// removes their tools, toolsets and aliases.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        let tasks = std::mem::take(&mut self.tasks);
        let aborts: Vec<_> = tasks.iter().map(JoinHandle::abort_handle).collect();
        let all = futures_util::future::join_all(tasks);
        if tokio::time::timeout(SHUTDOWN_TIMEOUT, all).await.is_err() {
            // Dropping a connection kills its process.
            aborts.iter().for_each(tokio::task::AbortHandle::abort);
        }
        // `Drop` removes what is left in the registry.
    }
}

impl Drop for McpClients {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        for server in &self.servers {
            server.deregister_all(&self.registry);
            self.registry
                .set_absence(&naming::tool_prefix(&server.name), None);
            if self
                .registry
                .snapshot()
                .composites()
                .contains_key(&server.toolset)
            {
                self.registry.deregister_toolset(&server.toolset);
            }
            if self.registry.snapshot().aliases().get(&server.name) == Some(&server.toolset) {
                self.registry.deregister_alias(&server.name);
            }
        }
    }
}

/// Why the server of toolset `toolset` is not to be started under `selection`, if it is not:
/// the selection leaves the toolset off, by the same rules that select tools
/// ([`Catalog::selects_toolset`](crate::toolsets::Catalog::selects_toolset)).
/// Registers server `name`'s toolset `mcp-<name>` and its alias `<name>`, and returns the
/// toolset; or why the server cannot start under that name.
/// What the registry names of every MCP server's tools start with.
#[cfg(feature = "cli")]
pub(crate) use naming::TOOL_PREFIX;

/// The toolset (`mcp-<server>`) of the configured server whose tools' names tool `name` has,
/// if one: the longest server prefix wins (`mcp__a__` and `mcp__a__b__` may both be there).
#[cfg(any(feature = "cli", test))]
pub(crate) fn server_of_tool(config: &Config, name: &str) -> Option<String> {
    config
        .mcp_servers
        .keys()
        .map(|server| (server, naming::tool_prefix(server)))
        .filter(|(_, prefix)| name.starts_with(prefix.as_str()))
        .max_by_key(|(_, prefix)| prefix.len())
        .map(|(server, _)| naming::toolset_name(server))
}

fn register_names<'a>(
    registry: &ToolRegistry,
    name: &'a String,
    prefixes: &mut BTreeMap<String, &'a String>,
) -> Result<String, String> {
    if !naming::is_valid_server_name(name) {
        return Err(format!(
            "invalid server name {name:?}: use 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'"
        ));
    }
    if let Some(first) = prefixes.insert(naming::sanitize_component(name), name) {
        return Err(format!(
            "server name {name:?} gives the same tool names as {first:?} \
             (mcp__{}__...); rename one of them",
            naming::sanitize_component(name)
        ));
    }
    let toolset = naming::toolset_name(name);
    registry
        .register_toolset(Composite::new(
            toolset.as_str(),
            format!("Tools of the MCP server {name:?}."),
        ))
        .and_then(|_| registry.register_alias(name.as_str(), toolset.as_str()))
        // A server named `all` would be an alias no selection could name alone.
        .map_err(|err| format!("invalid server name {name:?}: {err}"))?;
    Ok(toolset)
}

fn skip_reason(registry: &ToolRegistry, toolset: &str, selection: &Selection) -> Option<String> {
    let snapshot = registry.snapshot();
    match snapshot.with_catalog(|catalog| catalog.selects_toolset(selection, toolset)) {
        Ok(true) => None,
        Ok(false) => Some(format!(
            "the selection (enabled {:?}, disabled {:?}) leaves toolset {toolset:?} off",
            selection.enabled, selection.disabled
        )),
        Err(err) => Some(format!("the selection is invalid: {err}")),
    }
}

/// MCP clients with a runtime of their own, for synchronous programs such as the CLI.
///
/// The runtime (one worker thread) keeps the connections alive while the program runs
/// synchronous code, including [`ToolRegistry::call_blocking`]: the servers' tools run their calls
/// on it whatever thread calls them. Dropping the session stops the servers.
pub struct McpSession {
    clients: Option<McpClients>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl fmt::Debug for McpSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpSession")
            .field("clients", &self.clients)
            .finish_non_exhaustive()
    }
}

impl McpSession {
    /// Builds the runtime and [starts](McpClients::start) the servers on it.
    ///
    /// Fails only when the runtime cannot be built (the OS refused a thread).
    pub fn start(
        registry: &ToolRegistry,
        config: &Config,
        selection: &Selection,
    ) -> std::io::Result<Self> {
        Self::start_with(registry, config, selection, McpOptions::default())
    }

    /// [`start`](Self::start) with `options` (a sampler, an elicitor, the backoff, ...).
    pub fn start_with(
        registry: &ToolRegistry,
        config: &Config,
        selection: &Selection,
        options: McpOptions,
    ) -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("hermes-mcp")
            .enable_all()
            .build()?;
        let start =
            || runtime.block_on(McpClients::start_with(registry, config, selection, options));
        // `block_on` panics on a runtime's thread; a helper thread has none.
        let clients = if Handle::try_current().is_ok() {
            std::thread::scope(|scope| {
                scope
                    .spawn(start)
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        } else {
            start()
        };
        Ok(Self {
            clients: Some(clients),
            runtime: Some(runtime),
        })
    }

    /// Where each configured server stands, in name order.
    pub fn report(&self) -> Vec<ServerStatus> {
        self.clients
            .as_ref()
            .map(McpClients::report)
            .unwrap_or_default()
    }
}

impl Drop for McpSession {
    fn drop(&mut self) {
        let (Some(clients), Some(runtime)) = (self.clients.take(), self.runtime.take()) else {
            return;
        };
        if Handle::try_current().is_ok() {
            // Blocking inside a runtime would panic: drop, which still kills the processes.
            drop(clients);
            runtime.shutdown_background();
        } else {
            runtime.block_on(clients.shutdown());
            runtime.shutdown_timeout(Duration::from_secs(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::Tool;

    #[test]
    fn a_tool_name_leads_to_its_server_the_longest_prefix_winning() {
        let mut config = Config::default();
        for name in ["time", "a", "a__b", "web-search"] {
            let server = crate::config::McpServerConfig::stdio("x", [""; 0]);
            config.mcp_servers.insert(name.to_owned(), server);
        }
        let of = |name: &str| server_of_tool(&config, name);
        assert_eq!(
            of("mcp__time__get_current_time").as_deref(),
            Some("mcp-time")
        );
        assert_eq!(of("mcp__a__look").as_deref(), Some("mcp-a"));
        assert_eq!(of("mcp__a__b__look").as_deref(), Some("mcp-a__b"));
        assert_eq!(
            of("mcp__web_search__query").as_deref(),
            Some("mcp-web-search")
        );
        assert_eq!(of("read_file"), None);
        assert_eq!(of("mcp__elsewhere__x"), None);
    }

    fn selection(enabled: &[&str], disabled: &[&str]) -> Selection {
        let owned = |names: &[&str]| names.iter().map(|name| (*name).to_owned()).collect();
        Selection {
            enabled: owned(enabled),
            disabled: owned(disabled),
        }
    }

    fn skipped(enabled: &[&str], disabled: &[&str]) -> bool {
        // As `start_with` leaves the registry before deciding: the server's (empty) toolset
        // and its alias, beside composites and a basic toolset of the same name as the server.
        let registry = ToolRegistry::new();
        registry
            .register_toolset(Composite::new("clock", "C.").with_includes(["time"]))
            .unwrap();
        registry
            .register_toolset(Composite::new("outer", "O.").with_includes(["clock"]))
            .unwrap();
        registry
            .register_toolset(Composite::new("web", "W.").with_includes(["search"]))
            .unwrap();
        registry
            .register_toolset(Composite::new("mcp-time", "T."))
            .unwrap();
        registry.register_alias("time", "mcp-time").unwrap();
        registry
            .register_toolset(Composite::new("mcp-files", "F."))
            .unwrap();
        registry.register_alias("files", "mcp-files").unwrap();
        let files = Tool::builder("read_file", "files").build();
        registry.register(files).expect("a fresh registry");
        skip_reason(&registry, "mcp-time", &selection(enabled, disabled)).is_some()
    }

    #[tokio::test]
    async fn servers_whose_names_sanitise_alike_are_refused() {
        let server = |command: &str| {
            let mut server = crate::config::McpServerConfig::stdio(command, [""; 0]);
            server.connect_timeout_secs = 5;
            server
        };
        let config = Config {
            mcp_servers: BTreeMap::from([
                ("a-b".to_owned(), server("hermes-no-such-command")),
                ("a_b".to_owned(), server("hermes-no-such-command")),
            ]),
            ..Config::default()
        };
        let registry = ToolRegistry::new();
        let clients = McpClients::start(&registry, &config, &Selection::default()).await;
        let ServerState::Failed { reason } = clients.status("a_b").expect("reported").state else {
            panic!("a_b must fail");
        };
        assert!(reason.contains("same tool names as \"a-b\""), "{reason}");
        clients.shutdown().await;
    }

    #[test]
    fn a_basic_toolset_shadows_a_server_alias_of_the_same_name() {
        let registry = ToolRegistry::new();
        registry
            .register_toolset(Composite::new("mcp-files", "F."))
            .unwrap();
        registry.register_alias("files", "mcp-files").unwrap();
        registry
            .register(Tool::builder("read_file", "files").build())
            .expect("a fresh registry");
        let files_only = selection(&["files"], &[]);
        assert!(skip_reason(&registry, "mcp-files", &files_only).is_some());
        assert!(skip_reason(&registry, "mcp-files", &selection(&["mcp-files"], &[])).is_none());
    }

    #[test]
    fn started_unless_the_selection_turns_it_off() {
        assert!(!skipped(&[], &[]));
        assert!(!skipped(&["all"], &[]));
        assert!(!skipped(&["time"], &[]));
        assert!(!skipped(&["mcp-time"], &["all"]));
        assert!(!skipped(&["outer"], &[]));
        assert!(!skipped(&[], &["web"]));
    }

    #[test]
    fn skipped_when_disabled_directly_through_a_composite_or_not_enabled() {
        assert!(skipped(&[], &["time"]));
        assert!(skipped(&[], &["mcp-time"]));
        assert!(skipped(&["all"], &["time"]));
        assert!(skipped(&[], &["outer"]));
        assert!(skipped(&[], &["*"]));
        assert!(skipped(&["web"], &[]));
    }
}
