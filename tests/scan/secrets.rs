//! Secrets never reach the model: a fixture repo full of realistic fake secrets, generated at
//! test time (never committed as real-looking keys), run through the CLI in every format and
//! through gnaw-mcp. No secret substring may appear anywhere; markers, findings, modes, the allow
//! list, the operator's floor, sensitive files and the counts of the redacted text are checked.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;
use common::fixture::Tree;
use common::json::{items, pairs, str_field};

use common::{mcp_client, xorshift};

use mcp_client::Server;
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use xorshift::Rng;

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// The fake secrets, each split from its prefix so no real-looking key sits in this file.
struct Secrets {
    github: String,
    aws_id: String,
    stripe: String,
    password: String,
    db_password: String,
    pem_body: String,
}

fn secrets() -> Secrets {
    let mut r = Rng(0x5eed_1234_abcd_ef01);
    Secrets {
        github: format!("{}{}", "gh", "p_") + &r.from(ALNUM, 36),
        aws_id: format!("{}{}", "AK", "IA") + &r.from(UPPER, 16),
        stripe: format!("{}{}", "sk_", "live_") + &r.from(ALNUM, 24),
        password: r.from(ALNUM, 20) + "!x9" + &r.from(ALNUM, 6),
        db_password: r.from(ALNUM, 18),
        pem_body: (0..6)
            .map(|_| r.from(ALNUM, 64))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

impl Secrets {
    fn all(&self) -> Vec<&str> {
        let mut v = vec![
            self.github.as_str(),
            self.aws_id.as_str(),
            self.stripe.as_str(),
            self.password.as_str(),
            self.db_password.as_str(),
        ];
        v.extend(self.pem_body.lines());
        v
    }
}

struct Repo {
    _tmp: Tree,
    root: PathBuf,
    repo: PathBuf,
    s: Secrets,
}

fn repo() -> Repo {
    let tree = Tree::new("app");
    let (root, repo) = (tree.base.clone(), tree.repo.clone());
    fs::create_dir_all(repo.join("src")).unwrap();
    fs::create_dir_all(repo.join("keys")).unwrap();
    let s = secrets();
    let w = |rel: &str, text: String| fs::write(repo.join(rel), text).unwrap();
    w(
        "src/config.py",
        format!(
            "import os\n\nGITHUB_TOKEN = \"{}\"\nAWS_ACCESS_KEY_ID = \"{}\"\npassword = \"{}\"\n",
            s.github, s.aws_id, s.password
        ),
    );
    w(
        "src/db.rs",
        format!(
            "// connect\nconst URL: &str = \"postgres://admin:{}@db.internal:5432/app\";\nfn main() {{}}\n",
            s.db_password
        ),
    );
    w(
        "src/pay.js",
        format!("const stripe = require('stripe')('{}');\n", s.stripe),
    );
    w(
        "keys/deploy.txt",
        format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n",
            s.pem_body
        ),
    );
    // Lookalikes that must stay: a git SHA, a sha256, a UUID assigned to `token`.
    w(
        "src/lookalike.txt",
        "commit = \"3f786850e387550fdab836ed7e6dc881de23001b\"\n\
         sha256 = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"\n\
         token = \"123e4567-e89b-12d3-a456-426614174000\"\n"
            .into(),
    );
    w("README.md", "# app\n".into());
    Repo {
        _tmp: tree,
        root,
        repo,
        s,
    }
}

fn gnaw(repo: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gnaw"))
        .arg(repo)
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn assert_clean(r: &Repo, what: &str, out: &str) {
    for secret in r.s.all() {
        assert!(!out.contains(secret), "{what}: a secret leaked");
    }
}

#[test]
fn redact_leaves_no_secret_in_any_cli_format_and_marks_each_one() {
    let r = repo();
    for format in ["markdown", "xml", "json"] {
        let o = gnaw(&r.repo, &["--secrets", "redact", "--format", format]);
        let out = text(&o);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_clean(&r, format, &out);
        assert_clean(&r, "stderr", &err);
        for rule in [
            "github-token",
            "aws-access-key-id",
            "stripe-live-key",
            "connection-string",
            "private-key",
        ] {
            assert!(
                out.contains(&format!("[REDACTED:{rule}]")),
                "{format}: {rule}"
            );
        }
        // Lookalikes stay verbatim.
        assert!(out.contains("3f786850e387550fdab836ed7e6dc881de23001b"));
        assert!(out.contains("123e4567-e89b-12d3-a456-426614174000"));
        // Key markers stay so the reader knows a key was there.
        assert!(out.contains("-----BEGIN RSA PRIVATE KEY-----"));
    }
}

#[test]
fn findings_name_rule_path_and_line_never_the_secret() {
    let r = repo();
    let o = gnaw(&r.repo, &["--json", "-q", "--secrets", "warn"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let found: Vec<(String, String, u64)> = items(&v["secrets"])
        .iter()
        .map(|f| {
            (
                str_field(f, "rule"),
                str_field(f, "path"),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    for expected in [
        ("github-token", "src/config.py", 3),
        ("aws-access-key-id", "src/config.py", 4),
        ("connection-string", "src/db.rs", 2),
        ("stripe-live-key", "src/pay.js", 1),
        ("private-key", "keys/deploy.txt", 2),
    ] {
        let e = (expected.0.to_string(), expected.1.to_string(), expected.2);
        assert!(found.contains(&e), "missing {e:?} in {found:?}");
    }
    assert!(
        !found.iter().any(|f| f.1 == "src/lookalike.txt"),
        "{found:?}"
    );
    assert_clean(&r, "json summary", &String::from_utf8_lossy(&o.stdout));
    // The CLI's default is warn: text unchanged, findings on stderr.
    let o = gnaw(&r.repo, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("secret github-token at src/config.py:3"),
        "{err}"
    );
    assert!(
        text(&o).contains(&r.s.github),
        "warn does not change the text"
    );
    assert_clean(&r, "stderr", &err);
}

#[test]
fn block_drops_files_and_off_reports_nothing() {
    let r = repo();
    let v: Value =
        serde_json::from_slice(&gnaw(&r.repo, &["--json", "-q", "--secrets", "block"]).stdout)
            .unwrap();
    let skipped = pairs(&v["skipped_list"], "path", "reason");
    for p in [
        "src/config.py",
        "src/db.rs",
        "src/pay.js",
        "keys/deploy.txt",
    ] {
        assert!(
            skipped.contains(&(p.into(), "secret".into())),
            "{p}: {skipped:?}"
        );
    }
    let out = text(&gnaw(&r.repo, &["-q", "--secrets", "block"]));
    assert_clean(&r, "block", &out);
    assert!(out.contains("### `README.md`"));

    let v: Value =
        serde_json::from_slice(&gnaw(&r.repo, &["--json", "-q", "--secrets", "off"]).stdout)
            .unwrap();
    assert_eq!(v["secrets"], json!([]));
}

#[test]
fn allow_list_by_path_and_fingerprint() {
    let r = repo();
    fs::write(
        r.repo.join(".gnawconfig"),
        "[secrets]\nmode = \"redact\"\nallow_paths = [\"src/pay.js\"]\nallow_fingerprints = [\"src/db.rs:connection-string:2\"]\n",
    )
    .unwrap();
    let out = text(&gnaw(&r.repo, &["-q"]));
    assert!(out.contains(&r.s.stripe), "allowed by path");
    assert!(out.contains(&r.s.db_password), "allowed by fingerprint");
    assert!(!out.contains(&r.s.github), "everything else still redacted");
}

#[test]
fn token_counts_are_of_the_redacted_text() {
    let r = repo();
    let out = text(&gnaw(&r.repo, &["-q", "--secrets", "redact"]));
    let est = text(&gnaw(&r.repo, &["-q", "--secrets", "redact", "--estimate"]));
    let exact = tiktoken_rs::o200k_base()
        .unwrap()
        .encode_ordinary(&out)
        .len();
    assert_eq!(est, format!("{exact} o200k_base\n"));
}

#[test]
fn sensitive_files_stay_out_unless_the_operator_names_them() {
    let r = repo();
    let env_secret = secrets().password + "ENV";
    fs::write(r.repo.join(".env"), format!("API_KEY={env_secret}\n")).unwrap();
    fs::write(r.repo.join("server.key"), "not even a real key\n").unwrap();
    fs::write(
        r.repo.join(".npmrc"),
        "registry=https://registry.npmjs.org/\n",
    )
    .unwrap();
    let v: Value =
        serde_json::from_slice(&gnaw(&r.repo, &["--json", "-q", "--hidden"]).stdout).unwrap();
    let reasons = pairs(&v["skipped_list"], "path", "reason");
    for p in [".env", "server.key"] {
        assert!(
            reasons.contains(&(p.into(), "sensitive".into())),
            "{reasons:?}"
        );
    }
    // An .npmrc without credentials is ordinary.
    assert!(!reasons.iter().any(|r| r.0 == ".npmrc"), "{reasons:?}");
    // A CLI include does not unlock it; the operator's .gnawconfig does.
    let out = text(&gnaw(&r.repo, &["-q", "--hidden", "-i", ".env"]));
    assert!(!out.contains(&env_secret));
    fs::write(
        r.repo.join(".gnawconfig"),
        "include = [\".env\", \"src/**\"]\n",
    )
    .unwrap();
    let out = text(&gnaw(&r.repo, &["-q", "--hidden", "--secrets", "off"]));
    assert!(out.contains(&env_secret));
}

fn mcp_text(resp: &Value) -> String {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn mcp_redacts_by_default_and_the_operator_floor_holds() {
    let r = repo();
    let mut s = Server::start(&r.root, &[("GNAW_MCP_DEFAULT_BUDGET", "0")]);
    s.initialize("2025-06-18");
    let resp = s.call("extract", json!({"repo": "app"}));
    let out = mcp_text(&resp);
    assert!(out.contains("[REDACTED:github-token]"), "{resp}");
    assert_clean(&r, "mcp extract", &resp.to_string());
    let est = s.call("estimate", json!({"repo": "app"}));
    let found = est["result"]["structuredContent"]["secrets"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        found
            .iter()
            .any(|f| f["rule"] == "github-token" && f["line"] == 3),
        "{est}"
    );
    assert_clean(&r, "mcp estimate", &est.to_string());
    let (_, stderr) = s.finish();
    assert_clean(&r, "mcp stderr", &stderr);

    // The repo's own config cannot lower the mode below the operator's floor.
    fs::write(r.repo.join(".gnawconfig"), "secrets = \"off\"\n").unwrap();
    let resp = served_extract(&r, &[("GNAW_MCP_SECRETS_FLOOR", "redact")]);
    assert_clean(&r, "floored extract", &resp.to_string());
    assert!(mcp_text(&resp).contains("[REDACTED:"));
    // Without a floor, a weaker mode is still a widening the operator must allow (policy.rs).
    let resp = served_extract(&r, &[]);
    assert_clean(&r, "unallowed repo mode", &resp.to_string());
    let resp = served_extract(&r, &[("GNAW_MCP_REPO_MAY_WIDEN", "secrets")]);
    assert!(mcp_text(&resp).contains(&r.s.github));
}

/// `extract` of the whole of `app` through a new server with no default budget and `env`.
fn served_extract(r: &Repo, env: &[(&str, &str)]) -> Value {
    let mut all = vec![("GNAW_MCP_DEFAULT_BUDGET", "0")];
    all.extend_from_slice(env);
    let mut s = Server::start(&r.root, &all);
    s.initialize("2025-06-18");
    s.call("extract", json!({"repo": "app"}))
}
