//! Runs the catalogue over a text: the prefilter, each rule's matches, and the merged masks.
//!
//! 1. **Prefilter** (the `prefilter` module): which rules can match at all. None: the text is
//!    returned borrowed.
//! 2. **Matches.** Each candidate rule's pattern runs over the *original* text; a match is
//!    checked (its edges, the look of its secret, its key) and becomes a span, or is rejected
//!    and the search resumes just past what can no longer start a match. Rules never see one
//!    another's output, so a masked secret can not hide or create another match.
//! 3. **Masks.** Spans are sorted; overlapping ones merge into one span masked the strictest way
//!    (a label over `***` over a partial mask), so `password=sk-…` is `password=***`. Touching
//!    spans stay separate: two keys side by side are two masks.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{LazyLock, OnceLock};

use regex::{Captures, Regex};

use super::catalogue::{Edge, Looks, Mask, Part, RULES, Rule};
use super::keys;
use super::pem;
use super::prefilter::Candidates;
use super::yaml;

/// Each rule's compiled pattern, compiled the first time a text may need it.
static COMPILED: [OnceLock<Regex>; RULES.len()] = [const { OnceLock::new() }; RULES.len()];

fn compiled(rule: usize) -> &'static Regex {
    COMPILED[rule].get_or_init(|| {
        let rule = &RULES[rule];
        // The patterns are constants of the catalogue, covered by its tests.
        Regex::new(rule.pattern)
            .unwrap_or_else(|err| panic!("invalid built-in pattern of {}: {err}", rule.name))
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    Partial,
    Full,
    Label,
}

fn strength(mask: Mask) -> Strength {
    match mask {
        Mask::Partial => Strength::Partial,
        Mask::Full => Strength::Full,
        Mask::Label(_) => Strength::Label,
    }
}

#[derive(Debug)]
struct Span {
    range: Range<usize>,
    mask: Mask,
}

/// Redacts `text` given the rules the prefilter let through.
pub(super) fn redact_with<'t>(text: &'t str, candidates: &Candidates) -> Cow<'t, str> {
    let mut spans = Vec::new();
    for rule in candidates.rules() {
        scan(&RULES[rule], compiled(rule), text, &mut spans);
    }
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(apply(text, spans))
}

/// What became of one match.
enum Verdict {
    /// This part is a secret.
    Secret(Range<usize>),
    /// Not a secret; search again from here (always past the match's start).
    Resume(usize),
}

fn next_char(text: &str, at: usize) -> usize {
    text[at..]
        .chars()
        .next()
        .map_or(at + 1, |c| at + c.len_utf8())
}

fn built_in(pattern: &str) -> Regex {
    // The patterns are constants of the catalogue, covered by its tests.
    Regex::new(pattern).unwrap_or_else(|err| panic!("invalid built-in pattern {pattern}: {err}"))
}

/// Finds every secret of one rule, adjacent, repeated or not.
fn scan(rule: &Rule, re: &Regex, text: &str, spans: &mut Vec<Span>) {
    let mut at = 0;
    let mut no_end_after = None;
    while at <= text.len() {
        let Some(caps) = re.captures_at(text, at) else {
            break;
        };
        let mut whole = caps.get(0).map_or(at..at, |m| m.range());
        if rule.part == Part::Pem {
            whole.end = pem::block_end(text, whole.end, &mut no_end_after);
        }
        let verdict = judge(rule, &caps, text, whole.clone());
        at = match verdict {
            Verdict::Secret(range) => {
                let resume = range.end;
                if !range.is_empty() && !keys::is_mask(&text[range.clone()]) {
                    spans.push(Span {
                        range,
                        mask: rule.mask,
                    });
                }
                resume.max(whole.end).max(next_char(text, whole.start))
            }
            Verdict::Resume(resume) => resume.max(next_char(text, whole.start)),
        };
    }
}

fn judge(rule: &Rule, caps: &Captures<'_>, text: &str, mut whole: Range<usize>) -> Verdict {
    if let Some(edge) = rule.edge {
        let bytes = text.as_bytes();
        let run_end = |from: usize| {
            bytes[from..]
                .iter()
                .position(|&b| !edge.holds(b))
                .map_or(bytes.len(), |n| from + n)
        };
        if whole.start > 0 && edge.holds(bytes[whole.start - 1]) && !glued_token(rule, text, &whole)
        {
            // Glued on the left (`task-force-…`): not a token. Any match starting inside this
            // run of token characters would be glued too.
            return Verdict::Resume(run_end(whole.start));
        }
        if whole.end < bytes.len() && edge.holds(bytes[whole.end]) {
            // Glued on the right only: the token runs on (`ghp_…_old`); all of it is masked.
            whole.end = run_end(whole.end);
        }
    }
    let secret = match rule.part {
        Part::Whole | Part::Pem => whole.clone(),
        Part::Group(n) => match caps.get(n) {
            Some(m) => m.range(),
            None => return Verdict::Resume(whole.end),
        },
        Part::Assignment => return assignment(caps, text, whole),
        Part::YamlBlock => {
            let Some(key) = caps.name("key") else {
                return Verdict::Resume(whole.end);
            };
            if !keys::names_secret(key.as_str()) {
                return Verdict::Resume(key.end());
            }
            return match yaml::block_value(text, key.start(), whole.end) {
                Some(value) => Verdict::Secret(value),
                None => Verdict::Resume(whole.end),
            };
        }
        Part::Element => {
            let (Some(key), Some(value), Some(close)) =
                (caps.name("key"), caps.name("value"), caps.name("close"))
            else {
                return Verdict::Resume(whole.end);
            };
            let same = key.as_str().eq_ignore_ascii_case(close.as_str());
            if !same || !keys::names_secret(key.as_str()) || keys::is_placeholder(value.as_str()) {
                return Verdict::Resume(key.end());
            }
            value.range()
        }
    };
    if looks_right(rule.looks, &text[secret.clone()]) {
        Verdict::Secret(secret)
    } else {
        Verdict::Resume(whole.end)
    }
}

/// A token glued on the left to a letter or a digit (`credentialsghp_…`, `42sk-proj-…`) is
/// still one when its format has a literal prefix and its body looks random: a run of 16 or
/// more letters and digits holding a digit and an upper-case letter (`AKIA…`, `ghp_R8sK…`).
/// Prose and code glued to a prefix (`task-force-alpha`, `param_abc123def456`) have no such
/// run; base64-edged formats (a JWT inside an image) stay strict.
fn glued_token(rule: &Rule, text: &str, whole: &Range<usize>) -> bool {
    let bytes = text.as_bytes();
    if rule.edge != Some(Edge::Token)
        || rule.markers.is_empty()
        || !bytes[whole.start - 1].is_ascii_alphanumeric()
    {
        return false;
    }
    text[whole.clone()]
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|run| {
            let has = |test: fn(&u8) -> bool| run.as_bytes().iter().any(test);
            run.len() >= 16 && has(u8::is_ascii_digit) && has(u8::is_ascii_uppercase)
        })
}

fn looks_right(looks: Looks, secret: &str) -> bool {
    let has = |test: fn(char) -> bool| secret.chars().any(test);
    match looks {
        Looks::Any => true,
        Looks::Random => {
            has(|c| c.is_ascii_digit()) || (has(|c| c.is_uppercase()) && has(|c| c.is_lowercase()))
        }
        Looks::Credential => {
            secret.len() >= 20
                || has(|c| c.is_ascii_digit())
                || secret.chars().skip(1).any(char::is_uppercase)
                || has(|c| "._~+/=".contains(c))
        }
        Looks::BasicAuth => base64_decode(secret).is_some_and(|raw| {
            raw.contains(&b':') && raw.iter().all(|b| b.is_ascii_graphic() || *b == b' ')
        }),
    }
}

/// Standard base64 (padding optional); `None` when `text` is not base64.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut bits, mut count) = (0u32, 0u32);
    for byte in text.trim_end_matches('=').bytes() {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(value);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

/// A default after a type annotation: `password: str = "hunter2"`.
static ANNOTATED_DEFAULT: LazyLock<Regex> = LazyLock::new(|| {
    built_in(concat!(
        r#"^(?:<[^=\r\n]*>|\[[^=\r\n]*\])?(?:[ \t]*\|[ \t]*None)?[ \t]*=[ \t]*"#,
        r#"(?:"(?P<v2>(?:[^"\\\r\n]|\\.)*)"|'(?P<v3>[^'\r\n]*)'"#,
        r#"|(?P<v5>[^\s"'`&,;\\<>{}\[\]()=:][^\s"'`&,;\\<>]*))"#
    ))
});

fn value_of<'t>(caps: &Captures<'t>) -> Option<regex::Match<'t>> {
    ["v1", "v2", "v3", "v4", "v5"]
        .iter()
        .find_map(|name| caps.name(name))
}

/// A bare value keeps its closing brackets only when it opened them: `f(password=x)` masks
/// `x`, `password=get(x)` keeps its call whole.
fn trim_unbalanced(value: &str) -> usize {
    let count = |c: u8| value.bytes().filter(|&b| b == c).count();
    let mut unmatched = [
        (b')', count(b')').saturating_sub(count(b'('))),
        (b']', count(b']').saturating_sub(count(b'['))),
        (b'}', count(b'}').saturating_sub(count(b'{'))),
    ];
    let mut end = value.len();
    while let Some(&last) = value.as_bytes()[..end].last() {
        match unmatched.iter_mut().find(|(closer, _)| *closer == last) {
            Some((_, excess)) if *excess > 0 => {
                *excess -= 1;
                end -= 1;
            }
            _ => break,
        }
    }
    end
}

/// A key found just after a URL escape (`%26api_key`, `%2526token`) without the escape's hex
/// digits, which the key pattern takes for part of the name.
fn without_escape<'k>(text: &str, start: usize, key: &'k str) -> &'k str {
    if !text[..start].ends_with('%') {
        return key;
    }
    let mut name = key;
    while let Some(rest) = name.strip_prefix("25").filter(|r| r.len() > 2) {
        name = rest;
    }
    match name.get(2..) {
        Some(rest) if name.as_bytes()[..2].iter().all(u8::is_ascii_hexdigit) => rest,
        _ => name,
    }
}

fn assignment(caps: &Captures<'_>, text: &str, whole: Range<usize>) -> Verdict {
    let (Some(key), Some(value)) = (caps.name("key"), value_of(caps)) else {
        return Verdict::Resume(whole.end);
    };
    // Resuming at the key's end: the key is the whole identifier, so no shorter key inside it
    // (`token` in `max_token`) gets a second chance.
    let reject = Verdict::Resume(key.end());
    let name = without_escape(text, key.start(), key.as_str());
    // `Authorization` and `Cookie` have their own rules, which keep the scheme.
    if keys::is_credential_header(name) || !keys::names_secret(name) {
        return reject;
    }
    let bare = caps.name("v5").is_some();
    let mut range = value.range();
    if bare {
        range.end = range.start + trim_unbalanced(value.as_str());
    }
    let value_text = &text[range.clone()];
    let separator = &text[key.end()..value.start()];
    if bare && separator.contains(':') && !separator.contains('=') && keys::is_type(value_text) {
        // `password: str = "hunter2"`: the default after the type is the value.
        let after = &text[value.end()..];
        return match ANNOTATED_DEFAULT.captures(after).and_then(|c| value_of(&c)) {
            Some(default) if !keys::is_placeholder(default.as_str()) => {
                let start = value.end() + default.start();
                Verdict::Secret(start..start + default.len())
            }
            _ => reject,
        };
    }
    let path_for_pwd = keys::words(name).iter().any(|w| w == "pwd")
        && (value_text.starts_with('/') || value_text.starts_with('~'));
    if keys::is_placeholder(value_text) || keys::echoes_key(name, value_text) || path_for_pwd {
        return reject;
    }
    Verdict::Secret(range)
}

/// Hermes' mask: short secrets vanish, long ones keep their first 6 and last 4 characters.
pub(super) fn mask(token: &str) -> String {
    let chars: Vec<char> = token.chars().collect();
    if chars.len() < 18 {
        return "***".to_owned();
    }
    let head: String = chars[..6].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}...{tail}")
}

/// Writes `text` with every span masked; overlapping spans are merged first.
fn apply(text: &str, mut spans: Vec<Span>) -> String {
    spans.sort_by(|a, b| {
        a.range
            .start
            .cmp(&b.range.start)
            .then(b.range.end.cmp(&a.range.end))
    });
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.range.start < last.range.end => {
                last.range.end = last.range.end.max(span.range.end);
                // The union is all secret: mask it the strictest way either asked for.
                if strength(span.mask) > strength(last.mask) {
                    last.mask = span.mask;
                }
            }
            _ => merged.push(span),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for span in merged {
        out.push_str(&text[copied..span.range.start]);
        match span.mask {
            Mask::Partial => out.push_str(&mask(&text[span.range.clone()])),
            Mask::Full => out.push_str("***"),
            Mask::Label(label) => out.push_str(label),
        }
        copied = span.range.end;
    }
    out.push_str(&text[copied..]);
    out
}

/// Test helpers: the catalogue's rules by name, and what one rule alone finds.
#[cfg(test)]
pub(super) mod inspect {
    use super::*;

    pub(in crate::secrets) fn rule_names() -> impl Iterator<Item = &'static str> {
        RULES.iter().map(|r| r.name)
    }

    fn index(name: &str) -> usize {
        RULES
            .iter()
            .position(|r| r.name == name)
            .expect("a rule name")
    }

    /// Compiles every pattern (a panic names the one that does not).
    pub(in crate::secrets) fn compile_all() {
        for rule in 0..RULES.len() {
            compiled(rule);
        }
        pem::compile();
        LazyLock::force(&ANNOTATED_DEFAULT);
    }

    /// Does rule `name` alone find a secret in `text` (prefilter bypassed)?
    pub(in crate::secrets) fn finds(name: &str, text: &str) -> bool {
        let rule = index(name);
        let mut spans = Vec::new();
        scan(&RULES[rule], compiled(rule), text, &mut spans);
        !spans.is_empty()
    }

    /// Does the prefilter let rule `name` run on `text`?
    pub(in crate::secrets) fn admits(name: &str, text: &str) -> bool {
        let rule = index(name);
        super::super::prefilter::candidates(text)
            .rules()
            .any(|r| r == rule)
    }

    pub(in crate::secrets) fn has_probe(name: &str) -> bool {
        RULES.iter().any(|r| r.name == name && r.probe.is_some())
    }

    pub(in crate::secrets) fn has_probe_index(rule: usize) -> bool {
        RULES[rule].probe.is_some()
    }
}
