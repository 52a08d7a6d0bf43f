//! Every answer fits its client, every request gets its answer, every message speaks to its
//! reader (issue 13), through the real binaries: `estimate` is bounded however many files a
//! budget leaves out, findings are described only for files in the prompt, tool definitions
//! declare their result size and use one JSON type per property, input closed after a batch of
//! requests still gets every answer, and the CLI's messages talk about the CLI's argument.

#![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

use crate::common;
use common::fixture::Tree;

use common::mcp_client;

use mcp_client::{Server, bin};
use serde_json::{Value, json};
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// A root holding `repo` with `dirs` directories of `per_dir` files each.
fn wide_repo(root: &Path, dirs: usize, per_dir: usize) {
    for d in 0..dirs {
        let dir = root.join(format!("repo/pkg{d:03}/src"));
        fs::create_dir_all(&dir).unwrap();
        for f in 0..per_dir {
            fs::write(
                dir.join(format!("file_{f:03}.rs")),
                format!("pub fn f{d}_{f}() -> u32 {{ {d} + {f} }}\n").repeat(1 + f % 7),
            )
            .unwrap();
        }
    }
}

fn gnaw_bin() -> &'static str {
    env!("CARGO_BIN_EXE_gnaw")
}

#[test]
fn estimate_is_bounded_and_collapses_what_the_budget_leaves_out() {
    let tmp = tempfile::tempdir().unwrap();
    wide_repo(tmp.path(), 60, 50);
    let mut s = Server::start(tmp.path(), &[]);
    s.initialize("2025-11-25");
    let resp = s.call("estimate", json!({"repo": "repo", "budget": 2000}));
    let text = resp["result"]["content"][0]["text"].as_str().unwrap();
    // 3,000 files: listed one by one this was over 100 KB; collapsed it is a few KB.
    assert!(text.len() < 8_000, "estimate answered {} bytes", text.len());
    let sc = &resp["result"]["structuredContent"];
    let omitted = &sc["omitted"];
    let entries = omitted["entries"].as_array().unwrap();
    assert!(!entries.is_empty() && entries.len() <= 40, "{entries:?}");
    let files: u64 = entries.iter().map(|e| e["files"].as_u64().unwrap()).sum();
    let tokens: u64 = entries.iter().map(|e| e["tokens"].as_u64().unwrap()).sum();
    assert_eq!(files, omitted["files"].as_u64().unwrap());
    assert_eq!(tokens, omitted["tokens"].as_u64().unwrap());
    assert!(files > 2900, "{files}");
    let sizes: Vec<u64> = entries
        .iter()
        .map(|e| e["tokens"].as_u64().unwrap())
        .collect();
    assert!(
        sizes.windows(2).all(|w| w[0] >= w[1]),
        "largest first: {sizes:?}"
    );
    assert_eq!(sc["budget"], 2000);
    assert!(
        sc.get("file_list").is_none(),
        "the server leaves out per-file lists"
    );
    // The CLI's --json has the same bounded fields, and its own full lists.
    let out = Command::new(gnaw_bin())
        .args(["--json", "-q", "--budget", "2000"])
        .arg(tmp.path().join("repo"))
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(cli["omitted"], sc["omitted"]);
    assert_eq!(cli["tokens"], sc["tokens"]);
    assert_eq!(
        cli["omitted_list"].as_array().unwrap().len() as u64,
        omitted["files"].as_u64().unwrap()
    );
    s.finish();
}

#[test]
fn findings_are_described_only_for_files_in_the_prompt() {
    let tmp = Tree::new("repo");
    let repo = tmp.repo.clone();
    // A GitHub token shape made at run time (never a committed real-looking key).
    let token = format!("ghp_{}", "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4");
    fs::write(repo.join("a_small.rs"), "pub fn keep() {}\n").unwrap();
    fs::write(
        repo.join("z_big.rs"),
        format!(
            "const T: &str = \"{token}\";\n{}",
            "// filler line\n".repeat(400)
        ),
    )
    .unwrap();
    let mut s = Server::start(tmp.base.as_path(), &[]);
    s.initialize("2025-11-25");
    let full = s.call("estimate", json!({"repo": "repo", "budget": 0}));
    let sc = &full["result"]["structuredContent"];
    assert_eq!(sc["secrets"].as_array().unwrap().len(), 1, "{full}");
    assert_eq!(sc["secrets_not_listed"], 0);
    let small = s.call("estimate", json!({"repo": "repo", "budget": 150}));
    let sc = &small["result"]["structuredContent"];
    assert_eq!(sc["trimmed"], true, "{small}");
    assert_eq!(
        sc["secrets"],
        json!([]),
        "z_big.rs is not in the prompt: {small}"
    );
    assert_eq!(sc["secrets_not_listed"], 1);
    assert!(!small.to_string().contains(&token));
    s.finish();
}

#[test]
fn tool_definitions_fit_strict_clients() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("repo")).unwrap();
    let mut s = Server::start(tmp.path(), &[]);
    s.initialize("2025-11-25");
    let list = s.ok("tools/list", json!({}));
    fn no_type_unions(schema: &Value, at: &str) {
        match schema {
            Value::Object(map) => {
                if let Some(t) = map.get("type") {
                    assert!(t.is_string(), "{at}: type {t} is not a single type");
                }
                for (k, v) in map {
                    match (k.as_str(), v) {
                        // The names of properties are not keywords: each value is a schema.
                        ("properties", Value::Object(props)) => {
                            for (name, schema) in props {
                                no_type_unions(schema, &format!("{at}.properties.{name}"));
                            }
                        }
                        _ => no_type_unions(v, &format!("{at}.{k}")),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| no_type_unions(v, at)),
            _ => {}
        }
    }
    for tool in list["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        no_type_unions(&tool["inputSchema"], name);
        if let Some(out) = tool.get("outputSchema") {
            no_type_unions(out, name);
        }
        let chars = tool["_meta"]["anthropic/maxResultSizeChars"]
            .as_u64()
            .unwrap();
        assert!((50_000..=500_000).contains(&chars), "{name}: {chars}");
    }
    s.finish();
}

#[test]
fn input_closed_after_the_requests_still_gets_every_answer() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("repo")).unwrap();
    fs::write(tmp.path().join("repo/lib.rs"), "pub fn f() {}\n").unwrap();
    let mut child = Command::new(bin())
        .env("GNAW_MCP_ROOT", tmp.path())
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "ci", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "estimate", "arguments": {"repo": "repo"}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "extract", "arguments": {"repo": "../.."}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}),
    ];
    let mut stdin = child.stdin.take().unwrap();
    for l in &lines {
        writeln!(stdin, "{l}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: std::collections::BTreeSet<u64> =
        answers.iter().filter_map(|a| a["id"].as_u64()).collect();
    assert_eq!(ids, [1, 2, 3, 4].into(), "{answers:?}");
    let escape = answers.iter().find(|a| a["id"] == 3).unwrap();
    assert_eq!(escape["error"]["data"]["kind"], "OutsideRoot");
}

#[test]
fn the_cli_speaks_of_its_own_argument_and_lists_values() {
    let out = Command::new(gnaw_bin())
        .arg("/nonexistent/gnaw-repo")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("repository"), "{err}");
    assert!(!err.contains("GNAW_MCP_ROOT"), "{err}");
    let help = Command::new(gnaw_bin()).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for value in [
        "markdown",
        "xml",
        "json",
        "o200k_base",
        "cl100k_base",
        "p50k_base",
        "r50k_base",
        "off",
        "warn",
        "redact",
        "block",
    ] {
        assert!(help.contains(value), "--help does not list {value}");
    }
}

#[test]
fn a_toml_error_names_its_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(
        tmp.path().join(".gnawconfig"),
        "format = \"xml\"\nbudget = = 3\n",
    )
    .unwrap();
    let out = Command::new(gnaw_bin()).arg(tmp.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2, column"), "{err}");
}

#[test]
fn the_output_file_is_never_written_through_a_link() {
    let tmp = Tree::new("repo");
    let repo = tmp.repo.clone();
    fs::write(repo.join("a.rs"), "fn a() {}\n").unwrap();
    let victim = tmp.base.as_path().join("bashrc");
    fs::write(&victim, "original\n").unwrap();
    std::os::unix::fs::symlink(&victim, repo.join("prompt.md")).unwrap();
    std::os::unix::fs::symlink(
        tmp.base.as_path().join("authorized_keys"),
        repo.join("dangling.md"),
    )
    .unwrap();
    nix::unistd::mkfifo(&repo.join("fifo.md"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    for (name, why) in [
        ("prompt.md", "symbolic link"),
        ("dangling.md", "symbolic link"),
        ("fifo.md", "not a regular file"),
    ] {
        let out = Command::new(gnaw_bin())
            .current_dir(&repo)
            .args([".", "-q", "-o", name])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{name}: {err}");
    }
    assert_eq!(fs::read_to_string(&victim).unwrap(), "original\n");
    assert!(!tmp.base.as_path().join("authorized_keys").exists());
    // A regular file (and /dev/null) is written as before.
    let out = Command::new(gnaw_bin())
        .current_dir(&repo)
        .args([".", "-q", "-o", "out.md"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        fs::read_to_string(repo.join("out.md"))
            .unwrap()
            .contains("fn a()")
    );
    let out = Command::new(gnaw_bin())
        .args([repo.to_str().unwrap(), "-q", "-o", "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success());
}

#[test]
fn a_secret_in_a_file_or_directory_name_is_never_shown() {
    let tmp = tempfile::tempdir().unwrap();
    let token = format!("ghp_{}", "Zq8Wx2Lm4Np6Rt1Vy3Bc5Df7Gh9Jk0Ps2Qu4");
    let repo = tmp.path().join("repo");
    fs::create_dir_all(repo.join(format!("keys-{token}"))).unwrap();
    fs::write(repo.join(format!("keys-{token}/notes.txt")), "hello\n").unwrap();
    fs::write(
        repo.join(format!("{token}.txt")),
        "password = \"x\"\nplain\n",
    )
    .unwrap();
    fs::write(repo.join("ok.rs"), "fn ok() {}\n").unwrap();
    let mut s = Server::start(tmp.path(), &[]);
    s.initialize("2025-11-25");
    for (tool, args) in [
        ("extract", json!({"repo": "repo", "budget": 0})),
        ("estimate", json!({"repo": "repo", "budget": 0})),
        ("estimate", json!({"repo": "repo", "budget": 60})),
    ] {
        let resp = s.call(tool, args.clone());
        let text = resp.to_string();
        assert!(!text.contains(&token), "{tool} {args}: {text}");
        if tool == "extract" {
            assert!(text.contains("[REDACTED:github-token]"), "{text}");
            assert!(text.contains("hello"), "{text}");
        }
    }
    s.finish();
    // The CLI (warn mode) shows names as they are, but its findings never hold the secret.
    let out = Command::new(gnaw_bin())
        .args(["--json", "-q"])
        .arg(&repo)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let secrets = v["secrets"].to_string();
    assert!(secrets.contains("github-token"), "{secrets}");
    assert!(!secrets.contains(&token), "{secrets}");
    let blocked = Command::new(gnaw_bin())
        .args(["-q", "--secrets", "block"])
        .arg(&repo)
        .output()
        .unwrap();
    let prompt = String::from_utf8_lossy(&blocked.stdout);
    assert!(
        !prompt.contains(&token) && prompt.contains("fn ok()"),
        "{prompt}"
    );
}
