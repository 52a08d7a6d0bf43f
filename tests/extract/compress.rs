//! `extract --compress` (MCP `compress: true`) end to end, through the real binaries: skeletons
//! keep every definition tree-sitter finds and mark each elided body with its exact lines; the
//! graded budget (whole, then skeleton, then omitted) never exceeds the budget, counted
//! independently (tiktoken-rs), over random budgets, queries and formats; the prompt and the
//! summary say which files are skeletons; MCP `extract` gives the CLI's bytes.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;

use common::cli::{gnaw_on as gnaw, ok_stdout, reference_count};
use common::{mcp_client, xorshift};

use mcp_client::Server;
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use xorshift::Rng;

/// The prompt (written with `-o`) and the `--json` summary of one run.
fn run(repo: &Path, args: &[&str]) -> (String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("prompt");
    let mut all = vec!["--json", "-q", "-o", file.to_str().unwrap()];
    all.extend_from_slice(args);
    let summary: Value = serde_json::from_str(&ok_stdout(gnaw(repo, &all))).unwrap();
    (fs::read_to_string(&file).unwrap(), summary)
}

const WORDS: &[&str] = &[
    "parse",
    "token",
    "budget",
    "retry",
    "HTTPServer",
    "get_value",
    "résumé",
    "数据",
    "cache",
    "query",
    "index",
    "// note",
    "0x1F",
    "π",
    "```",
    "self.inner",
    "snake_case",
];

/// How a file in `lang` is written: its head, a body line's indent and comment marker,
/// function `i` around its body `b`, and its tail.
type Language = (
    &'static str,
    &'static str,
    &'static str,
    fn(usize, &str) -> String,
    &'static str,
);

fn language(lang: &str) -> Language {
    match lang {
        "rs" => (
            "use std::io;\n\n/// A widget.\npub struct Widget {\n    a: u32,\n}\n\nimpl Widget {\n",
            "        ",
            "//",
            |i, b| {
                format!(
                    "    /// Step {i}.\n    pub fn step_{i}(&self, x: u32) -> u32 {{\n{b}        x + {i}\n    }}\n\n"
                )
            },
            "}\n",
        ),
        "py" => (
            "import os\n\n\nclass Widget:\n    \"\"\"A widget.\"\"\"\n\n",
            "        ",
            "#",
            |i, b| {
                format!(
                    "    def step_{i}(self, x):\n        \"\"\"Step {i}.\"\"\"\n{b}        return x + {i}\n\n"
                )
            },
            "",
        ),
        "js" => (
            "import fs from \"fs\";\n\n",
            "  ",
            "//",
            |i, b| {
                format!(
                    "/** Step {i}. */\nexport function step{i}(x) {{\n{b}  return x + {i};\n}}\n\n"
                )
            },
            "",
        ),
        _ => (
            "package w\n\nimport \"fmt\"\n\n",
            "\t",
            "//",
            |i, b| {
                format!(
                    "// Step{i} steps.\nfunc Step{i}(x int) int {{\n{b}\tfmt.Println(x)\n\treturn x + {i}\n}}\n\n"
                )
            },
            "",
        ),
    }
}

/// One source file in `lang` with `n` functions of random length, in a class where it has one.
fn source(rng: &mut Rng, lang: &str, n: usize) -> String {
    let mut s = String::new();
    let body = |rng: &mut Rng, indent: &str, comment: &str| {
        let mut b = String::new();
        for _ in 0..rng.below(12) {
            b.push_str(indent);
            b.push_str(comment);
            b.push(' ');
            for _ in 0..(1 + rng.below(8)) {
                b.push_str(WORDS[rng.below(WORDS.len())]);
                b.push(' ');
            }
            b.push('\n');
        }
        b
    };
    let (head, indent, comment, step, tail) = language(lang);
    s.push_str(head);
    for i in 0..n {
        let b = body(rng, indent, comment);
        s.push_str(&step(i, &b));
    }
    s.push_str(tail);
    s
}

fn repo(base: &Path, seed: u64) -> PathBuf {
    let repo = base.join("proj");
    let mut rng = Rng(seed);
    for (d, lang) in [
        ("core", "rs"),
        ("py", "py"),
        ("web", "js"),
        ("svc", "go"),
        ("core/deep", "rs"),
    ] {
        fs::create_dir_all(repo.join(d)).unwrap();
        for f in 0..(2 + rng.below(4)) {
            let n = 1 + rng.below(14);
            fs::write(
                repo.join(format!("{d}/m{f}.{lang}")),
                source(&mut rng, lang, n),
            )
            .unwrap();
        }
    }
    fs::write(
        repo.join("README.md"),
        "# proj\n\nretry cache budget docs\n".repeat(20),
    )
    .unwrap();
    fs::write(
        repo.join("notes.txt"),
        "plain text, no grammar\n".repeat(30),
    )
    .unwrap();
    repo
}

/// The file headings of a markdown prompt, each with whether it is marked a skeleton.
fn headings(prompt: &str) -> Vec<(String, bool)> {
    prompt
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .map(|h| {
            let skeleton = h.contains("(skeleton)");
            let path = h.split('`').nth(1).unwrap_or(h).to_string();
            (path, skeleton)
        })
        .collect()
}

#[test]
fn skeletons_keep_every_definition_and_name_each_elided_range() {
    let base = tempfile::tempdir().unwrap();
    let repo = repo(base.path(), 0x0000_c0de_5eed);
    let (full, full_summary) = run(&repo, &[]);
    let (compressed, summary) = run(&repo, &["--compress"]);
    assert_eq!(summary["files"], full_summary["files"]);
    assert!(summary["skeletons"].as_u64().unwrap() > 5, "{summary}");
    assert!(
        reference_count(&compressed) * 10 < reference_count(&full) * 8,
        "compress saved too little: {} vs {}",
        reference_count(&compressed),
        reference_count(&full)
    );
    assert_eq!(
        summary["tokens"].as_u64().unwrap() as usize,
        reference_count(&compressed)
    );
    let marked = headings(&compressed);
    assert_eq!(
        marked.iter().filter(|(_, s)| *s).count() as u64,
        summary["skeletons"].as_u64().unwrap()
    );
    // Files without a grammar stay whole.
    assert!(
        marked.iter().any(|(p, s)| p == "README.md" && !s),
        "{marked:?}"
    );
    assert!(
        marked.iter().any(|(p, s)| p == "notes.txt" && !s),
        "{marked:?}"
    );
    for (path, skeleton) in marked.iter().filter(|(_, s)| *s) {
        let original = fs::read_to_string(repo.join(path)).unwrap();
        let lines: Vec<&str> = original.lines().collect();
        // Every definition outline finds is still in the skeleton, by its first line.
        let outline = ok_stdout(
            Command::new(env!("CARGO_BIN_EXE_gnaw"))
                .args(["outline", repo.to_str().unwrap(), path])
                .output()
                .unwrap(),
        );
        let section = compressed.split(&format!("### `{path}`")).nth(1).unwrap();
        let section = section.split("\n### ").next().unwrap();
        let mut defs = 0;
        for row in outline.lines().skip(1) {
            let start: usize = row.trim_start().split('-').next().unwrap().parse().unwrap();
            assert!(section.contains(lines[start - 1]), "{path}: {row} lost");
            defs += 1;
        }
        assert!(defs > 0 && *skeleton, "{path}");
        // Each marker names the lines it stands for, and they are the lines left out.
        let mut markers = 0;
        for l in section.lines().filter(|l| l.trim_start().starts_with('⋯')) {
            markers += 1;
            let t = l.trim_start().trim_start_matches("⋯ ");
            let (n, range) = t.split_once(" lines (").unwrap();
            let (a, b) = range.trim_end_matches(')').split_once('–').unwrap();
            let (n, a, b): (usize, usize, usize) =
                (n.parse().unwrap(), a.parse().unwrap(), b.parse().unwrap());
            assert_eq!(n, b - a + 1, "{l}");
            for elided in &lines[a - 1..b] {
                if elided.trim().len() > 12 {
                    assert!(
                        !section.contains(&format!("\n{elided}\n")),
                        "{path}: elided line {elided:?} still shown"
                    );
                }
            }
        }
        assert!(markers > 0, "{path}: a skeleton without a marker");
    }
}

#[test]
fn graded_budgets_never_exceed_the_budget() {
    let base = tempfile::tempdir().unwrap();
    let repo = repo(base.path(), 0x0000_0bad_cafe);
    let (full, full_summary) = run(&repo, &[]);
    let total = reference_count(&full);
    let all_files = full_summary["files"].as_u64().unwrap() as usize;
    let queries = [
        "",
        "retry cache",
        "Widget step_3",
        "HTTPServer",
        "parse token budget",
    ];
    let mut rng = Rng(0x0000_9a9e_d000);
    let mut graded = 0;
    for round in 0..24 {
        let budget = 400 + rng.below(total);
        let query = queries[rng.below(queries.len())];
        let format = ["markdown", "xml", "json"][rng.below(3)];
        let b = budget.to_string();
        let mut args = vec!["--compress", "--budget", b.as_str(), "--format", format];
        if !query.is_empty() {
            args.extend(["--query", query]);
        }
        let (prompt, summary) = run(&repo, &args);
        let counted = reference_count(&prompt);
        assert!(
            counted <= budget,
            "round {round}: {counted} > {budget} ({args:?})"
        );
        assert_eq!(
            summary["tokens"].as_u64().unwrap() as usize,
            counted,
            "{args:?}"
        );
        let files = summary["file_list"].as_array().unwrap();
        let skeletons = files.iter().filter(|f| f["skeleton"] == true).count();
        assert_eq!(summary["skeletons"].as_u64().unwrap() as usize, skeletons);
        let omitted = summary["omitted_list"].as_array().unwrap().len();
        // Every file is whole, a skeleton or omitted.
        assert_eq!(files.len() + omitted, all_files, "{args:?}");
        if skeletons > 0 && omitted + files.len() > skeletons {
            graded += 1;
        }
        if format == "markdown" {
            let marked = headings(&prompt);
            assert_eq!(marked.iter().filter(|(_, s)| *s).count(), skeletons);
            assert_eq!(marked.len(), files.len());
        }
    }
    assert!(
        graded >= 4,
        "too few runs mixed whole files and skeletons: {graded}"
    );
}

#[test]
fn mcp_extract_with_compress_is_the_cli_bytes() {
    let base = tempfile::tempdir().unwrap();
    let repo = repo(base.path(), 0x0000_5a3e_b17e);
    let mut s = Server::start(base.path(), &[]);
    s.initialize("2025-11-25");
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (json!({"compress": true, "budget": 0}), vec!["--compress"]),
        (
            json!({"compress": true, "budget": 3000, "query": "retry"}),
            vec!["--compress", "--budget", "3000", "--query", "retry"],
        ),
        (json!({"compress": false, "budget": 0}), vec![]),
    ];
    for (extra, flags) in cases {
        let mut args = json!({"repo": "proj"});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        let resp = s.call("extract", args.clone());
        let text = resp["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        let cli = ok_stdout(gnaw(&repo, &flags));
        assert!(text == cli, "extract {args} differs from gnaw {flags:?}");
        let est = s.call("estimate", args.clone());
        let (_, summary) = run(&repo, &flags);
        let e = &est["result"]["structuredContent"];
        assert_eq!(e["tokens"], summary["tokens"], "{args}");
        assert_eq!(e["skeletons"], summary["skeletons"], "{args}");
        // The tool says how many files are skeletons, when any are.
        let noted = resp["result"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["text"].as_str().unwrap().contains("shown as skeletons"));
        assert_eq!(noted, summary["skeletons"] != 0, "{args}: {resp:.300}");
    }
    let resp = s.call("extract", json!({"repo": "proj", "compress": "yes"}));
    assert_eq!(resp["error"]["code"], -32602, "{resp}");
    s.finish_ok();
}

#[test]
fn warm_skeletons_are_the_cold_ones_and_follow_edits() {
    let base = tempfile::tempdir().unwrap();
    let repo = repo(base.path(), 0x0000_beef_0042);
    let mut s = Server::start(base.path(), &[("RUST_LOG", "info")]);
    s.initialize("2025-11-25");
    let extract = |s: &mut Server| {
        let resp = s.call(
            "extract",
            json!({"repo": "proj", "compress": true, "budget": 0}),
        );
        let text = resp["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        std::thread::sleep(std::time::Duration::from_millis(150));
        (
            text,
            mcp_client::cache_stat(&s.stderr(), "skeleton_hits"),
            mcp_client::cache_stat(&s.stderr(), "skeleton_misses"),
        )
    };
    let cli = ok_stdout(gnaw(&repo, &["--compress"]));
    let (cold, hits0, misses0) = extract(&mut s);
    assert!(cold == cli, "cold compress differs from the CLI");
    assert!(misses0 > 0, "nothing was parsed");
    let (warm, hits1, misses1) = extract(&mut s);
    assert!(warm == cold, "warm compress differs from cold");
    assert_eq!(misses1, misses0, "the warm call parsed again");
    assert!(
        hits1 > hits0,
        "the warm call took no skeleton from the cache"
    );
    // An edited file is parsed again (its text is another key) and shows its new definition.
    let edited = fs::read_dir(repo.join("core"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "rs"))
        .expect("a Rust file");
    let mut text = fs::read_to_string(&edited).unwrap();
    text.push_str("\npub fn added_after_the_first_call(x: u32) -> u32 {\n    x + 1\n}\n");
    fs::write(&edited, text).unwrap();
    let (again, _, misses2) = extract(&mut s);
    assert!(misses2 > misses1, "the edited file was not parsed again");
    assert!(again.contains("pub fn added_after_the_first_call(x: u32) -> u32"));
    assert!(
        again == ok_stdout(gnaw(&repo, &["--compress"])),
        "after the edit"
    );
    s.finish_ok();
}
