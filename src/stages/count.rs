//! Count stage: exact token counts in tiktoken's encodings, fast, linear-time and splittable.
//!
//! [`count`] returns exactly `encode_ordinary(text).len()` of tiktoken (special-token text such as
//! `<|endoftext|>` is ordinary text). `tiktoken-rs` is the reference (a dev-dependency: the tests
//! and `examples/tokenizer_bench.rs` compare with it); the engine that counts is the linear-time
//! `bpe` algorithm (re-exported by `bpe-openai`) with our pre-tokenizer, on tables embedded
//! compact and compressed ([`tables`]: 8.5 MB for all four encodings, where `bpe-openai`'s
//! prebuilt o200k and cl100k alone took 47 MB and `tiktoken-rs`'s vocabularies another 7 MB).
//!
//! Engine choice, measured (release, 2 shared cores, 21 MB of crate sources, one core, without
//! the memo below): o200k 19.3 vs 11.9 MB/s,
//! cl100k 21.8 vs 8.6, p50k 25.9 vs 7.9, r50k 23.1 vs 12.3 (bpe vs tiktoken-rs), identical totals.
//! Table loads are measured in `docs/performance.md` ("Binary size"). A 4 MiB
//! line without whitespace takes 33–350 ms in every encoding (worst: random letters, o200k).
//!
//! Every tokenizer is built once, lazily, on first use (or by [`warm`]), and shared by all threads.
//!
//! On top of the engine, each thread splits pre-tokens with its own regex search cache and
//! remembers the count of every short pre-token it has met ([`count`]'s memo): BPE runs inside a
//! pre-token alone, so its count depends on its bytes only. On the benchmark's medium corpus this
//! halves the counting time (5.9 M pre-tokens, 56 k distinct).
//!
//! # Splitting and exact additivity
//!
//! All four encodings first cut the text into *pre-tokens* with a regex, then run BPE inside each
//! pre-token. So `count(a + b) == count(a) + count(b)` whenever (1) the regex has a match boundary
//! between `a` and `b` when run on `a + b`, and (2) running it on `a` alone yields the same matches
//! as on `a + b` before the cut. [`is_safe_boundary`] accepts a cut only in two situations where
//! both hold for all four patterns; see its documentation for the proof. Because the rules look at
//! no more than two characters before and one after the cut, a safe cut stays safe in any larger
//! text, so any number of safe cuts can be made at once (induction on the cuts).
//!
//! [`split_for_parallel`] cuts one big text at safe points; [`exact_units`] and
//! [`count_pieces`] make any sequence of pieces countable exactly, joining pieces only around
//! unsafe junctions; [`count_many`] counts many texts on a shared queue, largest first.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use bpe_openai::Tokenizer;
use rustc_hash::FxBuildHasher;

pub use crate::vocab::Encoding;

pub mod tables;

/// Count the tokens of `text` exactly as tiktoken's `encode_ordinary` would: special-token text
/// such as `<|endoftext|>` counts as ordinary text. Time is linear in the length of `text`.
pub fn count(encoding: Encoding, text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    count_memoized(bpe_tokenizer(encoding), encoding, text)
}

/// Pre-tokens longer than this many bytes are counted without the memo.
const MEMO_MAX_PIECE: usize = 64;
/// Entries one thread's memo holds, per table, before it starts over (a few MiB at most).
const MEMO_MAX_ENTRIES: usize = 1 << 16;

/// One thread's state for one encoding at a time: its memo of pre-token counts and its own
/// search cache for the pre-tokenizer (a shared regex hands caches out from a pool, which costs
/// about a tenth of the counting time when several threads count at once).
#[derive(Default)]
struct Memo {
    encoding: Option<Encoding>,
    /// Pre-tokens of at most 7 bytes, packed into a `u64` with their length: no allocation, no
    /// string compare.
    short: HashMap<u64, u8, FxBuildHasher>,
    /// Longer pre-tokens, up to [`MEMO_MAX_PIECE`] bytes.
    long: HashMap<Box<str>, u8, FxBuildHasher>,
    cache: Option<regex_automata::meta::Cache>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// The pre-token regex of one encoding, as `bpe-openai` builds it: several patterns, where a
/// match of a pattern flagged `true` drops its last character (an emulated look-ahead).
struct Splitter {
    regex: regex_automata::meta::Regex,
    lookahead: Vec<bool>,
}

fn splitter(encoding: Encoding) -> Option<&'static Splitter> {
    static SPLITTERS: [OnceLock<Option<Splitter>>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    SPLITTERS[encoding.index()]
        .get_or_init(|| {
            let patterns = pre_token_patterns(encoding);
            let (pats, lookahead): (Vec<&str>, Vec<bool>) = patterns.iter().copied().unzip();
            match regex_automata::meta::Regex::new_many(&pats) {
                Ok(regex) => Some(Splitter { regex, lookahead }),
                Err(e) => {
                    log::warn!(
                        "pre-token regex for {} failed to build: {e}",
                        encoding.name()
                    );
                    None
                }
            }
        })
        .as_ref()
}

/// The pre-token patterns of each encoding, in `bpe-openai`'s multi-pattern form: tiktoken's
/// `\s+(?!\S)` is written `\s+\s` with the last character dropped, tried after `\s+$`.
fn pre_token_patterns(encoding: Encoding) -> Vec<(&'static str, bool)> {
    match encoding {
        Encoding::O200kBase => vec![
            (
                concat!(
                    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
                    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
                    r"|\p{N}{1,3}",
                    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
                    r"|\s*[\r\n]+",
                    r"|\s+$",
                ),
                false,
            ),
            (r"\s+\s", true),
            (r"\s+", false),
        ],
        Encoding::Cl100kBase => vec![
            (
                r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+$",
                false,
            ),
            (r"\s+\s", true),
            (r"\s+", false),
        ],
        Encoding::P50kBase | Encoding::R50kBase => GPT2_PATTERNS.to_vec(),
    }
}

/// [`Tokenizer::count`], with each short pre-token's count remembered by this thread. BPE runs
/// inside each pre-token independently, so a pre-token's count is a function of its bytes alone
/// and the memo cannot change a total. Source code repeats its words: on 22 MB of crate sources,
/// 5.9 M pre-tokens hold 56 k distinct ones, and BPE was about two thirds of the counting time.
fn count_memoized(tokenizer: &Tokenizer, encoding: Encoding, text: &str) -> usize {
    let Some(splitter) = splitter(encoding) else {
        return tokenizer.count(text);
    };
    let text = tokenizer.normalize(text);
    let text = text.as_str();
    MEMO.with_borrow_mut(|memo| {
        if memo.encoding != Some(encoding) {
            memo.short.clear();
            memo.long.clear();
            memo.cache = None;
            memo.encoding = Some(encoding);
        }
        let Memo {
            short, long, cache, ..
        } = memo;
        let cache = cache.get_or_insert_with(|| splitter.regex.create_cache());
        let mut total = 0;
        let mut last = 0;
        while last < text.len() {
            let input =
                regex_automata::Input::new(&text[last..]).anchored(regex_automata::Anchored::Yes);
            let Some(m) = splitter.regex.search_with(cache, &input) else {
                // No pre-token starts here: what is left is counted as tiktoken splits it.
                total += tokenizer.count(&text[last..]);
                break;
            };
            let start = last;
            let mut end = last + m.end();
            if splitter.lookahead[m.pattern().as_usize()] {
                end -= text[start..end]
                    .chars()
                    .next_back()
                    .map_or(0, char::len_utf8);
            }
            if end <= start {
                total += tokenizer.count(&text[last..]);
                break;
            }
            last = end;
            total += count_piece(tokenizer, short, long, &text[start..end]);
        }
        total
    })
}

/// One pre-token's count, from the memo or by BPE (then remembered).
fn count_piece(
    tokenizer: &Tokenizer,
    short: &mut HashMap<u64, u8, FxBuildHasher>,
    long: &mut HashMap<Box<str>, u8, FxBuildHasher>,
    piece: &str,
) -> usize {
    let bytes = piece.as_bytes();
    if bytes.len() <= 7 {
        let mut key = [0u8; 8];
        key[..bytes.len()].copy_from_slice(bytes);
        key[7] = bytes.len() as u8;
        let key = u64::from_le_bytes(key);
        if let Some(&n) = short.get(&key) {
            return usize::from(n);
        }
        let n = tokenizer.bpe.count(bytes);
        if short.len() >= MEMO_MAX_ENTRIES {
            short.clear();
        }
        // At most one token per byte: 7 fits in a u8.
        short.insert(key, n as u8);
        return n;
    }
    if bytes.len() > MEMO_MAX_PIECE {
        return tokenizer.bpe.count(bytes);
    }
    if let Some(&n) = long.get(piece) {
        return usize::from(n);
    }
    let n = tokenizer.bpe.count(bytes);
    if let Ok(small) = u8::try_from(n) {
        if long.len() >= MEMO_MAX_ENTRIES {
            long.clear();
        }
        long.insert(piece.into(), small);
    }
    n
}

/// Build the tokenizer [`count`] uses for `encoding` now, instead of on first use.
pub fn warm(encoding: Encoding) {
    bpe_tokenizer(encoding);
}

/// Start building the tokenizer for `encoding` on a thread of its own (once per process), so
/// that a call which will count walks and reads meanwhile instead of waiting for the tables at
/// its first count (about 170 ms of CPU for o200k: inflate, then the `bpe` crate's decoding).
/// A count made before it is done waits for it; if the thread cannot start, the first count
/// builds the tokenizer as before.
pub fn prefetch(encoding: Encoding) {
    static STARTED: [AtomicBool; 4] = [
        AtomicBool::new(false),
        AtomicBool::new(false),
        AtomicBool::new(false),
        AtomicBool::new(false),
    ];
    if TOKENIZERS[encoding.index()].get().is_some()
        || STARTED[encoding.index()].swap(true, Ordering::Relaxed)
    {
        return;
    }
    let _ = std::thread::Builder::new()
        .name(format!("gnaw-{}", encoding.name()))
        .spawn(move || warm(encoding));
}

/// The tokenizer of each encoding, built once ([`bpe_tokenizer`]).
static TOKENIZERS: [OnceLock<Tokenizer>; 4] = [
    OnceLock::new(),
    OnceLock::new(),
    OnceLock::new(),
    OnceLock::new(),
];

/// The tokenizer for `encoding`, decoded from the embedded tables on first use and shared by all
/// threads.
fn bpe_tokenizer(encoding: Encoding) -> &'static Tokenizer {
    TOKENIZERS[encoding.index()].get_or_init(|| {
        // The tables are part of the binary and `tests/count/bpe_tables.rs` loads every one of them:
        // a failure here is a broken build, not bad input.
        let bpe = tables::load(encoding)
            .unwrap_or_else(|e| panic!("the embedded {} tables do not load: {e}", encoding.name()));
        Tokenizer::new_lookahead(bpe, &pre_token_patterns(encoding), false)
            .expect("the pre-token patterns compile")
    })
}

/// The r50k/p50k pre-tokenizer, rewritten for `bpe-openai`'s look-ahead emulation. tiktoken's
/// pattern is `'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s`.
/// `\s+(?!\S)` becomes `\s+\s` with its last character dropped (the engine does that for patterns
/// flagged `true`), tried after `\s+$` and before `\s+`, which is what the original's leftmost-first
/// backtracking does; the final `\s` becomes `\s+`, equivalent there because it is reached only
/// for a single whitespace character followed by a non-whitespace one.
const GPT2_PATTERNS: [(&str, bool); 3] = [
    (
        r"'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+$",
        false,
    ),
    (r"\s+\s", true),
    (r"\s+", false),
];

/// True when cutting between `before` and `after` cannot change the count, in **all four**
/// encodings: `count(before + after) == count(before) + count(after)`.
///
/// Only the last two characters of `before` and the first of `after` are examined, so `before` may
/// be any suffix of the preceding text that holds at least two characters (with fewer, the answer
/// is a conservative `false` unless a side is empty, which is trivially safe). The cut is safe when
/// either rule holds (`c` is the character before the last one of `before`, `x` the first of
/// `after`, `\s` is Unicode `White_Space`, like the patterns' `\s`):
///
/// 1. **Line rule**: `before` ends with `c` + `'\n'`, `c` is not whitespace, `x` is not
///    whitespace, and `x` is not `'/'` unless `c` is an ASCII letter or digit.
/// 2. **Word rule**: `before` ends with an ASCII letter or digit, and `x` is ASCII but neither a
///    letter, a digit nor `'\''`.
///
/// # Proof
///
/// tiktoken splits `T = A + B` (cut at `p`) with a leftmost-first regex, pre-token after
/// pre-token; the patterns have no look-behind, `^` or `\b`, and every character is matched by
/// some alternative, so each match starts where the previous one ended. Counting is a sum over
/// pre-tokens. It therefore suffices that (i) no pre-token of `T` spans `p`, and (ii) `A` alone
/// yields the same pre-tokens as `T` before `p`; then `B` alone yields the same pre-tokens as `T`
/// after `p`, since matching from `p` reads only `T[p..]`.
///
/// (i) Which alternatives can produce a string containing the two characters at `p-1`, `p`?
/// Word rule (letter/digit then a non-letter, non-digit, non-`'`): letter runs end in letters
/// (o200k may append a contraction, which starts with `'`), digit runs in digits, and the
/// punctuation and whitespace alternatives contain no letters or digits; contractions are `'`
/// followed by letters. None. Line rule (`'\n'` then non-whitespace `x`): the letter alternatives'
/// optional prefix excludes `\r\n` in cl100k and o200k and is a literal space in p50k/r50k; the
/// whitespace alternatives hold only whitespace; the punctuation alternative may end in a tail
/// `[\r\n]*` (cl100k) or `[\r\n/]*` (o200k) after a punctuation run. Only o200k's tail can hold
/// `'\n'` followed by non-whitespace, and only for `x == '/'` with the `'\n'` in a punctuation
/// pre-token, which needs `c` to be punctuation (`c` is not whitespace, and a letter or digit `c`
/// ends its own pre-token): excluded by the rule.
///
/// (ii) At every position before `p`, `A` and `T` hold the same characters; they differ only at
/// `p` (end of text in `A`, `x` in `T`). A match decision can differ only on a path that reads
/// position `p`: a quantifier trying to extend (it stops in both, since `x` cannot extend it by
/// (i)) or an end-of-text test (`\s+$`, `\s+(?!\S)`), which needs whitespace right before `p`.
/// Word rule: `p-1` is a letter or digit, so no whitespace run reaches `p`. Line rule: the run
/// reaching `p` is exactly `'\n'` (since `c` is not whitespace). If that `'\n'` ends a punctuation
/// pre-token (cl100k/o200k tail), that alternative ranks before every end-of-text alternative and
/// matches the same span in both. Otherwise the `'\n'` is a pre-token on its own in `T`
/// (p50k/r50k: `\s+(?!\S)` fails, `\s` matches it; cl100k: `\s*[\r\n]`; o200k: `\s*[\r\n]+`),
/// and in `A` the end-of-text alternative matches that same one character. Same spans, same BPE,
/// same count. ∎
///
/// The tests check this property against tiktoken-rs on random and adversarial text.
pub fn is_safe_boundary(before: &str, after: &str) -> bool {
    if before.is_empty() || after.is_empty() {
        return true;
    }
    let mut rev = before.chars().rev();
    match (rev.next(), after.chars().next()) {
        (Some(last), Some(x)) => safe_cut(rev.next(), last, x),
        _ => true,
    }
}

/// Whether `text` is *sealed*: it begins with a character that is neither whitespace nor `'/'`
/// and ends with a non-whitespace character and one `'\n'`. Between two sealed texts the
/// junction is always a safe boundary (the line rule of [`is_safe_boundary`], whatever text
/// surrounds them), so a run of sealed texts counts exactly as the sum of their counts, and
/// any sealed text of a run can be replaced by another sealed one, changing the count by the
/// difference of theirs.
pub fn is_sealed(text: &str) -> bool {
    let mut rev = text.chars().rev();
    match (text.chars().next(), rev.next(), rev.next()) {
        (Some(first), Some('\n'), Some(c)) => {
            !first.is_whitespace() && first != '/' && !c.is_whitespace()
        }
        _ => false,
    }
}

/// The two rules of [`is_safe_boundary`] on the characters around a cut: `prev` and `last` before
/// it, `x` after it.
fn safe_cut(prev: Option<char>, last: char, x: char) -> bool {
    if last == '\n' {
        return match prev {
            Some(c) => {
                !c.is_whitespace() && !x.is_whitespace() && (x != '/' || c.is_ascii_alphanumeric())
            }
            None => false,
        };
    }
    last.is_ascii_alphanumeric() && x.is_ascii() && !x.is_ascii_alphanumeric() && x != '\''
}

/// Whether byte offset `i` of `text` (with `0 < i < text.len()`) is a safe cut using only the text
/// itself as context.
fn safe_at(text: &str, i: usize) -> bool {
    let bytes = text.as_bytes();
    let last = bytes[i - 1];
    // Both rules need an ASCII character right before the cut, which also makes `i` a char boundary.
    if !(last == b'\n' || last.is_ascii_alphanumeric()) {
        return false;
    }
    let Some(x) = text[i..].chars().next() else {
        return false;
    };
    let prev = text[..i - 1].chars().next_back();
    safe_cut(prev, last as char, x)
}

/// The first safe cut at or after byte `from`, strictly inside `text`.
fn first_cut(text: &str, from: usize) -> Option<usize> {
    (from.max(1)..text.len()).find(|&i| safe_at(text, i))
}

/// The last safe cut strictly inside `text`.
fn last_cut(text: &str) -> Option<usize> {
    (1..text.len()).rev().find(|&i| safe_at(text, i))
}

/// Cut `text` into consecutive pieces of about `target_chunk_bytes` (at least), only at safe
/// boundaries, so that the pieces' counts sum exactly to the count of `text`. A text without safe
/// points (for instance one long line of letters) stays one piece. Concatenating the pieces gives
/// back `text`.
pub fn split_for_parallel(text: &str, target_chunk_bytes: usize) -> Vec<&str> {
    let target = target_chunk_bytes.max(1);
    let mut pieces = Vec::with_capacity(text.len() / target + 1);
    let mut start = 0;
    while text.len() - start > target {
        match first_cut(text, start + target) {
            Some(cut) => {
                pieces.push(&text[start..cut]);
                start = cut;
            }
            None => break,
        }
    }
    pieces.push(&text[start..]);
    pieces
}

/// Regroup `pieces` into units whose counts sum exactly to the count of their concatenation.
///
/// A junction between two pieces that is a safe boundary is kept as a cut. Around an unsafe one,
/// the text from the last safe point in the left piece to the first safe point in the right piece
/// becomes one joined unit; everything else is borrowed. Empty pieces are dropped. The units can be
/// counted in any order and on any thread (see [`count_many`]).
pub fn exact_units<'a>(pieces: &[&'a str]) -> Vec<Cow<'a, str>> {
    let mut units: Vec<Cow<'a, str>> = Vec::with_capacity(pieces.len());
    let mut pending: Option<Cow<'a, str>> = None;
    // The last two characters of everything seen so far: the context of the next junction.
    let mut prev: Option<char> = None;
    let mut last: Option<char> = None;
    for &piece in pieces.iter().filter(|p| !p.is_empty()) {
        let x = piece.chars().next();
        let joined = match (pending.take(), last, x) {
            (None, _, _) => Cow::Borrowed(piece),
            (Some(open), Some(l), Some(x)) if safe_cut(prev, l, x) => {
                units.push(open);
                Cow::Borrowed(piece)
            }
            (Some(open), _, _) => {
                // Keep the left side up to its last safe point, bridge to the right's first one.
                let mut bridge = match last_cut(&open) {
                    Some(cut) => {
                        let (head, tail) = split_cow(open, cut);
                        units.push(head);
                        tail.into_owned()
                    }
                    None => open.into_owned(),
                };
                match first_cut(piece, 0) {
                    Some(cut) => {
                        bridge.push_str(&piece[..cut]);
                        units.push(Cow::Owned(bridge));
                        Cow::Borrowed(&piece[cut..])
                    }
                    None => {
                        bridge.push_str(piece);
                        Cow::Owned(bridge)
                    }
                }
            }
        };
        pending = Some(joined);
        let mut rev = piece.chars().rev();
        let new_last = rev.next();
        prev = rev.next().or(last);
        last = new_last;
    }
    units.extend(pending);
    units
}

/// Split a unit at byte `cut`, keeping borrowed text borrowed.
fn split_cow(text: Cow<'_, str>, cut: usize) -> (Cow<'_, str>, Cow<'_, str>) {
    match text {
        Cow::Borrowed(s) => (Cow::Borrowed(&s[..cut]), Cow::Borrowed(&s[cut..])),
        Cow::Owned(mut s) => {
            let tail = s.split_off(cut);
            (Cow::Owned(s), Cow::Owned(tail))
        }
    }
}

/// The exact count of the concatenation of `pieces`, computed piece by piece (see
/// [`exact_units`]) on the calling thread.
pub fn count_pieces(encoding: Encoding, pieces: &[&str]) -> usize {
    exact_units(pieces)
        .iter()
        .map(|unit| count(encoding, unit))
        .sum()
}

/// Count each of `texts` on up to `threads` scoped threads that share one work queue, largest text
/// first. Returns the counts in the order of `texts`.
pub fn count_many<S: AsRef<str> + Sync>(
    encoding: Encoding,
    texts: &[S],
    threads: usize,
) -> Vec<usize> {
    let threads = threads.clamp(1, texts.len().max(1));
    if threads == 1 {
        return texts.iter().map(|t| count(encoding, t.as_ref())).collect();
    }
    warm(encoding);
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(texts[i].as_ref().len()));
    let next = AtomicUsize::new(0);
    let mut counts = vec![0; texts.len()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                crate::par::spawn(scope, || {
                    let mut done = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = order.get(k) else { break };
                        done.push((i, count(encoding, texts[i].as_ref())));
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            // A worker only panics if counting itself panicked; re-raise it here.
            let done = worker
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            for (i, n) in done {
                counts[i] = n;
            }
        }
    });
    counts
}

/// The exact count of one (possibly large) text on up to `threads` threads: split at safe points
/// into chunks, then [`count_many`].
pub fn count_parallel(encoding: Encoding, text: &str, threads: usize) -> usize {
    const MIN_CHUNK: usize = 64 * 1024;
    let threads = threads.max(1);
    if threads == 1 || text.len() < 2 * MIN_CHUNK {
        return count(encoding, text);
    }
    let chunk = (text.len() / (threads * 4)).max(MIN_CHUNK);
    let pieces = split_for_parallel(text, chunk);
    count_many(encoding, &pieces, threads).iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tiktoken-rs's count, the reference.
    fn reference(encoding: Encoding, text: &str) -> usize {
        let bpe = match encoding {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
            Encoding::R50kBase => tiktoken_rs::r50k_base_singleton(),
        };
        bpe.encode_ordinary(text).len()
    }

    /// The memo is per thread and per encoding: switching encodings on one thread, and meeting
    /// the same pre-tokens again in other texts, must give tiktoken's counts every time.
    #[test]
    fn memoized_counts_match_tiktoken_across_encodings_and_repeats() {
        let texts = [
            "fn main() { let x = 1; println!(\"{x}\"); }\n",
            "fn main() { let y = 2; }\n\n\n    // fn main again\n",
            "  indentation\n\tand tabs\r\n caf\u{e9} cafe\u{301} \u{1F600}\u{1F600} 12345678901234567890\n",
            &"x".repeat(200),
            &"longidentifier_".repeat(10),
        ];
        for round in 0..3 {
            for e in Encoding::ALL {
                for t in &texts {
                    assert_eq!(
                        count(e, t),
                        reference(e, t),
                        "{} round {round}: {t:?}",
                        e.name()
                    );
                }
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for e in Encoding::ALL {
            assert_eq!(Encoding::from_name(e.name()), Some(e));
        }
        assert_eq!(Encoding::from_name("o200k"), Some(Encoding::O200kBase));
        assert_eq!(Encoding::from_name("gpt2"), None);
    }

    #[test]
    fn rules_on_examples() {
        assert!(is_safe_boundary("fn main() {}\n", "fn"));
        assert!(is_safe_boundary("x;\n", "y"));
        assert!(!is_safe_boundary("x;\n", "//"), "o200k joins ';\\n//'");
        assert!(is_safe_boundary("x\n", "//"));
        assert!(
            !is_safe_boundary("x \n", "y"),
            "r50k splits ' \\n' before y"
        );
        assert!(!is_safe_boundary("x\n", " y"));
        assert!(!is_safe_boundary("\n", "y"), "too little context");
        assert!(is_safe_boundary("word", " next"));
        assert!(!is_safe_boundary("dog", "'s"));
        assert!(!is_safe_boundary("ab", "c"));
        assert!(is_safe_boundary("", "anything"));
    }

    /// Every junction between two sealed texts is a safe cut, and their counts add up.
    #[test]
    fn sealed_texts_meet_at_safe_cuts() {
        let texts = [
            "- a.rs \u{2014} 12 tokens\n",
            "<entry path=\"a/\" files=\"2\" tokens=\"7\"/>\n",
            "x\n",
            ";\n",
            "\u{e9}t\u{e9}\n",
            "1\n",
            "'s\n",
            "-\n",
        ];
        for a in texts {
            assert!(is_sealed(a), "{a:?}");
            for b in texts {
                assert!(is_safe_boundary(a, b), "{a:?} | {b:?}");
                let joined = format!("{a}{b}");
                for e in Encoding::ALL {
                    assert_eq!(count(e, &joined), count(e, a) + count(e, b));
                    assert_eq!(count(e, &joined), reference(e, &joined));
                }
            }
        }
        for open in [
            "", "\n", "x", " x\n", "/x\n", "x \n", "x\n\n", "\tx\n", "x\r\n",
        ] {
            assert!(!is_sealed(open), "{open:?}");
        }
    }
}
