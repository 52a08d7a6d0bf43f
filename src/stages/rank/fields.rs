//! The fields of a file, for a field-weighted BM25 (BM25F): a term counts once in the text,
//! [`DEFINED_WEIGHT`] more in the name of a definition (by the keyword guess: what the file
//! defines says what it is about, more than what its code mentions), and [`PATH_WEIGHT`] times
//! in the path. A term's weighted frequency is the sum over its occurrences and the file's
//! length is weighted the same way; [`for_each_weighted_term`] is the one source of both for
//! ranking from text and for the index, so they count exactly alike. The index keeps one
//! weighted count per distinct term as before: the field costs it no memory.
//!
//! Measured and dropped (2026-11-27, `docs/ranking-eval.md`): a header field (the file's first
//! comment block that is not a license, counted 8 times) and comments counted twice.

use super::score::{PATH_WEIGHT, defined_words};
use super::terms::for_each_term;

/// Weight added to a term of a name the file defines, over its own occurrence in the text.
/// Measured on the dev half: 1, 2 and 4 within 0.002 of each other, 2 the best.
pub(super) const DEFINED_WEIGHT: usize = 2;

/// Call `f` with every term of the file at `path` whose text is `text`, each with its weight:
/// the text's terms (1), the terms of the names it defines once more (at [`DEFINED_WEIGHT`]),
/// then the path's terms (at [`PATH_WEIGHT`]). Linear in the text (one more pass of the
/// keyword guess).
pub(super) fn for_each_weighted_term(path: &str, text: &str, mut f: impl FnMut(&str, usize)) {
    for_each_term(text, |t| f(t, 1));
    for name in defined_words(text) {
        for_each_term(name, |t| f(t, DEFINED_WEIGHT));
    }
    for_each_term(path, |t| f(t, PATH_WEIGHT));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defined_names_count_more() {
        let mut w: Vec<(String, usize)> = Vec::new();
        for_each_weighted_term(
            "pl/compat.lua",
            "-- compatibility\nlocal compat = {}\nfunction shim() end",
            |t, n| w.push((t.to_string(), n)),
        );
        let of = |t: &str| -> usize { w.iter().filter(|(x, _)| x == t).map(|(_, n)| n).sum() };
        assert_eq!(of("shim"), 1 + DEFINED_WEIGHT);
        assert_eq!(of("compat"), 1 + PATH_WEIGHT);
        assert_eq!(of("compatibiliti"), 1);
        assert_eq!(of("pl"), PATH_WEIGHT);
    }
}
