//! gnaw-mcp's tools end to end: every containment rejection of `repo` (needs the sandbox
//! crate), and, through the real pipeline, extract == CLI bytes with `.gnawconfig`, estimate ==
//! the count of extract's text, progress, cancellation during a long run, and the output cap.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;
use common::fixture::Tree;

use common::{deep_repo, mcp_client};

use mcp_client::{Server, TIMEOUT, modern_meta};
use serde_json::{Value, json};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};
use tempfile::TempDir;

const SECRET: &str = "TOPSECRET-OUTSIDE-7731";

/// base/root is served; base/outside and base/root-evil lie beside it.
fn layout() -> TempDir {
    let base = tempfile::tempdir().unwrap();
    let b = base.path();
    fs::create_dir_all(b.join("root/repo/src")).unwrap();
    fs::write(b.join("root/repo/src/lib.rs"), "pub fn f() {}\n").unwrap();
    fs::write(b.join("root/file.txt"), "not a dir\n").unwrap();
    fs::create_dir_all(b.join("outside")).unwrap();
    fs::write(b.join("outside/secret.txt"), SECRET).unwrap();
    fs::create_dir_all(b.join("root-evil")).unwrap();
    fs::write(b.join("root-evil/secret.txt"), SECRET).unwrap();
    std::os::unix::fs::symlink(b.join("outside"), b.join("root/link_out")).unwrap();
    std::os::unix::fs::symlink("../outside", b.join("root/rel_link_out")).unwrap();
    std::os::unix::fs::symlink("repo", b.join("root/link_in")).unwrap();
    base
}

#[test]
fn every_rejection_kind_is_invalid_params_without_outside_content() {
    let base = layout();
    let b = base.path();
    let mut s = Server::start(&b.join("root"), &[]);
    s.initialize("2025-11-25");
    let outside = b.join("outside");
    let evil = b.join("root-evil");
    let cases: Vec<(Value, &str)> = vec![
        (json!(".."), "OutsideRoot"),
        (json!("../outside"), "OutsideRoot"),
        (json!("repo/../../outside"), "OutsideRoot"),
        (json!(outside.to_str().unwrap()), "OutsideRoot"),
        (json!(evil.to_str().unwrap()), "OutsideRoot"),
        (json!("link_out"), "OutsideRoot"),
        (json!("rel_link_out"), "OutsideRoot"),
        (json!("/etc"), "OutsideRoot"),
        (json!("missing"), "NotFound"),
        (json!("repo/missing/deeper"), "NotFound"),
        (json!("file.txt"), "NotADirectory"),
        (json!(""), "InvalidPath"),
        (json!("repo\u{0}x"), "InvalidPath"),
        (json!(42), "InvalidPath"),
        (json!(["repo"]), "InvalidPath"),
    ];
    for (repo, kind) in cases {
        for tool in ["extract", "estimate"] {
            let resp = s.call(tool, json!({ "repo": repo }));
            let err = &resp["error"];
            assert_eq!(err["code"], -32602, "{tool} {repo}: {resp}");
            assert_eq!(err["data"]["kind"], kind, "{tool} {repo}: {resp}");
            assert!(err["data"]["message"].is_string());
            let text = resp.to_string();
            assert!(!text.contains(SECRET), "leaked outside content: {text}");
            assert!(
                !text.contains("secret.txt"),
                "leaked an outside name: {text}"
            );
        }
        s.ping();
    }
    // The same checks apply to modern requests.
    let resp = s.request(
        "tools/call",
        json!({ "_meta": modern_meta(), "name": "estimate", "arguments": { "repo": "link_out" } }),
    );
    assert_eq!(resp["error"]["data"]["kind"], "OutsideRoot");
    // A symlink that stays inside is accepted (whatever the pipeline then reports).
    let resp = s.call("estimate", json!({ "repo": "link_in" }));
    assert!(resp.get("result").is_some(), "{resp}");
    let (status, stderr) = s.finish();
    assert!(status.success());
    assert!(!stderr.contains(SECRET));
}

/// A repo with a `.gnawconfig`, nested dirs and a few kinds of files.
fn sample_repo(dir: &Path) {
    for (rel, text) in [
        (".gnawconfig", "exclude = [\"docs/**\"]\n"),
        ("README.md", "# Sample\n\nSome text ✓.\n"),
        ("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n"),
        (
            "src/util/mod.rs",
            "pub fn add(a: i32, b: i32) -> i32 { a + b }\n",
        ),
        ("docs/guide.md", "excluded by .gnawconfig\n"),
        ("tests/t.rs", "#[test] fn t() {}\n"),
    ] {
        common::fixture::put(&dir.join(rel), text);
    }
    fs::write(dir.join("data.bin"), [0u8, 1, 2, 3, 0, 0, 255]).unwrap();
}

fn text_of(resp: &Value) -> &str {
    let result = &resp["result"];
    assert_ne!(result["isError"], true, "tool failed: {resp}");
    result["content"][0]["text"].as_str().expect("text content")
}

fn cli(repo: &Path, args: &[&str]) -> String {
    common::cli::ok_stdout(common::cli::gnaw_on(repo, args))
}

/// Needs the pipeline (`run_extraction`) and the CLI.
#[test]
fn extract_matches_cli_bytes_and_estimate_matches_its_count() {
    let root = tempfile::tempdir().unwrap();
    let repo = root.path().join("proj");
    sample_repo(&repo);
    let mut s = Server::start(root.path(), &[]);
    s.initialize("2025-11-25");
    let cases: [(&[&str], &[&str]); 3] =
        [(&[], &[]), (&["src/**"], &[]), (&[], &["tests/**", "*.md"])];
    for (include, exclude) in cases {
        let args = json!({ "repo": "proj", "include": include, "exclude": exclude });
        let extract = s.call("extract", args.clone());
        let text = text_of(&extract).to_owned();
        let mut cli_args = Vec::new();
        for i in include {
            cli_args.extend(["-i", i]);
        }
        for e in exclude {
            cli_args.extend(["-e", e]);
        }
        assert_eq!(
            text,
            cli(&repo, &cli_args),
            "include {include:?} exclude {exclude:?}"
        );
        assert!(!text.contains("excluded by .gnawconfig"));

        let estimate = s.call("estimate", args);
        let summary = &estimate["result"]["structuredContent"];
        let from_text: Value = serde_json::from_str(text_of(&estimate)).unwrap();
        assert_eq!(&from_text, summary);
        let encoding = gnaw::count::Encoding::from_name(summary["encoding"].as_str().unwrap())
            .expect("known encoding");
        assert_eq!(summary["tokens"], gnaw::count::count(encoding, &text));
        assert_eq!(summary["output_bytes"], text.len());
        assert!(summary["files"].as_u64().unwrap() >= 1);
        assert!(summary["skipped"].is_object());
    }
    // The binary file is skipped, and reported by reason.
    let estimate = s.call("estimate", json!({ "repo": "proj" }));
    assert_eq!(
        estimate["result"]["structuredContent"]["skipped"]["binary"],
        1
    );
    // Modern results carry resultType.
    let resp = s.request(
        "tools/call",
        json!({ "_meta": modern_meta(), "name": "estimate", "arguments": { "repo": "proj" } }),
    );
    assert_eq!(resp["result"]["resultType"], "complete");
}

/// Needs the pipeline.
#[test]
fn progress_notifications_count_files() {
    let root = Tree::new("many");
    let repo = root.repo.clone();
    for i in 0..200 {
        fs::write(
            repo.join(format!("f{i:03}.txt")),
            format!("file {i}\n").repeat(50),
        )
        .unwrap();
    }
    let mut s = Server::start(root.base.as_path(), &[]);
    s.initialize("2025-11-25");
    let resp = s.request(
        "tools/call",
        json!({ "name": "extract", "arguments": { "repo": "many" }, "_meta": { "progressToken": "tok-1" } }),
    );
    text_of(&resp);
    let progress: Vec<&Value> = s
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert!(!progress.is_empty(), "no progress notifications");
    let mut last = 0.0;
    for n in &progress {
        assert_eq!(n["params"]["progressToken"], "tok-1");
        let p = n["params"]["progress"].as_f64().unwrap();
        assert!(p > last, "progress must increase");
        last = p;
        assert_eq!(n["params"]["total"], 200);
    }
    assert_eq!(last, 200.0, "the last notification reports completion");
}

/// Needs the pipeline: a run long enough to cancel in the middle.
#[test]
fn cancel_stops_a_long_extract_and_ping_answers_meanwhile() {
    let root = Tree::new("big");
    let repo = root.repo.clone();
    let line = "let value = compute(alpha, beta, gamma) + other_function(delta);\n";
    let body = line.repeat(120); // ~8 KB of token-dense text per file
    for i in 0..3000 {
        fs::write(repo.join(format!("m{i:04}.rs")), &body).unwrap();
    }
    fs::create_dir_all(root.base.as_path().join("tiny")).unwrap();
    fs::write(root.base.as_path().join("tiny/a.txt"), "a\n").unwrap();

    let mut s = Server::start(
        root.base.as_path(),
        &[("GNAW_MCP_MAX_OUTPUT_BYTES", "100000000")],
    );
    s.initialize("2025-11-25");
    s.send(&json!({
        "jsonrpc": "2.0", "id": "long", "method": "tools/call",
        "params": { "name": "extract", "arguments": { "repo": "big" }, "_meta": { "progressToken": 7 } }
    }));
    // Wait until the run is under way.
    let first = s.recv();
    assert_eq!(first["method"], "notifications/progress", "{first}");
    // The reader is free while the worker runs.
    s.send(&json!({ "jsonrpc": "2.0", "id": "during", "method": "ping" }));
    s.send(
        &json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": { "requestId": "long", "reason": "test" } }),
    );
    let cancelled_at = Instant::now();
    // Only progress notifications and the ping's answer may arrive; never a response to "long".
    let mut ping_answered = false;
    while let Some(msg) = s.recv_within(Duration::from_secs(3)) {
        assert_ne!(
            msg["id"], "long",
            "a cancelled request got a response: {msg}"
        );
        if msg["id"] == "during" {
            ping_answered = true;
        }
    }
    assert!(ping_answered, "ping was not answered during the extract");
    // The worker is free again soon: a small call completes promptly.
    let resp = s.call("estimate", json!({ "repo": "tiny" }));
    text_of(&resp);
    assert!(
        cancelled_at.elapsed() < TIMEOUT,
        "the cancelled run kept the worker busy"
    );
}

/// Needs the pipeline.
#[test]
fn output_over_the_cap_is_an_error_with_advice_not_a_cut_body() {
    let root = Tree::new("proj");
    root.write("big/bulk.txt", "MARKER bulk text\n".repeat(500))
        .write("small/a.txt", "small\n");
    let mut s = Server::start(
        root.base.as_path(),
        &[("GNAW_MCP_MAX_OUTPUT_BYTES", "2000")],
    );
    s.initialize("2025-11-25");
    let resp = s.call("extract", json!({ "repo": "proj" }));
    let result = &resp["result"];
    assert_eq!(result["isError"], true, "{resp}");
    assert_eq!(result["_meta"]["gnaw/errorKind"], "OutputTooLarge");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(!text.contains("MARKER"), "part of the body was sent");
    for word in ["GNAW_MCP_MAX_OUTPUT_BYTES", "include", "exclude", "big"] {
        assert!(text.contains(word), "advice lacks {word}: {text}");
    }
    // Narrowed as advised, it fits.
    let resp = s.call("extract", json!({ "repo": "proj", "exclude": ["big/**"] }));
    assert!(text_of(&resp).contains("small"));
    // A failed run names its kind for programs, in every tool that runs the pipeline.
    fs::write(root.repo.join(".gnawconfig"), "budget = \"lots\"\n").unwrap();
    for tool in ["extract", "estimate", "tree", "grep"] {
        let mut args = json!({ "repo": "proj" });
        if tool == "grep" {
            args["pattern"] = json!("small");
        }
        let resp = s.call(tool, args);
        assert_eq!(resp["result"]["isError"], true, "{tool}: {resp}");
        assert_eq!(
            resp["result"]["_meta"]["gnaw/errorKind"], "InvalidConfig",
            "{tool}: {resp}"
        );
    }
}

/// A repo's own `.gnawconfig` cannot make the server read files larger than the operator's
/// ceiling (`GNAW_MCP_MAX_FILE_SIZE`, default 16 MiB); below the ceiling it is honoured.
#[test]
fn gnawconfig_max_file_size_is_capped_by_the_operator() {
    let base = Tree::new("repo");
    let repo = base.repo.clone();
    fs::write(repo.join(".gnawconfig"), "max_file_size = \"8MiB\"\n").unwrap();
    fs::write(repo.join("small.txt"), "small\n").unwrap();
    // 2 MiB of text, above the 1 MiB default and below the config's 8 MiB.
    fs::write(repo.join("big.txt"), "word ".repeat(2 << 20 >> 2)).unwrap();
    let skipped = |env: &[(&str, &str)]| {
        let mut s = Server::start(base.base.as_path(), env);
        s.initialize("2025-11-25");
        let r = s.call("estimate", json!({ "repo": "repo" }));
        r["result"]["structuredContent"]["skipped"].clone()
    };
    // Default ceiling (16 MiB): the config's 8 MiB is honoured, big.txt is read.
    assert_eq!(skipped(&[])["too_large"], Value::Null);
    // Operator ceiling 1 MiB: big.txt is too large whatever the config says.
    assert_eq!(
        skipped(&[("GNAW_MCP_MAX_FILE_SIZE", "1MiB")])["too_large"],
        1
    );
    // A bad value is refused at startup with a message naming the variable.
    let (status, _out, err) = mcp_client::run(
        base.base.as_path(),
        &[],
        &[("GNAW_MCP_MAX_FILE_SIZE", "lots")],
    );
    assert!(!status.success());
    assert!(err.contains("GNAW_MCP_MAX_FILE_SIZE"), "{err}");
}

/// Cancellation reaches inside the stages: a call whose files are all read (progress says so)
/// but whose tree is still being drawn and counted — six files 2,000 directories deep with no
/// budget, about 50 MB of tree — stops when cancelled, and the next call is answered within a
/// second. Before the fix the worker checked only between files, so the cancelled call ran to
/// its end (many seconds) and the small call waited behind it.
#[test]
fn cancel_reaches_inside_the_tree_and_the_next_call_is_answered_within_a_second() {
    let root = tempfile::tempdir().unwrap();
    deep_repo::deep_repo(&root.path().join("deep"), 2000, 6);
    fs::create_dir_all(root.path().join("tiny")).unwrap();
    fs::write(root.path().join("tiny/a.txt"), "a\n").unwrap();
    let mut s = Server::start(
        root.path(),
        &[
            ("GNAW_MCP_CACHE_BYTES", "0"),
            ("GNAW_MCP_MAX_DEPTH", "2100"),
        ],
    );
    s.initialize("2025-11-25");
    // Warm up the tokenizer so the small call's time is only its own.
    text_of(&s.call("estimate", json!({ "repo": "tiny" })));
    s.send(&json!({
        "jsonrpc": "2.0", "id": "long", "method": "tools/call",
        "params": { "name": "estimate", "arguments": { "repo": "deep", "budget": 0 },
                    "_meta": { "progressToken": "p" } }
    }));
    // Every file is read and counted: what is left is ranking, fitting and the tree.
    loop {
        let msg = s.recv();
        assert_ne!(
            msg["id"], "long",
            "the long call ended before it could be cancelled"
        );
        if msg["method"] == "notifications/progress"
            && msg["params"]["progress"] == msg["params"]["total"]
        {
            break;
        }
    }
    std::thread::sleep(Duration::from_millis(200));
    s.send(
        &json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": { "requestId": "long", "reason": "test" } }),
    );
    let cancelled_at = Instant::now();
    let id = s.fresh_id();
    s.send(&json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": { "name": "estimate", "arguments": { "repo": "tiny" } } }));
    let resp = s.response(&id);
    let waited = cancelled_at.elapsed();
    text_of(&resp);
    assert!(
        waited < Duration::from_secs(1),
        "the small call was answered {waited:?} after the cancel"
    );
    // The cancelled call never gets a response.
    assert!(
        s.recv_within(Duration::from_millis(300))
            .is_none_or(|m| m["id"] != "long")
    );
}
