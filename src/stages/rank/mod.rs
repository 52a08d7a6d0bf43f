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
//! related terms learned from code (`related`) can bring more at a smaller one
//! ([`RELATED_WEIGHT`], off: measured without a held-out gain). Tests,
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
}

/// What a synonym from the checked-in table (`terms.rs`) weighs against a term of the
/// query itself.
pub const SYNONYM_WEIGHT: f64 = 0.4;

/// What a term from the learned relatedness table (`related.rs`) weighs against a term of the
/// query itself, times the relation's strength (0.1 to 1.0); 0 turns the table off. Off: at
/// 0.15, the best of four weights on dev, held-out NDCG@10 moved 0.823 → 0.824 (11 queries up,
/// 10 down, architecture 0.732 → 0.728), no gain (`docs/ranking-eval.md`).
pub const RELATED_WEIGHT: f64 = 0.0;

/// The fewest words a query must have for its terms to bring related terms: a name or two is
/// looked up as written.
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

    /// [`Query::parse`], with the learned table's related terms at `related_weight` (0: none).
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
        let own = terms.len();
        for (extra, word) in terms::synonyms(&terms) {
            terms.push(extra);
            words.push(word);
            weights.push(SYNONYM_WEIGHT);
        }
        if related_weight > 0.0 && q.split_whitespace().count() >= RELATED_MIN_WORDS {
            for (extra, strength) in related::expansions(&terms[..own], &terms) {
                words.push(extra.clone());
                terms.push(extra);
                weights.push(related_weight * strength);
            }
        }
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
mod tests {
    use super::*;

    /// A document for each `(path, text)`.
    fn files<'a>(files: &[(&'a str, &'a str)]) -> Vec<Doc<'a>> {
        files
            .iter()
            .map(|&(path, text)| Doc { path, text })
            .collect()
    }

    /// Each doc's index.
    fn indexes_of(docs: &[Doc<'_>]) -> Vec<FileIndex> {
        docs.iter()
            .map(|d| FileIndex::build(d.path, d.text))
            .collect()
    }

    /// The docs as indexed files, with their `indexes`.
    fn indexed_of<'a>(docs: &[Doc<'a>], indexes: &'a [FileIndex]) -> Vec<Indexed<'a>> {
        docs.iter()
            .zip(indexes)
            .map(|(d, index)| Indexed {
                path: d.path,
                index,
            })
            .collect()
    }

    fn ranked(docs: &[Doc<'_>], q: Option<&str>) -> Vec<(usize, Score)> {
        let q = q.map(|q| Query::parse(q).unwrap());
        rank(docs, q.as_ref(), &|_| None, &|| false).unwrap()
    }

    #[test]
    fn queries_over_a_bound_are_errors_that_name_the_limit() {
        let long = "word ".repeat(MAX_QUERY_BYTES / 5 + 1);
        let e = Query::parse(&long).unwrap_err().to_string();
        assert!(e.contains(&format!("{} bytes", long.len())), "{e}");
        assert!(e.contains(&MAX_QUERY_BYTES.to_string()), "{e}");
        // Distinct terms: `ab`, `ac`, ... two letters each, under the byte bound.
        let many: Vec<String> = (0..MAX_QUERY_TERMS + 1)
            .map(|i| {
                format!(
                    "q{}{}",
                    (b'a' + (i / 26) as u8) as char,
                    (b'a' + (i % 26) as u8) as char
                )
            })
            .collect();
        let many = many.join(" ");
        assert!(many.len() <= MAX_QUERY_BYTES);
        let e = Query::parse(&many).unwrap_err().to_string();
        assert!(e.contains("257 distinct terms"), "{e}");
        assert!(e.contains(&MAX_QUERY_TERMS.to_string()), "{e}");
        // At the bounds it is accepted.
        let at = Query::parse(&"x".repeat(MAX_QUERY_BYTES)).unwrap();
        assert_eq!(at.terms().len(), 1);
    }

    #[test]
    fn query_terms_are_distinct_in_first_appearance_order() {
        assert_eq!(
            query_terms("parse the Config, parse_config and CONFIG"),
            vec!["pars", "config", "parseconfig"]
        );
    }

    #[test]
    fn a_stop_word_written_as_a_name_is_searched_for() {
        // `From` alone is the trait, not the preposition; in a question it stays a stop word.
        assert_eq!(query_terms("From"), vec!["from"]);
        assert_eq!(query_terms("Self where"), vec!["self"]);
        assert_eq!(query_terms("Where DOES"), vec!["wher", "doe"]);
        // Stop words are known by their spelling, before stemming.
        assert!(query_terms("where does it").is_empty());
        assert_eq!(query_terms("convert From a string"), vec!["convert", "str"]);
        assert!(query_terms("from the").is_empty());
        let docs = files(&[
            (
                "convert.rs",
                "impl From<u8> for Byte { fn from(b: u8) -> Self { Byte(b) } }",
            ),
            ("other.rs", "fn unrelated() {}"),
        ]);
        let q = Query::parse("From").unwrap();
        let ranked = rank(&docs, Some(&q), &|_| None, &|| false).unwrap();
        assert_eq!(docs[ranked[0].0].path, "convert.rs");
    }

    #[test]
    fn ranking_stops_when_asked() {
        let docs = files(&[("a.rs", "fn a() {}")]);
        let q = Query::parse("a").unwrap();
        assert!(rank(&docs, Some(&q), &|_| None, &|| true).is_none());
        assert!(rank(&docs, None, &|_| None, &|| true).is_none());
    }

    #[test]
    fn identifiers_split_with_acronyms_whole() {
        assert_eq!(
            split_identifier("getHTTPResponse"),
            vec!["get", "HTTP", "Response"]
        );
        assert_eq!(
            split_identifier("snake_case_name"),
            vec!["snake", "case", "name"]
        );
        assert_eq!(split_identifier("XMLParser"), vec!["XML", "Parser"]);
        let mut terms = Vec::new();
        for_each_term("getHTTPResponse", |t| terms.push(t.to_string()));
        assert_eq!(terms, vec!["gethttprespons", "get", "http", "respons"]);
    }

    #[test]
    fn default_order_puts_readme_first_and_locks_last() {
        let paths = [
            "Cargo.lock",
            "tests/it.rs",
            "src/util.rs",
            "README.md",
            "src/main.rs",
            "vendor/x/y.rs",
            "Cargo.toml",
        ];
        let docs: Vec<Doc> = paths.iter().map(|p| Doc { path: p, text: "x" }).collect();
        let order: Vec<&str> = ranked(&docs, None).iter().map(|(i, _)| paths[*i]).collect();
        assert_eq!(
            order,
            vec![
                "Cargo.toml",
                "README.md",
                "src/main.rs",
                "src/util.rs",
                "tests/it.rs",
                "vendor/x/y.rs",
                "Cargo.lock"
            ]
        );
    }

    #[test]
    fn query_prefers_files_that_define_and_mention_it() {
        let docs = files(&[
            ("src/a.rs", "fn unrelated() {}"),
            (
                "src/http.rs",
                "pub fn get_http_response() -> Response { todo() }",
            ),
            ("src/b.rs", "let r = get_http_response(); // http response"),
        ]);
        let r = ranked(&docs, Some("getHTTPResponse"));
        assert_eq!(r[0].0, 1, "{r:?}");
        assert_eq!(r[1].0, 2);
        assert_eq!(r[2].0, 0);
        assert!(r[0].1.parts.iter().any(|p| p.0 == Part::DefinesSymbol));
    }

    #[test]
    fn only_whole_query_words_name_files_and_symbols() {
        let docs = files(&[
            ("src/map.rs", "pub struct Map; fn get(&self) {}"),
            (
                "src/de.rs",
                "pub struct Deserializer; fn deserialize_map() { map }",
            ),
        ]);
        // `map` is only a part of `deserialize_map`: map.rs is not "named" by the query.
        let r = ranked(&docs, Some("Deserializer::deserialize_map"));
        assert_eq!(r[0].0, 1, "{r:?}");
        assert!(r[1].1.parts.iter().all(|p| p.0 != Part::NamesFile));
        // Asked for by its whole name, it is.
        let r = ranked(&docs, Some("map"));
        assert_eq!(r[0].0, 0, "{r:?}");
        assert!(r[0].1.parts.iter().any(|p| p.0 == Part::NamesFile));
    }

    /// Of two files of the same `text` at `paths` (`[less, plain]`), `less` ranks second for
    /// `query` and its score has the part `part`; for `asking` (a query asking for such files)
    /// no score has it.
    fn counts_for_less_unless_asked(
        paths: [&str; 2],
        text: &str,
        query: &str,
        asking: &str,
        part: Part,
    ) {
        let docs = files(&[(paths[0], text), (paths[1], text)]);
        let r = ranked(&docs, Some(query));
        assert_eq!(r[0].0, 1, "{r:?}");
        assert!(r[1].1.parts.iter().any(|p| p.0 == part));
        let r = ranked(&docs, Some(asking));
        assert!(r.iter().all(|(_, s)| s.parts.iter().all(|p| p.0 != part)));
    }

    #[test]
    fn tests_count_for_less_unless_asked_for() {
        counts_for_less_unless_asked(
            ["tests/header.rs", "src/header.rs"],
            "fn parse_header() { parse_header() }",
            "parse_header",
            "tests for parse_header",
            Part::SecondaryFile,
        );
    }

    #[test]
    fn prose_counts_half_unless_docs_are_asked_for() {
        counts_for_less_unless_asked(
            ["docs/notes.md", "src/backoff.rs"],
            "the retry delay grows with each attempt",
            "retry delay",
            "retry delay docs",
            Part::DocsFile,
        );
    }

    #[test]
    fn inflections_meet_and_names_ignore_dashes() {
        let terms = |text: &str| {
            let mut out = Vec::new();
            for_each_term(text, |t| out.push(t.to_string()));
            out
        };
        assert_eq!(
            terms("timers entries entry class status is"),
            vec!["timer", "entri", "entri", "class", "status", "is"]
        );
        // A question's verbs and nouns meet the code's names, whatever their ending.
        assert_eq!(
            terms("trace traced tracing parse parser parsing stopped stop called"),
            vec![
                "trac", "trac", "trac", "pars", "pars", "pars", "stop", "stop", "call"
            ]
        );
        assert_eq!(terms("scheduler scheduled schedules"), vec!["schedul"; 3]);
        let docs = files(&[
            ("lib/permessage-deflate.js", "module.exports = X;"),
            ("lib/other.js", "PerMessageDeflate PerMessageDeflate"),
        ]);
        let r = ranked(&docs, Some("PerMessageDeflate"));
        assert!(
            r.iter()
                .any(|(i, s)| *i == 0 && s.parts.iter().any(|p| p.0 == Part::NamesFile))
        );
    }

    #[test]
    fn definitions_from_the_parser_rescore_the_best_files() {
        use crate::vocab::{LineRange, Symbol, SymbolKind};
        let sym = |name: &str, doc: Option<&str>| Symbol {
            kind: SymbolKind::Function,
            name: name.into(),
            signature: String::new(),
            lines: LineRange { start: 1, end: 1 },
            body: None,
            doc: doc.map(String::from),
            children: Vec::new(),
        };
        // A C definition has no keyword before its name: only the parser knows lvm.c defines it.
        let docs = files(&[
            ("src/ldo.c", "luaV_execute(L, ci); luaV_execute(L, ci);"),
            ("src/lvm.c", "void luaV_execute (lua_State *L) { }"),
        ]);
        let q = Query::parse("luaV_execute").unwrap();
        let outline = |i: usize| {
            (i == 1).then(|| Arc::new(SymbolFacts::of(&[sym("luaV_execute", Some("run the vm"))])))
        };
        let r = rank(&docs, Some(&q), &outline, &|| false).unwrap();
        assert_eq!(r[0].0, 1, "{r:?}");
        assert!(r[0].1.parts.iter().any(|p| p.0 == Part::DefinesSymbol));
        let without = rank(&docs, Some(&q), &|_| None, &|| false).unwrap();
        assert_eq!(without[0].0, 0, "{without:?}");
        // Deterministic: the same ranking every time.
        assert_eq!(r, rank(&docs, Some(&q), &outline, &|| false).unwrap());
    }

    #[test]
    fn indexed_ranking_with_or_without_postings_is_the_texts_ranking_of_touched_files() {
        let docs = files(&[
            ("src/retry.rs", "pub fn retry_with_backoff() { backoff(); }"),
            (
                "src/parse/header.rs",
                "pub fn parse_header(x: u32) {}\n// header header",
            ),
            (
                "src/parse/mod.rs",
                "mod header; pub use header::parse_header;",
            ),
            (
                "tests/header_test.rs",
                "fn parse_header_works() { parse_header(1) }",
            ),
            (
                "README.md",
                "# Headers\n\nParsing headers, with retry and backoff.",
            ),
            ("src/a/a.rs", "fn unrelated() {}"),
            ("src/empty.rs", ""),
            (
                "src/backoff.rs",
                "//! The delay between attempts.\nfn retry_header() {}",
            ),
            ("Makefile", "retry:\n\tcargo run -- retry header"),
            (
                "index.d.ts",
                "export function parseHeader(): void; // retry",
            ),
        ]);
        let indexes = indexes_of(&docs);
        let indexed = indexed_of(&docs, &indexes);
        let refs: Vec<&FileIndex> = indexes.iter().collect();
        let postings = Postings::build(&refs, &|| false).unwrap();
        assert!(
            Postings::build(&refs, &|| true).is_none(),
            "a build stops when asked"
        );
        let matched = |w: Weighted| -> Vec<(usize, Score)> {
            w.0.into_iter().filter(|(_, s)| s.matched()).collect()
        };
        for q in [
            "parse header",
            "retry backoff",
            "a",
            "header test",
            "headers docs",
            "zzz nothing",
        ] {
            let Ok(query) = Query::parse(q) else { continue };
            if query.terms().is_empty() {
                continue;
            }
            let text = rank_weighted(&docs, Some(&query), &|_| None, &|| false).unwrap();
            let without =
                rank_indexed(&indexed, None, &query, &|_| None, &|_| {}, &|| false).unwrap();
            let with = rank_indexed(
                &indexed,
                Some(&postings),
                &query,
                &|_| None,
                &|_| {},
                &|| false,
            )
            .unwrap();
            assert_eq!(text.1, without.1, "{q}: term weights");
            assert_eq!(without.1, with.1, "{q}: term weights");
            let text = matched(text);
            assert_eq!(text, matched(without), "{q}");
            assert_eq!(text, matched(with), "{q}");
        }
        // Files indexed again, in place: the patched postings rank as postings built afresh,
        // and patching twice (a second edit) as well.
        let edits = [
            (1, "pub fn retry_header() {}\n// backoff backoff"),
            (3, "fn header_test() { retry() }"),
            (1, "pub fn parse_header_again() {}"),
        ];
        let mut texts: Vec<&str> = docs.iter().map(|d| d.text).collect();
        let mut patched = postings;
        for (at, text) in edits {
            texts[at] = text;
            let docs: Vec<Doc<'_>> = docs
                .iter()
                .zip(&texts)
                .map(|(d, &text)| Doc { path: d.path, text })
                .collect();
            let indexes = indexes_of(&docs);
            let indexed = indexed_of(&docs, &indexes);
            let refs: Vec<&FileIndex> = indexes.iter().collect();
            patched = patched.patched(&refs, &[at], &|| false).unwrap();
            let fresh = Postings::build(&refs, &|| false).unwrap();
            assert_eq!(patched.total_len(), fresh.total_len());
            for q in ["parse header", "retry backoff", "header test", "again"] {
                let query = Query::parse(q).unwrap();
                let rank = |p: &Postings| {
                    let w = rank_indexed(&indexed, Some(p), &query, &|_| None, &|_| {}, &|| false)
                        .unwrap();
                    let idf = w.1.clone();
                    (matched(w), idf)
                };
                assert_eq!(rank(&patched), rank(&fresh), "{q} after editing file {at}");
            }
        }
    }

    #[test]
    fn a_file_that_defines_what_is_asked_for_ranks_above_one_that_uses_it() {
        // The same words, in a definition's name and in calls; the shorter file would win on
        // BM25 alone. The words in reverse order name nothing (no `defines_symbol`).
        let docs = files(&[
            ("src/a.rs", "fn run() { lifetime(); elide(); }"),
            ("src/b.rs", "fn elide_lifetime() {}\nfn run() {}"),
        ]);
        let r = ranked(&docs, Some("lifetime elide"));
        assert_eq!(docs[r[0].0].path, "src/b.rs", "{r:?}");
        assert!(r[0].1.parts.iter().all(|p| p.0 != Part::DefinesSymbol));
    }

    #[test]
    fn auxiliary_files_count_for_less_unless_named_or_asked_for() {
        counts_for_less_unless_asked(
            ["index.d.ts", "src/header.ts"],
            "export function parseHeader(): void;",
            "parse header",
            "parse header declarations",
            Part::AuxiliaryFile,
        );
        // A manifest comes first by default; for a query it counts half, unless it is named.
        let text = "install: cp bin/tool /usr/local/bin";
        let docs = files(&[
            ("Makefile", text),
            ("install.sh", text),
            ("src/other.rs", "fn x() {}"),
            ("src/more.rs", "fn y() {}"),
        ]);
        let r = ranked(&docs, Some("install tool"));
        assert_eq!(docs[r[0].0].path, "install.sh", "{r:?}");
        assert!(r[1].1.parts.iter().any(|p| p.0 == Part::AuxiliaryFile));
        let r = ranked(&docs, Some("install tool makefile"));
        assert_eq!(docs[r[0].0].path, "Makefile", "{r:?}");
        assert!(
            r.iter()
                .all(|(_, s)| s.parts.iter().all(|p| p.0 != Part::AuxiliaryFile))
        );
        // Named by its stem alone, it still counts half; with its extension, it is named.
        let docs = files(&[
            ("Makefile.am", text),
            ("package.json", "{\"scripts\": {\"install\": \"tool\"}}"),
            ("install.sh", text),
        ]);
        let aux = |r: &[(usize, Score)], path: &str| {
            r.iter()
                .find(|(i, _)| docs[*i].path == path)
                .is_some_and(|(_, s)| s.parts.iter().any(|p| p.0 == Part::AuxiliaryFile))
        };
        let r = ranked(&docs, Some("install tool makefile package"));
        assert!(aux(&r, "Makefile.am") && aux(&r, "package.json"), "{r:?}");
        let r = ranked(&docs, Some("install tool Makefile.am package.json"));
        assert!(!aux(&r, "Makefile.am") && !aux(&r, "package.json"), "{r:?}");
    }

    #[test]
    fn words_in_a_row_name_a_compound_file() {
        let docs = files(&[
            (
                "gson/JsonObject.java",
                "class JsonObject { JsonArray getAsJsonArray(String memberName); \
                       json array json array json array }",
            ),
            (
                "gson/JsonArray.java",
                "public final class JsonArray extends JsonElement { }",
            ),
            (
                "gson/JsonWriter.java",
                "class JsonWriter { void beginArray() {} }",
            ),
        ]);
        let r = ranked(&docs, Some("JSON array"));
        assert_eq!(docs[r[0].0].path, "gson/JsonArray.java", "{r:?}");
        assert!(r[0].1.parts.iter().any(|p| p.0 == Part::NamesFile));
        // Not in that order: no compound.
        let r = ranked(&docs, Some("array JSON"));
        assert!(
            r.iter()
                .all(|(_, s)| s.parts.iter().all(|p| p.0 != Part::NamesFile)),
            "{r:?}"
        );
    }

    #[test]
    fn words_that_name_parts_of_a_file_name_boost_it_by_the_share_they_name() {
        let docs = files(&[
            ("src/GroupHandler.php", "class GroupHandler {}"),
            (
                "src/WhatFailureGroupHandler.php",
                "class WhatFailureGroupHandler {}",
            ),
            ("src/Logger.php", "class Logger {}"),
            ("src/map.rs", "fn get() {}"),
            ("src/de.rs", "fn deserialize_map() {}"),
        ]);
        let boost = |r: &[(usize, Score)], path: &str| {
            r.iter()
                .find(|(i, _)| docs[*i].path == path)
                .and_then(|(_, s)| s.parts.iter().find(|p| p.0 == Part::NamesFileParts))
                .map(|p| p.1)
        };
        // Any order, any inflection: all of `GroupHandler`'s parts, three of the four of
        // `WhatFailureGroupHandler`'s.
        let r = ranked(&docs, Some("handlers of a group tolerate failures"));
        assert_eq!(boost(&r, "src/GroupHandler.php"), Some(6.0), "{r:?}");
        assert_eq!(
            boost(&r, "src/WhatFailureGroupHandler.php"),
            Some(4.5),
            "{r:?}"
        );
        assert_eq!(boost(&r, "src/Logger.php"), None, "{r:?}");
        // A file the query names whole has the file's boost instead.
        let r = ranked(&docs, Some("group handler"));
        assert_eq!(boost(&r, "src/GroupHandler.php"), None, "{r:?}");
        // The parts of an identifier in the query name nothing on their own.
        let r = ranked(&docs, Some("deserialize_map"));
        assert_eq!(boost(&r, "src/map.rs"), None, "{r:?}");
    }

    #[test]
    fn a_define_names_a_macro_as_a_definition_does() {
        // The macro's uses outnumber its definition; `#define` says which file defines it.
        let docs = files(&[
            (
                "src/lvm.c",
                "if (n >= LUAI_MAXCCALLS) error(L); /* LUAI_MAXCCALLS */ \
                 check(L, LUAI_MAXCCALLS - n);",
            ),
            (
                "src/llimits.h",
                "/* limits */\n#define LUAI_MAXCCALLS\t200\n",
            ),
        ]);
        let r = ranked(&docs, Some("LUAI_MAXCCALLS"));
        assert_eq!(docs[r[0].0].path, "src/llimits.h", "{r:?}");
        assert!(r[0].1.parts.iter().any(|p| p.0 == Part::DefinesSymbol));
        assert_eq!(defined_names("#define SQ(x) ((x) * (x))"), ["sq"]);
        // `define` as a word of prose, or joined to another word, defines nothing.
        assert!(defined_names("we define the limit; x#define y; #defined z").is_empty());
    }

    #[test]
    fn synonyms_bridge_vocabularies_at_a_lesser_weight() {
        let q = Query::parse("waiting for several futures").unwrap();
        assert!(q.terms().iter().any(|t| t == "select"), "{:?}", q.terms());
        let docs = files(&[
            (
                "src/select.rs",
                "/// Polls several branches and returns the first to complete.\n\
                       pub fn select() {}",
            ),
            ("src/other.rs", "pub fn unrelated() {}"),
        ]);
        let r = ranked(&docs, Some("waiting for several futures"));
        assert_eq!(r[0].0, 0, "{r:?}");
        // The query's own word outweighs its synonym.
        let docs = files(&[("src/a.rs", "select select"), ("src/b.rs", "wait wait")]);
        let r = ranked(&docs, Some("wait"));
        assert_eq!(r[0].0, 1, "{r:?}");
    }

    #[test]
    fn a_question_brings_related_terms_from_the_learned_table_at_a_small_weight() {
        let brought = |weight: f64| -> Vec<(String, f64)> {
            let q = Query::parse_relating("open a socket to the server", weight).unwrap();
            assert_eq!(q.terms.len(), q.words.len());
            let own = Query::parse_relating("open socket server", 0.0).unwrap();
            q.terms
                .iter()
                .zip(q.weights.iter().copied())
                .filter(|(t, _)| !own.terms.contains(t))
                .map(|(t, w)| (t.clone(), w))
                .collect()
        };
        let on = brought(0.15);
        assert!(!on.is_empty());
        assert!(on.iter().all(|(_, w)| *w > 0.0 && *w <= 0.15), "{on:?}");
        assert!(brought(0.0).is_empty());
        // A name or two is looked up as written: nothing is brought, whatever the weight.
        let short = |weight| {
            Query::parse_relating("socket server", weight)
                .unwrap()
                .terms
        };
        assert_eq!(short(0.15), short(0.0));
    }
}
