//! Description lint: the rules of good tool descriptions, checked over a whole registry, for CI.
//!
//! The model chooses and calls tools from their descriptions alone, so a vague summary, an
//! undocumented parameter or a pointer to a tool that may be absent costs calls. [`lint`]
//! checks every tool against each [`Rule`] and returns [`Finding`]s that say what to fix. It
//! is pure: the caller builds one [`LintTool`] per registered tool (name, toolset, static
//! description, parameter schema, and `file:line` from its provenance).
//!
//! # Rules
//!
//! * [`Rule::Summary`]: the summary is the text up to the first sentence end (`.`, `!` or `?`
//!   followed by whitespace, not after `e.g.`, `i.e.`, `vs.` or `cf.`) or else the end of the
//!   first paragraph. It must be at most 120 characters and at least 3 words (fewer is a
//!   label, such as "Web search", not a sentence saying what the tool does). Not checked
//!   when the description is wholly a placeholder: that finding says it all.
//! * [`Rule::ParameterDescription`]: every property of `parameters["properties"]` has a
//!   description that is neither blank nor a placeholder. A `$ref` property (directly, or in
//!   `allOf`/`anyOf`/`oneOf` as schemars writes `Option<Struct>`) may instead take it from
//!   the referenced definition. Fields nested inside a property's own schema are out of
//!   scope: the model reads them from the property's description.
//! * [`Rule::CrossToolsetReference`]: a static description must not name a tool of another
//!   toolset, which may not be present; such a reference belongs in a `dynamic_schema`
//!   override that can check (static descriptions only are linted). To keep ordinary words
//!   from matching, a name containing `_` or `-` (`web_search`) counts wherever it stands as
//!   a whole word, while a plain name (`todo`, `terminal`) counts only in backticks
//!   (`` `todo` ``) or followed by "tool" ("the todo tool"). Matching ignores case. A name
//!   that is also one of the tool's own parameters is skipped: it names the parameter.
//! * [`Rule::Placeholder`]: the description is not empty, not a placeholder (`TODO`, `TBD`,
//!   `FIXME`, `XXX` in capitals anywhere, "lorem ipsum" anywhere, or wholly "description",
//!   "...", "n/a" and the like), and not marketing alone: when "powerful", "the best",
//!   "seamless"… are struck out, at least 3 concrete words must remain.
//!
//! # Example
//!
//! ```
//! use hermes_tools::lint::{LintTool, Rule, lint};
//! use serde_json::json;
//!
//! let parameters = json!({"type": "object", "properties": {"query": {"type": "string"}}});
//! let tools = [LintTool {
//!     name: "web_search",
//!     toolset: "web",
//!     description: "Web search.",
//!     parameters: &parameters,
//!     location: "src/web.rs:12".into(),
//! }];
//! let findings = lint(&tools);
//! assert_eq!(
//!     findings.iter().map(|finding| finding.rule).collect::<Vec<_>>(),
//!     [Rule::Summary, Rule::ParameterDescription]
//! );
//! assert!(findings[0].to_string().starts_with("src/web.rs:12: tool `web_search` [summary]: "));
//! ```

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// The longest summary, in characters.
const MAX_SUMMARY_CHARS: usize = 120;
/// The fewest words of a summary that is a sentence rather than a label.
const MIN_SUMMARY_WORDS: usize = 3;
/// The fewest concrete words a description with marketing in it must keep.
const MIN_CONCRETE_WORDS: usize = 3;

/// Abbreviations whose period does not end a sentence.
const ABBREVIATIONS: &[&str] = &["e.g.", "i.e.", "vs.", "cf."];
/// Whole texts (lowercased, end punctuation stripped) that are placeholders.
const WHOLE_PLACEHOLDERS: &[&str] = &[
    "description",
    "tool description",
    "a description",
    "no description",
    "placeholder",
    "todo",
    "tbd",
    "fixme",
    "xxx",
    "n/a",
    "na",
    "none",
    "tool",
];
/// Markers of unfinished text, matched in capitals as whole words anywhere.
const MARKERS: &[&str] = &["TODO", "TBD", "FIXME", "XXX"];
/// Praise that says nothing about what a tool does.
const MARKETING: &[&str] = &[
    "the best",
    "best-in-class",
    "powerful",
    "amazing",
    "revolutionary",
    "blazing fast",
    "blazingly fast",
    "world-class",
    "world class",
    "seamless",
    "seamlessly",
    "cutting-edge",
    "state-of-the-art",
    "game-changing",
    "incredible",
];
/// Words that carry nothing concrete once marketing is struck out.
const FILLER: &[&str] = &[
    "a",
    "an",
    "the",
    "and",
    "or",
    "of",
    "for",
    "to",
    "with",
    "in",
    "on",
    "at",
    "by",
    "is",
    "are",
    "it",
    "its",
    "this",
    "that",
    "your",
    "you",
    "our",
    "we",
    "ever",
    "most",
    "more",
    "very",
    "really",
    "truly",
    "super",
    "ultimate",
    "best",
    "fast",
    "easy",
    "simple",
    "smart",
    "tool",
    "tools",
    "solution",
    "experience",
    "everything",
    "anything",
    "all",
    "any",
    "way",
];

/// A rule of good descriptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// A description starts with a one-sentence summary of what the tool does, within 120
    /// characters.
    Summary,
    /// Every parameter has a description.
    ParameterDescription,
    /// A static description never names a tool of another toolset: the model must not be
    /// pointed at a tool that may not be present; such references belong in a dynamic override.
    CrossToolsetReference,
    /// No empty, placeholder or marketing-only description.
    Placeholder,
}

impl Rule {
    /// The rule's name in findings: `summary`, `parameter-description`,
    /// `cross-toolset-reference` or `placeholder`.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Summary => "summary",
            Rule::ParameterDescription => "parameter-description",
            Rule::CrossToolsetReference => "cross-toolset-reference",
            Rule::Placeholder => "placeholder",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One tool as the lint sees it.
#[derive(Debug, Clone)]
pub struct LintTool<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// Its toolset.
    pub toolset: &'a str,
    /// Its static description.
    pub description: &'a str,
    /// The JSON Schema of its parameters.
    pub parameters: &'a Value,
    /// Where it is declared, as `file:line`.
    pub location: String,
}

/// A broken rule, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The tool at fault.
    pub tool: String,
    /// The rule it breaks.
    pub rule: Rule,
    /// What is wrong and what to fix.
    pub message: String,
    /// Where the tool is declared, as `file:line`.
    pub location: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: tool `{}` [{}]: {}",
            self.location, self.tool, self.rule, self.message
        )
    }
}

/// Checks every tool against every [`Rule`]; findings are sorted by location (file, then line
/// as a number), then tool, then rule, and otherwise keep schema order.
pub fn lint(tools: &[LintTool<'_>]) -> Vec<Finding> {
    let mentions = Mentions::new(tools);
    let mut findings = Vec::new();
    for tool in tools {
        let placeholder = check_placeholder(tool.description);
        let wholly_placeholder = placeholder.as_ref().is_some_and(|p| p.whole);
        if let Some(placeholder) = placeholder {
            findings.push(finding(tool, Rule::Placeholder, placeholder.message));
        }
        if !wholly_placeholder && let Some(message) = check_summary(tool.description) {
            findings.push(finding(tool, Rule::Summary, message));
        }
        findings.extend(
            check_parameters(tool.parameters)
                .into_iter()
                .map(|message| finding(tool, Rule::ParameterDescription, message)),
        );
        findings.extend(
            mentions
                .check(tool)
                .into_iter()
                .map(|message| finding(tool, Rule::CrossToolsetReference, message)),
        );
    }
    // Stable: findings of one tool and rule keep the order they were found in.
    findings.sort_by(|a, b| {
        location_key(&a.location)
            .cmp(&location_key(&b.location))
            .then_with(|| a.tool.cmp(&b.tool))
            .then(a.rule.cmp(&b.rule))
    });
    findings
}

fn finding(tool: &LintTool<'_>, rule: Rule, message: String) -> Finding {
    Finding {
        tool: tool.name.to_owned(),
        rule,
        message,
        location: tool.location.clone(),
    }
}

/// `file:line` as (file, line), so that line 9 sorts before line 12.
fn location_key(location: &str) -> (&str, u64) {
    location
        .rsplit_once(':')
        .and_then(|(file, line)| Some((file, line.parse().ok()?)))
        .unwrap_or((location, 0))
}

// ---------------------------------------------------------------------------------------------
// Summary

fn check_summary(description: &str) -> Option<String> {
    let summary = summary(description);
    let chars = summary.chars().count();
    if chars > MAX_SUMMARY_CHARS {
        return Some(format!(
            "the summary (the first sentence) is {chars} characters; cut it to \
             {MAX_SUMMARY_CHARS} or fewer and move the details to later sentences"
        ));
    }
    let words = summary
        .split_whitespace()
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .count();
    (words < MIN_SUMMARY_WORDS).then(|| {
        format!(
            "the summary {summary:?} is a fragment; start with a sentence of at least \
             {MIN_SUMMARY_WORDS} words saying what the tool does"
        )
    })
}

/// The first sentence of the first paragraph, or the whole first paragraph.
fn summary(description: &str) -> &str {
    let paragraph = first_paragraph(description);
    let mut chars = paragraph.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let ends_sentence = chars.peek().is_none_or(|&(_, next)| next.is_whitespace());
        let sentence = paragraph.get(..at + c.len_utf8()).unwrap_or(paragraph);
        if ends_sentence && !ends_with_abbreviation(sentence) {
            return sentence;
        }
    }
    paragraph
}

fn first_paragraph(description: &str) -> &str {
    let text = description.trim_start();
    let mut end = 0;
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            break;
        }
        end += line.len();
    }
    text.get(..end).unwrap_or(text).trim_end()
}

fn ends_with_abbreviation(sentence: &str) -> bool {
    let last_word = sentence.rsplit(char::is_whitespace).next().unwrap_or("");
    let last_word = last_word.trim_start_matches(|c: char| !c.is_alphanumeric());
    ABBREVIATIONS
        .iter()
        .any(|abbreviation| last_word.eq_ignore_ascii_case(abbreviation))
}

// ---------------------------------------------------------------------------------------------
// Placeholder

/// A placeholder finding; `whole` when the description says nothing at all.
struct Placeholder {
    message: String,
    whole: bool,
}

fn check_placeholder(description: &str) -> Option<Placeholder> {
    let text = description.trim();
    if text.is_empty() {
        return Some(Placeholder {
            message: "the description is empty; write a one-sentence summary of what the tool \
                      does, then how to use it"
                .to_owned(),
            whole: true,
        });
    }
    if let Some(found) = placeholder_in(text) {
        let whole = is_whole_placeholder(text);
        let message = if whole {
            format!("the description is the placeholder {found:?}; write what the tool does")
        } else {
            format!(
                "the description contains the placeholder {found:?}; finish the text and remove it"
            )
        };
        return Some(Placeholder { message, whole });
    }
    marketing_only(text).map(|praise| Placeholder {
        message: format!(
            "the description is marketing ({}) with nothing concrete; say what the tool does, \
             what it takes and what it returns",
            praise.join(", ")
        ),
        whole: true,
    })
}

/// The placeholder in `text`, if any: the whole text, a capitalised marker, or lorem ipsum.
fn placeholder_in(text: &str) -> Option<String> {
    if is_whole_placeholder(text) {
        return Some(text.trim().to_owned());
    }
    // A quoted marker is an example of text (a search pattern 'TODO'), not a placeholder.
    let marker = text
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')'))
        .filter(|word| !is_quoted(word))
        .flat_map(|word| word.split(|c: char| !c.is_alphanumeric()))
        .find(|word| MARKERS.contains(word));
    if let Some(marker) = marker {
        return Some(marker.to_owned());
    }
    text.to_lowercase()
        .contains("lorem ipsum")
        .then(|| "lorem ipsum".to_owned())
}

/// Whether `word` stands in quotes or backticks (trailing punctuation aside).
fn is_quoted(word: &str) -> bool {
    let word = word.trim_end_matches(['.', ':', '!', '?']);
    ["'", "\"", "`"].iter().any(|quote| {
        word.len() > 2 * quote.len() && word.starts_with(quote) && word.ends_with(quote)
    })
}

/// Whether `text` as a whole is a placeholder ("TODO.", "...", "Description").
fn is_whole_placeholder(text: &str) -> bool {
    let core = text
        .trim()
        .trim_end_matches(['.', '…', '!', '?', ':'])
        .trim()
        .to_lowercase();
    core.is_empty() || WHOLE_PLACEHOLDERS.contains(&core.as_str())
}

/// Any marketing phrase, as a whole word, ignoring case; compiled once.
static MARKETING_PATTERN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    let phrases: Vec<String> = MARKETING
        .iter()
        .map(|phrase| regex::escape(phrase))
        .collect();
    Regex::new(&format!(r"(?i)\b(?:{})\b", phrases.join("|"))).ok()
});

/// The marketing phrases of `text`, when fewer than three concrete words remain without them.
fn marketing_only(text: &str) -> Option<Vec<String>> {
    let pattern = MARKETING_PATTERN.as_ref()?;
    let mut praise: Vec<String> = Vec::new();
    for found in pattern.find_iter(text) {
        let phrase = found.as_str().to_lowercase();
        if !praise.contains(&phrase) {
            praise.push(phrase);
        }
    }
    if praise.is_empty() {
        return None;
    }
    let rest = pattern.replace_all(text, " ").to_lowercase();
    let concrete = rest
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty() && !FILLER.contains(word))
        .count();
    (concrete < MIN_CONCRETE_WORDS).then_some(praise)
}

// ---------------------------------------------------------------------------------------------
// Parameter descriptions

/// One message per property of `parameters` whose description is missing or a placeholder.
fn check_parameters(parameters: &Value) -> Vec<String> {
    let Some(properties) = parameters.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .filter_map(
            |(name, schema)| match parameter_description(parameters, schema) {
                None => Some(format!(
                    "parameter `{name}` has no description; say what the value means (for \
                 `#[tool]`, a `* `{name}` - …` line under `# Arguments`, or a doc comment on \
                 the field)"
                )),
                Some(text) => placeholder_in(text).map(|found| {
                    format!(
                        "parameter `{name}` has the placeholder description {found:?}; say what \
                     the value means"
                    )
                }),
            },
        )
        .collect()
}

/// The property's own description, else one on a definition it references.
fn parameter_description<'v>(root: &'v Value, schema: &'v Value) -> Option<&'v str> {
    description_of(schema).or_else(|| {
        references(schema)
            .filter_map(|reference| root.pointer(reference.strip_prefix('#')?))
            .find_map(description_of)
    })
}

fn description_of(schema: &Value) -> Option<&str> {
    schema
        .get("description")
        .and_then(Value::as_str)
        .filter(|text| !text.trim().is_empty())
}

/// The local `$ref`s of a property: its own, and those of its `allOf`/`anyOf`/`oneOf` branches.
fn references(schema: &Value) -> impl Iterator<Item = &str> {
    let branches = ["allOf", "anyOf", "oneOf"]
        .into_iter()
        .filter_map(|key| schema.get(key).and_then(Value::as_array))
        .flatten();
    std::iter::once(schema)
        .chain(branches)
        .filter_map(|branch| branch.get("$ref").and_then(Value::as_str))
}

// ---------------------------------------------------------------------------------------------
// Cross-toolset references

/// A pattern per tool name, compiled once for the whole lint.
struct Mentions<'t> {
    patterns: Vec<(&'t str, &'t str, Regex)>,
}

impl<'t> Mentions<'t> {
    fn new(tools: &[LintTool<'t>]) -> Self {
        let mut patterns: Vec<_> = tools
            .iter()
            .filter_map(|tool| Some((tool.name, tool.toolset, mention_pattern(tool.name)?)))
            .collect();
        patterns.sort_by_key(|&(name, toolset, _)| (name, toolset));
        Self { patterns }
    }

    /// One message per tool of another toolset that `tool`'s description names.
    fn check(&self, tool: &LintTool<'_>) -> Vec<String> {
        let own_parameters = tool.parameters.get("properties").and_then(Value::as_object);
        self.patterns
            .iter()
            .filter(|&&(name, toolset, _)| toolset != tool.toolset && name != tool.name)
            .filter(|&&(name, _, _)| own_parameters.is_none_or(|props| !props.contains_key(name)))
            .filter(|(_, _, pattern)| pattern.is_match(tool.description))
            .map(|&(name, toolset, _)| {
                format!(
                    "the description names `{name}` of toolset `{toolset}`, which may not be \
                     present; remove the reference, or move it into a `dynamic_schema` override \
                     that checks the tool is there"
                )
            })
            .collect()
    }
}

/// How a description names the tool `name` (see the [module docs](self)).
fn mention_pattern(name: &str) -> Option<Regex> {
    let escaped = regex::escape(name);
    // `\w` and `-` around the name: `web_search_v2` and `web-search-x` are other words.
    let pattern = if name.contains(['_', '-']) {
        format!(r"(?i)(?:^|[^\w-]){escaped}(?:$|[^\w-])")
    } else {
        format!(r"(?i)`{escaped}`|(?:^|[^\w-]){escaped}\s+tools?\b")
    };
    Regex::new(&pattern).ok()
}

impl crate::ToolRegistry {
    /// Lints every registered tool ([`lint`]); empty means clean.
    ///
    /// A crate's own test can assert that its tools are clean:
    ///
    /// ```
    /// let findings = hermes_tools::ToolRegistry::global().lint();
    /// assert!(findings.is_empty(), "{findings:#?}");
    /// ```
    pub fn lint(&self) -> Vec<Finding> {
        let snapshot = self.snapshot();
        let tools: Vec<LintTool<'_>> = snapshot
            .tools()
            .map(|tool| LintTool {
                name: tool.name(),
                toolset: tool.toolset(),
                description: tool.description(),
                parameters: tool.parameters(),
                location: tool.provenance().location(),
            })
            .collect();
        lint(&tools)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const GOOD: &str = "Search the web for pages matching a query.\n\nReturns titles and links.";

    fn params() -> Value {
        json!({"type": "object", "properties": {"query": {"type": "string", "description": "What to look for."}}})
    }

    fn tool<'a>(
        name: &'a str,
        toolset: &'a str,
        description: &'a str,
        parameters: &'a Value,
    ) -> LintTool<'a> {
        LintTool {
            name,
            toolset,
            description,
            parameters,
            location: format!("src/{toolset}.rs:10"),
        }
    }

    /// (rule, message) of each finding for one tool.
    fn lint_one(description: &str, parameters: &Value) -> Vec<(Rule, String)> {
        lint(&[tool("web_search", "web", description, parameters)])
            .into_iter()
            .map(|finding| (finding.rule, finding.message))
            .collect()
    }

    fn rules(description: &str) -> Vec<Rule> {
        lint_one(description, &params())
            .into_iter()
            .map(|(rule, _)| rule)
            .collect()
    }

    #[test]
    fn rule_names() {
        let names: Vec<_> = [
            Rule::Summary,
            Rule::ParameterDescription,
            Rule::CrossToolsetReference,
            Rule::Placeholder,
        ]
        .map(Rule::as_str)
        .into();
        assert_eq!(
            names,
            [
                "summary",
                "parameter-description",
                "cross-toolset-reference",
                "placeholder"
            ]
        );
    }

    #[test]
    fn a_good_tool_has_no_findings() {
        assert_eq!(lint_one(GOOD, &params()), []);
    }

    #[test]
    fn summary_is_the_first_sentence_or_paragraph() {
        assert_eq!(summary("Read a file. Then more."), "Read a file.");
        assert_eq!(summary("Is it there? Yes."), "Is it there?");
        assert_eq!(summary("Run it!\nNow."), "Run it!");
        assert_eq!(
            summary("  Read a file\nline two\n\nMore."),
            "Read a file\nline two"
        );
        assert_eq!(
            summary("Read v1.5 files, e.g. logs. More."),
            "Read v1.5 files, e.g. logs."
        );
        assert_eq!(summary("Wait... then go."), "Wait...");
    }

    #[test]
    fn a_long_summary_is_a_finding() {
        let long = format!(
            "Search {} for pages. Short second sentence.",
            "the web ".repeat(20)
        );
        assert_eq!(
            lint_one(&long, &params()),
            [(
                Rule::Summary,
                "the summary (the first sentence) is 178 characters; cut it to 120 or fewer \
                 and move the details to later sentences"
                    .to_owned()
            )]
        );
        let exactly = format!("{}.", "a".repeat(119));
        assert_eq!(
            check_summary(&exactly).map(|m| m.contains("fragment")),
            Some(true)
        );
        let long_tail = format!("Search the web for pages. {}", "x ".repeat(200));
        assert_eq!(check_summary(&long_tail), None);
    }

    #[test]
    fn a_fragment_summary_is_a_finding() {
        assert_eq!(
            lint_one("Web search.\n\nFinds pages on the web by query.", &params()),
            [(
                Rule::Summary,
                "the summary \"Web search.\" is a fragment; start with a sentence of at least 3 \
                 words saying what the tool does"
                    .to_owned()
            )]
        );
        assert_eq!(rules("Search the web."), []);
    }

    #[test]
    fn empty_and_placeholder_descriptions() {
        assert_eq!(
            lint_one("  \n ", &params()),
            [(
                Rule::Placeholder,
                "the description is empty; write a one-sentence summary of what the tool does, \
                 then how to use it"
                    .to_owned()
            )]
        );
        let quoted = lint(&[tool(
            "search",
            "files",
            "Search files for a pattern such as 'TODO' or `FIXME`, listing matching lines.",
            &json!({"type": "object", "properties": {}}),
        )]);
        assert_eq!(quoted, [], "quoted markers are examples, not placeholders");
        for whole in ["TODO", "tbd.", "Description", "...", "…", "XXX", "n/a"] {
            assert_eq!(rules(whole), [Rule::Placeholder], "{whole:?}");
        }
        assert_eq!(
            lint_one("FIXME", &params()),
            [(
                Rule::Placeholder,
                "the description is the placeholder \"FIXME\"; write what the tool does".to_owned()
            )]
        );
    }

    #[test]
    fn a_marker_inside_real_text_is_a_finding_but_the_summary_is_still_checked() {
        assert_eq!(
            lint_one(
                "Search the web for pages. TODO: document limits.",
                &params()
            ),
            [(
                Rule::Placeholder,
                "the description contains the placeholder \"TODO\"; finish the text and remove it"
                    .to_owned()
            )]
        );
        assert_eq!(rules("Lorem ipsum dolor sit amet."), [Rule::Placeholder]);
        assert_eq!(
            rules("Web. Lorem Ipsum."),
            [Rule::Summary, Rule::Placeholder]
        );
        // Lowercase "todo" is a word, not a marker.
        assert_eq!(rules("Add an item to the todo list."), []);
    }

    #[test]
    fn marketing_only_descriptions() {
        assert_eq!(
            lint_one("The most powerful and amazing tool ever!", &params()),
            [(
                Rule::Placeholder,
                "the description is marketing (powerful, amazing) with nothing concrete; say \
                 what the tool does, what it takes and what it returns"
                    .to_owned()
            )]
        );
        assert_eq!(
            rules("Seamless, blazing fast, world-class search."),
            [Rule::Placeholder]
        );
        assert_eq!(
            rules("The best revolutionary file reader."),
            [Rule::Placeholder]
        );
        assert_eq!(
            rules("A powerful tool to search the web and rank the pages."),
            []
        );
    }

    #[test]
    fn every_parameter_needs_a_description() {
        let parameters = json!({"type": "object", "properties": {
            "query": {"type": "string", "description": "What to look for."},
            "limit": {"type": "integer"},
            "lang": {"type": "string", "description": "  "},
            "site": {"type": "string", "description": "TBD"},
        }});
        assert_eq!(
            lint_one(GOOD, &parameters),
            [
                (
                    Rule::ParameterDescription,
                    "parameter `limit` has no description; say what the value means (for \
                     `#[tool]`, a `* `limit` - …` line under `# Arguments`, or a doc comment on \
                     the field)"
                        .to_owned()
                ),
                (
                    Rule::ParameterDescription,
                    "parameter `lang` has no description; say what the value means (for \
                     `#[tool]`, a `* `lang` - …` line under `# Arguments`, or a doc comment on \
                     the field)"
                        .to_owned()
                ),
                (
                    Rule::ParameterDescription,
                    "parameter `site` has the placeholder description \"TBD\"; say what the \
                     value means"
                        .to_owned()
                ),
            ]
        );
    }

    #[test]
    fn a_ref_parameter_may_be_described_on_its_definition() {
        let parameters = json!({
            "type": "object",
            "properties": {
                "on_property": {"$ref": "#/$defs/Bare", "description": "Described here."},
                "on_definition": {"$ref": "#/$defs/Documented"},
                "optional": {"anyOf": [{"$ref": "#/$defs/Documented"}, {"type": "null"}]},
                "undocumented": {"$ref": "#/$defs/Bare"},
                "dangling": {"$ref": "#/$defs/Missing"},
            },
            "$defs": {
                "Bare": {"type": "object", "properties": {"x": {"type": "string"}}},
                "Documented": {"type": "object", "description": "A documented struct."},
            }
        });
        let findings: Vec<_> = check_parameters(&parameters)
            .into_iter()
            .map(|message| message.split(' ').take(2).collect::<Vec<_>>().join(" "))
            .collect();
        // `Bare.x` is a nested field: out of scope.
        assert_eq!(
            findings,
            ["parameter `undocumented`", "parameter `dangling`"]
        );
    }

    #[test]
    fn schemas_without_properties_are_fine() {
        assert_eq!(
            check_parameters(&json!({"type": "object"})),
            Vec::<String>::new()
        );
        assert_eq!(check_parameters(&json!(true)), Vec::<String>::new());
    }

    fn cross(description: &str) -> Vec<String> {
        let empty =
            json!({"type": "object", "properties": {"file_glob": {"description": "Glob."}}});
        let tools = [
            tool("search_files", "files", description, &empty),
            tool(
                "read_file",
                "files",
                "Read a text file from the workspace.",
                &empty,
            ),
            tool("web_search", "web", "Search the web for pages.", &empty),
            tool(
                "terminal",
                "terminal",
                "Run a shell command in the workspace.",
                &empty,
            ),
            tool(
                "todo",
                "todo",
                "Manage the task list of the session.",
                &empty,
            ),
            tool(
                "file_glob",
                "globs",
                "Expand a glob into matching paths.",
                &empty,
            ),
        ];
        lint(&tools)
            .into_iter()
            .filter(|finding| finding.rule == Rule::CrossToolsetReference)
            .map(|finding| finding.message)
            .collect()
    }

    fn named(descriptions: &[String]) -> Vec<&str> {
        descriptions
            .iter()
            .filter_map(|message| message.split('`').nth(1))
            .collect()
    }

    #[test]
    fn cross_toolset_references_are_findings() {
        let found = cross("Search files; for the internet use web_search, or the `todo` list.");
        assert_eq!(
            found.first().map(String::as_str),
            Some(
                "the description names `todo` of toolset `todo`, which may not be present; \
                 remove the reference, or move it into a `dynamic_schema` override that checks \
                 the tool is there"
            )
        );
        assert_eq!(named(&found), ["todo", "web_search"]);
        assert_eq!(
            named(&cross("Search files. Prefer this to the Terminal tool.")),
            ["terminal"]
        );
        assert_eq!(
            named(&cross("Search files (see `terminal`).")),
            ["terminal"]
        );
    }

    #[test]
    fn ordinary_words_same_toolset_and_own_parameters_are_not_references() {
        // Plain names as ordinary words; a same-toolset tool; a longer identifier; a parameter.
        let description = "Search files instead of grep in the terminal, then read_file each \
                           match; add a todo item. See web_search_v2 and `file_glob`.";
        assert_eq!(cross(description), Vec::<String>::new());
    }

    #[test]
    fn findings_are_sorted_by_file_then_numeric_line_then_tool_then_rule() {
        let parameters = json!({"type": "object", "properties": {"q": {}}});
        let mut late = tool("b", "x", "", &parameters);
        late.location = "src/a.rs:12".into();
        let mut early = tool("c", "x", "Ok", &parameters);
        early.location = "src/a.rs:9".into();
        let mut same_line = tool("a", "x", "TODO", &parameters);
        same_line.location = "src/a.rs:12".into();
        let order: Vec<_> = lint(&[late, early, same_line])
            .into_iter()
            .map(|finding| format!("{} {} {}", finding.location, finding.tool, finding.rule))
            .collect();
        assert_eq!(
            order,
            [
                "src/a.rs:9 c summary",
                "src/a.rs:9 c parameter-description",
                "src/a.rs:12 a parameter-description",
                "src/a.rs:12 a placeholder",
                "src/a.rs:12 b parameter-description",
                "src/a.rs:12 b placeholder",
            ]
        );
    }

    #[test]
    fn finding_display() {
        let finding = Finding {
            tool: "x".into(),
            rule: Rule::Summary,
            message: "fix it".into(),
            location: "src/tools.rs:12".into(),
        };
        assert_eq!(
            finding.to_string(),
            "src/tools.rs:12: tool `x` [summary]: fix it"
        );
    }
}
