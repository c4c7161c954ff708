//! Configuration: one TOML file for what an operator tunes, held by each registry.
//!
//! Reading TOML (`Config::from_toml_str`, `Config::load`) needs the `toml` feature (on by
//! default). Without it a [`Config`] is built in code (it is all public fields and a
//! `Default`) or deserialized from any serde format.
//!
//! ```
//! # #[cfg(feature = "toml")] {
//! use hermes_tools::{config::Config, ToolRegistry};
//!
//! let config = Config::from_toml_str(r#"
//!     check_ttl_secs = 10
//!
//!     [tools.delegate_task]
//!     max_concurrency = 4
//! "#).unwrap();
//! assert_eq!(config.check_ttl_secs, 10);
//! assert_eq!(config.tool_setting::<u32>("delegate_task", "max_concurrency"), Some(4));
//!
//! let err = Config::from_toml_str("chek_ttl_secs = 10").unwrap_err();
//! assert!(err.to_string().contains("chek_ttl_secs"));
//!
//! // Each registry holds its own: setting one never changes another.
//! let registry = ToolRegistry::new();
//! registry.set_config(config);
//! assert_eq!(registry.config().check_ttl_secs, 10);
//! assert_eq!(ToolRegistry::new().config().check_ttl_secs, 30);
//! # }
//! ```
//!
//! There is no process-wide configuration: [`ToolRegistry::set_config`](crate::ToolRegistry::set_config)
//! sets a registry's (the CLI sets the global registry's from `--config`), and a tool reads the
//! config of the registry running it through [`ToolContext::config`](crate::ToolContext::config).

use std::collections::BTreeMap;
#[cfg(feature = "toml")]
use std::path::Path;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use serde::Deserialize;
use serde::de::DeserializeOwned;

mod mcp;
mod oauth;
mod search;
mod url;

#[cfg(feature = "mcp")]
pub(crate) use mcp::MODERN_PROTOCOL_VERSION;
pub use mcp::{MCP_PROTOCOL_VERSIONS, McpProtocol, McpServerConfig, McpTransport, SamplingConfig};
pub use oauth::{DEFAULT_OAUTH_REDIRECT_URI, JwtAlgorithm, OAuthConfig, OAuthGrant, PrivateKeyJwt};
pub use search::{DEFAULT_MANIFEST_TOKENS, DEFAULT_SEARCH_RESULTS, ToolSearchConfig};
#[cfg(feature = "mcp")]
pub(crate) use url::display_url;

/// Default time a check function's result is trusted, in seconds (Hermes: 30).
pub const DEFAULT_CHECK_TTL_SECS: u64 = 30;

/// Default time a tool may run, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 300;

/// A tool's answer budget when it and its settings name none, in characters (as in Hermes).
pub const DEFAULT_MAX_RESULT_CHARS: usize = 100_000;
/// Spill files kept at most by default (`spill_max_files`).
pub(crate) const DEFAULT_SPILL_MAX_FILES: usize = 1_000;
/// Bytes of spill files kept at most by default (`spill_max_bytes`): 256 MiB.
pub(crate) const DEFAULT_SPILL_MAX_BYTES: u64 = 256 * 1024 * 1024;
/// Age in seconds past which a spill file is removed by default (`spill_max_age_secs`): a day.
pub(crate) const DEFAULT_SPILL_MAX_AGE_SECS: u64 = 86_400;

/// Default characters all answers of one model turn may send together (Hermes 0.19:
/// `DEFAULT_TURN_BUDGET_CHARS`, 200,000).
pub const DEFAULT_TURN_MAX_CHARS: usize = 200_000;

/// Tools only the agent loop may run, by default (as in Hermes).
pub const DEFAULT_AGENT_LOOP_TOOLS: [&str; 4] =
    ["todo", "memory", "session_search", "delegate_task"];

/// The whole configuration. Unknown keys are errors, so a typo never passes silently.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// How long a check function's result is trusted, in seconds.
    pub check_ttl_secs: u64,
    /// How long a tool may run when neither it nor its settings say, in seconds.
    pub default_timeout_secs: u64,
    /// A tool's answer budget when neither it nor its settings say, in characters.
    pub default_max_result_chars: usize,
    /// Where over-size answers are written in full, for the agent to page through: the
    /// answer's marker names the file, and `read_file` reads spill files there even outside
    /// its workspace (only files of a spill's name, directly in this directory).
    pub spill_dir: Option<PathBuf>,
    /// Most spill files kept in `spill_dir`; the oldest go first (0: no bound).
    pub spill_max_files: usize,
    /// Most bytes of spill files kept in `spill_dir`; the oldest go first, and an answer
    /// larger than this alone is not spilled (0: no bound).
    pub spill_max_bytes: u64,
    /// Spill files older than this many seconds are removed when the next one is written
    /// (0: no bound).
    pub spill_max_age_secs: u64,
    /// Tools that answer an error unless the agent loop itself calls them.
    pub agent_loop_tools: Vec<String>,
    /// Tools that go through the approval gate, beside those declared `needs_approval`.
    pub approval_required: Vec<String>,
    /// Whether every answer is redacted of credentials before the model sees it (the
    /// default). `false` turns redaction off for all tools: only for a deployment whose model
    /// may read every secret its tools can reach. A tool's `raw_output` setting, or its
    /// `#[tool(raw_output)]` declaration, turns it off for that tool alone.
    pub redact_answers: bool,
    /// What an argument name the tool does not declare gets: refused, naming the nearest
    /// parameters (the default), or ignored. A tool's settings may say otherwise. MCP servers'
    /// tools keep the server's own rule (their schema's `additionalProperties`).
    pub unknown_arguments: UnknownArguments,
    /// Which plugins load, and what they may do.
    pub plugins: PluginsConfig,
    /// Settings per tool, by tool name.
    pub tools: BTreeMap<String, ToolSettings>,
    /// MCP servers whose tools become toolsets `mcp-<name>`, by server name.
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// The characters all answers of one model turn may send together, when the caller of
    /// [`ToolRegistry::run_turn`](crate::ToolRegistry::run_turn) gives no
    /// [`TurnBudget`](crate::call::TurnBudget) of its own (0: no turn budget, each answer keeps
    /// only its own). Default [`DEFAULT_TURN_MAX_CHARS`], as Hermes' turn budget.
    pub turn_max_chars: usize,
    /// Tool search and deferral: what lists asked with
    /// [`Deferral::from_config`](crate::search::Deferral::from_config) defer.
    pub tool_search: ToolSearchConfig,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            check_ttl_secs: DEFAULT_CHECK_TTL_SECS,
            default_timeout_secs: DEFAULT_TIMEOUT_SECS,
            default_max_result_chars: DEFAULT_MAX_RESULT_CHARS,
            spill_dir: None,
            spill_max_files: DEFAULT_SPILL_MAX_FILES,
            spill_max_bytes: DEFAULT_SPILL_MAX_BYTES,
            spill_max_age_secs: DEFAULT_SPILL_MAX_AGE_SECS,
            agent_loop_tools: DEFAULT_AGENT_LOOP_TOOLS.map(String::from).to_vec(),
            approval_required: Vec::new(),
            redact_answers: true,
            unknown_arguments: UnknownArguments::Reject,
            plugins: PluginsConfig::default(),
            tools: BTreeMap::new(),
            mcp_servers: BTreeMap::new(),
            turn_max_chars: DEFAULT_TURN_MAX_CHARS,
            tool_search: ToolSearchConfig::default(),
        }
    }
}

impl Config {
    /// The default configuration, built once: what a context outside any registry, or a
    /// schema context built without one, reads.
    pub(crate) fn shared_default() -> &'static Arc<Config> {
        static DEFAULT: LazyLock<Arc<Config>> = LazyLock::new(Arc::default);
        &DEFAULT
    }
}

/// Plugins: opt-in by name, a disabled list that always wins, and override permissions.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PluginsConfig {
    /// Plugins to load (compiled ones by name; command plugins by directory name).
    pub enabled: Vec<String>,
    /// Plugins never to load, even when enabled.
    pub disabled: Vec<String>,
    /// Plugins allowed to replace a tool of another toolset (with `overrides`).
    pub allow_tool_override: Vec<String>,
    /// The folder holding command plugins (one directory each, with a `plugin.toml`).
    pub dir: Option<PathBuf>,
}

impl PluginsConfig {
    /// Whether the plugin `name` is to be loaded.
    pub fn is_enabled(&self, name: &str) -> bool {
        self.enabled.iter().any(|n| n == name) && !self.disabled.iter().any(|n| n == name)
    }
}

/// What an argument name that a tool does not declare gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnknownArguments {
    /// The call is refused with an error naming the nearest parameter names (a misnamed key
    /// would otherwise turn a write into a read).
    #[default]
    Reject,
    /// The argument is dropped and the call goes on.
    Ignore,
}

/// Settings of one tool: the known ones, and any a tool reads for itself.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ToolSettings {
    /// How long it may run, in seconds (over its declaration).
    pub timeout_secs: Option<u64>,
    /// Its answer budget in characters (over its declaration).
    pub max_result_chars: Option<usize>,
    /// Its rule for unknown argument names (over the global `unknown_arguments`).
    pub unknown_arguments: Option<UnknownArguments>,
    /// Whether its calls go through the approval gate (over its declaration): `false` lifts
    /// a declared `needs_approval` (say, for `terminal` in a disposable container), `true`
    /// adds it.
    pub approval: Option<bool>,
    /// Whether its answers reach the model unredacted (over its `#[tool(raw_output)]`
    /// declaration). Its answers may then carry any credential it reads.
    pub raw_output: Option<bool>,
    /// Its own settings, read with [`Config::tool_setting`]: JSON values, whatever format the
    /// configuration was read from (a TOML table is an object).
    #[serde(flatten)]
    pub settings: serde_json::Map<String, serde_json::Value>,
}

/// A configuration that could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The text is not valid TOML or does not match the configuration's keys.
    Invalid {
        /// The file, when read from one.
        path: Option<PathBuf>,
        /// What is wrong, naming the key (from the TOML parser).
        message: String,
    },
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io { path, source } => {
                write!(f, "cannot read config file {}: {source}", path.display())
            }
            Self::Invalid { path, message } => {
                write!(f, "invalid config{}: {message}", location(path))
            }
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            Self::Invalid { .. } => None,
        }
    }
}

fn location(path: &Option<PathBuf>) -> String {
    path.as_ref()
        .map(|p| format!(" in {}", p.display()))
        .unwrap_or_default()
}

impl Config {
    /// Parses a configuration from TOML text.
    #[cfg(feature = "toml")]
    #[cfg_attr(docsrs, doc(cfg(feature = "toml")))]
    pub fn from_toml_str(text: &str) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|err| ConfigError::Invalid {
            path: None,
            message: err.to_string().trim_end().to_owned(),
        })
    }

    /// Reads a configuration file (TOML).
    #[cfg(feature = "toml")]
    #[cfg_attr(docsrs, doc(cfg(feature = "toml")))]
    pub fn load(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::from_toml_str(&text).map_err(|err| match err {
            ConfigError::Invalid { message, .. } => ConfigError::Invalid {
                path: Some(path.to_owned()),
                message,
            },
            other => other,
        })
    }

    /// The time the tool `name` may run, given what it declares: its settings, else
    /// `declared`, else the default.
    pub fn timeout_for(&self, name: &str, declared: Option<u64>) -> std::time::Duration {
        let secs = self
            .tools
            .get(name)
            .and_then(|s| s.timeout_secs)
            .or(declared)
            .unwrap_or(self.default_timeout_secs);
        std::time::Duration::from_secs(secs)
    }

    /// The answer budget of the tool `name`, given what it declares: its settings, else
    /// `declared`, else the default.
    pub fn max_result_chars_for(&self, name: &str, declared: Option<usize>) -> usize {
        self.tools
            .get(name)
            .and_then(|s| s.max_result_chars)
            .or(declared)
            .unwrap_or(self.default_max_result_chars)
    }

    /// The rule for unknown argument names of the tool `name`: its settings, else the global one.
    pub fn unknown_arguments_for(&self, name: &str) -> UnknownArguments {
        self.tools
            .get(name)
            .and_then(|s| s.unknown_arguments)
            .unwrap_or(self.unknown_arguments)
    }

    /// Whether calls of the tool `name` need approval, given whether it declares
    /// `needs_approval`: its `approval` setting, else `approval_required`, else `declared`.
    pub fn approval_for(&self, name: &str, declared: bool) -> bool {
        self.tools
            .get(name)
            .and_then(|s| s.approval)
            .unwrap_or_else(|| declared || self.approval_required.iter().any(|t| t == name))
    }

    /// Whether answers of the tool `name` are redacted, given whether it declares
    /// `raw_output`: off everywhere with `redact_answers = false`, else its `raw_output`
    /// setting, else its declaration.
    pub fn redacts_answers_of(&self, name: &str, declared_raw: bool) -> bool {
        self.redact_answers
            && !self
                .tools
                .get(name)
                .and_then(|s| s.raw_output)
                .unwrap_or(declared_raw)
    }

    /// The setting `key` of tool `tool`, if present and of type `T`.
    pub fn tool_setting<T: DeserializeOwned>(&self, tool: &str, key: &str) -> Option<T> {
        T::deserialize(self.tools.get(tool)?.settings.get(key)?).ok()
    }
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use super::*;

    #[test]
    fn bad_config_names_the_key_and_the_file() {
        let dir = std::env::temp_dir().join(format!("hermes-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("hermes.toml");
        std::fs::write(&file, "check_ttl_secs = \"soon\"\n").unwrap();
        let err = Config::load(&file).unwrap_err().to_string();
        assert!(err.contains("hermes.toml"), "{err}");
        assert!(err.contains("check_ttl_secs"), "{err}");
        let missing = Config::load(dir.join("nope.toml")).unwrap_err().to_string();
        assert!(missing.starts_with("cannot read config file"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn mcp_servers_run_calls_concurrently_only_when_the_operator_says_so() {
        let config = Config::from_toml_str(
            r#"
            [mcp_servers.search]
            command = "search-server"
            parallel_tool_calls = true

            [mcp_servers.shell]
            command = "shell-server"
            "#,
        )
        .unwrap();
        assert!(config.mcp_servers["search"].parallel_tool_calls);
        assert!(!config.mcp_servers["shell"].parallel_tool_calls);
        let err = Config::from_toml_str(
            "[mcp_servers.x]\ncommand = \"x\"\nparallel_tool_calls = \"yes\"",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("parallel_tool_calls"), "{err}");
    }

    #[test]
    fn the_turn_budget_is_hermes_unless_configured() {
        assert_eq!(Config::default().turn_max_chars, 200_000);
        let config = Config::from_toml_str("turn_max_chars = 50_000").unwrap();
        assert_eq!(config.turn_max_chars, 50_000);
    }

    #[test]
    fn defaults_apply_to_missing_keys() {
        let config = Config::from_toml_str("").unwrap();
        assert_eq!(config, Config::default());
        assert_eq!(config.tool_setting::<u32>("x", "y"), None);
    }
}
