//! The BPE tables [`super::count`] runs on, embedded compact and compressed, decoded per encoding
//! on first use.
//!
//! `bpe-openai` ships its tables as a serialized `BytePairEncoding` of 32 MB (o200k) and 15 MB
//! (cl100k), and `tiktoken-rs` ships every vocabulary again as base64 text (7 MB): most of the
//! binary's size. Counting needs less. The `bpe` crate's backtracking encoder, the only one
//! [`super::count`] calls, reads the vocabulary, the split table (which two tokens each token was
//! merged from), the pair lookup (its inverse), each token's next-longest prefix token and the
//! leftmost-longest automaton. Two further automata serve the crate's other encoders (appendable,
//! prependable, interval, minimal, by table), never called here; they are replaced by a
//! one-token stub and cost nothing. Of the rest, only what cannot be derived cheaply is stored:
//!
//! | part | stored | at load |
//! |---|---|---|
//! | vocabulary, in rank order | token lengths, then the token bytes | token starts |
//! | hash of each token's bytes | – | recomputed (FNV-1a with the crate's factor) |
//! | split table | two `u32` columns | the pair lookup (each merged token's pair) |
//! | next-longest prefix of each token | one `u32` column | – |
//! | leftmost-longest automaton | its own serialization | – |
//!
//! Columns of `u32` are stored byte-planar (all low bytes, then the next, …), which deflate
//! compresses a fifth smaller than interleaved (o200k's three columns: 1.15 against 1.44 MB). The whole is one zlib stream (`zlib-rs`,
//! already built for `gix`). o200k's tables take 4.4 MB here against 32 MB; loading them (inflate,
//! then the `bpe` crate's own deserialization) is measured by `examples/bpe_load.rs` and reported
//! in `docs/performance.md` ("Binary size").
//!
//! The files in `data/bpe/` are written by `tests/count/bpe_tables.rs` (`write_tables`, run on
//! request) from tiktoken-rs's vocabularies through the `bpe` crate's own `from_dictionary`; the
//! same file proves that every encoding's decoded tables equal the ones `from_dictionary` builds
//! now, and the counting tests compare counts with tiktoken-rs.
//!
//! The decoded parts become a `BytePairEncoding` through its own `Deserialize`, fed field by
//! field in its order (`Feed`); a built encoding is read back through MessagePack (`Parts`,
//! to store or compare it). `Parts` mirrors the struct field for field, so the `bpe` version is
//! pinned in `Cargo.toml`, and the tests fail if the layout ever changes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use aneubeck_daachorse::DoubleArrayAhoCorasick;
use bpe_openai::byte_pair_encoding::BytePairEncoding;
use fnv::FnvHasher;
use serde::de::value::{BytesDeserializer, MapDeserializer, SeqDeserializer};
use serde::de::{DeserializeSeed, IntoDeserializer, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::vocab::Encoding;

/// First bytes of a table file; the raw length follows, then the zlib stream.
const MAGIC: &[u8; 8] = b"GNAWBPE1";

/// Longest raw table accepted (o200k's is about 12 MB): a bound on what decoding allocates.
const MAX_RAW: usize = 64 << 20;

type FnvMap<K, V> = HashMap<K, V, BuildHasherDefault<FnvHasher>>;

/// The embedded, compressed tables of `encoding`.
pub fn embedded(encoding: Encoding) -> &'static [u8] {
    match encoding {
        Encoding::O200kBase => include_bytes!("../../../data/bpe/o200k_base.bpe"),
        Encoding::Cl100kBase => include_bytes!("../../../data/bpe/cl100k_base.bpe"),
        Encoding::P50kBase => include_bytes!("../../../data/bpe/p50k_base.bpe"),
        Encoding::R50kBase => include_bytes!("../../../data/bpe/r50k_base.bpe"),
    }
}

/// Decode the embedded tables of `encoding` into a `BytePairEncoding` that counts exactly as
/// the one `from_dictionary` builds (its other encoders are not available: see the module docs).
pub fn load(encoding: Encoding) -> Result<BytePairEncoding, String> {
    let raw = inflate(embedded(encoding))?;
    let stored = Stored::from_raw(&raw)?;
    BytePairEncoding::deserialize(Feed(&stored)).map_err(|e| e.to_string())
}

/// The table file for `bpe`, as `tests/count/bpe_tables.rs` writes it.
pub fn encode(bpe: &BytePairEncoding) -> Result<Vec<u8>, String> {
    let raw = Parts::of(bpe)?.to_raw()?;
    let mut out = vec![0u8; raw.len() + raw.len() / 8 + 1024];
    let (compressed, rc) = zlib_rs::compress_slice(&mut out, &raw, zlib_rs::DeflateConfig::new(9));
    if rc != zlib_rs::ReturnCode::Ok {
        return Err(format!("deflate failed: {rc:?}"));
    }
    let mut file = Vec::with_capacity(compressed.len() + 12);
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(
        &u32::try_from(raw.len())
            .map_err(|e| e.to_string())?
            .to_le_bytes(),
    );
    file.extend_from_slice(compressed);
    Ok(file)
}

/// Where two encodings' counting tables differ (`None` when they are the same): vocabulary,
/// hashes, split table, pair lookup, prefixes, automaton and hash factor, compared field by
/// field. The other encoders' automata are not compared.
pub fn counting_difference(a: &BytePairEncoding, b: &BytePairEncoding) -> Option<String> {
    let (a, b) = match (Parts::of(a), Parts::of(b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return Some(e),
    };
    let fields = [
        ("all_tokens", a.all_tokens == b.all_tokens),
        ("token_starts", a.token_starts == b.token_starts),
        (
            "bytes_hash_to_token",
            a.bytes_hash_to_token == b.bytes_hash_to_token,
        ),
        ("split_table", a.split_table == b.split_table),
        ("pair_lookup", a.pair_lookup == b.pair_lookup),
        (
            "longest_searcher",
            a.longest_searcher.0 == b.longest_searcher.0,
        ),
        (
            "next_prefix_match",
            a.next_prefix_match == b.next_prefix_match,
        ),
        ("hash_factor", a.hash_factor == b.hash_factor),
    ];
    let differing: Vec<&str> = fields
        .iter()
        .filter(|(_, same)| !same)
        .map(|(name, _)| *name)
        .collect();
    (!differing.is_empty()).then(|| differing.join(", "))
}

/// `BytePairEncoding`'s fields, in its order and with its serde forms (`bpe` 0.2.3): what a
/// built encoding is read back into, to store it or compare it.
#[derive(Deserialize)]
struct Parts {
    all_tokens: Vec<u8>,
    token_starts: Vec<u32>,
    bytes_hash_to_token: FnvMap<u32, u32>,
    split_table: Vec<(u32, u32)>,
    pair_lookup: FnvMap<(u32, u32), u32>,
    longest_searcher: Bytes,
    // Read past only: they hold their places in the layout, and counting never uses them.
    #[allow(dead_code)]
    overlapping_searcher: Bytes,
    #[allow(dead_code)]
    overlapping_searcher_rev: Bytes,
    next_prefix_match: Vec<u32>,
    hash_factor: u64,
}

/// A serialized automaton: serde bytes, as the `bpe` crate writes them.
struct Bytes(Vec<u8>);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
        }
        d.deserialize_bytes(Visit)
    }
}

/// The `bpe` crate's token hash: FNV-1a over the length (8 bytes, little-endian) and the bytes,
/// times the factor, high half.
fn hash_token(bytes: &[u8], factor: u64) -> u32 {
    let mut hasher = FnvHasher::default();
    hasher.write(&(bytes.len() as u64).to_le_bytes());
    hasher.write(bytes);
    (hasher.finish().wrapping_mul(factor) >> 32) as u32
}

/// The stand-in for the two automata counting never reads.
fn stub_automaton() -> Result<Vec<u8>, String> {
    DoubleArrayAhoCorasick::<u32>::new([[0u8]])
        .map(|a| a.serialize())
        .map_err(|e| e.to_string())
}

impl Parts {
    fn of(bpe: &BytePairEncoding) -> Result<Parts, String> {
        let bytes = rmp_serde::to_vec(bpe).map_err(|e| e.to_string())?;
        rmp_serde::from_slice(&bytes).map_err(|e| e.to_string())
    }

    /// The stored form: see the module docs.
    fn to_raw(&self) -> Result<Vec<u8>, String> {
        let n = self.token_starts.len().saturating_sub(1);
        if self.split_table.len() != n || self.next_prefix_match.len() != n {
            return Err("table lengths disagree".into());
        }
        let mut raw = Vec::new();
        raw.extend_from_slice(&(n as u32).to_le_bytes());
        raw.extend_from_slice(&self.hash_factor.to_le_bytes());
        for w in self.token_starts.windows(2) {
            let len = u8::try_from(w[1] - w[0]).map_err(|_| "a token over 255 bytes")?;
            raw.push(len);
        }
        raw.extend_from_slice(&self.all_tokens);
        put_column(&mut raw, self.split_table.iter().map(|p| p.0));
        put_column(&mut raw, self.split_table.iter().map(|p| p.1));
        put_column(&mut raw, self.next_prefix_match.iter().copied());
        raw.extend_from_slice(&(self.longest_searcher.0.len() as u32).to_le_bytes());
        raw.extend_from_slice(&self.longest_searcher.0);
        Ok(raw)
    }
}

/// The stored tables, decoded but not yet expanded: fed to `BytePairEncoding`'s `Deserialize`
/// straight from here ([`Feed`]).
struct Stored<'a> {
    all_tokens: &'a [u8],
    token_starts: Vec<u32>,
    split_table: Vec<(u32, u32)>,
    /// Tokens that were merged from a pair (the others split into themselves).
    merged: usize,
    next_prefix_match: Vec<u32>,
    longest_searcher: &'a [u8],
    stub: Vec<u8>,
    hash_factor: u64,
}

impl<'a> Stored<'a> {
    fn from_raw(raw: &'a [u8]) -> Result<Stored<'a>, String> {
        let mut r = Reader { raw, at: 0 };
        let n = r.u32()? as usize;
        let hash_factor = u64::from_le_bytes(r.take(8)?.try_into().map_err(|_| "short")?);
        let lengths = r.take(n)?;
        let mut token_starts = Vec::with_capacity(n + 1);
        let mut end = 0u32;
        token_starts.push(end);
        for &len in lengths {
            end += u32::from(len);
            token_starts.push(end);
        }
        let all_tokens = r.take(end as usize)?;
        let left = r.column(n)?;
        let right = r.column(n)?;
        let next_prefix_match = r.column(n)?;
        let automaton_len = r.u32()? as usize;
        let longest_searcher = r.take(automaton_len)?;
        if r.at != raw.len() {
            return Err("trailing bytes in the tables".into());
        }
        let split_table: Vec<(u32, u32)> = left.into_iter().zip(right).collect();
        let merged = split_table
            .iter()
            .enumerate()
            .filter(|&(id, &pair)| pair != (id as u32, id as u32))
            .count();
        Ok(Stored {
            all_tokens,
            token_starts,
            split_table,
            merged,
            next_prefix_match,
            longest_searcher,
            stub: stub_automaton()?,
            hash_factor,
        })
    }
}

/// `Stored` handed to `BytePairEncoding`'s own `Deserialize` field by field, in its order, with
/// no serialized form in between: the two hash maps are filled from iterators, the columns and
/// automata read in place. (Written to MessagePack and read back, the same load took about
/// twice the time.)
struct Feed<'s, 'a>(&'s Stored<'a>);

type FeedError = serde::de::value::Error;

impl<'de> Deserializer<'de> for Feed<'_, '_> {
    type Error = FeedError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, FeedError> {
        v.visit_seq(Fields {
            stored: self.0,
            next: 0,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

/// The fields of `BytePairEncoding`, in order (`bpe` 0.2.3, as [`Parts`] mirrors them).
struct Fields<'s, 'a> {
    stored: &'s Stored<'a>,
    next: usize,
}

impl<'de> SeqAccess<'de> for Fields<'_, '_> {
    type Error = FeedError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, FeedError> {
        let s = self.stored;
        self.next += 1;
        let tokens = s.token_starts.len().saturating_sub(1);
        let value = match self.next {
            1 => seed.deserialize(SeqDeserializer::new(s.all_tokens.iter().copied()))?,
            2 => seed.deserialize(SeqDeserializer::new(s.token_starts.iter().copied()))?,
            3 => seed.deserialize(MapDeserializer::new(Exact::new(
                s.token_starts.windows(2).enumerate().map(|(id, w)| {
                    let token = &s.all_tokens[w[0] as usize..w[1] as usize];
                    (hash_token(token, s.hash_factor), id as u32)
                }),
                tokens,
            )))?,
            4 => seed.deserialize(SeqDeserializer::new(s.split_table.iter().map(|&p| Pair(p))))?,
            5 => seed.deserialize(MapDeserializer::new(Exact::new(
                s.split_table
                    .iter()
                    .enumerate()
                    .filter(|&(id, &pair)| pair != (id as u32, id as u32))
                    .map(|(id, &pair)| (Pair(pair), id as u32)),
                s.merged,
            )))?,
            6 => seed.deserialize(BytesDeserializer::new(s.longest_searcher))?,
            7 | 8 => seed.deserialize(BytesDeserializer::new(&s.stub))?,
            9 => seed.deserialize(SeqDeserializer::new(s.next_prefix_match.iter().copied()))?,
            10 => seed.deserialize(s.hash_factor.into_deserializer())?,
            _ => return Ok(None),
        };
        Ok(Some(value))
    }
}

/// A pair of token ids, handed over as a 2-tuple.
struct Pair((u32, u32));

impl IntoDeserializer<'_, FeedError> for Pair {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> Deserializer<'de> for Pair {
    type Error = FeedError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, FeedError> {
        let (a, b) = self.0;
        v.visit_seq(SeqDeserializer::<_, FeedError>::new([a, b].into_iter()))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

/// An iterator that states its exact length, so a map is allocated once.
struct Exact<I> {
    inner: I,
    left: usize,
}

impl<I> Exact<I> {
    fn new(inner: I, len: usize) -> Exact<I> {
        Exact { inner, left: len }
    }
}

impl<I: Iterator> Iterator for Exact<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let item = self.inner.next()?;
        self.left = self.left.saturating_sub(1);
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

/// A `u32` column, byte-planar.
fn put_column(raw: &mut Vec<u8>, values: impl Iterator<Item = u32> + Clone) {
    for plane in 0..4 {
        raw.extend(values.clone().map(|v| v.to_le_bytes()[plane]));
    }
}

struct Reader<'a> {
    raw: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(len).filter(|&e| e <= self.raw.len());
        let end = end.ok_or("the tables end early")?;
        let piece = &self.raw[self.at..end];
        self.at = end;
        Ok(piece)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn column(&mut self, n: usize) -> Result<Vec<u32>, String> {
        let planes = self.take(n.checked_mul(4).ok_or("too many tokens")?)?;
        Ok((0..n)
            .map(|i| {
                u32::from_le_bytes([
                    planes[i],
                    planes[n + i],
                    planes[2 * n + i],
                    planes[3 * n + i],
                ])
            })
            .collect())
    }
}

/// The raw tables of a table file.
fn inflate(file: &[u8]) -> Result<Vec<u8>, String> {
    let rest = file.strip_prefix(MAGIC).ok_or("not a table file")?;
    let (len, stream) = rest.split_at_checked(4).ok_or("not a table file")?;
    let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
    if len > MAX_RAW {
        return Err(format!(
            "tables of {len} bytes exceed the bound of {MAX_RAW}"
        ));
    }
    let mut raw = vec![0u8; len];
    let (out, rc) = zlib_rs::decompress_slice(&mut raw, stream, zlib_rs::InflateConfig::default());
    if rc != zlib_rs::ReturnCode::Ok || out.len() != len {
        return Err(format!("inflate failed: {rc:?}"));
    }
    Ok(raw)
}
