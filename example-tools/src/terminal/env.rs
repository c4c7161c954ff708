//! The environment a command gets: what a shell needs, never the agent's credentials.
//!
//! An agent's environment holds its API keys (`OPENAI_API_KEY`, `GITHUB_TOKEN`, cloud
//! credentials). A command the model wrote must not see them: `env`, or a script that posts its
//! environment somewhere, would hand them over. So the command starts from an empty
//! environment and gets:
//!
//! 1. [`INHERITED`] from the agent's environment, when set: `PATH`, `HOME`, `USER`, `LOGNAME`,
//!    `SHELL`, `TERM`, `TZ`, `TMPDIR`, `LANG`, `LANGUAGE` and every `LC_*`;
//! 2. the operator's allow list, `[tools.terminal] env_allow = ["CARGO_HOME", "RUST*"]`. A
//!    name is passed as is: the operator named it. A pattern ending in `*` passes the names it
//!    prefixes, except those that [look like credentials](looks_secret), which only an exact
//!    name lets through;
//! 3. the call's marker (see the `process` module), set last so nothing can override it.
//!
//! A value that is an exported shell function (`() {...`) is never passed on, as the MCP
//! client's filter does for servers (that filter is private to `hermes-tools`, so this module
//! has its own, with the allow list MCP servers do not have).

use std::ffi::{OsStr, OsString};

use hermes_tools::config::Config;

/// Variables every command inherits from the agent's environment (a trailing `*` is a prefix).
pub const INHERITED: [&str; 11] = [
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TZ", "TMPDIR", "LANG", "LANGUAGE", "LC_*",
];

/// The tool whose settings hold the allow list, and its key.
const TOOL: &str = "terminal";
const KEY: &str = "env_allow";

/// What the operator wrote, in TOML's words (settings are held as JSON values).
fn toml_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(n) if n.is_f64() => "float",
        serde_json::Value::Number(_) => "integer",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "table",
    }
}

/// Which of the agent's variables a command inherits: the defaults and the operator's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct EnvFilter {
    /// Names passed as they are.
    exact: Vec<String>,
    /// Prefixes (from patterns ending in `*`) whose names pass unless they look secret.
    prefixes: Vec<String>,
}

impl EnvFilter {
    /// The defaults plus `[tools.terminal] env_allow` from `config`; a malformed list is an
    /// error that says what to write instead.
    pub(super) fn from_config(config: &Config) -> Result<Self, String> {
        let mut filter = Self::parse(INHERITED.iter().copied()).unwrap_or(Self {
            exact: Vec::new(),
            prefixes: Vec::new(),
        });
        let Some(value) = config.tools.get(TOOL).and_then(|s| s.settings.get(KEY)) else {
            return Ok(filter);
        };
        let Some(items) = value.as_array() else {
            return Err(format!(
                "`[tools.{TOOL}] {KEY}` must be a list of variable names such as \
                 [\"CARGO_HOME\", \"RUST_*\"], not a {}",
                toml_type(value)
            ));
        };
        let mut names = Vec::with_capacity(items.len());
        for item in items {
            let Some(name) = item.as_str() else {
                return Err(format!(
                    "`[tools.{TOOL}] {KEY}` must hold strings (variable names such as \
                     \"CARGO_HOME\" or prefixes such as \"RUST_*\"), not a {}",
                    toml_type(item)
                ));
            };
            names.push(name);
        }
        let allowed = Self::parse(names)?;
        filter.exact.extend(allowed.exact);
        filter.prefixes.extend(allowed.prefixes);
        Ok(filter)
    }

    fn parse<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        let mut filter = Self {
            exact: Vec::new(),
            prefixes: Vec::new(),
        };
        for pattern in patterns {
            let (name, prefix) = match pattern.strip_suffix('*') {
                Some(stem) => (stem, true),
                None => (pattern, false),
            };
            let valid_chars = name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            let valid_start = name.bytes().next().is_some_and(|b| !b.is_ascii_digit());
            if !valid_chars || !(valid_start || prefix && name.is_empty()) {
                return Err(format!(
                    "`[tools.{TOOL}] {KEY}` entry {pattern:?} is not a variable name or a \
                     prefix pattern: use letters, digits and `_` (not starting with a digit), \
                     with one optional `*` at the end, as in \"CARGO_HOME\" or \"RUST_*\""
                ));
            }
            let list = if prefix {
                &mut filter.prefixes
            } else {
                &mut filter.exact
            };
            list.push(name.to_owned());
        }
        Ok(filter)
    }

    /// Whether the variable `name` is passed on.
    fn admits(&self, name: &str) -> bool {
        self.exact.iter().any(|exact| exact == name)
            || self.prefixes.iter().any(|p| name.starts_with(p.as_str())) && !looks_secret(name)
    }

    /// The variables of `vars` (the agent's environment) that the command gets.
    pub(super) fn apply(
        &self,
        vars: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Vec<(OsString, OsString)> {
        vars.into_iter()
            .filter(|(name, value)| {
                name.to_str().is_some_and(|name| self.admits(name)) && !is_shell_function(value)
            })
            .collect()
    }
}

/// Bash exports functions as `() { ...`: never hand those to another program.
fn is_shell_function(value: &OsStr) -> bool {
    value.as_encoded_bytes().starts_with(b"()")
}

/// Whether a variable name looks like it holds a credential: one of its `_`-separated parts
/// ends in `KEY`/`KEYS` (`API_KEY`, `ACCESSKEY`), contains `TOKEN`, `SECRET`, `PASSWORD`,
/// `PASSWD`, `CREDENTIAL` or `PRIVATE`, or is `AUTH`, `PASS`, `PW` or `COOKIE`
/// (`SSH_AUTH_SOCK` too: it hands out the user's SSH keys). Case is ignored.
pub(super) fn looks_secret(name: &str) -> bool {
    const INSIDE: [&str; 6] = [
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "PRIVATE",
    ];
    name.to_ascii_uppercase().split('_').any(|part| {
        part.ends_with("KEY")
            || part.ends_with("KEYS")
            || INSIDE.iter().any(|word| part.contains(word))
            || matches!(part, "AUTH" | "PASS" | "PW" | "COOKIE")
    })
}
