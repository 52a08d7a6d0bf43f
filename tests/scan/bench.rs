//! Throughput of the secrets scan over real source: about 20 MB of `.rs` files from the local
//! cargo registry. Ignored by default; run it optimized:
//!
//! ```text
//! cargo test --release --test scan -- --ignored bench:: --nocapture
//! ```
//!
//! It prints MB/s and every finding's rule and path (never the matched text), which doubles as
//! a false-positive survey of real code. `GNAW_SCAN_BENCH_EXT=rs,md,toml,json` picks other file
//! kinds (`*` for all), `GNAW_SCAN_BENCH_MB=60` a larger sample and `GNAW_SCAN_BENCH_DIR` another
//! tree than the registry.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use gnaw::scan::{self, Allow, Scanned, SecretsMode};
use std::path::{Path, PathBuf};
use std::time::Instant;

struct Sample {
    exts: Vec<String>,
    target: usize,
}

fn collect(dir: &Path, sample: &Sample, out: &mut Vec<(PathBuf, String)>, total: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if *total >= sample.target {
            return;
        }
        if path.is_dir() {
            collect(&path, sample, out, total);
        } else if sample.exts.iter().any(|x| {
            x == "*"
                || path
                    .extension()
                    .is_some_and(|e| e.to_string_lossy() == x.as_str())
        }) && let Ok(text) = std::fs::read_to_string(&path)
        {
            *total += text.len();
            out.push((path, text));
        }
    }
}

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn scan_throughput_on_registry_sources() {
    let Some(home) = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
    else {
        panic!("set HOME or CARGO_HOME so the cargo registry can be found");
    };
    let sample = Sample {
        exts: std::env::var("GNAW_SCAN_BENCH_EXT")
            .unwrap_or_else(|_| "rs".into())
            .split(',')
            .map(str::to_string)
            .collect(),
        target: std::env::var("GNAW_SCAN_BENCH_MB")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(20)
            << 20,
    };
    let mut files = Vec::new();
    let mut total = 0;
    let dir =
        std::env::var_os("GNAW_SCAN_BENCH_DIR").map_or(home.join("registry/src"), PathBuf::from);
    collect(&dir, &sample, &mut files, &mut total);
    assert!(
        total > 1 << 20,
        "need at least 1 MB of .rs sources under {}",
        home.display()
    );

    let allow = Allow::default();
    // Warm up: compile the engine outside the timing.
    let _ = scan::scan("password = \"x\"", "warm", SecretsMode::Warn, &allow);

    let mut findings = Vec::new();
    let mut best = f64::MAX;
    for round in 0..3 {
        let start = Instant::now();
        let mut n = 0;
        for (path, text) in &files {
            let scanned = scan::scan(text, &path.to_string_lossy(), SecretsMode::Redact, &allow);
            n += scanned.findings().len();
            if round == 0 && !matches!(scanned, Scanned::Clean(_)) {
                findings.extend(scanned.findings().to_vec());
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
        assert_eq!(n, findings.len());
    }
    for f in &findings {
        println!("finding: {} {}:{}", f.rule, f.path, f.line);
    }
    println!(
        "scanned {} files, {:.1} MB in {:.3} s: {:.0} MB/s, {} findings",
        files.len(),
        total as f64 / 1e6,
        best,
        total as f64 / 1e6 / best,
        findings.len()
    );
}

/// The worst case for the prefilter: every line holds a keyword, so every line goes to the
/// regexes. About 20 MB of lines like `let token = tokens.next(); // secret password`.
#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn scan_throughput_when_every_line_has_a_keyword() {
    let lines = [
        "    let token = tokens.next().ok_or(Error::Eof)?; // the secret is in the password\n",
        "    api_key: Option<String>,\n",
        "fn check_password(password: &str) -> bool { hash(password) == stored }\n",
        "    \"access_token\": config.token.clone(),\n",
    ];
    let mut text = String::new();
    while text.len() < TWENTY_MB {
        for l in lines {
            text.push_str(l);
        }
    }
    let allow = Allow::default();
    let mut best = f64::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        let scanned = scan::scan(&text, "dense.rs", SecretsMode::Redact, &allow);
        best = best.min(start.elapsed().as_secs_f64());
        assert_eq!(scanned, Scanned::Clean(&text));
    }
    println!(
        "keyword on every line: {:.1} MB in {:.3} s: {:.0} MB/s",
        text.len() as f64 / 1e6,
        best,
        text.len() as f64 / 1e6 / best
    );
}

const TWENTY_MB: usize = 20 << 20;
