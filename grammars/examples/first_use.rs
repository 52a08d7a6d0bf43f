//! What each grammar's first use costs: the time `Language::new` takes the first time (the
//! inflate of its tables) and the second, and how much the process's resident memory grew.
//!
//! ```sh
//! cargo run -p gnaw-grammars --example first_use
//! ```
//!
//! (The dev profile builds this crate and zlib-rs at opt-level 2: the workspace's Cargo.toml.)
//! Each grammar is loaded once, in the order below, in one process (Linux: reads
//! /proc/self/statm).

#![allow(clippy::disallowed_methods)] // reads /proc/self/statm

use std::time::Instant;
use tree_sitter::Language;
use tree_sitter_language::LanguageFn;

fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn main() {
    let grammars: Vec<(&str, LanguageFn)> = vec![
        ("rust", gnaw_grammars::RUST),
        ("python", gnaw_grammars::PYTHON),
        ("javascript", gnaw_grammars::JAVASCRIPT),
        ("typescript", gnaw_grammars::TYPESCRIPT),
        ("tsx", gnaw_grammars::TSX),
        ("go", gnaw_grammars::GO),
        ("java", gnaw_grammars::JAVA),
        ("c", gnaw_grammars::C),
        ("cpp", gnaw_grammars::CPP),
        ("c_sharp", gnaw_grammars::C_SHARP),
        ("ruby", gnaw_grammars::RUBY),
        ("php", gnaw_grammars::PHP),
        ("kotlin", gnaw_grammars::KOTLIN),
        ("swift", gnaw_grammars::SWIFT),
        ("scala", gnaw_grammars::SCALA),
        ("lua", gnaw_grammars::LUA),
        ("bash", gnaw_grammars::BASH),
        ("elixir", gnaw_grammars::ELIXIR),
        ("haskell", gnaw_grammars::HASKELL),
        ("zig", gnaw_grammars::ZIG),
    ];
    println!("| grammar | tables | stored | first use | second use | resident memory added |");
    println!("|---|---|---|---|---|---|");
    let (mut inflated, mut stored, mut added) = (0, 0, 0);
    for (name, language) in grammars {
        let tables = gnaw_grammars::TABLES
            .iter()
            .find(|t| t.grammar == name)
            .copied();
        let before = resident_bytes();
        let started = Instant::now();
        let first = Language::new(language);
        let first_time = started.elapsed();
        let after = resident_bytes();
        let started = Instant::now();
        let second = Language::new(language);
        let second_time = started.elapsed();
        assert_eq!(first.node_kind_count(), second.node_kind_count());
        let (t, s) = tables.map_or((0, 0), |t| (t.inflated, t.stored));
        inflated += t;
        stored += s;
        added += after.saturating_sub(before);
        println!(
            "| {name} | {:.2} MB | {:.3} MB | {:.1} ms | {:.1} µs | {:.2} MB |",
            t as f64 / 1e6,
            s as f64 / 1e6,
            first_time.as_secs_f64() * 1e3,
            second_time.as_secs_f64() * 1e6,
            after.saturating_sub(before) as f64 / 1e6,
        );
    }
    println!(
        "| all | {:.2} MB | {:.3} MB | | | {:.2} MB |",
        inflated as f64 / 1e6,
        stored as f64 / 1e6,
        added as f64 / 1e6
    );
}
