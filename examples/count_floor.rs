//! The count-only floor for the benchmark harness (`scripts/bench.sh`): tokenize exactly the
//! files gnaw selected, and do nothing else, so the harness can say how close `gnaw` extract comes
//! to the cost of counting alone.
//!
//! `cargo run --release --example count_floor -- ROOT LIST [RUNS]`
//!
//! LIST holds one path per line, relative to ROOT (the harness writes it from `gnaw --json`'s
//! `file_list`). Every file is read into memory first, decoded as gnaw does (lossily when not
//! UTF-8), and that part is not timed. Then it times building the o200k tables once (`build_ms`,
//! which every `gnaw` process pays too), and RUNS counts of all the files on every core through
//! `gnaw::count::count_many`, largest file first (`runs_ms`). The floor is `build_ms` plus the
//! median run. Prints one JSON line:
//! `{"files", "bytes", "tokens", "threads", "build_ms", "runs_ms": [...]}`.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use gnaw::count::{self, Encoding};

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(root), Some(list)) = (args.next(), args.next()) else {
        eprintln!(
            "usage: count_floor ROOT LIST [RUNS]  (LIST: one path per line, relative to ROOT)"
        );
        return ExitCode::from(2);
    };
    let runs: usize = args
        .next()
        .and_then(|s| s.to_str().and_then(|s| s.parse().ok()))
        .unwrap_or(5);
    let root = PathBuf::from(root);
    let list = match std::fs::read_to_string(&list) {
        Ok(list) => list,
        Err(e) => {
            eprintln!("count_floor: cannot read the file list {list:?}: {e}");
            return ExitCode::from(1);
        }
    };
    let mut texts = Vec::new();
    for rel in list.lines().filter(|l| !l.is_empty()) {
        match std::fs::read(root.join(rel)) {
            Ok(bytes) => texts.push(String::from_utf8_lossy(&bytes).into_owned()),
            Err(e) => {
                eprintln!("count_floor: cannot read {rel}: {e}; rebuild the corpus");
                return ExitCode::from(1);
            }
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bytes: usize = texts.iter().map(String::len).sum();

    let start = Instant::now();
    count::warm(Encoding::O200kBase);
    let build_ms = start.elapsed().as_secs_f64() * 1e3;
    let mut tokens = 0;
    let runs_ms: Vec<String> = (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            tokens = count::count_many(Encoding::O200kBase, &texts, threads)
                .iter()
                .sum();
            format!("{:.1}", start.elapsed().as_secs_f64() * 1e3)
        })
        .collect();
    println!(
        "{{\"files\": {}, \"bytes\": {bytes}, \"tokens\": {tokens}, \"threads\": {threads}, \
         \"build_ms\": {build_ms:.1}, \"runs_ms\": [{}]}}",
        texts.len(),
        runs_ms.join(", ")
    );
    ExitCode::SUCCESS
}
