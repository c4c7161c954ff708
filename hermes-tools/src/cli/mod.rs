//! The command-line interface over every tool a binary links (feature `cli`).
//!
//! An agent binary gets it in three lines:
//!
//! ```no_run
//! use hermes_tools::ToolContext;
//!
//! fn main() -> std::process::ExitCode {
//!     hermes_tools::cli::Cli::new()
//!         .context(ToolContext::new().with_session_id("cli"))
//!         .run()
//! }
//! ```
//!
//! Subcommands: `list` (every tool with emoji, its toolset, the composites including it,
//! availability or why not, and provenance), `definitions [--toolsets a,b] [--disable c]
//! [--format F]` (the tools array in a provider's shape; exit status 1 past a provider's
//! documented [limit](crate::definitions::limits); with `--lock PATH [--update] [--strict]`,
//! every tool checked against a lock file instead: see [`crate::definitions::lock`]),
//! `toolsets` (each toolset and what it resolves to), `lint [--toolsets a,b] [--disable c]
//! [--all]` (the lint rules and provider limits over the selection; exit status 1 with
//! findings; `--all` also prints acknowledged findings with their reasons), `call NAME JSON`
//! (through the call pipeline; the exit status is 1 when the answer is an error; see below for
//! approval; `call NAME -` reads the arguments from stdin and `call NAME @PATH` from a file,
//! past the OS limit on one command-line argument), `plugins` (every plugin found: status, tools,
//! hooks and toolsets, and why one failed; the exit status is 1 when one failed), and with
//! feature `mcp`, `serve [--toolsets a,b] [--disable c] [--http 127.0.0.1:PORT]` (the tools over
//! MCP: on stdio, or on Streamable HTTP at a loopback address (any address with
//! `--token-file PATH` or `--token-env NAME`: every request then needs a bearer token), printing
//! `listening on http://ADDR/mcp` to stderr once bound; `--agent-loop-tools` serves `todo` and
//! the other agent-loop tools, each MCP session with its own state; `--allow-origin`,
//! `--max-sessions`, `--session-idle-secs`, `--max-connections`, `--header-timeout-secs` and
//! `--max-message-bytes` set the limits of
//! [`crate::mcp::server::ToolServer`]).
//!
//! `call` is the approval gate for a tool that needs approval (`terminal`, or one the config
//! or a hook sends there): `--yes` (or `--approve`) approves every call; otherwise, when stdin
//! is a terminal, a `y/N` prompt on stderr asks; when it is not, or when it carried the
//! arguments (`call NAME -`), nobody can be asked, so the call is refused and stderr says to
//! pass `--yes`. A gate the embedding binary set on its registry is kept (only `--yes` replaces
//! it).
//!
//! `--config PATH` (or the environment variable `HERMES_TOOLS_CONFIG`) reads a config file and
//! installs it before the command runs; a relative `plugins.dir` in it is relative to the
//! file. Plugins are then loaded into the registry as the config says, so every command sees
//! their tools.
//!
//! With feature `mcp`, the config's `[mcp_servers]` are then started (see
//! [`crate::mcp::client`]) and run until the command is done, so every command sees their
//! tools too; `list` ends with each server's state, and why a server failed or a tool of it was
//! not registered. `definitions` and `serve` start only the servers their `--toolsets` and
//! `--disable` leave on; `call` starts only the server of the tool it calls (none for a tool
//! that is not a server's).

#[cfg(feature = "mcp-remote")]
mod authorize;
#[cfg(feature = "mcp")]
mod elicit;
mod lock;
mod runtime;
#[cfg(feature = "mcp")]
mod serve;

pub use self::runtime::{WORKER_THREADS_ENV, runtime};

#[cfg(feature = "mcp")]
use self::serve::ServeFlags;

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};

use crate::DefinitionsRequest;
use crate::call::pipeline::CallOptions;
use crate::config::{Config, ConfigError};
use crate::definitions::formats::Format;
use crate::hooks::{ApprovalRequest, HookKind};
use crate::plugins::{PluginManager, PluginStatus};
use crate::{ToolContext, ToolRegistry};

/// The environment variable naming a config file when `--config` is not given.
pub const CONFIG_ENV: &str = "HERMES_TOOLS_CONFIG";

#[derive(Parser)]
#[command(about = "List, describe and call the tools linked into this binary")]
struct Args {
    /// A config file (TOML) to install before running; default: $HERMES_TOOLS_CONFIG, if set.
    #[arg(long, global = true, value_name = "PATH")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
// Parsed once per process: the size of `serve`'s flags costs nothing.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// List every tool: emoji, name, toolset, availability (or why not) and where it is declared.
    List,
    /// Print the definitions of the available tools of the selected toolsets as JSON.
    Definitions {
        /// Comma-separated toolsets to include (default: all).
        #[arg(long, value_delimiter = ',')]
        toolsets: Vec<String>,
        /// Comma-separated toolsets to leave out.
        #[arg(long, value_delimiter = ',')]
        disable: Vec<String>,
        /// The provider format: openai, openai-strict, responses, anthropic, gemini, mcp.
        #[arg(long, default_value = "openai")]
        format: Format,
        #[command(flatten)]
        lock: lock::LockFlags,
    },
    /// List toolsets (basic and composite) and the tools each resolves to.
    Toolsets,
    /// Check every tool's description and parameters against the lint rules, and the list
    /// against each provider's limits.
    Lint {
        /// Comma-separated toolsets to lint, as an agent would select them (default: all).
        #[arg(long, value_delimiter = ',')]
        toolsets: Vec<String>,
        /// Comma-separated toolsets to leave out.
        #[arg(long, value_delimiter = ',')]
        disable: Vec<String>,
        /// Also print the acknowledged findings, with their reasons.
        #[arg(long)]
        all: bool,
    },
    /// Call a tool with JSON arguments and print its answer.
    Call {
        /// The tool's name.
        name: String,
        /// The arguments, a JSON object (default `{}`); `-` reads them from stdin, `@PATH` from
        /// the file PATH (no limit on their size then). Arguments that really start with `@`
        /// can be sent through stdin. With `-`, stdin cannot answer an approval prompt: pass
        /// `--yes` for a tool that needs approval.
        #[arg(default_value = "{}")]
        arguments: String,
        /// Approve the call if it needs approval, without asking (default: ask on a terminal,
        /// refuse otherwise).
        #[arg(long, visible_alias = "approve")]
        yes: bool,
    },
    /// List every plugin found: its status, and the tools, hooks and toolsets it added.
    Plugins,
    /// Serve the tools over MCP: on stdio, or on Streamable HTTP with `--http`.
    ///
    /// The server runs one worker thread per core; the environment variable
    /// `TOKIO_WORKER_THREADS` sets another count. With 1, a lone client's requests stay on one
    /// thread: less latency for a client alone, fewer calls a second under many clients (see
    /// bench/README.md, "Serving under load").
    #[cfg(feature = "mcp")]
    Serve {
        /// Comma-separated toolsets to serve (default: all).
        #[arg(long, value_delimiter = ',')]
        toolsets: Vec<String>,
        /// Comma-separated toolsets to leave out.
        #[arg(long, value_delimiter = ',')]
        disable: Vec<String>,
        /// Serve Streamable HTTP at this address (port 0: any free port) instead of stdio; the
        /// endpoint is http://ADDR/mcp. Loopback only, unless tokens are required.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        #[command(flatten)]
        limits: ServeFlags,
    },
}

/// The CLI over a registry (the global one by default) and the context its calls receive.
#[must_use]
pub struct Cli {
    /// `None`: the global registry, built only once tracing is set up, so that its warnings
    /// (duplicate declarations) are printed.
    registry: Option<ToolRegistry>,
    context: ToolContext,
    /// What only calls this process runs for its operator get (see
    /// [`operator_extension`](Cli::operator_extension)).
    operator: Vec<OperatorExtension>,
    expected_toolsets: Vec<String>,
}

/// Adds one operator-only extension to a context.
type OperatorExtension = Box<dyn Fn(ToolContext) -> ToolContext + Send + Sync>;

impl Default for Cli {
    fn default() -> Self {
        Self::new()
    }
}

impl Cli {
    /// A CLI over [`ToolRegistry::global`] with an empty context.
    pub fn new() -> Self {
        Self {
            registry: None,
            context: ToolContext::new(),
            operator: Vec::new(),
            expected_toolsets: Vec::new(),
        }
    }

    /// The registry the commands work on.
    fn tools(&self) -> &ToolRegistry {
        self.registry
            .as_ref()
            .unwrap_or_else(|| ToolRegistry::global_ref())
    }

    /// Uses another registry.
    pub fn registry(mut self, registry: ToolRegistry) -> Self {
        self.registry = Some(registry);
        self
    }

    /// The context every call receives, `call`'s and those `serve` answers (extensions such
    /// as a workspace root).
    pub fn context(mut self, context: ToolContext) -> Self {
        self.context = context;
        self
    }

    /// Adds an extension only the calls this process runs for its operator receive (`call`),
    /// never those `serve` answers for an MCP client: what reaches the operator's own
    /// terminal, say, which a remote caller must never reach.
    ///
    /// ```
    /// use hermes_tools::cli::Cli;
    ///
    /// /// Asks on the operator's terminal.
    /// struct TerminalPrompt;
    ///
    /// let cli = Cli::new().operator_extension(|| TerminalPrompt);
    /// # let _ = cli;
    /// ```
    pub fn operator_extension<T: Send + Sync + 'static>(
        mut self,
        make: impl Fn() -> T + Send + Sync + 'static,
    ) -> Self {
        self.operator
            .push(Box::new(move |context| context.with_extension(make())));
        self
    }

    /// The context of a call this process runs for its operator.
    fn operator_context(&self) -> ToolContext {
        self.operator
            .iter()
            .fold(self.context.clone(), |context, add| add(context))
    }

    /// Toolsets this binary is meant to link; `list` warns about any that is missing, which is
    /// how a forgotten `use some_tools_crate as _;` shows itself.
    pub fn expect_toolsets<S: Into<String>>(
        mut self,
        toolsets: impl IntoIterator<Item = S>,
    ) -> Self {
        self.expected_toolsets = toolsets.into_iter().map(Into::into).collect();
        self
    }

    /// Parses the process arguments and runs the command.
    pub fn run(self) -> ExitCode {
        self.run_from(std::env::args_os())
    }

    /// Parses `args` (the first is the program name) and runs the command.
    pub fn run_from<I, T>(self, args: I) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        init_tracing();
        let args = match Args::try_parse_from(args) {
            Ok(args) => args,
            Err(err) => {
                let _ = err.print();
                return if err.use_stderr() {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
        };
        let config_path = args
            .config
            .or_else(|| std::env::var_os(CONFIG_ENV).map(PathBuf::from));
        let config = match config_path.map(|path| load_config(&path)).transpose() {
            Ok(config) => config,
            Err(err) => {
                eprintln!("error: {err}");
                return ExitCode::from(2);
            }
        };
        let registry = self.tools().clone();
        if let Some(config) = config {
            registry.set_config(config);
        }
        let mut plugins = PluginManager::new(&registry);
        plugins.load(&registry.config().plugins);
        // MCP servers start before the command, so every command sees their tools; the session
        // keeps them running until the command is done.
        #[cfg(feature = "mcp")]
        let mcp = start_mcp(&registry, &args.command);
        let stdout = io::stdout();
        let mut out = stdout.lock();
        let result = match args.command {
            #[cfg(not(feature = "mcp"))]
            Command::List => self.list(&mut out),
            #[cfg(feature = "mcp")]
            Command::List => self
                .list(&mut out)
                .and_then(|code| write_mcp_report(&mut out, mcp.as_ref()).map(|()| code)),
            Command::Definitions { lock, .. } if lock.is_set() => lock.run(self.tools(), &mut out),
            Command::Definitions {
                toolsets,
                disable,
                format,
                ..
            } => {
                let request = DefinitionsRequest::all()
                    .enable(toolsets)
                    .disable(disable)
                    .format(format);
                self.definitions(&mut out, &request)
            }
            Command::Toolsets => self.toolsets(&mut out),
            Command::Lint {
                toolsets,
                disable,
                all,
            } => {
                let selection = crate::toolsets::Selection {
                    enabled: toolsets,
                    disabled: disable,
                };
                self.lint(&mut out, &selection, all)
            }
            Command::Call {
                name,
                arguments,
                yes,
            } => self.call(&mut out, &name, &arguments, yes),
            Command::Plugins => list_plugins(&mut out, &plugins),
            #[cfg(feature = "mcp")]
            Command::Serve {
                toolsets,
                disable,
                http,
                limits,
            } => {
                // stdout is the MCP channel on stdio: nothing else may write to it.
                drop(out);
                let selection = crate::toolsets::Selection {
                    enabled: toolsets,
                    disabled: disable,
                };
                Ok(self.serve(selection, http, limits))
            }
        };
        match result {
            Ok(code) => code,
            // A closed pipe (`| head`) is not an error worth a message.
            Err(err) if err.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("error: {err}");
                ExitCode::FAILURE
            }
        }
    }

    fn list(&self, out: &mut impl Write) -> io::Result<ExitCode> {
        let snapshot = self.tools().snapshot();
        let mut probe = self
            .tools()
            .availability()
            .probe_under(self.tools().config());
        let rows: Vec<[String; 6]> = snapshot.with_catalog(|catalog| {
            // Every tool's toolsets in one pass: asking per tool would resolve them all again.
            let memberships = catalog.memberships();
            snapshot
                .tools()
                .map(|tool| {
                    let status = match probe.check(tool) {
                        Ok(()) => match probe.note(tool) {
                            Some(note) => format!("available ({note})"),
                            None => "available".to_owned(),
                        },
                        Err(reason) => format!("unavailable: {reason}"),
                    };
                    // The composites (and other toolsets) that take the tool in, beside its own.
                    let others: Vec<&str> = (memberships.get(tool.name()).into_iter())
                        .flatten()
                        .copied()
                        .filter(|&toolset| toolset != tool.toolset())
                        .collect();
                    let included_in = if others.is_empty() {
                        "-".to_owned()
                    } else {
                        others.join(",")
                    };
                    [
                        tool.emoji().to_owned(),
                        tool.name().to_owned(),
                        tool.toolset().to_owned(),
                        included_in,
                        status,
                        tool.provenance().to_string(),
                    ]
                })
                .collect()
        });
        let width = |col: usize| {
            rows.iter()
                .map(|row| row[col].chars().count())
                .max()
                .unwrap_or(0)
        };
        let (w1, w2, w3, w4) = (width(1), width(2), width(3), width(4));
        writeln!(
            out,
            "{} tools (emoji, name, toolset, also in, availability, declared at)",
            rows.len()
        )?;
        for [emoji, name, toolset, included_in, status, provenance] in &rows {
            writeln!(
                out,
                "{emoji}  {name:<w1$}  {toolset:<w2$}  {included_in:<w3$}  {status:<w4$}  {provenance}"
            )?;
        }
        for conflict in self.tools().conflicts() {
            writeln!(
                out,
                "warning: tool {:?} is declared twice: kept {} (toolset {}), dropped {} (toolset {})",
                conflict.name,
                conflict.kept.1,
                conflict.kept.0,
                conflict.dropped.1,
                conflict.dropped.0
            )?;
        }
        let present = snapshot.with_catalog(|catalog| catalog.toolset_names());
        for expected in &self.expected_toolsets {
            if !present.contains(expected) {
                writeln!(
                    out,
                    "warning: toolset {expected:?} is expected but no linked tool declares it; \
                     is its crate named in the binary (`use the_crate as _;`)?"
                )?;
            }
        }
        Ok(ExitCode::SUCCESS)
    }

    fn toolsets(&self, out: &mut impl Write) -> io::Result<ExitCode> {
        let snapshot = self.tools().snapshot();
        let mut failed = false;
        snapshot.with_catalog(|catalog| {
            for name in catalog.toolset_names() {
                let kind = if snapshot.composites().contains_key(&name) {
                    "composite"
                } else {
                    "basic"
                };
                match catalog.resolve(&name) {
                    Ok(tools) => {
                        let tools: Vec<_> = tools.into_iter().collect();
                        writeln!(out, "{name} ({kind}): {}", tools.join(", "))?;
                    }
                    Err(err) => {
                        failed = true;
                        writeln!(out, "{name} ({kind}): error: {err}")?;
                    }
                }
            }
            for (alias, target) in snapshot.aliases() {
                writeln!(out, "{alias} (alias): {target}")?;
            }
            io::Result::Ok(())
        })?;
        Ok(if failed {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        })
    }

    fn lint(
        &self,
        out: &mut impl Write,
        selection: &crate::toolsets::Selection,
        all: bool,
    ) -> io::Result<ExitCode> {
        let report = match self.tools().lint_selection(selection) {
            Ok(report) => report,
            Err(err) => {
                eprintln!("error: {err}");
                return Ok(ExitCode::from(2));
            }
        };
        for finding in &report.findings {
            writeln!(out, "{finding}")?;
        }
        if all {
            for done in &report.acknowledged {
                writeln!(out, "{} (acknowledged: {})", done.finding, done.reason)?;
            }
        }
        let acknowledged = match report.acknowledged.len() {
            0 => String::new(),
            count if all => format!(" ({count} acknowledged)"),
            count => format!(" ({count} acknowledged: `lint --all` lists them)"),
        };
        if report.findings.is_empty() {
            let count = self.tools().snapshot().tools().len();
            writeln!(out, "lint: {count} tools, no findings{acknowledged}")?;
            Ok(ExitCode::SUCCESS)
        } else {
            let count = report.findings.len();
            writeln!(out, "lint: {count} findings{acknowledged}")?;
            Ok(ExitCode::FAILURE)
        }
    }

    fn definitions(
        &self,
        out: &mut impl Write,
        request: &DefinitionsRequest,
    ) -> io::Result<ExitCode> {
        match self.tools().definitions(request) {
            Ok(definitions) => {
                serde_json::to_writer_pretty(&mut *out, &definitions)?;
                writeln!(out)?;
                let limits = crate::definitions::limits::check(request.format, definitions.iter());
                if let Err(violations) = limits {
                    for violation in &violations {
                        eprintln!("error: {violation}");
                    }
                    eprintln!("error: past {} provider limits", violations.len());
                    return Ok(ExitCode::FAILURE);
                }
                Ok(ExitCode::SUCCESS)
            }
            Err(err) => {
                eprintln!("error: {err}");
                Ok(ExitCode::from(2))
            }
        }
    }

    fn call(
        &self,
        out: &mut impl Write,
        name: &str,
        arguments: &str,
        yes: bool,
    ) -> io::Result<ExitCode> {
        let stdin_taken = arguments == STDIN_ARGUMENTS;
        let arguments = match read_arguments(arguments) {
            Ok(text) => text,
            Err(message) => {
                eprintln!("error: {message}");
                return Ok(ExitCode::from(2));
            }
        };
        // The CLI is the agent loop here: it provides what agent-loop tools need (a todo store).
        let options = CallOptions::new().from_agent_loop();
        // The person at the keyboard is the approval gate, for this call only.
        let registry = self.tools();
        let previous = registry.approval_gate();
        let install = yes || previous.is_none();
        if install {
            registry.set_approval_gate(Some(Arc::new(move |request: &ApprovalRequest<'_>| {
                yes || ask_approval(request, stdin_taken)
            })));
        }
        // On a terminal, the tool's progress reports are drawn as a line on stderr.
        let drawn = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let context = if io::IsTerminal::is_terminal(&io::stderr()) {
            let drawn = Arc::clone(&drawn);
            self.operator_context().with_progress(move |report| {
                drawn.store(true, std::sync::atomic::Ordering::Relaxed);
                eprint!("\r\x1b[2K{}", progress_line(report));
            })
        } else {
            self.operator_context()
        };
        let answer = registry.call_blocking_with(name, &arguments, &context, &options);
        if drawn.load(std::sync::atomic::Ordering::Relaxed) {
            // The progress line ends before the answer is printed.
            eprintln!();
        }
        if install {
            registry.set_approval_gate(previous);
        }
        writeln!(out, "{answer}")?;
        Ok(if answer.is_error() {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        })
    }
}

/// `call`'s arguments that mean "read them from stdin".
const STDIN_ARGUMENTS: &str = "-";

/// The argument text `call` was given: `-` reads it from stdin, `@PATH` from the file PATH,
/// anything else is the text itself. `Err` says what could not be read, naming the file.
fn read_arguments(given: &str) -> Result<String, String> {
    if given == STDIN_ARGUMENTS {
        let mut text = String::new();
        io::stdin()
            .read_to_string(&mut text)
            .map_err(|err| format!("cannot read the arguments from stdin: {err}"))?;
        return Ok(text);
    }
    match given.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|err| format!("cannot read the arguments from the file {path:?}: {err}")),
        None => Ok(given.to_owned()),
    }
}

/// Asks on stderr whether a call may run, when stdin is a terminal that is free to answer;
/// refuses (saying how to approve) when it is not, or when it carried the arguments
/// (`stdin_taken`), since nobody can answer.
fn ask_approval(request: &ApprovalRequest<'_>, stdin_taken: bool) -> bool {
    if stdin_taken {
        eprintln!(
            "{} needs approval ({}), and stdin carried the arguments, so nobody can be asked on \
             it: refused. Pass --yes to approve it.",
            request.tool, request.reason
        );
        return false;
    }
    let stdin = io::stdin();
    if !io::IsTerminal::is_terminal(&stdin) {
        eprintln!(
            "{} needs approval ({}), and stdin is not a terminal to ask on: refused. \
             Pass --yes to approve it.",
            request.tool, request.reason
        );
        return false;
    }
    eprint!(
        "{} needs approval ({}).\narguments: {}\nRun it? [y/N] ",
        request.tool, request.reason, request.args
    );
    let _ = io::stderr().flush();
    let mut answer = String::new();
    if stdin.read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// Starts the configured MCP servers the command's selection leaves on (none configured: none).
#[cfg(feature = "mcp")]
fn start_mcp(registry: &ToolRegistry, command: &Command) -> Option<crate::mcp::client::McpSession> {
    let config = registry.config();
    if config.mcp_servers.is_empty() {
        return None;
    }
    // A server whose toolset the command leaves out is not started at all.
    let selection = match command {
        Command::Definitions {
            toolsets, disable, ..
        }
        | Command::Serve {
            toolsets, disable, ..
        } => crate::toolsets::Selection {
            enabled: toolsets.clone(),
            disabled: disable.clone(),
        },
        // A call needs the called tool's server only, and no server for a tool of ours.
        Command::Call { name, .. } => match crate::mcp::client::server_of_tool(&config, name) {
            Some(server) => crate::toolsets::Selection {
                enabled: vec![server],
                disabled: vec![],
            },
            None if name.starts_with(crate::mcp::client::TOOL_PREFIX) => {
                // A name shortened past its server's part: every server may own it.
                crate::toolsets::Selection::default()
            }
            None => return None,
        },
        _ => crate::toolsets::Selection::default(),
    };
    let mut options = crate::mcp::client::McpOptions::default();
    // A server's question is asked on the terminal, when there is one to ask on and it does not
    // carry the arguments.
    if matches!(command, Command::Call { arguments, .. } if arguments != STDIN_ARGUMENTS)
        && io::IsTerminal::is_terminal(&io::stdin())
    {
        options.asker = Some(Arc::new(elicit::TerminalElicitor));
    }
    // A server's authorization is approved in a browser, its URL shown on the terminal.
    #[cfg(feature = "mcp-remote")]
    if io::IsTerminal::is_terminal(&io::stderr()) {
        options.authorizer = Some(Arc::new(authorize::LoopbackAuthorizer));
    }
    match crate::mcp::client::McpSession::start_with(registry, &config, &selection, options) {
        Ok(session) => Some(session),
        Err(err) => {
            eprintln!("warning: MCP servers not started: cannot start the async runtime: {err}");
            None
        }
    }
}

/// The MCP servers' part of `list`: each server's state and the tools it could not register.
#[cfg(feature = "mcp")]
fn write_mcp_report(
    out: &mut impl Write,
    mcp: Option<&crate::mcp::client::McpSession>,
) -> io::Result<()> {
    let report = mcp
        .map(crate::mcp::client::McpSession::report)
        .unwrap_or_default();
    if report.is_empty() {
        return Ok(());
    }
    writeln!(out, "{} MCP servers", report.len())?;
    for status in &report {
        writeln!(out, "{status}")?;
    }
    Ok(())
}

/// Reads a config file; a relative `plugins.dir` is taken relative to the file, not to
/// wherever the command happens to run.
fn load_config(path: &Path) -> Result<Config, ConfigError> {
    let mut config = Config::load(path)?;
    if let (Some(dir), Some(base)) = (&mut config.plugins.dir, path.parent())
        && dir.is_relative()
    {
        *dir = base.join(&*dir);
    }
    Ok(config)
}

fn list_plugins(out: &mut impl Write, plugins: &PluginManager) -> io::Result<ExitCode> {
    let loaded = plugins.plugins().filter(|p| p.is_loaded()).count();
    let failed = plugins
        .plugins()
        .filter(|p| matches!(p.status, PluginStatus::Failed(_)))
        .count();
    writeln!(
        out,
        "{} plugins: {loaded} loaded, {failed} failed",
        plugins.plugins().len()
    )?;
    for plugin in plugins.plugins() {
        writeln!(out, "{} ({}): {}", plugin.name, plugin.kind, plugin.status)?;
        if !plugin.source.is_empty() {
            writeln!(out, "  source: {}", plugin.source)?;
        }
        if !plugin.is_loaded() {
            continue;
        }
        let hooks: Vec<&str> = plugin
            .hooks
            .iter()
            .map(|(_, kind)| hook_kind(*kind))
            .collect();
        writeln!(out, "  tools: {}", or_none(&plugin.tools.join(", ")))?;
        writeln!(out, "  hooks: {}", or_none(&hooks.join(", ")))?;
        writeln!(out, "  toolsets: {}", or_none(&plugin.toolsets.join(", ")))?;
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn hook_kind(kind: HookKind) -> &'static str {
    match kind {
        HookKind::PreCall => "pre_call",
        HookKind::PostCall => "post_call",
        HookKind::Transform => "transform",
    }
}

fn or_none(list: &str) -> &str {
    if list.is_empty() { "none" } else { list }
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    // A second initialisation (the CLI run twice in one process) is harmless.
    // Every event is redacted whole before it reaches stderr, and so is a panic's message.
    crate::secrets::logs::redact_panic_messages();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| crate::secrets::logs::RedactingWriter::new(io::stderr()))
        // Colour only on a terminal: logs piped to a file or a test stay plain text.
        .with_ansi(io::IsTerminal::is_terminal(&io::stderr()))
        .try_init();
}

/// A progress report as one line: a bar when the total is known, then the message (control
/// characters left out: it is the tool's text, or a remote server's).
fn progress_line(report: crate::call::Progress) -> String {
    const WIDTH: usize = 30;
    let line = match report.total.filter(|total| *total > 0.0) {
        Some(total) => {
            let share = (report.done / total).clamp(0.0, 1.0);
            // Truncation toward zero is the point: a bar is full only when done.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let filled = (share * WIDTH as f64) as usize;
            format!(
                "[{}{}] {:>3.0}%",
                "#".repeat(filled),
                "-".repeat(WIDTH - filled),
                share * 100.0
            )
        }
        None => format!("{}", report.done),
    };
    let message: String = report
        .message
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .take(60)
        .collect();
    format!("{line} {message}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(done: f64, total: Option<f64>, message: &str) -> crate::call::Progress {
        crate::call::Progress {
            done,
            total,
            message: Some(message.to_owned()),
        }
    }

    #[test]
    fn a_progress_line_is_a_bar_when_the_total_is_known() {
        let half = progress_line(report(50.0, Some(100.0), "halfway"));
        assert_eq!(
            half,
            format!("[{}{}]  50% halfway", "#".repeat(15), "-".repeat(15))
        );
        let over = progress_line(report(7.0, Some(5.0), ""));
        assert!(
            over.starts_with(&format!("[{}] 100%", "#".repeat(30))),
            "{over}"
        );
        assert_eq!(progress_line(report(3.0, None, "files")), "3 files");
        let hostile = progress_line(report(1.0, None, "a\x1b]52;c;x\x07b"));
        assert!(
            !hostile.contains('\x1b') && !hostile.contains('\x07'),
            "{hostile:?}"
        );
    }
}
