//! What a check against the lock found: each [`Change`] with its [`ChangeKind`] and
//! [`Verdict`], merged across the formats it shows in, and the report's text.

use std::fmt;
use std::path::PathBuf;

use serde_json::Value;

use crate::definitions::formats::Format;

/// Whether a change can break what was built on the locked definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// A call the old definition allowed may now be refused, or what a prompt, an eval or a
    /// cached agent knows of the tool is no longer true: fails the check.
    Breaking,
    /// Every call the old definition allowed is still allowed: fails only with `--strict`.
    Compatible,
    /// Only the declaration's `file:line` changed: reported, never fails (unrelated edits
    /// move lines).
    Moved,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Breaking => "breaking",
            Verdict::Compatible => "compatible",
            Verdict::Moved => "moved",
        })
    }
}

/// A kind of change between the locked definition and the current one. A bound or keyword is
/// named as JSON Schema spells it (`maxLength`, `pattern`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ChangeKind {
    /// A tool that was not locked (compatible).
    ToolAdded,
    /// A locked tool is gone (breaking).
    ToolRemoved,
    /// A locked tool is gone and a new one has its parameters (breaking).
    ToolRenamed {
        /// The new name.
        to: String,
    },
    /// Only the declaration's `file:line` changed.
    Moved {
        /// The locked `file:line`.
        from: String,
        /// The current `file:line`.
        to: String,
    },
    /// The tool's or a parameter's description was edited (compatible).
    DescriptionChanged,
    /// The format's `strict` flag changed (breaking: the provider now constrains the model's
    /// output differently).
    StrictnessChanged {
        /// The locked flag.
        from: Option<bool>,
        /// The current flag.
        to: Option<bool>,
    },
    /// A new parameter: breaking when required, compatible when optional (in `openai-strict`,
    /// where every property is required, a nullable one counts as optional).
    ParameterAdded {
        /// Whether a call must now carry it.
        required: bool,
    },
    /// A parameter is gone (breaking).
    ParameterRemoved,
    /// A parameter is gone and a new one has its schema (breaking).
    ParameterRenamed {
        /// The new name.
        to: String,
    },
    /// An optional parameter became required (breaking).
    BecameRequired,
    /// A required parameter became optional (compatible).
    BecameOptional,
    /// Fewer types are accepted (breaking).
    TypeNarrowed {
        /// The locked types.
        from: Vec<String>,
        /// The current types.
        to: Vec<String>,
    },
    /// More types are accepted (compatible).
    TypeWidened {
        /// The locked types.
        from: Vec<String>,
        /// The current types.
        to: Vec<String>,
    },
    /// Values of the enum (or `const`) are no longer accepted, or an enum now restricts a
    /// free value (breaking).
    EnumNarrowed {
        /// The values no longer accepted (empty: the value was free before).
        removed: Vec<Value>,
    },
    /// The enum accepts more values, or is gone (compatible).
    EnumWidened {
        /// The values added (empty: the enum is gone).
        added: Vec<Value>,
    },
    /// A bound was added or made tighter: `minimum` raised, `maxLength` lowered, a `pattern`
    /// or `format` added or changed, `uniqueItems` set (breaking).
    BoundTightened {
        /// The keyword.
        keyword: String,
        /// The locked value (`None`: absent).
        from: Option<Value>,
        /// The current value (`None`: absent).
        to: Option<Value>,
    },
    /// A bound was removed or loosened (compatible).
    BoundWidened {
        /// The keyword.
        keyword: String,
        /// The locked value (`None`: absent).
        from: Option<Value>,
        /// The current value (`None`: absent).
        to: Option<Value>,
    },
    /// `additionalProperties` closed: keys that were accepted are refused (breaking).
    AdditionalPropertiesClosed,
    /// `additionalProperties` opened (compatible).
    AdditionalPropertiesOpened,
    /// A variant of `anyOf`/`oneOf` is gone (breaking).
    VariantRemoved {
        /// `anyOf` or `oneOf`.
        keyword: String,
    },
    /// A variant of `anyOf`/`oneOf` was added (compatible).
    VariantAdded {
        /// `anyOf` or `oneOf`.
        keyword: String,
    },
    /// The default value changed (compatible: the model is told, calls are still valid).
    DefaultChanged,
    /// An annotation changed: `title`, `examples`, `deprecated`, an MCP tool's `annotations`
    /// (compatible).
    AnnotationChanged {
        /// The keyword.
        keyword: String,
    },
    /// The MCP tool's `outputSchema` changed (breaking: a client may validate results
    /// against it).
    OutputSchemaChanged,
    /// Any other keyword changed, which this check cannot judge (breaking, to be safe).
    KeywordChanged {
        /// The keyword.
        keyword: String,
    },
}

impl ChangeKind {
    /// The verdict on this kind of change.
    pub fn verdict(&self) -> Verdict {
        use ChangeKind::*;
        match self {
            Moved { .. } => Verdict::Moved,
            ToolAdded
            | DescriptionChanged
            | BecameOptional
            | TypeWidened { .. }
            | EnumWidened { .. }
            | BoundWidened { .. }
            | AdditionalPropertiesOpened
            | VariantAdded { .. }
            | DefaultChanged
            | AnnotationChanged { .. }
            | ParameterAdded { required: false } => Verdict::Compatible,
            ToolRemoved
            | ToolRenamed { .. }
            | StrictnessChanged { .. }
            | ParameterAdded { required: true }
            | ParameterRemoved
            | ParameterRenamed { .. }
            | BecameRequired
            | TypeNarrowed { .. }
            | EnumNarrowed { .. }
            | BoundTightened { .. }
            | AdditionalPropertiesClosed
            | VariantRemoved { .. }
            | OutputSchemaChanged
            | KeywordChanged { .. } => Verdict::Breaking,
        }
    }
}

impl fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ChangeKind::*;
        let shown = |value: &Option<Value>| match value {
            Some(value) => value.to_string(),
            None => "none".to_owned(),
        };
        let list = |values: &[Value]| {
            values
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            ToolAdded => write!(f, "new tool"),
            ToolRemoved => write!(f, "tool removed"),
            ToolRenamed { to } => write!(f, "tool renamed to `{to}`"),
            Moved { from, to } => write!(f, "declaration moved from {from} to {to}"),
            DescriptionChanged => write!(f, "description edited"),
            StrictnessChanged { from, to } => {
                let flag =
                    |value: &Option<bool>| value.map_or("absent".to_owned(), |b| b.to_string());
                write!(f, "\"strict\" changed from {} to {}", flag(from), flag(to))
            }
            ParameterAdded { required: true } => write!(f, "new required parameter"),
            ParameterAdded { required: false } => write!(f, "new optional parameter"),
            ParameterRemoved => write!(f, "parameter removed"),
            ParameterRenamed { to } => write!(f, "parameter renamed to `{to}`"),
            BecameRequired => write!(f, "optional parameter made required"),
            BecameOptional => write!(f, "required parameter made optional"),
            TypeNarrowed { from, to } => {
                write!(
                    f,
                    "type narrowed from {} to {}",
                    from.join("|"),
                    to.join("|")
                )
            }
            TypeWidened { from, to } => {
                write!(
                    f,
                    "type widened from {} to {}",
                    from.join("|"),
                    to.join("|")
                )
            }
            EnumNarrowed { removed } if removed.is_empty() => write!(f, "enum added"),
            EnumNarrowed { removed } => write!(f, "enum narrowed: {} removed", list(removed)),
            EnumWidened { added } if added.is_empty() => write!(f, "enum removed"),
            EnumWidened { added } => write!(f, "enum widened: {} added", list(added)),
            BoundTightened { keyword, from, to } => {
                write!(f, "`{keyword}` tightened: {} -> {}", shown(from), shown(to))
            }
            BoundWidened { keyword, from, to } => {
                write!(f, "`{keyword}` widened: {} -> {}", shown(from), shown(to))
            }
            AdditionalPropertiesClosed => write!(f, "additionalProperties closed"),
            AdditionalPropertiesOpened => write!(f, "additionalProperties opened"),
            VariantRemoved { keyword } => write!(f, "a variant of `{keyword}` removed"),
            VariantAdded { keyword } => write!(f, "a variant of `{keyword}` added"),
            DefaultChanged => write!(f, "default changed"),
            AnnotationChanged { keyword } => write!(f, "`{keyword}` changed"),
            OutputSchemaChanged => write!(f, "outputSchema changed"),
            KeywordChanged { keyword } => write!(f, "`{keyword}` changed"),
        }
    }
}

/// One change of one tool, in the formats it shows in.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The tool's name (the locked one for a removed or renamed tool).
    pub tool: String,
    /// Where in the tool: empty for the tool itself, else the parameter's path (`filter.mode`,
    /// `paths[]` for an array's items, `options.*` for additional properties).
    pub path: String,
    /// What changed.
    pub kind: ChangeKind,
    /// The formats whose published definition shows the change.
    pub formats: Vec<Format>,
    /// Where the tool is declared, `file:line` (the locked place for a removed tool).
    pub location: String,
}

impl Change {
    /// The verdict on the change.
    pub fn verdict(&self) -> Verdict {
        self.kind.verdict()
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: tool `{}` [{}] ",
            self.location,
            self.tool,
            self.verdict()
        )?;
        if !self.path.is_empty() {
            write!(f, "parameter `{}`: ", self.path)?;
        }
        write!(f, "{}", self.kind)?;
        if !self.formats.is_empty() && self.formats.len() < Format::ALL.len() {
            let names: Vec<&str> = self.formats.iter().map(|format| format.as_str()).collect();
            write!(f, " (in {})", names.join(", "))?;
        }
        Ok(())
    }
}

/// What a check against a lock file found.
#[derive(Debug, Clone, PartialEq)]
pub struct LockReport {
    /// The lock file.
    pub path: PathBuf,
    /// Every change, by tool and then in the order found.
    pub changes: Vec<Change>,
    /// Whether the lock file was rewritten to accept them (`--update`, `HERMES_LOCK=update`).
    pub updated: bool,
}

impl LockReport {
    /// The changes with this verdict.
    pub fn with_verdict(&self, verdict: Verdict) -> impl Iterator<Item = &Change> {
        self.changes
            .iter()
            .filter(move |change| change.verdict() == verdict)
    }

    /// Whether any change is breaking.
    pub fn is_breaking(&self) -> bool {
        self.with_verdict(Verdict::Breaking).next().is_some()
    }

    /// Whether the definitions are those locked: no breaking or compatible change (a moved
    /// declaration does not count).
    pub fn is_unchanged(&self) -> bool {
        self.changes
            .iter()
            .all(|change| change.verdict() == Verdict::Moved)
    }

    /// The report, or [`LockError::Changed`](super::LockError::Changed) when a compatible
    /// change is not in the lock yet: a check that accepts no change unless it is locked.
    ///
    /// # Errors
    ///
    /// [`LockError::Changed`](super::LockError::Changed) when the report holds any change
    /// other than a moved declaration, and the lock was not updated.
    pub fn strict(self) -> Result<LockReport, super::LockError> {
        if self.updated || self.is_unchanged() {
            Ok(self)
        } else {
            Err(super::LockError::Changed(self))
        }
    }
}

impl fmt::Display for LockReport {
    /// One line per change, then a summary line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for change in &self.changes {
            writeln!(f, "{change}")?;
        }
        let count = |verdict| self.with_verdict(verdict).count();
        write!(
            f,
            "lock {}: {} breaking, {} compatible, {} moved{}",
            self.path.display(),
            count(Verdict::Breaking),
            count(Verdict::Compatible),
            count(Verdict::Moved),
            if self.updated { " (updated)" } else { "" }
        )
    }
}

/// Adds `change` seen in `format`, merged into the same change already seen in another
/// (the same kind at the same place: the details may differ, as a type that is nullable in
/// `openai-strict` alone).
pub(super) fn add(changes: &mut Vec<Change>, change: Change, format: Format) {
    if let Some(seen) = changes.iter_mut().find(|seen| {
        seen.tool == change.tool && seen.path == change.path && same_kind(&seen.kind, &change.kind)
    }) {
        if !seen.formats.contains(&format) {
            seen.formats.push(format);
        }
    } else {
        changes.push(Change {
            formats: vec![format],
            ..change
        });
    }
}

/// Whether two kinds are one change: the same variant, and the same keyword where one is named.
fn same_kind(a: &ChangeKind, b: &ChangeKind) -> bool {
    use ChangeKind::*;
    if std::mem::discriminant(a) != std::mem::discriminant(b) {
        return false;
    }
    match (a, b) {
        (BoundTightened { keyword: x, .. }, BoundTightened { keyword: y, .. })
        | (BoundWidened { keyword: x, .. }, BoundWidened { keyword: y, .. })
        | (VariantAdded { keyword: x }, VariantAdded { keyword: y })
        | (VariantRemoved { keyword: x }, VariantRemoved { keyword: y })
        | (AnnotationChanged { keyword: x }, AnnotationChanged { keyword: y })
        | (KeywordChanged { keyword: x }, KeywordChanged { keyword: y }) => x == y,
        (ParameterAdded { required: x }, ParameterAdded { required: y }) => x == y,
        _ => true,
    }
}
