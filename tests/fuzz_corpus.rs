//! The fuzz targets' checks (`fuzz/checks/`) over their checked-in corpus (`fuzz/seeds/TARGET/`)
//! and every past finding (`fuzz/regressions/TARGET/`), on every `cargo test`: a stable-Rust
//! harness for what `cargo fuzz` runs, so a crash once found stays fixed without a fuzzer.
//!
//! Its own `main` (no test harness): the parse workers must be started while the process has one
//! thread, as in both binaries.
//!
//! With `GNAW_FUZZ_CORPUS=1` it also runs the corpus a fuzzing run grew (`fuzz/corpus/TARGET/`,
//! not checked in), and for each target it prints how many inputs ran and the slowest of them:
//! the figures of `docs/security-testing.md`.

#![allow(clippy::disallowed_methods)]

#[path = "../fuzz/checks/mod.rs"]
mod checks;

use std::path::Path;
use std::time::{Duration, Instant};

type Check = fn(&[u8]);

const TARGETS: [(&str, Check); 7] = [
    ("outline", checks::outline::check),
    ("symbol", checks::symbol::check),
    ("compress", checks::compress::check),
    ("secrets", checks::secrets::check),
    ("names", checks::names::check),
    ("globs", checks::globs::check),
    ("errors", checks::errors::check),
];

fn inputs(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn main() {
    checks::start_parse_workers();
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut failed = Vec::new();
    for (target, check) in TARGETS {
        let seeds = inputs(&fuzz.join("seeds").join(target));
        assert!(!seeds.is_empty(), "fuzz/seeds/{target}/ holds no corpus");
        let regressions = inputs(&fuzz.join("regressions").join(target));
        let grown = match std::env::var_os("GNAW_FUZZ_CORPUS") {
            Some(_) => inputs(&fuzz.join("corpus").join(target)),
            None => Vec::new(),
        };
        let all: Vec<_> = seeds.iter().chain(&regressions).chain(&grown).collect();
        let mut slowest = (Duration::ZERO, String::new());
        for input in &all {
            let data = std::fs::read(input).expect("read");
            let started = Instant::now();
            if std::panic::catch_unwind(|| check(&data)).is_err() {
                failed.push(input.display().to_string());
            }
            let took = started.elapsed();
            if took > slowest.0 {
                slowest = (took, input.display().to_string());
            }
        }
        println!(
            "fuzz corpus {target}: {} inputs, slowest {} ms ({})",
            all.len(),
            slowest.0.as_millis(),
            slowest.1
        );
    }
    assert!(
        failed.is_empty(),
        "inputs that fail their check: {failed:#?}"
    );
    println!("fuzz corpus: every input passes its check");
}
