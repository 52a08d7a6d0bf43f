//! The search index of one file: what scoring needs of it, computed once from its shown path and
//! its shown text (secrets already redacted), so that a later query only looks its terms up.
//!
//! A [`FileIndex`] holds the weighted frequency of every term of the file (text 1, path
//! [`PATH_WEIGHT`], as [`super::rank_weighted`] counts them), its weighted length, the names it
//! defines by the keyword guess, and its text's length. Terms are kept as 64-bit hashes, sorted,
//! so a lookup is a binary search and the index costs 16 bytes per distinct term of the file
//! (plus 8 per defined name): a collision would only add one term's count to another's, about
//! one chance in 2^64 per pair of distinct terms, and only in the ranking's order.
//!
//! The index is built from the text the caller passes, nothing else: given the scanned text, a
//! redacted span cannot be in it. Building costs one pass of the term split over the text and
//! the path (the cost [`super::rank_weighted`] pays per query), then a sort of the distinct terms.

use super::score::{PATH_WEIGHT, PathFacts, defined_symbols};
use super::terms::for_each_term;
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::Hasher;

/// What ranking needs of one file.
#[derive(Clone, Debug, PartialEq)]
pub struct FileIndex {
    /// Each distinct term's hash and weighted frequency, sorted by hash.
    terms: Box<[(u64, u32)]>,
    /// The weighted number of terms (BM25's document length).
    len: usize,
    /// Hashes of the names it defines (lowercased, without underscores), sorted, distinct.
    defined: Box<[u64]>,
    /// The text's length in bytes.
    text_len: usize,
    /// What scoring needs of its path.
    facts: PathFacts,
}

/// The hash a term is indexed under (deterministic: the same on every machine and run).
pub fn term_hash(term: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(term.as_bytes());
    h.write_u8(0xff);
    h.finish()
}

impl FileIndex {
    /// Index the file shown as `path` with the text `text`.
    pub fn build(path: &str, text: &str) -> FileIndex {
        let mut tf: FxHashMap<u64, u32> = FxHashMap::default();
        let mut len = 0usize;
        for_each_term(text, |t| {
            len += 1;
            let f = tf.entry(term_hash(t)).or_default();
            *f = f.saturating_add(1);
        });
        for_each_term(path, |t| {
            len += PATH_WEIGHT;
            let f = tf.entry(term_hash(t)).or_default();
            *f = f.saturating_add(PATH_WEIGHT as u32);
        });
        let mut terms: Vec<(u64, u32)> = tf.into_iter().collect();
        terms.sort_unstable();
        let mut defined: Vec<u64> = defined_symbols(text).map(|s| term_hash(&s)).collect();
        defined.sort_unstable();
        defined.dedup();
        FileIndex {
            terms: terms.into_boxed_slice(),
            len,
            defined: defined.into_boxed_slice(),
            text_len: text.len(),
            facts: PathFacts::of(path, text.len()),
        }
    }

    /// The weighted frequency of the term hashed `h`, if the file has it.
    pub fn tf(&self, h: u64) -> Option<usize> {
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

    /// What scoring needs of its path.
    pub(super) fn facts(&self) -> &PathFacts {
        &self.facts
    }

    /// What the index takes in memory, in bytes.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<FileIndex>()
            + self.facts.heap_bytes()
            + std::mem::size_of_val(&*self.terms)
            + std::mem::size_of_val(&*self.defined)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_text_and_path_terms_and_defined_names() {
        let ix = FileIndex::build("src/http_client.rs", "fn get_response() { response }");
        // `response`: twice in the text; `http`: once in the path, weighted.
        assert_eq!(ix.tf(term_hash("response")), Some(2));
        assert_eq!(ix.tf(term_hash("http")), Some(PATH_WEIGHT));
        assert_eq!(ix.tf(term_hash("missing")), None);
        assert!(ix.defines(term_hash("getresponse")));
        assert!(!ix.defines(term_hash("response")));
        // fn, getresponse, get, response, response; then src, httpclient, http, client, rs.
        assert_eq!(ix.len(), 5 + 5 * PATH_WEIGHT);
        assert_eq!(ix.text_len(), 30);
        assert!(ix.bytes() >= ix.distinct_terms() * 12);
    }
}
