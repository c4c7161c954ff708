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
//!
//! The registry's lint ([`ToolRegistry::lint_selection`](crate::ToolRegistry::lint_selection))
//! adds [`Rule::StrictMode`], [`Rule::SchemaMismatch`] and [`Rule::ProviderLimit`] (the
//! [limits](crate::definitions::limits) each provider documents, over the list a selection
//! sends), and honours acknowledgements: `#[tool(acknowledge(rule = "strict-mode", reason =
//! "…"))]` accepts that rule's findings on that tool only ([`LintReport::acknowledged`], shown
//! by `lint --all`); an acknowledgement that matches nothing is a
//! [`Rule::StaleAcknowledgement`].
//!
//! # Example
//!
//! ```
//! use hermes_tools::definitions::lint::{LintTool, Rule, lint};
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

mod arguments;
mod report;

pub use report::{Acknowledged, LintReport};

use std::collections::{BTreeSet, HashMap};
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
    /// The parameters can be expressed in OpenAI strict mode; a tool whose parameters cannot
    /// (a free-form object, a value of any type) is published there with `"strict": false`.
    StrictMode,
    /// The argument type accepts what the schema shown to the model says: an example the
    /// schema admits must deserialize (a serde attribute schemars does not mirror, such as
    /// `deserialize_with` or `rename_all` on one side only, breaks this).
    SchemaMismatch,
    /// The list a selection sends is within every limit its providers document (tools per
    /// request, name and description lengths, strict mode's sizes, Gemini's keywords): see
    /// [`limits`](crate::definitions::limits).
    ProviderLimit,
    /// An acknowledgement matches a finding: one whose rule no longer fires on its tool, or
    /// names no rule, is reported so that it does not outlive its use. It cannot itself be
    /// acknowledged.
    StaleAcknowledgement,
}

impl Rule {
    /// Every rule, in order.
    pub const ALL: [Rule; 8] = [
        Rule::Summary,
        Rule::ParameterDescription,
        Rule::CrossToolsetReference,
        Rule::Placeholder,
        Rule::StrictMode,
        Rule::SchemaMismatch,
        Rule::ProviderLimit,
        Rule::StaleAcknowledgement,
    ];

    /// Whether a tool may acknowledge the rule's findings (all but
    /// [`StaleAcknowledgement`](Rule::StaleAcknowledgement)).
    pub fn can_be_acknowledged(self) -> bool {
        self != Rule::StaleAcknowledgement
    }

    /// The rule's name in findings: `summary`, `parameter-description`,
    /// `cross-toolset-reference`, `placeholder`, `strict-mode`, `schema-mismatch`,
    /// `provider-limit` or `stale-acknowledgement`.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Summary => "summary",
            Rule::ParameterDescription => "parameter-description",
            Rule::CrossToolsetReference => "cross-toolset-reference",
            Rule::Placeholder => "placeholder",
            Rule::StrictMode => "strict-mode",
            Rule::SchemaMismatch => "schema-mismatch",
            Rule::ProviderLimit => "provider-limit",
            Rule::StaleAcknowledgement => "stale-acknowledgement",
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
    sort(&mut findings);
    findings
}

/// Stable: findings of one tool and rule keep the order they were found in.
fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        location_key(&a.location)
            .cmp(&location_key(&b.location))
            .then_with(|| a.tool.cmp(&b.tool))
            .then(a.rule.cmp(&b.rule))
    });
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

/// The tool names a description may mention, indexed by their lowercased spelling.
///
/// A description is read once, word by word, and each word looked up: the cost of the rule is
/// the length of the descriptions, however many tools there are (testing every name's pattern
/// against every description would grow with the square of the tools).
struct Mentions<'t> {
    /// Lowercased name to the tools of that name (one per toolset).
    names: HashMap<String, Vec<(&'t str, &'t str)>>,
    /// Names with characters outside `[\w-]` (only the pure [`lint`] can be given them: the
    /// registry refuses such names): matched by a pattern of their own.
    odd: Vec<(&'t str, &'t str, Regex)>,
}

/// A maximal run of word characters and `-`: how a name stands "as a whole word".
static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[\w-]+").expect("a valid pattern"));
/// What makes a plain name after it a tool's: whitespace, then "tool" or "tools".
static TOOL_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\s+tools?\b").expect("a valid pattern"));

impl<'t> Mentions<'t> {
    fn new(tools: &[LintTool<'t>]) -> Self {
        let mut names: HashMap<String, Vec<(&'t str, &'t str)>> = HashMap::new();
        let mut odd = Vec::new();
        for tool in tools {
            if WORD
                .find(tool.name)
                .is_some_and(|word| word.len() == tool.name.len())
            {
                let spellings = names.entry(tool.name.to_lowercase()).or_default();
                spellings.push((tool.name, tool.toolset));
            } else if let Some(pattern) = mention_pattern(tool.name) {
                odd.push((tool.name, tool.toolset, pattern));
            }
        }
        Self { names, odd }
    }

    /// One message per tool of another toolset that `tool`'s description names, in name
    /// then toolset order.
    fn check(&self, tool: &LintTool<'_>) -> Vec<String> {
        let text = tool.description;
        let mut named: BTreeSet<(&str, &str)> = BTreeSet::new();
        let mut lookup = |word: &str, plain_only: bool, tool_follows: bool| {
            for &(name, toolset) in self.names.get(&word.to_lowercase()).into_iter().flatten() {
                let plain = !name.contains(['_', '-']);
                if (plain && (plain_only || tool_follows)) || (!plain && !plain_only) {
                    named.insert((name, toolset));
                }
            }
        };
        for word in WORD.find_iter(text) {
            lookup(
                word.as_str(),
                false,
                TOOL_WORD.is_match(&text[word.end()..]),
            );
        }
        // A plain name counts between backticks: every span from one backtick to the next.
        let ticks: Vec<usize> = text.match_indices('`').map(|(at, _)| at).collect();
        for pair in ticks.windows(2) {
            lookup(&text[pair[0] + 1..pair[1]], true, false);
        }
        for (name, toolset, pattern) in &self.odd {
            if pattern.is_match(text) {
                named.insert((name, toolset));
            }
        }
        let own_parameters = tool.parameters.get("properties").and_then(Value::as_object);
        named
            .into_iter()
            .filter(|&(name, toolset)| toolset != tool.toolset && name != tool.name)
            .filter(|&(name, _)| own_parameters.is_none_or(|props| !props.contains_key(name)))
            .map(|(name, toolset)| {
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

#[cfg(test)]
mod tests;
