//! `definitions --lock PATH [--update] [--strict]`: the tools checked against a lock file
//! (see [`crate::definitions::lock`]). Exit status 0 when nothing breaking changed, 1 on a
//! breaking change (or any change with `--strict`), 2 when the lock is missing or unreadable.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::ToolRegistry;
use crate::definitions::lock::{Lock, LockError, UPDATE_ENV};

/// The lock flags of `definitions`.
#[derive(clap::Args)]
pub(super) struct LockFlags {
    /// Check every tool's definitions (all formats) against this lock file instead of printing
    /// them: exit 1 on a breaking change, 2 when the file is missing.
    // The lock covers every tool in every format: a selection or a format would be ignored.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["toolsets", "disable", "format"])]
    lock: Option<PathBuf>,
    /// With --lock: rewrite the lock (creating it) to accept the changes; also done by
    /// HERMES_LOCK=update.
    #[arg(long, requires = "lock")]
    update: bool,
    /// With --lock: fail on compatible changes too (a moved declaration still passes).
    #[arg(long, requires = "lock")]
    strict: bool,
}

impl LockFlags {
    /// Whether `--lock` was given, so the command is a lock check.
    pub(super) fn is_set(&self) -> bool {
        self.lock.is_some()
    }

    /// Checks (or updates) the lock, printing the report on `out`.
    pub(super) fn run(&self, tools: &ToolRegistry, out: &mut impl Write) -> io::Result<ExitCode> {
        let Some(path) = &self.lock else {
            return Ok(ExitCode::SUCCESS);
        };
        let update = self.update
            || std::env::var(UPDATE_ENV).is_ok_and(|value| value.eq_ignore_ascii_case("update"));
        if update {
            return match tools.update_lock(path) {
                Ok(report) => {
                    writeln!(out, "{report}")?;
                    Ok(ExitCode::SUCCESS)
                }
                Err(err) => {
                    eprintln!("error: {err}");
                    Ok(ExitCode::from(2))
                }
            };
        }
        let report = match Lock::read(path) {
            Ok(locked) => locked.compare(&tools.lock(), path),
            Err(err) => {
                eprintln!("error: {err}");
                return Ok(ExitCode::from(2));
            }
        };
        writeln!(out, "{report}")?;
        let failed = if report.is_breaking() {
            Some(LockError::Breaking(report))
        } else if self.strict {
            report.strict().err()
        } else {
            None
        };
        Ok(match failed {
            Some(err) => {
                // The report is on stdout already: stderr says only what to do.
                let what = match err {
                    LockError::Breaking(_) => "breaking changes",
                    _ => "changes not in the lock (--strict)",
                };
                eprintln!(
                    "error: {what} against {}; if they are meant, accept them with \
                     `definitions --lock {} --update` (or {UPDATE_ENV}=update)",
                    path.display(),
                    path.display()
                );
                ExitCode::FAILURE
            }
            None => ExitCode::SUCCESS,
        })
    }
}
