//! One memory budget (issue 39, item 4): everything a real `gnaw-mcp` keeps between calls (the
//! warm cache, kept search indexes, work waiting for idle time) stays within
//! `GNAW_MCP_CACHE_BYTES` plus a fixed overhead.
//!
//! A generated repository of tens of MB (six packages of varied Rust-like source) is searched
//! with distinct queries over each package in turn (each its own `repo`, so each would be its
//! own kept index and its own idle work), with idle pauses between calls so the idle worker
//! runs. After each pause the server's resident memory (`VmRSS`, from `/proc/PID/status`) must
//! stay within the cache's bound plus [`OVERHEAD`] above the base: the resident memory of the
//! same server once it has answered one tiny search (grammar and tokenizer tables loaded,
//! threads started). Each call's own working memory (the walk, the texts read, an index built
//! and not kept) is freed when it answers; the peak (`VmHWM`) is printed, not bounded here
//! (`tests/linearity` bounds it per input).

#![allow(clippy::disallowed_methods)] // the fixture is written with std::fs

mod common;

use common::fixture::Tree;
use common::mcp_client::Server;
use common::xorshift::Rng;
use serde_json::json;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The warm cache's bound in this test.
const CACHE_BYTES: u64 = 8 << 20;

/// What the server may hold above its base besides the cache: memory freed by a call that the
/// allocator keeps for the next one (its arenas, one per thread that allocated), and the
/// cache's own bookkeeping that its byte count approximates. Stated in SECURITY.md.
const OVERHEAD: u64 = 64 << 20;

/// Packages in the repository, each searched as its own `repo`.
const PACKAGES: usize = 6;

/// Files per package, and about how many bytes each.
const FILES: usize = 500;
const FILE_BYTES: usize = 12 << 10;

/// How long the client waits between calls: long enough for the idle worker to start (it waits
/// for 100 ms without calls) and work.
const PAUSE: Duration = Duration::from_millis(1500);

/// Words the generated source is made of: common ones, and many rare ones so the indexes hold
/// many distinct terms.
fn vocabulary(rng: &mut Rng) -> Vec<String> {
    let common = [
        "parse", "header", "retry", "buffer", "token", "stream", "config", "cache", "index",
        "query", "score", "render", "budget", "walk", "read", "write", "error", "state", "frame",
        "packet", "socket", "timer", "queue", "worker", "thread", "lock", "value", "table",
    ];
    let mut words: Vec<String> = common.iter().map(|w| w.to_string()).collect();
    for _ in 0..20_000 {
        let n = 4 + rng.below(7);
        words.push(rng.from("abcdefghijklmnopqrstuvwxyz", n));
    }
    words
}

/// One file of Rust-like source, about [`FILE_BYTES`] long.
fn source(rng: &mut Rng, words: &[String]) -> String {
    let mut text = String::with_capacity(FILE_BYTES + 512);
    let mut word = |rng: &mut Rng| {
        // A quarter of the words from the common ones, the rest from the long tail.
        if rng.below(4) == 0 {
            words[rng.below(28)].clone()
        } else {
            words[rng.below(words.len())].clone()
        }
    };
    while text.len() < FILE_BYTES {
        let (a, b, c) = (word(rng), word(rng), word(rng));
        let _ = writeln!(text, "/// {} the {b} of a {c}, {}.", cap(&a), word(rng));
        let _ = writeln!(text, "pub fn {a}_{b}({c}: &{}) -> u64 {{", cap(&word(rng)));
        for _ in 0..1 + rng.below(5) {
            let (d, e) = (word(rng), word(rng));
            let _ = writeln!(text, "    let {d}_{e} = {c}.{}({});", word(rng), rng.below(997));
        }
        let _ = writeln!(text, "    {}\n}}\n", rng.below(1 << 20));
    }
    text
}

fn cap(w: &str) -> String {
    let mut s = w.to_string();
    if let Some(f) = s.get_mut(..1) {
        f.make_ascii_uppercase();
    }
    s
}

/// The repository: `tiny/` (one small file) and `pkg0` .. `pkg5`.
fn repository() -> Tree {
    let tree = Tree::new("r");
    let mut rng = Rng(0x5eed_0039_0004);
    let words = vocabulary(&mut rng);
    tree.write("tiny/lib.rs", "/// Parses a header.\npub fn parse_header() {}\n");
    for p in 0..PACKAGES {
        for f in 0..FILES {
            let text = source(&mut rng, &words);
            tree.write(&format!("pkg{p}/src/m{}/f{f}.rs", f % 20), text);
        }
    }
    // Files changed in the last two seconds are never cached: let them settle.
    std::thread::sleep(Duration::from_millis(2100));
    tree
}

/// A field of `/proc/PID/status`, in KiB.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

fn search(server: &mut Server, repo: &str, query: &str) {
    let resp = server.call("search", json!({ "repo": repo, "query": query, "limit": 5 }));
    assert!(
        resp.get("result").is_some() && resp["result"]["isError"] != json!(true),
        "search {query:?} in {repo} failed: {resp}"
    );
}

#[test]
fn what_the_server_keeps_between_calls_stays_within_the_cache_bound() {
    let t0 = Instant::now();
    let tree = repository();
    let made = t0.elapsed();
    let root = tree.repo.to_str().unwrap();
    let mut server = Server::start(
        &tree.repo,
        &[
            ("GNAW_MCP_CACHE_BYTES", &CACHE_BYTES.to_string()),
            ("RUST_LOG", "info"),
        ],
    );
    let _ = root;
    let pid = server.pid();
    server.initialize("2025-06-18");
    // The base: a server that has answered one tiny search, and has been idle.
    search(&mut server, "tiny", "parse header");
    std::thread::sleep(PAUSE);
    let base = status_kib(pid, "VmRSS:");
    let bound = base + (CACHE_BYTES + OVERHEAD) / 1024;
    eprintln!(
        "repository made in {made:?}; base VmRSS {} MiB, bound {} MiB",
        base / 1024,
        bound / 1024
    );
    let queries = ["parse header", "retry socket timer"];
    let mut worst = 0;
    for q in queries {
        for p in 0..PACKAGES {
            let repo = format!("pkg{p}");
            search(&mut server, &repo, q);
            std::thread::sleep(PAUSE);
            let rss = status_kib(pid, "VmRSS:");
            let hwm = status_kib(pid, "VmHWM:");
            worst = worst.max(rss);
            eprintln!(
                "after {q:?} in {repo}: VmRSS {} MiB, VmHWM {} MiB ({:?})",
                rss / 1024,
                hwm / 1024,
                t0.elapsed()
            );
            assert!(
                rss <= bound,
                "after {q:?} in {repo} the server holds {} MiB, more than its base {} MiB plus \
                 the cache's {} MiB and the {} MiB overhead; stderr:\n{}",
                rss / 1024,
                base / 1024,
                CACHE_BYTES >> 20,
                OVERHEAD >> 20,
                tail(&server.stderr())
            );
        }
    }
    eprintln!(
        "worst VmRSS {} MiB (bound {} MiB), in {:?}",
        worst / 1024,
        bound / 1024,
        t0.elapsed()
    );
    server.ping();
}

/// The last lines of a log, for a failure's message.
fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}
