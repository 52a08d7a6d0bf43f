//! The search index of one file: what scoring needs of it, computed once from its shown path and
//! its shown text (secrets already redacted), so that a later query only looks its terms up.
//!
//! A [`FileIndex`] holds the weighted frequency of every term of the file (by field: text 1,
//! defined names more, the path more; see `super::fields`, which both this and
//! [`super::rank_weighted`] count with), its weighted length, the names it
//! defines by the keyword guess, and its text's length. Terms are kept as 64-bit hashes, sorted,
//! so a lookup is a binary search (behind a Bloom filter of about 10 bits a term, which rules
//! out most absent terms with one cache line) and the index costs 17 bytes per distinct term of the file
//! (plus 16 per defined name: as written, and as a term): a collision would only add one term's count to another's, about
//! one chance in 2^64 per pair of distinct terms, and only in the ranking's order.
//!
//! The index is built from the text the caller passes, nothing else: given the scanned text, a
//! redacted span cannot be in it. Building costs one pass of the term split over the text and
//! the path (the cost [`super::rank_weighted`] pays per query), then a sort of the distinct terms.

use super::Query;
use super::fields::{defined_words, for_each_weighted_term_named, symbol_of};
use super::score::{Gathered, PathFacts, Touched};
use super::terms::{for_each_term, split_identifier, term_hash};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// What ranking needs of one file.
#[derive(Clone, Debug, PartialEq)]
pub struct FileIndex {
    /// Each distinct term's hash and weighted frequency, sorted by hash.
    terms: Box<[(u64, u32)]>,
    /// A blocked Bloom filter of the same hashes ([`Bloom`]): most of a query's terms are in
    /// few files, and this rules a file out with one cache line instead of a binary search.
    bloom: Bloom,
    /// The weighted number of terms (BM25's document length).
    len: usize,
    /// Hashes of the names it defines (lowercased, without underscores), sorted, distinct.
    defined: Box<[u64]>,
    /// The same names as terms (stemmed, as the text's terms are), sorted, distinct: what
    /// another file's terms are matched against.
    defined_terms: Box<[u64]>,
    /// Each of them with the name's hash as written (as `defined` has it: lowercased, without
    /// underscores, as import lines name it) and whether it is one plain word (lowercase or
    /// capitals: `size`, `BETWEEN`, not `Parser` or `parse_config`), sorted by term.
    written: Box<[(u64, u64, bool)]>,
    /// The text's length in bytes.
    text_len: usize,
    /// What scoring needs of its path.
    facts: PathFacts,
    /// Hashes of the words of its import lines ([`import_words`]), sorted, distinct: the modules
    /// it names as dependencies.
    imports: Box<[u64]>,
}

impl FileIndex {
    /// Index the file shown as `path` with the text `text`.
    pub fn build(path: &str, text: &str) -> FileIndex {
        let mut tf: FxHashMap<u64, u32> = FxHashMap::default();
        tf.reserve(text.len() / 64);
        let mut len = 0usize;
        let words: Vec<&str> = defined_words(text).collect();
        for_each_weighted_term_named(path, text, &words, |t, w| {
            len += w;
            let f = tf.entry(term_hash(t)).or_default();
            *f = f.saturating_add(w as u32);
        });
        let mut terms: Vec<(u64, u32)> = tf.into_iter().collect();
        terms.sort_unstable();
        let names: Vec<String> = words.iter().map(|w| symbol_of(w)).collect();
        let mut defined: Vec<u64> = names.iter().map(|s| term_hash(s)).collect();
        defined.sort_unstable();
        defined.dedup();
        let mut defined_terms: Vec<u64> = Vec::with_capacity(names.len());
        let mut written: Vec<(u64, u64, bool)> = Vec::with_capacity(names.len());
        for (name, word) in names.iter().zip(&words) {
            let mut first = None;
            for_each_term(name, |t| {
                first.get_or_insert_with(|| term_hash(t));
            });
            if let Some(h) = first {
                defined_terms.push(h);
                written.push((h, term_hash(name), plain_word(word)));
            }
        }
        defined_terms.sort_unstable();
        defined_terms.dedup();
        written.sort_unstable();
        written.dedup_by_key(|w| w.0);
        FileIndex {
            bloom: Bloom::of(terms.iter().map(|(h, _)| *h), terms.len()),
            terms: terms.into_boxed_slice(),
            len,
            defined: defined.into_boxed_slice(),
            defined_terms: defined_terms.into_boxed_slice(),
            written: written.into_boxed_slice(),
            text_len: text.len(),
            facts: PathFacts::of(path, text.len()),
            imports: import_words(text).into_boxed_slice(),
        }
    }

    /// The weighted frequency of the term hashed `h`, if the file has it.
    pub fn tf(&self, h: u64) -> Option<usize> {
        if !self.bloom.may_hold(h) {
            return None;
        }
        self.terms
            .binary_search_by_key(&h, |(k, _)| *k)
            .ok()
            .map(|at| self.terms[at].1 as usize)
    }

    /// Whether the file defines the name hashed `h` (by the keyword guess).
    pub fn defines(&self, h: u64) -> bool {
        self.defined.binary_search(&h).is_ok()
    }

    /// The weighted number of terms.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the file has no term at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The text's length in bytes.
    pub fn text_len(&self) -> usize {
        self.text_len
    }

    /// How many distinct terms the file has.
    pub fn distinct_terms(&self) -> usize {
        self.terms.len()
    }

    /// Whether one of its import lines names the word hashed `h` (see [`module_name`]).
    pub fn imports(&self, h: u64) -> bool {
        self.imports.binary_search(&h).is_ok()
    }

    /// The names it defines (by the keyword guess), as terms: stemmed, hashed, sorted.
    pub fn defined_terms(&self) -> &[u64] {
        &self.defined_terms
    }

    /// Whether it defines the name whose term is hashed `h` (see [`FileIndex::defined_terms`]).
    pub fn defines_term(&self, h: u64) -> bool {
        self.defined_terms.binary_search(&h).is_ok()
    }

    /// How it writes the name it defines whose term is hashed `h`: the name's hash as written
    /// (lowercased, without underscores, as [`FileIndex::imports`] takes it), and whether it is
    /// one plain word (`size`, `BETWEEN`; not `Parser`, `parse_config`). `None` when it does
    /// not define it.
    pub fn defined_as(&self, h: u64) -> Option<(u64, bool)> {
        let at = self.written.binary_search_by_key(&h, |w| w.0).ok()?;
        Some((self.written[at].1, self.written[at].2))
    }

    /// Its distinct terms' hashes, sorted.
    pub(super) fn term_hashes(&self) -> impl Iterator<Item = u64> + '_ {
        self.terms.iter().map(|(h, _)| *h)
    }

    /// The hashes of its import lines' words, sorted, distinct (see [`FileIndex::imports`]).
    pub(super) fn import_words(&self) -> &[u64] {
        &self.imports
    }

    /// What scoring needs of its path.
    pub(super) fn facts(&self) -> &PathFacts {
        &self.facts
    }

    /// What the index takes in memory, in bytes.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<FileIndex>()
            + self.facts.heap_bytes()
            + std::mem::size_of_val(&*self.terms)
            + std::mem::size_of_val(&*self.bloom.0)
            + std::mem::size_of_val(&*self.defined)
            + std::mem::size_of_val(&*self.defined_terms)
            + std::mem::size_of_val(&*self.written)
            + std::mem::size_of_val(&*self.imports)
    }
}

/// The terms of a set of indexed files by term: for each term, the files holding it (by their
/// position in the set, ascending) with its weighted frequency in each; for each defined name,
/// the files defining it; and the sum of the files' weighted lengths. A query then costs the
/// files that hold its terms, not a lookup in every file; the scores are the same as by
/// [`FileIndex::tf`] and [`FileIndex::defines`], file by file. Built once for a set that is
/// kept (a repository's index in the warm cache), in time linear in the files' distinct terms.
pub struct Postings {
    terms: Arc<Lists<(u32, u32)>>,
    defined: Arc<Lists<u32>>,
    /// Each name of a file or a directory on its path ([`PathFacts`]): the files it names.
    named: Arc<Lists<u32>>,
    /// Files indexed again since the lists were built: left out of them, listed here instead.
    patch: Option<Box<Patch>>,
    /// Each file's weighted length.
    lens: Box<[usize]>,
    total_len: usize,
    files: usize,
}

/// The postings of the files indexed again since the lists were built ([`Postings::patched`]).
struct Patch {
    /// Their positions, sorted.
    stale: Box<[u32]>,
    terms: Lists<(u32, u32)>,
    defined: Lists<u32>,
    named: Lists<u32>,
}

/// The most files a [`Patch`] holds; past it the postings are built again whole.
const MAX_PATCHED: usize = 256;

impl Postings {
    /// The postings of `files`, in that order; `None` when `stop` said so (asked every 256
    /// files).
    pub fn build(files: &[&FileIndex], stop: &dyn Fn() -> bool) -> Option<Postings> {
        let all: Vec<u32> = (0..files.len() as u32).collect();
        let (terms, defined, named) = lists(files, &all, stop)?;
        Some(Postings {
            terms: Arc::new(terms),
            defined: Arc::new(defined),
            named: Arc::new(named),
            patch: None,
            lens: files.iter().map(|f| f.len).collect(),
            total_len: files.iter().map(|f| f.len).sum(),
            files: files.len(),
        })
    }

    /// These postings after the files at the positions `changed` were indexed again: `files`
    /// is the new set (the same number of files, each at the same position). The lists are
    /// shared, not copied; the changed files (with those patched before) are left out of them
    /// and listed in a patch of their own. Built again whole past `MAX_PATCHED` files.
    pub fn patched(
        &self,
        files: &[&FileIndex],
        changed: &[usize],
        stop: &dyn Fn() -> bool,
    ) -> Option<Postings> {
        if files.len() != self.files {
            return Postings::build(files, stop);
        }
        let mut stale: Vec<u32> = changed.iter().map(|&i| i as u32).collect();
        if let Some(p) = &self.patch {
            stale.extend_from_slice(&p.stale);
        }
        stale.sort_unstable();
        stale.dedup();
        if stale.len() > MAX_PATCHED {
            return Postings::build(files, stop);
        }
        let (terms, defined, named) = lists(files, &stale, stop)?;
        let lens: Box<[usize]> = files.iter().map(|f| f.len).collect();
        Some(Postings {
            terms: Arc::clone(&self.terms),
            defined: Arc::clone(&self.defined),
            named: Arc::clone(&self.named),
            patch: Some(Box::new(Patch {
                stale: stale.into_boxed_slice(),
                terms,
                defined,
                named,
            })),
            total_len: lens.iter().sum(),
            lens,
            files: files.len(),
        })
    }

    /// Whether file `i` is left out of the shared lists (listed in the patch instead).
    fn stale(&self, i: u32) -> bool {
        self.patch
            .as_ref()
            .is_some_and(|p| p.stale.binary_search(&i).is_ok())
    }

    /// `list` of the shared lists without the patched files, then `patched`.
    fn merged<'a, T: Copy>(
        &'a self,
        list: &'a [T],
        patched: Option<&'a [T]>,
        file: impl Fn(&T) -> u32 + 'a,
    ) -> impl Iterator<Item = T> + 'a {
        list.iter()
            .filter(move |t| !self.stale(file(t)))
            .chain(patched.unwrap_or(&[]))
            .copied()
    }

    /// The files holding the term hashed `h`, each with the term's weighted frequency.
    pub fn files_with(&self, h: u64) -> impl Iterator<Item = (u32, u32)> + '_ {
        let patched = self.patch.as_ref().map(|p| p.terms.get(h));
        self.merged(self.terms.get(h), patched, |&(i, _)| i)
    }

    /// The files defining the name hashed `h`.
    pub fn files_defining(&self, h: u64) -> impl Iterator<Item = u32> + '_ {
        let patched = self.patch.as_ref().map(|p| p.defined.get(h));
        self.merged(self.defined.get(h), patched, |&i| i)
    }

    /// The files the name hashed `h` names (their own name or a directory's, see
    /// `PathFacts`).
    pub fn files_named(&self, h: u64) -> impl Iterator<Item = u32> + '_ {
        let patched = self.patch.as_ref().map(|p| p.named.get(h));
        self.merged(self.named.get(h), patched, |&i| i)
    }

    /// [`Gathered`] for the files the query touches, with each query term's document
    /// frequency: a file holding one of the query's terms, defining one of its names, or named
    /// by it (its own name or a directory's). Every other file would score its prior alone,
    /// below every touched file, and is left out. The same facts as the per-file lookups give
    /// each touched file ([`super::score::gather_indexed`]), in the query's order.
    pub(super) fn gather(&self, query: &Query, stop: &dyn Fn() -> bool) -> Option<Touched> {
        let (postings, files) = (self, self.files);
        let mut slot = vec![u32::MAX; files];
        let mut touched: Vec<(usize, Gathered)> = Vec::new();
        let mut at = |i: usize, touched: &mut Vec<(usize, Gathered)>| -> usize {
            if slot[i] == u32::MAX {
                slot[i] = touched.len() as u32;
                touched.push((
                    i,
                    Gathered {
                        tf: Vec::new(),
                        len: postings.len_of(i),
                        symbol_hits: 0,
                    },
                ));
            }
            slot[i] as usize
        };
        let mut df = Vec::with_capacity(query.terms.len());
        for (k, t) in query.terms.iter().enumerate() {
            if stop() {
                return None;
            }
            let holding: Vec<(u32, u32)> = postings.files_with(term_hash(t)).collect();
            df.push(holding.len());
            for (i, tf) in holding {
                let j = at(i as usize, &mut touched);
                touched[j].1.tf.push((k, tf as usize));
            }
        }
        let names: Vec<u64> = query.names.iter().map(|t| term_hash(t)).collect();
        for h in &names {
            for i in postings.files_defining(*h) {
                let j = at(i as usize, &mut touched);
                touched[j].1.symbol_hits += 1;
            }
        }
        for h in &names {
            for i in postings.files_named(*h) {
                at(i as usize, &mut touched);
            }
        }
        Some((touched, df))
    }

    /// The weighted length of file `i`.
    pub fn len_of(&self, i: usize) -> usize {
        self.lens[i]
    }

    /// The sum of the files' weighted lengths.
    pub fn total_len(&self) -> usize {
        self.total_len
    }

    /// How many files it was built from.
    pub fn files(&self) -> usize {
        self.files
    }

    /// What it takes in memory, in bytes.
    pub fn bytes(&self) -> usize {
        let patch = self.patch.as_ref().map_or(0, |p| {
            std::mem::size_of::<Patch>()
                + std::mem::size_of_val(&*p.stale)
                + p.terms.bytes()
                + p.defined.bytes()
                + p.named.bytes()
        });
        std::mem::size_of::<Postings>()
            + self.terms.bytes()
            + self.defined.bytes()
            + self.named.bytes()
            + patch
            + std::mem::size_of_val(&*self.lens)
    }
}

/// The lists [`Postings`] holds: by term, by defined name, by path name.
type ListsOf = (Lists<(u32, u32)>, Lists<u32>, Lists<u32>);

/// The term, defined-name and path-name lists of the files at positions `at` (ascending) of
/// `files`; `None` when `stop` said so (asked every 256 files of each pass).
fn lists(files: &[&FileIndex], at: &[u32], stop: &dyn Fn() -> bool) -> Option<ListsOf> {
    let stopped = std::cell::Cell::new(false);
    let each = || {
        at.iter()
            .enumerate()
            .take_while(|(n, _)| {
                if n % 256 == 0 && stop() {
                    stopped.set(true);
                }
                !stopped.get()
            })
            .map(|(_, &i)| (i, files[i as usize]))
    };
    let terms = Lists::build(|put| {
        for (i, f) in each() {
            for &(h, tf) in f.terms.iter() {
                put(h, (i, tf));
            }
        }
    });
    let defined = Lists::build(|put| {
        for (i, f) in each() {
            for &h in f.defined.iter() {
                put(h, i);
            }
        }
    });
    let named = Lists::build(|put| {
        let mut names: Vec<u64> = Vec::new();
        for (i, f) in each() {
            // A name twice on one path (`a/a.rs`) names the file once.
            names.clear();
            names.extend(f.facts.path_names());
            names.sort_unstable();
            names.dedup();
            for &h in &names {
                put(h, i);
            }
        }
    });
    (!stopped.get()).then_some((terms, defined, named))
}

/// Lists of items by 64-bit key, all in one array: each key's list is a range of it, its items
/// in the order they were put. Built in two passes over the entries (count, then fill), so it
/// costs one allocation, not one per key.
struct Lists<T> {
    ranges: FxHashMap<u64, (u32, u32)>,
    items: Box<[T]>,
}

impl<T: Copy + Default> Lists<T> {
    /// The lists of the entries `entries` puts (it is called twice and must put the same).
    fn build(entries: impl Fn(&mut dyn FnMut(u64, T))) -> Lists<T> {
        let mut ranges: FxHashMap<u64, (u32, u32)> = FxHashMap::default();
        entries(&mut |h, _| ranges.entry(h).or_default().1 += 1);
        let mut next = 0u32;
        for (start, len) in ranges.values_mut() {
            *start = next;
            next += *len;
            *len = 0;
        }
        let mut items = vec![T::default(); next as usize].into_boxed_slice();
        entries(&mut |h, item| {
            if let Some((start, len)) = ranges.get_mut(&h) {
                items[(*start + *len) as usize] = item;
                *len += 1;
            }
        });
        Lists { ranges, items }
    }

    /// The list of `h` (empty when it has none).
    fn get(&self, h: u64) -> &[T] {
        self.ranges.get(&h).map_or(&[], |&(start, len)| {
            &self.items[start as usize..(start + len) as usize]
        })
    }

    /// What it takes in memory, in bytes.
    fn bytes(&self) -> usize {
        self.ranges.capacity() * (std::mem::size_of::<(u64, (u32, u32))>() + 1)
            + std::mem::size_of_val(&*self.items)
    }
}

/// A blocked Bloom filter of 64-bit term hashes: blocks of 512 bits (one cache line), about
/// [`BLOOM_BITS`] bits per term; a hash picks one block and sets [`BLOOM_PROBES`] bits in it.
/// It answers "maybe" for every hash put in and, for about 2% of the others, wrongly; a "maybe"
/// is then settled by the binary search, so the filter changes no answer, only the time.
#[derive(Clone, Debug, PartialEq)]
struct Bloom(Box<[u64]>);

/// Bits of the filter per term.
const BLOOM_BITS: usize = 10;
/// Bits a hash sets in its block.
const BLOOM_PROBES: u32 = 4;

impl Bloom {
    /// The filter of `n` hashes.
    fn of(hashes: impl Iterator<Item = u64>, n: usize) -> Bloom {
        let blocks = (n * BLOOM_BITS).div_ceil(512).max(1);
        let mut words = vec![0u64; blocks * 8].into_boxed_slice();
        for h in hashes {
            let (block, bits) = Self::probe(h, blocks);
            for bit in bits {
                words[block * 8 + bit / 64] |= 1 << (bit % 64);
            }
        }
        Bloom(words)
    }

    /// Whether `h` may have been put in.
    fn may_hold(&self, h: u64) -> bool {
        let (block, mut bits) = Self::probe(h, self.0.len() / 8);
        bits.all(|bit| self.0[block * 8 + bit / 64] & (1 << (bit % 64)) != 0)
    }

    /// The block `h` falls in, of `blocks`, and the bits (0..512) it sets there.
    fn probe(h: u64, blocks: usize) -> (usize, impl Iterator<Item = usize>) {
        // The term hash is mixed again (splitmix64's finalizer) so that the block and the bits
        // come from independent-looking parts of it.
        let mut x = h ^ (h >> 30);
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x ^= x >> 27;
        x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^= x >> 31;
        // The block from the high bits (a multiply-shift, no division), each bit from nine of
        // the low ones.
        let block = ((u128::from(x) * blocks as u128) >> 64) as usize;
        let bits = (0..BLOOM_PROBES).map(move |i| (x >> (9 * i)) as usize & 511);
        (block, bits)
    }
}

/// The hashes of the words of `text`'s import lines, sorted and distinct: lines that start
/// (after blanks) with `use`, `pub use`, `import`, `from`, `#include`, `#import`, `mod`,
/// `pub mod`, `extern crate`, `using`, `require` or `load`, or that call `require(`, and the
/// lines of a bracket such a line leaves open (`use crate::{` ... `};`, `import {` ... `}`,
/// `from x import (` ... `)`, at most [`MAX_IMPORT_BLOCK`] lines); a scoped package
/// (`@babel/types`) also gives its scope and name as one word (`babeltypes`). A Rust `use` of
/// `std`, `core` or `alloc` names no file of the repository and gives no word. Words are
/// lowercased with `_` and `-` dropped (`./permessage-deflate` → `permessagedeflate`), the form
/// of [`module_name`].
fn import_words(text: &str) -> Vec<u64> {
    /// How much a line opens brackets, less what it closes.
    fn opens(line: &str) -> isize {
        line.bytes()
            .map(|b| match b {
                b'{' | b'(' => 1,
                b'}' | b')' => -1,
                _ => 0,
            })
            .sum()
    }
    const STARTS: &[&str] = &[
        "use ",
        "pub use ",
        "pub(crate) use ",
        "import ",
        "from ",
        "#include",
        "#import",
        "mod ",
        "pub mod ",
        "extern crate ",
        "using ",
        "require ",
        "require_relative ",
        "load(",
    ];
    // The first letters of `STARTS`: most lines are passed over on their first byte.
    const FIRSTS: &[u8] = b"upifm#erl";
    // Where `require(` is, found in one pass rather than looked for on every line.
    let mut requires = memchr::memmem::find_iter(text.as_bytes(), b"require(").peekable();
    let mut out = Vec::new();
    let mut word = String::new();
    let mut start = 0;
    // The brackets an import line left open, the lines read inside them, and whether the
    // import is of Rust's standard library (whose words name no file of the repository).
    let (mut open, mut inside, mut external) = (0isize, 0usize, false);
    // The lines with their `\n`, as `split_inclusive('\n')` gives them (memchr's search).
    let breaks = memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1);
    for end in breaks.chain(std::iter::once(text.len())) {
        let piece = &text[start..end];
        start = end;
        if piece.is_empty() {
            continue;
        }
        let mut required = false;
        while requires.next_if(|&at| at < end).is_some() {
            required = true;
        }
        let t = piece.trim_start();
        if open > 0 && inside < MAX_IMPORT_BLOCK {
            // A line of an import's open bracket.
            open += opens(t);
            inside += 1;
            if external {
                continue;
            }
        } else {
            open = 0;
            let starts = t.as_bytes().first().is_some_and(|b| FIRSTS.contains(b))
                && STARTS.iter().any(|s| t.starts_with(s));
            if !(starts || required) {
                continue;
            }
            // `mod tests {` declares a module inline: it names no file.
            if (t.starts_with("mod ") || t.starts_with("pub mod ")) && t.contains('{') {
                continue;
            }
            if starts {
                (open, inside) = (opens(t), 0);
                let path = t
                    .trim_start_matches("pub ")
                    .trim_start_matches("pub(crate) ");
                external = ["use std::", "use core::", "use alloc::"]
                    .iter()
                    .any(|s| path.starts_with(s));
                if external {
                    continue;
                }
            }
        }
        // The line as `str::lines` gives it: without its `\n` or `\r\n`.
        let t = t.strip_suffix('\n').unwrap_or(t);
        let t = t.strip_suffix('\r').unwrap_or(t);
        for w in t.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')) {
            word.clear();
            word.extend(
                w.chars()
                    .filter(|c| !matches!(c, '_' | '-'))
                    .flat_map(char::to_lowercase),
            );
            if word.len() > 1 {
                out.push(term_hash(&word));
            }
        }
        // A scoped package (`@babel/types`) also names its directory as monorepos write it
        // (`babel-types`): the scope and the name together.
        for (at, _) in t.match_indices('@') {
            let mut parts = t[at + 1..].splitn(3, '/');
            let (Some(scope), Some(name)) = (parts.next(), parts.next()) else {
                continue;
            };
            let name = name
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
                .next()
                .unwrap_or("");
            let wordy = |s: &str| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
            };
            if wordy(scope) && wordy(name) {
                word.clear();
                word.extend(
                    scope
                        .chars()
                        .chain(name.chars())
                        .filter(|c| !matches!(c, '_' | '-'))
                        .flat_map(char::to_lowercase),
                );
                out.push(term_hash(&word));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether a defined name as written is one plain word: one part (no `_`, no inner capital),
/// not capitalized like a type (`Parser`): `size`, `BETWEEN`. Such a name is also a part of
/// other identifiers and a word of prose.
pub fn plain_word(word: &str) -> bool {
    let mut chars = word.chars();
    let capitalized = chars.next().is_some_and(char::is_uppercase) && chars.any(char::is_lowercase);
    !capitalized && split_identifier(word).len() <= 1
}

/// The most lines of one import's open bracket read as import lines.
const MAX_IMPORT_BLOCK: usize = 256;

/// The word by which other files import the file at `path`: its stem lowercased without `_`, `-`
/// or `.`, or its directory's name for a module's own file (`mod.rs`, `index.js`,
/// `__init__.py`, `lib.rs`), the package's for one in a `src` directory
/// (`crates/hir/src/lib.rs`: `hir`, as `use hir::...` names it); `None` for a file with no
/// stem.
pub fn module_name(path: &str) -> Option<u64> {
    let mut comps = path.rsplit('/');
    let name = comps.next()?;
    let stem = name.split('.').next().unwrap_or(name);
    let stem = if matches!(stem, "mod" | "index" | "__init__" | "lib" | "main") {
        match comps.next() {
            Some("src") => comps.next().unwrap_or("src"),
            Some(dir) => dir,
            None => stem,
        }
    } else {
        stem
    };
    let lower: String = stem
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .flat_map(char::to_lowercase)
        .collect();
    (lower.len() > 1).then(|| term_hash(&lower))
}

#[cfg(test)]
mod tests {
    use super::super::fields::DEFINED_WEIGHT;
    use super::super::fields::PATH_WEIGHT;
    use super::*;

    #[test]
    fn counts_text_and_path_terms_and_defined_names() {
        let ix = FileIndex::build("src/http_client.rs", "fn get_response() { response }");
        // `response` (stemmed): twice in the text, once more in the defined name (weighted);
        // `http`: once in the path, weighted.
        assert_eq!(ix.tf(term_hash("respons")), Some(2 + DEFINED_WEIGHT));
        assert_eq!(ix.tf(term_hash("http")), Some(PATH_WEIGHT));
        assert_eq!(ix.tf(term_hash("missing")), None);
        assert!(ix.defines(term_hash("getresponse")));
        assert!(!ix.defines(term_hash("response")));
        // fn, getresponse, get, response, response; the defined name's getresponse, get,
        // response; then src, httpclient, http, client, rs.
        assert_eq!(ix.len(), 5 + 3 * DEFINED_WEIGHT + 5 * PATH_WEIGHT);
        assert_eq!(ix.text_len(), 30);
        assert!(ix.bytes() >= ix.distinct_terms() * 12);
    }

    #[test]
    fn the_bloom_filter_holds_every_term_and_rules_out_most_others() {
        for n in [0usize, 1, 7, 51, 52, 1000, 20_000] {
            let put: Vec<u64> = (0..n).map(|i| term_hash(&format!("t{i}"))).collect();
            let bloom = Bloom::of(put.iter().copied(), put.len());
            assert!(put.iter().all(|h| bloom.may_hold(*h)), "{n}");
            let wrong = (0..20_000)
                .filter(|i| bloom.may_hold(term_hash(&format!("absent{i}"))))
                .count();
            // About 2% at 10 bits a term; a filter of one block for a tiny file is emptier.
            assert!(
                wrong < 20_000 / 25,
                "{n} terms: {wrong} of 20000 absent ones pass"
            );
        }
        // A file's index answers through it as through the sorted terms alone.
        let text = (0..3000).map(|i| format!("w{i} ")).collect::<String>();
        let ix = FileIndex::build("a.txt", &text);
        for i in 0..6000 {
            let h = term_hash(&format!("w{i}"));
            let sure = ix.terms.binary_search_by_key(&h, |(k, _)| *k).is_ok();
            assert_eq!(ix.tf(h).is_some(), sure, "w{i}");
        }
    }

    #[test]
    fn import_lines_name_modules() {
        let ix = FileIndex::build(
            "src/app.js",
            "const ws = require('./permessage-deflate');\nimport { x } from './http_client';\nlet parser = 1;",
        );
        let name = |p: &str| module_name(p).unwrap();
        assert!(ix.imports(name("lib/permessage-deflate.js")));
        assert!(ix.imports(name("src/http_client/index.ts")));
        assert!(!ix.imports(name("src/parser.js")), "not an import line");
        let ix = FileIndex::build(
            "src/a.rs",
            "use crate::{\n    parser::Parser,\n    util,\n};\nfn lexer() {}\n",
        );
        assert!(ix.imports(name("src/parser.rs")) && ix.imports(name("util.rs")));
        assert!(!ix.imports(name("src/lexer.rs")), "after the block");
        let ix = FileIndex::build(
            "a.rs",
            "use std::{\n    io,\n    sync::Arc,\n};\npub use core::fmt;\nuse crate::io;\n",
        );
        assert!(ix.imports(name("src/io/mod.rs")), "crate::io");
        assert!(!ix.imports(name("src/sync.rs")) && !ix.imports(name("src/fmt.rs")));
        let ix = FileIndex::build("a.ts", "import { isNode } from \"@babel/types\";\n");
        assert!(ix.imports(name("packages/babel-types/src/index.ts")));
        let ix = FileIndex::build("src/a.rs", "mod util;\n#[cfg(test)]\nmod tests {\n}\n");
        assert!(ix.imports(name("src/util.rs")));
        assert!(!ix.imports(name("src/tests.rs")), "an inline module");
        assert_eq!(module_name("src/net/mod.rs"), module_name("lib/net.py"));
        // A package's own file in `src` is named by the package.
        assert_eq!(module_name("crates/hir/src/lib.rs"), module_name("hir.rs"));
        assert_eq!(module_name("src/lib.rs"), module_name("src.rs"));
    }
}
