//! Cost grows linearly with input: for each input a client or a repository can make large, a
//! doubled input must take at most about twice as long (and as much memory, where the server's
//! peak resident set `VmHWM` can be read), through the real `gnaw-mcp` where it can.
//!
//! | input | sizes | what is timed |
//! |---|---|---|
//! | query terms (de-duplication, in process) | 40k, 80k, 160k distinct words | `rank::query_terms` |
//! | query length (refused over 4 KiB) | 0.5, 1, 2 MiB | an `estimate` call |
//! | path depth, under the default budget | 500, 1000, 2000 directories | an `estimate` call |
//! | files, under the default budget | 800, 1600, 3200 files | an `estimate` call |
//! | hostile text in one file | 240, 480, 960 kB | a `search` call |
//! | queued calls (the queue holds 64 calls, 64 MiB) | 16 .. 128 calls | all answered |
//!
//! Time is CPU time (user + system, from `/proc`): the server's own for a call, the test
//! thread's in process. Unlike wall time it does not count waiting for a core or a disk, so a
//! loaded two-core machine does not fail it. Each figure is the median of three runs; a
//! doubling may cost up to 3x, and costs below an absolute floor count as the floor. The
//! measurements run one at a time (a lock), never beside each other.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;
use crate::serial;

use common::{deep_repo, mcp_client};

use mcp_client::Server;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::time::Instant;

/// How much more a doubled input may cost.
const FACTOR: f64 = 3.0;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// CPU seconds (user + system) used so far by the task whose `/proc` directory is `dir`.
fn cpu_secs(dir: &str) -> f64 {
    let stat = fs::read_to_string(format!("{dir}/stat")).unwrap();
    // Fields after the command name (which is in parentheses and may hold spaces): the 12th
    // and 13th are utime and stime, in clock ticks (100 per second on Linux).
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

/// The median of three CPU times of `f`, as used by the task at `/proc` directory `dir`; the
/// median wall time is printed beside it.
fn time3(dir: &str, mut f: impl FnMut()) -> f64 {
    let mut cpu = Vec::new();
    let mut wall = Vec::new();
    for _ in 0..3 {
        let (c, t) = (cpu_secs(dir), Instant::now());
        f();
        wall.push(t.elapsed().as_secs_f64());
        cpu.push(cpu_secs(dir) - c);
    }
    eprintln!(
        "  wall {:.3} s, cpu {:.3} s",
        median(wall),
        median(cpu.clone())
    );
    median(cpu)
}

fn proc_dir(s: &Server) -> String {
    format!("/proc/{}", s.pid())
}

/// Each cost at most `FACTOR` times the one before it (the input doubles each step), costs
/// below `floor` counting as `floor`.
fn assert_linear(what: &str, unit: &str, sizes: &[usize], costs: &[f64], floor: f64) {
    let table: Vec<String> = sizes
        .iter()
        .zip(costs)
        .map(|(s, c)| format!("{s}: {c:.3} {unit}"))
        .collect();
    eprintln!("{what}: {}", table.join(", "));
    for k in 1..costs.len() {
        assert!(
            costs[k] <= FACTOR * costs[k - 1].max(floor),
            "{what}: doubling the input from {} to {} cost {:.3} then {:.3} {unit} (more than \
             {FACTOR}x; floor {floor}): {}",
            sizes[k - 1],
            sizes[k],
            costs[k - 1],
            costs[k],
            table.join(", ")
        );
    }
}

/// The server's peak resident set so far, in MiB.
fn vm_hwm_mib(s: &Server) -> f64 {
    let status = fs::read_to_string(format!("/proc/{}/status", s.pid())).unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status");
    kb / 1024.0
}

/// A server on `root` without the warm cache (repeated calls do the same work), warmed up with
/// a call on `root/tiny`; its peak memory after that is the baseline.
fn server(root: &Path) -> (Server, f64) {
    fs::create_dir_all(root.join("tiny")).unwrap();
    fs::write(root.join("tiny/a.txt"), "a\n").unwrap();
    // Deep enough for the path-depth test (2,000 levels; the default limit is 256).
    let mut s = Server::start(
        root,
        &[
            ("GNAW_MCP_CACHE_BYTES", "0"),
            ("GNAW_MCP_MAX_DEPTH", "2100"),
        ],
    );
    s.initialize("2025-11-25");
    let r = s.call("estimate", json!({ "repo": "tiny" }));
    assert!(r.get("result").is_some(), "{r}");
    let base = vm_hwm_mib(&s);
    (s, base)
}

/// For each of `sizes`, a fresh server on `root` and the cost of `call` at that size: its CPU time
/// (median of three, [`time3`]) and the peak memory it added. Both must grow linearly, time with
/// a floor of `floor_s` seconds (and memory of 16 MiB).
fn per_server(
    root: &Path,
    what: &str,
    sizes: &[usize],
    floor_s: f64,
    mut call: impl FnMut(&mut Server, usize),
) {
    let (mut times, mut mems) = (Vec::new(), Vec::new());
    for &n in sizes {
        let (mut s, base) = server(root);
        let dir = proc_dir(&s);
        times.push(time3(&dir, || call(&mut s, n)));
        mems.push(vm_hwm_mib(&s) - base);
    }
    assert_linear(what, "s", sizes, &times, floor_s);
    assert_linear(what, "MiB", sizes, &mems, 16.0);
}

/// `call` on repositories of each of `sizes` (made by `make` in a fresh directory, named
/// `r{size}`), a server each, takes time and memory linear in the size.
fn per_repo(
    what: &str,
    sizes: &[usize],
    floor_s: f64,
    make: impl Fn(&Path, usize),
    mut call: impl FnMut(&mut Server, &str),
) {
    let _g = serial();
    let root = tempfile::tempdir().unwrap();
    for &n in sizes {
        make(&root.path().join(format!("r{n}")), n);
    }
    per_server(root.path(), what, sizes, floor_s, |s, n| {
        call(s, &format!("r{n}"));
    });
}

fn call_ok(s: &mut Server, args: Value) -> Value {
    let r = s.call("estimate", args);
    assert_ne!(r["result"]["isError"], true, "{r}");
    assert!(r.get("result").is_some(), "{r}");
    r
}

/// De-duplicating a query's terms was quadratic (160k words: about a minute).
#[test]
fn query_terms_are_linear_in_the_query() {
    let _g = serial();
    let sizes = [40_000, 80_000, 160_000];
    let costs: Vec<f64> = sizes
        .iter()
        .map(|&n| {
            let q: String = (0..n).map(|i| format!("w{i} ")).collect();
            time3("/proc/thread-self", || {
                assert_eq!(gnaw::rank::query_terms(&q).len(), n)
            })
        })
        .collect();
    assert_linear("query terms", "s", &sizes, &costs, 0.2);
}

/// Queries over the bound are refused, in time linear in their length (reading the line).
#[test]
fn long_queries_cost_linear_time_and_memory() {
    let _g = serial();
    let root = tempfile::tempdir().unwrap();
    let sizes = [512 << 10, 1 << 20, 2 << 20];
    per_server(root.path(), "query length", &sizes, 0.2, |s, n| {
        let q: String = (0..)
            .map(|i| format!("t{i:x} "))
            .scan(0, |len, w| {
                *len += w.len();
                (*len <= n).then_some(w)
            })
            .collect();
        let r = s.call("estimate", json!({ "repo": "tiny", "query": q }));
        let text = r["result"]["content"][0]["text"].as_str().unwrap_or("");
        assert!(text.contains("the limit is 4096 bytes"), "{r}");
    });
}

/// Deep paths under the default budget: fitting never draws a tree it can prove too big, and
/// a bounded number of trials is measured (before: over 15 minutes at 2000 levels).
#[test]
fn path_depth_under_a_budget_costs_linear_time_and_memory() {
    // 2000 levels of `d/` is as deep as a file can be read: its path must stay under PATH_MAX.
    let deep = |repo: &Path, d| deep_repo::deep_repo(repo, d, 2);
    per_repo("path depth", &[500, 1000, 2000], 0.3, deep, |s, repo| {
        let r = call_ok(s, json!({ "repo": repo }));
        let tokens = r["result"]["structuredContent"]["tokens"].as_u64().unwrap();
        assert!(tokens <= 20_000, "{r}");
    });
}

/// Many files under the default budget: bounded trials, each linear in the files.
#[test]
fn files_under_a_budget_cost_linear_time_and_memory() {
    let files = |repo: &Path, n| {
        for i in 0..n {
            let dir = repo.join(format!("m{}/s{}", i % 13, i % 5));
            fs::create_dir_all(&dir).unwrap();
            fs::write(
                dir.join(format!("file_{i}.rs")),
                format!("pub fn item_{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n"),
            )
            .unwrap();
        }
    };
    per_repo(
        "files under a budget",
        &[800, 1600, 3200],
        0.3,
        files,
        |s, repo| {
            let r = call_ok(s, json!({ "repo": repo, "query": "item parse" }));
            assert_eq!(r["result"]["structuredContent"]["budget"], 20_000, "{r}");
        },
    );
}

/// A text of `n` bytes made of the shapes the search index's guesses look back and forward
/// over: one long word before `()`, a long run of blanks between `()` and `{`, and many short
/// shell definitions, calls and keywords.
fn hostile_text(n: usize) -> String {
    let quarter = n / 4;
    let mut text = format!(
        "{}()\n{}() {}{{\n",
        "a".repeat(quarter),
        " ".repeat(quarter / 2),
        " ".repeat(quarter / 2)
    );
    let unit = "f_x() {\n}\ncall()\nfn g_h() {}\n()()() class K\n";
    while text.len() + unit.len() <= n {
        text.push_str(unit);
    }
    text
}

/// One file of hostile text, searched: indexing it (words, defined names, imports) and finding
/// its regions take time and memory linear in its size (the largest is just under the 1 MiB
/// file limit).
#[test]
fn hostile_text_is_searched_in_linear_time_and_memory() {
    let hostile = |repo: &Path, n| {
        fs::create_dir_all(repo).unwrap();
        fs::write(repo.join("hostile.sh"), hostile_text(n)).unwrap();
    };
    let sizes = [240_000, 480_000, 960_000];
    per_repo("hostile text searched", &sizes, 0.2, hostile, |s, repo| {
        let r = s.call("search", json!({ "repo": repo, "query": "f_x call aaaa" }));
        assert_ne!(r["result"]["isError"], true, "{r}");
        assert_eq!(r["result"]["structuredContent"]["total_files"], 1, "{r}");
    });
}

/// Send `n` calls in one write, then wait for all `n` answers (queued ones in order, refused
/// ones at once).
fn burst(s: &mut Server, n: usize, args: &Value) {
    let mut ids = HashSet::new();
    let mut lines = Vec::new();
    for _ in 0..n {
        let id = s.fresh_id();
        ids.insert(id.to_string());
        let msg = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": { "name": "estimate", "arguments": args } });
        lines.extend(serde_json::to_vec(&msg).unwrap());
        lines.push(b'\n');
    }
    s.send_raw(&lines);
    while !ids.is_empty() {
        let msg = s.recv();
        if let Some(id) = msg.get("id") {
            assert!(ids.remove(&id.to_string()), "unexpected answer {msg}");
        }
    }
}

/// Queued calls: time and memory grow with the calls up to the queue's bound, and no further.
#[test]
fn queued_calls_cost_linear_time_and_bounded_memory() {
    let _g = serial();
    let root = tempfile::tempdir().unwrap();
    let sizes = [16, 32, 64];
    let (mut s, _) = server(root.path());
    let small = json!({ "repo": "tiny" });
    let dir = proc_dir(&s);
    let times: Vec<f64> = sizes
        .iter()
        .map(|&n| time3(&dir, || burst(&mut s, n, &small)))
        .collect();
    assert_linear("queued small calls", "s", &sizes, &times, 0.3);
    // Big requests (a 512 KiB query each, refused by the pipeline): the queue holds at most
    // 64 MiB of them, so sending 128 costs no more memory than 64.
    let sizes = [16, 32, 64, 128];
    let big = json!({ "repo": "tiny", "query": "q ".repeat(256 << 10) });
    let mut mems = Vec::new();
    for &n in &sizes {
        let (mut s, base) = server(root.path());
        burst(&mut s, n, &big);
        mems.push(vm_hwm_mib(&s) - base);
    }
    assert_linear("queued 512 KiB calls", "MiB", &sizes, &mems, 16.0);
}
