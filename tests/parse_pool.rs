//! The parse pool always recovers (issue 39, item 3), proven through the spawned `gnaw-mcp`
//! with real pauses: after each way a parse worker's slot can be left behind (a cancelled
//! parse, an idle pass interrupted by calls, a worker killed by a signal from outside, a worker
//! over its memory bound, a worker stopped so that it never answers), and a pause longer than
//! every deadline the pool judges a slot by (the parse's 2 s bound plus the 2.5 s grace), every
//! later parse works: `outline` gives each file's definitions, never "the parse workers are not
//! running". A slot is judged by what its worker sent before its deadline; a worker that no
//! longer answers is replaced; `--sandbox-status` reports the pool's health.
//!
//! The workers are found under the server in `/proc` (the server's child is the supervisor,
//! whose children are the workers).

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

mod common;

use common::json::text_parts as text_of;
use common::mcp_client::{self, Server};
use common::xorshift::Rng;
use serde_json::{Value, json};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

/// Longer than every deadline a slot is judged by after an abandoned request: the parse's own
/// bound (2 s) plus the grace past it (2.5 s).
const PAUSE: Duration = Duration::from_millis(5_000);

/// Small files with definitions, each distinct (so no outline is kept from an earlier call).
const OK_FILES: usize = 8;

fn ok_file(i: usize) -> String {
    format!(
        "/// Ok number {i}.\npub fn ok_func_{i}() -> u32 {{\n    {i}\n}}\n\npub struct OkThing{i};\n"
    )
}

/// A Go file that takes the whole 2 s parse bound (as in `hostile_repos`).
fn slow_go(head: &str) -> String {
    let mut text = format!("// {head}\n");
    while text.len() < 60_000 {
        text.push_str("} { ( ) [ ] func ");
    }
    text
}

/// The repository: `ok0.rs`.. with definitions, slow Go files, and the Swift file that made a
/// grammar allocate without bound (issue 21), named so that it sorts last.
fn repo(dir: &Path, slow: usize) {
    for i in 0..OK_FILES {
        fs::write(dir.join(format!("ok{i}.rs")), ok_file(i)).unwrap();
    }
    for i in 0..slow {
        fs::write(dir.join(format!("zz_slow{i}.go")), slow_go(&i.to_string())).unwrap();
    }
}

fn write_swift_bomb(dir: &Path) {
    let unit = "} { -> ( ) [ ] ? : ";
    let mut text = String::new();
    while text.len() < 57 << 10 {
        text.push_str(unit);
    }
    fs::write(dir.join("zz_bomb.swift"), text).unwrap();
}

/// The server on `dir`; without its warm cache (`GNAW_MCP_CACHE_BYTES=0`) unless `cache`, so
/// that every outline is a parse.
fn start(dir: &Path, cache: bool) -> Server {
    let env: &[(&str, &str)] = if cache {
        &[]
    } else {
        &[("GNAW_MCP_CACHE_BYTES", "0")]
    };
    let mut server = Server::start(dir, env);
    server.initialize("2025-06-18");
    server
}

/// A fresh directory holding the repository with `slow` slow files, and the server on it
/// without its cache.
fn pool(slow: usize) -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    repo(dir.path(), slow);
    let server = start(dir.path(), false);
    (dir, server)
}

/// After `PAUSE` (past every deadline), every parse works; then the server ends.
fn after_a_pause_every_parse_works(mut server: Server, dir: &Path, tag: &str) {
    std::thread::sleep(PAUSE);
    assert_every_parse_works(&mut server, dir, tag);
    server.finish();
}

/// Ask `done` every `step` until it holds, for `limit` at most: whether it held.
fn within(limit: Duration, step: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    loop {
        if done() {
            return true;
        }
        if started.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(step);
    }
}

/// Send a request and wait for its answer, passing over answers to other (cancelled) calls.
fn request(server: &mut Server, method: &str, params: Value) -> Value {
    let id = server.fresh_id();
    server.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
    loop {
        let msg = server.recv();
        if msg.get("id") == Some(&id) {
            return msg;
        }
    }
}

fn ping(server: &mut Server) {
    let resp = request(server, "ping", json!({}));
    assert_eq!(resp["result"], json!({}), "{resp}");
}

fn outline(server: &mut Server, paths: &[String]) -> String {
    let resp = request(
        server,
        "tools/call",
        json!({ "name": "outline", "arguments": { "repo": ".", "paths": paths } }),
    );
    assert!(resp["result"]["isError"] != json!(true), "{resp}");
    text_of(&resp)
}

/// Whether `text` holds the two definitions of the file `ok_file(i)` wrote.
fn has_definitions(text: &str, i: usize) -> bool {
    text.contains(&format!("pub fn ok_func_{i}() -> u32")) && text.contains(&format!("OkThing{i}"))
}

/// Write `OK_FILES` files no earlier call saw (none is kept or remembered), named after `tag`.
fn fresh_files(dir: &Path, tag: &str) -> Vec<String> {
    (0..OK_FILES)
        .map(|i| {
            let name = format!("{tag}{i}.rs");
            fs::write(dir.join(&name), format!("// {tag}\n{}", ok_file(i))).unwrap();
            name
        })
        .collect()
}

/// Every parse works: files no call saw before, each alone (one call after another, so that
/// each slot is taken in turn), then others all in one call (parsed side by side).
fn assert_every_parse_works(server: &mut Server, dir: &Path, tag: &str) {
    for (i, name) in fresh_files(dir, &format!("{tag}_one"))
        .into_iter()
        .enumerate()
    {
        let text = outline(server, std::slice::from_ref(&name));
        assert!(
            has_definitions(&text, i),
            "after {tag}, outline of {name} gave no definitions:\n{text}\nstderr:\n{}",
            server.stderr()
        );
    }
    let all = fresh_files(dir, &format!("{tag}_all"));
    let text = outline(server, &all);
    for (i, name) in all.iter().enumerate() {
        assert!(
            has_definitions(&text, i),
            "after {tag}, the outline of them all missed {name}:\n{text}"
        );
    }
}

/// The children of a process (its main thread's: the supervisor is forked before any thread).
fn children(pid: u32) -> Vec<u32> {
    fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// The parse workers' pids: the children of the server's only child, the supervisor, once
/// there is one per slot (`min(CPUs, 3)`, as the server counts them); a worker just started,
/// or one dead and not yet replaced, is waited for.
fn workers(server: &Server) -> Vec<u32> {
    let slots = gnaw::par::threads().clamp(1, gnaw::stages::syntax::pool::MAX_WORKERS);
    let started = Instant::now();
    loop {
        let supervisors = children(server.pid());
        if let [supervisor] = supervisors[..] {
            let mut pids = children(supervisor);
            if pids.len() == slots {
                pids.sort_unstable();
                return pids;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "not one supervisor and {slots} workers: {supervisors:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn signal(pid: u32, sig: &str) {
    let status = std::process::Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill {sig} {pid}");
}

/// CPU time (user and system, in clock ticks) each parse worker has used.
fn worker_cpu(server: &Server) -> Vec<(u32, u64)> {
    workers(server)
        .into_iter()
        .filter_map(|pid| {
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // Fields after the command's closing parenthesis: state is the 3rd, utime the 14th.
            let rest = &stat[stat.rfind(')')? + 2..];
            let fields: Vec<&str> = rest.split(' ').collect();
            let ticks =
                fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
            Some((pid, ticks))
        })
        .collect()
}

/// Wait until a parse is under way: some worker has run 50 ms more than it had (or died).
fn wait_for_a_parse(server: &Server, before: &[(u32, u64)]) {
    let started = within(Duration::from_secs(20), Duration::from_millis(10), || {
        let now = worker_cpu(server);
        let busy = now.iter().any(|(pid, ticks)| {
            let was = before.iter().find(|(p, _)| p == pid).map_or(0, |(_, t)| *t);
            *ticks >= was + 5
        });
        let died = before.iter().any(|(p, _)| !now.iter().any(|(q, _)| q == p));
        busy || died
    });
    assert!(started, "no parse started: {}", server.stderr());
}

/// Wait until some worker holds over `kib` KiB resident (a grammar allocating without bound),
/// or one of `before` died.
fn wait_for_memory(server: &Server, before: &[u32], kib: u64) {
    let grew = within(Duration::from_secs(20), Duration::from_millis(2), || {
        let now = workers(server);
        let big = now.iter().any(|pid| {
            fs::read_to_string(format!("/proc/{pid}/status"))
                .ok()
                .and_then(|s| {
                    s.lines()
                        .find_map(|l| l.strip_prefix("VmRSS:"))
                        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                })
                .is_some_and(|rss| rss > kib)
        });
        big || before.iter().any(|p| !now.contains(p))
    });
    assert!(grew, "no worker grew: {}", server.stderr());
}

/// Send an outline of `path` and return its id without waiting for the answer.
fn outline_async(server: &mut Server, path: &str) -> Value {
    let id = server.fresh_id();
    server.send(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": "outline", "arguments": { "repo": ".", "paths": [path] } },
    }));
    id
}

fn cancel(server: &mut Server, id: &Value) {
    server.send(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": id, "reason": "test" },
    }));
}

/// (a) A cancelled parse: its worker answers the cancellation at once, but nothing reads that
/// answer until the next parse on the slot, after the slot's deadline.
#[test]
fn a_cancelled_parse_then_a_pause_leaves_parsing_on() {
    let (dir, mut server) = pool(1);
    let idle = worker_cpu(&server);
    let id = outline_async(&mut server, "zz_slow0.go");
    wait_for_a_parse(&server, &idle);
    cancel(&mut server, &id);
    ping(&mut server);
    after_a_pause_every_parse_works(server, dir.path(), "cancelled");
}

/// (b) An idle pass interrupted by calls: a search leaves its files' outlines for idle time;
/// calls stop the slow file's parse until it is left for a call (after three), which ends the
/// pass with its slot owed the last cancelled parse's answer.
#[test]
fn an_interrupted_idle_pass_then_a_pause_leaves_parsing_on() {
    let dir = tempfile::tempdir().unwrap();
    repo(dir.path(), 1);
    // Idle outlines are left only for an index the cache keeps, and an index is kept only with
    // a listing of what had settled (nothing changed in the last two seconds).
    std::thread::sleep(Duration::from_millis(2_500));
    let mut server = start(dir.path(), true);
    // Words of the ok files only: the search's own re-scoring parses its best files, and the
    // slow file must be left to the idle pass.
    let resp = server.call("search", json!({ "repo": ".", "query": "OkThing number" }));
    assert!(resp["result"]["isError"] != json!(true), "{resp}");
    for _ in 0..gnaw::driver::nav::deferred::MAX_INTERRUPTIONS {
        // The idle worker starts 100 ms after a call; the ok files were parsed by the search:
        // the parse under way is the slow file's (2 s).
        wait_for_a_parse(&server, &worker_cpu(&server));
        let resp = server.call("tree", json!({ "repo": "." }));
        assert!(resp["result"]["isError"] != json!(true), "{resp}");
    }
    let ended = within(Duration::from_secs(30), Duration::from_millis(20), || {
        server.stderr().contains("idle: outlines of")
    });
    assert!(ended, "the idle pass did not end: {}", server.stderr());
    for line in server.stderr().lines().filter(|l| l.contains("idle:")) {
        eprintln!("{line}");
    }
    after_a_pause_every_parse_works(server, dir.path(), "idle");
}

/// (c) Workers killed from outside while idle: the supervisor's reports of their deaths wait
/// on their slots, and must not be taken for the answer to the next request.
#[test]
fn workers_killed_by_a_signal_are_replaced_and_used() {
    let (dir, mut server) = pool(0);
    let before = workers(&server);
    assert!(!before.is_empty());
    for &pid in &before {
        signal(pid, "-KILL");
    }
    std::thread::sleep(PAUSE);
    let after = workers(&server);
    assert_eq!(after.len(), before.len(), "every slot has a worker again");
    assert!(
        after.iter().all(|p| !before.contains(p)),
        "new workers: {before:?} -> {after:?}"
    );
    assert_every_parse_works(&mut server, dir.path(), "killed");
    server.finish();
}

/// (c, at once) Workers killed right before a parse: the request goes to a replacement, so the
/// very first outline after the kill works. Prints how long that took.
#[test]
fn the_first_parse_after_a_kill_works() {
    let (dir, mut server) = pool(0);
    // The server's first call pays for what every later one reuses: not a recovery cost.
    assert_every_parse_works(&mut server, dir.path(), "warm");
    let mut took = Vec::new();
    for round in 0..20 {
        let files = fresh_files(dir.path(), &format!("round{round}_"));
        let before = workers(&server);
        let killed = Instant::now();
        for &pid in &before {
            signal(pid, "-KILL");
        }
        let text = outline(&mut server, &files[..1]);
        took.push(killed.elapsed());
        assert!(
            has_definitions(&text, 0),
            "the first outline after a kill gave no definitions:\n{text}"
        );
    }
    eprintln!("kill -> first outline answered, each round: {took:?}");
    took.sort_unstable();
    eprintln!(
        "kill -> first outline answered: median {:?}, max {:?} (the kill command included)",
        took[took.len() / 2],
        took[took.len() - 1]
    );
    server.finish();
}

/// (d) A worker over its memory bound: the file is reported at its bound, and parsing goes on
/// after a pause; then again with the call cancelled while the grammar allocates (a worker
/// holds over 100 MiB, in the loop that never looks at cancellation), so that the death is
/// reported on a slot owed the cancelled answer.
#[test]
fn a_worker_over_its_memory_bound_then_a_pause_leaves_parsing_on() {
    let dir = tempfile::tempdir().unwrap();
    repo(dir.path(), 0);
    write_swift_bomb(dir.path());
    let mut server = start(dir.path(), false);
    let text = outline(&mut server, &["zz_bomb.swift".into()]);
    // On a loaded machine the time bound may come first.
    assert!(
        text.contains("memory bound") || text.contains("time bound"),
        "{text}"
    );
    after_a_pause_every_parse_works(server, dir.path(), "bomb");

    let mut server = start(dir.path(), false);
    let before = workers(&server);
    let id = outline_async(&mut server, "zz_bomb.swift");
    // Past the part of the parse that looks at cancellation: the allocation under way.
    wait_for_memory(&server, &before, 100 << 10);
    cancel(&mut server, &id);
    ping(&mut server);
    // The worker dies of its bound (whether or not it saw the cancellation first).
    let died = within(Duration::from_secs(10), Duration::from_millis(20), || {
        workers(&server).iter().any(|p| !before.contains(p))
    });
    assert!(died, "the worker did not die: {}", server.stderr());
    after_a_pause_every_parse_works(server, dir.path(), "bomb_cancelled");
}

/// A worker that never answers (stopped by `SIGSTOP`, which its own alarm cannot end): the
/// parse sent to it is given up, its slot is not handed out again while another works, and
/// once its deadline is past the supervisor is asked to replace it, so the slot works again.
#[test]
fn a_worker_that_never_answers_is_skipped_then_replaced() {
    let (dir, mut server) = pool(0);
    let before = workers(&server);
    let stopped = before[0];
    signal(stopped, "-STOP");
    // One file after another (free slots are taken in turn) until one lands on it.
    let files = fresh_files(dir.path(), "stop_");
    let mut given_up = None;
    for (i, name) in files.iter().enumerate().take(2 * before.len()) {
        let text = outline(&mut server, std::slice::from_ref(name));
        if !has_definitions(&text, i) {
            given_up = Some(text);
            break;
        }
    }
    let text = given_up.expect("a parse went to the stopped worker");
    assert!(!text.contains("not running"), "{text}");
    std::thread::sleep(PAUSE);
    // Past its deadline: the slot is skipped, or its worker already replaced.
    let files = fresh_files(dir.path(), "skip_");
    for (i, name) in files.iter().enumerate() {
        let text = outline(&mut server, std::slice::from_ref(name));
        assert!(
            has_definitions(&text, i),
            "a parse went to the stopped worker: {text}\n{}",
            server.stderr()
        );
    }
    // ... and replaced: killed by the supervisor, a fresh worker in its slot.
    let mut round = 0;
    let replaced = within(Duration::from_secs(10), Duration::from_millis(50), || {
        if !workers(&server).contains(&stopped) {
            return true;
        }
        round += 1;
        let _ = outline(
            &mut server,
            &fresh_files(dir.path(), &format!("wait{round}_"))[..1],
        );
        false
    });
    assert!(
        replaced,
        "the stopped worker was not replaced: {}",
        server.stderr()
    );
    assert_eq!(workers(&server).len(), before.len());
    assert_every_parse_works(&mut server, dir.path(), "replaced");
    server.finish();
}

/// `--sandbox-status` reports the parse workers: as many as started, every one answering a
/// probe parse under the sandbox, none replaced, parsing on.
#[test]
fn sandbox_status_reports_the_parse_workers() {
    let dir = tempfile::tempdir().unwrap();
    let (status, out, err) = mcp_client::run(dir.path(), &["--sandbox-status"], &[]);
    assert!(status.success(), "{err}");
    let json: Value = serde_json::from_str(out.trim()).unwrap();
    let pool = &json["parse_workers"];
    let slots = pool["slots"].as_u64().unwrap_or(0);
    assert!((1..=3).contains(&slots), "{pool}");
    assert_eq!(pool["live"], json!(slots), "{pool}");
    assert_eq!(pool["replaced"], json!(0), "{pool}");
    assert_eq!(pool["disabled"], Value::Null, "{pool}");
}

/// 200 outline calls, a third of them (at random) cancelled at a random moment, half of those
/// on a slow file: every call not cancelled gives its file's definitions (a parse each: no
/// warm cache), and afterwards, past every deadline, every parse works.
#[test]
fn no_parse_is_lost_over_many_calls_with_random_cancels() {
    let (dir, mut server) = pool(4);
    let mut rng = Rng(0x39_0003);
    let (mut cancelled, mut answered) = (0, 0);
    let started = Instant::now();
    for round in 0..200 {
        let i = rng.below(OK_FILES);
        if rng.below(3) == 0 {
            let path = if rng.below(2) == 0 {
                format!("zz_slow{}.go", rng.below(4))
            } else {
                format!("ok{i}.rs")
            };
            let id = outline_async(&mut server, &path);
            std::thread::sleep(Duration::from_millis(rng.below(40) as u64));
            cancel(&mut server, &id);
            cancelled += 1;
            continue;
        }
        let text = outline(&mut server, &[format!("ok{i}.rs")]);
        answered += 1;
        assert!(
            has_definitions(&text, i),
            "call {round} lost its parse:\n{text}\nstderr:\n{}",
            server.stderr()
        );
    }
    eprintln!(
        "{answered} answered with their definitions, {cancelled} cancelled, in {:?}",
        started.elapsed()
    );
    after_a_pause_every_parse_works(server, dir.path(), "random");
}
