//! Rank stage: which files matter most, so that a token budget keeps the useful ones.
//!
//! Without a query the order is a fixed, deterministic prior: README and manifests first, then
//! entry points, core sources, docs and config, then tests, examples, fixtures, generated and
//! vendored files, and lock files last; shallower and smaller files first within a class.
//!
//! With a query, files are scored with BM25 over code-aware terms (identifiers split on
//! snake_case and camelCase, acronyms kept whole: `getHTTPResponse` → get, http, response, plus
//! the whole identifier), where path components count as terms too, plus boosts when the query
//! names a file, a directory, or a symbol the file defines. Only whole query words name things
//! (`deserialize_map` names `deserialize_map`, not `map.rs`). Tests, examples, fixtures and
//! generated files count half, unless the query asks for tests or examples. The prior breaks
//! ties. Every score is explainable: [`Score::parts`] lists what it is made of. The choices are
//! measured in `docs/ranking-eval.md` (`scripts/eval-ranking.sh`).
//!
//! Ranking decides only what is kept; the rendered output stays sorted by path.
//!
//! A query is bounded: at most [`MAX_QUERY_BYTES`] bytes and [`MAX_QUERY_TERMS`] distinct terms
//! ([`Query::parse`]); over either bound it is an error that names the limit, never silently
//! cut. Ranking costs one pass over every file's text and path plus a sort, and stops between
//! files when the caller cancels.

use crate::error::Error;
use crate::vocab::Symbol;
use std::collections::{HashMap, HashSet};

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
    pub text: &'a str,
}

/// A file's score and what it is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    pub total: f64,
    pub parts: Vec<(&'static str, f64)>,
}

impl Score {
    /// Whether the query touched the file: any part of the score besides the prior.
    pub fn matched(&self) -> bool {
        self.parts
            .iter()
            .any(|(name, v)| *name != "prior" && *name != "secondary_file" && *v > 0.0)
    }
}

/// A query, split into its terms and the names it mentions, within the bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// Distinct terms, in order of first appearance.
    terms: Vec<String>,
    /// Distinct whole words (see [`query_names`]).
    names: Vec<String>,
}

impl Query {
    /// Split `q` into terms and names, or say which bound it exceeds. Linear in `q`'s length.
    pub fn parse(q: &str) -> Result<Query, Error> {
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
        let terms = query_terms(q);
        if terms.len() > MAX_QUERY_TERMS {
            return Err(Error::Usage {
                message: format!(
                    "the query has {} distinct terms; the limit is {MAX_QUERY_TERMS}: {advice}",
                    terms.len()
                ),
            });
        }
        Ok(Query {
            terms,
            names: query_names(q),
        })
    }

    /// The query's distinct terms, in order of first appearance.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// The query's whole words, lowercased and without underscores (what names a file, a
    /// directory or a symbol).
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// BM25 parameters (the usual defaults).
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Boosts when the query names the file, a directory on its path, or a symbol it defines.
const FILE_BOOST: f64 = 6.0;
const DIR_BOOST: f64 = 2.0;
const SYMBOL_BOOST: f64 = 4.0;
/// What a test, example, fixture or generated file's relevance is multiplied by.
const SECONDARY_FACTOR: f64 = 0.5;
/// Weight of a term occurrence in the path relative to one in the contents.
const PATH_WEIGHT: usize = 5;

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

/// The definitions of doc `i` (from the syntax stage), `None` when its language has no grammar
/// or the parse was skipped. Asked for at most [`RERANK`] files per query, each at most
/// [`RERANK_FILE_BYTES`], [`RERANK_BYTES`] in all.
pub type Outliner<'a> = dyn Fn(usize) -> Option<Vec<Symbol>> + 'a;

/// How many of the best files are re-scored with their definitions.
pub const RERANK: usize = 30;
/// Largest file parsed for the re-scoring, and most bytes parsed for one query: tree-sitter
/// parses about 1 MB/s of ordinary code, so this keeps the re-scoring to a few hundred ms.
pub const RERANK_FILE_BYTES: usize = 128 << 10;
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
    let mut idf = Vec::new();
    let mut rerank = None;
    let mut scored: Vec<(usize, Score)> = match query {
        Some(q) if !q.terms.is_empty() => {
            let (scored, weights) = bm25(docs, q, stop)?;
            idf = weights;
            rerank = Some(q);
            scored
        }
        _ => {
            let mut out = Vec::with_capacity(docs.len());
            for (i, d) in docs.iter().enumerate() {
                if stop() {
                    return None;
                }
                out.push((i, prior(d.path, d.text.len())));
            }
            out
        }
    };
    scored.sort_by(|(ia, a), (ib, b)| {
        b.total
            .total_cmp(&a.total)
            .then_with(|| docs[*ia].path.as_bytes().cmp(docs[*ib].path.as_bytes()))
    });
    if let Some(q) = rerank {
        // The best files again, with their definitions as a field of their own: a name the
        // query names as written, defined here (whatever the language's syntax for it), and
        // the query's terms in definition names and doc lines.
        let named: HashSet<&str> = q.names.iter().map(String::as_str).collect();
        let wanted: HashMap<&str, usize> = q
            .terms
            .iter()
            .enumerate()
            .map(|(k, t)| (t.as_str(), k))
            .collect();
        let mut parsed = 0;
        for (i, score) in scored.iter_mut().take(RERANK) {
            if stop() {
                return None;
            }
            if !score.matched() {
                break;
            }
            let len = docs[*i].text.len();
            if len > RERANK_FILE_BYTES || parsed + len > RERANK_BYTES {
                continue;
            }
            parsed += len;
            if let Some(symbols) = outline(*i) {
                resymbol(score, &symbols, &named, &wanted, &idf);
            }
        }
        scored.sort_by(|(ia, a), (ib, b)| {
            b.total
                .total_cmp(&a.total)
                .then_with(|| docs[*ia].path.as_bytes().cmp(docs[*ib].path.as_bytes()))
        });
    }
    Some((scored, idf))
}

/// Weight of the query's terms found in definition names and doc lines, relative to their
/// weight in the text.
const SYMBOL_TERMS_WEIGHT: f64 = 0.5;

/// Re-score one file with its definitions: the keyword guess at defined names is replaced by the
/// parser's, and the query's terms in names and doc lines count as a field of their own.
fn resymbol(
    score: &mut Score,
    symbols: &[Symbol],
    named: &HashSet<&str>,
    wanted: &HashMap<&str, usize>,
    idf: &[f64],
) {
    let mut defined: HashSet<String> = HashSet::new();
    let mut found: Vec<bool> = vec![false; idf.len()];
    for (_, s) in Symbol::walk(symbols) {
        // `Foo::bar` and `Foo.bar` name `bar` too.
        let last = s.name.rsplit([':', '.']).next().unwrap_or(&s.name);
        for n in [s.name.as_str(), last] {
            let norm: String = n
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect();
            if named.contains(norm.as_str()) {
                defined.insert(norm);
            }
        }
        for field in [Some(s.name.as_str()), s.doc.as_deref()]
            .into_iter()
            .flatten()
        {
            for_each_term(field, |t| {
                if let Some(&k) = wanted.get(t) {
                    found[k] = true;
                }
            });
        }
    }
    let factor = if score.parts.iter().any(|p| p.0 == "secondary_file") {
        SECONDARY_FACTOR
    } else {
        1.0
    };
    let mut delta = 0.0;
    if let Some(p) = score.parts.iter_mut().find(|p| p.0 == "defines_symbol") {
        delta -= p.1 * factor;
        p.1 = 0.0;
    }
    score
        .parts
        .retain(|p| !(p.0 == "defines_symbol" && p.1 == 0.0));
    let mut add = |name: &'static str, v: f64, parts: &mut Vec<(&'static str, f64)>| {
        if v > 0.0 {
            let at = parts
                .iter()
                .position(|p| p.0 == "secondary_file" || p.0 == "docs_file" || p.0 == "prior");
            parts.insert(at.unwrap_or(parts.len()), (name, v));
            delta += v * factor;
        }
    };
    add(
        "defines_symbol",
        SYMBOL_BOOST * defined.len() as f64,
        &mut score.parts,
    );
    let terms: f64 = found
        .iter()
        .enumerate()
        .filter(|(_, f)| **f)
        .map(|(k, _)| idf[k])
        .sum();
    add(
        "symbol_terms",
        SYMBOL_TERMS_WEIGHT * terms,
        &mut score.parts,
    );
    score.total += delta;
}

fn bm25(docs: &[Doc<'_>], query: &Query, stop: &dyn Fn() -> bool) -> Option<Weighted> {
    // Each term by its position in the query: per-file frequencies are kept by position and
    // summed in query order, so a score does not depend on a hash map's iteration order.
    let wanted: HashMap<&str, usize> = query
        .terms
        .iter()
        .enumerate()
        .map(|(k, t)| (t.as_str(), k))
        .collect();
    let named: HashSet<&str> = query.names.iter().map(String::as_str).collect();
    // Tests, examples, fixtures and generated files usually only use what a query is about;
    // they count for less, unless the query asks for them.
    let wants_tests = named.iter().any(|n| TEST_WORDS.contains(n));
    // Prose (docs, READMEs, changelogs) explains; the code defines. It counts for less, unless
    // the query asks for documentation.
    let wants_docs = named.iter().any(|n| DOC_WORDS.contains(n));
    // Term frequencies of the query's terms only: everything else is irrelevant to the score.
    let mut per_doc: Vec<(Vec<(usize, usize)>, usize)> = Vec::with_capacity(docs.len());
    let mut df = vec![0usize; query.terms.len()];
    for d in docs {
        if stop() {
            return None;
        }
        let mut tf: HashMap<usize, usize> = HashMap::new();
        let mut len = 0;
        let mut add = |t: &str, w: usize| {
            len += w;
            if let Some(&k) = wanted.get(t) {
                *tf.entry(k).or_default() += w;
            }
        };
        for_each_term(d.text, |t| add(t, 1));
        for_each_term(d.path, |t| add(t, PATH_WEIGHT));
        let mut tf: Vec<(usize, usize)> = tf.into_iter().collect();
        tf.sort_unstable();
        for &(k, _) in &tf {
            df[k] += 1;
        }
        per_doc.push((tf, len));
    }
    let n = docs.len() as f64;
    let avg_len = per_doc.iter().map(|(_, l)| *l as f64).sum::<f64>() / n.max(1.0);
    let mut out = Vec::with_capacity(docs.len());
    for (i, d) in docs.iter().enumerate() {
        if stop() {
            return None;
        }
        out.push(score_one(
            i,
            d,
            &per_doc[i],
            &df,
            n,
            avg_len,
            &named,
            (wants_tests, wants_docs),
        ));
    }
    let idf = df.iter().map(|&d| idf(n, d as f64)).collect();
    Some((out, idf))
}

/// BM25's inverse document frequency of a term found in `dfi` of `n` files.
fn idf(n: f64, dfi: f64) -> f64 {
    ((n - dfi + 0.5) / (dfi + 0.5) + 1.0).ln()
}

/// One file's BM25 score with its boosts and the prior.
#[allow(clippy::too_many_arguments)]
fn score_one(
    i: usize,
    d: &Doc<'_>,
    (tf, len): &(Vec<(usize, usize)>, usize),
    df: &[usize],
    n: f64,
    avg_len: f64,
    named: &HashSet<&str>,
    (wants_tests, wants_docs): (bool, bool),
) -> (usize, Score) {
    let mut text_score = 0.0;
    for &(k, f) in tf {
        let f = f as f64;
        let norm = f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * *len as f64 / avg_len.max(1.0)));
        text_score += idf(n, df[k] as f64) * norm;
    }
    let (file_hit, dir_hit) = path_hits(d.path, named);
    let symbol_hits = defined_symbols(d.text)
        .filter(|s| named.contains(s.as_str()))
        .collect::<HashSet<_>>()
        .len();
    let base = prior(d.path, d.text.len());
    let mut parts = vec![("bm25", text_score)];
    if file_hit {
        parts.push(("names_file", FILE_BOOST));
    }
    if dir_hit {
        parts.push(("names_directory", DIR_BOOST));
    }
    if symbol_hits > 0 {
        parts.push(("defines_symbol", SYMBOL_BOOST * symbol_hits as f64));
    }
    let mut relevant = parts.iter().map(|p| p.1).sum::<f64>();
    if !wants_tests && class_of(d.path) >= Class::Test && relevant > 0.0 {
        parts.push(("secondary_file", -relevant * (1.0 - SECONDARY_FACTOR)));
        relevant *= SECONDARY_FACTOR;
    } else if !wants_docs && is_prose(d.path) && relevant > 0.0 {
        parts.push(("docs_file", -relevant * (1.0 - SECONDARY_FACTOR)));
        relevant *= SECONDARY_FACTOR;
    }
    // The prior is scaled down so it only breaks ties between relevant files, and keeps files
    // the query does not touch in their default order below all that it does.
    let prior_part = base.total / 1000.0;
    parts.push(("prior", prior_part));
    let total = if relevant > 0.0 {
        relevant + prior_part
    } else {
        prior_part - 10.0
    };
    (i, Score { total, parts })
}

/// A run of lines of a file that matches a query well: what a reader should look at first.
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    /// First and last line, 1-based, inclusive.
    pub start: u32,
    pub end: u32,
    pub score: f64,
    /// The query terms found in it (indices into [`Query::terms`]), in query order.
    pub terms: Vec<usize>,
}

/// The most lines a region found by [`regions`] spans.
pub const REGION_LINES: usize = 12;

/// The best non-overlapping regions of `text` for `query`, at most `max`, best first; `idf`
/// weighs each term (from [`rank_weighted`]). A window of [`REGION_LINES`] lines scores the
/// weights of the distinct terms it holds, plus a quarter of its lines' own scores (each line:
/// the weights of its distinct terms, more where it holds a word the query names as written,
/// and more again where it defines it); it is then trimmed to its first and last matching line
/// (with two lines of context on each side when that leaves fewer than five).
/// Regions under a third of the best one's score are left out. Linear in `text`'s length (a
/// sort of the windows aside); `None` when `stop` returned true (asked every 4096 lines).
pub fn regions(
    text: &str,
    query: &Query,
    idf: &[f64],
    max: usize,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<Region>> {
    let wanted: HashMap<&str, usize> = query
        .terms
        .iter()
        .enumerate()
        .map(|(k, t)| (t.as_str(), k))
        .collect();
    let named: HashSet<&str> = query.names.iter().map(String::as_str).collect();
    let weight = |k: usize| idf.get(k).copied().unwrap_or(1.0).max(0.1);
    // Per line: its score, and its distinct terms (as a range of `hits`).
    let mut line_score: Vec<f64> = Vec::new();
    let mut line_hits: Vec<(usize, usize)> = Vec::new();
    let mut hits: Vec<usize> = Vec::new();
    let mut seen_on: Vec<usize> = vec![usize::MAX; query.terms.len()];
    for (li, line) in text.split('\n').enumerate() {
        if li % 4096 == 0 && stop() {
            return None;
        }
        let from = hits.len();
        let mut score = 0.0;
        let mut names_here = false;
        for_each_term(line, |t| {
            if let Some(&k) = wanted.get(t)
                && seen_on[k] != li
            {
                seen_on[k] = li;
                hits.push(k);
                score += weight(k);
            }
            if named.contains(t) {
                names_here = true;
            }
        });
        if names_here {
            score += 2.0;
            if defined_symbols(line).any(|s| named.contains(s.as_str())) {
                score += 4.0;
            }
        }
        line_score.push(score);
        line_hits.push((from, hits.len()));
    }
    let lines = line_score.len();
    let w = REGION_LINES.min(lines.max(1));
    // Slide the window: counts of each term inside, the weight of the distinct ones, and the
    // sum of the line scores.
    let mut count = vec![0usize; query.terms.len()];
    let mut distinct = 0.0;
    let mut sum = 0.0;
    let mut windows: Vec<(f64, usize)> = Vec::new();
    for end in 0..lines {
        let (a, b) = line_hits[end];
        for &k in &hits[a..b] {
            if count[k] == 0 {
                distinct += weight(k);
            }
            count[k] += 1;
        }
        sum += line_score[end];
        if end >= w {
            let out = end - w;
            let (a, b) = line_hits[out];
            for &k in &hits[a..b] {
                count[k] -= 1;
                if count[k] == 0 {
                    distinct -= weight(k);
                }
            }
            sum -= line_score[out];
        }
        if end + 1 >= w {
            let score = distinct + sum / 4.0;
            if score > 1e-9 {
                windows.push((score, end + 1 - w));
            }
        }
    }
    windows.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let best = windows.first().map_or(0.0, |w| w.0);
    let mut out: Vec<Region> = Vec::new();
    for (score, start) in windows {
        if out.len() >= max || score < best / 3.0 {
            break;
        }
        // Trim to the matching lines.
        let Some(first) = (start..start + w).find(|&l| line_score[l] > 0.0) else {
            continue;
        };
        let last = (start..start + w)
            .rev()
            .find(|&l| line_score[l] > 0.0)
            .unwrap_or(first);
        // A short region gets two lines of context on each side.
        let (first, last) = if last - first + 1 < 5 {
            (first.saturating_sub(2), (last + 2).min(lines - 1))
        } else {
            (first, last)
        };
        let (s, e) = (first as u32 + 1, last as u32 + 1);
        if out.iter().any(|r| s <= r.end && r.start <= e) {
            continue;
        }
        let mut terms: Vec<usize> = (first..=last)
            .flat_map(|l| hits[line_hits[l].0..line_hits[l].1].iter().copied())
            .collect();
        terms.sort_unstable();
        terms.dedup();
        out.push(Region {
            start: s,
            end: e,
            score,
            terms,
        });
    }
    Some(out)
}

/// Whether the query names the file (its name or stem) or a directory on its path.
fn path_hits(path: &str, wanted: &HashSet<&str>) -> (bool, bool) {
    let mut comps: Vec<&str> = path.split('/').collect();
    let name = comps.pop().unwrap_or("");
    let stem = name.split('.').next().unwrap_or(name);
    // Lowercased, without `_`, `-` or `.` (`permessage-deflate` is named by `PerMessageDeflate`).
    let lower = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-' | '.'))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let file = (!stem.is_empty() && wanted.contains(lower(stem).as_str()))
        || wanted.contains(name.to_ascii_lowercase().as_str());
    let dir = comps.iter().any(|c| wanted.contains(lower(c).as_str()));
    (file, dir)
}

/// Names the file defines, lowercased and without underscores (as whole-identifier terms are):
/// `fn x`, `struct X`, `class X`, `def x`, `func X`, ... Not `type X`: in Rust that is mostly an
/// associated type (`type Error = ...;`) that repeats a trait's vocabulary in every impl.
fn defined_symbols(text: &str) -> impl Iterator<Item = String> + '_ {
    const KEYWORDS: &[&str] = &[
        "fn",
        "struct",
        "enum",
        "trait",
        "mod",
        "class",
        "def",
        "func",
        "interface",
        "function",
        "const",
        "static",
        "impl",
        "macro_rules!",
    ];
    let mut words = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
        .filter(|w| !w.is_empty());
    let mut prev_kw = false;
    std::iter::from_fn(move || {
        for w in words.by_ref() {
            if prev_kw {
                prev_kw = KEYWORDS.contains(&w);
                if !KEYWORDS.contains(&w) {
                    return Some(w.replace('_', "").to_lowercase());
                }
            } else {
                prev_kw = KEYWORDS.contains(&w);
            }
        }
        None
    })
}

/// Query words that ask for documentation itself.
const DOC_WORDS: &[&str] = &[
    "doc",
    "docs",
    "readme",
    "changelog",
    "changes",
    "history",
    "guide",
    "manual",
    "tutorial",
];

/// Whether a path is prose: docs (markdown, reStructuredText, text, HTML, man pages), a README
/// or a changelog, rather than code or a manifest.
fn is_prose(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    name.starts_with("readme")
        || ["changelog", "changes", "history", "news"]
            .iter()
            .any(|p| name.starts_with(p))
        || matches!(ext, "md" | "rst" | "txt" | "adoc" | "html" | "htm" | "1")
        || class_of(path) == Class::Docs
}

/// Query words that ask for tests or examples themselves.
const TEST_WORDS: &[&str] = &[
    "test", "tests", "testing", "example", "examples", "bench", "benches", "fixture", "fixtures",
];

/// What the query names as written: each word, lowercased, without underscores
/// (`ArgMatches::get_one` → `argmatches`, `getone`), for the file, directory and symbol boosts.
/// A part of an identifier (`map` in `deserialize_map`) names nothing on its own.
fn query_names(q: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for word in q.split(|c: char| !c.is_alphanumeric() && c != '_') {
        let name: String = word
            .chars()
            .filter(|c| *c != '_')
            .flat_map(char::to_lowercase)
            .collect();
        if name.len() > 1 && !STOP.contains(&name.as_str()) && seen.insert(name.clone()) {
            out.push(name);
        }
    }
    out
}

/// Words too common in questions to mean anything.
const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
    "i", "in", "is", "it", "of", "on", "or", "the", "that", "this", "to", "what", "when", "where",
    "which", "who", "why", "with", "we", "you",
];

/// Split a query into terms the same way contents are split, without stop words: each distinct
/// term once, in order of first appearance. Linear in `q`'s length (a set remembers what was
/// seen).
pub fn query_terms(q: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for_each_term(q, |t| {
        if !STOP.contains(&t) && !seen.contains(t) {
            seen.insert(t.to_string());
            out.push(t.to_string());
        }
    });
    out
}

/// A term with a plural's ending taken off (`timers` → `timer`, `entries` → `entry`), so that a
/// question's plural meets the code's singular; `ss`, `us` and `is` endings are kept (`class`,
/// `status`, `axis`), as are words of three letters or fewer.
fn singular(t: &mut String) {
    if t.len() <= 3
        || !t.ends_with('s')
        || t.ends_with("ss")
        || t.ends_with("us")
        || t.ends_with("is")
    {
        return;
    }
    if t.ends_with("ies") && t.len() > 4 {
        t.truncate(t.len() - 3);
        t.push('y');
    } else {
        t.pop();
    }
}

/// Call `f` with every lowercased term of `text`: each identifier's parts (snake_case and
/// camelCase split, acronyms kept whole) and, when it has several, the whole identifier; plurals
/// in their singular form.
pub fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    let mut buf = String::new();
    for word in text.split(|c: char| !c.is_alphanumeric() && c != '_') {
        if word.is_empty() {
            continue;
        }
        // The common case, a lowercase ASCII word, is its own one part: no split, no allocation.
        if word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        {
            if word.len() > 1 {
                buf.clear();
                buf.push_str(word);
                singular(&mut buf);
                f(&buf);
            }
            continue;
        }
        let parts = split_identifier(word);
        if parts.len() > 1 {
            buf.clear();
            buf.extend(
                word.chars()
                    .filter(|c| *c != '_')
                    .flat_map(char::to_lowercase),
            );
            if buf.len() > 1 {
                singular(&mut buf);
                f(&buf);
            }
        }
        for p in parts {
            if p.len() > 1 {
                buf.clear();
                buf.extend(p.chars().flat_map(char::to_lowercase));
                singular(&mut buf);
                f(&buf);
            }
        }
    }
}

/// `getHTTPResponse_v2` → `get`, `HTTP`, `Response`, `v2`.
pub fn split_identifier(word: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for piece in word.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<(usize, char)> = piece.char_indices().collect();
        let mut start = 0;
        for k in 1..chars.len() {
            let (i, c) = chars[k];
            let prev = chars[k - 1].1;
            let next_lower = chars.get(k + 1).is_some_and(|(_, n)| n.is_lowercase());
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase() && c.is_uppercase() && next_lower);
            if boundary {
                parts.push(&piece[start..i]);
                start = i;
            }
        }
        parts.push(&piece[start..]);
    }
    parts
}

/// The default order's score: a class weight, less a little for depth and size.
pub fn prior(path: &str, len: usize) -> Score {
    let class = class_of(path);
    let class_score = 100.0 * (9 - class as u8) as f64;
    let depth = path.matches('/').count() as f64;
    let size = (len as f64 + 1.0).log2();
    Score {
        total: class_score - depth - size / 4.0,
        parts: vec![
            ("class", class_score),
            ("depth", -depth),
            ("size", -size / 4.0),
        ],
    }
}

/// How useful a kind of file usually is to a reader, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    ReadmeOrManifest = 0,
    EntryPoint = 1,
    Source = 2,
    Docs = 3,
    Other = 4,
    Test = 5,
    Example = 6,
    Generated = 7,
    Lock = 8,
}

/// Classify a path by its name and directories.
pub fn class_of(path: &str) -> Class {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let dirs: Vec<&str> = lower.split('/').rev().skip(1).collect();
    let in_dir = |names: &[&str]| dirs.iter().any(|d| names.contains(d));
    const LOCKS: &[&str] = &[
        "cargo.lock",
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "gemfile.lock",
        "go.sum",
        "composer.lock",
        "pipfile.lock",
        "uv.lock",
        "flake.lock",
        "bun.lockb",
        "npm-shrinkwrap.json",
    ];
    const MANIFESTS: &[&str] = &[
        "cargo.toml",
        "package.json",
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "go.mod",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "gemfile",
        "composer.json",
        "cmakelists.txt",
        "makefile",
        "meson.build",
        "build.zig",
        "mix.exs",
        "dockerfile",
    ];
    const ENTRY_STEMS: &[&str] = &[
        "main", "lib", "index", "app", "cli", "__main__", "mod", "server",
    ];
    if LOCKS.contains(&name) || name.ends_with(".lock") {
        return Class::Lock;
    }
    if in_dir(&[
        "vendor",
        "third_party",
        "third-party",
        "node_modules",
        "dist",
        "generated",
    ]) || name.contains(".min.")
        || name.contains("_generated")
        || name.contains(".generated.")
        || name.ends_with(".pb.go")
        || name.ends_with("_pb2.py")
        || in_dir(&[
            "fixtures",
            "fixture",
            "testdata",
            "test-data",
            "snapshots",
            "__snapshots__",
        ])
    {
        return Class::Generated;
    }
    if name.starts_with("readme") || (dirs.len() <= 1 && MANIFESTS.contains(&name)) {
        return Class::ReadmeOrManifest;
    }
    if in_dir(&["tests", "test", "__tests__", "spec", "specs"])
        || name.starts_with("test_")
        || name.contains("_test.")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name.contains("_spec.")
    {
        return Class::Test;
    }
    if in_dir(&[
        "examples",
        "example",
        "benches",
        "bench",
        "benchmarks",
        "samples",
        "demo",
    ]) {
        return Class::Example;
    }
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    let code = matches!(
        ext,
        "rs" | "py"
            | "js"
            | "ts"
            | "tsx"
            | "jsx"
            | "go"
            | "c"
            | "h"
            | "cc"
            | "cpp"
            | "hpp"
            | "java"
            | "kt"
            | "swift"
            | "rb"
            | "php"
            | "cs"
            | "scala"
            | "zig"
            | "ex"
            | "exs"
            | "hs"
            | "ml"
            | "lua"
            | "sh"
            | "mjs"
            | "cjs"
            | "vue"
            | "svelte"
            | "dart"
            | "jl"
    );
    if code && (ENTRY_STEMS.contains(&stem) || in_dir(&["bin", "cmd"])) {
        return Class::EntryPoint;
    }
    if code {
        return Class::Source;
    }
    if matches!(ext, "md" | "rst" | "txt" | "adoc") || in_dir(&["docs", "doc"]) {
        return Class::Docs;
    }
    Class::Other
}

#[cfg(test)]
mod tests {
    use super::*;

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
            vec!["parse", "config", "parseconfig"]
        );
    }

    #[test]
    fn ranking_stops_when_asked() {
        let docs = [Doc {
            path: "a.rs",
            text: "fn a() {}",
        }];
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
        assert_eq!(terms, vec!["gethttpresponse", "get", "http", "response"]);
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
        let docs = [
            Doc {
                path: "src/a.rs",
                text: "fn unrelated() {}",
            },
            Doc {
                path: "src/http.rs",
                text: "pub fn get_http_response() -> Response { todo() }",
            },
            Doc {
                path: "src/b.rs",
                text: "let r = get_http_response(); // http response",
            },
        ];
        let r = ranked(&docs, Some("getHTTPResponse"));
        assert_eq!(r[0].0, 1, "{r:?}");
        assert_eq!(r[1].0, 2);
        assert_eq!(r[2].0, 0);
        assert!(r[0].1.parts.iter().any(|p| p.0 == "defines_symbol"));
    }

    #[test]
    fn only_whole_query_words_name_files_and_symbols() {
        let docs = [
            Doc {
                path: "src/map.rs",
                text: "pub struct Map; fn get(&self) {}",
            },
            Doc {
                path: "src/de.rs",
                text: "pub struct Deserializer; fn deserialize_map() { map }",
            },
        ];
        // `map` is only a part of `deserialize_map`: map.rs is not "named" by the query.
        let r = ranked(&docs, Some("Deserializer::deserialize_map"));
        assert_eq!(r[0].0, 1, "{r:?}");
        assert!(r[1].1.parts.iter().all(|p| p.0 != "names_file"));
        // Asked for by its whole name, it is.
        let r = ranked(&docs, Some("map"));
        assert_eq!(r[0].0, 0, "{r:?}");
        assert!(r[0].1.parts.iter().any(|p| p.0 == "names_file"));
    }

    #[test]
    fn tests_count_for_less_unless_asked_for() {
        let text = "fn parse_header() { parse_header() }";
        let docs = [
            Doc {
                path: "tests/header.rs",
                text,
            },
            Doc {
                path: "src/header.rs",
                text,
            },
        ];
        let r = ranked(&docs, Some("parse_header"));
        assert_eq!(r[0].0, 1, "{r:?}");
        assert!(r[1].1.parts.iter().any(|p| p.0 == "secondary_file"));
        let r = ranked(&docs, Some("tests for parse_header"));
        assert!(
            r.iter()
                .all(|(_, s)| s.parts.iter().all(|p| p.0 != "secondary_file"))
        );
    }

    #[test]
    fn prose_counts_half_unless_docs_are_asked_for() {
        let text = "the retry delay grows with each attempt";
        let docs = [
            Doc {
                path: "docs/notes.md",
                text,
            },
            Doc {
                path: "src/backoff.rs",
                text,
            },
        ];
        let r = ranked(&docs, Some("retry delay"));
        assert_eq!(r[0].0, 1, "{r:?}");
        assert!(r[1].1.parts.iter().any(|p| p.0 == "docs_file"));
        let r = ranked(&docs, Some("retry delay docs"));
        assert!(
            r.iter()
                .all(|(_, s)| s.parts.iter().all(|p| p.0 != "docs_file"))
        );
    }

    #[test]
    fn plurals_meet_singulars_and_names_ignore_dashes() {
        let mut terms = Vec::new();
        for_each_term("timers entries class status is", |t| {
            terms.push(t.to_string())
        });
        assert_eq!(terms, vec!["timer", "entry", "class", "status", "is"]);
        let docs = [
            Doc {
                path: "lib/permessage-deflate.js",
                text: "module.exports = X;",
            },
            Doc {
                path: "lib/other.js",
                text: "PerMessageDeflate PerMessageDeflate",
            },
        ];
        let r = ranked(&docs, Some("PerMessageDeflate"));
        assert!(
            r.iter()
                .any(|(i, s)| *i == 0 && s.parts.iter().any(|p| p.0 == "names_file"))
        );
    }

    #[test]
    fn definitions_from_the_parser_rescore_the_best_files() {
        use crate::vocab::{LineRange, SymbolKind};
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
        let docs = [
            Doc {
                path: "src/ldo.c",
                text: "luaV_execute(L, ci); luaV_execute(L, ci);",
            },
            Doc {
                path: "src/lvm.c",
                text: "void luaV_execute (lua_State *L) { }",
            },
        ];
        let q = Query::parse("luaV_execute").unwrap();
        let outline = |i: usize| (i == 1).then(|| vec![sym("luaV_execute", Some("run the vm"))]);
        let r = rank(&docs, Some(&q), &outline, &|| false).unwrap();
        assert_eq!(r[0].0, 1, "{r:?}");
        assert!(r[0].1.parts.iter().any(|p| p.0 == "defines_symbol"));
        let without = rank(&docs, Some(&q), &|_| None, &|| false).unwrap();
        assert_eq!(without[0].0, 0, "{without:?}");
        // Deterministic: the same ranking every time.
        assert_eq!(r, rank(&docs, Some(&q), &outline, &|| false).unwrap());
    }
}
