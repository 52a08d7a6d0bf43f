//! The operator's policy over a repository's own `.gnawconfig` (issue 12, items 6, 11, 12, 13).
//! In gnaw-mcp a repo's config may narrow what is served, never widen it past the operator's
//! policy: its secrets allow lists, sensitive re-includes, `hidden`, `no_ignore` and
//! `follow_links` are refused unless `GNAW_MCP_REPO_MAY_WIDEN` allows them, and the refusal is
//! reported to the model (a note after the prompt, `refused` in `estimate`) and to the operator
//! (stderr). The CLI honours them for the user's own repos and warns, naming the keys. Followed
//! links are checked by their target as well as their own name. `.gnawconfig` is bounded: 256
//! profiles, 1,000 entries per list, and profiles are validated without copying the options.
//!
//! Real processes on real files; every secret is generated at test time.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;
use common::fixture;
use common::json::{pairs, strings};

use common::{mcp_client, xorshift};

use mcp_client::Server;
use serde_json::{Value, json};
use std::process::Output;
use std::time::{Duration, Instant};
use xorshift::Rng;

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// A served root (`base`) holding one repo, `app`.
struct Tree(fixture::Tree);

impl std::ops::Deref for Tree {
    type Target = fixture::Tree;
    fn deref(&self) -> &fixture::Tree {
        &self.0
    }
}

impl Tree {
    fn new() -> Tree {
        Tree(fixture::Tree::new("app"))
    }

    fn gnaw(&self, args: &[&str]) -> Output {
        self.gnaw_stdin(args, None)
    }

    fn gnaw_stdin(&self, args: &[&str], stdin: Option<&str>) -> Output {
        common::cli::gnaw_stdin(&self.repo, args, stdin.map(str::as_bytes), None)
    }

    /// A server on the root with an unlimited default budget and `env`.
    fn server(&self, env: &[(&str, &str)]) -> Server {
        let mut all = vec![("GNAW_MCP_DEFAULT_BUDGET", "0")];
        all.extend_from_slice(env);
        let mut s = Server::start(&self.base, &all);
        s.initialize("2025-11-25");
        s
    }
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every text block of a tool result, and the whole response as text.
fn blocks(resp: &Value) -> Vec<String> {
    assert_ne!(resp["result"]["isError"], true, "tool failed: {resp}");
    resp["result"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["text"].as_str().unwrap().to_string())
        .collect()
}

fn assert_absent(what: &str, haystack: &str, secrets: &[&str]) {
    for (i, s) in secrets.iter().enumerate() {
        assert!(
            !haystack.contains(s),
            "{what}: secret #{i} reached the output"
        );
    }
}

/// The `refused` list of an estimate, as `(key, operator setting)` pairs.
fn refused(est: &Value) -> Vec<(String, String)> {
    est["result"]["structuredContent"]["refused"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    (
                        r["key"].as_str().unwrap().to_string(),
                        r["operator_setting"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn skipped(summary: &Value) -> Vec<(String, String)> {
    pairs(&summary["skipped_list"], "path", "reason")
}

/// Item 11: `[secrets] allow_paths = ["**"]` in the repo switched scanning off, whatever the
/// operator's floor. Before the fix the three keys reached the agent verbatim under `redact`
/// and `block` (the first assertion failed).
#[test]
fn mcp_refuses_a_repos_secrets_allow_list_under_every_floor() {
    let t = Tree::new();
    let mut r = Rng(0x11_2024_5eed);
    let github = format!("{}{}", "gh", "p_") + &r.from(ALNUM, 36);
    let aws = format!("{}{}", "AK", "IA") + &r.from(UPPER, 16);
    let stripe = format!("{}{}", "sk_", "live_") + &r.from(ALNUM, 24);
    t.write(
        "src/config.py",
        format!("GITHUB_TOKEN = \"{github}\"\nAWS_ACCESS_KEY_ID = \"{aws}\"\n"),
    )
    .write(
        "src/pay.js",
        format!("const stripe = require('stripe')('{stripe}');\n"),
    )
    .write(
        ".gnawconfig",
        "[secrets]\nallow_paths = [\"**\"]\nallow_fingerprints = [\"src/pay.js:stripe-live-key:1\"]\n",
    );
    let keys = [github.as_str(), aws.as_str(), stripe.as_str()];
    for floor in ["redact", "block"] {
        let mut s = t.server(&[("GNAW_MCP_SECRETS_FLOOR", floor)]);
        let resp = s.call("extract", json!({"repo": "app"}));
        assert_absent(floor, &resp.to_string(), &keys);
        let b = blocks(&resp);
        assert_eq!(b.len(), 2, "a note follows the prompt: {resp}");
        for word in [
            "secrets.allow_paths",
            "secrets.allow_fingerprints",
            "GNAW_MCP_REPO_MAY_WIDEN",
        ] {
            assert!(b[1].contains(word), "note lacks {word}: {}", b[1]);
        }
        assert!(
            !b[0].contains("GNAW_MCP_REPO_MAY_WIDEN"),
            "prompt unchanged"
        );
        let est = s.call("estimate", json!({"repo": "app"}));
        assert_absent(floor, &est.to_string(), &keys);
        assert_eq!(
            refused(&est),
            [
                (
                    "secrets.allow_paths".to_string(),
                    "GNAW_MCP_REPO_MAY_WIDEN=allow_paths".to_string()
                ),
                (
                    "secrets.allow_fingerprints".to_string(),
                    "GNAW_MCP_REPO_MAY_WIDEN=allow_fingerprints".to_string()
                ),
            ]
        );
        let (_, stderr) = s.finish();
        assert!(stderr.contains("secrets.allow_paths"), "{stderr}");
        assert_absent("stderr", &stderr, &keys);
    }
    // The operator may let repos choose: then the allow list is honoured as before.
    let mut s = t.server(&[
        ("GNAW_MCP_SECRETS_FLOOR", "redact"),
        ("GNAW_MCP_REPO_MAY_WIDEN", "allow_paths"),
    ]);
    let resp = s.call("extract", json!({"repo": "app"}));
    assert!(blocks(&resp)[0].contains(&github));
    let est = s.call("estimate", json!({"repo": "app"}));
    assert_eq!(
        refused(&est),
        [(
            "secrets.allow_fingerprints".to_string(),
            "GNAW_MCP_REPO_MAY_WIDEN=allow_fingerprints".to_string()
        )]
    );
}

/// Item 12's repo: a config that turns on hidden and ignored files and names credential files,
/// and local files a user made (gitignored), holding random passwords no rule recognises.
fn widening_repo() -> (Tree, Vec<String>) {
    let t = Tree::new();
    let mut r = Rng(0x12_2024_5eed);
    let pw: Vec<String> = (0..5).map(|_| r.from(ALNUM, 22)).collect();
    t.write(".gitignore", "local/\n.pgpass\n")
        .write(".env", format!("MAGIC={}\n", pw[0]))
        .write(".pgpass", format!("db.internal:5432:app:admin:{}\n", pw[1]))
        .write(".netrc", format!("machine h login u password {}\n", pw[2]))
        .write("server.key", format!("{}\n", pw[3]))
        .write("local/notes.txt", format!("staging {}\n", pw[4]))
        .write("src/main.rs", "fn main() {}\n")
        .write(
            ".gnawconfig",
            "hidden = true\nno_ignore = true\ninclude = [\".env\", \".pgpass\", \".netrc\", \"*.key\", \"local/**\", \"src/**\"]\n",
        );
    (t, pw)
}

/// Item 12: the repo's `hidden`, `no_ignore` and sensitive includes pulled the user's local
/// files into the prompt even under `block`. Before the fix every password was served (the
/// first assertion failed).
#[test]
fn mcp_refuses_hidden_no_ignore_and_sensitive_includes_from_the_repo() {
    let (t, pw) = widening_repo();
    let pw: Vec<&str> = pw.iter().map(String::as_str).collect();
    let mut s = t.server(&[("GNAW_MCP_SECRETS_FLOOR", "block")]);
    let resp = s.call("extract", json!({"repo": "app"}));
    assert_absent("block", &resp.to_string(), &pw);
    let b = blocks(&resp);
    assert!(b[0].contains("fn main() {}"), "narrowing is kept: {}", b[0]);
    for word in ["`hidden`", "`no_ignore`", "`include`", "server.key"] {
        assert!(b[1].contains(word), "note lacks {word}: {}", b[1]);
    }
    let est = s.call("estimate", json!({"repo": "app"}));
    let keys: Vec<String> = refused(&est).into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["include", "hidden", "no_ignore"]);
    let (_, stderr) = s.finish();
    assert!(
        stderr.contains("no_ignore") && stderr.contains("hidden"),
        "{stderr}"
    );
    assert_absent("stderr", &stderr, &pw);

    // The operator allows hidden and ignored files, not sensitive re-includes: the user's
    // gitignored notes are served (the operator's choice), credential files still are not.
    let mut s = t.server(&[
        ("GNAW_MCP_SECRETS_FLOOR", "block"),
        ("GNAW_MCP_REPO_MAY_WIDEN", "hidden, no_ignore"),
    ]);
    let resp = s.call("extract", json!({"repo": "app"}));
    assert_absent("allowed hidden", &resp.to_string(), &pw[..4]);
    assert!(blocks(&resp)[0].contains(pw[4]));
    let est = s.call("estimate", json!({"repo": "app"}));
    assert_eq!(
        refused(&est),
        [(
            "include".to_string(),
            "GNAW_MCP_REPO_MAY_WIDEN=sensitive_include".to_string()
        )]
    );
    let note = est["result"]["structuredContent"]["refused"][0]["what"]
        .as_str()
        .unwrap()
        .to_string();
    for name in [".env", ".pgpass", "server.key"] {
        assert!(note.contains(name), "{note}");
    }
    assert_eq!(
        est["result"]["structuredContent"]["skipped"]["sensitive"], 4,
        "{est}"
    );
}

/// Item 12, CLI side: the user's own repo keeps today's behaviour, with a warning on stderr
/// naming each widening key. Before the fix there was no warning.
#[test]
fn the_cli_honours_a_widening_config_and_warns_naming_the_keys() {
    let (t, pw) = widening_repo();
    let o = t.gnaw(&["-q", "--secrets", "off"]);
    let out = ok(&o);
    for p in &pw {
        assert!(out.contains(p.as_str()), "today's behaviour is kept");
    }
    let e = err(&o);
    assert!(e.contains("warning"), "{e}");
    for key in ["`hidden`", "`no_ignore`", "`include`"] {
        assert!(e.contains(key), "warning lacks {key}: {e}");
    }
    assert!(e.contains(".env") && e.contains("server.key"), "{e}");
    assert_absent(
        "stderr",
        &e,
        &pw.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    // A flag is the user's own choice, not the repo's: no warning for it.
    t.write(".gnawconfig", "hidden = true\n");
    let e = err(&t.gnaw(&["-q", "--no-hidden"]));
    assert!(!e.contains("warning"), "{e}");
    let e = err(&t.gnaw(&["-q"]));
    assert!(e.contains("`hidden`"), "{e}");
    // A profile's key is named with its table.
    t.write(".gnawconfig", "[profiles.all]\nno_ignore = true\n");
    let e = err(&t.gnaw(&["-q", "--profile", "all"]));
    assert!(e.contains("`profiles.all.no_ignore`"), "{e}");
    // The JSON summary carries the same list.
    let v: Value =
        serde_json::from_str(&ok(&t.gnaw(&["--json", "-q", "--profile", "all"]))).unwrap();
    assert_eq!(v["repo_config_widens"][0]["key"], "profiles.all.no_ignore");
}

/// Item 13's repo: links with innocent names to a dotenv file, an SSH key, a hidden file and an
/// ignored file, and one ordinary link.
fn link_repo() -> (Tree, Vec<String>) {
    let t = Tree::new();
    let mut r = Rng(0x13_2024_5eed);
    let pw: Vec<String> = (0..4).map(|_| r.from(ALNUM, 22)).collect();
    t.write(".env", format!("MAGIC={}\n", pw[0]))
        .write("keys/id_ed25519", format!("{}\n", pw[1]))
        .write(".secret/token.txt", format!("{}\n", pw[2]))
        .write(".gitignore", "build/\n")
        .write("build/creds.txt", format!("{}\n", pw[3]))
        .write("src/lib.rs", "pub fn shared() {}\n")
        .link("innocent.txt", ".env")
        .link("docs/readme.txt", "../keys/id_ed25519")
        .link("notes.txt", ".secret/token.txt")
        .link("log.txt", "build/creds.txt")
        .link("alias.rs", "src/lib.rs");
    (t, pw)
}

/// Item 13: a followed link was checked only by its own name. Before the fix `-L` served the
/// dotenv file, the SSH key, the hidden and the ignored file under innocent names (the first
/// assertion failed).
#[test]
fn followed_links_are_checked_by_their_target() {
    let (t, pw) = link_repo();
    let pw: Vec<&str> = pw.iter().map(String::as_str).collect();
    let o = t.gnaw(&["-L", "-q", "--secrets", "off"]);
    let out = ok(&o);
    assert_absent("-L", &out, &pw);
    assert_eq!(out.matches("pub fn shared() {}").count(), 2, "{out}");
    let v: Value =
        serde_json::from_str(&ok(&t.gnaw(&["-L", "--json", "-q", "--secrets", "off"]))).unwrap();
    let sk = skipped(&v);
    for (path, reason) in [
        ("innocent.txt", "sensitive"),
        ("docs/readme.txt", "sensitive"),
        ("notes.txt", "symlink"),
        ("log.txt", "symlink"),
    ] {
        assert!(
            sk.contains(&(path.to_string(), reason.to_string())),
            "{path}: {sk:?}"
        );
    }
    let details = strings(&v["skipped_list"], "detail");
    assert!(details.iter().any(|d| d.contains("hidden")), "{details:?}");
    assert!(details.iter().any(|d| d.contains("ignore")), "{details:?}");
    // The run's own settings decide for the target as for any file.
    let out = ok(&t.gnaw(&["-L", "-q", "--secrets", "off", "--hidden"]));
    assert!(out.contains(pw[2]), "--hidden reads the hidden target");
    assert_absent("--hidden", &out, &[pw[0], pw[1], pw[3]]);
    let out = ok(&t.gnaw(&["-L", "-q", "--secrets", "off", "--no-ignore"]));
    assert!(out.contains(pw[3]), "--no-ignore reads the ignored target");
    assert_absent("--no-ignore", &out, &pw[..3]);
    // A path list resolves each listed path to its real one (the source stage does), so the
    // target is checked under its own name there too.
    let o = t.gnaw_stdin(
        &["--stdin", "-L", "-q", "--secrets", "off"],
        Some("innocent.txt\ndocs/readme.txt\nalias.rs\n"),
    );
    let out = ok(&o);
    assert_absent("--stdin", &out, &pw);
    assert!(out.contains("pub fn shared"));
}

/// Item 13 in gnaw-mcp, and `follow_links` as a widening: the repo's `follow_links = true` is
/// refused unless the operator allows it; when allowed, targets are checked. Before the fix the
/// server followed the links and served all four files (the first assertion failed).
#[test]
fn mcp_follows_links_only_when_the_operator_allows_and_checks_targets() {
    let (t, pw) = link_repo();
    let pw: Vec<&str> = pw.iter().map(String::as_str).collect();
    t.write(".gnawconfig", "follow_links = true\n");
    let mut s = t.server(&[("GNAW_MCP_SECRETS_FLOOR", "off")]);
    let resp = s.call("extract", json!({"repo": "app"}));
    assert_absent("refused", &resp.to_string(), &pw);
    let est = s.call("estimate", json!({"repo": "app"}));
    assert_eq!(
        refused(&est),
        [(
            "follow_links".to_string(),
            "GNAW_MCP_REPO_MAY_WIDEN=follow_links".to_string()
        )]
    );
    assert_eq!(
        est["result"]["structuredContent"]["skipped"]["symlink"], 5,
        "{est}"
    );

    let mut s = t.server(&[
        ("GNAW_MCP_SECRETS_FLOOR", "off"),
        ("GNAW_MCP_REPO_MAY_WIDEN", "follow_links"),
    ]);
    let resp = s.call("extract", json!({"repo": "app"}));
    assert_absent("allowed", &resp.to_string(), &pw);
    let b = blocks(&resp);
    assert_eq!(b.len(), 1, "nothing refused, no note: {resp}");
    assert_eq!(b[0].matches("pub fn shared() {}").count(), 2);
    let (_, stderr) = s.finish();
    assert_absent("stderr", &stderr, &pw);
}

/// A repo that widens nothing: one content block, no `refused` key, no CLI warning.
#[test]
fn a_repo_that_widens_nothing_gets_no_note() {
    let t = Tree::new();
    t.write(".gnawconfig", "exclude = [\"docs/**\"]\nhidden = false\n")
        .write("src/a.rs", "fn a() {}\n")
        .write("server.key", "k\n");
    let mut s = t.server(&[]);
    let resp = s.call("extract", json!({"repo": "app"}));
    assert_eq!(blocks(&resp).len(), 1, "{resp}");
    let est = s.call("estimate", json!({"repo": "app"}));
    assert!(
        est["result"]["structuredContent"].get("refused").is_none(),
        "{est}"
    );
    let o = t.gnaw(&["-q"]);
    assert!(!err(&o).contains("warning"), "{}", err(&o));
    let v: Value = serde_json::from_str(&ok(&t.gnaw(&["--json", "-q"]))).unwrap();
    assert!(v.get("repo_config_widens").is_none(), "{v}");
}

#[test]
fn a_bad_repo_may_widen_value_stops_the_server_naming_the_choices() {
    let t = Tree::new();
    let (status, _out, e) =
        mcp_client::run(&t.base, &[], &[("GNAW_MCP_REPO_MAY_WIDEN", "hidden,hiden")]);
    assert!(!status.success());
    for word in [
        "GNAW_MCP_REPO_MAY_WIDEN",
        "`hiden`",
        "sensitive_include",
        "all",
    ] {
        assert!(e.contains(word), "lacks {word}: {e}");
    }
    // The help lists the variable and every choice.
    let (status, out, _) = mcp_client::run(&t.base, &["--help"], &[]);
    assert!(status.success());
    for word in [
        "GNAW_MCP_REPO_MAY_WIDEN",
        "allow_paths",
        "allow_fingerprints",
        "sensitive_include",
        "no_ignore",
        "follow_links",
    ] {
        assert!(out.contains(word), "--help lacks {word}");
    }
}

/// Item 6: caps on `.gnawconfig`, with errors naming the key and the limit. Before the fix
/// every one of these files was accepted (the first assertion failed).
#[test]
fn profiles_and_lists_are_capped_with_errors_naming_key_and_limit() {
    let t = Tree::new();
    t.write("a.rs", "fn a() {}\n");
    let many_profiles: String = (0..257).map(|i| format!("[profiles.p{i}]\n")).collect();
    let list = |n: usize| {
        let items: Vec<String> = (0..n).map(|i| format!("\"d{i}/**\"")).collect();
        format!("[{}]", items.join(","))
    };
    for (text, key, limit) in [
        (many_profiles, "`profiles`", "256"),
        (format!("include = {}\n", list(1001)), "`include`", "1000"),
        (
            format!("[profiles.x]\nexclude = {}\n", list(1001)),
            "`profiles.x.exclude`",
            "1000",
        ),
        (
            format!("[secrets]\nallow_paths = {}\n", list(1001)),
            "`secrets.allow_paths`",
            "1000",
        ),
    ] {
        t.write(".gnawconfig", &text);
        let o = t.gnaw(&["--estimate"]);
        assert_eq!(o.status.code(), Some(2), "{key} accepted");
        let e = err(&o);
        assert!(e.contains(key) && e.contains(limit), "{key}: {e}");
    }
    // At the limits, a file is accepted.
    let mut text = format!("include = {}\n", list(1000));
    for i in 0..256 {
        text.push_str(&format!("[profiles.p{i}]\nbudget = {}\n", 1000 + i));
    }
    t.write(".gnawconfig", &text);
    let start = Instant::now();
    ok(&t.gnaw(&["--estimate", "--profile", "p255"]));
    assert!(start.elapsed() < Duration::from_secs(20));
}

/// Item 6: 35,000 empty profiles beside a 60,000-entry include list took 162 s per call, each
/// profile validated on a copy of the options. It is now refused at once. Before the fix this
/// test ran for minutes, then failed (the file was accepted).
#[test]
fn a_pathological_profile_table_is_refused_quickly() {
    let t = Tree::new();
    t.write("a.rs", "fn a() {}\n");
    let mut text = String::from("include = [");
    for i in 0..60_000 {
        text.push_str(if i == 0 { "\"a\"" } else { ",\"a\"" });
    }
    text.push_str("]\n");
    for i in 0..35_000 {
        text.push_str(&format!("[profiles.p{i}]\n"));
    }
    assert!(text.len() < 1 << 20);
    t.write(".gnawconfig", &text);
    let start = Instant::now();
    let o = t.gnaw(&["--estimate"]);
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(took < Duration::from_secs(10), "took {took:?}");
    eprintln!("pathological .gnawconfig refused in {took:?}");
}

/// The MCP server reports the bad file as a tool error naming the key and the limit.
#[test]
fn mcp_reports_the_cap_as_a_tool_error() {
    let t = Tree::new();
    let many: String = (0..300).map(|i| format!("[profiles.p{i}]\n")).collect();
    t.write(".gnawconfig", &many).write("a.rs", "fn a() {}\n");
    let mut s = t.server(&[]);
    let resp = s.call("estimate", json!({"repo": "app"}));
    assert_eq!(resp["result"]["isError"], true, "{resp}");
    let text = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("`profiles`") && text.contains("256"),
        "{text}"
    );
}

/// A repo's `secrets = "off"` (or `[secrets] mode = "warn"`) is a widening like the allow lists:
/// it would show secrets verbatim where the server redacts them. Before the fix the server
/// honoured it whatever the operator chose (the first assertion failed: the key was served).
#[test]
fn mcp_refuses_a_repos_weaker_secrets_mode() {
    let mut r = Rng(0x5ec_2026_5eed);
    let github = format!("{}{}", "gh", "p_") + &r.from(ALNUM, 36);
    for (config, key) in [
        ("secrets = \"off\"\n", "secrets"),
        ("[secrets]\nmode = \"warn\"\n", "secrets.mode"),
    ] {
        let t = Tree::new();
        t.write("src/config.py", format!("TOKEN = \"{github}\"\n"))
            .write(".gnawconfig", config);
        let mut s = t.server(&[]);
        let resp = s.call("extract", json!({"repo": "app"}));
        assert_absent(config, &resp.to_string(), &[&github]);
        let b = blocks(&resp);
        assert!(b[0].contains("[REDACTED"), "{}", b[0]);
        assert!(
            b[1].contains(key) && b[1].contains("GNAW_MCP_REPO_MAY_WIDEN"),
            "{}",
            b[1]
        );
        let est = s.call("estimate", json!({"repo": "app"}));
        assert_eq!(
            refused(&est),
            [(
                key.to_string(),
                "GNAW_MCP_REPO_MAY_WIDEN=secrets".to_string()
            )]
        );
        drop(s);
        // The operator may let repos choose their mode.
        let mut s = t.server(&[("GNAW_MCP_REPO_MAY_WIDEN", "secrets")]);
        let resp = s.call("extract", json!({"repo": "app"}));
        assert!(blocks(&resp)[0].contains(&github));
        // But never below the operator's floor.
        let mut s = t.server(&[
            ("GNAW_MCP_REPO_MAY_WIDEN", "secrets"),
            ("GNAW_MCP_SECRETS_FLOOR", "redact"),
        ]);
        let resp = s.call("extract", json!({"repo": "app"}));
        assert_absent("floor", &resp.to_string(), &[&github]);
        // The CLI honours the user's own config, and says so when it is weaker than the CLI's
        // default (`warn`).
        let o = t.gnaw(&["-q"]);
        if config.contains("off") {
            assert!(ok(&o).contains(&github));
            assert!(err(&o).contains(&format!("`{key}`")), "{}", err(&o));
        }
    }
}
