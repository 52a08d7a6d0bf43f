//! The check-then-open race, through the real gnaw-mcp: while `extract` runs in a loop, a thread
//! keeps exchanging (`renameat2(RENAME_EXCHANGE)`, atomic) a file or directory inside the root
//! with a symlink to a canary outside it. The canary (file contents, and a file *name* outside)
//! must never appear on stdout or stderr, and nothing outside may even be opened.
//!
//! Every scenario runs twice: with `GNAW_MCP_SANDBOX=off` (userspace containment + per-open
//! `openat2` beneath the repo fd and the walk/open identity check: layers 1 and 2) and with the
//! real Landlock ruleset on. Each run is bounded by a swap count, an extract count and a wall
//! clock budget ([`RUN_FOR`]); the counts are printed (`cargo test --test confinement race:: -- --nocapture`).
//!
//! `inotify` on the outside directories is the second detector: any successful open of an outside
//! file or directory (a read, a directory listing) by the server is an event, whether or not its
//! content reaches the output.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;

use common::inotify::watch_reads;
use common::mcp_client;

use mcp_client::Server;
use nix::fcntl::{AT_FDCWD, RenameFlags, renameat2};
use nix::sys::inotify::Inotify;
use serde_json::json;
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

const CANARY: &str = "GNAW-RACE-CANARY-3b9e1f";
const CANARY_NAME: &str = "gnaw-race-canary-name-c4d2";
/// Wall clock budget per run (swaps and extracts both stop), once [`MIN_EXTRACTS`] are done.
const RUN_FOR: Duration = Duration::from_secs(6);
/// Extracts a run needs to mean anything; a loaded machine runs past [`RUN_FOR`] for them.
const MIN_EXTRACTS: u64 = 20;
/// However loaded the machine, a run stops here (and fails [`check`] if it is short).
const GIVE_UP_AFTER: Duration = Duration::from_secs(120);
const MAX_SWAPS: u64 = 5_000_000;
const MAX_EXTRACTS: u64 = 20_000;

/// An outside directory full of canaries: contents, a file named with the canary, a subdir, and
/// a `.gitignore` and `.gnawconfig` that would change the output if they were read.
fn canary_dir(dir: &Path) {
    fs::create_dir_all(dir.join("sub")).unwrap();
    fs::write(dir.join("canary.txt"), format!("{CANARY}\n")).unwrap();
    fs::write(dir.join(CANARY_NAME), format!("{CANARY} by name\n")).unwrap();
    fs::write(dir.join("sub/deeper.txt"), format!("{CANARY} deeper\n")).unwrap();
    fs::write(dir.join(".gitignore"), "*.txt\n").unwrap();
    fs::write(dir.join(".gnawconfig"), "format = \"xml\"\n").unwrap();
}

/// Drain the queue: how many open/access events happened (overflow counts as one), and which
/// names they were for (`.` for a watched directory itself).
fn drain(ino: &Inotify) -> (usize, BTreeMap<String, usize>) {
    let mut n = 0;
    let mut names = BTreeMap::new();
    while let Ok(events) = ino.read_events() {
        if events.is_empty() {
            break;
        }
        n += events.len();
        for e in events {
            let name = e
                .name
                .map_or(".".to_string(), |n| n.to_string_lossy().into_owned());
            *names.entry(name).or_insert(0) += 1;
        }
    }
    (n, names)
}

struct Outcome {
    swaps: u64,
    extracts: u64,
    kinds: BTreeMap<String, u64>,
    leaks: u64,
    outside_opens: usize,
}

/// Run `extract` on `repos` in turn while a thread exchanges each pair in `pairs`.
fn race(
    root: &Path,
    mode: &str,
    repos: &[&str],
    pairs: Vec<(PathBuf, PathBuf)>,
    watched: &[PathBuf],
) -> Outcome {
    let ino = watch_reads(watched);
    // The inside layout's `.gnawconfig` turns on following links; the operator lets it.
    let mut s = Server::start(
        root,
        &[
            ("GNAW_MCP_SANDBOX", mode),
            ("RUST_LOG", "debug"),
            ("GNAW_MCP_REPO_MAY_WIDEN", "follow_links"),
        ],
    );
    s.initialize("2025-11-25");
    // The first call pays for the server's one-time set-up (the tokenizer's tables: seconds in a
    // debug build on a loaded machine); made before the swaps start, it leaves the run's time to
    // the race.
    let warm = s.call("extract", json!({ "repo": repos[0] }));
    assert!(
        warm.get("result").is_some(),
        "the warm-up extract failed: {warm}"
    );
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let swapper = thread::spawn(move || {
        let mut n = 0u64;
        while !flag.load(Ordering::Relaxed) && n < MAX_SWAPS {
            for (a, b) in &pairs {
                renameat2(
                    AT_FDCWD,
                    a.as_path(),
                    AT_FDCWD,
                    b.as_path(),
                    RenameFlags::RENAME_EXCHANGE,
                )
                .expect("renameat2 RENAME_EXCHANGE");
                n += 1;
            }
        }
        n
    });
    let start = Instant::now();
    let mut extracts = 0u64;
    let mut leaks = 0u64;
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    while (start.elapsed() < RUN_FOR || extracts < MIN_EXTRACTS)
        && start.elapsed() < GIVE_UP_AFTER
        && extracts < MAX_EXTRACTS
    {
        let repo = repos[extracts as usize % repos.len()];
        let resp = s.call("extract", json!({ "repo": repo }));
        extracts += 1;
        let text = resp.to_string();
        if text.contains(CANARY) || text.contains(CANARY_NAME) {
            leaks += 1;
            if leaks == 1 {
                eprintln!(
                    "LEAK ({mode}, repo {repo}): {}",
                    &text[..text.len().min(2000)]
                );
            }
        }
        let kind = match resp.get("error") {
            Some(e) => e["data"]["kind"].as_str().unwrap_or("error").to_string(),
            None if resp["result"]["isError"] == true => "tool error".to_string(),
            None => "ok".to_string(),
        };
        *kinds.entry(kind).or_insert(0) += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().expect("swapper thread");
    let (status, stderr) = s.finish();
    assert!(status.success(), "gnaw-mcp exited with {status}");
    if stderr.contains(CANARY) || stderr.contains(CANARY_NAME) {
        leaks += 1;
        eprintln!("LEAK on stderr ({mode})");
    }
    let (outside_opens, opened) = drain(&ino);
    println!(
        "race mode={mode} repos={repos:?}: {swaps} swaps, {extracts} extracts in {:.1}s; results {kinds:?}; \
         canary leaks {leaks}; outside opens seen by inotify {outside_opens} {opened:?}",
        start.elapsed().as_secs_f64()
    );
    Outcome {
        swaps,
        extracts,
        kinds,
        leaks,
        outside_opens,
    }
}

/// root/repo holds `swapfile` (a regular file) and `swapdir/` (a directory); each is exchanged
/// with a symlink (kept beside the repo, inside the root) to a canary outside. The repo's
/// `.gnawconfig` turns on following links, so the open path that follows is raced too.
fn inside_layout(base: &Path) -> (PathBuf, Vec<(PathBuf, PathBuf)>, Vec<PathBuf>) {
    let root = base.join("root");
    let repo = root.join("repo");
    fs::create_dir_all(repo.join("keep")).unwrap();
    fs::create_dir_all(repo.join("swapdir")).unwrap();
    fs::write(repo.join(".gnawconfig"), "follow_links = true\n").unwrap();
    fs::write(repo.join("a.txt"), "inside a\n").unwrap();
    fs::write(repo.join("keep/b.txt"), "inside b\n").unwrap();
    fs::write(repo.join("swapfile"), "inside swapfile\n").unwrap();
    fs::write(repo.join("swapdir/x.txt"), "inside swapdir\n").unwrap();
    let outside = base.join("outside");
    canary_dir(&outside);
    symlink(outside.join("canary.txt"), root.join("alt_file")).unwrap();
    symlink(&outside, root.join("alt_dir")).unwrap();
    let pairs = vec![
        (repo.join("swapfile"), root.join("alt_file")),
        (repo.join("swapdir"), root.join("alt_dir")),
    ];
    (root, pairs, vec![outside.clone(), outside.join("sub")])
}

/// root/anc/repo is the repo; `anc` (an ancestor of the repo, inside the root) is exchanged
/// with a symlink to an outside directory that has its own `repo/` full of canaries.
fn ancestor_layout(base: &Path) -> (PathBuf, Vec<(PathBuf, PathBuf)>, Vec<PathBuf>) {
    let root = base.join("root");
    let repo = root.join("anc/repo");
    fs::create_dir_all(repo.join("keep")).unwrap();
    fs::write(repo.join("a.txt"), "inside a\n").unwrap();
    fs::write(repo.join("keep/b.txt"), "inside b\n").unwrap();
    let outside = base.join("outside");
    canary_dir(&outside.join("repo"));
    symlink(&outside, root.join("alt_anc")).unwrap();
    let pairs = vec![(root.join("anc"), root.join("alt_anc"))];
    (
        root,
        pairs,
        vec![
            outside.clone(),
            outside.join("repo"),
            outside.join("repo/sub"),
        ],
    )
}

fn check(o: &Outcome, landlock: bool) {
    assert!(
        o.swaps >= 1000,
        "too few swaps to mean anything: {}",
        o.swaps
    );
    assert!(
        o.extracts >= MIN_EXTRACTS,
        "too few extracts to mean anything: {}",
        o.extracts
    );
    assert!(
        o.kinds.get("ok").copied().unwrap_or(0) > 0,
        "no extract succeeded: {:?}",
        o.kinds
    );
    assert_eq!(o.leaks, 0, "the canary reached stdout or stderr");
    if landlock {
        assert_eq!(
            o.outside_opens, 0,
            "something outside the root was opened under Landlock"
        );
    }
}

/// A layout: the served root, the pairs of paths swapped, and the outside directories watched.
type Layout = fn(&Path) -> (PathBuf, Vec<(PathBuf, PathBuf)>, Vec<PathBuf>);

/// Race `extract` of `repo` on `layout` with the sandbox `mode` (`strict`: Landlock on) and check
/// the outcome; returned for the checks a scenario adds.
fn scenario(layout: Layout, mode: &str, repo: &str) -> Outcome {
    let base = tempfile::tempdir().unwrap();
    let (root, pairs, watched) = layout(base.path());
    let o = race(&root, mode, &[repo], pairs, &watched);
    check(&o, mode == "strict");
    o
}

/// Layers 1+2 alone (Landlock off) opened nothing outside the root either.
fn layers_1_2_opened_nothing(o: &Outcome) {
    assert_eq!(
        o.outside_opens, 0,
        "layers 1+2 opened something outside the root"
    );
}

/// One test per row, `name: layout, mode, repo, nothing outside`: the race, and, where the
/// last is true, that layers 1+2 alone opened nothing outside the root.
macro_rules! races {
    ($(
        $(#[$doc:meta])*
        $name:ident: $layout:expr, $mode:literal, $repo:literal, $nothing:literal;
    )*) => {$(
        $(#[$doc])*
        #[test]
        fn $name() {
            let o = scenario($layout, $mode, $repo);
            if $nothing {
                layers_1_2_opened_nothing(&o);
            }
        }
    )*};
}

races! {
    race_file_and_dir_inside_repo_sandbox_off: inside_layout, "off", "repo", false;
    /// Layers 1+2 alone must not even open anything outside: the walk goes from directory fd
    /// to directory fd with `O_NOFOLLOW`, so `swapdir` while it is the symlink is refused, never
    /// listed, and its `.gitignore` is never read. (This once failed, when the walk went by
    /// path.)
    race_file_and_dir_inside_repo_sandbox_off_opens_nothing_outside:
        inside_layout, "off", "repo", true;
    race_file_and_dir_inside_repo_landlock: inside_layout, "strict", "repo", false;
    /// With Landlock off, swapping an ancestor of the repo between `contain()` and the repo
    /// directory's open must not lead the run outside. `ContainedDir::open` reaches the repo
    /// from the root's fd (beneath it, no links) and checks it is the directory that was
    /// proven. (This once printed outside files, when the repo was re-opened by path.)
    race_repo_ancestor_sandbox_off: ancestor_layout, "off", "anc/repo", true;
    race_repo_ancestor_landlock: ancestor_layout, "strict", "anc/repo", false;
}
