//! Text into search terms: identifiers split (`read_file`, `readFile`, `mcp__github__list-issues`),
//! lower-cased, stop words dropped, and each word stemmed to its Snowball (Porter 2) English
//! stem (feature `stemmer`, on by default), so "reading", "reads" and "read" are one term.

#[cfg(feature = "stemmer")]
use std::sync::LazyLock;

#[cfg(feature = "stemmer")]
use rust_stemmers::{Algorithm, Stemmer};
use serde_json::{Map, Value};

/// The English Snowball stemmer, made once (its tables are static; making one is cheap, but
/// a query should not pay even that).
#[cfg(feature = "stemmer")]
static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// Words that say nothing about which tool is meant: articles, pronouns, auxiliaries, the
/// politeness of a request ("please", "can you") and the generic nouns of tool requests
/// ("tool", "function"). Sorted, for a binary search.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "could", "do", "does", "for", "from", "function", "had", "has", "have", "he", "her", "him",
    "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "let", "me", "my", "need",
    "of", "on", "or", "our", "please", "she", "should", "so", "some", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "to", "tool", "tools", "us", "use",
    "using", "want", "was", "we", "were", "what", "when", "where", "which", "who", "will", "with",
    "would", "you", "your",
];

/// Whether `word` (lower case) is a stop word.
pub(crate) fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// Calls `each` with every word of `text`: split at every character that is not a letter or
/// digit, and inside an identifier at each lower-to-upper case change (`readFile` → `read`,
/// `file`; `HTTPServer` → `http`, `server`), lower-cased. One buffer serves every word.
pub(crate) fn each_word(text: &str, mut each: impl FnMut(&str)) {
    let mut lower = String::new();
    for part in text.split(|c: char| !c.is_alphanumeric()) {
        let mut start = 0;
        let mut chars = part.char_indices().peekable();
        let mut prev: Option<char> = None;
        while let Some((at, c)) = chars.next() {
            let next_lower = chars.peek().is_some_and(|&(_, n)| n.is_lowercase());
            let boundary = prev.is_some_and(|prev| {
                c.is_uppercase()
                    && (prev.is_lowercase()
                        || prev.is_numeric()
                        || (prev.is_uppercase() && next_lower))
            });
            if boundary {
                emit(&part[start..at], &mut lower, &mut each);
                start = at;
            }
            prev = Some(c);
        }
        emit(&part[start..], &mut lower, &mut each);
    }
}

fn emit(piece: &str, lower: &mut String, each: &mut impl FnMut(&str)) {
    if piece.is_empty() {
        return;
    }
    lower.clear();
    lower.extend(piece.chars().flat_map(char::to_lowercase));
    each(lower);
}

/// The words of `text`, as [`each_word`] splits them.
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    each_word(text, |word| words.push(word.to_owned()));
    words
}

/// Whether a (lower-case) word is a search term: not a stop word or a single letter.
pub(crate) fn is_term(word: &str) -> bool {
    word.chars().nth(1).is_some() && !is_stop_word(word)
}

/// The search terms of `text`: its words less stop words and single letters, stemmed.
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    each_word(text, |word| {
        if is_term(word) {
            terms.push(stem(word));
        }
    });
    terms
}

/// The Snowball English stem of one lower-case word.
#[cfg(feature = "stemmer")]
pub(crate) fn stem(word: &str) -> String {
    STEMMER.stem(word).into_owned()
}

/// The word itself: without the feature `stemmer`, words are matched as written (lower-cased).
#[cfg(not(feature = "stemmer"))]
pub(crate) fn stem(word: &str) -> String {
    word.to_owned()
}

/// The strings under `keys` in a call's arguments (a string alone is a list of one; blank ones
/// are left out): what the bridge's and the native search tool's arguments hold.
pub(super) fn strings(object: &Map<String, Value>, keys: &[&str]) -> Vec<String> {
    keys.iter()
        .filter_map(|key| object.get(*key))
        .flat_map(|value| match value {
            Value::String(one) => vec![one.clone()],
            Value::Array(many) => many
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        })
        .filter(|text| !text.trim().is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stop_words_are_sorted_for_the_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn identifiers_split_at_underscores_dashes_and_case_changes() {
        let split = words("mcp__github__list-issues readFile HTTPServer v2Api");
        assert_eq!(
            split,
            [
                "mcp", "github", "list", "issues", "read", "file", "http", "server", "v2", "api"
            ]
        );
    }

    #[cfg(feature = "stemmer")]
    #[test]
    fn inflections_share_a_stem_and_stop_words_are_gone() {
        let terms = terms("Please read the files; reading a file");
        assert_eq!(terms, ["read", "file", "read", "file"]);
        assert!(super::terms("the and of to a").is_empty());
    }

    #[cfg(not(feature = "stemmer"))]
    #[test]
    fn without_the_stemmer_words_are_terms_as_written() {
        let terms = terms("Please read the files; reading a file");
        assert_eq!(terms, ["read", "files", "reading", "file"]);
        assert!(super::terms("the and of to a").is_empty());
    }
}
