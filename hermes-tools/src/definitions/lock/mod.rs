//! The schema lock: what the model is shown, recorded in a file and checked in CI, so that a
//! tool's published definition never changes under a prompt, an eval or a cached agent
//! without anyone noticing (feature `lint`).
//!
//! [`ToolRegistry::lock`] records every registered tool's published definition in every
//! [`Format`] (its static definition, the one `definitions` shows when no dynamic override
//! applies) with its declaration's `file:line`; [`Lock::to_text`] writes it as canonical JSON,
//! one block per tool. [`ToolRegistry::check_lock`] compares the tools with a lock file and
//! reports each [`Change`] with its [`Verdict`]:
//!
//! * **breaking**: a tool or parameter removed or renamed, a new required parameter, an
//!   optional one made required, a type or enum narrowed, a bound added or tightened
//!   (`minimum`, `maxLength`, `maxItems`, `pattern`, `format`, `uniqueItems`, ...),
//!   `additionalProperties` closed, a variant of `anyOf`/`oneOf` removed, a format's `strict`
//!   flag changed, the MCP `outputSchema` changed, or any keyword the check does not know;
//! * **compatible**: a new tool, a new optional parameter, a required one made optional, a
//!   type, enum or bound widened, a description, default or annotation edited;
//! * **moved**: only the declaration's `file:line` changed. Never a failure, so that an
//!   unrelated edit above a tool does not break CI; `--update` records the new place.
//!
//! Breaking changes fail the check ([`LockError::Breaking`]); compatible ones fail only a
//! strict check ([`LockReport::strict`], `definitions --lock PATH --strict`). A change is
//! accepted by rewriting the lock: `definitions --lock PATH --update`, or any check run with
//! the environment variable `HERMES_LOCK=update` ([`UPDATE_ENV`]), as insta and trybuild do.
//!
//! A crate's own test keeps its lock, as it keeps its lint:
//!
//! ```
//! use hermes_tools::{ToolRegistry, tool::Tool};
//! use hermes_tools::definitions::lock::{ChangeKind, LockError, Verdict};
//! use serde_json::json;
//!
//! let tool = |parameters| {
//!     Tool::builder("forecast", "weather")
//!         .description("The weather of the coming days in one city.")
//!         .parameters(parameters)
//!         .build()
//! };
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("tools.lock");
//!
//! let before = ToolRegistry::new();
//! before.register(tool(json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
//!     "required": ["city"]
//! }))).unwrap();
//! before.update_lock(&path).unwrap();
//! assert!(before.check_lock(&path).unwrap().is_unchanged());
//!
//! // `days` made required: a call that left it out is now refused.
//! let after = ToolRegistry::new();
//! after.register(tool(json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
//!     "required": ["city", "days"]
//! }))).unwrap();
//! let Err(LockError::Breaking(report)) = after.check_lock(&path) else { panic!() };
//! assert_eq!(report.changes[0].path, "days");
//! assert_eq!(report.changes[0].kind, ChangeKind::BecameRequired);
//! assert_eq!(report.changes[0].verdict(), Verdict::Breaking);
//! ```

mod file;
mod report;
mod walk;

#[cfg(test)]
mod tests;

use std::io;
use std::path::{Path, PathBuf};

use crate::ToolRegistry;
use crate::definitions::formats::Format;

pub use file::{Lock, LockedTool};
pub use report::{Change, ChangeKind, LockReport, Verdict};

/// The environment variable that turns every lock check into an update when it is `update`.
pub const UPDATE_ENV: &str = "HERMES_LOCK";

/// Why a lock could not be checked, or what failed the check.
#[derive(Debug)]
pub enum LockError {
    /// No lock file at the path.
    Missing(PathBuf),
    /// The lock file could not be read or written.
    Io {
        /// `read` or `write`.
        action: &'static str,
        /// The lock file.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The file is no lock this version reads.
    Malformed {
        /// The lock file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A breaking change against the lock.
    Breaking(LockReport),
    /// A compatible change not in the lock yet, in a strict check.
    Changed(LockReport),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Missing(path) => write!(
                f,
                "no lock file at {}; create it with `definitions --lock {} --update` (or run the \
                 check with {UPDATE_ENV}=update)",
                path.display(),
                path.display()
            ),
            Self::Io {
                action,
                path,
                source,
            } => write!(
                f,
                "cannot {action} the lock file {}: {source}",
                path.display()
            ),
            Self::Malformed { path, reason } => write!(
                f,
                "{} is not a lock file hermes-tools can read: {reason}; recreate it with \
                 `definitions --lock {} --update`",
                path.display(),
                path.display()
            ),
            Self::Breaking(report) => write!(
                f,
                "{report}\nbreaking changes against the lock: if they are meant, accept them with \
                 `definitions --lock PATH --update` or {UPDATE_ENV}=update"
            ),
            Self::Changed(report) => write!(
                f,
                "{report}\nchanges not in the lock (strict check): accept them with `definitions \
                 --lock PATH --update` or {UPDATE_ENV}=update"
            ),
        }
    }
}

impl std::error::Error for LockError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl Lock {
    /// Reads a lock file.
    ///
    /// # Errors
    ///
    /// [`LockError::Missing`] when there is no file, [`LockError::Io`] when it cannot be
    /// read, [`LockError::Malformed`] when it is no lock.
    pub fn read(path: impl AsRef<Path>) -> Result<Lock, LockError> {
        let path = path.as_ref();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                return Err(LockError::Missing(path.to_owned()));
            }
            Err(source) => {
                return Err(LockError::Io {
                    action: "read",
                    path: path.to_owned(),
                    source,
                });
            }
        };
        Lock::parse(&text).map_err(|reason| LockError::Malformed {
            path: path.to_owned(),
            reason,
        })
    }

    /// Writes the lock to `path`, unless the file already holds exactly this text.
    ///
    /// # Errors
    ///
    /// [`LockError::Io`] when the file cannot be written.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), LockError> {
        let path = path.as_ref();
        let text = self.to_text();
        if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
            return Ok(());
        }
        std::fs::write(path, text).map_err(|source| LockError::Io {
            action: "write",
            path: path.to_owned(),
            source,
        })
    }

    /// Every change from this (locked) lock to `current`, with `path` naming the lock file in
    /// the report. Tools in name order; within a tool, the order the walk found them, each
    /// change once with the formats it shows in.
    pub fn compare(&self, current: &Lock, path: impl Into<PathBuf>) -> LockReport {
        let mut changes = Vec::new();
        let removed: Vec<&String> = (self.tools.keys())
            .filter(|name| !current.tools.contains_key(*name))
            .collect();
        let mut added: Vec<&String> = (current.tools.keys())
            .filter(|name| !self.tools.contains_key(*name))
            .collect();
        for name in removed {
            let old = &self.tools[name];
            // A new tool publishing the same parameters in every format is this one renamed.
            let renamed = added
                .iter()
                .position(|new| same_parameters(old, &current.tools[new.as_str()]));
            let kind = match renamed {
                Some(at) => ChangeKind::ToolRenamed {
                    to: added.remove(at).clone(),
                },
                None => ChangeKind::ToolRemoved,
            };
            changes.push(Change {
                tool: name.clone(),
                path: String::new(),
                kind,
                formats: old.definitions.keys().copied().collect(),
                location: old.source.clone(),
            });
        }
        for name in added {
            let new = &current.tools[name];
            changes.push(Change {
                tool: name.clone(),
                path: String::new(),
                kind: ChangeKind::ToolAdded,
                formats: new.definitions.keys().copied().collect(),
                location: new.source.clone(),
            });
        }
        for (name, old) in &self.tools {
            let Some(new) = current.tools.get(name) else {
                continue;
            };
            let mut found = Vec::new();
            for (format, definition) in &new.definitions {
                let Some(locked) = old.definitions.get(format) else {
                    // A format this lock did not record (written by an older version).
                    continue;
                };
                for (path, kind) in walk::compare(*format, locked, definition) {
                    let change = Change {
                        tool: name.clone(),
                        path,
                        kind,
                        formats: Vec::new(),
                        location: new.source.clone(),
                    };
                    report::add(&mut found, change, *format);
                }
            }
            if old.source != new.source {
                found.push(Change {
                    tool: name.clone(),
                    path: String::new(),
                    kind: ChangeKind::Moved {
                        from: old.source.clone(),
                        to: new.source.clone(),
                    },
                    formats: Vec::new(),
                    location: new.source.clone(),
                });
            }
            changes.extend(found);
        }
        changes.sort_by(|a, b| a.tool.cmp(&b.tool));
        LockReport {
            path: path.into(),
            changes,
            updated: false,
        }
    }
}

/// Whether two tools publish the same parameters in every format (names and descriptions
/// aside): a rename.
fn same_parameters(old: &LockedTool, new: &LockedTool) -> bool {
    let parameters = |tool: &LockedTool| -> Vec<serde_json::Value> {
        (tool.definitions.values())
            .map(|definition| {
                let inner = definition.get("function").unwrap_or(definition);
                ["parameters", "input_schema", "inputSchema"]
                    .iter()
                    .find_map(|key| inner.get(*key))
                    .cloned()
                    .unwrap_or_default()
            })
            .collect()
    };
    old.definitions.keys().eq(new.definitions.keys()) && parameters(old) == parameters(new)
}

/// Whether [`UPDATE_ENV`] asks to update locks instead of checking them.
fn update_requested() -> bool {
    std::env::var(UPDATE_ENV).is_ok_and(|value| value.eq_ignore_ascii_case("update"))
}

impl ToolRegistry {
    /// Every registered tool's published static definition in every [`Format`], with the
    /// `file:line` of its declaration: what [`check_lock`](Self::check_lock) compares with.
    pub fn lock(&self) -> Lock {
        let snapshot = self.snapshot();
        let tools = snapshot
            .tools()
            .map(|tool| {
                let definitions = Format::ALL
                    .into_iter()
                    .map(|format| (format, file::canonical(&tool.rendered().get(format, tool))))
                    .collect();
                let locked = LockedTool {
                    source: tool.provenance().location(),
                    definitions,
                };
                (tool.name().to_owned(), locked)
            })
            .collect();
        Lock { tools }
    }

    /// Checks the tools against the lock file at `path` (with `HERMES_LOCK=update` in the
    /// environment, updates it instead: see [`update_lock`](Self::update_lock)).
    ///
    /// # Errors
    ///
    /// [`LockError::Breaking`] with the report when any change is breaking;
    /// [`LockError::Missing`], [`LockError::Malformed`] or [`LockError::Io`] when the lock
    /// cannot be read. A report of compatible changes is `Ok`: [`LockReport::strict`] makes
    /// those fail too.
    pub fn check_lock(&self, path: impl AsRef<Path>) -> Result<LockReport, LockError> {
        if update_requested() {
            return self.update_lock(path);
        }
        let path = path.as_ref();
        let report = Lock::read(path)?.compare(&self.lock(), path);
        if report.is_breaking() {
            Err(LockError::Breaking(report))
        } else {
            Ok(report)
        }
    }

    /// Rewrites the lock file at `path` (creating it) with the tools as they are now, and
    /// reports what changed from the lock it replaces (nothing when there was none).
    ///
    /// # Errors
    ///
    /// [`LockError::Io`] when the file cannot be written. A lock file that is unreadable or
    /// malformed is replaced.
    pub fn update_lock(&self, path: impl AsRef<Path>) -> Result<LockReport, LockError> {
        let path = path.as_ref();
        let current = self.lock();
        let mut report = match Lock::read(path) {
            Ok(locked) => locked.compare(&current, path),
            Err(_) => Lock::default().compare(&current, path),
        };
        current.write(path)?;
        report.updated = true;
        Ok(report)
    }
}
