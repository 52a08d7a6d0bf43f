//! Hostile repositories at walk time, through the built `gnaw` CLI and the spawned `gnaw-mcp`:
//! special files (FIFO, socket, device, a link to `/dev/zero`), a 100 GB sparse file, a file
//! that grows while it is read, one 4 MB line, a tree 10,000 directories deep, many files, a huge
//! `.gitignore`, and hard links to a file outside the root. Each run must finish under a
//! watchdog (the child is killed and the test fails past its deadline), and every skipped file
//! must be reported with its reason. Timings are printed (`-- --nocapture`).
//!
//! The many-files test uses 200,000 files (about 20 s in a debug build on 2 cores).

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;
use common::deep_repo::{create_at, deep_tree};
use common::fixture::Tree;

use common::mcp_client;
use common::process::{Run, run_within};

use mcp_client::Server;
use nix::sys::stat::{Mode, SFlag, mknod};
use serde_json::{Value, json};
use std::fs;
use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Run `gnaw REPO ARGS`, killing it and failing the test if it outlives `deadline`.
fn cli(repo: &Path, args: &[&str], deadline: Duration) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gnaw"));
    cmd.arg(repo).args(args);
    run_within(cmd, deadline)
}

/// `gnaw REPO --json -q ARGS`: the summary, after checking the run succeeded.
fn summary(repo: &Path, args: &[&str], deadline: Duration) -> (Value, Duration) {
    let mut all = vec!["--json", "-q"];
    all.extend_from_slice(args);
    let run = cli(repo, &all, deadline);
    assert!(run.status.success(), "gnaw failed: {}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).expect("--json output");
    (v, run.elapsed)
}

/// The reason the summary gives for skipping `path`, if it was skipped.
fn skip_reason(summary: &Value, path: &str) -> Option<String> {
    summary["skipped_list"]
        .as_array()?
        .iter()
        .find(|s| s["path"] == path)
        .map(|s| s["reason"].as_str().unwrap_or_default().to_string())
}

fn included(summary: &Value, path: &str) -> bool {
    summary["file_list"]
        .as_array()
        .is_some_and(|a| a.iter().any(|f| f["path"] == path))
}

/// `estimate` through gnaw-mcp, served from the repo's parent.
fn mcp_estimate(repo: &Path) -> Value {
    let mut s = Server::start(repo.parent().unwrap(), &[]);
    s.initialize("2025-11-25");
    let name = repo.file_name().unwrap().to_str().unwrap();
    // budget 0: unlimited, like the CLI (the server's default budget would trim).
    let resp = s.call("estimate", json!({ "repo": name, "budget": 0 }));
    assert!(resp.get("error").is_none(), "{}", short(&resp));
    resp["result"]["structuredContent"].clone()
}

/// A value shown in a failure message, cut to a readable length.
fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(600) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

const QUICK: Duration = Duration::from_secs(30);

/// A repository `repo` holding one ordinary file, `ok.txt`.
fn fine_repo() -> (Tree, PathBuf) {
    let t = Tree::new("repo");
    t.write("ok.txt", "fine\n");
    let repo = t.repo.clone();
    (t, repo)
}

#[test]
fn special_files_are_skipped_never_read() {
    let (_base, repo) = fine_repo();
    nix::unistd::mkfifo(&repo.join("fifo"), Mode::from_bits_truncate(0o644)).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(repo.join("sock")).unwrap();
    symlink("/dev/zero", repo.join("zero")).unwrap();
    // A character device (like /dev/zero: 1,5) needs CAP_MKNOD; without it that case is skipped.
    let device = mknod(
        &repo.join("zerodev"),
        SFlag::S_IFCHR,
        Mode::from_bits_truncate(0o644),
        nix::sys::stat::makedev(1, 5),
    )
    .is_ok();
    for args in [&[][..], &["-L"][..]] {
        let (s, elapsed) = summary(&repo, args, QUICK);
        println!("special files {args:?}: {elapsed:?}");
        assert!(included(&s, "ok.txt"));
        assert_eq!(skip_reason(&s, "fifo").as_deref(), Some("not_regular"));
        assert_eq!(skip_reason(&s, "sock").as_deref(), Some("not_regular"));
        assert_eq!(
            skip_reason(&s, "zero").as_deref(),
            Some("symlink"),
            "{}",
            short(&s)
        );
        if device {
            assert_eq!(skip_reason(&s, "zerodev").as_deref(), Some("not_regular"));
        }
    }
    let est = mcp_estimate(&repo);
    assert_eq!(est["files"], 1, "{}", short(&est));
    let expect = if device { 3 } else { 2 };
    assert_eq!(est["skipped"]["not_regular"], expect, "{}", short(&est));
    assert_eq!(est["skipped"]["symlink"], 1, "{}", short(&est));
}

#[test]
fn sparse_100_gb_file_is_too_large_without_reading_it() {
    let (_base, repo) = fine_repo();
    let f = fs::File::create(repo.join("sparse.bin")).unwrap();
    f.set_len(100 << 30).unwrap();
    let (s, elapsed) = summary(&repo, &[], QUICK);
    println!("100 GB sparse file: {elapsed:?}");
    assert_eq!(skip_reason(&s, "sparse.bin").as_deref(), Some("too_large"));
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
    let est = mcp_estimate(&repo);
    assert_eq!(est["skipped"]["too_large"], 1, "{}", short(&est));
}

#[test]
fn a_file_growing_while_read_is_bounded() {
    let (_base, repo) = fine_repo();
    let path = repo.join("growing.log.txt");
    let mut file = fs::File::create(&path).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let writer = thread::spawn(move || {
        let chunk = "growing line of text\n".repeat(3000); // ~63 KB
        let mut written = 0u64;
        // Bounded by size as well as by the flag: at most 64 MiB, 64 times the file bound.
        while !flag.load(Ordering::Relaxed) && written < 64 << 20 {
            file.write_all(chunk.as_bytes()).unwrap();
            written += chunk.len() as u64;
        }
        written
    });
    let max = 1u64 << 20;
    for _ in 0..3 {
        let (s, elapsed) = summary(&repo, &[], QUICK);
        match skip_reason(&s, "growing.log.txt") {
            Some(r) => assert_eq!(r, "too_large", "{}", short(&s)),
            None => {
                let f = s["file_list"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|f| f["path"] == "growing.log.txt")
                    .expect("neither included nor skipped");
                assert!(f["bytes"].as_u64().unwrap() <= max, "{f}");
            }
        }
        println!("growing file: {elapsed:?}");
    }
    let est = mcp_estimate(&repo);
    assert!(est["bytes"].as_u64().unwrap() <= 2 * max, "{}", short(&est));
    stop.store(true, Ordering::Relaxed);
    let written = writer.join().unwrap();
    println!(
        "growing file: writer appended {} MiB meanwhile",
        written >> 20
    );
}

#[test]
fn one_4_mb_line_without_whitespace_is_counted() {
    let base = Tree::new("repo");
    let repo = base.repo.clone();
    fs::write(repo.join(".gnawconfig"), "max_file_size = \"8MiB\"\n").unwrap();
    // Pseudo-random letters and digits, so BPE cannot collapse it into a few long tokens.
    let mut x: u32 = 12345;
    let line: String = (0..4 << 20)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            b"abcdefghijklmnopqrstuvwxyz0123456789"[(x >> 16) as usize % 36] as char
        })
        .collect();
    fs::write(repo.join("line.txt"), &line).unwrap();
    let run = cli(&repo, &["--estimate", "-q"], Duration::from_secs(300));
    assert!(run.status.success(), "{}", run.stderr);
    let tokens: usize = run
        .stdout
        .split_whitespace()
        .next()
        .and_then(|t| t.parse().ok())
        .expect("a token count");
    println!(
        "4 MB line: {tokens} tokens counted in {:?} (CLI)",
        run.elapsed
    );
    assert!(tokens > 4 << 18, "implausibly few tokens: {tokens}");
    let est = mcp_estimate(&repo);
    assert_eq!(est["tokens"], tokens, "MCP and CLI disagree");
}

#[test]
fn a_tree_10000_directories_deep_finishes() {
    let _one = crate::heavy();
    let base = Tree::new("repo");
    let repo = base.repo.clone();
    fs::write(repo.join("top.txt"), "top\n").unwrap();
    let built = Instant::now();
    let bottom = deep_tree(&repo, 10_000, "d", false);
    create_at(&bottom, "bottom.txt");
    drop(bottom);
    // A shallow file inside the chain too.
    fs::write(repo.join("d/d/d/shallow.txt"), "shallow\n").unwrap();
    println!("10,000-deep tree built in {:?}", built.elapsed());
    let (s, elapsed) = summary(&repo, &[], Duration::from_secs(120));
    let skipped = s["skipped_list"].as_array().unwrap();
    println!(
        "10,000-deep tree: {elapsed:?}; {} files, skipped {:?}",
        s["files"],
        skipped
            .iter()
            .map(|k| format!("{} ({})", &k["reason"], k["detail"]))
            .collect::<std::collections::BTreeSet<_>>()
    );
    assert!(
        included(&s, "top.txt") && included(&s, "d/d/d/shallow.txt"),
        "{}",
        short(&s)
    );
    // The bottom file is either read or reported; it may not silently vanish.
    let reported = skipped.iter().any(|k| k["reason"] == "unreadable");
    let bottom_included = s["file_list"].as_array().unwrap().iter().any(|f| {
        f["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("bottom.txt"))
    });
    assert!(
        bottom_included || reported,
        "the deep part vanished without a reason"
    );
    let est = mcp_estimate(&repo);
    assert!(est["files"].as_u64().unwrap() >= 2, "{}", short(&est));
    // std's remove_dir_all works beneath directory fds, so it can remove what paths cannot name.
    base.close().expect("remove the 10,000-deep tree");
}

#[test]
fn many_files() {
    let _one = crate::heavy();
    let n: usize = 200_000;
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    let built = Instant::now();
    for d in 0..(n / 1000) {
        let dir = repo.join(format!("dir{d:03}"));
        fs::create_dir_all(&dir).unwrap();
        for i in 0..1000 {
            fs::write(dir.join(format!("f{i:04}.txt")), format!("file {d} {i}\n")).unwrap();
        }
    }
    println!("{n} files built in {:?}", built.elapsed());
    let deadline = Duration::from_secs(600);
    let run = cli(&repo, &["--estimate", "-q"], deadline);
    assert!(run.status.success(), "{}", run.stderr);
    println!(
        "{n} files: CLI --estimate {:?} -> {}",
        run.elapsed,
        run.stdout.trim()
    );
    let start = Instant::now();
    let est = mcp_estimate(&repo);
    println!("{n} files: MCP estimate {:?}", start.elapsed());
    assert_eq!(est["files"], n, "{}", short(&est));
    assert_eq!(
        run.stdout.split_whitespace().next(),
        Some(est["tokens"].to_string().as_str())
    );
}

/// A 300,000-line `.gitignore` (7 MiB, under the 16 MiB per-file cap) took about 14 s and
/// peaked near 1.3 GB to compile, before the walk-wide bound on ignore patterns. Now the run
/// stops at once with `LimitExceeded`, naming the file, in the CLI and the server; an ignore set
/// just under the bound is honoured line for line.
#[test]
fn a_pathologically_large_gitignore_stops_at_the_pattern_bound() {
    let base = Tree::new("repo");
    let repo = base.repo.clone();
    fs::create_dir_all(repo.join("src")).unwrap();
    let lines = |n: usize| {
        let mut gi = String::new();
        for i in 0..n {
            gi.push_str(&format!(
                "generated_{i}/**/*.tmp\nignored_{i}.txt\n!kept_{i}.txt\n"
            ));
        }
        gi
    };
    fs::write(repo.join(".gitignore"), lines(100_000)).unwrap();
    fs::write(repo.join("keep.txt"), "keep\n").unwrap();
    fs::write(repo.join("ignored_77.txt"), "ignored\n").unwrap();
    fs::write(repo.join("src/ignored_999.txt"), "ignored too\n").unwrap();
    fs::write(repo.join("src/main.rs"), "fn main() {}\n").unwrap();
    let run = cli(&repo, &["--json", "-q"], QUICK);
    println!("300,000-line .gitignore: {:?}", run.elapsed);
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    for word in [".gitignore", "256 KiB of patterns", "shorten"] {
        assert!(run.stderr.contains(word), "lacks {word}: {}", run.stderr);
    }
    let mut s = Server::start(repo.parent().unwrap(), &[]);
    s.initialize("2025-11-25");
    let resp = s.call("estimate", serde_json::json!({"repo": "repo"}));
    assert_eq!(resp["result"]["isError"], true, "{resp}");
    assert_eq!(resp["result"]["_meta"]["gnaw/errorKind"], "LimitExceeded");
    // The server is still there.
    let again = s.call("estimate", serde_json::json!({"repo": "repo/src"}));
    assert_ne!(again["result"]["isError"], true, "{again}");
    drop(s);

    // 3,000 lines (about 50 KiB) under the bound: every line holds.
    fs::write(repo.join(".gitignore"), lines(1_000)).unwrap();
    let (s, _) = summary(&repo, &[], QUICK);
    assert!(
        included(&s, "keep.txt") && included(&s, "src/main.rs"),
        "{}",
        short(&s)
    );
    assert!(!included(&s, "ignored_77.txt") && !included(&s, "src/ignored_999.txt"));
}

#[test]
fn hard_links_to_outside_files_mcp_skips_cli_reads() {
    let base = tempfile::tempdir().unwrap();
    let secret = "HARDLINK-SECRET-4242";
    fs::create_dir_all(base.path().join("outside")).unwrap();
    fs::write(base.path().join("outside/secret.txt"), secret).unwrap();
    let root = base.path().join("root");
    let repo = root.join("repo");
    fs::create_dir_all(&repo).unwrap();
    fs::write(repo.join("ok.txt"), "fine\n").unwrap();
    fs::hard_link(base.path().join("outside/secret.txt"), repo.join("hl.txt")).unwrap();
    // The CLI (the user's own files) reads hard links.
    let run = cli(&repo, &[], QUICK);
    assert!(run.status.success());
    assert!(
        run.stdout.contains(secret),
        "the CLI should read hard links"
    );
    // The server skips them, with the reason, in both tools and both sandbox modes.
    for mode in ["strict", "off"] {
        let mut s = Server::start(&root, &[("GNAW_MCP_SANDBOX", mode)]);
        s.initialize("2025-11-25");
        let resp = s.call("extract", json!({ "repo": "repo" }));
        let text = resp.to_string();
        assert!(text.contains("fine"), "{mode}: {}", short(&resp));
        assert!(!text.contains(secret), "{mode}: read a hard link: {text}");
        let resp = s.call("estimate", json!({ "repo": "repo" }));
        let est = &resp["result"]["structuredContent"];
        assert_eq!(est["skipped"]["hard_linked"], 1, "{mode}: {}", short(&resp));
        let (_, stderr) = s.finish();
        assert!(!stderr.contains(secret));
    }
    // The operator can choose to serve hard links (GNAW_MCP_HARD_LINKS=read); a bad value stops
    // the server at start.
    let mut s = Server::start(&root, &[("GNAW_MCP_HARD_LINKS", "read")]);
    s.initialize("2025-11-25");
    let resp = s.call("extract", json!({ "repo": "repo" }));
    assert!(resp.to_string().contains(secret), "{}", short(&resp));
    drop(s);
    let (status, _, stderr) = mcp_client::run(&root, &[], &[("GNAW_MCP_HARD_LINKS", "maybe")]);
    assert!(!status.success());
    assert!(stderr.contains("GNAW_MCP_HARD_LINKS"), "{stderr}");
}
