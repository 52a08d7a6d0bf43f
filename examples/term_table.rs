//! Builds the term-relatedness table (`src/stages/rank/related.txt`) from the corpus that
//! `scripts/terms/fetch.py` lays out: which terms occur together in source code, so that a
//! query's words can bring the words code near them uses (`scripts/terms/build.sh` runs both).
//!
//! Usage: `cargo run --release --example term_table -- CACHE_DIR OUT`
//!
//! Every file of `CACHE_DIR/files.txt` is cut into windows of [`WINDOW`] lines; a window's terms
//! are gnaw's own (`for_each_term`: lowercased, stemmed), identifiers split into their parts
//! (the whole identifier is not a term here: its parts carry it). Two terms are related by how
//! much more often they share a window than chance would have them do, as normalized pointwise
//! mutual information (NPMI, from -1 to 1), counted over the windows that hold both at least
//! [`MIN_PAIR`] times. Each term of at least [`MIN_DF`] windows keeps its [`KEEP`] most related
//! terms of NPMI at least [`MIN_NPMI`], the NPMI in tenths. Deterministic: the same corpus gives
//! the same bytes.
#![allow(clippy::disallowed_methods)] // a build tool: reads the fetched corpus with std::fs

use gnaw::stages::rank::{for_each_term, split_identifier};
use rustc_hash::{FxHashMap, FxHashSet};
use std::io::Write;

/// Lines in one window of co-occurrence.
const WINDOW: usize = 20;
/// Windows a term must be in to be a key or a related term.
const MIN_DF: u32 = 60;
/// Packages a term must be in: a word of one package's own (its name, its jargon) relates to
/// that package, not to what code means in general.
const MIN_PACKAGES: usize = 8;
/// Windows a pair must share to count.
const MIN_PAIR: u32 = 20;
/// A term in more than this share of windows (`self`, `return`, `the`) relates to everything a
/// little and is never a related term.
const MAX_DF_SHARE: f64 = 0.04;
/// A term in more than this share of windows is not a key either.
const MAX_KEY_SHARE: f64 = 0.25;
/// Related terms kept per term.
const KEEP: usize = 8;
/// The least NPMI kept.
const MIN_NPMI: f64 = 0.25;
/// The most distinct terms counted in one window (the first ones).
const MAX_WINDOW_TERMS: usize = 120;

fn terms_of(text: &str, out: &mut Vec<String>) {
    for word in text.split(|c: char| !c.is_alphanumeric() && c != '_') {
        if word.is_empty() || word.len() > 40 {
            continue;
        }
        for part in split_identifier(word) {
            for_each_term(part, |t| {
                // Digits mark generated names, versions and fixtures (`file4`, `x25`, `u0000`).
                if t.len() > 2 && t.len() <= 24 && t.bytes().all(|b| b.is_ascii_lowercase()) {
                    out.push(t.to_string());
                }
            });
        }
    }
}

/// The windows of one file, each its distinct terms.
fn windows(text: &str, mut f: impl FnMut(&[String])) {
    let lines: Vec<&str> = text.lines().collect();
    // Minified or generated: very long lines say little about words near each other.
    if lines.is_empty() || text.len() / lines.len() > 200 {
        return;
    }
    // A table of numbers (generated Unicode or system constants) says little about words.
    let (mut words, mut numbers) = (0usize, 0usize);
    for w in text.split(|c: char| !c.is_alphanumeric() && c != '_') {
        if let Some(c) = w.chars().next() {
            words += 1;
            numbers += usize::from(c.is_ascii_digit());
        }
    }
    if numbers * 10 > words * 3 {
        return;
    }
    let mut terms = Vec::new();
    for chunk in lines.chunks(WINDOW) {
        terms.clear();
        for line in chunk {
            terms_of(line, &mut terms);
        }
        let mut seen = FxHashSet::default();
        terms.retain(|t| seen.insert(t.clone()));
        terms.truncate(MAX_WINDOW_TERMS);
        f(&terms);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (cache, out) = (&args[1], &args[2]);
    let list = std::fs::read_to_string(format!("{cache}/files.txt")).expect("files.txt");
    // Each file with its package (the first component of its path).
    let texts: Vec<(&str, String)> = list
        .lines()
        .filter(|l| !l.is_empty())
        .filter_map(|p| {
            let b = std::fs::read(format!("{cache}/src/{p}")).ok()?;
            Some((
                p.split('/').next()?,
                String::from_utf8_lossy(&b).into_owned(),
            ))
        })
        .collect();
    // Pass 1: each term's window count, and the packages it is in.
    let mut df: FxHashMap<String, u32> = FxHashMap::default();
    let mut packages: FxHashMap<String, FxHashSet<&str>> = FxHashMap::default();
    let mut n_windows = 0u64;
    for (package, t) in &texts {
        windows(t, |w| {
            n_windows += 1;
            for term in w {
                *df.entry(term.clone()).or_default() += 1;
                packages.entry(term.clone()).or_default().insert(package);
            }
        });
    }
    let max_df = (n_windows as f64 * MAX_DF_SHARE) as u32;
    let max_key = (n_windows as f64 * MAX_KEY_SHARE) as u32;
    let mut vocab: Vec<&String> = df
        .iter()
        .filter(|(t, d)| {
            **d >= MIN_DF && **d <= max_key && packages[t.as_str()].len() >= MIN_PACKAGES
        })
        .map(|(t, _)| t)
        .collect();
    vocab.sort();
    let id: FxHashMap<&str, u32> = vocab
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i as u32))
        .collect();
    eprintln!(
        "{} files, {n_windows} windows, {} terms, {} in the vocabulary (df {MIN_DF}..{max_key}, \
         related terms to {max_df})",
        texts.len(),
        df.len(),
        vocab.len()
    );
    let common: Vec<bool> = vocab.iter().map(|t| df[t.as_str()] > max_df).collect();
    // Pass 2: pairs.
    let mut pairs: FxHashMap<u64, u32> = FxHashMap::default();
    let mut ids = Vec::new();
    for (_, t) in &texts {
        windows(t, |w| {
            ids.clear();
            ids.extend(w.iter().filter_map(|t| id.get(t.as_str()).copied()));
            ids.sort_unstable();
            for (k, &a) in ids.iter().enumerate() {
                for &b in &ids[k + 1..] {
                    // A pair of two terms too common to be related terms relates nothing.
                    if common[a as usize] && common[b as usize] {
                        continue;
                    }
                    *pairs
                        .entry((u64::from(a) << 32) | u64::from(b))
                        .or_default() += 1;
                }
            }
        });
    }
    eprintln!("{} pairs", pairs.len());
    let n = n_windows as f64;
    let mut related: Vec<Vec<(f64, u32)>> = vec![Vec::new(); vocab.len()];
    for (&key, &c) in &pairs {
        if c < MIN_PAIR {
            continue;
        }
        let (a, b) = ((key >> 32) as u32, key as u32);
        let (pa, pb, pab) = (
            f64::from(df[vocab[a as usize]]) / n,
            f64::from(df[vocab[b as usize]]) / n,
            f64::from(c) / n,
        );
        let npmi = (pab / (pa * pb)).ln() / -pab.ln();
        if npmi >= MIN_NPMI {
            if !common[b as usize] {
                related[a as usize].push((npmi, b));
            }
            if !common[a as usize] {
                related[b as usize].push((npmi, a));
            }
        }
    }
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).expect("create OUT"));
    let (mut keys, mut links) = (0, 0);
    for (i, r) in related.iter_mut().enumerate() {
        if r.is_empty() {
            continue;
        }
        // Best first; ties by the term, so the output is the same on every run.
        r.sort_by(|x, y| {
            y.0.total_cmp(&x.0)
                .then(vocab[x.1 as usize].cmp(vocab[y.1 as usize]))
        });
        r.truncate(KEEP);
        let line: Vec<String> = r
            .iter()
            .map(|(s, j)| format!("{}:{}", vocab[*j as usize], (s * 10.0).round() as u32))
            .collect();
        writeln!(file, "{}\t{}", vocab[i], line.join(" ")).expect("write");
        keys += 1;
        links += r.len();
    }
    file.flush().expect("flush");
    eprintln!("{keys} terms, {links} related terms written to {out}");
}
