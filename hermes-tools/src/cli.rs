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
//! Subcommands: `list` (every tool with emoji, toolset, availability and provenance),
//! `definitions [--toolsets a,b]` (the OpenAI tools array), `call NAME JSON` (the answer; the
//! exit status is 1 when the answer is an error).

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::{ToolContext, ToolRegistry};

#[derive(Parser)]
#[command(about = "List, describe and call the tools linked into this binary")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every tool: emoji, name, toolset, availability (or why not) and where it is declared.
    List,
    /// Print the OpenAI function definitions of the selected toolsets as JSON.
    Definitions {
        /// Comma-separated toolsets to include (default: all).
        #[arg(long, value_delimiter = ',')]
        toolsets: Option<Vec<String>>,
    },
    /// List toolsets (basic and composite) and the tools each resolves to.
    Toolsets,
    /// Check every tool's description and parameters against the lint rules.
    Lint,
    /// Call a tool with JSON arguments and print its answer.
    Call {
        /// The tool's name.
        name: String,
        /// The arguments, a JSON object (default `{}`).
        #[arg(default_value = "{}")]
        arguments: String,
    },
}

/// The CLI over a registry (the global one by default) and the context its calls receive.
#[must_use]
pub struct Cli {
    registry: &'static ToolRegistry,
    context: ToolContext,
    expected_toolsets: Vec<String>,
}

impl Default for Cli {
    fn default() -> Self {
        Self::new()
    }
}

impl Cli {
    /// A CLI over [`ToolRegistry::global`] with an empty context.
    pub fn new() -> Self {
        Self {
            registry: ToolRegistry::global(),
            context: ToolContext::new(),
            expected_toolsets: Vec::new(),
        }
    }

    /// Uses another registry.
    pub fn registry(mut self, registry: &'static ToolRegistry) -> Self {
        self.registry = registry;
        self
    }

    /// The context every `call` receives (extensions such as a workspace root).
    pub fn context(mut self, context: ToolContext) -> Self {
        self.context = context;
        self
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
        let stdout = io::stdout();
        let mut out = stdout.lock();
        let result = match args.command {
            Command::List => self.list(&mut out),
            Command::Definitions { toolsets } => self.definitions(&mut out, toolsets.as_deref()),
            Command::Toolsets => self.toolsets(&mut out),
            Command::Lint => self.lint(&mut out),
            Command::Call { name, arguments } => self.call(&mut out, &name, &arguments),
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
        let snapshot = self.registry.snapshot();
        let mut probe = self.registry.availability().probe();
        let rows: Vec<[String; 5]> = snapshot.with_catalog(|catalog| {
            snapshot
                .tools()
                .map(|tool| {
                    let status = match probe.check(tool) {
                        Ok(()) => "available".to_owned(),
                        Err(reason) => format!("unavailable: {reason}"),
                    };
                    let toolsets = catalog.including(tool.name()).join(",");
                    [
                        tool.emoji().to_owned(),
                        tool.name().to_owned(),
                        toolsets,
                        status,
                        tool.provenance().to_string(),
                    ]
                })
                .collect()
        });
        let widths: Vec<usize> = (1..4)
            .map(|col| {
                rows.iter()
                    .map(|row| row[col].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        writeln!(out, "{} tools", rows.len())?;
        for [emoji, name, toolset, status, provenance] in &rows {
            writeln!(
                out,
                "{emoji}  {name:<w1$}  {toolset:<w2$}  {status:<w3$}  {provenance}",
                w1 = widths[0],
                w2 = widths[1],
                w3 = widths[2],
            )?;
        }
        for conflict in self.registry.conflicts() {
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
        let present = self.registry.toolsets();
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
        let snapshot = self.registry.snapshot();
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

    fn lint(&self, out: &mut impl Write) -> io::Result<ExitCode> {
        let findings = self.registry.lint();
        for finding in &findings {
            writeln!(out, "{finding}")?;
        }
        if findings.is_empty() {
            let count = self.registry.snapshot().tools().len();
            writeln!(out, "lint: {count} tools, no findings")?;
            Ok(ExitCode::SUCCESS)
        } else {
            writeln!(out, "lint: {} findings", findings.len())?;
            Ok(ExitCode::FAILURE)
        }
    }

    fn definitions(
        &self,
        out: &mut impl Write,
        toolsets: Option<&[String]>,
    ) -> io::Result<ExitCode> {
        match self.registry.openai_definitions(toolsets) {
            Ok(definitions) => {
                serde_json::to_writer_pretty(&mut *out, &definitions)?;
                writeln!(out)?;
                Ok(ExitCode::SUCCESS)
            }
            Err(err) => {
                eprintln!("error: {err}");
                Ok(ExitCode::from(2))
            }
        }
    }

    fn call(&self, out: &mut impl Write, name: &str, arguments: &str) -> io::Result<ExitCode> {
        let answer = self.registry.dispatch(name, arguments, &self.context);
        writeln!(out, "{answer}")?;
        Ok(if answer.is_error() {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        })
    }
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    // A second initialisation (the CLI run twice in one process) is harmless.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .try_init();
}
