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
//! let catalog = Catalog { tools: &tools, composites: &composites, aliases: &aliases };
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

use std::collections::{BTreeMap, BTreeSet};

use crate::nearest::nearest;

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
#[derive(Debug, Clone, Copy)]
pub struct Catalog<'a> {
    /// Every registered tool (available or not) and its basic toolset; names are unique.
    pub tools: &'a [(&'a str, &'a str)],
    /// Composite toolsets by name.
    pub composites: &'a BTreeMap<String, Composite>,
    /// Bare names mapped to the toolset they stand for.
    pub aliases: &'a BTreeMap<String, String>,
}

/// Why a selection or a resolution failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectionError {
    /// A name is no toolset, composite, alias, `all` or `*`.
    #[error("unknown toolset {name:?} in {list} toolsets{}", did_you_mean(.suggestions))]
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
    #[error("toolset {name:?} is both enabled and disabled; remove it from one of the lists")]
    EnabledAndDisabled {
        /// The name as given in the disabled list.
        name: String,
    },
    /// A composite names a tool or an include that does not exist: a declaration bug.
    #[error(
        "composite toolset {toolset:?} lists {member:?}, but no tool or toolset has that name; \
         fix the composite's declaration"
    )]
    UnknownMember {
        /// The composite declaring the member.
        toolset: String,
        /// The member that does not exist.
        member: String,
    },
}

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
    /// Every toolset name, basic and composite, sorted and deduplicated (aliases excluded).
    pub fn toolset_names(&self) -> Vec<String> {
        let basic = self.tools.iter().map(|&(_, toolset)| toolset);
        let composite = self.composites.keys().map(String::as_str);
        let names: BTreeSet<&str> = basic.chain(composite).collect();
        names.into_iter().map(str::to_owned).collect()
    }

    /// The tools of `toolset` (a toolset, composite, alias, `all` or `*`), following includes.
    pub fn resolve(&self, toolset: &str) -> Result<BTreeSet<String>, SelectionError> {
        let target = self
            .target(toolset)
            .ok_or_else(|| self.unknown(toolset, "requested"))?;
        let mut tools = BTreeSet::new();
        self.collect(target, &mut tools)?;
        Ok(tools)
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
            self.collect(Target::All, &mut tools)?;
        }
        for &(_, target) in &enabled {
            self.collect(target, &mut tools)?;
        }

        let mut removed = BTreeSet::new();
        for &(_, target) in &disabled {
            self.collect(target, &mut removed)?;
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
        Ok(tools)
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
        let on = enabled.is_empty()
            || enabled
                .iter()
                .any(|&(_, target)| self.reaches(target, toolset));
        let off = disabled
            .iter()
            .any(|&(_, target)| self.reaches(target, toolset));
        Ok(on && (explicit || !off))
    }

    /// Whether `target`, following includes, takes in `toolset`.
    fn reaches(&self, target: Target<'_>, toolset: &str) -> bool {
        let mut pending = match target {
            Target::All => return true,
            Target::Toolset(name) => vec![name],
        };
        let mut visited = BTreeSet::new();
        while let Some(name) = pending.pop() {
            if name == toolset {
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

    /// Every toolset, basic and composite, whose resolution contains `tool`, sorted (for `list`).
    ///
    /// A composite that fails to resolve is left out; [`validate`](Self::validate) reports it.
    pub fn including(&self, tool: &str) -> Vec<String> {
        self.toolset_names()
            .into_iter()
            .filter(|name| self.resolve(name).is_ok_and(|tools| tools.contains(tool)))
            .collect()
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
        let names = self.toolset_names();
        let live_aliases = self
            .aliases
            .iter()
            .filter(|(_, target)| self.is_toolset(target))
            .map(|(alias, _)| alias.as_str());
        let known = names.iter().map(String::as_str).chain(live_aliases);
        SelectionError::UnknownToolset {
            name: name.to_owned(),
            list,
            suggestions: nearest(name, known.chain([ALL_NAMES[0]])),
        }
    }

    /// Adds the tools of `target` to `tools`. Iterative, with one visited set for the whole
    /// walk: a toolset reached twice (diamond) or again (cycle) adds nothing new.
    fn collect(
        &self,
        target: Target<'_>,
        tools: &mut BTreeSet<String>,
    ) -> Result<(), SelectionError> {
        let mut pending = match target {
            Target::All => {
                tools.extend(self.tools.iter().map(|&(tool, _)| tool.to_owned()));
                return Ok(());
            }
            Target::Toolset(name) => vec![name],
        };
        let mut visited = BTreeSet::new();
        while let Some(toolset) = pending.pop() {
            if !visited.insert(toolset) {
                continue;
            }
            tools.extend(self.basic_tools(toolset).map(str::to_owned));
            if let Some(composite) = self.composites.get(toolset) {
                pending.extend(self.expand(toolset, composite, tools)?);
            }
        }
        Ok(())
    }

    /// Adds a composite's direct members to `tools` and returns the toolsets it includes.
    fn expand<'n>(
        &'n self,
        name: &str,
        composite: &'n Composite,
        tools: &mut BTreeSet<String>,
    ) -> Result<Vec<&'n str>, SelectionError> {
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
                tools.insert(tool.clone());
            } else {
                absent(tool);
            }
        }
        let mut included = Vec::new();
        for include in &composite.includes {
            match self.target(include) {
                None => absent(include),
                Some(Target::All) => self.collect(Target::All, tools)?,
                Some(Target::Toolset(toolset)) => included.push(toolset),
            }
        }
        Ok(included)
    }

    fn basic_tools<'s>(&'s self, toolset: &'s str) -> impl Iterator<Item = &'a str> + 's {
        self.tools
            .iter()
            .filter(move |&&(_, of)| of == toolset)
            .map(|&(tool, _)| tool)
    }

    fn toolset_of(&self, tool: &str) -> Option<&'a str> {
        self.tools
            .iter()
            .find(|&&(name, _)| name == tool)
            .map(|&(_, toolset)| toolset)
    }

    fn has_tool(&self, tool: &str) -> bool {
        self.toolset_of(tool).is_some()
    }

    fn is_toolset(&self, name: &str) -> bool {
        self.composites.contains_key(name) || self.tools.iter().any(|&(_, toolset)| toolset == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: &[(&str, &str)] = &[
        ("web_search", "web"),
        ("web_extract", "web"),
        ("read_file", "files"),
        ("write_file", "files"),
        ("terminal", "terminal"),
        ("todo", "todo"),
        ("time_now", "mcp-time"),
    ];

    struct Fixture {
        composites: BTreeMap<String, Composite>,
        aliases: BTreeMap<String, String>,
    }

    impl Fixture {
        fn new(composites: impl IntoIterator<Item = Composite>) -> Self {
            Self {
                composites: composites
                    .into_iter()
                    .map(|c| (c.name.clone(), c))
                    .collect(),
                aliases: BTreeMap::from([("time".to_owned(), "mcp-time".to_owned())]),
            }
        }

        fn standard() -> Self {
            Self::new([
                Composite::new("coding", "Files and a shell.").with_includes(["files", "terminal"]),
                Composite::new("research", "Web and notes.")
                    .with_tools(["todo"])
                    .with_includes(["web"]),
                Composite::new("everything", "Both bundles.").with_includes(["coding", "research"]),
            ])
        }

        fn catalog(&self) -> Catalog<'_> {
            Catalog {
                tools: TOOLS,
                composites: &self.composites,
                aliases: &self.aliases,
            }
        }
    }

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|&name| name.to_owned()).collect()
    }

    fn selection(enabled: &[&str], disabled: &[&str]) -> Selection {
        let owned = |names: &[&str]| names.iter().map(|&name| name.to_owned()).collect();
        Selection {
            enabled: owned(enabled),
            disabled: owned(disabled),
        }
    }

    const EVERY_TOOL: &[&str] = &[
        "read_file",
        "terminal",
        "time_now",
        "todo",
        "web_extract",
        "web_search",
        "write_file",
    ];

    #[test]
    fn toolset_names_are_basic_and_composite_sorted_without_aliases() {
        let fixture = Fixture::standard();
        assert_eq!(
            fixture.catalog().toolset_names(),
            [
                "coding",
                "everything",
                "files",
                "mcp-time",
                "research",
                "terminal",
                "todo",
                "web"
            ]
        );
    }

    #[test]
    fn resolves_basic_composite_nested_alias_and_all() {
        let fixture = Fixture::standard();
        let catalog = fixture.catalog();
        assert_eq!(
            catalog.resolve("web"),
            Ok(set(&["web_extract", "web_search"]))
        );
        assert_eq!(
            catalog.resolve("coding"),
            Ok(set(&["read_file", "terminal", "write_file"]))
        );
        assert_eq!(
            catalog.resolve("everything"),
            Ok(set(&[
                "read_file",
                "terminal",
                "todo",
                "web_extract",
                "web_search",
                "write_file"
            ]))
        );
        assert_eq!(catalog.resolve("time"), Ok(set(&["time_now"])));
        assert_eq!(catalog.resolve("all"), Ok(set(EVERY_TOOL)));
        assert_eq!(catalog.resolve("*"), Ok(set(EVERY_TOOL)));
    }

    #[test]
    fn resolve_of_an_unknown_name_suggests() {
        let fixture = Fixture::standard();
        let err = fixture.catalog().resolve("codding").unwrap_err();
        assert_eq!(
            err,
            SelectionError::UnknownToolset {
                name: "codding".into(),
                list: "requested",
                suggestions: vec!["coding".into()],
            }
        );
    }

    #[test]
    fn a_cycle_terminates_and_both_sides_resolve_to_the_union() {
        let fixture = Fixture::new([
            Composite::new("a", "A.")
                .with_tools(["todo"])
                .with_includes(["b"]),
            Composite::new("b", "B.")
                .with_tools(["terminal"])
                .with_includes(["a"]),
            Composite::new("self", "Itself.")
                .with_tools(["todo"])
                .with_includes(["self"]),
        ]);
        let catalog = fixture.catalog();
        assert_eq!(catalog.resolve("a"), Ok(set(&["terminal", "todo"])));
        assert_eq!(catalog.resolve("b"), Ok(set(&["terminal", "todo"])));
        assert_eq!(catalog.resolve("self"), Ok(set(&["todo"])));
    }

    #[test]
    fn a_diamond_resolves_each_tool_once() {
        let fixture = Fixture::new([
            Composite::new("top", "Top.").with_includes(["left", "right"]),
            Composite::new("left", "Left.").with_includes(["files"]),
            Composite::new("right", "Right.").with_includes(["files", "web"]),
        ]);
        assert_eq!(
            fixture.catalog().resolve("top"),
            Ok(set(&[
                "read_file",
                "web_extract",
                "web_search",
                "write_file"
            ]))
        );
    }

    #[test]
    fn a_composite_sharing_a_basic_name_adds_to_it() {
        let fixture = Fixture::new([Composite::new("web", "Web plus notes.").with_tools(["todo"])]);
        assert_eq!(
            fixture.catalog().resolve("web"),
            Ok(set(&["todo", "web_extract", "web_search"]))
        );
    }

    #[test]
    fn includes_may_name_aliases_and_all() {
        let fixture = Fixture::new([
            Composite::new("clock", "The clock.").with_includes(["time"]),
            Composite::new("max", "Everything.").with_includes(["all"]),
        ]);
        let catalog = fixture.catalog();
        assert_eq!(catalog.resolve("clock"), Ok(set(&["time_now"])));
        assert_eq!(catalog.resolve("max"), Ok(set(EVERY_TOOL)));
    }

    #[test]
    fn an_absent_member_resolves_to_nothing_and_validate_reports_it() {
        let fixture = Fixture::new([
            Composite::new("bad_tool", "Typo.").with_tools(["web_serch"]),
            Composite::new("bad_include", "Typo.").with_includes(["fils"]),
            Composite::new("outer", "Includes a broken one.").with_includes(["bad_tool"]),
        ]);
        let catalog = fixture.catalog();
        let member = |toolset: &str, member: &str| SelectionError::UnknownMember {
            toolset: toolset.into(),
            member: member.into(),
        };
        assert_eq!(catalog.resolve("bad_tool"), Ok(set(&[])));
        assert_eq!(catalog.resolve("bad_include"), Ok(set(&[])));
        assert_eq!(catalog.resolve("outer"), Ok(set(&[])));
        assert_eq!(
            catalog.select(&selection(&["web"], &["outer"])),
            Ok(set(&["web_extract", "web_search"]))
        );
        assert_eq!(
            catalog.validate(),
            [
                member("bad_include", "fils"),
                member("bad_tool", "web_serch")
            ]
        );
        assert_eq!(
            member("x", "y").to_string(),
            r#"composite toolset "x" lists "y", but no tool or toolset has that name; fix the composite's declaration"#
        );
    }

    #[test]
    fn validate_is_empty_for_sound_declarations() {
        assert_eq!(Fixture::standard().catalog().validate(), []);
    }

    #[test]
    fn an_alias_is_shadowed_by_a_toolset_and_dangling_aliases_are_unknown() {
        let mut fixture = Fixture::standard();
        fixture.aliases.insert("web".into(), "files".into());
        fixture.aliases.insert("gone".into(), "mcp-gone".into());
        let catalog = fixture.catalog();
        assert_eq!(
            catalog.resolve("web"),
            Ok(set(&["web_extract", "web_search"]))
        );
        assert!(matches!(
            catalog.resolve("gone"),
            Err(SelectionError::UnknownToolset { .. })
        ));
    }

    #[test]
    fn empty_enabled_selects_every_tool() {
        let fixture = Fixture::standard();
        assert_eq!(
            fixture.catalog().select(&Selection::default()),
            Ok(set(EVERY_TOOL))
        );
    }

    #[test]
    fn enabled_is_the_union_of_resolutions() {
        let fixture = Fixture::standard();
        assert_eq!(
            fixture
                .catalog()
                .select(&selection(&["coding", "time"], &[])),
            Ok(set(&["read_file", "terminal", "time_now", "write_file"]))
        );
    }

    #[test]
    fn unknown_enabled_or_disabled_names_are_errors_with_suggestions() {
        let fixture = Fixture::standard();
        let catalog = fixture.catalog();
        let err = catalog
            .select(&selection(&["web", "termnal"], &[]))
            .unwrap_err();
        assert_eq!(
            err,
            SelectionError::UnknownToolset {
                name: "termnal".into(),
                list: "enabled",
                suggestions: vec!["terminal".into()],
            }
        );
        let err = catalog.select(&selection(&[], &["tim"])).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"unknown toolset "tim" in disabled toolsets; did you mean time, mcp-time?"#
        );
        let err = catalog.select(&selection(&["zzzz"], &[])).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"unknown toolset "zzzz" in enabled toolsets"#
        );
    }

    #[test]
    fn suggestions_are_at_most_three() {
        let fixture = Fixture::new([
            Composite::new("web1", "1."),
            Composite::new("web2", "2."),
            Composite::new("web3", "3."),
        ]);
        let Err(SelectionError::UnknownToolset { suggestions, .. }) =
            fixture.catalog().resolve("wb")
        else {
            panic!("expected an unknown toolset");
        };
        assert_eq!(suggestions.len(), 3);
    }

    #[test]
    fn a_name_in_both_lists_is_an_error_even_through_an_alias() {
        let fixture = Fixture::standard();
        let catalog = fixture.catalog();
        assert_eq!(
            catalog.select(&selection(&["web"], &["web"])),
            Err(SelectionError::EnabledAndDisabled { name: "web".into() })
        );
        assert_eq!(
            catalog.select(&selection(&["time"], &["mcp-time"])),
            Err(SelectionError::EnabledAndDisabled {
                name: "mcp-time".into()
            })
        );
        assert_eq!(
            catalog.select(&selection(&["*"], &["all"])),
            Err(SelectionError::EnabledAndDisabled { name: "all".into() })
        );
    }

    #[test]
    fn disabling_a_basic_toolset_strips_it_from_an_enabled_composite() {
        let fixture = Fixture::standard();
        assert_eq!(
            fixture
                .catalog()
                .select(&selection(&["coding"], &["terminal"])),
            Ok(set(&["read_file", "write_file"]))
        );
    }

    #[test]
    fn disabling_a_composite_keeps_explicitly_enabled_basic_toolsets() {
        let fixture = Fixture::standard();
        let catalog = fixture.catalog();
        // `files` is named explicitly, so disabling `coding` (which includes it) keeps it.
        assert_eq!(
            catalog.select(&selection(&["files", "web"], &["coding"])),
            Ok(set(&[
                "read_file",
                "web_extract",
                "web_search",
                "write_file"
            ]))
        );
        // Through an alias too.
        let fixture = Fixture::new([Composite::new("clock", "C.").with_includes(["mcp-time"])]);
        assert_eq!(
            fixture.catalog().select(&selection(&["time"], &["clock"])),
            Ok(set(&["time_now"]))
        );
    }

    #[test]
    fn disabling_a_composite_removes_tools_enabled_only_through_composites() {
        let fixture = Fixture::standard();
        assert_eq!(
            fixture
                .catalog()
                .select(&selection(&["everything"], &["research"])),
            Ok(set(&["read_file", "terminal", "write_file"]))
        );
    }

    #[test]
    fn disabling_all_keeps_only_explicit_basic_toolsets() {
        let fixture = Fixture::standard();
        let catalog = fixture.catalog();
        assert_eq!(
            catalog.select(&selection(&["web", "coding"], &["all"])),
            Ok(set(&["web_extract", "web_search"]))
        );
        assert_eq!(catalog.select(&selection(&[], &["*"])), Ok(set(&[])));
    }

    #[test]
    fn enabling_all_then_disabling_subtracts() {
        let fixture = Fixture::standard();
        assert_eq!(
            fixture
                .catalog()
                .select(&selection(&["all"], &["research", "time"])),
            Ok(set(&["read_file", "terminal", "write_file"]))
        );
    }

    #[test]
    fn including_lists_every_toolset_containing_a_tool() {
        let fixture = Fixture::standard();
        let catalog = fixture.catalog();
        assert_eq!(
            catalog.including("todo"),
            ["everything", "research", "todo"]
        );
        assert_eq!(catalog.including("time_now"), ["mcp-time"]);
        assert!(catalog.including("nope").is_empty());
    }

    #[test]
    fn including_counts_composites_with_an_absent_member() {
        let fixture = Fixture::new([
            Composite::new("broken", "B.").with_tools(["todo", "missing"]),
            Composite::new("fine", "F.").with_tools(["todo"]),
        ]);
        assert_eq!(
            fixture.catalog().including("todo"),
            ["broken", "fine", "todo"]
        );
    }
}
