//! Every default answer fits inline (issue 23 item 4), through the real server over a large
//! generated repository with history, a dirty working tree and dense non-ASCII text: every tool
//! called with nothing but `repo` (and its required arguments) answers within 50,000 characters,
//! text and structured copy together, and within 25,000 tokens for each part, in the legacy era
//! (text only) and the structured one; a cut answer ends with a plain continuation that works
//! when passed back; and larger answers come only when the call asks (`max_chars`, `budget`).

#![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

use crate::common;

use common::json;
use common::mcp_client;

use gnaw::stages::count::{Encoding, count};
use mcp_client::Server;
use serde_json::{Value, json};
use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

const WORDS: &[&str] = &[
    "parse", "expr", "token", "syntax", "node", "visitor", "lexer", "error", "config", "server",
    "client", "handler",
];

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// 1,600 files under long paths, 20 commits touching 40 files each, 134 files edited in the
/// working tree and 50 untracked, and one file of dense CJK text.
fn big_repo(repo: &Path) -> String {
    let mut paths = Vec::new();
    for i in 0..1600 {
        let w = |k: usize| WORDS[(i * 7 + k * 5) % WORDS.len()];
        let rel = format!(
            "packages/pkg-{}-{}/src/{}_{}/{}_{}_{i}.rs",
            i % 40,
            w(0),
            w(1),
            w(2),
            w(3),
            w(4)
        );
        let mut text = String::new();
        for j in 0..(20 + i % 300) {
            if j % 10 == 0 {
                text.push_str(&format!(
                    "/// Doc {} {}\npub fn {}_{}_{j}(x: u32) -> u32 {{\n",
                    w(j),
                    w(j + 1),
                    w(j + 2),
                    w(j + 3)
                ));
            } else {
                text.push_str(&format!(
                    "    let {} = {}.{}({}, {j}); // parse {} {}\n",
                    w(j),
                    w(j + 1),
                    w(j + 2),
                    w(j + 3),
                    w(j + 4),
                    w(j + 5)
                ));
            }
        }
        let p = repo.join(&rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
        paths.push(rel);
    }
    let dense: String = (0..40_000)
        .map(|i| char::from_u32(0x4E00 + (i * 7919) % 20_000).unwrap())
        .collect::<Vec<char>>()
        .chunks(80)
        .map(|c| c.iter().collect::<String>() + " parse\n")
        .collect();
    fs::write(repo.join("dense.txt"), dense).unwrap();
    git(repo, &["init", "-q"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "import"]);
    for c in 0..20 {
        for k in 0..40 {
            let i = (c * 53 + k * 37) % 1600;
            let p = repo.join(&paths[i]);
            let mut t = fs::read_to_string(&p).unwrap();
            t.push_str(&format!("// change {c} parse\n"));
            fs::write(&p, t).unwrap();
        }
        git(repo, &["commit", "-qam", &format!("change {c}")]);
    }
    for i in (0..1600).step_by(12) {
        let p = repo.join(&paths[i]);
        let mut t = fs::read_to_string(&p).unwrap();
        t.push_str("// working tree parse edit\n");
        fs::write(&p, t).unwrap();
    }
    for u in 0..50 {
        fs::write(
            repo.join(format!("untracked_{u}.rs")),
            "fn parse() {}\n".repeat(40),
        )
        .unwrap();
    }
    paths.swap_remove(0)
}

/// Each tool's call with nothing but `repo` and its required arguments.
fn default_calls(first: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("extract", json!({})),
        ("estimate", json!({})),
        ("tree", json!({})),
        ("grep", json!({"pattern": "parse"})),
        ("search", json!({"query": "parse expression"})),
        ("read", json!({"paths": ["dense.txt", first]})),
        ("outline", json!({"paths": [first]})),
        ("symbol", json!({"name": "parse"})),
        ("related", json!({"path": first})),
        ("changes", json!({})),
        ("log", json!({})),
    ]
}

fn call(s: &mut Server, tool: &str, args: &Value) -> Value {
    let mut args = args.clone();
    args["repo"] = json!("repo");
    let resp = s.call(tool, args);
    let result = resp["result"].clone();
    assert!(
        result.is_object() && result["isError"] != json!(true),
        "{tool}: {resp}"
    );
    result
}

/// The generated root (holding `repo`) and the first file's path, made once for both tests.
fn shared() -> &'static (tempfile::TempDir, String) {
    static ROOT: OnceLock<(tempfile::TempDir, String)> = OnceLock::new();
    ROOT.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        fs::create_dir_all(&repo).unwrap();
        let first = big_repo(&repo);
        (tmp, first)
    })
}

#[test]
fn every_default_answer_fits_inline_and_continues() {
    let (tmp, first) = shared();
    for era in ["2024-11-05", "2025-06-18"] {
        let mut s = Server::start(tmp.path(), &[]);
        s.initialize(era);
        // Every registered tool has its default call here: a new tool fails until it does.
        let listed = s.ok("tools/list", json!({}));
        let mut names = json::strings(&listed["tools"], "name");
        let mut ours: Vec<&str> = default_calls(first).iter().map(|(t, _)| *t).collect();
        names.sort_unstable();
        ours.sort_unstable();
        assert_eq!(names, ours, "every tool's default call is checked");
        let mut cut = Vec::new();
        for (tool, args) in default_calls(first) {
            let result = call(&mut s, tool, &args);
            let wire = result.to_string();
            let text = json::texts(&result);
            let copy = result
                .get("structuredContent")
                .map(Value::to_string)
                .unwrap_or_default();
            assert!(
                wire.chars().count() <= 50_000,
                "{era} {tool}: {} characters",
                wire.chars().count()
            );
            for (part, what) in [(&text, "text"), (&copy, "structured copy")] {
                let tokens = count(Encoding::O200kBase, part);
                assert!(tokens <= 25_000, "{era} {tool}: {what} of {tokens} tokens");
            }
            assert_eq!(
                era == "2025-06-18" && tool != "extract",
                !copy.is_empty(),
                "{era} {tool}: structured copy"
            );
            if let Some(next) = json::continuation(&text) {
                cut.push((tool, args, next));
            }
        }
        // The answers this repository is too big for were cut, each with a continuation that
        // answers when passed back as it is.
        let tools: Vec<&str> = cut.iter().map(|(t, _, _)| *t).collect();
        for must in ["tree", "grep", "changes", "log", "read"] {
            assert!(
                tools.contains(&must),
                "{era}: {must} was not cut: {tools:?}"
            );
        }
        for (tool, mut args, next) in cut {
            for (k, v) in next.as_object().unwrap() {
                args[k] = v.clone();
            }
            let again = call(&mut s, tool, &args);
            assert!(
                again.to_string().chars().count() <= 50_000,
                "{era} {tool} continued"
            );
        }
        s.finish();
    }
}

#[test]
fn larger_answers_only_when_the_call_asks() {
    let (tmp, _) = shared();
    let mut s = Server::start(tmp.path(), &[]);
    s.initialize("2024-11-05");
    let size = |s: &mut Server, tool: &str, args: Value| json::texts(&call(s, tool, &args)).len();
    let default_tree = size(&mut s, "tree", json!({}));
    let default_extract = size(&mut s, "extract", json!({}));
    assert!(default_tree <= 50_000 && default_extract <= 50_000);
    // max_chars raises the ceiling; a budget alone lifts it to the server's limit.
    let asked = size(
        &mut s,
        "tree",
        json!({"max_chars": 120_000, "budget": 60_000}),
    );
    assert!(asked > 60_000, "tree with max_chars 120,000: {asked}");
    let budget = size(&mut s, "extract", json!({"budget": 40_000}));
    assert!(
        budget > 60_000,
        "extract with a budget of 40,000 tokens: {budget}"
    );
    let more = size(&mut s, "extract", json!({"max_chars": 80_000}));
    assert!(
        more > 50_000 && more <= 80_000,
        "extract with max_chars 80,000: {more}"
    );
    // A smaller ceiling is honoured too, and says how to go on.
    let small = call(
        &mut s,
        "grep",
        &json!({"pattern": "parse", "max_chars": 5_000}),
    );
    let text = json::texts(&small);
    assert!(text.len() <= 5_000, "{}", text.len());
    assert!(json::continuation(&text).is_some(), "{text}");
    // The operator may change the default.
    s.finish();
    let mut s = Server::start(tmp.path(), &[("GNAW_MCP_DEFAULT_MAX_CHARS", "20000")]);
    s.initialize("2025-06-18");
    let r = call(&mut s, "grep", &json!({"pattern": "parse"}));
    assert!(r.to_string().chars().count() <= 20_000);
    s.finish();
}
