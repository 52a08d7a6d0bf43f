//! Throughput of the secrets scan over real source: about 20 MB of `.rs` files from the local
//! cargo registry. Ignored by default; run it optimized:
//!
//! ```text
//! cargo test --release --test scan_bench -- --ignored --nocapture
//! ```
//!
//! It prints MB/s and every finding's rule and path (never the matched text), which doubles as
//! a false-positive survey of real code.

use gnaw::scan::{self, Allow, Scanned, SecretsMode};
use std::path::{Path, PathBuf};
use std::time::Instant;

const TARGET_BYTES: usize = 20 << 20;

fn collect(dir: &Path, out: &mut Vec<(PathBuf, String)>, total: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if *total >= TARGET_BYTES {
            return;
        }
        if path.is_dir() {
            collect(&path, out, total);
        } else if path.extension().is_some_and(|e| e == "rs")
            && let Ok(text) = std::fs::read_to_string(&path)
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
    let mut files = Vec::new();
    let mut total = 0;
    collect(&home.join("registry/src"), &mut files, &mut total);
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
