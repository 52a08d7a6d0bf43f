//! Linearity of the bounded inputs (issue 12, item 10): doubling the size of a glob list, of an
//! ignore file, or the depth of a tree must at most about double the time and the memory a run
//! spends on it. Each measurement is a fresh process (this test binary re-executed with
//! `GNAW_LINEARITY_PROBE` set, running one workload through the library on real files) that
//! reports the workload's own time and its peak resident memory (`VmHWM`) above what it had
//! before. Of 5 runs, the fastest time and the median memory are compared with a generous
//! factor (3x, plus 10 ms and 2 MiB of slack) so a loaded 2-core machine does not make it flaky.
//!
//! Workloads (sizes double along each row):
//! - `filter`: an exclude list of 1,000-byte wildcard globs, 4 to 16 KiB (compiled), then 32 and
//!   64 KiB (over the list limit: refused before compiling);
//! - `nested`: one glob of brace groups nested 16,000 deep and more, 64 KiB to 256 KiB (refused);
//! - `ignore`: a `.gitignore` of 8 to 32 wildcard lines of 1,000 bytes, walked;
//! - `ignore_hostile`: a `.gitignore` of 4 to 16 MiB of over-limit lines, walked (each skipped);
//! - `depth`: a chain of directories each holding `.git`, 128 to 1,024 deep, walked (the walk
//!   stops at the default depth limit, 256).
//! - `one_line`: a JavaScript file of one line holding 2,500 to 10,000 functions with short
//!   bodies, outlined and shown as its `signatures` skeleton (each body and each comment's line
//!   found in the line starts, not by reading the line again).
//! - `callbacks`: callbacks nested 1,000 to 4,000 deep, shown as the `signatures` skeleton (a
//!   node's holders kept by the walk, not asked of tree-sitter, which finds them from the root).
//!
//! Times and sizes are printed (`-- --nocapture`).

#![allow(clippy::disallowed_methods)] // fixtures are built with std::fs

use gnaw::filter::Filter;
use gnaw::source::{WalkOptions, walk};
use gnaw::stages::syntax::{Language, ParseBudget, found_of, skeleton};
use gnaw::vocab::Compress;
use gnaw_sandbox::Root;
use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

const PROBE: &str = "GNAW_LINEARITY_PROBE";
const RUNS: usize = 5;
const FACTOR: f64 = 3.0;
const SLACK_TIME: Duration = Duration::from_millis(10);
const SLACK_KIB: u64 = 2048;

/// `VmHWM` of this process, in KiB.
fn peak_kib() -> u64 {
    let status = fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status")
}

/// `n` globs of 1,000 bytes each, wildcards throughout.
fn wildcard_globs(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let mut g = format!("g{i}");
            while g.len() + 3 <= 1000 {
                g.push_str("*a?");
            }
            g
        })
        .collect()
}

fn nested(depth: usize) -> String {
    format!("{}a{}", "{a,".repeat(depth), "}".repeat(depth))
}

fn walk_repo(repo: &Path) -> usize {
    let root = Root::new(repo, false).unwrap();
    let dir = root.as_dir().open().unwrap();
    let filter = Arc::new(Filter::new(&[], &[]).unwrap());
    let sourced = walk(&dir, &WalkOptions::whole(&filter, 2)).unwrap();
    sourced.candidates.len() + sourced.skipped.len()
}

/// Outline and skeleton (at `signatures`) of one line of `n` functions, each with a comment
/// before it: the skeleton's length.
fn one_line(n: usize) -> usize {
    let text: String = (0..n)
        .map(|i| format!("/* f{i} */ function f{i}(a) {{ return g(a, {i}); }} "))
        .collect();
    let budget = ParseBudget::new(Duration::from_secs(600), 1 << 30);
    let found = found_of(Language::JavaScript, &text, &budget, true, &|| false).unwrap();
    assert_eq!(found.symbols.len(), n);
    skeleton(&text, &found, Compress::Signatures).len()
}

/// The `signatures` skeleton of callbacks nested `n` deep: its length.
fn callbacks(n: usize) -> usize {
    let text = format!(
        "{}x();\n{}",
        "f(function () {\n".repeat(n),
        "});\n".repeat(n)
    );
    let budget = ParseBudget::new(Duration::from_secs(600), 1 << 30);
    let found = found_of(Language::JavaScript, &text, &budget, true, &|| false).unwrap();
    skeleton(&text, &found, Compress::Signatures).len()
}

/// Build the fixture of `workload` at size `n` under `dir` (done by the parent, once).
fn fixture(workload: &str, n: usize, dir: &Path) {
    let repo = dir.join("repo");
    fs::create_dir_all(&repo).unwrap();
    fs::write(repo.join("a.txt"), "a\n").unwrap();
    match workload {
        "ignore" => fs::write(repo.join(".gitignore"), wildcard_globs(n).join("\n")).unwrap(),
        "ignore_hostile" => {
            let line = nested(16_000);
            let lines = n / (line.len() + 1);
            fs::write(repo.join(".gitignore"), format!("{line}\n").repeat(lines)).unwrap();
        }
        "depth" => {
            let mut d = repo.clone();
            for _ in 0..n {
                d = d.join("d");
                fs::create_dir(&d).unwrap();
                fs::write(d.join(".git"), "").unwrap();
            }
        }
        _ => {}
    }
}

/// Run `workload` at size `n` in this process: (time, peak memory above the start, in KiB).
fn workload(workload: &str, n: usize, dir: &Path) -> (Duration, u64) {
    let repo = dir.join("repo");
    let (globs, glob) = match workload {
        "filter" => (wildcard_globs(n / 1000), String::new()),
        "nested" => (Vec::new(), nested(n / 4)),
        _ => (Vec::new(), String::new()),
    };
    let before = peak_kib();
    let start = Instant::now();
    let seen = match workload {
        "filter" => usize::from(Filter::new(&[], &globs).is_ok()),
        "nested" => usize::from(Filter::new(&[glob], &[]).is_ok()),
        "ignore" | "ignore_hostile" | "depth" => walk_repo(&repo),
        "one_line" => one_line(n),
        "callbacks" => callbacks(n),
        other => panic!("unknown workload {other}"),
    };
    let elapsed = start.elapsed();
    std::hint::black_box(seen);
    (elapsed, peak_kib().saturating_sub(before))
}

/// The child side: runs only when re-executed with `GNAW_LINEARITY_PROBE=workload n dir`.
#[test]
fn probe_child() {
    let Ok(spec) = std::env::var(PROBE) else {
        return;
    };
    let mut parts = spec.splitn(3, ' ');
    let (w, n, dir) = (
        parts.next().unwrap().to_string(),
        parts.next().unwrap().parse::<usize>().unwrap(),
        parts.next().unwrap().to_string(),
    );
    let (t, kib) = workload(&w, n, Path::new(&dir));
    println!("PROBE {} {kib}", t.as_nanos());
}

/// The least time and the median memory of `workload` at size `n` over [`RUNS`] fresh
/// processes.
fn measure(w: &str, n: usize) -> (Duration, u64) {
    let dir = tempfile::tempdir().unwrap();
    fixture(w, n, dir.path());
    let mut times = Vec::new();
    let mut mems = Vec::new();
    for _ in 0..RUNS {
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "bounded_inputs::probe_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(PROBE, format!("{w} {n} {}", dir.path().display()))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout
            .lines()
            .find_map(|l| l.split_once("PROBE ").map(|(_, rest)| rest))
            .unwrap_or_else(|| {
                panic!(
                    "{w} {n}: no probe line; status {:?}; stderr: {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        let mut it = line.split_whitespace();
        times.push(Duration::from_nanos(it.next().unwrap().parse().unwrap()));
        mems.push(it.next().unwrap().parse::<u64>().unwrap());
    }
    // The fastest run's time: other work on the machine only ever adds time, so the least
    // disturbed run is the cost of the workload itself (a median of five still moved 3.5x
    // between two doublings on a quiet 2-core machine). Memory is not disturbed that way.
    times.sort();
    mems.sort();
    (times[0], mems[RUNS / 2])
}

/// Measure `w` at each size and check every doubling.
fn check_doublings(w: &str, sizes: &[usize]) {
    let _g = crate::serial();
    let m: Vec<(usize, Duration, u64)> = sizes
        .iter()
        .map(|&n| {
            let (t, kib) = measure(w, n);
            println!("{w} {n}: {t:?}, +{kib} KiB");
            (n, t, kib)
        })
        .collect();
    for pair in m.windows(2) {
        let ((n1, t1, k1), (n2, t2, k2)) = (pair[0], pair[1]);
        assert_eq!(n2, 2 * n1, "sizes must double");
        assert!(
            t2 <= t1.mul_f64(FACTOR) + SLACK_TIME,
            "{w}: {n1} -> {n2} took {t1:?} -> {t2:?}, more than {FACTOR}x"
        );
        assert!(
            k2 as f64 <= k1 as f64 * FACTOR + SLACK_KIB as f64,
            "{w}: {n1} -> {n2} used {k1} -> {k2} KiB, more than {FACTOR}x"
        );
    }
}

/// One test per row, `name: workload at sizes, ...`: every doubling of each workload's size
/// costs at most about double.
macro_rules! doublings {
    ($($name:ident: $($workload:literal at $sizes:expr),+;)*) => {$(
        #[test]
        fn $name() {
            $(check_doublings($workload, &$sizes);)+
        }
    )*};
}

doublings! {
    glob_lists_compile_in_linear_time_and_memory: "filter" at [4000, 8000, 16000, 32000, 64000];
    over_limit_globs_are_refused_in_linear_time: "nested" at [64_000, 128_000, 256_000];
    // Hostile ignore files large enough that scheduling noise (a few ms on a loaded machine)
    // is small beside them.
    ignore_files_cost_linear_time_and_memory:
        "ignore" at [8, 16, 32], "ignore_hostile" at [4 << 20, 8 << 20, 16 << 20];
    a_file_of_one_long_line_is_outlined_and_skeletoned_in_linear_time:
        "one_line" at [2_500, 5_000, 10_000];
    nested_callbacks_are_skeletoned_in_linear_time: "callbacks" at [1_000, 2_000, 4_000];
    deeper_trees_cost_at_most_proportionally_more: "depth" at [128, 256, 512, 1024];
}
