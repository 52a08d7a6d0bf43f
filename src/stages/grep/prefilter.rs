//! grep's file prefilter: a set of literals such that every match of the pattern holds one of
//! them, so a text holding none of them has no match and need not be scanned or searched.
//!
//! The literals come from the pattern's syntax tree (regex-syntax's extractor, as ripgrep and
//! the regex engine itself use for their literal optimizations): the prefix and suffix literals
//! of the whole pattern, and recursively those of each part a match must pass through (an item
//! of a concatenation, a repetition of at least once, a group); an alternation needs a set from
//! every branch. Of the sets found, the one with the longest shortest literal is kept. Look-
//! around assertions match the empty string to the extractor, so the literals are a property of
//! the matched bytes alone: whatever surrounds a match, it holds one of them.
//!
//! A case-insensitive pattern's literals are folded to ASCII lowercase and searched
//! ASCII-case-insensitively: that finds every variant the extractor listed (and perhaps more,
//! which only costs a search), while non-ASCII variants such as the Kelvin sign stay literals of
//! their own.
//!
//! The prefilter knows nothing of secrets: the driver runs it only on a text that is shown as it
//! is read (see `driver::file`), so what it finds is what the model may see.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use memchr::memmem;
use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};
use regex_syntax::hir::{Hir, HirKind};

/// Most literals a prefilter searches for.
const MAX_LITERALS: usize = 256;
/// Longest literal kept (longer ones are cut, which keeps them required).
const MAX_LITERAL_LEN: usize = 64;

/// The literals every match holds one of.
#[derive(Clone, Debug)]
pub struct Prefilter {
    search: Search,
    /// The literals, as searched (folded when case-insensitive).
    literals: Vec<Vec<u8>>,
}

#[derive(Clone, Debug)]
enum Search {
    One(Box<memmem::Finder<'static>>),
    Many(AhoCorasick),
}

impl Prefilter {
    /// The prefilter of a pattern parsed as `hir`, or `None` when no usable set of literals is
    /// required (a pattern that can match the empty string, or only through large classes).
    /// `ignore_case` tells whether `hir` was parsed case-insensitively.
    pub fn new(hir: &Hir, ignore_case: bool) -> Option<Prefilter> {
        let seq = required(hir, 0)?;
        let mut literals: Vec<Vec<u8>> = seq
            .literals()?
            .iter()
            .map(|l| {
                let mut b = l.as_bytes().to_vec();
                if ignore_case {
                    b.make_ascii_lowercase();
                }
                b
            })
            .collect();
        literals.sort();
        literals.dedup();
        if literals.is_empty() || literals.iter().any(Vec::is_empty) {
            return None;
        }
        let search = if literals.len() == 1 && !ignore_case {
            Search::One(Box::new(memmem::Finder::new(&literals[0]).into_owned()))
        } else {
            let ac = AhoCorasickBuilder::new()
                .ascii_case_insensitive(ignore_case)
                .match_kind(MatchKind::LeftmostFirst)
                .build(&literals)
                .ok()?;
            Search::Many(ac)
        };
        Some(Prefilter { search, literals })
    }

    /// Whether `text` holds one of the literals: false proves the pattern matches nowhere in it.
    pub fn may_match(&self, text: &[u8]) -> bool {
        match &self.search {
            Search::One(f) => f.find(text).is_some(),
            Search::Many(ac) => ac.is_match(text),
        }
    }

    /// The literals searched for (lowercased when the pattern ignores case).
    pub fn literals(&self) -> &[Vec<u8>] {
        &self.literals
    }
}

/// The best set of literals every match of `hir` holds one of, if any is usable.
fn required(hir: &Hir, depth: usize) -> Option<Seq> {
    let mut best: Option<Seq> = None;
    for kind in [ExtractKind::Prefix, ExtractKind::Suffix] {
        let seq = Extractor::new()
            .kind(kind)
            .limit_total(MAX_LITERALS)
            .limit_literal_len(MAX_LITERAL_LEN)
            .extract(hir);
        consider(&mut best, seq);
    }
    // The syntax tree's depth is bounded by the parser's nesting limit; this bound only keeps
    // the work small on a deep one.
    if depth < 32 {
        match hir.kind() {
            HirKind::Concat(parts) => {
                for p in parts {
                    if let Some(seq) = required(p, depth + 1) {
                        consider(&mut best, seq);
                    }
                }
            }
            HirKind::Capture(c) => {
                if let Some(seq) = required(&c.sub, depth + 1) {
                    consider(&mut best, seq);
                }
            }
            HirKind::Repetition(r) if r.min >= 1 => {
                if let Some(seq) = required(&r.sub, depth + 1) {
                    consider(&mut best, seq);
                }
            }
            HirKind::Alternation(branches) => {
                let mut all = Seq::empty();
                for b in branches {
                    let Some(mut seq) = required(b, depth + 1) else {
                        return best;
                    };
                    all.union(&mut seq);
                    if all.len().is_none_or(|n| n > MAX_LITERALS) {
                        return best;
                    }
                }
                consider(&mut best, all);
            }
            _ => {}
        }
    }
    best
}

/// Keep `seq` in `best` if it is usable and better: finite, not too many literals, none empty,
/// and a longer shortest literal (then fewer literals) than the current best.
fn consider(best: &mut Option<Seq>, mut seq: Seq) {
    seq.dedup();
    let Some(lits) = seq.literals() else { return };
    if lits.is_empty() || lits.len() > MAX_LITERALS || lits.iter().any(|l| l.is_empty()) {
        return;
    }
    let score = |s: &Seq| {
        (
            s.min_literal_len().unwrap_or(0).min(8),
            std::cmp::Reverse(s.len().unwrap_or(usize::MAX)),
            s.min_literal_len().unwrap_or(0),
        )
    };
    if best.as_ref().is_none_or(|b| score(&seq) > score(b)) {
        *best = Some(seq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_automata::util::syntax;

    fn pf(p: &str, ci: bool) -> Option<Prefilter> {
        let hir = syntax::parse_with(p, &syntax::Config::new().case_insensitive(ci)).unwrap();
        Prefilter::new(&hir, ci)
    }

    fn lits(p: &str) -> Vec<String> {
        pf(p, false)
            .map(|f| {
                f.literals()
                    .iter()
                    .map(|l| String::from_utf8_lossy(l).into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn picks_the_longest_required_literal() {
        assert_eq!(lits(r"fn\s+parse_expr"), ["parse_expr"]);
        assert_eq!(lits(r"\w+_config\b"), ["_config"]);
        assert_eq!(lits("foo|barbaz"), ["barbaz", "foo"]);
        assert_eq!(lits(r"(?:abc)+\d"), ["abc"]);
        assert!(lits("a*").is_empty());
        assert!(lits("^").is_empty());
        assert!(lits(r"\w+").is_empty());
        assert!(lits("foo|.*").is_empty());
    }

    #[test]
    fn case_insensitive_literals_are_folded() {
        let f = pf("Parse_Expr", true).unwrap();
        assert!(f.may_match(b"x PARSE_expr y"));
        assert!(!f.may_match(b"parse-expr"));
        // The Kelvin sign folds to k: it is searched for too.
        let k = pf("kelvin", true).unwrap();
        assert!(k.may_match("\u{212A}elvin".as_bytes()));
    }
}
