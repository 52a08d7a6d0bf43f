//! One memory budget (issue 39, item 4): everything a real `gnaw-mcp` keeps between calls (the
//! warm cache, kept search indexes, work waiting for idle time) stays within
//! `GNAW_MCP_CACHE_BYTES` plus a fixed overhead.
//!
//! A generated repository of 30 MB (five packages of 6 MB of varied Rust-like source) is
//! searched over each package in turn (each its own `repo`, so each its own search index and
//! its own idle work): first in a burst, so the work each search leaves for idle time waits,
//! then with idle pauses between calls, so the idle worker runs. After each call the server's
//! resident memory, now and at its peak (`VmRSS`, `VmHWM`, from `/proc/PID/status`), must stay
//! within the base plus the cache's bound plus [`OVERHEAD`]. The base is the same server's
//! resident memory once it has answered one tiny search (tokenizer and grammar tables loaded,
//! threads started): 40 MiB in a debug build.
//!
//! And through the library, what that rests on: the work a search leaves for idle time holds
//! none of its index; it parses the outlines while the cache keeps the index, and ends at once,
//! parsing nothing, once the cache has let the index go.
//!
//! Measured on the code before the fix (idle work held each index it was left for, 4 pieces
//! waiting at most): 118 MiB after the burst, 78 MiB over the base; after it, 62 MiB (22 over
//! the base: the 8 MiB cache and one call's working memory, which the allocator keeps).

#![allow(clippy::disallowed_methods)] // the fixture is written with std::fs

mod common;

use common::fixture::Tree;
use common::mcp_client::Server;
use common::xorshift::Rng;
use gnaw::cache::{Cache, skeleton_id};
use gnaw::driver::call::Request;
use gnaw::driver::call::session::Session;
use gnaw::driver::nav::repo_index;
use gnaw::spec::{IdleWork, Observer};
use gnaw_sandbox::Root;
use serde_json::json;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// The warm cache's bound in this test.
const CACHE_BYTES: u64 = 8 << 20;

/// What the server may hold above its base besides the cache: the working memory of the call in
/// progress (one package's texts and index, about 14 MiB here), which the allocator keeps once
/// freed for the next call, and the cache's bookkeeping beyond what it counts. Work waiting for
/// idle time may add nothing (SECURITY.md, "Memory").
const OVERHEAD: u64 = 32 << 20;

/// Packages in the repository, each searched as its own `repo`.
const PACKAGES: usize = 5;

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
    let word = |rng: &mut Rng| {
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
            let _ = writeln!(
                text,
                "    let {d}_{e} = {c}.{}({});",
                word(rng),
                rng.below(997)
            );
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

/// The repository: `tiny/` (one small file) and `pkg0` .. `pkg4`.
fn repository() -> Tree {
    let tree = Tree::new("r");
    let mut rng = Rng(0x5eed_0039_0004);
    let words = vocabulary(&mut rng);
    tree.write(
        "tiny/lib.rs",
        "/// Parses a header.\npub fn parse_header() {}\n",
    );
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
    let resp = server.call(
        "search",
        json!({ "repo": repo, "query": query, "limit": 5 }),
    );
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
    let cache = CACHE_BYTES.to_string();
    let env = [
        ("GNAW_MCP_CACHE_BYTES", cache.as_str()),
        ("RUST_LOG", "info"),
    ];
    let mut server = Server::start(&tree.repo, &env);
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
    let check = |server: &mut Server, when: &str| {
        let (rss, hwm) = (status_kib(pid, "VmRSS:"), status_kib(pid, "VmHWM:"));
        eprintln!(
            "{when}: VmRSS {} MiB, VmHWM {} MiB ({:?})",
            rss / 1024,
            hwm / 1024,
            t0.elapsed()
        );
        assert!(
            rss.max(hwm) <= bound,
            "{when} the server held {} MiB (VmHWM {} MiB), more than its base {} MiB plus the \
             cache's {} MiB and the {} MiB a call may use; stderr:\n{}",
            rss / 1024,
            hwm / 1024,
            base / 1024,
            CACHE_BYTES >> 20,
            OVERHEAD >> 20,
            tail(&server.stderr())
        );
    };
    // A burst: each call leaves work for idle time that cannot run yet, so it waits.
    for p in 0..PACKAGES {
        search(&mut server, &format!("pkg{p}"), "parse header");
        check(&mut server, &format!("after a burst's search in pkg{p}"));
    }
    // A call between pauses: the idle work left runs before it and after it.
    std::thread::sleep(PAUSE);
    check(&mut server, "after a pause");
    search(&mut server, "pkg0", "retry socket timer");
    std::thread::sleep(PAUSE);
    check(&mut server, "after a search between pauses in pkg0");
    server.ping();
}

/// The last lines of a log, for a failure's message.
fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

/// An observer that keeps the work a call leaves for idle time.
#[derive(Default)]
struct Left(Mutex<Vec<IdleWork>>);

impl Observer for Left {
    fn leave(&self, work: IdleWork) {
        self.0.lock().unwrap().push(work);
    }
}

/// Index `repo` with `cache`, as a search does: a weak reference to the index's files, and
/// the work the call left for idle time.
fn index_of(repo: &Path, cache: &Cache) -> (Weak<Vec<repo_index::IndexedFile>>, Vec<IdleWork>) {
    let left = Left::default();
    let root = Root::new(repo, false).unwrap();
    let req = Request {
        cache: Some(cache),
        observer: Some(&left),
        ..Request::alone(root.as_dir(), 0, usize::MAX)
    };
    let session = Session::open(&req).unwrap();
    let fo = session.file_options(false, None);
    let ctx = session.context(&fo).unwrap();
    let files = Arc::downgrade(&repo_index::index(&session, &ctx).unwrap().files);
    (files, left.0.into_inner().unwrap())
}

/// Run `work` in `cache` with no call waiting until it says it is done; how many slices that
/// took.
fn run(work: &mut IdleWork, cache: &Cache) -> usize {
    for slices in 1..=10_000 {
        if (work.slice)(cache, &|| false) {
            return slices;
        }
    }
    panic!("idle work not done after 10,000 slices");
}

#[test]
fn idle_work_holds_none_of_its_index_and_ends_once_the_cache_lets_it_go() {
    let tree = Tree::new("r");
    for p in ["a", "b"] {
        for i in 0..40 {
            let text =
                format!("/// Parses header {i}.\npub fn parse_header_{i}() -> u32 {{ {i} }}\n");
            tree.write(&format!("{p}/src/m{i}.rs"), text);
        }
    }
    std::thread::sleep(Duration::from_millis(2100));
    let cache = Cache::new(4 << 20);

    // While the cache keeps the index, the work parses every file's outline.
    let (files, mut left) = index_of(&tree.repo.join("a"), &cache);
    assert_eq!(left.len(), 1, "a search leaves its outlines for idle time");
    assert!(files.upgrade().is_some(), "the cache keeps the index");
    let before = cache.stats().outlines_built;
    run(&mut left[0], &cache);
    assert_eq!(
        cache.stats().outlines_built - before,
        40,
        "every outline parsed"
    );
    let (_, again) = index_of(&tree.repo.join("a"), &cache);
    assert!(again.is_empty(), "outlines all kept: nothing left to do");

    // Once the cache lets the index go, the waiting work holds none of it, and ends at once.
    let (files, mut left) = index_of(&tree.repo.join("b"), &cache);
    assert_eq!(left.len(), 1);
    assert!(files.upgrade().is_some(), "the cache keeps the index");
    for i in 0..64 {
        let id = skeleton_id(&"filler", &i.to_string());
        cache.put_skeleton(id, Some(Arc::from("x".repeat(400 << 10))));
    }
    assert!(
        files.upgrade().is_none(),
        "work waiting for idle time keeps an index the cache let go"
    );
    let before = cache.stats().outlines_built;
    assert_eq!(
        run(&mut left[0], &cache),
        1,
        "the work ends at its first slice"
    );
    assert_eq!(cache.stats().outlines_built, before, "nothing parsed");
}
