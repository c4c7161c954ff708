//! The search index: BM25F over each tool's fields, built once per registry generation.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::text;
use crate::tool::Tool;
use crate::toolsets::nearest::nearest;

/// The fields of a tool the index reads, with their weight and length normalisation
/// (BM25F's `w` and `b`): a word of the name says most about the tool, one of a parameter's
/// description least.
#[derive(Clone, Copy)]
enum Field {
    Name,
    Toolset,
    Description,
    ParameterName,
    ParameterDescription,
}

impl Field {
    const ALL: [Field; 5] = [
        Field::Name,
        Field::Toolset,
        Field::Description,
        Field::ParameterName,
        Field::ParameterDescription,
    ];

    fn weight(self) -> f32 {
        match self {
            Field::Name => 2.0,
            Field::Toolset => 1.5,
            Field::Description => 1.0,
            Field::ParameterName => 1.2,
            Field::ParameterDescription => 0.4,
        }
    }

    fn length_normalisation(self) -> f32 {
        match self {
            Field::Name | Field::Toolset => 0.3,
            Field::Description | Field::ParameterDescription => 0.75,
            Field::ParameterName => 0.5,
        }
    }
}

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;

/// A term in more than this share of the tools of a large enough index ("file" among file
/// tools) cannot tell them apart: alone it finds nothing.
const UBIQUITOUS_SHARE: f32 = 0.5;
/// Below this many tools every term counts (in three tools, one in two is still a clue).
const UBIQUITOUS_MIN_TOOLS: usize = 20;
/// A hit scoring under this share of the best hit's score is noise and left out.
const RELATIVE_FLOOR: f32 = 0.3;
/// The best hit must match at least this share of the query's terms: a query that is mostly
/// junk finds nothing. Low, because people ask in sentences ("scroll down so I can see the
/// rest of the article" shares one word with `browser_scroll`); junk is caught mostly by its
/// unknown words. The evaluation (tests/tests/search_eval.rs) measured 0.25 losing 29 of
/// 173 requests outright, and no junk query passing at 0.15.
const COVERAGE_FLOOR: f32 = 0.15;

/// One indexed tool.
#[derive(Debug)]
struct Doc {
    name: Arc<str>,
    toolset: Arc<str>,
    summary: Arc<str>,
}

/// A search index over the tools of one registry generation: cheap to clone (one `Arc`),
/// immutable, shared by every search of that generation.
///
/// Build one with [`ToolRegistry::search_index`](crate::ToolRegistry::search_index) (cached) or
/// [`SearchIndex::new`] over any tools.
#[derive(Clone, Debug)]
pub struct SearchIndex(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    /// The tools, in name order (a doc's id is its position).
    docs: Vec<Doc>,
    /// Each term's id.
    terms: HashMap<Box<str>, u32, foldhash::fast::FixedState>,
    /// For each term (by id): the tools holding it.
    postings: Vec<Postings>,
    /// The registry generation indexed (0 for an index built over a list).
    generation: u64,
}

/// The tools holding one term.
#[derive(Debug)]
struct Postings {
    idf: f32,
    /// Each tool holding the term (by id, ascending) with the term's saturated,
    /// field-weighted frequency there: its score without the idf.
    docs: Box<[(u32, f32)]>,
}

/// One tool found, with what a model needs to choose it.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// The tool's name.
    pub name: Arc<str>,
    /// Its toolset (for an MCP server's tool, `mcp-<server>`).
    pub toolset: Arc<str>,
    /// The first sentence of its description, at most [`SUMMARY_MAX_CHARS`](super::SUMMARY_MAX_CHARS).
    pub summary: Arc<str>,
    /// Its BM25F score (`f32::INFINITY` for a tool selected by exact name).
    pub score: f32,
}

/// A name asked for by `select:` that no searchable tool has, with the nearest names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    /// The name asked for.
    pub name: String,
    /// Up to three searchable names nearest to it, best first.
    pub nearest: Vec<String>,
}

/// What one query found.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryResult {
    /// The query, as asked.
    pub query: String,
    /// The tools found, best first (for `select:`, in the order asked).
    pub hits: Vec<Hit>,
    /// For `select:`, the names no searchable tool has.
    pub unknown: Vec<UnknownName>,
}

impl SearchIndex {
    /// An index over `tools` (their static names, toolsets, descriptions and parameters).
    pub fn new<'t>(tools: impl IntoIterator<Item = &'t Tool>) -> Self {
        Self::build(tools, 0)
    }

    pub(crate) fn build<'t>(tools: impl IntoIterator<Item = &'t Tool>, generation: u64) -> Self {
        let mut tools: Vec<&Tool> = tools.into_iter().collect();
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        tools.dedup_by(|a, b| a.name() == b.name());
        // Per tool, per field: its term ids. Words repeat across tools, so each distinct word
        // is stemmed once.
        let mut vocabulary = Vocabulary::default();
        let fields: Vec<[Vec<u32>; 5]> = tools
            .iter()
            .map(|tool| fields_of(tool, &mut vocabulary))
            .collect();
        let count = tools.len().max(1) as f32;
        let mut average = [0f32; 5];
        for doc in &fields {
            for (i, terms) in doc.iter().enumerate() {
                average[i] += terms.len() as f32 / count;
            }
        }
        let mut raw: Vec<Vec<(u32, f32)>> = vec![Vec::new(); vocabulary.stems.len()];
        let mut weighted: Vec<(u32, f32)> = Vec::new();
        for (id, doc) in fields.iter().enumerate() {
            weighted.clear();
            for (field, field_terms) in Field::ALL.iter().zip(doc) {
                let i = *field as usize;
                let b = field.length_normalisation();
                let norm = if average[i] > 0.0 {
                    1.0 - b + b * field_terms.len() as f32 / average[i]
                } else {
                    1.0
                };
                weighted.extend(
                    field_terms
                        .iter()
                        .map(|&term| (term, field.weight() / norm)),
                );
            }
            weighted.sort_unstable_by_key(|&(term, _)| term);
            let doc_id = u32::try_from(id).unwrap_or(u32::MAX);
            let mut at = 0;
            while at < weighted.len() {
                let term = weighted[at].0;
                let mut tf = 0.0;
                while at < weighted.len() && weighted[at].0 == term {
                    tf += weighted[at].1;
                    at += 1;
                }
                raw[term as usize].push((doc_id, tf / (K1 + tf)));
            }
        }
        let terms = vocabulary.stems;
        let n = tools.len() as f32;
        let idf = |df: f32| (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        let postings = raw
            .into_iter()
            .map(|list| Postings {
                idf: idf(list.len() as f32),
                docs: list.into_boxed_slice(),
            })
            .collect();
        let docs = tools
            .iter()
            .map(|tool| Doc {
                name: Arc::clone(tool.name_arc()),
                toolset: Arc::from(tool.toolset()),
                summary: Arc::from(super::summary(tool.description())),
            })
            .collect();
        Self(Arc::new(Inner {
            docs,
            terms,
            postings,
            generation,
        }))
    }

    /// How many tools the index holds.
    pub fn len(&self) -> usize {
        self.0.docs.len()
    }

    /// Whether the index holds no tool.
    pub fn is_empty(&self) -> bool {
        self.0.docs.is_empty()
    }

    pub(crate) fn generation(&self) -> u64 {
        self.0.generation
    }

    /// Runs one query over every indexed tool: see [`query_in`](Self::query_in).
    pub fn query(&self, query: &str, limit: usize) -> QueryResult {
        self.query_in(query, limit, |_| true)
    }

    /// Runs one query over the indexed tools `searchable` accepts (by name), at most `limit`
    /// hits.
    ///
    /// `select:a,b` asks for tools by exact name (the names no searchable tool has come back
    /// in [`QueryResult::unknown`] with the nearest names). Any other query is ranked by
    /// BM25F over the tools' names, toolsets, descriptions, parameter names and parameter
    /// descriptions, stemmed; a query that names a tool exactly finds it first. A query of
    /// stop words or unknown words finds nothing, and hits far below the best are left out.
    pub fn query_in(
        &self,
        query: &str,
        limit: usize,
        searchable: impl Fn(&str) -> bool,
    ) -> QueryResult {
        let trimmed = query.trim();
        if let Some(names) = trimmed.strip_prefix("select:") {
            return self.select(query, names, &searchable);
        }
        let hits = if limit == 0 {
            Vec::new()
        } else {
            self.rank(trimmed, limit, &searchable)
        };
        QueryResult {
            query: query.to_owned(),
            hits,
            unknown: Vec::new(),
        }
    }

    fn hit(&self, doc: usize, score: f32) -> Hit {
        let doc = &self.0.docs[doc];
        Hit {
            name: Arc::clone(&doc.name),
            toolset: Arc::clone(&doc.toolset),
            summary: Arc::clone(&doc.summary),
            score,
        }
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.0
            .docs
            .binary_search_by(|doc| (*doc.name).cmp(name))
            .ok()
    }

    fn select(&self, query: &str, names: &str, searchable: &dyn Fn(&str) -> bool) -> QueryResult {
        let mut hits: Vec<Hit> = Vec::new();
        let mut unknown = Vec::new();
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match self.position(name).filter(|_| searchable(name)) {
                Some(doc) if !hits.iter().any(|hit| &*hit.name == name) => {
                    hits.push(self.hit(doc, f32::INFINITY));
                }
                Some(_) => {}
                None => {
                    let candidates = self
                        .0
                        .docs
                        .iter()
                        .map(|doc| &*doc.name)
                        .filter(|candidate| searchable(candidate));
                    unknown.push(UnknownName {
                        name: name.to_owned(),
                        nearest: nearest(name, candidates),
                    });
                }
            }
        }
        QueryResult {
            query: query.to_owned(),
            hits,
            unknown,
        }
    }

    fn rank(&self, query: &str, limit: usize, searchable: &dyn Fn(&str) -> bool) -> Vec<Hit> {
        let inner = &*self.0;
        let mut query_terms: Vec<String> = text::terms(query);
        query_terms.sort();
        query_terms.dedup();
        let ubiquitous = |df: usize| {
            inner.docs.len() >= UBIQUITOUS_MIN_TOOLS
                && df as f32 > UBIQUITOUS_SHARE * inner.docs.len() as f32
        };
        // Dense accumulators: a query touches a few postings lists, and zeroing one slot per
        // tool (10,000 tools: 80 kB) costs less than hashing each posting.
        let mut scores = vec![0f32; inner.docs.len()];
        let mut matched = vec![0u16; inner.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        for term in &query_terms {
            let Some(&id) = inner.terms.get(term.as_str()) else {
                continue;
            };
            let postings = &inner.postings[id as usize];
            if ubiquitous(postings.docs.len()) {
                continue;
            }
            for &(doc, tf) in postings.docs.iter() {
                let at = doc as usize;
                if matched[at] == 0 {
                    touched.push(doc);
                }
                scores[at] += postings.idf * tf;
                matched[at] = matched[at].saturating_add(1);
            }
        }
        // A query naming a tool exactly (`read_file`, "Read File") finds it first.
        let exact = {
            let joined = text::words(query).join("_");
            self.position(query)
                .or_else(|| self.position(&joined))
                .filter(|&doc| searchable(&inner.docs[doc].name))
        };
        let by_score = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let mut ranked: Vec<(u32, f32)> = touched
            .into_iter()
            .map(|doc| (doc, scores[doc as usize]))
            .collect();
        // Only the best few are read: select them before sorting (a common word touches
        // thousands of tools), unless the scope turns too many of them away.
        let wanted = (limit + 1) * 4;
        if ranked.len() > wanted {
            ranked.select_nth_unstable_by(wanted, by_score);
            let head = &ranked[..wanted];
            let kept = head
                .iter()
                .filter(|(doc, _)| searchable(&inner.docs[*doc as usize].name))
                .count();
            if kept > limit {
                ranked.truncate(wanted);
            }
        }
        ranked.sort_unstable_by(by_score);
        let mut ranked = ranked
            .into_iter()
            .filter(|(doc, _)| searchable(&inner.docs[*doc as usize].name));
        let mut hits = Vec::new();
        if let Some(doc) = exact {
            hits.push(self.hit(doc, f32::INFINITY));
        }
        let Some((first, best)) = ranked.next() else {
            return hits;
        };
        let coverage = f32::from(matched[first as usize]);
        if coverage < COVERAGE_FLOOR * query_terms.len() as f32 && exact.is_none() {
            return hits;
        }
        for (doc, score) in std::iter::once((first, best)).chain(ranked) {
            if hits.len() >= limit || score < RELATIVE_FLOOR * best {
                break;
            }
            if Some(doc as usize) != exact {
                hits.push(self.hit(doc as usize, score));
            }
        }
        hits.truncate(limit);
        hits
    }
}

/// The words and stems seen while building an index.
#[derive(Default)]
struct Vocabulary {
    /// Each lower-case word seen, with its term id (`None`: a stop word or a single letter).
    words: HashMap<String, Option<u32>, foldhash::fast::FixedState>,
    /// Each stem, with its term id.
    stems: HashMap<Box<str>, u32, foldhash::fast::FixedState>,
}

impl Vocabulary {
    /// The term ids of the words of `text`, appended to `out`.
    fn terms(&mut self, text: &str, out: &mut Vec<u32>) {
        text::each_word(text, |word| {
            let term = match self.words.get(word) {
                Some(&term) => term,
                None => {
                    let term = text::is_term(word).then(|| {
                        let next = u32::try_from(self.stems.len()).unwrap_or(u32::MAX);
                        *self.stems.entry(text::stem(word).into()).or_insert(next)
                    });
                    self.words.insert(word.to_owned(), term);
                    term
                }
            };
            out.extend(term);
        });
    }
}

/// A tool's term ids, per [`Field`].
fn fields_of(tool: &Tool, vocabulary: &mut Vocabulary) -> [Vec<u32>; 5] {
    let mut fields: [Vec<u32>; 5] = Default::default();
    vocabulary.terms(tool.name(), &mut fields[Field::Name as usize]);
    vocabulary.terms(tool.toolset(), &mut fields[Field::Toolset as usize]);
    vocabulary.terms(tool.description(), &mut fields[Field::Description as usize]);
    let [.., names, descriptions] = &mut fields;
    parameters(tool.parameters(), 0, vocabulary, names, descriptions);
    fields
}

/// The terms of the parameter names and descriptions in `schema`, nested objects included
/// (to a small depth: deeper names say little).
fn parameters(
    schema: &Value,
    depth: usize,
    vocabulary: &mut Vocabulary,
    names: &mut Vec<u32>,
    descriptions: &mut Vec<u32>,
) {
    if depth > 3 {
        return;
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        if let Some(items) = schema.get("items") {
            parameters(items, depth + 1, vocabulary, names, descriptions);
        }
        return;
    };
    for (name, property) in properties {
        vocabulary.terms(name, names);
        if let Some(description) = property.get("description").and_then(Value::as_str) {
            vocabulary.terms(description, descriptions);
        }
        // An action's name may live only in its values (`"enum": ["play", "pause", "next"]`).
        for value in property
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            vocabulary.terms(value, descriptions);
        }
        parameters(property, depth + 1, vocabulary, names, descriptions);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::SearchIndex;
    use crate::tool::Tool;

    fn tool(name: &str, toolset: &str, description: &str) -> Tool {
        Tool::builder(name, toolset)
            .description(description)
            .parameters(json!({"type": "object", "properties": {
                "path": {"type": "string", "description": "Where the file is."}
            }}))
            .build()
    }

    /// Thirty file tools and a mail tool: "file" is in most of them.
    fn index() -> SearchIndex {
        let mut tools: Vec<Tool> = (0..30)
            .map(|i| {
                tool(
                    &format!("file_tool_{i}"),
                    "files",
                    &format!("Do thing {i} to a file."),
                )
            })
            .collect();
        tools.push(tool("send_mail", "mail", "Send an email."));
        tools.push(tool("archive_file", "files", "Archive a file into a zip."));
        SearchIndex::new(tools.iter())
    }

    #[test]
    fn a_word_most_tools_hold_finds_nothing_alone() {
        let index = index();
        assert!(index.query("file", 5).hits.is_empty());
        assert!(index.query("file path", 5).hits.is_empty());
        // With a telling word beside it, the telling word decides.
        assert_eq!(&*index.query("zip a file", 5).hits[0].name, "archive_file");
    }

    #[test]
    fn a_mostly_junk_query_finds_nothing_and_the_scope_is_kept() {
        let index = index();
        // One telling word in seven is under the coverage floor; one in five is a sentence.
        assert!(
            index
                .query("zzz yyy xxx www vvv uuu email", 5)
                .hits
                .is_empty()
        );
        assert_eq!(
            &*index.query("zzz yyy xxx www email", 5).hits[0].name,
            "send_mail"
        );
        assert_eq!(&*index.query("email", 5).hits[0].name, "send_mail");
        let scoped = index.query_in("email", 5, |name| name != "send_mail");
        assert!(scoped.hits.is_empty());
        let selected = index.query_in("select:send_mail", 5, |name| name != "send_mail");
        assert_eq!(selected.unknown[0].name, "send_mail");
        assert_eq!(index.query("email", 0).hits, []);
    }

    #[test]
    fn hits_far_below_the_best_are_left_out_and_limits_hold() {
        let index = index();
        let found = index.query("archive zip thing", 3);
        assert_eq!(&*found.hits[0].name, "archive_file");
        assert!(found.hits.len() <= 3);
        assert!(
            found
                .hits
                .iter()
                .all(|hit| hit.score >= 0.3 * found.hits[0].score)
        );
    }
}
