//! The fields of a file, for a field-weighted BM25 (BM25F): a term counts once in the text,
//! [`DEFINED_WEIGHT`] more in the name of a definition (by the keyword guess: what the file
//! defines says what it is about, more than what its code mentions), and [`PATH_WEIGHT`] times
//! in the path. A term's weighted frequency is the sum over its occurrences and the file's
//! length is weighted the same way; [`for_each_weighted_term`] is the one source of both for
//! ranking from text and for the index, so they count exactly alike. The index keeps one
//! weighted count per distinct term as before: the field costs it no memory.
//!
//! The names a file defines are found by a keyword guess ([`defined_words`]: the word after
//! `fn`, `class`, `def`, `func`, ..., and the macro after C's `#define`, one automaton pass over
//! the text, in every language), and by the shell's form without a keyword (`name()` opening
//! its line, then `{`).
//!
//! Measured and dropped (2026-11-27, `docs/ranking-eval.md`): a header field (the file's first
//! comment block that is not a license, counted 8 times) and comments counted twice.

use super::terms::{for_each_term, for_each_term_counted};
use aho_corasick::{AhoCorasick, MatchKind};
use std::sync::OnceLock;

/// Weight of a term occurrence in the path relative to one in the contents.
pub(super) const PATH_WEIGHT: usize = 5;

/// Weight added to a term of a name the file defines, over its own occurrence in the text.
/// Measured on the dev half: 1, 2 and 4 within 0.002 of each other, 2 the best.
pub(super) const DEFINED_WEIGHT: usize = 2;

/// Call `f` with the terms of the file at `path` whose text is `text`, each with its weight:
/// the text's terms (1 per occurrence, summed per distinct word: [`for_each_term_counted`]),
/// the terms of the names it defines once more (at [`DEFINED_WEIGHT`]), then the path's terms
/// (at [`PATH_WEIGHT`]). A term may come several times; only the sums of its weights mean
/// anything. Linear in the text (one more pass of the keyword guess).
pub(super) fn for_each_weighted_term(path: &str, text: &str, f: impl FnMut(&str, usize)) {
    let names: Vec<&str> = defined_words(text).collect();
    for_each_weighted_term_named(path, text, &names, f);
}

/// [`for_each_weighted_term`] with the names the text defines already found (`names`, from
/// [`defined_words`]), for a caller that needs them too.
pub(super) fn for_each_weighted_term_named(
    path: &str,
    text: &str,
    names: &[&str],
    mut f: impl FnMut(&str, usize),
) {
    for_each_term_counted(text, &mut f);
    for name in names {
        for_each_term(name, |t| f(t, DEFINED_WEIGHT));
    }
    for_each_term(path, |t| f(t, PATH_WEIGHT));
}

/// Names the file defines, lowercased and without underscores (as whole-identifier terms are):
/// `fn x`, `struct X`, `class X`, `def x`, `func X`, ... Not `type X`: in Rust that is mostly an
/// associated type (`type Error = ...;`) that repeats a trait's vocabulary in every impl.
pub(super) fn defined_symbols(text: &str) -> impl Iterator<Item = String> + '_ {
    defined_words(text).map(symbol_of)
}

/// A defined name as [`defined_symbols`] gives it: lowercased, without underscores.
pub(super) fn symbol_of(word: &str) -> String {
    word.replace('_', "").to_lowercase()
}

/// The names [`defined_symbols`] finds, as written: after a keyword ([`keyword_defined`]),
/// then the shell's `name()` form ([`shell_defined`]).
pub(super) fn defined_words(text: &str) -> impl Iterator<Item = &str> + '_ {
    keyword_defined(text).chain(shell_defined(text))
}

/// The names that follow a definer keyword (`fn x`, `class X`, `def x`, ...).
fn keyword_defined(text: &str) -> impl Iterator<Item = &str> + '_ {
    // A name is a word that is not a keyword, after a word that is: found from each keyword
    // standing as a whole word (one automaton pass, no per-character work), by the word that
    // follows it. Every word has one word before it, so each name comes once, in order.
    let mut found = definers().find_iter(text);
    std::iter::from_fn(move || {
        for m in found.by_ref() {
            let (start, end) = (m.start(), m.end());
            let joined_before = text[..start].chars().next_back().is_some_and(is_word_char);
            let joined_after = text[end..].chars().next().is_some_and(is_word_char);
            if joined_before || joined_after {
                continue;
            }
            let next = next_word(text, end)?;
            if !is_definer(next) {
                return Some(next);
            }
        }
        None
    })
}

/// Names defined the way a POSIX shell defines a function, with no keyword: the name first on
/// its line, then `()`, then the body's `{` on the same line or first on the next
/// (`_known_hosts_real()` then `{`). The same shape is a K&R C definition without parameters;
/// a call at the start of a line is followed by `;`, an operator or nothing, not by `{`.
/// One `memmem` pass for `()`; each check looks back over one word and its indentation and
/// forward over blanks, so the whole is linear in the text.
fn shell_defined(text: &str) -> impl Iterator<Item = &str> + '_ {
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, b"()").filter_map(move |at| {
        let before = text[..at].trim_end_matches([' ', '\t']);
        let start = before
            .char_indices()
            .rev()
            .take_while(|&(_, c)| c.is_alphanumeric() || c == '_')
            .last()
            .map(|(i, _)| i)?;
        let name = &before[start..];
        let line_start = before[..start].trim_end_matches([' ', '\t']);
        let first_on_line = line_start.is_empty() || line_start.ends_with('\n');
        if !first_on_line || name.starts_with(|c: char| c.is_ascii_digit()) || is_definer(name) {
            return None;
        }
        let after = text[at + 2..].trim_start_matches([' ', '\t']);
        let after = after
            .strip_prefix("\r\n")
            .or_else(|| after.strip_prefix('\n'))
            .map_or(after, |next| next.trim_start_matches([' ', '\t']));
        after.starts_with('{').then_some(name)
    })
}

/// The keywords a definition's name follows, as one automaton (built once).
fn definers() -> &'static AhoCorasick {
    static DEFINERS: OnceLock<AhoCorasick> = OnceLock::new();
    DEFINERS.get_or_init(|| {
        AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(DEFINERS_LIST)
            .expect("fixed keywords build an automaton")
    })
}

const DEFINERS_LIST: &[&str] = &[
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
    "#define",
];

/// Whether `c` is part of a word for the keyword guess: alphanumeric (any script), `_` or `!`.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '!'
}

/// The first word of `text` at or after byte `from` (a character boundary).
fn next_word(text: &str, from: usize) -> Option<&str> {
    let rest = &text[from..];
    let start = rest.find(is_word_char)?;
    let word = &rest[start..];
    let end = word.find(|c: char| !is_word_char(c)).unwrap_or(word.len());
    Some(&word[..end])
}

/// Whether `word` is a keyword that a definition's name follows.
pub(super) fn is_definer(word: &str) -> bool {
    DEFINERS_LIST.contains(&word)
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

    #[test]
    fn shell_functions_are_defined_names() {
        let text = "_known_hosts_real()\n{\n  _init_completion || return\n}\n\
                    \tindented () { :; }\r\nwindows()\r\n{\r\n}\n\
                    function kw() {\n}\n\
                    call()\nnext()\n\
                    x = call() {\n\
                    9lives() {\n";
        let names: Vec<&str> = defined_words(text).collect();
        // `kw` once (after its keyword, not again as `kw()`); calls and mid-line `()` not at all.
        assert_eq!(names, ["kw", "_known_hosts_real", "indented", "windows"]);
    }

    #[test]
    fn shell_guess_over_long_runs() {
        // The shapes it looks back and forward over, long: each `()` is checked in time linear
        // in its own word and blanks (a quadratic look-back would not finish here).
        let counts: Vec<usize> = [
            "()".repeat(200_000),
            format!("{}()", "a".repeat(400_000)),
            format!("{}a(){}{{", " ".repeat(200_000), " ".repeat(200_000)),
        ]
        .iter()
        .map(|text| defined_words(text).count())
        .collect();
        assert_eq!(counts, [0, 0, 1]);
    }
}
