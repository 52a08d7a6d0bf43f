//! The navigation tools through the real, spawned gnaw-mcp: every path argument's refusals with
//! their kinds (and nothing read when any path of a call is refused), the secret oracle closed
//! (grep and search),
//! hostile files (FIFO, a link to /dev/zero, a 100 GB sparse file, a 4 MB line, a file swapped
//! for a link while calls run) reported without a hang or a leak, the warm cache serving a second
//! grep, progress, output schemas of one type per property, and the CLI printing the same text.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;
use common::inotify::{opened_files, watch};

use common::fixture::Tree;
use common::{mcp_client, xorshift};

use mcp_client::Server;
use nix::sys::inotify::AddWatchFlags;
use serde_json::{Value, json};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use xorshift::Rng;

const CANARY: &str = "NAV-CANARY-OUTSIDE-4471";

/// base/root/repo is the repo; base/outside holds the canary.
fn layout() -> (Tree, PathBuf) {
    let t = crate::outside_layout("secret.txt", &format!("{CANARY}\n"), "");
    t.write("src/net/http.rs", "fn retry() {}\nfn retry_later() {}\n")
        .write("README.md", "# repo\n\nretry docs\n")
        .link("link_in.rs", "src/lib.rs");
    let b = t.base.clone();
    (t, b)
}

fn text(resp: &Value) -> String {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {resp}"))
        .to_string()
}

fn no_canary(what: &str, s: &str) {
    assert!(!s.contains(CANARY), "{what}: canary leaked: {s:.300}");
}

/// Each path argument of each tool with a hostile value: the kind it must be refused with.
fn path_cases() -> Vec<(Value, &'static str)> {
    vec![
        (json!(".."), "OutsideRoot"),
        (json!("../.."), "OutsideRoot"),
        (json!("../../outside/secret.txt"), "OutsideRoot"),
        (json!("src/../../../outside"), "OutsideRoot"),
        (json!("/etc/passwd"), "OutsideRoot"),
        (json!("/etc"), "OutsideRoot"),
        (json!("link_out"), "OutsideRoot"),
        (json!("link_out/secret.txt"), "OutsideRoot"),
        (json!("file_link_out"), "OutsideRoot"),
        (json!("rel_link_out"), "OutsideRoot"),
        (json!("\\x2e\\x2e/\\x2e\\x2e/outside"), "OutsideRoot"),
        (json!("missing.rs"), "NotFound"),
        (json!("src/missing/deeper"), "NotFound"),
        (json!(""), "InvalidPath"),
        (json!("src/lib.rs\u{0}"), "InvalidPath"),
        (json!("src\\x00lib.rs"), "InvalidPath"),
        (json!("a".repeat(300)), "InvalidPath"),
        // Not a string at all: a wrongly typed argument, as for every argument but repo.
        (json!(42), "InvalidArguments"),
        (json!(["src"]), "InvalidArguments"),
        (json!("src/lib.rs/"), "NotADirectory"),
    ]
}

#[test]
fn every_path_argument_is_proven_and_refused_with_its_kind() {
    let (_base, b) = layout();
    let mut s = Server::start(&b.join("root"), &[]);
    s.initialize("2025-11-25");
    for (value, kind) in path_cases() {
        // after is "path:line": a string case gets a line appended.
        let after = match &value {
            Value::String(p) => json!(format!("{p}:1")),
            other => other.clone(),
        };
        let calls = [
            ("read", json!({"repo": "repo", "paths": [value.clone()]})),
            (
                "read",
                json!({"repo": "repo", "paths": ["src/lib.rs", value.clone()]}),
            ),
            (
                "grep",
                json!({"repo": "repo", "pattern": "x", "after": after}),
            ),
            ("tree", json!({"repo": "repo", "path": value.clone()})),
        ];
        for (tool, args) in calls {
            let resp = s.call(tool, args.clone());
            no_canary(tool, &resp.to_string());
            let err = &resp["error"];
            assert_eq!(err["code"], -32602, "{tool} {args}: {resp}");
            assert_eq!(err["data"]["kind"], kind, "{tool} {args}: {resp}");
        }
    }
    // Kinds of their own: after names a directory; tree's path names a file.
    let resp = s.call(
        "grep",
        json!({"repo": "repo", "pattern": "x", "after": "src:1"}),
    );
    assert_eq!(resp["error"]["data"]["kind"], "NotAFile", "{resp}");
    let resp = s.call("tree", json!({"repo": "repo", "path": "src/lib.rs"}));
    assert_eq!(resp["error"]["data"]["kind"], "NotADirectory", "{resp}");
    let resp = s.call(
        "grep",
        json!({"repo": "repo", "pattern": "x", "after": ":4"}),
    );
    assert_eq!(resp["error"]["data"]["kind"], "InvalidPath", "{resp}");
    for bad in ["src/lib.rs", "src/lib.rs:x", "src/lib.rs:-1"] {
        let resp = s.call(
            "grep",
            json!({"repo": "repo", "pattern": "x", "after": bad}),
        );
        assert_eq!(
            resp["error"]["data"]["kind"], "InvalidArguments",
            "{bad}: {resp}"
        );
    }
    for bad in ["src/lib.rs:0-2", "src/lib.rs:5-2"] {
        let resp = s.call("read", json!({"repo": "repo", "paths": [bad]}));
        assert_eq!(
            resp["error"]["data"]["kind"], "InvalidArguments",
            "{bad}: {resp}"
        );
    }
    // The repo argument itself, as for extract.
    for (tool, args) in [
        ("read", json!({"repo": "../outside", "paths": ["x"]})),
        ("grep", json!({"repo": "../outside", "pattern": "x"})),
        ("tree", json!({"repo": "../outside"})),
    ] {
        let resp = s.call(tool, args);
        assert_eq!(
            resp["error"]["data"]["kind"], "OutsideRoot",
            "{tool}: {resp}"
        );
    }
    // Links inside the repo resolve inside it, and are read as their target.
    let resp = s.call("read", json!({"repo": "repo", "paths": ["link_in.rs"]}));
    assert!(text(&resp).contains("pub fn inside()"), "{resp}");
    let (status, stderr) = s.finish();
    assert!(status.success());
    no_canary("stderr", &stderr);
}

#[test]
fn nothing_is_read_before_every_path_is_proven() {
    let (_base, b) = layout();
    let repo = b.join("root/repo");
    let ino = watch(&[repo.join("src"), repo.clone()], AddWatchFlags::IN_OPEN);
    let mut s = Server::start(&b.join("root"), &[]);
    s.initialize("2025-11-25");
    let _ = ino.read_events(); // the server's own start
    let resp = s.call(
        "read",
        json!({"repo": "repo", "paths": ["src/lib.rs", "README.md", "../../outside/secret.txt"]}),
    );
    assert_eq!(resp["error"]["data"]["kind"], "OutsideRoot", "{resp}");
    let opened = opened_files(&ino);
    assert!(
        !opened
            .iter()
            .any(|n| n == "lib.rs" || n == "README.md" || n == ".gnawconfig"),
        "files were opened before the last path was refused: {opened:?}"
    );
    // The watch does see opens: the same call without the bad path reads both files.
    let resp = s.call(
        "read",
        json!({"repo": "repo", "paths": ["src/lib.rs", "README.md"]}),
    );
    assert!(resp.get("result").is_some(), "{resp}");
    let opened = opened_files(&ino);
    assert!(opened.iter().any(|n| n == "lib.rs"), "{opened:?}");
}

/// A fake AWS key id, generated at test time (never a real-looking key in the source).
fn aws_key() -> String {
    let mut r = Rng(0x0a1b_2c3d_4e5f_6071);
    format!("{}{}", "AK", "IA") + &r.from("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
}

/// A root holding `app`, whose `src/config.py`, `.env` and `deploy.key` hold a fake AWS key id
/// and whose `notes.txt` says `notes`; and the key.
fn secret_repo(notes: &str) -> (Tree, String) {
    let key = aws_key();
    let t = Tree::new("app");
    t.write(
        "src/config.py",
        format!("import os\n\nAWS_ACCESS_KEY_ID = \"{key}\"\nREGION = \"eu-west-1\"\n"),
    )
    .write(".env", format!("AWS_ACCESS_KEY_ID={key}\n"))
    .write("deploy.key", format!("{key}\n"))
    .write("notes.txt", notes);
    (t, key)
}

/// Guesses at the key's first `i` characters, for every `i` from 4: `(i, right, wrong)`, the
/// wrong guess differing in its last character only.
fn guesses(key: &str) -> Vec<(usize, String, String)> {
    (4..=key.len())
        .map(|i| {
            let right = &key[..i];
            let c = right.as_bytes()[i - 1];
            let wrong = format!("{}{}", &right[..i - 1], if c == b'Z' { 'A' } else { 'Z' });
            (i, right.to_string(), wrong)
        })
        .collect()
}

/// The answer to a guess as the model sees it, the echoed guess taken out (text, and the
/// structured copy without its token count); it must not show the key.
fn as_seen(resp: &Value, guess: &str, key: &str) -> (String, Value) {
    let t = text(resp).replace(&format!("{guess:?}"), "GUESS");
    assert!(!t.contains(&key[4..]), "{guess}: the key is shown: {t}");
    let mut sc = resp["result"]["structuredContent"].clone();
    sc["answer_tokens"] = json!(0);
    (t, sc)
}

/// A right and a wrong guess must look the same to the model, in text and structure.
fn same_answer(i: usize, right: &(String, Value), wrong: &(String, Value)) {
    assert_eq!(
        right.0, wrong.0,
        "prefix {i}: the answers tell guesses apart"
    );
    assert_eq!(
        right.1, wrong.1,
        "prefix {i}: the structured answers differ"
    );
}

#[test]
fn grep_is_no_secret_oracle() {
    let (tree, key) = secret_repo("nothing to see\n");
    let mut s = Server::start(&tree.base, &[]);
    s.initialize("2025-11-25");
    // What a guess looks like to the model, with the guess itself taken out.
    let mut answer = |pattern: &str, ignore_case: bool| -> (String, Value) {
        let resp = s.call(
            "grep",
            json!({"repo": "app", "pattern": pattern, "fixed_strings": true,
                   "ignore_case": ignore_case}),
        );
        // The guess is echoed; the rest must not depend on it.
        as_seen(&resp, pattern, &key)
    };
    let mut answers = Vec::new();
    for (i, right, wrong) in guesses(&key) {
        for ic in [false, true] {
            let got = answer(&right, ic);
            same_answer(i, &got, &answer(&wrong, ic));
            answers.push(got.1["total_matches"].clone());
        }
    }
    assert!(answers.iter().all(|n| *n == json!(0)), "{answers:?}");
    // The same through regular expressions and the sensitive file.
    let resp = s.call(
        "grep",
        json!({"repo": "app", "pattern": "AKIA[A-Z2-7]{16}"}),
    );
    assert_eq!(
        resp["result"]["structuredContent"]["total_matches"], 0,
        "{resp}"
    );
    let sc = &resp["result"]["structuredContent"];
    assert_eq!(sc["not_searched"]["sensitive"], 1, "{resp}");
    // What the model is shown is what it can find: the redaction marker.
    let resp = s.call("grep", json!({"repo": "app", "pattern": "REDACTED"}));
    assert_eq!(
        resp["result"]["structuredContent"]["total_matches"], 1,
        "{resp}"
    );
    let resp = s.call(
        "read",
        json!({"repo": "app", "paths": ["src/config.py", ".env"]}),
    );
    let t = text(&resp);
    assert!(!t.contains(&key) && t.contains("[REDACTED:"), "{t}");
    assert!(t.contains(".env: not shown: sensitive file"), "{t}");
    // Every byte of the key, one at a time, finds nothing more than any other byte.
    let counts: Vec<Value> = ["A", "K", "I"]
        .iter()
        .map(|p| {
            s.call(
                "grep",
                json!({"repo": "app", "pattern": format!("{p}{}", &key[4..6])}),
            )["result"]["structuredContent"]["total_matches"]
                .clone()
        })
        .collect();
    assert!(counts.iter().all(|c| *c == json!(0)), "{counts:?}");
}

#[test]
fn search_is_no_secret_oracle() {
    let (tree, key) = secret_repo("nothing to see, region notes\n");
    // A secret in a file name: the name is ranked as it is shown, redacted.
    tree.write(&format!("src/{key}.txt"), "region\n");
    let mut s = Server::start(&tree.base, &[]);
    s.initialize("2025-11-25");
    // What a guess looks like to the model, with the guess itself taken out.
    let mut answer = |query: &str| -> (String, Value) {
        let resp = s.call("search", json!({"repo": "app", "query": query}));
        as_seen(&resp, query, &key)
    };
    let mut totals = Vec::new();
    for (i, right, wrong) in guesses(&key) {
        // Alone, and next to a word that does match, so the ranking itself is on show.
        for with in ["", " region"] {
            let got = answer(&format!("{right}{with}"));
            same_answer(i, &got, &answer(&format!("{wrong}{with}")));
            totals.push(got.1["total_files"].clone());
        }
    }
    // The whole key finds nothing; "region" finds the files that say it.
    assert!(
        totals.iter().step_by(2).all(|n| *n == json!(0)),
        "{totals:?}"
    );
    assert!(
        totals.iter().skip(1).step_by(2).all(|n| *n == json!(3)),
        "{totals:?}"
    );
    let resp = s.call("search", json!({"repo": "app", "query": key}));
    let sc = &resp["result"]["structuredContent"];
    assert_eq!(sc["total_files"], 0, "{resp}");
    assert_eq!(sc["not_searched"]["sensitive"], 1, "{resp}");
    // What the model is shown is what it can find: the redaction marker.
    let resp = s.call("search", json!({"repo": "app", "query": "REDACTED"}));
    let t = text(&resp);
    assert!(t.contains("src/config.py"), "{t}");
}

#[test]
fn hostile_files_are_reported_without_a_hang_or_a_leak() {
    let (_base, b) = layout();
    let repo = b.join("root/repo");
    nix::unistd::mkfifo(
        &repo.join("fifo"),
        nix::sys::stat::Mode::from_bits_truncate(0o644),
    )
    .unwrap();
    symlink("/dev/zero", repo.join("zero")).unwrap();
    let sparse = fs::File::create(repo.join("sparse.bin")).unwrap();
    sparse.set_len(100 << 30).unwrap();
    drop(sparse);
    let long: String = (0..(4 << 20) / 8)
        .map(|i| ["abcdefgh", "ijklmnop"][i % 2])
        .collect();
    fs::write(repo.join("long.txt"), format!("{long}\nsecond line\n")).unwrap();
    fs::write(repo.join("linked.txt"), "two names\n").unwrap();
    fs::hard_link(repo.join("linked.txt"), repo.join("twin.txt")).unwrap();
    fs::write(repo.join("latin1.txt"), b"caf\xe9 au lait\n").unwrap();
    let mut s = Server::start(&b.join("root"), &[]);
    s.initialize("2025-11-25");
    let resp = s.call(
        "read",
        json!({"repo": "repo", "paths": ["twin.txt", "latin1.txt"]}),
    );
    let t = text(&resp);
    assert!(
        t.contains("twin.txt: not shown: has more than one hard link"),
        "{t}"
    );
    assert!(
        t.contains("latin1.txt: lines 1-1 of 1") && t.contains("not valid UTF-8"),
        "{t}"
    );
    let timed = |s: &mut Server, tool: &str, args: Value| -> Value {
        let start = Instant::now();
        let resp = s.call(tool, args.clone());
        let took = start.elapsed();
        assert!(
            took < Duration::from_secs(20),
            "{tool} {args} took {took:?}"
        );
        no_canary(tool, &resp.to_string());
        resp
    };
    let resp = timed(&mut s, "read", json!({"repo": "repo", "paths": ["fifo"]}));
    assert!(
        text(&resp).contains("fifo: not shown: not a regular file (fifo)"),
        "{resp}"
    );
    let resp = timed(&mut s, "read", json!({"repo": "repo", "paths": ["zero"]}));
    assert_eq!(resp["error"]["data"]["kind"], "OutsideRoot", "{resp}");
    let resp = timed(
        &mut s,
        "read",
        json!({"repo": "repo", "paths": ["sparse.bin"]}),
    );
    assert!(text(&resp).contains("larger than max_file_size"), "{resp}");
    let resp = timed(
        &mut s,
        "read",
        json!({"repo": "repo", "paths": ["sparse.bin:1-10"]}),
    );
    assert!(text(&resp).contains("larger than 16777216 bytes"), "{resp}");
    // The 4 MB line: over max_file_size whole; by range, cut to the budget, then the next line.
    let resp = timed(
        &mut s,
        "read",
        json!({"repo": "repo", "paths": ["long.txt:1-"]}),
    );
    let t = text(&resp);
    assert!(t.contains("[line cut]") && t.len() < 200_000, "{:.300}", t);
    assert_eq!(
        resp["result"]["structuredContent"]["next_paths"],
        json!(["long.txt:2-"])
    );
    let resp = timed(
        &mut s,
        "grep",
        json!({"repo": "repo", "pattern": "abcdefghijklmnop"}),
    );
    // Too large for a search (as for extract), so counted, not searched.
    assert_eq!(
        resp["result"]["structuredContent"]["not_searched"]["too_large"], 2,
        "{resp}"
    );
    let resp = timed(&mut s, "tree", json!({"repo": "repo"}));
    let t = text(&resp);
    assert!(t.contains("lib.rs") && !t.contains("fifo ("), "{t}");
    let resp = timed(
        &mut s,
        "grep",
        json!({"repo": "repo", "pattern": "secret|CANARY", "ignore_case": true}),
    );
    assert_eq!(
        resp["result"]["structuredContent"]["total_matches"], 0,
        "{resp}"
    );
    s.ping();
    let (status, stderr) = s.finish();
    assert!(status.success());
    no_canary("stderr", &stderr);
}

#[test]
fn pathological_patterns_answer_in_linear_time_or_are_refused() {
    let base = Tree::new("r");
    let repo = base.repo.clone();
    fs::write(repo.join("line.txt"), format!("{}\n", "a".repeat(900_000))).unwrap();
    fs::write(repo.join("words.txt"), "word ".repeat(30).repeat(6000)).unwrap();
    let mut s = Server::start(base.base.as_path(), &[]);
    s.initialize("2025-11-25");
    for pattern in [
        "(a|aa)*b",
        "(a*)*b",
        "(\\w+\\s*)*$",
        ".{0,1000}x",
        "[\\s\\S]*x",
        "(?:a|b|c|d|e)*?zz",
    ] {
        let start = Instant::now();
        let resp = s.call(
            "grep",
            json!({"repo": "r", "pattern": pattern, "budget": 500}),
        );
        assert!(resp.get("result").is_some(), "{pattern}: {resp}");
        let took = start.elapsed();
        assert!(took < Duration::from_secs(10), "{pattern} took {took:?}");
    }
    for (pattern, why) in [
        ("\\w{1,100}\\w{1,100}\\w{1,100}z", "compiles to more"),
        ("(", "not a valid regular expression"),
        (&"a".repeat(5000)[..], "over the limit"),
        ("", "empty"),
    ] {
        let resp = s.call("grep", json!({"repo": "r", "pattern": pattern}));
        assert_eq!(resp["error"]["data"]["kind"], "InvalidPattern", "{resp}");
        assert!(
            resp["error"]["message"].as_str().unwrap().contains(why),
            "{resp}"
        );
    }
    s.ping();
}

#[test]
fn a_file_swapped_for_a_link_mid_call_never_leaks() {
    use nix::fcntl::{AT_FDCWD, RenameFlags, renameat2};
    let (_base, b) = layout();
    let repo = b.join("root/repo");
    fs::write(repo.join("target.txt"), "inside text\n".repeat(2000)).unwrap();
    symlink(b.join("outside/secret.txt"), repo.join("swap")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = Arc::clone(&stop);
        let (a, c) = (repo.join("target.txt"), repo.join("swap"));
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                renameat2(AT_FDCWD, &a, AT_FDCWD, &c, RenameFlags::RENAME_EXCHANGE).unwrap();
                n += 1;
                // Mostly quick, sometimes still: calls meet both states and the swaps between.
                if n.is_multiple_of(4) {
                    std::thread::sleep(Duration::from_micros(300));
                }
            }
            n
        })
    };
    let mut s = Server::start(&b.join("root"), &[("GNAW_MCP_CACHE_BYTES", "0")]);
    s.initialize("2025-11-25");
    let mut outcomes = std::collections::BTreeMap::new();
    for i in 0..90 {
        let (tool, args) = match i % 3 {
            0 => (
                "read",
                json!({"repo": "repo", "paths": ["target.txt", "swap"]}),
            ),
            1 => ("grep", json!({"repo": "repo", "pattern": "inside|NAV"})),
            _ => ("tree", json!({"repo": "repo"})),
        };
        let resp = s.call(tool, args);
        no_canary(tool, &resp.to_string());
        let key = match resp.get("error") {
            Some(e) => format!("{tool} {}", e["data"]["kind"]),
            None if tool == "read" => {
                let t = text(&resp);
                if t.contains("inside text") {
                    "read shown".into()
                } else {
                    format!("read {}", t.lines().next().unwrap_or_default())
                }
            }
            None => format!("{tool} answered"),
        };
        *outcomes.entry(key).or_insert(0) += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 100, "only {swaps} swaps");
    println!("{swaps} swaps; outcomes: {outcomes:?}");
    let (status, stderr) = s.finish();
    assert!(status.success());
    no_canary("stderr", &stderr);
}

/// The last `CacheStats` the server logged: file and piece misses.
fn last_stats(stderr: &str) -> (u64, u64) {
    let field = |name| mcp_client::cache_stat(stderr, name);
    (field("file_misses"), field("piece_misses"))
}

#[test]
fn the_warm_cache_serves_navigation() {
    let (_base, b) = layout();
    let repo = b.join("root/repo");
    for i in 0..30 {
        fs::write(
            repo.join(format!("src/m{i}.rs")),
            format!("fn retry_{i}() {{}}\n").repeat(50),
        )
        .unwrap();
    }
    // Files changed in the last two seconds are never cached.
    std::thread::sleep(Duration::from_millis(2100));
    let mut s = Server::start(&b.join("root"), &[("RUST_LOG", "info")]);
    s.initialize("2025-11-25");
    let settle = |s: &mut Server| {
        std::thread::sleep(Duration::from_millis(150));
        last_stats(&s.stderr())
    };
    let first = s.call("grep", json!({"repo": "repo", "pattern": "retry"}));
    let cold = settle(&mut s);
    let second = s.call("grep", json!({"repo": "repo", "pattern": "retry"}));
    let warm = settle(&mut s);
    assert_eq!(text(&first), text(&second));
    assert_eq!(warm.0, cold.0, "the second grep read files again");
    assert_eq!(warm.1, cold.1, "the second grep scanned files again");
    // tree uses extract's own per-file settings: after estimate, no piece is derived again.
    s.call("estimate", json!({"repo": "repo"}));
    let after_estimate = settle(&mut s);
    let t = s.call("tree", json!({"repo": "repo"}));
    assert!(text(&t).contains("m0.rs"));
    let after_tree = settle(&mut s);
    assert_eq!(
        after_tree, after_estimate,
        "tree derived pieces estimate had"
    );
    // A read of a file grep saw is served from the cache too.
    s.call(
        "read",
        json!({"repo": "repo", "paths": ["src/m3.rs:10-20"]}),
    );
    assert_eq!(settle(&mut s).0, after_tree.0, "read opened a cached file");
}

#[test]
fn progress_is_reported_and_schemas_have_one_type_per_property() {
    let (_base, b) = layout();
    let repo = b.join("root/repo");
    for i in 0..200 {
        fs::write(repo.join(format!("src/p{i}.rs")), "fn x() {}\n").unwrap();
    }
    let mut s = Server::start(&b.join("root"), &[]);
    s.initialize("2025-11-25");
    let id = s.fresh_id();
    s.send(
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "grep", "arguments": {"repo": "repo", "pattern": "fn"},
        "_meta": {"progressToken": "g1"}}}),
    );
    let resp = s.response(&id);
    assert!(resp["result"]["structuredContent"]["total_matches"].as_u64() > Some(199));
    assert!(
        s.notifications.iter().any(
            |n| n["method"] == "notifications/progress" && n["params"]["progressToken"] == "g1"
        ),
        "no progress: {:?}",
        s.notifications
    );
    let list = s.ok("tools/list", json!({}));
    let names = common::json::strings(&list["tools"], "name");
    for tool in ["read", "grep", "tree"] {
        assert!(names.contains(&tool), "{names:?}");
    }
    fn single_types(v: &Value, at: &str) {
        match v {
            Value::Object(m) => {
                if let Some(t) = m.get("type") {
                    // An object here is a property named "type", not the keyword.
                    assert!(!t.is_array(), "{at}: type {t} is not a single type");
                }
                for (k, x) in m {
                    single_types(x, &format!("{at}.{k}"));
                }
            }
            Value::Array(a) => a.iter().for_each(|x| single_types(x, at)),
            _ => {}
        }
    }
    for t in list["tools"].as_array().unwrap() {
        if ["read", "grep", "tree"].contains(&t["name"].as_str().unwrap()) {
            single_types(&t["outputSchema"], t["name"].as_str().unwrap());
            single_types(&t["inputSchema"], t["name"].as_str().unwrap());
            assert_eq!(t["annotations"]["readOnlyHint"], true);
            assert_eq!(t["annotations"]["openWorldHint"], false);
        }
    }
}

fn gnaw(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gnaw"))
        .args(args)
        .output()
        .expect("run gnaw");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_cli_prints_the_tools_text() {
    let (_base, b) = layout();
    let repo = b.join("root/repo");
    let r = repo.to_str().unwrap();
    let mut s = Server::start(&b.join("root"), &[]);
    s.initialize("2025-11-25");
    let cases: Vec<(Vec<&str>, &str, Value)> = vec![
        (
            vec!["read", r, "src/lib.rs:1-2", "README.md", "--budget", "400"],
            "read",
            json!({"repo": "repo", "paths": ["src/lib.rs:1-2", "README.md"], "budget": 400}),
        ),
        (
            vec!["grep", r, "retry", "-C", "1", "--budget", "300"],
            "grep",
            json!({"repo": "repo", "pattern": "retry", "context": 1, "budget": 300}),
        ),
        (
            vec![
                "grep",
                r,
                "RETRY",
                "-i",
                "--after",
                "README.md:3",
                "--budget",
                "300",
            ],
            "grep",
            json!({"repo": "repo", "pattern": "RETRY", "ignore_case": true,
                   "after": "README.md:3", "budget": 300}),
        ),
        (
            vec!["search", r, "retry later", "--budget", "300"],
            "search",
            json!({"repo": "repo", "query": "retry later", "budget": 300}),
        ),
        (
            vec!["search", r, "retry later", "--explain"],
            "search",
            json!({"repo": "repo", "query": "retry later", "explain": true}),
        ),
        (
            vec![
                "search",
                r,
                "retry",
                "-n",
                "1",
                "--offset",
                "1",
                "--include",
                "src/**",
            ],
            "search",
            json!({"repo": "repo", "query": "retry", "limit": 1, "offset": 1,
                   "include": ["src/**"]}),
        ),
        (
            vec!["tree", r, "--budget", "300"],
            "tree",
            json!({"repo": "repo", "budget": 300}),
        ),
        (
            vec!["tree", r, "src", "--depth", "1", "--budget", "300"],
            "tree",
            json!({"repo": "repo", "path": "src", "depth": 1, "budget": 300}),
        ),
    ];
    for (argv, tool, args) in cases {
        let (ok, out, err) = gnaw(&argv);
        assert!(ok, "{argv:?}: {err}");
        // The flag and the argument are one declaration: both ask for the score's parts.
        let explained = args.get("explain").is_some();
        assert_eq!(out.contains("\n   score "), explained, "{argv:?}: {out}");
        let resp = s.call(tool, args);
        assert_eq!(out, text(&resp), "{argv:?}");
    }
    // Extraction is unchanged: a directory named like a subcommand is still a repo.
    let dir = b.join("root/tree");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("a.rs"), "fn a() {}\n").unwrap();
    let cwd_run = Command::new(env!("CARGO_BIN_EXE_gnaw"))
        .args(["-q", "."])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&cwd_run.stdout).contains("fn a() {}"));
    let (ok, out, err) = gnaw(&["-q", dir.to_str().unwrap()]);
    assert!(ok && out.contains("fn a() {}"), "{err}");
    let (ok, out, _) = gnaw(&["-q", "--estimate", r]);
    assert!(ok && out.ends_with("o200k_base\n"), "{out}");
    // Refusals are errors with exit code 2.
    let out = Command::new(env!("CARGO_BIN_EXE_gnaw"))
        .args(["read", r, "../../outside/secret.txt"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("outside the repository"), "{err}");
    no_canary("cli", &String::from_utf8_lossy(&out.stdout));
}
