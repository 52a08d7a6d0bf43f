//! Measures the token counting engines: table build time, single-core throughput on real source
//! code, identical totals, parallel counting, and hostile long lines without whitespace.
//!
//! `cargo run --release --example tokenizer_bench [CORPUS_DIR] [MEGABYTES]`
//!
//! The corpus defaults to the `.rs` files of the crate sources cargo has fetched
//! (`~/.cargo/registry/src`), read in sorted path order up to 20 MB.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gnaw::count::{self, Encoding};

/// The two engines compared: tiktoken-rs (the reference, a dev-dependency) and gnaw's `count`.
#[derive(Clone, Copy)]
enum Engine {
    Tiktoken,
    Bpe,
}

fn tiktoken(enc: Encoding) -> &'static tiktoken_rs::CoreBPE {
    match enc {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
        Encoding::R50kBase => tiktoken_rs::r50k_base_singleton(),
    }
}

fn count_with(engine: Engine, enc: Encoding, text: &str) -> usize {
    match engine {
        Engine::Tiktoken => tiktoken(enc).encode_ordinary(text).len(),
        Engine::Bpe => count::count(enc, text),
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(default_corpus);
    let megabytes: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let files = corpus(&dir, megabytes << 20);
    let bytes: usize = files.iter().map(String::len).sum();
    println!(
        "corpus: {} .rs files, {:.1} MB from {}",
        files.len(),
        bytes as f64 / 1e6,
        dir.display()
    );
    println!();
    println!(
        "| encoding | tiktoken-rs build | bpe build | tiktoken-rs MB/s | bpe MB/s | speedup | totals |"
    );
    println!("|---|---|---|---|---|---|---|");
    for enc in Encoding::ALL {
        let tik_build = time(|| {
            tiktoken(enc);
        });
        let bpe_build = time(|| count::warm(enc));
        let (tik_total, tik_time) = count_all(Engine::Tiktoken, enc, &files);
        let (bpe_total, bpe_time) = count_all(Engine::Bpe, enc, &files);
        let mbps = |t: Duration| bytes as f64 / 1e6 / t.as_secs_f64();
        println!(
            "| {} | {} | {} | {:.1} | {:.1} | {:.2}x | {} |",
            enc.name(),
            ms(tik_build),
            ms(bpe_build),
            mbps(tik_time),
            mbps(bpe_time),
            tik_time.as_secs_f64() / bpe_time.as_secs_f64(),
            if tik_total == bpe_total {
                format!("identical ({tik_total})")
            } else {
                format!("DIFFER: tiktoken-rs {tik_total}, bpe {bpe_total}")
            }
        );
    }

    println!();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let joined = files.concat();
    for enc in [Encoding::O200kBase, Encoding::R50kBase] {
        let (one, t1) = timed(|| count::count(enc, &joined));
        let (many, tn) = timed(|| {
            count::count_many(enc, &files, threads)
                .iter()
                .sum::<usize>()
        });
        let (split, ts) = timed(|| count::count_parallel(enc, &joined, threads));
        println!(
            "{}: joined text as one piece {one} tokens in {}; count_parallel (safe-point chunks on \
             {threads} threads) {split} in {} ({}); count_many over the separate files {many} in {}",
            enc.name(),
            ms(t1),
            ms(ts),
            if one == split { "equal" } else { "MISMATCH" },
            ms(tn),
        );
    }

    println!();
    println!("hostile: one line without whitespace (bpe engine, i.e. count())");
    println!("| input | o200k | cl100k | p50k | r50k |");
    println!("|---|---|---|---|---|");
    for (name, line) in hostile_lines(4 << 20) {
        let cells: Vec<String> = Encoding::ALL
            .iter()
            .map(|&enc| {
                let (n, t) = timed(|| count::count(enc, &line));
                format!("{} ({n} tokens)", ms(t))
            })
            .collect();
        println!("| {name}, 4 MiB | {} |", cells.join(" | "));
    }
    println!();
    println!("tiktoken-rs on one letter repeated (why it is not the engine):");
    for kib in [100, 400] {
        let line = "a".repeat(kib << 10);
        let cells: Vec<String> = Encoding::ALL
            .iter()
            .map(|&enc| {
                let t = time(|| {
                    count_with(Engine::Tiktoken, enc, &line);
                });
                format!("{} {}", enc.name(), ms(t))
            })
            .collect();
        println!("  {kib} KiB: {}", cells.join(", "));
    }
}

fn default_corpus() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"));
    home.join("registry").join("src")
}

/// `.rs` files under `dir` in sorted path order, until `limit` bytes.
fn corpus(dir: &Path, limit: usize) -> Vec<String> {
    let mut paths = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "rs") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    let mut files = Vec::new();
    let mut total = 0;
    for path in paths {
        if total >= limit {
            break;
        }
        if let Ok(text) = std::fs::read_to_string(&path) {
            total += text.len();
            files.push(text);
        }
    }
    files
}

fn count_all(engine: Engine, enc: Encoding, files: &[String]) -> (usize, Duration) {
    timed(|| files.iter().map(|f| count_with(engine, enc, f)).sum())
}

/// Deterministic long lines without whitespace.
fn hostile_lines(len: usize) -> Vec<(&'static str, String)> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let letters: String = (0..len)
        .map(|_| (b'a' + (next() % 26) as u8) as char)
        .collect();
    let punct: String = (0..len)
        .map(|_| b"!#$%&()*+,-./:;<=>?@[]^_{|}~"[(next() % 28) as usize] as char)
        .collect();
    let cjk: String = (0..len / 3)
        .map(|_| char::from_u32(0x4E00 + (next() % 0x5000) as u32).unwrap_or('中'))
        .collect();
    vec![
        ("one letter", "a".repeat(len)),
        ("random letters", letters),
        ("digits", "7".repeat(len)),
        ("punctuation", punct),
        ("CJK", cjk),
        ("base64-like", "QUJDRA+/".repeat(len / 8)),
    ]
}

fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = f();
    (value, start.elapsed())
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1e3)
}
