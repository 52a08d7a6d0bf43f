//! grep searches files as the walk finds them, in whatever order its threads meet them; its
//! answer must not show it. Over a repository of many nested directories (names whose byte
//! order differs from a per-directory order: `a-b/` sorts before `a/`, `B` before `a`), ignored,
//! hidden, binary, oversized and sensitive files and a redacted secret, every match is listed
//! in path order then line order exactly as the test works it out from the files themselves,
//! the totals and the not-searched tally are exact, and the answer is byte-identical through
//! the CLI run after run and through gnaw-mcp cold and warm.

#![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

use super::github_token;
use crate::common;

use common::mcp_client::Server;
use serde_json::json;
use std::fs;
use std::path::Path;
use std::time::Duration;

/// The repository; returns every file that is searched, with its text as the model sees it
/// (the secret redacted), by its path.
fn repo(root: &Path) -> Vec<(String, String)> {
    let w = |rel: &str, text: &[u8]| {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    };
    let mut searched = Vec::new();
    let mut put = |rel: String, text: String| {
        w(&rel, text.as_bytes());
        searched.push((rel, text));
    };
    // 3 x 4 x 3 directories of 4 files, top names chosen so byte order is not listing order.
    let mut n = 0u32;
    for top in ["a", "a-b", "B", "z.d"] {
        for mid in ["m0", "m1", "m1.x"] {
            for leaf in ["", "/l0", "/l1", "/l0/deep"] {
                for f in 0..4 {
                    n += 1;
                    let mut text = String::new();
                    for line in 1..=(5 + n % 7) {
                        if (n + line).is_multiple_of(5) {
                            text.push_str(&format!("fn needle_{n}_{line}() {{}}\n"));
                        } else {
                            text.push_str(&format!("let hay_{n} = {line};\n"));
                        }
                    }
                    put(format!("{top}/{mid}{leaf}/f{f}.rs"), text);
                }
            }
        }
    }
    put("top.rs".into(), "fn needle_top() {}\n".into());
    put("Top.rs".into(), "// no match here\n".into());
    // A secret on a matching line: the line is shown, and found, with the secret redacted.
    let token = github_token();
    w(
        "a/m0/secret.rs",
        format!("fn needle_key() {{ let t = \"{token}\"; }}\n").as_bytes(),
    );
    searched.push((
        "a/m0/secret.rs".into(),
        "fn needle_key() { let t = \"[REDACTED:github-token]\"; }\n".into(),
    ));
    // Not searched, though each holds the pattern: ignored, hidden, binary, too large,
    // sensitive.
    w(".gitignore", b"target/\n*.log\n");
    w("target/gen.rs", b"fn needle_ignored() {}\n");
    w("a/run.log", b"fn needle_log() {}\n");
    w(".hidden/h.rs", b"fn needle_hidden() {}\n");
    w("B/blob.rs", b"fn needle_binary() {}\0\0\n");
    let mut big = b"fn needle_big() {}\n".to_vec();
    big.resize(2 << 20, b'x');
    w("z.d/big.rs", &big);
    w("a-b/id_rsa", b"fn needle_sensitive() {}\n");
    searched.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    searched
}

/// The answer the files call for: the header and, per file with matches in byte order of its
/// path, its matching lines in order.
fn expected(searched: &[(String, String)]) -> (String, Vec<String>) {
    let re = regex::Regex::new(r"fn needle_\w+").unwrap();
    let mut rows = Vec::new();
    let (mut matches, mut files) = (0, 0);
    for (path, text) in searched {
        let lines: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| re.is_match(l))
            .collect();
        if lines.is_empty() {
            continue;
        }
        files += 1;
        matches += lines.len();
        let word = if lines.len() == 1 { "match" } else { "matches" };
        rows.push(format!("==> {path}: {} {word}", lines.len()));
        for (i, l) in lines {
            rows.push(format!("{}:{l}", i + 1));
        }
    }
    let head = format!(
        "grep \"fn needle_\\\\w+\": {matches} matches in {files} files; {} files searched; \
         not searched: 1 binary, 1 sensitive, 1 too_large",
        searched.len()
    );
    (head, rows)
}

fn grep_cli(repo: &Path) -> String {
    let repo = repo.to_str().unwrap();
    let args = [
        "grep",
        repo,
        r"fn needle_\w+",
        "--secrets",
        "redact",
        "--budget",
        "0",
        "-m",
        "100000",
    ];
    common::cli::ok_stdout(common::cli::gnaw(&args))
}

#[test]
fn matches_come_in_path_order_and_every_surface_answers_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let searched = repo(&root.join("repo"));
    assert!(searched.len() > 190, "{}", searched.len());
    let cli = grep_cli(&root.join("repo"));
    let (head, rows) = expected(&searched);
    let mut lines = cli.lines();
    assert_eq!(lines.next(), Some(head.as_str()), "{cli}");
    // (`--` parts two matches of one file that are not next to each other.)
    let got: Vec<&str> = lines.filter(|l| !l.is_empty() && *l != "--").collect();
    assert_eq!(got, rows);
    // The same bytes run after run (the threads meet the files in another order each time).
    for _ in 0..4 {
        assert!(grep_cli(&root.join("repo")) == cli, "another answer: {cli}");
    }
    // Files changed in the last two seconds are never cached: wait, so the warm call is warm.
    std::thread::sleep(Duration::from_millis(2100));
    let mut s = Server::start(&root, &[]);
    s.initialize("2025-11-25");
    for round in ["cold", "warm", "warm again"] {
        let resp = s.call(
            "grep",
            json!({"repo": "repo", "pattern": r"fn needle_\w+", "budget": 0,
                   "max_matches": 100000}),
        );
        let text = resp["result"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(text, cli, "{round}");
    }
}
