//! Command plugins: a tool that runs a program, for tools written in any language.
//!
//! A call spawns the manifest's `command` in the plugin's directory, writes the arguments as
//! one JSON object to its stdin (then closes it), and reads its stdout as the answer (see
//! [`OutputFormat`]). A non-zero exit, a timeout or an unusable stdout is an error answer
//! naming the tool and carrying the exit status and the end of stderr; to report an error,
//! a command exits non-zero and explains on stderr. On timeout the process is killed
//! (`kill_on_drop`); processes it started itself are not, so a wrapper script should `exec`
//! its long-running program.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use super::manifest::{OutputFormat, ToolManifest};
use crate::call::answer::ToolAnswer;
use crate::config::Config;
use crate::tool::{Provenance, Tool};

/// Most of stdout kept: a larger answer is an error, not a memory hazard.
const MAX_STDOUT_BYTES: usize = 8 << 20;
/// The end of stderr kept while reading, and the part quoted in an error.
const STDERR_KEPT_BYTES: usize = 64 << 10;
const STDERR_QUOTED_BYTES: usize = 2000;

/// Builds the tool of one manifest entry, run from `dir`, declared in `manifest_file`.
pub(crate) fn command_tool(
    spec: &ToolManifest,
    dir: &Path,
    manifest_file: &Path,
    plugin: &str,
) -> Tool {
    let runner = Arc::new(Runner {
        tool: spec.name.clone(),
        program: resolve_program(&spec.command[0], dir),
        args: spec.command[1..].to_vec(),
        dir: dir.to_owned(),
        timeout_secs: spec.timeout_secs,
        output: spec.output,
    });
    let provenance = Provenance::runtime(plugin.to_owned(), manifest_file.display().to_string());
    let mut builder = Tool::builder(spec.name.as_str(), spec.toolset.as_str())
        .description(spec.description.trim())
        .parameters(spec.parameters_schema())
        .provenance(provenance)
        .overrides(spec.overrides)
        .needs_approval(spec.needs_approval)
        .requires_env(spec.requires_env.iter().cloned())
        .async_handler(move |args, ctx| {
            let runner = Arc::clone(&runner);
            async move { runner.run(args, &ctx.config()).await }
        });
    if let Some(emoji) = &spec.emoji {
        builder = builder.emoji(emoji.as_str());
    }
    if let Some(secs) = spec.timeout_secs {
        builder = builder.timeout_secs(secs);
    }
    if let Some(chars) = spec.max_result_chars {
        builder = builder.max_result_chars(chars);
    }
    builder.build()
}

/// A relative path with a separator is the plugin's own program; a bare name is for `PATH`.
///
/// Resolved here because a relative program with `current_dir` is platform-dependent in
/// `std::process::Command`.
fn resolve_program(program: &str, dir: &Path) -> PathBuf {
    let path = Path::new(program);
    if path.is_relative() && path.components().count() > 1 {
        dir.join(path)
    } else {
        path.to_owned()
    }
}

struct Runner {
    tool: String,
    program: PathBuf,
    args: Vec<String>,
    dir: PathBuf,
    timeout_secs: Option<u64>,
    output: OutputFormat,
}

/// What a finished process left.
struct Finished {
    status: ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl Runner {
    /// The time one run may take: the tool's config, else the manifest, else the default (as
    /// [`Config::timeout_for`](crate::config::Config::timeout_for) orders them). The pipeline applies
    /// the same limit, but unguarded dispatch does not, and the process must die either way.
    fn timeout(&self, config: &Config) -> Duration {
        config.timeout_for(&self.tool, self.timeout_secs)
    }

    async fn run(&self, args: Value, config: &Config) -> ToolAnswer {
        let input = args.to_string().into_bytes();
        let mut child = match Command::new(&self.program)
            .args(&self.args)
            .current_dir(&self.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
        {
            Ok(child) => child,
            Err(err) => {
                return ToolAnswer::error(format!(
                    "Tool {:?} could not start {}: {err}",
                    self.tool,
                    self.program.display()
                ));
            }
        };
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return ToolAnswer::error(format!(
                "Tool {:?}: the command's pipes are missing",
                self.tool
            ));
        };
        let limit = self.timeout(config);
        let mut out = Vec::new();
        let mut err = Vec::new();
        let run = async {
            let write = async {
                // A command may ignore its input and exit first: a broken pipe is not an error.
                let _ = stdin.write_all(&input).await;
                drop(stdin);
            };
            let (_, out_read, _, status) = tokio::join!(
                write,
                read_capped(stdout, &mut out, MAX_STDOUT_BYTES),
                read_tail(stderr, &mut err),
                child.wait()
            );
            (out_read, status)
        };
        let finished = match tokio::time::timeout(limit, run).await {
            Ok((Ok(()), Ok(status))) => Finished {
                status,
                stdout: out,
                stderr: err,
            },
            Ok((Err(read_err), _)) => {
                return self.failure(&format!("its output could not be read: {read_err}"), &err);
            }
            Ok((_, Err(wait_err))) => {
                return self.failure(&format!("it could not be waited for: {wait_err}"), &err);
            }
            Err(_) => {
                // The wait future is gone; kill now rather than when `child` drops.
                let _ = child.start_kill();
                return self.failure(
                    &format!(
                        "it timed out after {} s and was killed",
                        limit.as_secs_f64()
                    ),
                    &err,
                );
            }
        };
        self.answer(finished)
    }

    fn answer(&self, finished: Finished) -> ToolAnswer {
        if !finished.status.success() {
            let what = match finished.status.code() {
                Some(code) => format!("it exited with status {code}"),
                None => format!("it ended without an exit code ({})", finished.status),
            };
            return self.failure(&what, &finished.stderr);
        }
        let Ok(text) = String::from_utf8(finished.stdout) else {
            return self.failure("its output is not UTF-8", &finished.stderr);
        };
        match self.output {
            OutputFormat::Text => ToolAnswer::text(text.trim_end()),
            OutputFormat::Json => match serde_json::from_str::<Value>(&text) {
                Ok(value) => ToolAnswer::json(&value),
                Err(parse) => self.failure(
                    &format!(
                        "its output is not one JSON document ({parse}); it begins {:?}",
                        head(&text, 200)
                    ),
                    &finished.stderr,
                ),
            },
        }
    }

    fn failure(&self, what: &str, stderr: &[u8]) -> ToolAnswer {
        let stderr = String::from_utf8_lossy(stderr);
        let stderr = tail(stderr.trim(), STDERR_QUOTED_BYTES);
        let mut message = format!("Tool {:?} failed: {what}", self.tool);
        if stderr.is_empty() {
            message.push_str("; stderr was empty");
        } else {
            message.push_str("; stderr ends: ");
            message.push_str(stderr);
        }
        // The plugin's stderr may quote a credential.
        tracing::warn!(tool = %self.tool, "{}", crate::secrets::redact(&message));
        ToolAnswer::error(message)
    }
}

/// Reads to the end into `buf`, failing once more than `cap` bytes arrive.
///
/// `read_buf` keeps what it read when the future is dropped, so a timeout still has it.
async fn read_capped(
    mut reader: impl AsyncRead + Unpin,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<()> {
    while reader.read_buf(buf).await? != 0 {
        if buf.len() > cap {
            return Err(std::io::Error::other(format!(
                "more than {cap} bytes on stdout"
            )));
        }
    }
    Ok(())
}

/// Reads to the end, keeping only the last [`STDERR_KEPT_BYTES`] in `buf`.
async fn read_tail(mut reader: impl AsyncRead + Unpin, buf: &mut Vec<u8>) {
    while let Ok(n) = reader.read_buf(buf).await {
        if n == 0 {
            break;
        }
        if buf.len() > 2 * STDERR_KEPT_BYTES {
            buf.drain(..buf.len() - STDERR_KEPT_BYTES);
        }
    }
}

/// The last `max` bytes of `text`, on a character boundary.
fn tail(text: &str, max: usize) -> &str {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// The first `max` bytes of `text`, on a character boundary.
fn head(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_with_a_separator_are_the_plugins_own() {
        let dir = Path::new("/plugins/p");
        assert_eq!(resolve_program("python3", dir), PathBuf::from("python3"));
        assert_eq!(
            resolve_program("./run.sh", dir),
            PathBuf::from("/plugins/p/./run.sh")
        );
        assert_eq!(
            resolve_program("bin/run", dir),
            PathBuf::from("/plugins/p/bin/run")
        );
        assert_eq!(
            resolve_program("/usr/bin/env", dir),
            PathBuf::from("/usr/bin/env")
        );
    }

    #[test]
    fn head_and_tail_cut_on_character_boundaries() {
        assert_eq!(tail("aé", 1), "");
        assert_eq!(tail("aé", 2), "é");
        assert_eq!(head("éa", 1), "");
        assert_eq!(head("éa", 3), "éa");
    }
}
