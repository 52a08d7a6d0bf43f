//! The features ranking works on: text and queries split into code-aware terms (identifiers
//! split on snake_case and camelCase, acronyms kept whole, inflections stemmed), and the whole
//! words a query names things by.

use rustc_hash::{FxHashMap, FxHasher};
use std::collections::HashSet;
use std::hash::Hasher;

/// What the query names as written: each word, lowercased, without underscores
/// (`ArgMatches::get_one` → `argmatches`, `getone`), for the file, directory and symbol boosts.
/// A part of an identifier (`map` in `deserialize_map`) names nothing on its own. Two or three
/// words in a row name what they spell together, in that order (`JSON array` → `jsonarray`,
/// which names `JsonArray.java` and a `json_array` function), up to [`MAX_COMPOUND`] words.
pub(super) fn query_names(q: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut words: Vec<String> = Vec::new();
    for word in q.split(|c: char| !c.is_alphanumeric() && c != '_') {
        let name: String = word
            .chars()
            .filter(|c| *c != '_')
            .flat_map(char::to_lowercase)
            .collect();
        if name.is_empty() || STOP.contains(&name.as_str()) {
            continue;
        }
        words.push(name.clone());
        if name.len() > 1 && seen.insert(name.clone()) {
            out.push(name);
        }
    }
    for n in 2..=MAX_COMPOUND {
        for run in words.windows(n) {
            let name: String = run.concat();
            if seen.insert(name.clone()) {
                out.push(name);
            }
        }
    }
    out
}

/// The most query words in a row that name something together.
const MAX_COMPOUND: usize = 3;

/// Words that name the same idea in code, one group a line: a query's term brings the other
/// words of its groups as terms of lesser weight (`super::SYNONYM_WEIGHT`), so that a question in
/// one vocabulary finds code written in another ("waiting for any of several futures" finds
/// `select`). Checked in, small and plain: the same answer on every machine.
const SYNONYM_GROUPS: &[&[&str]] = &[
    &["async", "await", "future", "promise"],
    &["error", "err", "exception", "failure"],
    &["init", "initialize", "setup", "bootstrap"],
    &["config", "configuration", "setting", "option"],
    &["delete", "remove", "erase"],
    &["retry", "backoff", "attempt"],
    &["wait", "select", "join", "poll"],
    &[
        "auth",
        "authenticate",
        "authorization",
        "credential",
        "login",
    ],
    &["serialize", "encode", "marshal"],
    &["deserialize", "decode", "unmarshal"],
    &["cache", "memo", "memoize"],
    &["route", "router", "dispatch"],
    &["callback", "handler", "hook", "listener"],
    &["event", "signal", "emit"],
    &["argument", "arg", "param", "parameter", "flag"],
    &["command", "cmd", "subcommand"],
    &["message", "msg"],
    &["length", "len", "size"],
    &["directory", "dir", "folder"],
    &["database", "db"],
    &["connection", "conn", "socket"],
    &["regex", "regexp", "pattern"],
    &["buffer", "buf"],
    &["temporary", "tmp", "temp"],
    &["iterate", "iter", "iterator"],
    &["color", "colour", "ansi"],
    &["exit", "quit", "terminate"],
    &["string", "str"],
    &["number", "num", "int", "integer"],
    &["character", "char"],
    &["environment", "env"],
    &["request", "req"],
    &["response", "resp", "reply"],
    &["timeout", "deadline"],
    &["spawn", "thread", "task"],
    &["lock", "mutex"],
    &["escape", "quote"],
    &["compare", "cmp", "equal", "eq"],
];

/// The most synonyms one query brings.
const MAX_SYNONYMS: usize = 32;

/// The synonyms `terms` bring from [`SYNONYM_GROUPS`], as terms (split and stemmed like
/// any), each once, none already among `terms`, in the order of the terms that bring them; at
/// most [`MAX_SYNONYMS`].
pub(super) fn synonyms(terms: &[String]) -> Vec<(String, String)> {
    let mut seen: HashSet<String> = terms.iter().cloned().collect();
    let mut out = Vec::new();
    for t in terms {
        // `waiting` and `waited` find the group of `wait`.
        let stems = [
            Some(t.as_str()),
            t.strip_suffix("ing").filter(|s| s.len() > 2),
            t.strip_suffix("ed").filter(|s| s.len() > 2),
        ];
        for group in SYNONYM_GROUPS {
            let forms: Vec<String> = group.iter().map(|w| term_of(w)).collect();
            if !forms.iter().any(|f| stems.contains(&Some(f.as_str()))) {
                continue;
            }
            for (f, word) in forms.into_iter().zip(group.iter()) {
                if out.len() < MAX_SYNONYMS && seen.insert(f.clone()) {
                    out.push((f, word.to_lowercase()));
                }
            }
        }
    }
    out
}

/// A word as a term (lowercased, stemmed).
fn term_of(word: &str) -> String {
    let mut out = String::new();
    for_each_term(word, |t| {
        if out.is_empty() {
            out = t.to_string();
        }
    });
    out
}

/// Words too common in questions to mean anything.
const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
    "i", "in", "is", "it", "of", "on", "or", "the", "that", "this", "to", "what", "when", "where",
    "which", "who", "why", "with", "we", "you",
];

/// Split a query into terms the same way contents are split, without stop words (unless the
/// query is nothing else and writes one with a capital, as a name: `From`): each distinct
/// term once, in order of first appearance. Linear in `q`'s length (a set remembers what was
/// seen).
pub fn query_terms(q: &str) -> Vec<String> {
    query_words(q).into_iter().map(|(t, _)| t).collect()
}

/// [`query_terms`], each with the word of the query it was first found as (lowercased, not
/// stemmed: what an answer shows it as).
pub fn query_words(q: &str) -> Vec<(String, String)> {
    let out = words_but(q, STOP);
    // A query of stop words alone that spells one as code names it (`From`, `Self`, `IN`): it
    // means that name, not the common word, so its words are kept.
    if out.is_empty() && q.chars().any(char::is_uppercase) {
        return words_but(q, &[]);
    }
    out
}

/// The distinct terms of `q` but those in `stop`, each with its first word (see
/// [`query_words`]).
fn words_but(q: &str, stop: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for_each_word(q, |w| {
        let word = w.clone();
        stem(w);
        // A stop word is known by its spelling, not its stem (`where` stems to `wher`).
        if !stop.contains(&word.as_str()) && !seen.contains(w.as_str()) {
            seen.insert(w.clone());
            out.push((w.clone(), word));
        }
    });
    out
}

/// A term reduced to its stem, so that a question's inflections meet the code's words (and the
/// other way round): a plural's ending (`timers` → `timer`, `entries` → `entri`), then a verb's
/// (`traced`, `tracing` → `trac`; `stopped` → `stop`), then `-er` of a word of six letters or
/// more (`parser`, `scheduler` → `pars`, `schedul`), and a final `e` or `y` made alike (`parse`
/// → `pars`, `entry` → `entri`). Both sides go through it, so only sameness matters, not
/// spelling. Words of three letters or fewer, `ss`, `us` and `is` endings (`class`, `status`,
/// `axis`), and words with a character outside ASCII are kept as they are.
pub(super) fn stem(t: &mut String) {
    if t.len() <= 3 || !t.is_ascii() {
        return;
    }
    if t.ends_with("ies") && t.len() > 4 {
        t.truncate(t.len() - 3);
        t.push('i');
    } else if t.ends_with('s') && !(t.ends_with("ss") || t.ends_with("us") || t.ends_with("is")) {
        t.pop();
    }
    for suffix in ["ing", "ed"] {
        if t.ends_with(suffix) && t.len() - suffix.len() >= 3 {
            t.truncate(t.len() - suffix.len());
            // `stopp` → `stop`, but not `call` or `pass`.
            let b = t.as_bytes();
            let n = b.len();
            if n >= 4 && b[n - 1] == b[n - 2] && !matches!(b[n - 1], b'l' | b's' | b'z') {
                t.pop();
            }
            break;
        }
    }
    if t.ends_with("er") && t.len() >= 6 {
        t.truncate(t.len() - 2);
    }
    if t.len() > 3 {
        if t.ends_with('e') {
            t.pop();
        } else if t.ends_with('y') {
            t.pop();
            t.push('i');
        }
    }
}

/// Call `f` with every lowercased term of `text`: each identifier's parts (snake_case and
/// camelCase split, acronyms kept whole) and, when it has several, the whole identifier; every
/// term stemmed (`stem`).
pub fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    for_each_word(text, |w| {
        stem(w);
        f(w)
    });
}

/// The terms of `text` as [`for_each_term`] gives them, but before they are stemmed: the
/// words as written, lowercased (what an answer shows a query term as).
pub fn for_each_word(text: &str, mut f: impl FnMut(&mut String)) {
    let mut split = Split::default();
    for word in words(text) {
        split.terms_of(word, &mut f);
    }
}

/// [`for_each_term`]'s terms, each given once per distinct word of `text` that yields it, with
/// that word's number of occurrences: the same sums of counts per term, with each distinct word
/// split, lowercased and stemmed once rather than at every occurrence (a file repeats most of
/// its words). The calls come in no particular order.
pub fn for_each_term_counted(text: &str, mut f: impl FnMut(&str, usize)) {
    let mut seen: FxHashMap<&str, usize> = FxHashMap::default();
    seen.reserve(text.len() / 32);
    for word in words(text) {
        *seen.entry(word).or_default() += 1;
    }
    let mut split = Split::default();
    for (word, n) in seen {
        split.terms_of(word, &mut |t: &mut String| {
            stem(t);
            f(t, n)
        });
    }
}

/// The buffers [`for_each_word`] splits words with, reused from word to word.
#[derive(Default)]
struct Split {
    buf: String,
    parts: Vec<(usize, usize)>,
}

impl Split {
    /// Call `f` with the terms of one word (unstemmed): its parts and, when it has several,
    /// the whole word, lowercased and without `_`.
    fn terms_of(&mut self, word: &str, f: &mut impl FnMut(&mut String)) {
        let Split { buf, parts } = self;
        // The common case, a lowercase ASCII word, is its own one part: no split, no allocation.
        if word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        {
            if word.len() > 1 {
                buf.clear();
                buf.push_str(word);
                f(buf);
            }
            return;
        }
        split_into(word, parts);
        if parts.len() > 1 {
            buf.clear();
            push_lower(buf, word);
            if buf.len() > 1 {
                f(buf);
            }
        }
        for &(a, b) in parts.iter() {
            let p = &word[a..b];
            if p.len() > 1 {
                buf.clear();
                push_lower(buf, p);
                f(buf);
            }
        }
    }
}

/// The words of `text`: its runs of alphanumeric characters and `_` (ASCII bytes are classed
/// without decoding them).
fn words(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        let is_word = |i: usize| -> (bool, usize) {
            let b = bytes[i];
            if b < 0x80 {
                (b.is_ascii_alphanumeric() || b == b'_', 1)
            } else {
                let c = text[i..].chars().next().unwrap_or(' ');
                (c.is_alphanumeric(), c.len_utf8())
            }
        };
        // Skip to a word's start, then to its end.
        while at < bytes.len() {
            let (w, n) = is_word(at);
            if w {
                break;
            }
            at += n;
        }
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        while at < bytes.len() {
            let (w, n) = is_word(at);
            if !w {
                break;
            }
            at += n;
        }
        Some(&text[start..at])
    })
}

/// Append `s` to `buf` lowercased and without `_` (ASCII without decoding).
fn push_lower(buf: &mut String, s: &str) {
    if s.is_ascii() {
        let from = buf.len();
        if s.bytes().any(|b| b == b'_') {
            buf.extend(s.bytes().filter(|&b| b != b'_').map(char::from));
        } else {
            buf.push_str(s);
        }
        buf[from..].make_ascii_lowercase();
    } else {
        buf.extend(s.chars().filter(|c| *c != '_').flat_map(char::to_lowercase));
    }
}

/// `getHTTPResponse_v2` → `get`, `HTTP`, `Response`, `v2`.
pub fn split_identifier(word: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    split_into(word, &mut parts);
    parts.into_iter().map(|(a, b)| &word[a..b]).collect()
}

/// [`split_identifier`] as byte ranges of `word`, into `parts` (cleared first): a boundary
/// before an uppercase letter that follows a lowercase one, and before the last capital of a
/// run followed by a lowercase letter (`XMLParser` → `XML`, `Parser`); `_` separates and is
/// dropped. No allocation beyond `parts`' own.
fn split_into(word: &str, parts: &mut Vec<(usize, usize)>) {
    parts.clear();
    let mut offset = 0;
    // Split on the byte `_` (never part of a longer UTF-8 sequence): no searcher to set up for
    // a short word.
    for piece in word.as_bytes().split(|&b| b == b'_') {
        let base = offset;
        offset += piece.len() + 1;
        if piece.is_empty() {
            continue;
        }
        let piece = &word[base..base + piece.len()];
        let mut start = 0;
        if piece.is_ascii() {
            // The same rule on bytes: for ASCII, a byte's case is its character's.
            let b = piece.as_bytes();
            for i in 1..b.len() {
                let (prev, c) = (b[i - 1], b[i]);
                let next_lower = b.get(i + 1).is_some_and(u8::is_ascii_lowercase);
                let boundary = (prev.is_ascii_lowercase() && c.is_ascii_uppercase())
                    || (prev.is_ascii_uppercase() && c.is_ascii_uppercase() && next_lower);
                if boundary {
                    parts.push((base + start, base + i));
                    start = i;
                }
            }
        } else {
            let mut it = piece.char_indices().peekable();
            let mut prev = it.next().map_or(' ', |(_, c)| c);
            while let Some((i, c)) = it.next() {
                let next_lower = it.peek().is_some_and(|(_, n)| n.is_lowercase());
                let boundary = (prev.is_lowercase() && c.is_uppercase())
                    || (prev.is_uppercase() && c.is_uppercase() && next_lower);
                if boundary {
                    parts.push((base + start, base + i));
                    start = i;
                }
                prev = c;
            }
        }
        parts.push((base + start, base + piece.len()));
    }
}

/// The hash a term is indexed under (deterministic: the same on every machine and run).
pub fn term_hash(term: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(term.as_bytes());
    h.write_u8(0xff);
    h.finish()
}
