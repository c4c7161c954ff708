//! The plugin manager: decides which plugins load, records what each added, unloads them.

use std::collections::BTreeSet;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use super::MANIFEST_FILE;
#[cfg(feature = "command-plugins")]
use super::command::command_tool;
use super::compiled::{PLUGINS, PluginDecl};
use super::context::{Added, PluginContext, PluginError};
#[cfg(feature = "command-plugins")]
use super::manifest::Manifest;
use crate::ToolRegistry;
use crate::config::PluginsConfig;
use crate::hooks::{HookId, HookKind};
use crate::tool::Provenance;

/// How a plugin is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginKind {
    /// A `#[plugin]` function linked into the binary.
    Compiled,
    /// A directory with a `plugin.toml` whose tools run commands.
    Command,
    /// Enabled in the config, but found nowhere.
    Unknown,
}

impl PluginKind {
    /// `"compiled"`, `"command"` or `"unknown"`.
    pub fn as_str(self) -> &'static str {
        match self {
            PluginKind::Compiled => "compiled",
            PluginKind::Command => "command",
            PluginKind::Unknown => "unknown",
        }
    }
}

impl fmt::Display for PluginKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a plugin stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginStatus {
    /// Its tools, hooks and toolsets are registered.
    Loaded,
    /// It was enabled but did not load; nothing of it is registered.
    Failed(String),
    /// It is in `plugins.disabled` (which wins over `plugins.enabled`).
    Disabled,
    /// It is not in `plugins.enabled`: plugins are opt-in.
    NotEnabled,
    /// It was loaded, then [unloaded](PluginManager::unload).
    Unloaded,
}

impl fmt::Display for PluginStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PluginStatus::Loaded => f.write_str("loaded"),
            PluginStatus::Failed(reason) => write!(f, "failed: {reason}"),
            PluginStatus::Disabled => f.write_str("disabled"),
            PluginStatus::NotEnabled => f.write_str("not enabled"),
            PluginStatus::Unloaded => f.write_str("unloaded"),
        }
    }
}

/// One plugin as the manager reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PluginInfo {
    /// Its name.
    pub name: String,
    /// How it is written.
    pub kind: PluginKind,
    /// What it does (a command plugin's is known once its manifest is read).
    pub description: String,
    /// Where it is declared: the register function, or the manifest file.
    pub source: String,
    /// Where it stands.
    pub status: PluginStatus,
    /// The tools it registered, in order (empty unless loaded).
    pub tools: Vec<String>,
    /// The hooks it added (empty unless loaded).
    pub hooks: Vec<(HookId, HookKind)>,
    /// The composite toolsets it registered (empty unless loaded).
    pub toolsets: Vec<String>,
}

impl PluginInfo {
    /// Whether it is loaded.
    pub fn is_loaded(&self) -> bool {
        self.status == PluginStatus::Loaded
    }
}

#[derive(Debug, Clone)]
enum Origin {
    Compiled(&'static PluginDecl),
    /// The plugin's directory, absolute.
    Command(PathBuf),
    /// An enabled name found nowhere, and why.
    Missing(String),
}

impl PartialEq for Origin {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            // One declaration is one static: its address identifies it.
            (Origin::Compiled(a), Origin::Compiled(b)) => std::ptr::eq(*a, *b),
            (Origin::Command(a), Origin::Command(b)) => a == b,
            (Origin::Missing(a), Origin::Missing(b)) => a == b,
            _ => false,
        }
    }
}

impl Origin {
    fn kind(&self) -> PluginKind {
        match self {
            Origin::Compiled(_) => PluginKind::Compiled,
            Origin::Command(_) => PluginKind::Command,
            Origin::Missing(_) => PluginKind::Unknown,
        }
    }
}

#[derive(Debug)]
struct Entry {
    info: PluginInfo,
    origin: Origin,
    added: Option<Added>,
}

/// Loads the plugins the operator enabled into a registry, and unloads them.
///
/// ```
/// use hermes_tools::ToolRegistry;
/// use hermes_tools::config::PluginsConfig;
/// use hermes_tools::plugins::{PluginContext, PluginManager, PluginStatus};
///
/// /// Says hello.
/// #[hermes_tools::plugin(name = "hello")]
/// fn hello(ctx: &mut PluginContext<'_>) {
///     let tool = ctx.tool_builder("hello", "greetings")
///         .description("Say hello.")
///         .handler(|_, _| "hello")
///         .build();
///     ctx.register_tool(tool);
/// }
///
/// let registry = ToolRegistry::new();
/// let mut manager = PluginManager::new(&registry);
/// manager.load(&PluginsConfig::default());
/// assert_eq!(manager.get("hello").unwrap().status, PluginStatus::NotEnabled);
/// assert!(registry.get("hello").is_none());
///
/// manager.load(&PluginsConfig { enabled: vec!["hello".into()], ..Default::default() });
/// assert_eq!(manager.get("hello").unwrap().tools, ["hello"]);
/// manager.unload("hello").unwrap();
/// assert!(registry.get("hello").is_none());
/// ```
#[derive(Debug)]
pub struct PluginManager {
    registry: ToolRegistry,
    entries: Vec<Entry>,
}

impl PluginManager {
    /// A manager loading into `registry` (it keeps a handle); nothing is loaded until
    /// [`load`](Self::load).
    pub fn new(registry: &ToolRegistry) -> Self {
        Self {
            registry: registry.clone(),
            entries: Vec::new(),
        }
    }

    /// The registry plugins load into.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// Finds every plugin (the linked `#[plugin]`s, then the directories of `config.dir` that
    /// hold a `plugin.toml`) and loads those `config` enables and does not disable.
    ///
    /// A plugin that fails (a refused tool, a panic, a bad manifest) is rolled back and
    /// reported; the others load. Plugins already loaded stay loaded, so calling it again
    /// loads what was enabled since (or unloaded); it never unloads anything.
    pub fn load(&mut self, config: &PluginsConfig) {
        let candidates = candidates(config);
        let mut previous = std::mem::take(&mut self.entries);
        for (name, origin) in candidates {
            let kept = previous
                .iter()
                .position(|entry| entry.origin == origin && entry.info.is_loaded());
            if let Some(index) = kept {
                self.entries.push(previous.swap_remove(index));
                continue;
            }
            let entry = if config.disabled.contains(&name) {
                self.unloaded_entry(name, origin, PluginStatus::Disabled)
            } else if !config.enabled.contains(&name) {
                self.unloaded_entry(name, origin, PluginStatus::NotEnabled)
            } else if let Some(other) = self
                .entries
                .iter()
                .chain(&previous)
                .find(|entry| entry.info.name == name && entry.info.is_loaded())
            {
                let reason = format!(
                    "another plugin of this name is loaded, declared at {}",
                    other.info.source
                );
                self.unloaded_entry(name, origin, PluginStatus::Failed(reason))
            } else {
                self.load_one(name, origin, config)
            };
            self.entries.push(entry);
        }
        // Loaded plugins no longer found (a deleted directory) stay, since they are registered.
        self.entries
            .extend(previous.into_iter().filter(|entry| entry.info.is_loaded()));
        self.entries.sort_by(|a, b| a.info.name.cmp(&b.info.name));
    }

    /// Every plugin found, by name, with its status.
    pub fn plugins(&self) -> impl ExactSizeIterator<Item = &PluginInfo> {
        self.entries.iter().map(|entry| &entry.info)
    }

    /// The plugin of that name (the loaded one, if two share it).
    pub fn get(&self, name: &str) -> Option<&PluginInfo> {
        let mut named = self.plugins().filter(|info| info.name == name);
        let first = named.next()?;
        Some(if first.is_loaded() {
            first
        } else {
            named.find(|info| info.is_loaded()).unwrap_or(first)
        })
    }

    /// Takes a loaded plugin's tools, hooks and toolsets out of the registry.
    ///
    /// A tool it overrode is put back as it was. Anything another plugin has replaced since
    /// is left alone.
    pub fn unload(&mut self, name: &str) -> Result<(), PluginError> {
        let entry = self
            .entries
            .iter_mut()
            .find(|entry| entry.info.name == name && entry.info.is_loaded());
        let Some(entry) = entry else {
            return Err(
                if self.entries.iter().any(|entry| entry.info.name == name) {
                    PluginError::NotLoaded(name.to_owned())
                } else {
                    PluginError::NotFound(name.to_owned())
                },
            );
        };
        if let Some(added) = entry.added.take() {
            added.remove_from(&self.registry);
        }
        let info = &mut entry.info;
        info.status = PluginStatus::Unloaded;
        info.tools.clear();
        info.hooks.clear();
        info.toolsets.clear();
        tracing::info!(plugin = name, "plugin unloaded");
        Ok(())
    }

    fn unloaded_entry(&self, name: String, origin: Origin, status: PluginStatus) -> Entry {
        let (description, source) = match &origin {
            Origin::Compiled(decl) => (decl.description.to_owned(), decl.provenance.to_string()),
            Origin::Command(dir) => (String::new(), dir.join(MANIFEST_FILE).display().to_string()),
            Origin::Missing(_) => (String::new(), String::new()),
        };
        Entry {
            info: PluginInfo {
                name,
                kind: origin.kind(),
                description,
                source,
                status,
                tools: Vec::new(),
                hooks: Vec::new(),
                toolsets: Vec::new(),
            },
            origin,
            added: None,
        }
    }

    fn load_one(&self, name: String, origin: Origin, config: &PluginsConfig) -> Entry {
        let may_override = config.allow_tool_override.contains(&name);
        let mut entry = self.unloaded_entry(name, origin, PluginStatus::Loaded);
        let result = match &entry.origin {
            Origin::Compiled(decl) => self.register_compiled(decl, may_override),
            Origin::Command(dir) => {
                self.register_command(dir, may_override)
                    .map(|(description, added)| {
                        entry.info.description = description;
                        added
                    })
            }
            Origin::Missing(reason) => Err(reason.clone()),
        };
        match result {
            Ok(added) => {
                let info = &mut entry.info;
                info.tools = added.tools.iter().map(|t| t.name.clone()).collect();
                info.hooks = added.hooks.clone();
                info.toolsets = added.toolsets.iter().map(|c| c.name.clone()).collect();
                tracing::info!(plugin = %info.name, tools = ?info.tools, "plugin loaded");
                entry.added = Some(added);
            }
            Err(reason) => {
                tracing::warn!(plugin = %entry.info.name, reason = %crate::secrets::redact(&reason), "plugin failed to load");
                entry.info.status = PluginStatus::Failed(reason);
            }
        }
        entry
    }

    fn register_compiled(&self, decl: &PluginDecl, may_override: bool) -> Result<Added, String> {
        let provenance = Provenance {
            line: decl.provenance.line,
            ..Provenance::runtime(decl.name, decl.provenance.file.clone())
        };
        let mut ctx = PluginContext::new(decl.name, &self.registry, may_override, provenance);
        match catch_unwind(AssertUnwindSafe(|| (decl.register)(&mut ctx))) {
            Ok(()) => ctx.finish().map_err(|err| err.to_string()),
            Err(payload) => {
                ctx.abandon();
                let message = crate::call::dispatch::panic_message(&*payload);
                Err(PluginError::Panicked {
                    plugin: decl.name.to_owned(),
                    message,
                }
                .to_string())
            }
        }
    }

    /// Reads the manifest and registers its tools: the description and what was added.
    #[cfg(feature = "command-plugins")]
    fn register_command(&self, dir: &Path, may_override: bool) -> Result<(String, Added), String> {
        let manifest = Manifest::load(dir).map_err(|err| err.to_string())?;
        let file = dir.join(MANIFEST_FILE);
        let provenance = Provenance::runtime(manifest.name.clone(), file.display().to_string());
        let mut ctx = PluginContext::new(&manifest.name, &self.registry, may_override, provenance);
        for spec in &manifest.tools {
            ctx.register_tool(command_tool(spec, dir, &file, &manifest.name));
        }
        let added = ctx.finish().map_err(|err| err.to_string())?;
        Ok((manifest.description.trim().to_owned(), added))
    }

    /// Without the `command-plugins` feature, an enabled command plugin fails, saying why.
    #[cfg(not(feature = "command-plugins"))]
    fn register_command(&self, dir: &Path, _: bool) -> Result<(String, Added), String> {
        Err(format!(
            "{} is a command plugin, and this binary was built without hermes-tools' \
             `command-plugins` feature",
            dir.join(MANIFEST_FILE).display()
        ))
    }
}

/// Every plugin found, in load order: the linked ones by name, then the command plugins by
/// directory name, then enabled names found nowhere.
fn candidates(config: &PluginsConfig) -> Vec<(String, Origin)> {
    let mut compiled: Vec<&'static PluginDecl> = PLUGINS.iter().collect();
    compiled.sort_by(|a, b| (a.name, &a.provenance).cmp(&(b.name, &b.provenance)));
    let mut found: Vec<(String, Origin)> = compiled
        .into_iter()
        .map(|decl| (decl.name.to_owned(), Origin::Compiled(decl)))
        .collect();
    let dir = config
        .dir
        .as_deref()
        .map(|dir| std::path::absolute(dir).unwrap_or(dir.to_owned()));
    let scanned = dir.as_deref().map(scan);
    if let Some(Ok(dirs)) = &scanned {
        found.extend(
            dirs.iter()
                .map(|(name, path)| (name.clone(), Origin::Command(path.clone()))),
        );
    }
    if let (Some(dir), Some(Err(err))) = (&dir, &scanned) {
        tracing::warn!(dir = %dir.display(), error = %err, "cannot read the plugins directory");
    }
    let known: BTreeSet<String> = found.iter().map(|(name, _)| name.clone()).collect();
    let mut missing: Vec<&String> = config
        .enabled
        .iter()
        .filter(|name| !known.contains(*name) && !config.disabled.contains(*name))
        .collect();
    missing.sort();
    missing.dedup();
    for name in missing {
        let commands = match (&dir, &scanned) {
            (None, _) => "plugins.dir is not set, so there are no command plugins".to_owned(),
            (Some(dir), Some(Err(err))) => {
                format!("plugins.dir {} cannot be read: {err}", dir.display())
            }
            (Some(dir), _) => format!(
                "{} does not exist",
                dir.join(name).join(MANIFEST_FILE).display()
            ),
        };
        let reason = format!("no compiled plugin is named {name:?}, and {commands}");
        found.push((name.clone(), Origin::Missing(reason)));
    }
    found
}

/// The plugin directories of `dir`: those holding a manifest, by name (hidden ones skipped).
fn scan(dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
            continue;
        };
        if !name.starts_with('.') && path.join(MANIFEST_FILE).is_file() {
            found.push((name.to_owned(), path.clone()));
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(all(test, not(feature = "command-plugins")))]
mod tests {
    use super::*;

    #[test]
    fn without_the_feature_an_enabled_command_plugin_fails_naming_it() {
        let dir = std::env::temp_dir().join(format!("hermes-no-commands-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("echo")).unwrap();
        std::fs::write(dir.join("echo").join(MANIFEST_FILE), "name = \"echo\"\n").unwrap();
        let registry = ToolRegistry::new();
        let mut plugins = PluginManager::new(&registry);
        plugins.load(&PluginsConfig {
            enabled: vec!["echo".into()],
            dir: Some(dir.clone()),
            ..Default::default()
        });
        let info = plugins.get("echo").unwrap();
        assert_eq!(info.kind, PluginKind::Command);
        let PluginStatus::Failed(reason) = &info.status else {
            panic!("{:?}", info.status);
        };
        assert!(reason.contains("`command-plugins` feature"), "{reason}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
