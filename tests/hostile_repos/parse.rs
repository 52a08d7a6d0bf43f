//! Hostile files for the parsers, through the spawned `gnaw-mcp` and the `gnaw` CLI: a generator
//! writes, for each of the 20 languages with a grammar, pathological nesting (brackets,
//! generics, unclosed strings, comments) at 64 KB and 1 MB, plus the two reproductions of
//! issue 21 (a 57 KB `.swift` that made the Swift parser allocate without bound and abort the
//! process, and a one-line `.cpp` of `a<b<b<...`). Every tool must answer within 10 s, the
//! server's memory and each parse worker's must stay bounded (VmHWM, read from /proc), the
//! server must answer a ping after, and a cancelled call must be answered by the next request
//! at once while a parse is under way.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;

use common::json::text_parts as text_of;
use common::mcp_client;

use mcp_client::Server;
use serde_json::{Value, json};
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Every language with a grammar, by the extension the generator gives it.
const EXTENSIONS: [&str; 20] = [
    "rs", "py", "js", "ts", "tsx", "go", "java", "c", "cpp", "cs", "rb", "php", "kt", "swift",
    "scala", "lua", "sh", "ex", "hs", "zig",
];

/// The pathological units: each repeated to the file's size.
const PATTERNS: [(&str, &str); 4] = [
    ("brackets", "} { -> ( ) [ ] ? : func ( [ { "),
    ("generics", "a<b<c<"),
    ("strings", "\"${ '\\ \"\"\" `${ r#\" "),
    ("comments", "/* /*/ (* {- --[[ <!-- #{ "),
];

/// Most a call may take, whatever the files.
const DEADLINE: Duration = Duration::from_secs(10);
/// Most memory the server, or any one parse worker, may ever hold.
const MAX_RSS_KB: u64 = 512 * 1024;

fn write_repeated(path: &Path, unit: &str, size: usize) {
    let mut text = String::with_capacity(size + unit.len());
    while text.len() < size {
        text.push_str(unit);
    }
    fs::write(path, text).unwrap();
}

/// The hostile repository: 20 languages x 4 patterns at 64 KB, 20 languages at 1 MB (the
/// patterns mixed), and the two reproductions.
fn hostile_repo(dir: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    for ext in EXTENSIONS {
        for (name, unit) in PATTERNS {
            let rel = format!("small/{name}.{ext}");
            fs::create_dir_all(dir.join("small")).unwrap();
            write_repeated(&dir.join(&rel), unit, 64 << 10);
            paths.push(rel);
        }
        let mixed: String = PATTERNS.iter().map(|(_, u)| *u).collect();
        let rel = format!("large/mixed.{ext}");
        fs::create_dir_all(dir.join("large")).unwrap();
        write_repeated(&dir.join(&rel), &mixed, 1 << 20);
        paths.push(rel);
    }
    fs::create_dir_all(dir.join("repro")).unwrap();
    write_repeated(
        &dir.join("repro/crash.swift"),
        "} { -> ( ) [ ] ? : ",
        57 << 10,
    );
    write_repeated(&dir.join("repro/templates.cpp"), "b<", 600 << 10);
    paths.push("repro/crash.swift".into());
    paths.push("repro/templates.cpp".into());
    paths
}

/// Peak resident memory of a process, in KiB (`None` once it is gone).
fn vm_hwm(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The children of a process.
fn children(pid: u32) -> Vec<u32> {
    let Ok(text) = fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")) else {
        return Vec::new();
    };
    text.split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// The server and every process under it (the parse workers' supervisor and the workers).
fn family(pid: u32) -> Vec<u32> {
    let mut all = vec![pid];
    let mut i = 0;
    while i < all.len() {
        let more = children(all[i]);
        all.extend(more);
        i += 1;
    }
    all
}

/// Call `tool` and wait at most [`DEADLINE`] for its answer.
fn timed_call(server: &mut Server, tool: &str, arguments: Value) -> (Value, Duration) {
    let id = server.fresh_id();
    let started = Instant::now();
    server.send(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": tool, "arguments": arguments },
    }));
    loop {
        let left = DEADLINE.saturating_sub(started.elapsed());
        let msg = server.recv_within(left).unwrap_or_else(|| {
            panic!(
                "{tool} gave no answer within {DEADLINE:?}; stderr:\n{}",
                server.stderr()
            )
        });
        if msg.get("id") == Some(&id) {
            return (msg, started.elapsed());
        }
    }
}

#[test]
fn every_tool_answers_over_hostile_files_in_every_language_with_bounded_memory() {
    let _one = crate::heavy();
    let dir = tempfile::tempdir().unwrap();
    let paths = hostile_repo(dir.path());
    let mut server = Server::start(dir.path(), &[]);
    server.initialize("2025-06-18");
    let pid = server.pid();
    let mut calls: Vec<(&str, Value)> = vec![
        ("search", json!({ "repo": ".", "query": "func class a" })),
        ("symbol", json!({ "repo": ".", "name": "a" })),
        ("extract", json!({ "repo": ".", "compress": true })),
        (
            "extract",
            json!({ "repo": ".", "compress": true, "budget": 200000 }),
        ),
        ("extract", json!({ "repo": "." })),
        ("estimate", json!({ "repo": "." })),
        ("tree", json!({ "repo": "." })),
        ("grep", json!({ "repo": ".", "pattern": "func" })),
        (
            "read",
            json!({ "repo": ".", "paths": ["repro/crash.swift"] }),
        ),
    ];
    for chunk in paths.chunks(20) {
        calls.push(("outline", json!({ "repo": ".", "paths": chunk })));
    }
    let mut worst = Duration::ZERO;
    for (tool, args) in calls {
        let (resp, took) = timed_call(&mut server, tool, args.clone());
        assert!(resp.get("result").is_some(), "{tool} {args} failed: {resp}");
        assert_ne!(
            resp["result"]["isError"],
            json!(true),
            "{tool} {args}: {}",
            text_of(&resp)
        );
        eprintln!("{tool}: {took:?}");
        worst = worst.max(took);
        for p in family(pid) {
            if let Some(kb) = vm_hwm(p) {
                assert!(
                    kb < MAX_RSS_KB,
                    "process {p} (server {pid}) peaked at {kb} KiB after {tool}"
                );
            }
        }
    }
    eprintln!("slowest call: {worst:?}");
    // The reproductions are listed as not outlined, with the reason, and the server lives.
    let (resp, _) = timed_call(
        &mut server,
        "outline",
        json!({ "repo": ".", "paths": ["repro/crash.swift", "repro/templates.cpp"] }),
    );
    let text = text_of(&resp);
    assert!(text.contains("no outline"), "{text}");
    assert!(
        text.contains("memory bound")
            || text.contains("not parsed again")
            || text.contains("parse budget"),
        "{text}"
    );
    server.ping();
    let (status, _) = server.finish();
    assert!(status.success(), "{status:?}");
}

/// A server on a directory of Go files, each (name, first line) 60 KB long, that take the
/// parser its whole per-file time bound.
fn slow_go_server(files: impl Iterator<Item = (String, String)>) -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    for (name, head) in files {
        let mut text = head;
        while text.len() < 60_000 {
            text.push_str("} { ( ) [ ] func ");
        }
        fs::write(dir.path().join(name), text).unwrap();
    }
    let mut server = Server::start(dir.path(), &[]);
    server.initialize("2025-06-18");
    (dir, server)
}

#[test]
fn a_file_that_hit_a_bound_is_remembered_and_the_budget_is_per_call() {
    let _one = crate::heavy();
    // Twenty distinct Go files that each take the whole per-file time bound: one call parses
    // for at most its budget, then lists the rest as not parsed; the next call pays nothing
    // for the files that hit their own bound.
    let names = (0..20).map(|i| (format!("f{i:02}.go"), format!("// file {i}\n")));
    let (_dir, mut server) = slow_go_server(names);
    let (first, took) = timed_call(
        &mut server,
        "symbol",
        json!({ "repo": ".", "name": "func" }),
    );
    let text = text_of(&first);
    assert!(took < DEADLINE, "{took:?}");
    assert!(
        text.contains("not parsed"),
        "the answer says what was not parsed: {text}"
    );
    let (_, first_outline) = timed_call(
        &mut server,
        "outline",
        json!({ "repo": ".", "paths": ["f00.go"] }),
    );
    let (again, warm) = timed_call(
        &mut server,
        "outline",
        json!({ "repo": ".", "paths": ["f00.go"] }),
    );
    let text = text_of(&again);
    assert!(text.contains("not parsed again"), "{text}");
    assert!(
        warm < Duration::from_millis(500),
        "a remembered file costs nothing: {warm:?} (first {first_outline:?})"
    );
    server.ping();
}

#[test]
fn a_cancelled_parse_frees_the_caller_at_once() {
    let _one = crate::heavy();
    let (_dir, mut server) =
        slow_go_server((0..4).map(|i| (format!("slow{i}.go"), format!("// {i}\n"))));
    let id = server.fresh_id();
    server.send(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": "outline", "arguments": { "repo": ".", "paths": ["slow0.go", "slow1.go", "slow2.go", "slow3.go"] } },
    }));
    std::thread::sleep(Duration::from_millis(400));
    server.send(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": id, "reason": "test" },
    }));
    let started = Instant::now();
    let ping = server.fresh_id();
    server.send(&json!({ "jsonrpc": "2.0", "id": ping, "method": "ping" }));
    loop {
        let msg = server
            .recv_within(Duration::from_secs(5))
            .expect("an answer after the cancellation");
        if msg.get("id") == Some(&ping) {
            break;
        }
    }
    let took = started.elapsed();
    eprintln!("ping answered {took:?} after the cancellation");
    assert!(
        took < Duration::from_millis(500),
        "the cancelled parse held the server for {took:?}"
    );
}

#[test]
fn the_cli_survives_the_swift_reproduction_under_an_address_space_limit() {
    let dir = tempfile::tempdir().unwrap();
    write_repeated(
        &dir.path().join("crash.swift"),
        "} { -> ( ) [ ] ? : ",
        57 << 10,
    );
    // 6 GiB of address space, as a container might give: the parse used to abort the process.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 6291456 && exec {} outline {} crash.swift",
            env!("CARGO_BIN_EXE_gnaw"),
            dir.path().display()
        ))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("no outline"), "{stdout}");
    assert!(stdout.contains("memory bound"), "{stdout}");
}

/// A `/proc/PID/status` field.
fn status_field(pid: u32, field: &str) -> Option<String> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .map(|v| v.trim().to_string())
}

#[test]
fn parse_workers_are_confined_and_hold_nothing_of_the_server() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.rs"), "fn main() {}\n").unwrap();
    let mut server = Server::start(dir.path(), &[]);
    server.initialize("2025-06-18");
    let (resp, _) = timed_call(
        &mut server,
        "outline",
        json!({ "repo": ".", "paths": ["a.rs"] }),
    );
    assert!(text_of(&resp).contains("function"), "{resp}");
    let pid = server.pid();
    let supervisors = children(pid);
    assert_eq!(
        supervisors.len(),
        1,
        "one supervisor under the server: {supervisors:?}"
    );
    let supervisor = supervisors[0];
    let workers = children(supervisor);
    assert!(!workers.is_empty(), "workers under the supervisor");
    for p in std::iter::once(supervisor).chain(workers.iter().copied()) {
        assert_eq!(
            status_field(p, "NoNewPrivs:").as_deref(),
            Some("1"),
            "process {p}"
        );
        assert_eq!(
            status_field(p, "CapEff:").as_deref(),
            Some("0000000000000000"),
            "process {p} holds capabilities"
        );
        // Nothing of the server's: not stdin, stdout or stderr, not its files. (The supervisor
        // also holds a pidfd per worker, of its own children, to wait on.)
        for fd in fs::read_dir(format!("/proc/{p}/fd")).unwrap() {
            let target = fs::read_link(fd.unwrap().path()).unwrap();
            let target = target.to_string_lossy();
            assert!(
                target.starts_with("socket:")
                    || (p == supervisor && target == "anon_inode:[pidfd]"),
                "process {p} holds {target:?}"
            );
        }
    }
    for &w in &workers {
        // Seccomp mode 2: the worker's own allow-list (the supervisor has none: it must fork).
        assert_eq!(
            status_field(w, "Seccomp:").as_deref(),
            Some("2"),
            "worker {w}"
        );
        assert_eq!(
            fs::read_dir(format!("/proc/{w}/fd")).unwrap().count(),
            1,
            "a worker holds its own socket only"
        );
    }
    server.ping();
}
