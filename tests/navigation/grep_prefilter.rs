//! grep's file prefilter changes nothing in an answer: over a corpus of patterns (literals,
//! classes, alternations, anchors, case-insensitive, fixed strings, the redaction marker, a
//! secret's own bytes, text that only matches across a redacted secret) and every secrets mode,
//! the answer of `gnaw grep` equals the answer to the same pattern with a branch added that can
//! match no line (`(?:P)|\A\z`), which no prefilter can be derived from, so every file is
//! scanned and searched in full. Through gnaw-mcp the same holds cold and warm (the warm cache's
//! path), with the server's default `redact`.
//!
//! The corpus is checked to exercise the prefilter: most of its patterns have one, and the
//! wrapped form never does.

#![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

use super::github_token;
use crate::common;

use common::mcp_client;

use gnaw::stages::grep::{Matcher, PatternOptions};
use mcp_client::Server;
use serde_json::json;
use std::fs;
use std::path::Path;
use std::time::Duration;

fn aws_key() -> String {
    format!("{}{}", "AK", "IA") + "QW3RT5YU7IO2PA4S"
}

/// A repository with plain sources, secrets of several rules (one spanning lines), a file that
/// spells the redaction marker itself, a binary file, a sensitive file and a lossy one.
fn repo(root: &Path) {
    let gh = github_token();
    let aws = aws_key();
    let w = |rel: &str, text: &str| {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    };
    w(
        "src/parser.rs",
        "fn parse_expr(p: &mut Parser) -> Expr {\n    parse_binary(p, 0)\n}\n\n\
         pub fn parse_stmt() {}\n// TODO: Parse_Expr handles Unicode \u{212A}elvin\n",
    );
    w(
        "src/lexer.rs",
        "pub struct Lexer { pos: usize }\nimpl Lexer {\n    fn next_token(&mut self) {}\n}\n",
    );
    w(
        "src/config.rs",
        &format!(
            "const REGION: &str = \"eu-west-1\";\nlet github = \"{gh}\"; // ci token\n\
             let aws_key = \"{aws}\";\nfn after_secret() {{}}\n"
        ),
    );
    w(
        "src/keys.rs",
        "let pem = r#\"\n-----BEGIN RSA PRIVATE KEY-----\n\
         MIIEowIBAAKCAQEAuW1pGsL3kq9nXz8vR7tY2hQ4mJ6bP0cF5dA1eS3gH8iK2lN\n\
         x9Yt3Wq5Er7Ty1Ui3Op5As7Df9Gh1Jk3Lz5Xc7Vb9Nm1Qw3Er5Ty7Ui9Op1As3Df\n\
         -----END RSA PRIVATE KEY-----\n\"#; // end of key\nfn after_key() {}\n",
    );
    w(
        "docs/redaction.md",
        "Secrets show as [REDACTED:github-token] in answers.\nThat marker is text here.\n",
    );
    w(
        "docs/notes.txt",
        "password handling is documented elsewhere\nparse_expr is the entry point\n",
    );
    w(".env", &format!("GITHUB_TOKEN={gh}\n"));
    fs::write(root.join("src/blob.bin"), b"parse_expr\0\x01\x02binary").unwrap();
    fs::write(root.join("src/latin1.txt"), b"caf\xe9 parse_expr\n").unwrap();
    for i in 0..20 {
        w(
            &format!("src/gen/m{i}.rs"),
            &format!("pub fn item_{i}() -> u32 {{ {i} }}\n").repeat(5),
        );
    }
}

/// The patterns: (pattern, ignore_case, fixed_strings).
fn patterns() -> Vec<(String, bool, bool)> {
    let gh = github_token();
    let aws = aws_key();
    let mut v: Vec<(String, bool, bool)> = [
        r"fn\s+parse_expr",
        "parse_expr",
        "Parse_Expr",
        "fn",
        r"pub fn item_\d+",
        "item_1[0-9]",
        "parse_(expr|stmt)",
        "lexer|parser|nothing_at_all",
        "^pub",
        "Expr$",
        r"\bLexer\b",
        "[A-Z]{3,}",
        r"\w+_token",
        "REDACTED",
        r"\[REDACTED:github-token\]",
        "github-token",
        r#"token\]"; // ci"#,
        r"= \[RED",
        r#"\]"; // ci token"#,
        "PRIVATE KEY",
        r"r#.\[RED",
        r"\[REDACTED:private-key\]",
        "ghp_",
        "AKIA[A-Z2-7]{16}",
        "MIIEow",
        "caf",
        "end of key",
        "after_(secret|key)",
        "nothing_matches_this",
        "a*",
        "^$",
    ]
    .iter()
    .map(|p| (p.to_string(), false, false))
    .collect();
    for p in ["parse_expr", "kelvin", "redacted", "GITHUB-TOKEN", "lexer"] {
        v.push((p.into(), true, false));
    }
    for p in [
        gh.as_str(),
        &gh[..10],
        aws.as_str(),
        "[REDACTED:",
        "fn parse_expr(",
        "a.b",
    ] {
        v.push((p.into(), false, true));
        v.push((p.into(), true, true));
    }
    v
}

/// The same search with no prefilter: a branch that matches no line of a non-empty text.
fn unfiltered(pattern: &str, fixed: bool) -> String {
    let p = if fixed {
        regex::escape(pattern)
    } else {
        pattern.to_string()
    };
    format!(r"(?:{p})|\A\z")
}

/// An answer from its totals on (`: N matches in F files; ...`): the words before repeat the
/// pattern and its flags.
fn after_pattern(text: &str) -> &str {
    let totals = regex::Regex::new(r": \d+ match").unwrap();
    totals.find(text).map_or(text, |m| &text[m.start()..])
}

fn grep_cli(repo: &Path, pattern: &str, ic: bool, fixed: bool, mode: &str) -> String {
    let repo = repo.to_str().unwrap();
    let mut args = vec![
        "grep",
        repo,
        pattern,
        "--secrets",
        mode,
        "--budget",
        "0",
        "-C",
        "1",
    ];
    if ic {
        args.push("-i");
    }
    if fixed {
        args.push("-F");
    }
    common::cli::ok_stdout(common::cli::gnaw(&args))
}

#[test]
fn the_corpus_exercises_the_prefilter() {
    let pats = patterns();
    let with = pats
        .iter()
        .filter(|(p, ic, fixed)| {
            let opts = PatternOptions {
                fixed_strings: *fixed,
                ignore_case: *ic,
            };
            Matcher::new(p, opts).unwrap().prefilter().is_some()
        })
        .count();
    assert!(with * 4 >= pats.len() * 3, "{with} of {}", pats.len());
    for (p, ic, fixed) in &pats {
        let opts = PatternOptions {
            fixed_strings: false,
            ignore_case: *ic,
        };
        let m = Matcher::new(&unfiltered(p, *fixed), opts).unwrap();
        assert!(m.prefilter().is_none(), "{p}");
    }
}

#[test]
fn prefiltered_answers_equal_full_searches_in_every_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    repo(&root);
    let gh = github_token();
    let mut found = 0;
    for mode in ["off", "warn", "redact", "block"] {
        for (p, ic, fixed) in patterns() {
            let got = grep_cli(&root, &p, ic, fixed, mode);
            let want = grep_cli(&root, &unfiltered(&p, fixed), ic, false, mode);
            assert_eq!(
                after_pattern(&got),
                after_pattern(&want),
                "mode {mode}, pattern {p:?} (ignore case {ic}, fixed {fixed})"
            );
            if matches!(mode, "redact" | "block") {
                // (The pattern itself is echoed in the first words.)
                let shown = after_pattern(&got);
                assert!(!shown.contains(&gh[4..]), "{mode} {p}: the token is shown");
            }
            found += usize::from(!got.contains(": 0 matches"));
        }
    }
    assert!(found > 40, "too few patterns match anything: {found}");
    // What the model is shown is what it finds: the marker, across the secret, not the secret.
    let marker = grep_cli(&root, r#"token\]"; // ci"#, false, false, "redact");
    assert!(marker.contains(": 1 match in 1 file"), "{marker}");
    let secret = grep_cli(&root, "ghp_", false, false, "redact");
    assert!(secret.contains(": 0 matches"), "{secret}");
    let joined = grep_cli(&root, r"\[REDACTED:private-key\]", false, false, "redact");
    assert!(joined.contains(" in 1 file"), "{joined}");
    let warned = grep_cli(&root, "ghp_", false, false, "warn");
    assert!(warned.contains(": 1 match in 1 file"), "{warned}");
}

#[test]
fn the_server_answers_the_same_cold_and_warm() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    repo(&root.join("repo"));
    // Files changed in the last two seconds are never cached.
    std::thread::sleep(Duration::from_millis(2100));
    let mut s = Server::start(&root, &[]);
    s.initialize("2025-11-25");
    let mut call = |pattern: &str, ic: bool, fixed: bool| {
        let resp = s.call(
            "grep",
            json!({"repo": "repo", "pattern": pattern, "ignore_case": ic,
                   "fixed_strings": fixed, "context": 1, "budget": 0}),
        );
        let mut sc = resp["result"]["structuredContent"].clone();
        assert!(sc.is_object(), "{pattern}: {resp}");
        sc["answer_tokens"] = json!(0);
        let text = resp["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        (
            after_pattern(&text).to_string(),
            sc["total_matches"].clone(),
        )
    };
    for round in ["cold", "warm"] {
        for (p, ic, fixed) in patterns() {
            let got = call(&p, ic, fixed);
            let want = call(&unfiltered(&p, fixed), ic, false);
            assert_eq!(
                got, want,
                "{round}: pattern {p:?} (ignore case {ic}, fixed {fixed})"
            );
        }
    }
}
