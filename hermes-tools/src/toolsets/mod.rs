//! Toolsets: which tools a selection of toolset names turns on.
//!
//! Every tool belongs to the *basic* toolset named by its `toolset` attribute; basic toolsets
//! are implied by the tools themselves. *Composite* toolsets ([`Composite`]) are declared in
//! code: member tools plus `includes` of other toolsets, basic or composite. `all` and `*`
//! mean every tool. An *alias* maps a bare name to a toolset, such as an MCP server's `time`
//! for its toolset `mcp-time`. This module is pure: the caller builds a [`Catalog`] from the
//! registry and its declarations, and nothing here reads global state.
//!
//! # Names
//!
//! A name is looked up in this order: `all` and `*` (reserved: they always mean every tool);
//! a toolset (basic, composite or both: a composite sharing a basic toolset's name adds its
//! members to that toolset, as Hermes merges plugin tools into a static toolset); an alias.
//! An alias names a toolset, not another alias. An alias whose target is no toolset (its MCP
//! server is gone) is unknown, exactly as if it had never been registered.
//!
//! What may be a name at all (not empty, not `all` or `*`, no whitespace, control characters
//! or commas) is the rule of [`check_toolset_name`]: [`toolset!`](crate::toolset!) applies it
//! at compile time, and the registry when a tool, composite or alias is registered.
//!
//! # Rules of [`Catalog::select`]
//!
//! 1. Every name in `enabled` and `disabled` must be known, else
//!    [`SelectionError::UnknownToolset`] with up to three nearest known names.
//! 2. A toolset named (directly or through an alias) in both lists is
//!    [`SelectionError::EnabledAndDisabled`]: the intent is contradictory.
//! 3. The enabled tools are the union of the enabled names' resolutions; an empty `enabled`
//!    means every tool.
//! 4. The disabled names' resolutions are subtracted last, so disabling a basic toolset strips
//!    its tools even from an enabled composite that includes it. The exception: a tool whose
//!    own basic toolset is named in `enabled` is never removed by disabling a composite or
//!    `all`, because an explicit enable is more specific than a bundle.
//! 5. So `disabled: ["all"]` keeps exactly the tools of the basic toolsets named in `enabled`
//!    (`enabled: ["web"], disabled: ["all"]` is the `web` tools alone; with an empty `enabled`
//!    it selects nothing).
//!
//! # Resolution
//!
//! [`Catalog::resolve`] follows `includes` with a visited set shared by the whole walk, so a
//! diamond is resolved once and a cycle stops: when `a` includes `b` and `b` includes `a`,
//! both resolve to the union of their members. The result is a [`BTreeSet`], hence
//! deterministic. A composite member (tool or include) that is not present resolves to
//! nothing: basic toolsets exist through their tools, which come and go at run time (an MCP
//! server restarting), and one absent member must not take a whole selection down. A member
//! that never exists is a declaration bug: [`Catalog::validate`] reports every such one as
//! [`SelectionError::UnknownMember`], for the `toolsets` command and CI.
//!
//! # Cost
//!
//! Every operation is linear in the tools and declarations it reads: the catalog indexes the
//! tools by toolset (once, on the first lookup that needs it, when there are 64 tools or more;
//! fewer are scanned faster than hashed), so resolving a toolset costs its own members, not
//! the whole registry. [`Catalog::memberships`] answers "which toolsets take
//! in each tool" for every tool in one pass (what `list` prints), where calling
//! [`Catalog::including`] once per tool would resolve every toolset again for each.
//!
//! # Example
//!
//! ```
//! use std::collections::BTreeMap;
//! use hermes_tools::toolsets::{Catalog, Composite, Selection, SelectionError};
//!
//! let tools = [
//!     ("web_search", "web"),
//!     ("read_file", "files"),
//!     ("terminal", "terminal"),
//!     ("time_now", "mcp-time"),
//! ];
//! let coding = Composite::new("coding", "Files and a shell.").with_includes(["files", "terminal"]);
//! let composites = BTreeMap::from([(coding.name.clone(), coding)]);
//! let aliases = BTreeMap::from([("time".to_owned(), "mcp-time".to_owned())]);
//! let catalog = Catalog::new(&tools, &composites, &aliases);
//!
//! let selection = Selection {
//!     enabled: vec!["coding".into(), "time".into()],
//!     disabled: vec!["terminal".into()],
//! };
//! let selected = catalog.select(&selection)?;
//! assert_eq!(selected.into_iter().collect::<Vec<_>>(), ["read_file", "time_now"]);
//!
//! let typo = Selection { enabled: vec!["webb".into()], ..Selection::default() };
//! let err = catalog.select(&typo).unwrap_err();
//! assert_eq!(err.to_string(), r#"unknown toolset "webb" in enabled toolsets; did you mean web?"#);
//! # Ok::<(), SelectionError>(())
//! ```

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use crate::toolsets::nearest::nearest;

pub use self::names::{MAX_TOOLSET_NAME_CHARS, ToolsetNameError, check_toolset_name};

pub mod availability;
mod names;
pub(crate) mod nearest;

/// How many tools make a catalog index them; below, lookups scan the tools.
const INDEX_FROM: usize = 64;

/// The names that mean every toolset.
const ALL_NAMES: [&str; 2] = ["all", "*"];

/// A composite toolset (owned, so plugins and MCP can build them at run time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Composite {
    /// Its name; in a [`Catalog`], the map key is the name looked up.
    pub name: String,
    /// What it is for, shown by `list`.
    pub description: String,
    /// Tools it contains directly; each must exist.
    pub tools: Vec<String>,
    /// Toolsets (basic, composite, aliases, `all`) whose tools it contains; each must exist.
    pub includes: Vec<String>,
}

impl Composite {
    /// A composite with no members yet.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            tools: Vec::new(),
            includes: Vec::new(),
        }
    }

    /// The same composite with these member tools added.
    #[must_use]
    pub fn with_tools<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        self.tools.extend(tools.into_iter().map(Into::into));
        self
    }

    /// The same composite with these toolsets included.
    #[must_use]
    pub fn with_includes<S: Into<String>>(mut self, includes: impl IntoIterator<Item = S>) -> Self {
        self.includes.extend(includes.into_iter().map(Into::into));
        self
    }
}

/// Which toolsets to turn on and off; see the [module docs](self) for the rules.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Selection {
    /// Toolsets to turn on; empty means every toolset.
    pub enabled: Vec<String>,
    /// Toolsets to turn off, applied after `enabled`.
    pub disabled: Vec<String>,
}

/// What resolution works over: the registry's tools and the declared composites and aliases.
pub struct Catalog<'a> {
    tools: &'a [(&'a str, &'a str)],
    composites: &'a BTreeMap<String, Composite>,
    aliases: &'a BTreeMap<String, String>,
    /// The tools by toolset and the toolset of each tool, built on the first lookup.
    index: OnceCell<Index<'a>>,
}

/// Lookups that would otherwise scan every tool: what keeps resolution linear.
struct Index<'a> {
    /// Each basic toolset's tools, in the order of [`Catalog::tools`].
    members: HashMap<&'a str, Vec<&'a str>>,
    /// Each tool's basic toolset.
    toolset_of: HashMap<&'a str, &'a str>,
}

impl fmt::Debug for Catalog<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Catalog")
            .field("tools", &self.tools)
            .field("composites", &self.composites)
            .field("aliases", &self.aliases)
            .finish_non_exhaustive()
    }
}

/// Why a selection or a resolution failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SelectionError {
    /// A name is no toolset, composite, alias, `all` or `*`.
    UnknownToolset {
        /// The name as given.
        name: String,
        /// Where it was given: `"enabled"` or `"disabled"` (from [`Catalog::select`]), or
        /// `"requested"` (from [`Catalog::resolve`]).
        list: &'static str,
        /// Up to three nearest known names, best first.
        suggestions: Vec<String>,
    },
    /// A toolset is named (directly or through an alias) in both lists.
    EnabledAndDisabled {
        /// The name as given in the disabled list.
        name: String,
    },
    /// A composite names a tool or an include that does not exist: a declaration bug.
    UnknownMember {
        /// The composite declaring the member.
        toolset: String,
        /// The member that does not exist.
        member: String,
    },
}

impl std::fmt::Display for SelectionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UnknownToolset {
                name,
                list,
                suggestions,
            } => write!(
                f,
                "unknown toolset {name:?} in {list} toolsets{}",
                did_you_mean(suggestions)
            ),
            Self::EnabledAndDisabled { name } => write!(
                f,
                "toolset {name:?} is both enabled and disabled; remove it from one of the lists"
            ),
            Self::UnknownMember { toolset, member } => write!(
                f,
                "composite toolset {toolset:?} lists {member:?}, but no tool or toolset has that \
                 name; fix the composite's declaration"
            ),
        }
    }
}

impl std::error::Error for SelectionError {}

fn did_you_mean(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", suggestions.join(", "))
    }
}

/// What a known name stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target<'n> {
    /// Every tool.
    All,
    /// One toolset (basic, composite or both), by its canonical name.
    Toolset(&'n str),
}

impl<'a> Catalog<'a> {
    /// A catalog over `tools` (every registered tool, available or not, and its basic
    /// toolset; names unique), the composite toolsets by name, and the aliases (bare name to
    /// the toolset it stands for).
    pub fn new(
        tools: &'a [(&'a str, &'a str)],
        composites: &'a BTreeMap<String, Composite>,
        aliases: &'a BTreeMap<String, String>,
    ) -> Self {
        Self {
            tools,
            composites,
            aliases,
            index: OnceCell::new(),
        }
    }

    /// Every tool and its basic toolset, as given to [`new`](Self::new).
    pub fn tools(&self) -> &'a [(&'a str, &'a str)] {
        self.tools
    }

    /// The composite toolsets, by name.
    pub fn composites(&self) -> &'a BTreeMap<String, Composite> {
        self.composites
    }

    /// The aliases: bare names mapped to the toolset they stand for.
    pub fn aliases(&self) -> &'a BTreeMap<String, String> {
        self.aliases
    }

    /// The index, or `None` for a catalog so small that scanning its tools is cheaper than
    /// hashing them (an agent's usual few dozen tools).
    fn index(&self) -> Option<&Index<'a>> {
        if self.tools.len() < INDEX_FROM {
            return None;
        }
        Some(self.index.get_or_init(|| {
            let mut members: HashMap<&'a str, Vec<&'a str>> = HashMap::new();
            let mut toolset_of = HashMap::with_capacity(self.tools.len());
            for &(tool, toolset) in self.tools {
                members.entry(toolset).or_default().push(tool);
                toolset_of.insert(tool, toolset);
            }
            Index {
                members,
                toolset_of,
            }
        }))
    }

    /// Every toolset name, basic and composite, sorted and deduplicated (aliases excluded).
    pub fn toolset_names(&self) -> Vec<String> {
        self.names().into_iter().map(str::to_owned).collect()
    }

    fn names(&self) -> BTreeSet<&'a str> {
        let composite = self.composites.keys().map(String::as_str);
        match self.index() {
            Some(index) => index.members.keys().copied().chain(composite).collect(),
            None => (self.tools.iter().map(|&(_, toolset)| toolset))
                .chain(composite)
                .collect(),
        }
    }

    /// The tools of `toolset` (a toolset, composite, alias, `all` or `*`), following includes.
    pub fn resolve(&self, toolset: &str) -> Result<BTreeSet<String>, SelectionError> {
        let target = self
            .target(toolset)
            .ok_or_else(|| self.unknown(toolset, "requested"))?;
        let mut tools = BTreeSet::new();
        self.collect(target, &mut tools);
        Ok(owned(tools))
    }

    /// The tools `selection` turns on, under the rules in the [module docs](self).
    pub fn select(&self, selection: &Selection) -> Result<BTreeSet<String>, SelectionError> {
        let enabled = self.targets(&selection.enabled, "enabled")?;
        let disabled = self.targets(&selection.disabled, "disabled")?;
        if let Some((name, _)) = disabled
            .iter()
            .find(|(_, target)| enabled.iter().any(|(_, on)| on == target))
        {
            return Err(SelectionError::EnabledAndDisabled {
                name: (*name).to_owned(),
            });
        }

        let mut tools = BTreeSet::new();
        if enabled.is_empty() {
            self.collect(Target::All, &mut tools);
        }
        for &(_, target) in &enabled {
            self.collect(target, &mut tools);
        }

        let mut removed = BTreeSet::new();
        for &(_, target) in &disabled {
            self.collect(target, &mut removed);
        }
        // An explicit enable of a tool's own basic toolset outranks disabling a bundle.
        let explicit: BTreeSet<&str> = enabled
            .iter()
            .filter_map(|(_, target)| match target {
                Target::Toolset(name) => Some(*name),
                Target::All => None,
            })
            .collect();
        tools.retain(|tool| {
            !removed.contains(tool)
                || self
                    .toolset_of(tool)
                    .is_some_and(|toolset| explicit.contains(toolset))
        });
        Ok(owned(tools))
    }

    /// Whether `selection` turns `toolset` on, by the rules of [`select`](Self::select), even
    /// while `toolset` has no tools: an MCP server is started only when its toolset is on.
    ///
    /// # Errors
    ///
    /// As [`select`](Self::select), for names in the selection that are not known.
    pub fn selects_toolset(
        &self,
        selection: &Selection,
        toolset: &str,
    ) -> Result<bool, SelectionError> {
        let enabled = self.targets(&selection.enabled, "enabled")?;
        let disabled = self.targets(&selection.disabled, "disabled")?;
        let explicit = enabled
            .iter()
            .any(|&(_, target)| target == Target::Toolset(toolset));
        let is_it = |name: &str| name == toolset;
        let on = enabled.is_empty()
            || enabled
                .iter()
                .any(|&(_, target)| self.reaches(target, is_it));
        let off = disabled
            .iter()
            .any(|&(_, target)| self.reaches(target, is_it));
        Ok(on && (explicit || !off))
    }

    /// Whether `target`, following includes, takes in a toolset for which `hit` holds (or
    /// includes every tool).
    fn reaches(&self, target: Target<'_>, hit: impl Fn(&str) -> bool) -> bool {
        let mut pending = match target {
            Target::All => return true,
            Target::Toolset(name) => vec![name],
        };
        let mut visited = BTreeSet::new();
        while let Some(name) = pending.pop() {
            if hit(name) {
                return true;
            }
            if !visited.insert(name) {
                continue;
            }
            for include in self
                .composites
                .get(name)
                .into_iter()
                .flat_map(|c| &c.includes)
            {
                match self.target(include) {
                    Some(Target::All) => return true,
                    Some(Target::Toolset(included)) => pending.push(included),
                    None => {}
                }
            }
        }
        false
    }

    /// Every toolset, basic and composite, whose resolution contains `tool`, sorted.
    ///
    /// For one tool: it walks each toolset's includes, not its tools. To ask for every tool
    /// (as `list` does), [`memberships`](Self::memberships) answers all of them in one pass.
    pub fn including(&self, tool: &str) -> Vec<String> {
        let Some(own) = self.toolset_of(tool) else {
            return Vec::new();
        };
        // The toolsets that hold the tool directly: its basic toolset and every composite
        // listing it. A toolset includes the tool exactly when it reaches one of them.
        let direct: BTreeSet<&str> = self
            .composites
            .iter()
            .filter(|(_, composite)| composite.tools.iter().any(|member| member == tool))
            .map(|(name, _)| name.as_str())
            .chain([own])
            .collect();
        self.names()
            .into_iter()
            .filter(|&name| self.reaches(Target::Toolset(name), |at| direct.contains(at)))
            .map(str::to_owned)
            .collect()
    }

    /// For every tool, each toolset (basic and composite) whose resolution contains it,
    /// sorted: [`including`](Self::including) for all tools at once, in time linear in the
    /// sizes of the resolutions. A tool no toolset contains (none: every tool is in its basic
    /// toolset) would be absent.
    pub fn memberships(&self) -> HashMap<&'a str, Vec<&'a str>> {
        let mut memberships: HashMap<&'a str, Vec<&'a str>> =
            HashMap::with_capacity(self.tools.len());
        let mut tools = BTreeSet::new();
        for name in self.names() {
            tools.clear();
            self.collect(Target::Toolset(name), &mut tools);
            for &tool in &tools {
                memberships.entry(tool).or_default().push(name);
            }
        }
        memberships
    }

    /// Every declaration bug of every composite: each member tool or include that does not
    /// exist, as [`SelectionError::UnknownMember`], in composite then member order. Empty when
    /// every composite is sound; meant for CI and start-up checks.
    pub fn validate(&self) -> Vec<SelectionError> {
        self.composites
            .iter()
            .flat_map(|(name, composite)| {
                let bad_tools = composite.tools.iter().filter(|tool| !self.has_tool(tool));
                let bad_includes =
                    (composite.includes.iter()).filter(|inc| self.target(inc).is_none());
                bad_tools
                    .chain(bad_includes)
                    .map(|member| SelectionError::UnknownMember {
                        toolset: name.clone(),
                        member: member.clone(),
                    })
            })
            .collect()
    }

    /// What `name` stands for, in the lookup order of the [module docs](self).
    fn target<'n>(&'n self, name: &'n str) -> Option<Target<'n>> {
        if ALL_NAMES.contains(&name) {
            Some(Target::All)
        } else if self.is_toolset(name) {
            Some(Target::Toolset(name))
        } else {
            let aliased = self.aliases.get(name)?;
            self.is_toolset(aliased)
                .then_some(Target::Toolset(aliased.as_str()))
        }
    }

    /// The targets of `names`, each paired with its spelling, or the first unknown name.
    fn targets<'n>(
        &'n self,
        names: &'n [String],
        list: &'static str,
    ) -> Result<Vec<(&'n str, Target<'n>)>, SelectionError> {
        names
            .iter()
            .map(|name| {
                self.target(name)
                    .map(|target| (name.as_str(), target))
                    .ok_or_else(|| self.unknown(name, list))
            })
            .collect()
    }

    fn unknown(&self, name: &str, list: &'static str) -> SelectionError {
        let names = self.names();
        let live_aliases = self
            .aliases
            .iter()
            .filter(|(_, target)| self.is_toolset(target))
            .map(|(alias, _)| alias.as_str());
        let known = names.iter().copied().chain(live_aliases);
        SelectionError::UnknownToolset {
            name: name.to_owned(),
            list,
            suggestions: nearest(name, known.chain([ALL_NAMES[0]])),
        }
    }

    /// Adds the tools of `target` to `tools`. Iterative, with one visited set for the whole
    /// walk: a toolset reached twice (diamond) or again (cycle) adds nothing new.
    fn collect(&self, target: Target<'_>, tools: &mut BTreeSet<&'a str>) {
        let mut pending = match target {
            Target::All => {
                tools.extend(self.tools.iter().map(|&(tool, _)| tool));
                return;
            }
            Target::Toolset(name) => vec![name],
        };
        let mut visited = BTreeSet::new();
        while let Some(toolset) = pending.pop() {
            if !visited.insert(toolset) {
                continue;
            }
            tools.extend(self.basic_tools(toolset));
            if let Some(composite) = self.composites.get(toolset) {
                pending.extend(self.expand(toolset, composite, tools));
            }
        }
    }

    /// Adds a composite's direct members to `tools` and returns the toolsets it includes.
    fn expand<'n>(
        &'n self,
        name: &str,
        composite: &'a Composite,
        tools: &mut BTreeSet<&'a str>,
    ) -> Vec<&'n str> {
        // A member that is not there resolves to nothing: the tools of a basic toolset come
        // and go at run time (an MCP server restarting), and one absent member must not take
        // the whole selection down. `validate` (the `toolsets` command, CI) reports it.
        let absent = |member: &str| {
            tracing::debug!(
                toolset = name,
                member,
                "composite member not present; skipped"
            );
        };
        for tool in &composite.tools {
            if self.has_tool(tool) {
                tools.insert(tool);
            } else {
                absent(tool);
            }
        }
        let mut included = Vec::new();
        for include in &composite.includes {
            match self.target(include) {
                None => absent(include),
                Some(Target::All) => self.collect(Target::All, tools),
                Some(Target::Toolset(toolset)) => included.push(toolset),
            }
        }
        included
    }

    fn basic_tools<'s>(&'s self, toolset: &'s str) -> Box<dyn Iterator<Item = &'a str> + 's> {
        match self.index() {
            Some(index) => Box::new(index.members.get(toolset).into_iter().flatten().copied()),
            None => Box::new(
                (self.tools.iter())
                    .filter(move |&&(_, of)| of == toolset)
                    .map(|&(tool, _)| tool),
            ),
        }
    }

    fn toolset_of(&self, tool: &str) -> Option<&'a str> {
        match self.index() {
            Some(index) => index.toolset_of.get(tool).copied(),
            None => (self.tools.iter())
                .find(|&&(name, _)| name == tool)
                .map(|&(_, toolset)| toolset),
        }
    }

    fn has_tool(&self, tool: &str) -> bool {
        self.toolset_of(tool).is_some()
    }

    fn is_toolset(&self, name: &str) -> bool {
        self.composites.contains_key(name)
            || match self.index() {
                Some(index) => index.members.contains_key(name),
                None => self.tools.iter().any(|&(_, toolset)| toolset == name),
            }
    }
}

/// Names as the owned strings of the public API.
fn owned(names: BTreeSet<&str>) -> BTreeSet<String> {
    names.into_iter().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests;
