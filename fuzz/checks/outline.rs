//! Outline of one file: the first byte picks the language, the rest is the file's text (lossily
//! UTF-8, as gnaw reads it). Every definition found lies within the text's lines, its body
//! within it, its children within it; nesting and count stay under their bounds; the
//! skeleton never grows the text by more than its markers; each outline row is one line.
//! Parsed again with its comments and blocks of code, the file has the same definitions, its
//! comments are in order and within the text, its blocks within its lines; each level's
//! skeleton has no more lines than the one before.

use super::{assert_not_a_panic, language, lines_of};
use gnaw::driver::nav::outline::row_text;
use gnaw::stages::syntax::{self, MAX_SYMBOL_DEPTH, MAX_SYMBOLS, Outline, ParseBudget};
use gnaw::vocab::{Compress, Symbol};
use std::time::Duration;

pub fn check(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let (lang, _) = language(which);
    let text = String::from_utf8_lossy(rest);
    let budget = ParseBudget::new(Duration::from_millis(500), 4 << 20);
    match syntax::outline_of(lang, &text, &budget, &|| false) {
        Outline::Parsed(symbols) => {
            check_symbols(&text, &symbols);
            check_levels(lang, &text, &symbols, &budget);
        }
        Outline::Skipped(reason) => {
            assert!(!reason.is_empty());
            assert_not_a_panic(&reason);
        }
        Outline::Unsupported => panic!("{lang:?} has a grammar"),
    }
}

/// The comments found with the definitions, and the skeletons of every level.
fn check_levels(lang: syntax::Language, text: &str, symbols: &[Symbol], budget: &ParseBudget) {
    let last = lines_of(text);
    let Ok(found) = syntax::found_of(lang, text, budget, true, &|| false) else {
        return;
    };
    assert_eq!(
        found.symbols, symbols,
        "finding the comments changed the definitions"
    );
    for r in found
        .blocks
        .iter()
        .flat_map(|b| b.inner.into_iter().chain(b.whole))
    {
        assert!(
            1 <= r.start && r.start <= r.end && r.end <= last,
            "block {r} of {last} lines"
        );
    }
    let mut at = 0;
    for c in &found.comments {
        assert!(
            at <= c.start && c.start < c.end && c.end as usize <= text.len(),
            "comment {c:?} after byte {at} of {}",
            text.len()
        );
        at = c.end;
    }
    let mut lines = usize::MAX;
    for level in Compress::ALL {
        let skeleton = syntax::skeleton(text, &found, level);
        let n = skeleton.lines().count();
        assert!(
            n <= lines,
            "{level}: {n} lines, more than the level before ({lines})"
        );
        lines = n;
    }
}

/// The invariants of a parsed outline of `text`.
pub fn check_symbols(text: &str, symbols: &[Symbol]) {
    let last = lines_of(text);
    let all = Symbol::walk(symbols);
    assert!(all.len() <= MAX_SYMBOLS, "{} definitions", all.len());
    fn nest(s: &Symbol, d: usize, max: &mut usize) {
        *max = (*max).max(d);
        for c in &s.children {
            nest(c, d + 1, max);
        }
    }
    let mut max_depth = 0;
    for s in symbols {
        nest(s, 1, &mut max_depth);
    }
    assert!(max_depth <= MAX_SYMBOL_DEPTH + 1, "nesting {max_depth}");
    for (parent, s) in &all {
        let r = s.lines;
        assert!(1 <= r.start && r.start <= r.end, "{} has lines {r}", s.name);
        assert!(
            r.end <= last,
            "{} ends at {} of {last} lines",
            s.name,
            r.end
        );
        if let Some(b) = s.body {
            assert!(
                r.start <= b.start && b.start <= b.end && b.end <= r.end,
                "{}'s body {b} is outside its lines {r}",
                s.name
            );
        }
        if let Some(p) = parent {
            assert!(
                p.lines.start <= r.start && r.end <= p.lines.end,
                "{} ({r}) lies outside its parent {} ({})",
                s.name,
                p.name,
                p.lines
            );
        }
        assert!(!s.name.contains('\n') && !s.signature.contains('\n'));
        let row = row_text(s);
        assert!(!row.contains('\n'), "an outline row of two lines: {row:?}");
    }
    let found = syntax::Found {
        symbols: symbols.to_vec(),
        ..Default::default()
    };
    let skeleton = syntax::skeleton(text, &found, Compress::Docs);
    let kept = u32::try_from(skeleton.lines().count()).unwrap_or(u32::MAX);
    assert!(
        kept <= last + 1,
        "the skeleton has {kept} lines, the text {last}"
    );
}
