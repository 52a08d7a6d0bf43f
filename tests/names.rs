//! Names are rendered in one place (issue 21, items 5 to 11), proven through the real, spawned
//! gnaw-mcp over real repositories built with the git CLI:
//!
//! - every registered tool (the list comes from `tools/list`, so a new tool fails this test until
//!   it is called here) over a repository whose file names, directory names and git data (author
//!   and committer names and e-mails, a ref name, a message, a path in the history) carry tokens,
//!   and whose names carry invisible characters (U+200B, U+2800, U+202E) and control bytes
//!   (`\x01`, `\n`): no answer, text or structured, holds any of them raw; and the shown names
//!   (a redacted directory, a redacted file) resolve when passed back, as `path`, `paths` and
//!   continuation arguments;
//! - globs see only what the model sees: a right and a wrong guess at a redacted name's first
//!   characters give the same answers;
//! - sizes are those of the text served: a longer secret shows as the same `bytes`, and a rotated
//!   secret changes no line count in `log`;
//! - `log` shows an author's name and e-mail redacted;
//! - `extract` of the changed files skips a changed link that leaves the root, and lists it.
//!
//! Fake tokens are built at test time from split prefixes.

#![allow(clippy::disallowed_methods)] // fixtures use std::fs and run git directly

mod common;

use common::cli::{gnaw_on, ok_stdout};
use common::fixture::Tree;
use common::git::{git, git_as};
use common::mcp_client;
use common::xorshift::base62;

use mcp_client::Server;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

const CANARY: &str = "NAMES-CANARY-OUTSIDE-5521";

/// A GitHub token the scanner redacts: `ghp_` and 36 base62 characters.
fn ghp(seed: u64) -> String {
    format!("{}{}", "gh", "p_") + &base62(seed, 36)
}

fn structured_and_text(resp: &Value) -> &Value {
    &resp["result"]
}

/// Every string in `v` (keys too).
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => {
            for (k, x) in o {
                out.push(k.clone());
                strings(x, out);
            }
        }
        _ => {}
    }
}

/// Panics when an answer holds one of `raw`.
fn none_raw(what: &str, resp: &Value, raw: &[String]) {
    let mut all = Vec::new();
    strings(structured_and_text(resp), &mut all);
    strings(&resp["error"], &mut all);
    for s in &all {
        for r in raw {
            assert!(
                !s.contains(r.as_str()),
                "{what}: the answer holds {r:?} raw:\n{}",
                s.chars().take(3000).collect::<String>()
            );
        }
    }
}

fn ok<'a>(what: &str, resp: &'a Value) -> &'a Value {
    assert!(
        resp.get("error").is_none() && resp["result"]["isError"] != json!(true),
        "{what}: {resp}"
    );
    &resp["result"]
}

fn text(resp: &Value) -> String {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {resp}"))
        .to_string()
}

/// base/root/repo, a git repository whose names and history carry secrets and invisible
/// characters; base/outside holds a canary. Returns the tokens and raw fragments no answer may
/// hold.
fn hostile_repo() -> (tempfile::TempDir, PathBuf, Vec<String>) {
    let base = tempfile::tempdir().unwrap();
    let b = base.path().canonicalize().unwrap();
    let root = b.join("root");
    let repo = root.join("repo");
    fs::create_dir_all(repo.join("src")).unwrap();
    fs::create_dir_all(b.join("outside")).unwrap();
    fs::write(b.join("outside/secret.txt"), format!("{CANARY}\n")).unwrap();
    let (t_file, t_dir, t_author, t_email, t_committer, t_ref, t_hist, t_untracked, t_msg) = (
        ghp(1),
        ghp(2),
        ghp(3),
        ghp(4),
        ghp(5),
        ghp(6),
        ghp(7),
        ghp(8),
        ghp(9),
    );
    let body = |name: &str| {
        format!(
            "pub fn needle_{name}() -> u32 {{\n    let needle = 1;\n    needle + 1\n}}\n\n\
             pub fn other_{name}() -> u32 {{\n    2\n}}\n"
        )
    };
    fs::write(repo.join(format!("src/key_{t_file}.rs")), body("key")).unwrap();
    fs::create_dir_all(repo.join(format!("d_{t_dir}"))).unwrap();
    fs::write(repo.join(format!("d_{t_dir}/inner.rs")), body("inner")).unwrap();
    fs::write(repo.join(format!("old_{t_hist}.txt")), "needle old\n").unwrap();
    let odd = [
        "zw\u{200B}x.rs",
        "br\u{2800}x.rs",
        "rlo\u{202E}x.rs",
        "ctl\u{1}x.rs",
        "nl\nx.rs",
    ];
    for (i, name) in odd.iter().enumerate() {
        fs::write(repo.join("src").join(name), body(&format!("odd{i}"))).unwrap();
    }
    fs::write(repo.join("README.md"), "# needle\n").unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    let author_name = format!("Eve {t_author}");
    let author_email = format!("{t_email}@example.com");
    let committer = format!("Mallory {t_committer}");
    git_as(
        &repo,
        (&author_name, &author_email, &committer, "m@example.com"),
        0,
        &["commit", "-q", "-m", &format!("add needle files {t_msg}")],
    );
    git(&repo, &["branch", &format!("feat/{t_ref}")]);
    git(&repo, &["rm", "-q", &format!("old_{t_hist}.txt")]);
    fs::write(
        repo.join(format!("d_{t_dir}/inner.rs")),
        body("inner") + "// needle changed\n",
    )
    .unwrap();
    git(&repo, &["commit", "-q", "-am", "second"]);
    // The working tree moves on: a tracked file changed, an untracked one added.
    fs::write(
        repo.join(format!("src/key_{t_file}.rs")),
        body("key") + "// needle, in the working tree\n",
    )
    .unwrap();
    fs::write(repo.join(format!("new_{t_untracked}.rs")), body("new")).unwrap();
    let mut raw = vec![
        t_file,
        t_dir,
        t_author,
        t_email,
        t_committer,
        t_ref,
        t_hist,
        t_untracked,
        t_msg,
        CANARY.to_string(),
    ];
    raw.extend(
        ["\u{200B}", "\u{2800}", "\u{202E}", "\u{1}", "nl\nx"]
            .iter()
            .map(|s| s.to_string()),
    );
    (base, root, raw)
}

#[test]
fn no_tool_shows_a_raw_name_and_every_shown_name_resolves() {
    let (_base, root, raw) = hostile_repo();
    let mut s = Server::start(&root, &[]);
    s.initialize("2025-11-25");
    let listed = s.request("tools/list", json!({}));
    let tools: BTreeSet<String> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    let mut called: BTreeSet<String> = BTreeSet::new();
    let mut call = |s: &mut Server, tool: &str, args: Value| -> Value {
        called.insert(tool.to_string());
        let resp = s.call(tool, args.clone());
        none_raw(&format!("{tool} {args}"), &resp, &raw);
        ok(&format!("{tool} {args}"), &resp);
        resp
    };

    for args in [
        json!({"repo": "repo"}),
        json!({"repo": "repo", "compress": true}),
        json!({"repo": "repo", "changed": "HEAD~1"}),
    ] {
        let resp = call(&mut s, "extract", args);
        assert!(text(&resp).contains("[REDACTED:github-token]"));
    }
    call(&mut s, "estimate", json!({"repo": "repo"}));
    call(
        &mut s,
        "estimate",
        json!({"repo": "repo", "changed": "HEAD"}),
    );

    // tree: the redacted directory is listed, and its shown name lists it again.
    let resp = call(&mut s, "tree", json!({"repo": "repo"}));
    let entries = resp["result"]["structuredContent"]["entries"]
        .as_array()
        .unwrap()
        .clone();
    let path_of = |prefix: &str| -> String {
        entries
            .iter()
            .map(|e| e["path"].as_str().unwrap().to_string())
            .find(|p| p.starts_with(prefix))
            .unwrap_or_else(|| panic!("no entry {prefix}: {entries:?}"))
    };
    let dir = path_of("d_");
    assert_eq!(dir, "d_[REDACTED:github-token]");
    let key = path_of("src/key_");
    assert_eq!(key, "src/key_[REDACTED:github-token].rs");
    for odd in [
        "src/zw\\u{200b}x.rs",
        "src/br\\u{2800}x.rs",
        "src/rlo\\u{202e}x.rs",
    ] {
        path_of(odd);
    }
    let resp = call(&mut s, "tree", json!({"repo": "repo", "path": dir}));
    let inner = resp["result"]["structuredContent"]["entries"][0]["path"].clone();
    assert_eq!(inner, json!("d_[REDACTED:github-token]/inner.rs"), "{resp}");

    // grep: every match once, following the shown `after` continuations.
    let first = call(
        &mut s,
        "grep",
        json!({"repo": "repo", "pattern": "needle", "max_matches": 2}),
    );
    let total = first["result"]["structuredContent"]["total_matches"]
        .as_u64()
        .unwrap();
    let mut seen = 0;
    let mut resp = first;
    let mut redacted_after = false;
    for _ in 0..100 {
        let sc = &resp["result"]["structuredContent"];
        seen += sc["matches"].as_array().unwrap().len() as u64;
        if sc["complete"] == json!(true) {
            break;
        }
        let after = sc["after"].as_str().unwrap().to_string();
        redacted_after |= after.contains("[REDACTED:");
        resp = call(
            &mut s,
            "grep",
            json!({"repo": "repo", "pattern": "needle", "max_matches": 2, "after": after}),
        );
    }
    assert_eq!(seen, total, "continuations list every match once");
    assert!(redacted_after, "a continuation named a redacted file");

    let resp = call(&mut s, "search", json!({"repo": "repo", "query": "needle"}));
    // search's regions are read arguments: read them back.
    let mut regions: Vec<String> = Vec::new();
    for f in resp["result"]["structuredContent"]["files"]
        .as_array()
        .unwrap()
    {
        let path = f["path"].as_str().unwrap();
        for r in f["regions"].as_array().unwrap() {
            regions.push(format!("{path}:{}-{}", r["start"], r["end"]));
        }
    }
    assert!(
        regions.iter().any(|r| r.contains("[REDACTED:")),
        "search ranks the redacted files: {regions:?}"
    );
    let resp = call(&mut s, "read", json!({"repo": "repo", "paths": regions}));
    for f in resp["result"]["structuredContent"]["files"]
        .as_array()
        .unwrap()
    {
        assert_ne!(f["status"], "not_shown", "{resp}");
    }

    // read: the shown name resolves, and a cut read continues by it.
    let resp = call(&mut s, "read", json!({"repo": "repo", "paths": [key]}));
    assert_eq!(
        resp["result"]["structuredContent"]["files"][0]["status"], "shown",
        "{resp}"
    );
    let resp = call(
        &mut s,
        "read",
        json!({"repo": "repo", "paths": [format!("{dir}/inner.rs:1-3")]}),
    );
    assert_eq!(
        resp["result"]["structuredContent"]["files"][0]["end"], 3,
        "{resp}"
    );

    call(&mut s, "changes", json!({"repo": "repo"}));
    call(&mut s, "changes", json!({"repo": "repo", "base": "HEAD~1"}));
    let resp = call(&mut s, "log", json!({"repo": "repo", "patch": true}));
    let log = text(&resp);
    assert!(
        log.contains("Author: Eve [REDACTED:github-token] <[REDACTED:github-token]@example.com>"),
        "{log}"
    );
    assert!(log.contains("old_[REDACTED:github-token].txt"), "{log}");
    call(&mut s, "log", json!({"repo": "repo", "path": dir}));

    call(
        &mut s,
        "outline",
        json!({"repo": "repo", "paths": ["src", dir, key]}),
    );
    for name in ["needle_key", "needle_inner", "needle_odd1", "other_odd4"] {
        let resp = call(&mut s, "symbol", json!({"repo": "repo", "name": name}));
        assert!(text(&resp).contains("pub fn"), "{name}: {resp}");
    }

    // related: the shown (redacted) name resolves, and what it lists are shown names.
    call(&mut s, "related", json!({"repo": "repo", "path": key}));
    call(
        &mut s,
        "related",
        json!({"repo": "repo", "path": format!("{dir}/inner.rs")}),
    );

    let missed: Vec<&String> = tools.difference(&called).collect();
    assert!(
        missed.is_empty(),
        "tools not walked (add them here): {missed:?}"
    );
}

#[test]
fn globs_see_the_shown_name_so_guesses_at_a_secret_give_the_same_answer() {
    let tree = Tree::new("repo");
    let (root, repo) = (tree.base.clone(), tree.repo.clone());
    let token = ghp(11);
    let secret = &token[4..];
    fs::write(
        repo.join(format!("key_{token}.py")),
        "def needle():\n    return 1\n",
    )
    .unwrap();
    fs::write(repo.join("plain.py"), "def other():\n    return 2\n").unwrap();
    let right = format!("key_ghp_{}*", &secret[..2]);
    let wrong_first = if secret.starts_with('Z') { 'Y' } else { 'Z' };
    let wrong = format!("key_ghp_{wrong_first}*");
    let mut s = Server::start(&root, &[]);
    s.initialize("2025-11-25");
    let calls = |glob: &str, key: &str| {
        vec![
            ("extract", json!({"repo": "repo", key: [glob]})),
            ("estimate", json!({"repo": "repo", key: [glob]})),
            ("tree", json!({"repo": "repo", key: [glob]})),
            (
                "grep",
                json!({"repo": "repo", "pattern": "def", key: [glob]}),
            ),
            (
                "search",
                json!({"repo": "repo", "query": "needle", key: [glob]}),
            ),
            (
                "symbol",
                json!({"repo": "repo", "name": "needle", key: [glob]}),
            ),
        ]
    };
    for key in ["include", "exclude"] {
        let (a, b) = (calls(&right, key), calls(&wrong, key));
        for ((tool, x), (_, y)) in a.into_iter().zip(b) {
            let rx = s.call(tool, x.clone());
            let ry = s.call(tool, y.clone());
            let tx = rx["result"].to_string().replace(&right, "GLOB");
            let ty = ry["result"].to_string().replace(&wrong, "GLOB");
            assert_eq!(tx, ty, "{tool} {key}: a right guess is told apart");
            assert!(!tx.contains(secret), "{tool}: {tx}");
        }
    }
    // What the model sees still selects: the visible part of the name, and the shown name.
    let resp = s.call("tree", json!({"repo": "repo", "include": ["key_*"]}));
    let entries = &resp["result"]["structuredContent"]["entries"];
    assert_eq!(entries.as_array().unwrap().len(), 1, "{resp}");
    assert_eq!(entries[0]["path"], "key_[REDACTED:github-token].py");
    let resp = s.call(
        "tree",
        json!({"repo": "repo", "exclude": ["key_\\[REDACTED:github-token\\].py"]}),
    );
    let entries = &resp["result"]["structuredContent"]["entries"];
    assert_eq!(entries.as_array().unwrap().len(), 1, "{resp}");
    assert_eq!(entries[0]["path"], "plain.py");
}

/// A GitLab token of `n` characters after its prefix (20 or more).
fn glpat(seed: u64, n: usize) -> String {
    format!("{}{}", "glp", "at-") + &base62(seed, n)
}

#[test]
fn sizes_are_those_of_the_text_served() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().canonicalize().unwrap();
    // Two repositories, alike but for the length of one secret.
    for (name, n) in [("short", 20), ("long", 60)] {
        let repo = root.join(name);
        fs::create_dir_all(&repo).unwrap();
        fs::write(repo.join("k.txt"), format!("token = {}\n", glpat(21, n))).unwrap();
        git(&repo, &["init", "-q"]);
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "first"]);
        // The secret is rotated: the line changes, but not as served.
        fs::write(
            repo.join("k.txt"),
            format!("token = {}\n", glpat(22, n + 7)),
        )
        .unwrap();
        git(&repo, &["commit", "-q", "-am", "rotate"]);
    }
    let mut s = Server::start(&root, &[]);
    s.initialize("2025-11-25");
    let mut sizes = Vec::new();
    for name in ["short", "long"] {
        let resp = s.call("tree", json!({"repo": name}));
        let e = &resp["result"]["structuredContent"]["entries"][0];
        assert_eq!(e["path"], "k.txt", "{resp}");
        let served = "token = [REDACTED:gitlab-token]\n".len();
        assert_eq!(
            e["bytes"],
            json!(served),
            "tree bytes are the served text's: {resp}"
        );
        sizes.push((e["bytes"].clone(), e["tokens"].clone(), e["lines"].clone()));
        let resp = s.call("estimate", json!({"repo": name}));
        assert_eq!(
            resp["result"]["structuredContent"]["bytes"],
            json!(served),
            "{resp}"
        );
        let resp = s.call("log", json!({"repo": name}));
        let log = text(&resp);
        assert!(
            log.contains("0\t0\tk.txt"),
            "a rotated secret changes no served line: {log}"
        );
    }
    assert_eq!(sizes[0], sizes[1], "sizes tell the secrets' lengths apart");
}

#[test]
fn log_shows_the_author_and_committer_strings_redacted_and_escaped() {
    let tree = Tree::new("repo");
    let (root, repo) = (tree.base.clone(), tree.repo.clone());
    fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    let (name, email) = (ghp(31), ghp(32));
    let author = format!("Eve\u{202E} {name}");
    let mail = format!("{email}@x.org");
    git_as(
        &repo,
        (&author, &mail, &author, &mail),
        0,
        &["commit", "-q", "-m", "hello"],
    );
    git(&repo, &["branch", &format!("topic-{}", ghp(33))]);
    let mut s = Server::start(&root, &[]);
    s.initialize("2025-11-25");
    let resp = s.call("log", json!({"repo": "repo"}));
    let raw = [name, email, ghp(33), "\u{202E}".to_string()];
    none_raw("log", &resp, &raw);
    let want = "Eve\\u{202e} [REDACTED:github-token] <[REDACTED:github-token]@x.org>";
    assert!(text(&resp).contains(&format!("Author: {want}")), "{resp}");
    assert_eq!(
        resp["result"]["structuredContent"]["commits"][0]["author"],
        want
    );
}

#[test]
fn extract_of_changed_files_skips_a_changed_link_that_leaves_the_root() {
    let base = tempfile::tempdir().unwrap();
    let b = base.path().canonicalize().unwrap();
    let root = b.join("root");
    let repo = root.join("repo");
    fs::create_dir_all(&repo).unwrap();
    fs::create_dir_all(b.join("outside")).unwrap();
    fs::write(b.join("outside/secret.txt"), format!("{CANARY}\n")).unwrap();
    fs::write(repo.join("a.rs"), "fn a() {}\n").unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    fs::write(repo.join("a.rs"), "fn a() { changed() }\n").unwrap();
    symlink(b.join("outside/secret.txt"), repo.join("evil_link")).unwrap();
    // A tracked link that changed, too.
    symlink("a.rs", repo.join("tracked_link")).unwrap();
    git(&repo, &["add", "tracked_link"]);
    git(&repo, &["commit", "-q", "-m", "two"]);
    fs::remove_file(repo.join("tracked_link")).unwrap();
    symlink("../../outside/secret.txt", repo.join("tracked_link")).unwrap();

    let mut s = Server::start(&root, &[]);
    s.initialize("2025-11-25");
    for tool in ["extract", "estimate"] {
        let resp = s.call(tool, json!({"repo": "repo", "changed": "HEAD~1"}));
        assert!(!resp.to_string().contains(CANARY), "{resp}");
        ok(tool, &resp);
        if tool == "extract" {
            let t = text(&resp);
            assert!(
                t.contains("changed()"),
                "the changed file is extracted: {t}"
            );
        } else {
            let skipped = &resp["result"]["structuredContent"]["skipped"];
            assert_eq!(skipped["symlink"], 2, "{resp}");
        }
    }
    // The CLI too.
    let stdout = ok_stdout(gnaw_on(&repo, &["--changed", "HEAD~1", "-q"]));
    assert!(
        stdout.contains("changed()") && !stdout.contains(CANARY),
        "{stdout}"
    );
}
