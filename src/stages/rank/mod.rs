//! Rank stage: which files matter most, so that a token budget keeps the useful ones.
//!
//! Without a query the order is a fixed, deterministic prior: README and manifests first, then
//! entry points, core sources, docs and config, then tests, examples, fixtures, generated and
//! vendored files, and lock files last; shallower and smaller files first within a class.
//!
//! With a query, files are scored with BM25F over code-aware terms (identifiers split on
//! snake_case and camelCase, acronyms kept whole: `getHTTPResponse` → get, http, response, plus
//! the whole identifier), where the terms of the names a file defines count more and path
//! components count as terms too (the fields, `fields.rs`), plus boosts when the query
//! names a file, a directory, or a symbol the file defines. Only whole query words name things
//! (`deserialize_map` names `deserialize_map`, not `map.rs`), and two or three of them in a row
//! name what they spell together (`JSON array` names `JsonArray.java`); a file whose name's
//! parts the query's words name, in any order and inflection, has a boost in proportion to the
//! share named (`several handlers` names half of `GroupHandler.php`). A query term brings its
//! synonyms from a small checked-in table at a lesser weight ([`SYNONYM_WEIGHT`]); a table of
//! related terms learned from code (`related`, in builds with the `related-terms` feature only:
//! measured without a held-out gain) can bring more at a smaller one. Tests,
//! examples, fixtures and generated files count half, unless the query asks for tests or
//! examples; prose counts 0.3 unless it asks for docs; auxiliary files (build files, manifests,
//! package metadata, type stubs such as `.d.ts`) count half unless it names them whole. A C or
//! C++ header whose source (the same stem) defines a name the query names too has half the
//! boost for it: the header declares what the source defines. The prior breaks ties. Every
//! score is explainable: [`Score::parts`] lists what it is made of. The choices are measured in
//! `docs/ranking-eval.md` (`scripts/eval-ranking.sh`).
//!
//! Ranking decides only what is kept; the rendered output stays sorted by path.
//!
//! A query is bounded: at most [`MAX_QUERY_BYTES`] bytes and [`MAX_QUERY_TERMS`] distinct terms
//! ([`Query::parse`]); over either bound it is an error that names the limit, never silently
//! cut. Ranking [`Doc`]s costs one pass over every file's text and path plus a sort; ranking
//! [`Indexed`] files (the search index, built once per file content) costs a few binary searches
//! per file and query term plus the sort. Either stops between files when the caller cancels.
//!
//! The stage is split by job: `terms` turns text into terms (the features), `fields` weighs
//! them by where they stand (text, defined names, path), `classes` says what kind of file a path
//! is (test, prose, auxiliary, ...) and gives the default order, `score` scores files for a query
//! (BM25 and the boosts), `index` keeps what scoring needs of one file so that a warm search
//! reads no text again ([`FileIndex`], [`rank_indexed`]), `regions` explains a hit by the
//! lines that match best, and [`graph`] links the files by imports and used names and ranks
//! how central each is ([`Graph`]: PageRank, personalized on demand).

mod classes;
mod fields;
pub mod graph;
mod index;
mod regions;
#[cfg(feature = "related-terms")]
mod related;
mod score;
mod terms;

pub use classes::{Class, class_of, prior, secondary_word};
pub use graph::Graph;
pub use index::{FileIndex, Postings, module_name, plain_word};
pub use regions::{REGION_LINES, Region, Regions, regions};
pub use terms::{for_each_term, query_terms, query_words, split_identifier, term_hash};

use crate::error::Error;
pub use score::SymbolFacts;
use score::{Corpus, PathFacts, bm25, bm25_of, gather, gather_indexed, headers_declare, resymbol};
use std::sync::Arc;
use terms::query_names;

/// The longest query accepted, in bytes: about 600 words of prose, ten times the longest
/// question a person asks, and room for a pasted error message with a few stack frames.
pub const MAX_QUERY_BYTES: usize = 4096;

/// The most distinct terms a query may have (after splitting identifiers and dropping stop
/// words). BM25 over hundreds of terms ranks by vocabulary overlap rather than by what was asked
/// for; a query that long is better split into several narrower ones.
pub const MAX_QUERY_TERMS: usize = 256;

/// One file to rank.
pub struct Doc<'a> {
    /// Display path, `/`-separated.
    pub path: &'a str,
    /// The file's text.
    pub text: &'a str,
}

/// What earned a part of a file's score: one value each, its name (`--explain`, `search`'s
/// facts) derived from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    /// BM25 over the file's fields.
    Bm25,
    /// The query names the file whole.
    NamesFile,
    /// The query names a directory above it.
    NamesDirectory,
    /// The file defines a name the query names.
    DefinesSymbol,
    /// The query's words among the file's defined names (re-scoring).
    SymbolTerms,
    /// A C or C++ header whose source beside it defines the same name: half the boost taken
    /// off (the header declares what the source defines).
    HeaderDeclares,
    /// The query's words name parts of the file's name.
    NamesFileParts,
    /// A test, example or generated file: lowered.
    SecondaryFile,
    /// Prose: lowered.
    DocsFile,
    /// A build or config file the query does not name whole: lowered.
    AuxiliaryFile,
    /// The path's prior.
    Prior,
    /// With no query: the kind of file (source before tests, docs and build files).
    Class,
    /// With no query: how deep the file lies (lowered).
    Depth,
    /// With no query: how large it is (lowered).
    Size,
}

impl Part {
    /// Its name, as `--explain` and `search`'s facts show it.
    pub fn name(self) -> &'static str {
        match self {
            Part::Bm25 => "bm25",
            Part::NamesFile => "names_file",
            Part::NamesDirectory => "names_directory",
            Part::DefinesSymbol => "defines_symbol",
            Part::SymbolTerms => "symbol_terms",
            Part::HeaderDeclares => "header_declares",
            Part::NamesFileParts => "names_file_parts",
            Part::SecondaryFile => "secondary_file",
            Part::DocsFile => "docs_file",
            Part::AuxiliaryFile => "auxiliary_file",
            Part::Prior => "prior",
            Part::Class => "class",
            Part::Depth => "depth",
            Part::Size => "size",
        }
    }
}

impl std::fmt::Display for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A file's score and what it is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// The score: the sum of the parts.
    pub total: f64,
    /// What it is made of: each part and its value.
    pub parts: Vec<(Part, f64)>,
}

impl Score {
    /// Whether the query touched the file: any part of the score besides the prior.
    pub fn matched(&self) -> bool {
        self.parts
            .iter()
            .any(|(part, v)| *part != Part::Prior && *part != Part::SecondaryFile && *v > 0.0)
    }

    /// Each part written by `show` (its name and value), joined by `sep`: how an explanation
    /// lists what the score is made of.
    pub fn parts_shown(&self, sep: &str, show: impl Fn(Part, f64) -> String) -> String {
        let shown: Vec<String> = self.parts.iter().map(|(part, v)| show(*part, *v)).collect();
        shown.join(sep)
    }
}

/// What a synonym from the checked-in table (`terms.rs`) weighs against a term of the
/// query itself.
pub const SYNONYM_WEIGHT: f64 = 0.4;

/// What a term from the learned relatedness table (`related.rs`) weighs against a term of the
/// query itself, times the relation's strength (0.1 to 1.0), in builds with the
/// `related-terms` feature (the best of four weights on dev). Without the feature neither the
/// table nor the expansion is built: held-out NDCG@10 moved 0.823 → 0.824 with it (11 queries
/// up, 10 down, architecture 0.732 → 0.728), no gain (`docs/ranking-eval.md`).
#[cfg(feature = "related-terms")]
pub const RELATED_WEIGHT: f64 = 0.15;
/// Without the `related-terms` feature no related term is ever brought.
#[cfg(not(feature = "related-terms"))]
pub const RELATED_WEIGHT: f64 = 0.0;

/// The fewest words a query must have for its terms to bring related terms: a name or two is
/// looked up as written.
#[cfg(feature = "related-terms")]
const RELATED_MIN_WORDS: usize = 3;

/// A query, split into its terms and the names it mentions, within the bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// Distinct terms, in order of first appearance, then the synonyms they bring
    /// (the synonym table of `terms.rs`).
    terms: Vec<String>,
    /// Each term's weight: 1 for the query's own terms, [`SYNONYM_WEIGHT`] for a synonym.
    weights: Vec<f64>,
    /// Each term as an answer shows it: the word it was found as (lowercased, not stemmed).
    words: Vec<String>,
    /// Distinct whole words (see [`query_names`]).
    names: Vec<String>,
}

impl Query {
    /// Split `q` into terms and names, or say which bound it exceeds. Linear in `q`'s length.
    pub fn parse(q: &str) -> Result<Query, Error> {
        Self::parse_relating(q, RELATED_WEIGHT)
    }

    /// [`Query::parse`], with the learned table's related terms at `related_weight` (0: none;
    /// always none in a build without the `related-terms` feature).
    fn parse_relating(q: &str, related_weight: f64) -> Result<Query, Error> {
        let advice = "shorten it to the words that name what you are looking for (identifiers, \
                      file or directory names), or run several narrower queries";
        if q.len() > MAX_QUERY_BYTES {
            return Err(Error::Usage {
                message: format!(
                    "the query is {} bytes; the limit is {MAX_QUERY_BYTES} bytes: {advice}",
                    q.len()
                ),
            });
        }
        let (terms, mut words): (Vec<String>, Vec<String>) = query_words(q).into_iter().unzip();
        if terms.len() > MAX_QUERY_TERMS {
            return Err(Error::Usage {
                message: format!(
                    "the query has {} distinct terms; the limit is {MAX_QUERY_TERMS}: {advice}",
                    terms.len()
                ),
            });
        }
        let mut weights = vec![1.0; terms.len()];
        let mut terms = terms;
        #[cfg(feature = "related-terms")]
        let own = terms.len();
        for (extra, word) in terms::synonyms(&terms) {
            terms.push(extra);
            words.push(word);
            weights.push(SYNONYM_WEIGHT);
        }
        #[cfg(feature = "related-terms")]
        if related_weight > 0.0 && q.split_whitespace().count() >= RELATED_MIN_WORDS {
            for (extra, strength) in related::expansions(&terms[..own], &terms) {
                words.push(extra.clone());
                terms.push(extra);
                weights.push(related_weight * strength);
            }
        }
        #[cfg(not(feature = "related-terms"))]
        let _ = related_weight;
        Ok(Query {
            terms,
            weights,
            words,
            names: query_names(q),
        })
    }

    /// The query's distinct terms, in order of first appearance, then their synonyms.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// The query's terms as an answer shows them (in the order of [`Query::terms`]): each the
    /// word it was found as, lowercased, not stemmed.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// The query's whole words, lowercased and without underscores (what names a file, a
    /// directory or a symbol).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Each term by its position in [`Query::terms`]: frequencies kept by position are summed
    /// in query order, so a score never depends on a map's iteration order.
    fn positions<'q, M: FromIterator<(&'q str, usize)>>(&'q self) -> M {
        self.terms
            .iter()
            .enumerate()
            .map(|(k, t)| (t.as_str(), k))
            .collect()
    }

    /// The query's names ([`Query::names`]), to look up.
    fn name_set<'q, S: FromIterator<&'q str>>(&'q self) -> S {
        self.names.iter().map(String::as_str).collect()
    }
}

/// Rank `docs`: returns indices into `docs`, best first, with each one's score. Deterministic:
/// ties are broken by path. `None` when `stop` returned true (it is asked between files).
pub fn rank(
    docs: &[Doc<'_>],
    query: Option<&Query>,
    outline: &Outliner<'_>,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<(usize, Score)>> {
    rank_weighted(docs, query, outline, stop).map(|(scored, _)| scored)
}

/// What the re-scoring needs of the definitions of doc `i` (from the syntax stage, see
/// [`SymbolFacts`]), `None` when its language has no grammar or the parse was skipped. Asked
/// for at most [`RERANK`] files per query, each at most [`RERANK_FILE_BYTES`], [`RERANK_BYTES`]
/// in all.
pub type Outliner<'a> = dyn Fn(usize) -> Option<Arc<SymbolFacts>> + 'a;

/// Handed the indices of every file whose definitions the re-scoring will ask for, before it
/// asks, so that they can be parsed at once ([`rank_indexed`]).
pub type Prefetch<'a> = dyn Fn(&[usize]) + 'a;

/// How many of the best files are re-scored with their definitions.
pub const RERANK: usize = 30;
/// Largest file parsed for the re-scoring, and most bytes parsed for one query: tree-sitter
/// parses about 1 MB/s of ordinary code, so this keeps the re-scoring to a few hundred ms.
pub const RERANK_FILE_BYTES: usize = 128 << 10;
/// The most bytes parsed for the re-scoring of one query.
pub const RERANK_BYTES: usize = 512 << 10;

/// A ranking (indices into the docs, best first, with scores) and each query term's weight.
pub type Weighted = (Vec<(usize, Score)>, Vec<f64>);

/// [`rank`], with each query term's weight in this set of files (its inverse document
/// frequency, in the order of [`Query::terms`]; empty without a query), for finding the
/// best-matching regions of a file ([`regions`]).
pub fn rank_weighted(
    docs: &[Doc<'_>],
    query: Option<&Query>,
    outline: &Outliner<'_>,
    stop: &dyn Fn() -> bool,
) -> Option<Weighted> {
    let paths: Vec<&str> = docs.iter().map(|d| d.path).collect();
    let lens: Vec<usize> = docs.iter().map(|d| d.text.len()).collect();
    match query {
        Some(q) if !q.terms.is_empty() => {
            let facts: Vec<PathFacts> = docs
                .iter()
                .map(|d| PathFacts::of(d.path, d.text.len()))
                .collect();
            let facts: Vec<&PathFacts> = facts.iter().collect();
            let scored = bm25(&facts, gather(docs, q, stop)?, q, stop)?;
            finish(
                scored,
                Some(q),
                &|i| paths[i],
                &|i| lens[i],
                outline,
                None,
                stop,
            )
        }
        _ => {
            let mut out = Vec::with_capacity(docs.len());
            for (i, d) in docs.iter().enumerate() {
                if stop() {
                    return None;
                }
                out.push((i, prior(d.path, d.text.len())));
            }
            finish(
                (out, Vec::new()),
                None,
                &|i| paths[i],
                &|i| lens[i],
                outline,
                None,
                stop,
            )
        }
    }
}

/// The names `text` defines by the keyword guess (`fn x`, `struct X`, `class X`, `def x`, ...),
/// lowercased and without underscores, in order, repeats included.
pub fn defined_names(text: &str) -> Vec<String> {
    fields::defined_symbols(text).collect()
}

/// One file to rank from its index (see [`FileIndex`]): the same score as the [`Doc`] it was
/// built from, without reading its text again.
pub struct Indexed<'a> {
    /// Display path, `/`-separated: the one the index was built with.
    pub path: &'a str,
    /// Its search index, built from its text.
    pub index: &'a FileIndex,
}

/// [`rank_weighted`] over indexed files: the same ranking of the files the query touches
/// (every file that scores more than its prior: one holding a query term, defining a name the
/// query names, or named by it), in time linear in the number of files times the query's terms
/// (a binary search per term per file), not in the text's length. With the files' [`Postings`]
/// (built from the same files, in the same order), in time linear in the files that hold the
/// query's terms. Files the query does not touch are left out.
pub fn rank_indexed(
    files: &[Indexed<'_>],
    postings: Option<&Postings>,
    query: &Query,
    outline: &Outliner<'_>,
    prefetch: &Prefetch<'_>,
    stop: &dyn Fn() -> bool,
) -> Option<Weighted> {
    if query.terms.is_empty() {
        return None;
    }
    let t0 = std::time::Instant::now();
    let (touched, corpus) = match postings.filter(|p| p.files() == files.len()) {
        Some(postings) => {
            let (touched, df) = postings.gather(query, stop)?;
            let n = files.len() as f64;
            let avg_len = postings.total_len() as f64 / n.max(1.0);
            (touched, Corpus { n, avg_len, df })
        }
        None => {
            let gathered = gather_indexed(files, query, stop)?;
            let n = files.len() as f64;
            let avg_len = gathered.iter().map(|g| g.len() as f64).sum::<f64>() / n.max(1.0);
            let mut df = vec![0usize; query.terms.len()];
            for g in &gathered {
                for k in g.terms() {
                    df[k] += 1;
                }
            }
            let touched = gathered
                .into_iter()
                .enumerate()
                .filter(|(i, g)| g.touched() || files[*i].index.facts().named_by(query))
                .collect();
            (touched, Corpus { n, avg_len, df })
        }
    };
    let t_gather = t0.elapsed();
    let scored = bm25_of(&|i| files[i].index.facts(), touched, &corpus, query, stop)?;
    log::debug!(
        "rank: gather {t_gather:?}, score {:?}, {} files touched",
        t0.elapsed() - t_gather,
        scored.0.len()
    );
    finish(
        scored,
        Some(query),
        &|i| files[i].path,
        &|i| files[i].index.text_len(),
        outline,
        Some(prefetch),
        stop,
    )
}

/// Sort a scoring best first (ties by path), then re-score the best files with their
/// definitions when there is a query. `prefetch`, when given, is first handed every file whose
/// definitions the re-scoring will ask for, so that it can have them parsed at once.
fn finish<'p>(
    (mut scored, idf): Weighted,
    query: Option<&Query>,
    path: &dyn Fn(usize) -> &'p str,
    len: &dyn Fn(usize) -> usize,
    outline: &Outliner<'_>,
    prefetch: Option<&Prefetch<'_>>,
    stop: &dyn Fn() -> bool,
) -> Option<Weighted> {
    let order = |(ia, a): &(usize, Score), (ib, b): &(usize, Score)| {
        b.total
            .total_cmp(&a.total)
            .then_with(|| path(*ia).as_bytes().cmp(path(*ib).as_bytes()))
    };
    scored.sort_by(order);
    if let Some(q) = query {
        // The best files again, with their definitions as a field of their own: a name the
        // query names as written, defined here (whatever the language's syntax for it), and
        // the query's terms in definition names and doc lines.
        // The best matching files whose definitions fit the parse bounds, chosen once: handed
        // to `prefetch` first, then re-scored.
        let mut rescored = Vec::new();
        let mut parsed = 0;
        for (at, (i, score)) in scored.iter().take(RERANK).enumerate() {
            if !score.matched() {
                break;
            }
            let len = len(*i);
            if len > RERANK_FILE_BYTES || parsed + len > RERANK_BYTES {
                continue;
            }
            parsed += len;
            rescored.push(at);
        }
        if let Some(prefetch) = prefetch {
            let files: Vec<usize> = rescored.iter().map(|&at| scored[at].0).collect();
            prefetch(&files);
        }
        for &at in &rescored {
            if stop() {
                return None;
            }
            let (i, score) = &mut scored[at];
            if let Some(facts) = outline(*i) {
                resymbol(score, &facts, q, &idf);
            }
        }
        headers_declare(&mut scored, path);
        scored.sort_by(order);
    }
    Some((scored, idf))
}

#[cfg(test)]
mod tests;
