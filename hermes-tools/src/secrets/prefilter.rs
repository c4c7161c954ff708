//! Which rules can match a text, decided in one pass: every answer the model receives comes
//! through here, and almost none holds a credential.
//!
//! Every rule lists markers: literals, one of which occurs (ASCII case-insensitively) in every
//! match (see `catalogue`). Three rules have no literal and a `probe` instead.
//!
//! The pass is one Aho-Corasick automaton (a DFA, ASCII case-insensitive) over *triggers*: the
//! markers, with families folded into one literal they share (the hundred `api_key`,
//! `AccountKey`, `x-api-key`… markers are all `key`; `sk_live_`, `rk_live_`, `pk_live_` are
//! `_live_`), so the automaton stays small. On a clean text nothing is found and that is the
//! whole cost. Each trigger found is checked against the markers holding it, at its place
//! (`keys` holds `key` but no marker), and the rules of the markers that are there are the
//! candidates; the search resumes one byte after the trigger's start, so overlapping markers are
//! all seen. The probes come last.

use std::sync::LazyLock;

use aho_corasick::automaton::Automaton;
use aho_corasick::dfa::DFA;
use aho_corasick::{Input, MatchKind};

use super::catalogue::RULES;

/// A rule's test for a format with no literal (see `probes`).
type Probe = fn(&[u8]) -> bool;

/// Literals standing in the search for every marker containing them.
const FAMILIES: &[&str] = &[
    "key", "_live_", "_test_", "_v1_", "dp.", "xox", "shp", "sntry", "_pat_", "$2", "$a",
];

/// Which rules may match a text: one bit per rule (a bit set, not an array of flags: every
/// answer asks whether it is empty, and on a small answer scanning 90 flags cost as much as
/// the search itself).
#[derive(Clone, Copy, Default)]
pub(super) struct Candidates(u128);

// One bit per rule.
const _: () = assert!(RULES.len() <= 128, "Candidates holds 128 rules");

impl Candidates {
    pub(super) fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Every rule.
    fn all() -> Self {
        Self(u128::MAX >> (128 - RULES.len()))
    }

    fn insert(&mut self, rule: usize) {
        self.0 |= 1 << rule;
    }

    fn contains(self, rule: usize) -> bool {
        self.0 & (1 << rule) != 0
    }

    /// The indices of the rules to run, in catalogue order.
    pub(super) fn rules(self) -> impl Iterator<Item = usize> {
        (0..RULES.len()).filter(move |&rule| self.contains(rule))
    }
}

/// `api?key` -> `apikey`, `api key`, `api_key`, `api-key`, `api.key`, lower-cased as ASCII
/// (matching is ASCII case-insensitive; `ПАРОЛЬ` is its own marker).
fn expand(marker: &str) -> Vec<String> {
    match marker.split_once('?') {
        None => vec![marker.to_ascii_lowercase()],
        Some((head, tail)) => ["", " ", "_", "-", "."]
            .iter()
            .flat_map(|sep| expand(&format!("{head}{sep}{tail}")))
            .collect(),
    }
}

/// The triggers: the families, and every marker containing none of them; none containing
/// another (so no two start at one place, and resuming one byte on finds every start).
pub(super) fn triggers() -> Vec<String> {
    let mut triggers: Vec<String> = FAMILIES.iter().map(|f| (*f).to_owned()).collect();
    for marker in RULES
        .iter()
        .flat_map(|r| r.markers.iter().flat_map(|m| expand(m)))
    {
        if !triggers.iter().any(|t| marker.contains(t.as_str())) {
            triggers.push(marker);
        }
    }
    let all = triggers.clone();
    triggers.retain(|t| {
        !all.iter()
            .any(|other| other != t && t.contains(other.as_str()))
    });
    triggers
}

struct Prefilter {
    /// Every marker, expanded and lower-cased.
    markers: Vec<String>,
    /// Marker -> the rules it stands for.
    rules_of: Vec<Vec<usize>>,
    /// The triggers, ASCII case-insensitively. The DFA itself rather than an `AhoCorasick`:
    /// a search then has no dynamic dispatch, which on a small answer is a good part of its cost.
    automaton: DFA,
    /// Trigger -> the markers holding it, with where in the marker it stands.
    holders: Vec<Vec<(usize, usize)>>,
    /// The rules with a probe, and the probe: three of ninety, not worth a walk of all.
    probes: Vec<(usize, Probe)>,
}

static PREFILTER: LazyLock<Prefilter> = LazyLock::new(|| {
    let mut markers: Vec<String> = Vec::new();
    let mut rules_of: Vec<Vec<usize>> = Vec::new();
    for (rule, r) in RULES.iter().enumerate() {
        for marker in r.markers.iter().flat_map(|m| expand(m)) {
            match markers.iter().position(|m| *m == marker) {
                Some(id) => rules_of[id].push(rule),
                None => {
                    markers.push(marker);
                    rules_of.push(vec![rule]);
                }
            }
        }
    }
    let triggers = triggers();
    let holders = triggers
        .iter()
        .map(|t| {
            markers
                .iter()
                .enumerate()
                .flat_map(|(m, marker)| {
                    marker
                        .match_indices(t.as_str())
                        .map(move |(offset, _)| (m, offset))
                })
                .collect()
        })
        .collect();
    let automaton = DFA::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostFirst)
        .build(&triggers)
        // The markers are constants of the catalogue, covered by its tests.
        .unwrap_or_else(|err| panic!("the redaction markers do not build: {err}"));
    let probes = RULES
        .iter()
        .enumerate()
        .filter_map(|(rule, r)| Some((rule, r.probe?)))
        .collect();
    Prefilter {
        markers,
        rules_of,
        automaton,
        holders,
        probes,
    }
});

impl Prefilter {
    /// Marks the rules of the markers holding `trigger` that stand at `at` in `bytes`.
    fn check(&self, trigger: usize, at: usize, bytes: &[u8], found: &mut Candidates) {
        for &(marker, offset) in &self.holders[trigger] {
            let literal = self.markers[marker].as_bytes();
            let there = at
                .checked_sub(offset)
                .and_then(|start| bytes.get(start..start + literal.len()))
                .is_some_and(|window| window.eq_ignore_ascii_case(literal));
            if there {
                for &rule in &self.rules_of[marker] {
                    found.insert(rule);
                }
            }
        }
    }
}

/// The prefilter: which rules can match `text`.
pub(super) fn candidates(text: &str) -> Candidates {
    let prefilter = &*PREFILTER;
    let bytes = text.as_bytes();
    let mut found = Candidates::default();
    let mut from = 0;
    loop {
        let input = Input::new(bytes).range(from..bytes.len());
        match prefilter.automaton.try_find(&input) {
            Ok(Some(hit)) => {
                prefilter.check(hit.pattern().as_usize(), hit.start(), bytes, &mut found);
                from = hit.start() + 1;
            }
            Ok(None) => break,
            // An unanchored search of this DFA does not fail; if it ever did, every rule runs
            // (a slower answer, never an unredacted one).
            Err(_) => return Candidates::all(),
        }
    }
    for &(rule, probe) in &prefilter.probes {
        if !found.contains(rule) && probe(bytes) {
            found.insert(rule);
        }
    }
    found
}

/// Test helpers.
#[cfg(test)]
pub(super) mod inspect {
    use aho_corasick::AhoCorasick;

    use super::*;

    /// Every marker, expanded, with its rule's name.
    pub(in crate::secrets) fn markers() -> Vec<(&'static str, String)> {
        RULES
            .iter()
            .flat_map(|r| {
                r.markers
                    .iter()
                    .flat_map(|m| expand(m))
                    .map(|m| (r.name, m))
            })
            .collect()
    }

    /// The rules whose markers occur in `text`, found the plain way: every marker, overlapping.
    pub(in crate::secrets) fn by_all_markers(text: &str) -> Vec<usize> {
        static ALL: LazyLock<AhoCorasick> = LazyLock::new(|| {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(&PREFILTER.markers)
                .unwrap()
        });
        let mut found = [false; RULES.len()];
        for hit in ALL.find_overlapping_iter(text) {
            for &rule in &PREFILTER.rules_of[hit.pattern().as_usize()] {
                found[rule] = true;
            }
        }
        (0..RULES.len()).filter(|&r| found[r]).collect()
    }
}

#[cfg(test)]
mod candidate_tests {
    use super::*;

    #[test]
    fn the_fallback_runs_every_rule_and_nothing_beyond() {
        let all: Vec<usize> = Candidates::all().rules().collect();
        assert_eq!(all, (0..RULES.len()).collect::<Vec<_>>());
        assert!(Candidates::default().is_empty());
        let mut one = Candidates::default();
        one.insert(RULES.len() - 1);
        assert_eq!(one.rules().collect::<Vec<_>>(), [RULES.len() - 1]);
    }
}
