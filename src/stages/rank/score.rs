//! Scoring a set of files for a query: BM25 over the weighted terms of each file's fields (text,
//! defined names, path: `fields.rs`), the boosts when the query names a file, parts of its
//! name, a directory or a symbol the file defines, the weight taken off tests, examples,
//! generated files, prose and auxiliary files (build files, manifests, metadata, type stubs),
//! and the re-scoring of the best files with their definitions from the syntax stage.

use super::classes::{
    AUX_WORDS, Class, DOC_WORDS, TEST_WORDS, c_family, class_of, is_auxiliary, is_prose, prior,
};
use super::fields::{defined_symbols, for_each_weighted_term};
use super::terms::{for_each_term, split_identifier, stem, term_hash};
use super::{Doc, Indexed, Part, Query, Score, Weighted};
use crate::vocab::Symbol;
use std::collections::{HashMap, HashSet};

/// BM25 parameters (the usual defaults).
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Boosts when the query names the file, a directory on its path, or a symbol it defines.
const FILE_BOOST: f64 = 6.0;
const DIR_BOOST: f64 = 2.0;
const SYMBOL_BOOST: f64 = 4.0;
/// The boost when the query's words name every part of the file's name, in any order and
/// inflection (`operators/OperatorSubscriber.ts` for "an operator ... subscribes"), given in
/// proportion to the share of the parts they name (`GroupHandler.php` for "several handlers":
/// half). Not when the query names the file whole ([`FILE_BOOST`]). Measured on the dev half:
/// 3, 6, 9 and 12 gave 0.847, 0.858, 0.855 and 0.846 (`docs/ranking-eval.md`).
const NAME_PARTS_BOOST: f64 = 6.0;
/// What a test, example, fixture or generated file's relevance is multiplied by.
const SECONDARY_FACTOR: f64 = 0.5;
/// What a prose file's relevance is multiplied by, unless the query asks for docs: prose
/// explains in the words of a question what the code defines (0.5 before 2026-11-27; 0.3 was
/// measured better on the dev half, with the fields of [`super::fields`]).
const PROSE_FACTOR: f64 = 0.3;
/// What an auxiliary file's relevance ([`is_auxiliary`]: build files, manifests, metadata,
/// type stubs) is multiplied by, unless the query names it by its whole name (`Makefile`,
/// `package.json`: a word that names only its stem, `shell` for `shell.nix` or `Makefile` for
/// `Makefile.am`, is no reason to read it) or asks for such files.
const AUXILIARY_FACTOR: f64 = 0.5;

/// Weight of the query's terms found in definition names and doc lines, relative to their
/// weight in the text.
const SYMBOL_TERMS_WEIGHT: f64 = 0.5;

/// What the re-scoring needs of a file's definitions, made once per outline: the hashes of
/// their names as a query names them (alphanumerics only, lowercased; each name whole and, for
/// `Foo::bar` or `Foo.bar`, its last part too), and the hashes of the terms of their names and
/// doc lines. Sorted and distinct, so a query looks its words up instead of splitting every
/// definition again.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SymbolFacts {
    names: Box<[u64]>,
    terms: Box<[u64]>,
}

impl SymbolFacts {
    /// The facts of `symbols` (and of their children).
    pub fn of(symbols: &[Symbol]) -> SymbolFacts {
        let mut names: Vec<u64> = Vec::new();
        let mut terms: Vec<u64> = Vec::new();
        let mut norm = String::new();
        for (_, s) in Symbol::walk(symbols) {
            // `Foo::bar` and `Foo.bar` name `bar` too.
            let last = s.name.rsplit([':', '.']).next().unwrap_or(&s.name);
            for n in [s.name.as_str(), last] {
                norm.clear();
                norm.extend(
                    n.chars()
                        .filter(|c| c.is_alphanumeric())
                        .flat_map(char::to_lowercase),
                );
                names.push(term_hash(&norm));
            }
            for field in [Some(s.name.as_str()), s.doc.as_deref()]
                .into_iter()
                .flatten()
            {
                for_each_term(field, |t| terms.push(term_hash(t)));
            }
        }
        names.sort_unstable();
        names.dedup();
        terms.sort_unstable();
        terms.dedup();
        SymbolFacts {
            names: names.into_boxed_slice(),
            terms: terms.into_boxed_slice(),
        }
    }

    /// What they take in memory, in bytes.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<SymbolFacts>()
            + std::mem::size_of_val(&*self.names)
            + std::mem::size_of_val(&*self.terms)
    }
}

/// Re-score one file with its definitions' facts: the keyword guess at defined names is
/// replaced by the parser's, and the query's terms in names and doc lines count as a field of
/// their own.
pub(super) fn resymbol(score: &mut Score, facts: &SymbolFacts, query: &Query, idf: &[f64]) {
    // Each name the query names once, defined here or not.
    let named: HashSet<&str> = query.name_set();
    let defined = named
        .iter()
        .filter(|n| facts.names.binary_search(&term_hash(n)).is_ok())
        .count();
    let found: Vec<bool> = query
        .terms
        .iter()
        .map(|t| facts.terms.binary_search(&term_hash(t)).is_ok())
        .collect();
    let factor = if score.parts.iter().any(|p| p.0 == Part::SecondaryFile) {
        SECONDARY_FACTOR
    } else {
        1.0
    };
    let mut delta = 0.0;
    if let Some(p) = score.parts.iter_mut().find(|p| p.0 == Part::DefinesSymbol) {
        delta -= p.1 * factor;
        p.1 = 0.0;
    }
    score
        .parts
        .retain(|p| !(p.0 == Part::DefinesSymbol && p.1 == 0.0));
    let mut add = |name: Part, v: f64, parts: &mut Vec<(Part, f64)>| {
        if v > 0.0 {
            let at = parts.iter().position(|p| {
                p.0 == Part::SecondaryFile || p.0 == Part::DocsFile || p.0 == Part::Prior
            });
            parts.insert(at.unwrap_or(parts.len()), (name, v));
            delta += v * factor;
        }
    };
    add(
        Part::DefinesSymbol,
        SYMBOL_BOOST * defined as f64,
        &mut score.parts,
    );
    let terms: f64 = found
        .iter()
        .enumerate()
        .filter(|(_, f)| **f)
        .map(|(k, _)| idf[k])
        .sum();
    add(
        Part::SymbolTerms,
        SYMBOL_TERMS_WEIGHT * terms,
        &mut score.parts,
    );
    score.total += delta;
}

/// A header declares what the source of its stem defines (`ltable.h` beside `ltable.c`,
/// `include/fmt/os.h` and `src/os.cc`): when both define a name the query names, the header's
/// `defines_symbol` counts half ([`Part::HeaderDeclares`] takes the other half off), so the
/// definition ranks first and its declaration next. Linear in `scored`.
pub(super) fn headers_declare<'p>(scored: &mut [(usize, Score)], path: &dyn Fn(usize) -> &'p str) {
    let defines = |s: &Score| {
        s.parts
            .iter()
            .find(|p| p.0 == Part::DefinesSymbol)
            .map_or(0.0, |p| p.1)
    };
    let sources: HashSet<&str> = scored
        .iter()
        .filter(|(_, s)| defines(s) > 0.0)
        .filter_map(|(i, _)| c_family(path(*i)))
        .filter(|(_, header)| !header)
        .map(|(stem, _)| stem)
        .collect();
    if sources.is_empty() {
        return;
    }
    for (i, score) in scored.iter_mut() {
        let boost = defines(score);
        if boost <= 0.0 || !c_family(path(*i)).is_some_and(|(stem, h)| h && sources.contains(stem))
        {
            continue;
        }
        let factor = if score.parts.iter().any(|p| p.0 == Part::SecondaryFile) {
            SECONDARY_FACTOR
        } else {
            1.0
        };
        let off = boost / 2.0;
        let at = score
            .parts
            .iter()
            .position(|p| p.0 == Part::DefinesSymbol)
            .map_or(score.parts.len(), |at| at + 1);
        score.parts.insert(at, (Part::HeaderDeclares, -off));
        score.total -= off * factor;
    }
}

/// What BM25 needs of one file for one query: the weighted frequency of each query term it
/// holds (by the term's position in the query, ascending), its weighted length in terms (text
/// 1, path `PATH_WEIGHT`), and how many of the names the query names it defines (by the
/// keyword guess, [`defined_symbols`]).
pub(super) struct Gathered {
    pub(super) tf: Vec<(usize, usize)>,
    pub(super) len: usize,
    pub(super) symbol_hits: usize,
}

impl Gathered {
    /// The weighted length.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The positions of the query terms the file holds.
    pub(super) fn terms(&self) -> impl Iterator<Item = usize> + '_ {
        self.tf.iter().map(|&(k, _)| k)
    }

    /// Whether the file holds a query term or defines a name the query names.
    pub(super) fn touched(&self) -> bool {
        !self.tf.is_empty() || self.symbol_hits > 0
    }
}

/// [`Gathered`] for every doc, by splitting its text and path into terms.
pub(super) fn gather(
    docs: &[Doc<'_>],
    query: &Query,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<Gathered>> {
    let wanted: HashMap<&str, usize> = query.positions();
    let named: HashSet<&str> = query.name_set();
    // Term frequencies of the query's terms only: everything else is irrelevant to the score.
    let mut out = Vec::with_capacity(docs.len());
    for d in docs {
        if stop() {
            return None;
        }
        let mut tf: HashMap<usize, usize> = HashMap::new();
        let mut len = 0;
        let add = |t: &str, w: usize| {
            len += w;
            if let Some(&k) = wanted.get(t) {
                *tf.entry(k).or_default() += w;
            }
        };
        for_each_weighted_term(d.path, d.text, add);
        let mut tf: Vec<(usize, usize)> = tf.into_iter().collect();
        tf.sort_unstable();
        let symbol_hits = defined_symbols(d.text)
            .filter(|s| named.contains(s.as_str()))
            .collect::<HashSet<_>>()
            .len();
        out.push(Gathered {
            tf,
            len,
            symbol_hits,
        });
    }
    Some(out)
}

/// [`Gathered`] for every indexed file, by looking the query's terms and names up in its index.
pub(super) fn gather_indexed(
    files: &[Indexed<'_>],
    query: &Query,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<Gathered>> {
    let terms: Vec<u64> = query.terms.iter().map(|t| term_hash(t)).collect();
    let names: Vec<u64> = query.names.iter().map(|t| term_hash(t)).collect();
    let mut out = Vec::with_capacity(files.len());
    for (n, f) in files.iter().enumerate() {
        if n % 256 == 0 && stop() {
            return None;
        }
        let tf: Vec<(usize, usize)> = terms
            .iter()
            .enumerate()
            .filter_map(|(k, h)| f.index.tf(*h).map(|v| (k, v)))
            .collect();
        let symbol_hits = names.iter().filter(|h| f.index.defines(**h)).count();
        out.push(Gathered {
            tf,
            len: f.index.len(),
            symbol_hits,
        });
    }
    Some(out)
}

/// The files a query touches, each with what was gathered of it, and each query term's
/// document frequency.
pub(super) type Touched = (Vec<(usize, Gathered)>, Vec<usize>);

/// What BM25 needs of the whole set of files: how many, their mean weighted length, and each
/// query term's document frequency.
pub(super) struct Corpus {
    pub(super) n: f64,
    pub(super) avg_len: f64,
    pub(super) df: Vec<usize>,
}

/// Score every file from what was gathered of it: BM25 with the boosts and the prior, and each
/// query term's weight.
pub(super) fn bm25(
    facts: &[&PathFacts],
    per_doc: Vec<Gathered>,
    query: &Query,
    stop: &dyn Fn() -> bool,
) -> Option<Weighted> {
    let mut df = vec![0usize; query.terms.len()];
    for g in &per_doc {
        for &(k, _) in &g.tf {
            df[k] += 1;
        }
    }
    let n = facts.len() as f64;
    let avg_len = per_doc.iter().map(|g| g.len as f64).sum::<f64>() / n.max(1.0);
    let corpus = Corpus { n, avg_len, df };
    bm25_of(
        &|i| facts[i],
        per_doc.into_iter().enumerate().collect(),
        &corpus,
        query,
        stop,
    )
}

/// Score the files `touched` (each with what was gathered of it) in `corpus`, each file's path
/// facts given by `facts`: BM25 with the boosts and the prior, and each query term's weight.
pub(super) fn bm25_of<'f>(
    facts: &dyn Fn(usize) -> &'f PathFacts,
    touched: Vec<(usize, Gathered)>,
    corpus: &Corpus,
    query: &Query,
    stop: &dyn Fn() -> bool,
) -> Option<Weighted> {
    let named: HashSet<&str> = query.name_set();
    let named_hashes: Vec<u64> = query.names.iter().map(|n| term_hash(n)).collect();
    // The query's words as a file name's parts are kept: stemmed (`handlers` → `handler`).
    let word_stems: Vec<u64> = query
        .names
        .iter()
        .map(|n| {
            let mut n = n.clone();
            stem(&mut n);
            term_hash(&n)
        })
        .collect();
    // Tests, examples, fixtures and generated files usually only use what a query is about;
    // they count for less, unless the query asks for them.
    let wants_tests = named.iter().any(|n| TEST_WORDS.contains(n));
    // Prose (docs, READMEs, changelogs) explains; the code defines. It counts for less, unless
    // the query asks for documentation.
    let wants_docs = named.iter().any(|n| DOC_WORDS.contains(n));
    let wants_aux = named.iter().any(|n| AUX_WORDS.contains(n));
    let Corpus { n, avg_len, df } = corpus;
    // Each term's weight times its inverse document frequency.
    let idf: Vec<f64> = df
        .iter()
        .zip(&query.weights)
        .map(|(&d, w)| w * idf(*n, d as f64))
        .collect();
    let mut out = Vec::with_capacity(touched.len());
    for (at, (i, g)) in touched.iter().enumerate() {
        if at % 256 == 0 && stop() {
            return None;
        }
        out.push(score_one(
            *i,
            facts(*i),
            g,
            &idf,
            *avg_len,
            (&named_hashes, &word_stems),
            (wants_tests, wants_docs, wants_aux),
        ));
    }
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
    facts: &PathFacts,
    g: &Gathered,
    weighted_idf: &[f64],
    avg_len: f64,
    (named, word_stems): (&[u64], &[u64]),
    (wants_tests, wants_docs, wants_aux): (bool, bool, bool),
) -> (usize, Score) {
    let mut text_score = 0.0;
    for &(k, f) in &g.tf {
        let f = f as f64;
        let norm = f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * g.len as f64 / avg_len.max(1.0)));
        text_score += weighted_idf[k] * norm;
    }
    let is_named = |h: &u64| named.contains(h);
    let file_hit = facts.names.iter().any(is_named);
    let dir_hit = facts.dirs.iter().any(is_named);
    let symbol_hits = g.symbol_hits;
    let mut parts = Vec::with_capacity(6);
    parts.push((Part::Bm25, text_score));
    if file_hit {
        parts.push((Part::NamesFile, FILE_BOOST));
    }
    if dir_hit {
        parts.push((Part::NamesDirectory, DIR_BOOST));
    }
    if symbol_hits > 0 {
        parts.push((Part::DefinesSymbol, SYMBOL_BOOST * symbol_hits as f64));
    }
    if !file_hit && !facts.parts.is_empty() {
        let named_parts = facts
            .parts
            .iter()
            .filter(|h| word_stems.contains(h))
            .count();
        if named_parts > 0 {
            let share = named_parts as f64 / facts.parts.len() as f64;
            parts.push((Part::NamesFileParts, NAME_PARTS_BOOST * share));
        }
    }
    let mut relevant = parts.iter().map(|p| p.1).sum::<f64>();
    if !wants_tests && facts.class >= Class::Test && relevant > 0.0 {
        parts.push((Part::SecondaryFile, -relevant * (1.0 - SECONDARY_FACTOR)));
        relevant *= SECONDARY_FACTOR;
    } else if !wants_docs && facts.prose && relevant > 0.0 {
        parts.push((Part::DocsFile, -relevant * (1.0 - PROSE_FACTOR)));
        relevant *= PROSE_FACTOR;
    } else if facts.aux && !wants_aux && !facts.named_whole(named) && relevant > 0.0 {
        parts.push((Part::AuxiliaryFile, -relevant * (1.0 - AUXILIARY_FACTOR)));
        relevant *= AUXILIARY_FACTOR;
    }
    // The prior is scaled down so it only breaks ties between relevant files, and keeps files
    // the query does not touch in their default order below all that it does.
    let prior_part = facts.prior / 1000.0;
    parts.push((Part::Prior, prior_part));
    let total = if relevant > 0.0 {
        relevant + prior_part
    } else {
        prior_part - 10.0
    };
    (i, Score { total, parts })
}

/// What scoring needs of a file's path and its text's length, computed once per file (and kept
/// in its index): the hashes of the names that name the file (its stem and its whole name,
/// lowercased, without `_`, `-` or `.`: `permessage-deflate` is named by `PerMessageDeflate`,
/// `package.json` by `package.json`) and its directories, the stemmed parts of its stem
/// (`GroupHandler` → `group`, `handl`: as [`super::terms::for_each_term`] stems them), its
/// class, whether it is prose, and its prior.
#[derive(Clone, Debug, PartialEq)]
pub struct PathFacts {
    names: Vec<u64>,
    parts: Box<[u64]>,
    dirs: Vec<u64>,
    class: Class,
    prose: bool,
    aux: bool,
    prior: f64,
}

/// The hashes of the distinct parts of a file's name stem as the text's terms are made of it
/// (split on `_`, `-`, camelCase and PascalCase, lowercased, stemmed; one letter parts
/// dropped): `WhatFailureGroupHandler` → `what`, `failur`, `group`, `handl`.
fn name_parts(file_stem: &str) -> Box<[u64]> {
    let mut parts: Vec<u64> = Vec::new();
    for word in file_stem.split(|c: char| !c.is_alphanumeric() && c != '_') {
        for part in split_identifier(word) {
            let mut part = part.to_lowercase();
            if part.len() > 1 {
                stem(&mut part);
                let h = term_hash(&part);
                if !parts.contains(&h) {
                    parts.push(h);
                }
            }
        }
    }
    parts.into_boxed_slice()
}

impl PathFacts {
    /// The facts of the file at `path` whose text is `text_len` bytes long.
    pub fn of(path: &str, text_len: usize) -> PathFacts {
        let mut comps: Vec<&str> = path.split('/').collect();
        let name = comps.pop().unwrap_or("");
        let stem = name.split('.').next().unwrap_or(name);
        let lower = |s: &str| -> String {
            s.chars()
                .filter(|c| !matches!(c, '_' | '-' | '.'))
                .flat_map(char::to_lowercase)
                .collect()
        };
        let mut names = Vec::with_capacity(2);
        if !stem.is_empty() {
            names.push(term_hash(&lower(stem)));
        }
        // Last: the whole name, extension included (`package.json` is named by
        // `package.json`, whose words are `package` and `json`).
        names.push(term_hash(&lower(name)));
        PathFacts {
            names,
            parts: name_parts(stem),
            dirs: comps.iter().map(|c| term_hash(&lower(c))).collect(),
            class: class_of(path),
            prose: is_prose(path),
            aux: is_auxiliary(path),
            prior: prior(path, text_len).total,
        }
    }

    /// Whether one of the `named` hashes names the file by its whole name, extension included
    /// (`Makefile`, `package.json`; not `Makefile.am` by `Makefile`).
    fn named_whole(&self, named: &[u64]) -> bool {
        self.names.last().is_some_and(|h| named.contains(h))
    }

    /// The hashes of the names of the file and of the directories on its path.
    pub(super) fn path_names(&self) -> impl Iterator<Item = &u64> {
        self.names.iter().chain(&self.dirs)
    }

    /// Whether `query` names the file or a directory on its path.
    pub(super) fn named_by(&self, query: &Query) -> bool {
        query.names.iter().any(|n| {
            let h = term_hash(n);
            self.names.contains(&h) || self.dirs.contains(&h)
        })
    }

    /// What the facts take in memory beyond their own size, in bytes.
    pub fn heap_bytes(&self) -> usize {
        (self.names.capacity() + self.parts.len() + self.dirs.capacity()) * 8
    }
}

#[cfg(test)]
mod tests {
    use super::super::fields::is_definer;
    use super::*;

    /// The keyword guess as it was first written, a `char` at a time: the byte-wise split must
    /// give the same names.
    fn reference(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut prev_kw = false;
        for w in text
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
            .filter(|w| !w.is_empty())
        {
            if prev_kw && !is_definer(w) {
                out.push(w.replace('_', "").to_lowercase());
            }
            prev_kw = is_definer(w);
        }
        out
    }

    #[test]
    fn the_keyword_guess_splits_words_as_chars_do() {
        let samples = [
            "fn parse_header(x: u8) {} struct Foo; impl Foo { fn bar() {} }",
            "macro_rules! my_macro { } class Ünïcode: def naïve_fn(): pass",
            "const fn const_fn() {} fn fn fn x",
            "function 函数名() {} — interface →Arrow enum Ωmega",
            "def\u{a0}spaced(): static  mut X: i32 = 0; fn!bang trait 'quoted",
            "",
            "fn",
            "fn é",
            "ｆｎ wide fn ｗｉｄｅ",
        ];
        for s in samples {
            assert_eq!(
                defined_symbols(s).collect::<Vec<_>>(),
                reference(s),
                "{s:?}"
            );
        }
        // Every character class at every position: a deterministic mix of ASCII, letters of
        // other scripts, digits, symbols and spaces around the keywords.
        let pieces = [
            "fn",
            " ",
            "struct",
            "_",
            "!",
            "x",
            "é",
            "Ω",
            "—",
            "→",
            "9",
            "٣",
            "\n",
            "\t",
            "·",
            "ǅ",
            "macro_rules!",
            "a_b",
            "\u{200b}",
            "\u{a0}",
            "ｆ",
            "(",
            ")",
            "{",
            "impl",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2_000 {
            let mut s = String::new();
            for _ in 0..24 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                s.push_str(pieces[(state % pieces.len() as u64) as usize]);
            }
            assert_eq!(
                defined_symbols(&s).collect::<Vec<_>>(),
                reference(&s),
                "{s:?}"
            );
        }
    }
}
