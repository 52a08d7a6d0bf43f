//! Resource bounds on what a repository or a caller controls (issue 12, items 1, 2 and 10),
//! through the built `gnaw` CLI and the spawned `gnaw-mcp`:
//!
//! - brace globs nested thousands deep, from every source (`.gnawconfig` `include`, `exclude`,
//!   `secrets.allow_paths`, a tool call's `include`/`exclude`, a committed `.gitignore` line)
//!   are refused with an error naming the limit, or for an ignore line skipped and reported;
//!   they used to abort the process ("has overflowed its stack");
//! - a tree 10,000 directories deep whose directories each hold a `.git` file (one ignore level
//!   each) is walked to the depth limit, which is reported; dropping the chain of levels used to
//!   abort the process;
//! - the walk stops where relative paths would pass `PATH_MAX`, and says so;
//! - 3,000 subdirectories under `ulimit -n` 256 are all found; under tighter limits the run either
//!   finds every file or fails with an error, never exits 0 with files missing.
//!
//! Every child runs under a watchdog (killed, and the test failed, past its deadline).

#![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

mod common;

use common::deep_repo::{create_at, deep_tree};
use common::mcp_client;
use common::process::{Run, run_within as run};

use mcp_client::Server;
use serde_json::{Value, json};
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// `gnaw REPO ARGS` under the watchdog.
fn cli(repo: &Path, args: &[&str], deadline: Duration) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gnaw"));
    cmd.arg(repo).args(args);
    run(cmd, deadline)
}

/// A status that is not a crash: the process exited by itself, with a code.
fn assert_no_crash(run: &Run, what: &str) {
    assert!(
        run.status.signal().is_none() && !run.stderr.contains("overflowed its stack"),
        "{what}: the process died ({:?}); stderr: {}",
        run.status,
        tail(&run.stderr)
    );
}

/// A response shown in a failure message, cut to a readable length.
fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(1500) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// The end of a long text, for failure messages.
fn tail(s: &str) -> &str {
    let start = s.len().saturating_sub(1500);
    let start = (start..s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0);
    &s[start..]
}

/// `{a,{a,{a,...}}}` nested `depth` deep: 4 bytes a level.
fn nested_braces(depth: usize) -> String {
    let mut s = String::with_capacity(depth * 4 + 1);
    for _ in 0..depth {
        s.push_str("{a,");
    }
    s.push('a');
    for _ in 0..depth {
        s.push('}');
    }
    s
}

/// The skipped entries of a `--json` summary, as (path, reason kind, detail).
fn skipped(summary: &Value) -> Vec<(String, String, String)> {
    let field = |s: &Value, k: &str| s[k].as_str().unwrap_or_default().to_string();
    let list = summary["skipped_list"].as_array().into_iter().flatten();
    list.map(|s| (field(s, "path"), field(s, "reason"), field(s, "detail")))
        .collect()
}

fn included(summary: &Value, path: &str) -> bool {
    summary["file_list"]
        .as_array()
        .is_some_and(|a| a.iter().any(|f| f["path"] == path))
}

fn repo_with(files: &[(&str, &str)]) -> (tempfile::TempDir, std::path::PathBuf) {
    let base = tempfile::tempdir().unwrap();
    let repo = base.path().join("repo");
    for (path, text) in files {
        let p = repo.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    fs::create_dir_all(&repo).unwrap();
    (base, repo)
}

const QUICK: Duration = Duration::from_secs(60);

/// About 64 KB of nesting: deep enough to overflow a 2 MiB thread stack in globset (a walker
/// thread, gnaw-mcp's worker).
const HOSTILE_DEPTH: usize = 16_000;

/// About 160 KB of nesting: deep enough to overflow the CLI's 8 MiB main-thread stack.
const HOSTILE_MAIN_DEPTH: usize = 40_000;

#[test]
fn nested_brace_globs_in_gnawconfig_are_refused_not_fatal() {
    let glob = nested_braces(HOSTILE_MAIN_DEPTH);
    for (key, config) in [
        ("include", format!("include = [\"{glob}\"]\n")),
        ("exclude", format!("exclude = [\"{glob}\"]\n")),
        (
            "secrets.allow_paths",
            format!("[secrets]\nallow_paths = [\"{glob}\"]\n"),
        ),
    ] {
        let (_base, repo) = repo_with(&[("a.txt", "hello\n"), (".gnawconfig", &config)]);
        let run = cli(&repo, &["--json", "-q"], QUICK);
        assert_no_crash(&run, key);
        assert_eq!(run.status.code(), Some(2), "{key}: {}", tail(&run.stderr));
        assert!(
            run.stderr.contains(key) && run.stderr.contains("nest"),
            "{key}: the error should name the source and the limit: {}",
            tail(&run.stderr)
        );
        println!("{key}: refused in {:?}", run.elapsed);
    }
    // Just inside every limit: accepted.
    let ok = nested_braces(10);
    let (_base, repo) = repo_with(&[
        ("a.txt", "hello\n"),
        (".gnawconfig", &format!("exclude = [\"{ok}\"]\n")),
    ]);
    let run = cli(&repo, &["--json", "-q"], QUICK);
    assert!(run.status.success(), "{}", tail(&run.stderr));
}

#[test]
fn a_nested_brace_gitignore_line_is_skipped_and_reported() {
    let bad = nested_braces(HOSTILE_DEPTH);
    let gitignore = format!("*.log\n{bad}\nbuild/\n");
    let (_base, repo) = repo_with(&[
        ("a.txt", "hello\n"),
        ("debug.log", "ignored\n"),
        ("build/out.txt", "ignored\n"),
        (".gitignore", &gitignore),
        ("sub/.ignore", &format!("{bad}\n")),
        ("sub/b.txt", "kept\n"),
    ]);
    let run = cli(&repo, &["--json", "-q"], QUICK);
    assert_no_crash(&run, ".gitignore");
    assert!(run.status.success(), "{}", tail(&run.stderr));
    let s: Value = serde_json::from_str(&run.stdout).unwrap();
    // The other lines still hold.
    assert!(included(&s, "a.txt") && included(&s, "sub/b.txt"), "{s}");
    assert!(!included(&s, "debug.log") && !included(&s, "build/out.txt"));
    let skipped = skipped(&s);
    for file in [".gitignore", "sub/.ignore"] {
        let entry = skipped.iter().find(|(p, _, _)| p == file);
        let Some((_, _, detail)) = entry else {
            panic!("{file}: the bad line is not reported: {skipped:?}");
        };
        assert!(
            detail.contains("line") && detail.contains("nest"),
            "{file}: {detail}"
        );
    }
    // Through the server, on every call: the repo cannot take it down.
    let mut server = Server::start(repo.parent().unwrap(), &[]);
    server.initialize("2025-11-25");
    for _ in 0..2 {
        let resp = server.call("estimate", json!({ "repo": "repo", "budget": 0 }));
        let est = &resp["result"]["structuredContent"];
        assert_eq!(est["files"], 2, "{resp}");
        assert_eq!(est["skipped"]["unreadable"], 2, "{resp}");
    }
    let (status, stderr) = server.finish();
    assert!(status.success(), "{stderr}");
}

#[test]
fn nested_brace_globs_in_a_tool_call_are_refused_and_the_server_lives_on() {
    let (_base, repo) = repo_with(&[("a.txt", "hello\n")]);
    let glob = nested_braces(HOSTILE_DEPTH);
    let mut server = Server::start(repo.parent().unwrap(), &[]);
    server.initialize("2025-11-25");
    for key in ["include", "exclude"] {
        let resp = server.call("extract", json!({ "repo": "repo", key: [glob] }));
        let text = resp["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(resp["result"]["isError"], true, "{key}: {}", short(&resp));
        assert!(
            text.contains(key) && text.contains("nest") && text.len() < 1000,
            "{key}: the error should name the source and the limit, briefly: {}",
            short(&resp)
        );
        server.ping();
    }
    let resp = server.call("estimate", json!({ "repo": "repo", "budget": 0 }));
    assert_eq!(resp["result"]["structuredContent"]["files"], 1, "{resp}");
    let (status, stderr) = server.finish();
    assert!(status.success(), "{}", tail(&stderr));
}

#[test]
fn a_deep_tree_of_nested_repositories_stops_at_the_depth_limit_and_says_so() {
    let (base, repo) = repo_with(&[("top.txt", "top\n")]);
    let built = Instant::now();
    drop(deep_tree(&repo, 10_000, "d", true));
    fs::write(repo.join("d/d/d/shallow.txt"), "shallow\n").unwrap();
    println!(
        "10,000-deep tree of .git files built in {:?}",
        built.elapsed()
    );
    let run = cli(&repo, &["--json", "-q"], Duration::from_secs(120));
    assert_no_crash(&run, "deep .git tree");
    assert!(run.status.success(), "{}", tail(&run.stderr));
    println!("10,000-deep tree of .git files: CLI {:?}", run.elapsed);
    let s: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(included(&s, "top.txt") && included(&s, "d/d/d/shallow.txt"));
    let skipped = skipped(&s);
    let deep = skipped
        .iter()
        .find(|(_, _, detail)| detail.contains("max_depth"))
        .unwrap_or_else(|| panic!("the depth limit is not reported: {skipped:?}"));
    // The default limit: 256 directories below the repo.
    assert_eq!(deep.0.matches('/').count() + 1, 257, "{deep:?}");
    assert!(deep.2.contains("256"), "{deep:?}");

    // The server, under its Landlock sandbox, with the operator's own limit.
    let start = Instant::now();
    let mut server = Server::start(repo.parent().unwrap(), &[("GNAW_MCP_MAX_DEPTH", "40")]);
    server.initialize("2025-11-25");
    let resp = server.call("estimate", json!({ "repo": "repo", "budget": 0 }));
    let est = &resp["result"]["structuredContent"];
    assert_eq!(est["files"], 2, "{resp}");
    assert_eq!(est["skipped"]["unreadable"], 1, "{resp}");
    println!("10,000-deep tree of .git files: MCP {:?}", start.elapsed());
    drop(server);
    let (status, _, stderr) = mcp_client::run(
        repo.parent().unwrap(),
        &[],
        &[("GNAW_MCP_MAX_DEPTH", "deep")],
    );
    assert!(!status.success());
    assert!(stderr.contains("GNAW_MCP_MAX_DEPTH"), "{stderr}");
    base.close().expect("remove the deep tree");
}

#[test]
fn the_walk_stops_where_paths_would_pass_path_max() {
    let (base, repo) = repo_with(&[("top.txt", "top\n")]);
    // 60 levels of 100-byte names: 6,060 bytes of relative path, past PATH_MAX at level 41.
    let name = "n".repeat(100);
    let bottom = deep_tree(&repo, 60, &name, false);
    create_at(&bottom, "bottom.txt");
    drop(bottom);
    let run = cli(&repo, &["--json", "-q"], QUICK);
    assert!(run.status.success(), "{}", tail(&run.stderr));
    let s: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(included(&s, "top.txt"));
    let skipped = skipped(&s);
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    let (path, kind, detail) = &skipped[0];
    assert_eq!(kind, "unreadable");
    assert!(detail.contains("4096"), "{detail}");
    // The first directory whose entries' paths would not fit (its parent's still do).
    assert!(
        path.len() + 2 >= 4096 && path.len() - 101 + 2 < 4096,
        "{}",
        path.len()
    );
    base.close().unwrap();
}

/// `gnaw REPO --json -q` under `ulimit -n LIMIT`.
fn cli_with_fd_limit(repo: &Path, limit: u32) -> Run {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -n {limit} && exec \"$0\" \"$1\" --json -q"))
        .arg(env!("CARGO_BIN_EXE_gnaw"))
        .arg(repo);
    run(cmd, Duration::from_secs(120))
}

#[test]
fn a_deep_comb_keeps_the_walks_open_fds_bounded() {
    // Each level holds 20 leaf directories and the next level. Walked depth first, the leaves
    // listed before the next level wait while everything below it is walked: about 10 a level,
    // 300 in all. Before, each waiting directory held its own fd.
    let (depth, leaves) = (30, 20);
    let (base, repo) = repo_with(&[]);
    let mut dir = repo.clone();
    for i in 0..depth {
        for j in 0..leaves {
            let leaf = dir.join(format!("leaf{j:02}"));
            fs::create_dir_all(&leaf).unwrap();
            fs::write(leaf.join("f.txt"), format!("{i} {j}\n")).unwrap();
        }
        dir = dir.join("next");
    }
    fs::create_dir_all(&dir).unwrap();
    let r = cli_with_fd_limit(&repo, 100);
    assert!(r.status.success(), "ulimit -n 100: {}", tail(&r.stderr));
    let s: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        s["files"],
        depth * leaves,
        "ulimit -n 100: files missing; skipped: {}",
        tail(&s["skipped"].to_string())
    );
    base.close().unwrap();
}

#[test]
fn running_out_of_file_descriptors_is_never_silent() {
    let n = 3000;
    let (base, repo) = repo_with(&[]);
    for i in 0..n {
        let dir = repo.join(format!("d{i:04}"));
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("f.txt"), format!("{i}\n")).unwrap();
    }
    // Roomy enough for the walk: every file is found.
    let r = cli_with_fd_limit(&repo, 256);
    assert!(r.status.success(), "ulimit -n 256: {}", tail(&r.stderr));
    let s: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        s["files"],
        n,
        "ulimit -n 256: files missing; skipped: {}",
        tail(&s["skipped"].to_string())
    );
    println!("3,000 directories under ulimit -n 256: {:?}", r.elapsed);
    // Tighter and tighter: every file, or an error exit that says why. Never a quiet loss.
    for limit in [64, 32, 16, 12, 10, 8] {
        let r = cli_with_fd_limit(&repo, limit);
        assert_no_crash(&r, &format!("ulimit -n {limit}"));
        if r.status.success() {
            let s: Value = serde_json::from_str(&r.stdout).unwrap();
            assert_eq!(
                s["files"],
                n,
                "ulimit -n {limit}: exit 0 with files missing; skipped: {}",
                tail(&s["skipped"].to_string())
            );
            println!("ulimit -n {limit}: all {n} files");
        } else {
            assert!(
                r.stderr.contains("open files") || r.stderr.contains("file descriptors"),
                "ulimit -n {limit}: failed without saying why: {}",
                tail(&r.stderr)
            );
            println!(
                "ulimit -n {limit}: error exit: {}",
                r.stderr.lines().last().unwrap_or_default()
            );
        }
    }
    base.close().unwrap();
}
