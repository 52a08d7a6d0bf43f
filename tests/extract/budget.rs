//! The token budget, the ranking and profiles end to end, through the real `gnaw` binary and the
//! real `gnaw-mcp` server: every budgeted prompt is counted independently (tiktoken-rs's
//! `encode_ordinary`) and never exceeds the budget in any format; the omitted list accounts for
//! exactly the files left out and collapses by directory under a tight budget; the ranking is
//! deterministic; profiles merge and unknown ones are listed; MCP `extract` with a budget, query
//! and profile is byte-identical to `gnaw` with the same flags.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;

use common::cli::{gnaw_on as gnaw, ok_stdout, reference_count};
use common::json::{items, str_field};
use common::{deep_repo, mcp_client, xorshift};

use mcp_client::Server;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use xorshift::Rng;

/// The prompt (written with `-o`) and the `--json` summary of one run.
fn run(repo: &Path, args: &[&str]) -> (String, Value) {
    try_run(repo, args)
        .unwrap_or_else(|out| panic!("gnaw failed: {}", String::from_utf8_lossy(&out.stderr)))
}

/// [`run`], or the failed process's output.
fn try_run(repo: &Path, args: &[&str]) -> Result<(String, Value), Output> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("prompt");
    let mut all = vec!["--json", "-q", "-o", file.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = gnaw(repo, &all);
    if !out.status.success() {
        return Err(out);
    }
    let summary: Value = serde_json::from_str(&ok_stdout(out)).unwrap();
    Ok((fs::read_to_string(&file).unwrap(), summary))
}

fn paths_of(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

const WORDS: &[&str] = &[
    "parse",
    "token",
    "budget",
    "fn",
    "let",
    "match",
    "HTTPServer",
    "get_value",
    "résumé",
    "数据",
    "{",
    "}",
    "(",
    ");",
    "=>",
    "// note",
    "    ",
    "\n",
    "\n\n",
    "0x1F",
    "π",
    "`",
    "```",
    "<tag>",
    "&amp;",
    "\"q\"",
    "\\",
    "\t",
    "self.inner",
    "CamelCaseName",
    "snake_case_name",
];

fn text(rng: &mut Rng, words: u64) -> String {
    let mut s = String::new();
    for _ in 0..words {
        s.push_str(WORDS[rng.below(WORDS.len())]);
        s.push(if rng.below(5) == 0 { '\n' } else { ' ' });
    }
    s
}

/// A repo of `files` generated files in nested directories, plus a README and a manifest.
fn generated_repo(root: &Path, seed: u64, files: usize) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    fs::create_dir_all(root).unwrap();
    fs::write(
        root.join("README.md"),
        format!("# Repo {seed}\n\nWhat this is.\n"),
    )
    .unwrap();
    fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    let dirs = [
        "src",
        "src/net",
        "src/net/http",
        "tests",
        "docs",
        "examples",
        "vendor/dep",
    ];
    for k in 0..files {
        let dir = dirs[rng.below(dirs.len())];
        let ext = ["rs", "md", "txt", "py"][rng.below(4)];
        let path = root.join(dir).join(format!("f{k}.{ext}"));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let size = [5, 40, 200, 900][rng.below(4)];
        let words = rng.below(size) as u64 + 1;
        fs::write(path, text(&mut rng, words)).unwrap();
    }
}

/// Which omitted files each omitted entry covers: a file entry covers itself, a `dir/` entry
/// the files beneath it, an empty label everything not covered by an earlier entry.
fn check_omitted_entries(entries: &[Value], omitted: &BTreeMap<String, u64>) {
    let mut covered: BTreeSet<&str> = BTreeSet::new();
    for e in entries {
        let label = e["path"].as_str().unwrap();
        let members: Vec<&str> = omitted
            .keys()
            .map(String::as_str)
            .filter(|p| {
                if label.is_empty() {
                    true
                } else if label.ends_with('/') {
                    p.starts_with(label)
                } else {
                    *p == label
                }
            })
            .collect();
        assert_eq!(
            e["files"].as_u64().unwrap() as usize,
            members.len(),
            "entry {e}"
        );
        let tokens: u64 = members.iter().map(|p| omitted[*p]).sum();
        assert_eq!(e["tokens"].as_u64().unwrap(), tokens, "entry {e}");
        for m in members {
            assert!(covered.insert(m), "{m} is listed twice");
        }
    }
    assert_eq!(covered.len(), omitted.len(), "every omitted file is listed");
}

/// The omitted files of a `--json` summary, and the tokens each would have cost.
fn omitted_tokens(summary: &Value) -> BTreeMap<String, u64> {
    items(&summary["omitted_list"])
        .iter()
        .map(|o| (str_field(o, "path"), o["tokens"].as_u64().unwrap()))
        .collect()
}

/// A [`generated_repo`] `NAME` of `files` files from `seed`, in a fresh temporary directory.
fn generated(name: &str, seed: u64, files: usize) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join(name);
    generated_repo(&repo, seed, files);
    (tmp, repo)
}

#[test]
fn budgets_are_never_exceeded_and_the_omitted_list_is_exact() {
    let tmp = tempfile::tempdir().unwrap();
    let budgets = [150, 400, 1000, 2500, 6000, 15000];
    let queries: [&[&str]; 2] = [&[], &["--query", "http token parse"]];
    let mut trimmed_runs = 0;
    let mut case = 0;
    for seed in 1..=3u64 {
        let repo = tmp.path().join(format!("r{seed}"));
        generated_repo(&repo, seed, 20 + 20 * seed as usize);
        let (_, full) = run(&repo, &[]);
        let readable: BTreeSet<String> = paths_of(&full["file_list"]).into_iter().collect();
        for budget in budgets {
            for format in ["markdown", "xml", "json"] {
                {
                    // With and without a query, alternately, to keep the test fast.
                    case += 1;
                    let query = queries[case % 2];
                    let b = budget.to_string();
                    let mut args = vec!["--budget", &b, "--format", format];
                    args.extend_from_slice(query);
                    let (prompt, s) = match try_run(&repo, &args) {
                        Ok(r) => r,
                        Err(out) => {
                            // Only a budget below the smallest possible prompt may fail.
                            assert_eq!(out.status.code(), Some(2));
                            assert!(budget <= 400, "{budget} {format} failed");
                            assert!(String::from_utf8_lossy(&out.stderr).contains("too small"));
                            continue;
                        }
                    };
                    let counted = reference_count(&prompt);
                    let ctx = format!("seed {seed} budget {budget} {format} {query:?}");
                    assert!(counted <= budget, "{ctx}: {counted} tokens");
                    assert_eq!(s["tokens"].as_u64().unwrap() as usize, counted, "{ctx}");
                    // Kept and omitted partition the readable files.
                    let kept: BTreeSet<String> = paths_of(&s["file_list"]).into_iter().collect();
                    let omitted = omitted_tokens(&s);
                    assert!(kept.iter().all(|p| !omitted.contains_key(p)), "{ctx}");
                    let union: BTreeSet<String> = kept
                        .iter()
                        .cloned()
                        .chain(omitted.keys().cloned())
                        .collect();
                    assert_eq!(union, readable, "{ctx}");
                    assert_eq!(s["trimmed"], !omitted.is_empty(), "{ctx}");
                    if !omitted.is_empty() {
                        trimmed_runs += 1;
                    }
                    if format == "json" {
                        // The rendered omitted section accounts for exactly the omitted files.
                        let doc: Value = serde_json::from_str(&prompt).unwrap();
                        let files = paths_of(&doc["files"]);
                        assert_eq!(files, kept.iter().cloned().collect::<Vec<_>>(), "{ctx}");
                        if omitted.is_empty() {
                            assert!(doc.get("omitted").is_none(), "{ctx}");
                        } else {
                            let sec = &doc["omitted"];
                            assert_eq!(sec["files"], omitted.len(), "{ctx}");
                            assert_eq!(sec["tokens"], omitted.values().sum::<u64>(), "{ctx}");
                            check_omitted_entries(sec["entries"].as_array().unwrap(), &omitted);
                        }
                    } else if !omitted.is_empty() {
                        let marker = if format == "xml" {
                            "<omitted files="
                        } else {
                            "## Omitted to fit the token budget"
                        };
                        assert!(prompt.contains(marker), "{ctx}");
                    }
                }
            }
        }
    }
    assert!(trimmed_runs > 30, "the budgets should trim: {trimmed_runs}");
}

#[test]
fn a_thousand_files_under_a_few_thousand_tokens_collapse_by_directory() {
    let (_tmp, repo) = generated("big", 99, 1000);
    let (prompt, s) = run(&repo, &["--budget", "3000", "--format", "json"]);
    assert!(reference_count(&prompt) <= 3000);
    let kept = paths_of(&s["file_list"]);
    // The files that say what the project is survive.
    assert!(kept.contains(&"README.md".to_string()), "{kept:?}");
    assert!(kept.contains(&"Cargo.toml".to_string()), "{kept:?}");
    let doc: Value = serde_json::from_str(&prompt).unwrap();
    let entries = doc["omitted"]["entries"].as_array().unwrap();
    assert!(
        entries
            .iter()
            .any(|e| e["path"].as_str().unwrap().ends_with('/') && e["files"].as_u64() > Some(1)),
        "the omitted list is collapsed by directory: {entries:?}"
    );
    assert!(entries.len() < 50, "{} entries", entries.len());
    let omitted = omitted_tokens(&s);
    check_omitted_entries(entries, &omitted);
    assert_eq!(kept.len() + omitted.len(), 1002);

    // Markdown shows the tree of what is kept and the collapsed lines.
    let md = ok_stdout(gnaw(&repo, &["--budget", "3000", "-q"]));
    assert!(reference_count(&md) <= 3000);
    assert!(md.contains("## Directory tree") && md.contains("README.md"));
    assert!(
        md.lines()
            .any(|l| l.starts_with("- `") && l.contains("/` — ") && l.contains(" files, ")),
        "{md}"
    );

    // Not even the one-line summary fits: a clear error, not an empty prompt.
    let out = gnaw(&repo, &["--budget", "20"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("too small") && err.contains("raise the budget"),
        "{err}"
    );
}

#[test]
fn ranking_and_budgeted_output_are_deterministic() {
    let (_tmp, repo) = generated("r", 7, 80);
    for args in [
        &["--budget", "2000"][..],
        &["--budget", "2000", "--query", "HTTPServer get_value"],
        &["--query", "résumé budget"],
    ] {
        let a = ok_stdout(gnaw(&repo, args));
        let b = ok_stdout(gnaw(&repo, args));
        assert_eq!(a, b, "{args:?}");
        let mut explain = vec!["--json", "-q", "--explain"];
        explain.extend_from_slice(args);
        let x = ok_stdout(gnaw(&repo, &explain));
        let y = ok_stdout(gnaw(&repo, &explain));
        assert_eq!(x, y, "{args:?}");
        let v: Value = serde_json::from_str(&x).unwrap();
        let ranking = v["ranking"].as_array().unwrap();
        assert_eq!(ranking.len(), 82);
        for pair in ranking.windows(2) {
            assert!(pair[0]["score"].as_f64() >= pair[1]["score"].as_f64());
        }
        for r in ranking {
            assert!(!r["parts"].as_object().unwrap().is_empty());
        }
    }
    // The kept files are rendered in path order, whatever their rank.
    let (prompt, s) = run(
        &repo,
        &[
            "--budget",
            "3000",
            "--query",
            "get_value",
            "--format",
            "json",
        ],
    );
    let doc: Value = serde_json::from_str(&prompt).unwrap();
    let order = paths_of(&doc["files"]);
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
    assert_eq!(order, paths_of(&s["file_list"]));
}

#[test]
fn a_query_keeps_the_files_that_define_what_it_names() {
    let (_tmp, repo) = generated("q", 3, 60);
    fs::write(
        repo.join("src/net/redirect.rs"),
        "/// Follow HTTP redirects up to a limit.\npub fn follow_redirects(limit: usize) {}\n",
    )
    .unwrap();
    let first = |args: &[&str]| {
        let mut all = vec!["--json", "-q", "--explain"];
        all.extend_from_slice(args);
        let v: Value = serde_json::from_str(&ok_stdout(gnaw(&repo, &all))).unwrap();
        v["ranking"][0]["path"].as_str().unwrap().to_string()
    };
    assert_ne!(first(&[]), "src/net/redirect.rs");
    for q in ["follow_redirects", "where are HTTP redirects followed"] {
        assert_eq!(first(&["--query", q]), "src/net/redirect.rs", "{q}");
        let (_, with) = run(&repo, &["--budget", "600", "--query", q]);
        assert!(
            paths_of(&with["file_list"]).contains(&"src/net/redirect.rs".into()),
            "{q}: {with}"
        );
    }
}

#[test]
fn profiles_merge_over_the_config_and_unknown_ones_are_listed() {
    let (_tmp, repo) = generated("p", 11, 60);
    fs::write(
        repo.join(".gnawconfig"),
        "format = \"xml\"\nexclude = [\"vendor/**\"]\n\
         [profiles.small]\nbudget = 800\n\
         [profiles.docs]\ninclude = [\"**/*.md\"]\nformat = \"markdown\"\n",
    )
    .unwrap();
    let (base_prompt, base) = run(&repo, &[]);
    assert!(base_prompt.starts_with("<repository"));
    assert_eq!(base["budget"], 0, "0 is unlimited, as in the input");
    assert!(
        paths_of(&base["file_list"])
            .iter()
            .all(|p| !p.starts_with("vendor/"))
    );

    let (small_prompt, small) = run(&repo, &["--profile", "small"]);
    assert_eq!(small["budget"], 800);
    assert!(
        small_prompt.starts_with("<repository"),
        "base keys still apply"
    );
    assert!(reference_count(&small_prompt) <= 800);
    assert_eq!(small["trimmed"], true);
    // A flag wins over the profile.
    let (_, flag) = run(&repo, &["--profile", "small", "--budget", "0"]);
    assert_eq!(flag["budget"], 0);
    assert_eq!(flag["file_list"], base["file_list"]);

    let (docs_prompt, docs) = run(&repo, &["--profile", "docs"]);
    assert!(docs_prompt.starts_with("# "));
    let docs_paths = paths_of(&docs["file_list"]);
    assert!(!docs_paths.is_empty());
    assert!(
        docs_paths
            .iter()
            .all(|p| p.ends_with(".md") && !p.starts_with("vendor/"))
    );

    let out = gnaw(&repo, &["--profile", "huge"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("huge") && err.contains("docs") && err.contains("small"),
        "{err}"
    );
}

fn extract_text(resp: &Value) -> String {
    let result = &resp["result"];
    assert_ne!(result["isError"], true, "tool failed: {resp}");
    result["content"][0]["text"].as_str().unwrap().to_string()
}

#[test]
fn mcp_extract_equals_the_cli_with_budget_query_and_profile() {
    let root = tempfile::tempdir().unwrap();
    let repo: PathBuf = root.path().join("proj");
    generated_repo(&repo, 21, 120);
    fs::write(
        repo.join(".gnawconfig"),
        "[profiles.narrow]\nexclude = [\"vendor/**\", \"examples/**\"]\n",
    )
    .unwrap();
    let (_, full) = run(&repo, &[]);
    let total = full["tokens"].as_u64().unwrap();
    assert!(
        total > 25_000,
        "the repo must exceed the server's default budget: {total}"
    );

    let mut s = Server::start(root.path(), &[]);
    s.initialize("2025-11-25");
    // The CLI's flags for the server's default budget and ceiling.
    let server_defaults = [
        "--budget",
        "20000",
        "--max-chars",
        "48000",
        "--max-chars-json",
    ];
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (json!({"budget": 1500}), vec!["--budget", "1500"]),
        (
            json!({"budget": 4000, "query": "HTTPServer parse"}),
            vec!["--budget", "4000", "--query", "HTTPServer parse"],
        ),
        (
            json!({"budget": 3000, "query": "snake_case_name", "profile": "narrow"}),
            vec![
                "--budget",
                "3000",
                "--query",
                "snake_case_name",
                "--profile",
                "narrow",
            ],
        ),
        // The server's default budget (20000) applies when the call passes none, and its
        // default ceiling (50,000 characters, less 2,000 for the notes after the prompt)...
        (json!({}), server_defaults.to_vec()),
        (
            json!({"profile": "narrow"}),
            [&server_defaults[..], &["--profile", "narrow"]].concat(),
        ),
        // ...and 0 means unlimited.
        (json!({"budget": 0}), vec![]),
        (
            json!({"budget": 0, "query": "token"}),
            vec!["--query", "token"],
        ),
    ];
    for (extra, flags) in cases {
        let mut args = json!({"repo": "proj"});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        let resp = s.call("extract", args.clone());
        let text = extract_text(&resp);
        let cli = ok_stdout(gnaw(&repo, &flags));
        assert!(text == cli, "extract {args} differs from gnaw {flags:?}");

        let (_, summary) = run(&repo, &flags);
        let trimmed = summary["trimmed"] == true;
        // A trimmed extract says so and how to get the rest.
        let note = resp["result"]["content"][1]["text"].as_str();
        assert_eq!(note.is_some(), trimmed, "{args}");
        if let Some(note) = note {
            assert!(
                note.contains("include") && note.contains("budget"),
                "{note}"
            );
        }
        // estimate reports what the budget drops, as the CLI does.
        let est = s.call("estimate", args.clone());
        let e = &est["result"]["structuredContent"];
        assert_eq!(e["tokens"], summary["tokens"], "{args}");
        assert_eq!(e["trimmed"], summary["trimmed"], "{args}");
        assert_eq!(e["omitted"], summary["omitted"], "{args}");
        assert_eq!(e["budget"], summary["budget"], "{args}");
        if trimmed {
            assert!(!e["omitted"]["entries"].as_array().unwrap().is_empty());
        }
    }
    // An unknown profile is a tool error that lists the available ones.
    let resp = s.call("extract", json!({"repo": "proj", "profile": "nope"}));
    assert_eq!(resp["result"]["isError"], true, "{resp}");
    let msg = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(msg.contains("nope") && msg.contains("narrow"), "{msg}");
}

#[test]
fn the_config_budget_beats_the_server_default() {
    let root = tempfile::tempdir().unwrap();
    let repo = root.path().join("proj");
    generated_repo(&repo, 5, 60);
    fs::write(repo.join(".gnawconfig"), "budget = 1200\n").unwrap();
    let mut s = Server::start(root.path(), &[("GNAW_MCP_DEFAULT_BUDGET", "50000")]);
    s.initialize("2025-11-25");
    let text = extract_text(&s.call("extract", json!({"repo": "proj"})));
    assert!(reference_count(&text) <= 1200);
    assert_eq!(text, ok_stdout(gnaw(&repo, &[])));
    // The call's own budget wins over both.
    let text = extract_text(&s.call("extract", json!({"repo": "proj", "budget": 2500})));
    assert!(reference_count(&text) > 1200 && reference_count(&text) <= 2500);
    assert_eq!(text, ok_stdout(gnaw(&repo, &["--budget", "2500"])));
}

/// Run gnaw with `args`, killing it after `limit`: `None` when it did not finish in time.
fn gnaw_within(repo: &Path, args: &[&str], limit: Duration) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gnaw"))
        .arg(repo)
        .args(args)
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gnaw");
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(child.wait_with_output().unwrap())
}

/// A few one-line files 2,000 directories deep under the server's default budget: the tree of
/// one such file is ~8 MB of indentation, so fitting must neither draw it per trial nor keep it
/// on a guess. Before the fix this took over 15 minutes (the budget's estimate ignored the
/// tree's cost, and every trial redrew and recounted the preamble once per directory level);
/// it is killed here after 60 s.
#[test]
fn deep_paths_under_a_budget_fit_quickly_and_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("deep");
    deep_repo::deep_repo(&repo, 2000, 3);
    let out = tmp.path().join("prompt");
    for format in ["markdown", "json"] {
        let started = Instant::now();
        let args = [
            "--json",
            "-q",
            "--max-depth",
            "2100",
            "--budget",
            "20000",
            "--format",
            format,
            "-o",
            out.to_str().unwrap(),
        ];
        let run = gnaw_within(&repo, &args, Duration::from_secs(60))
            .unwrap_or_else(|| panic!("{format}: gnaw ran for more than 60 s"));
        let summary: Value = serde_json::from_str(&ok_stdout(run)).unwrap();
        let prompt = fs::read_to_string(&out).unwrap();
        let tokens = reference_count(&prompt);
        assert_eq!(summary["tokens"], tokens, "{format}");
        assert!(tokens <= 20_000, "{format}: {tokens}");
        // The deep files are listed as omitted, with their token counts.
        assert_eq!(
            summary["omitted_list"].as_array().unwrap().len(),
            3,
            "{summary}"
        );
        eprintln!("{format}: {:?}", started.elapsed());
    }
}

/// No token of any supported encoding is longer than `MAX_TOKEN_BYTES`: the lower bound that
/// lets the budget skip measuring a prompt (at least its bytes / 128 tokens) rests on it.
#[test]
fn no_token_is_longer_than_the_bound_the_budget_relies_on() {
    for (name, bpe) in [
        ("o200k_base", tiktoken_rs::o200k_base().unwrap()),
        ("cl100k_base", tiktoken_rs::cl100k_base().unwrap()),
        ("p50k_base", tiktoken_rs::p50k_base().unwrap()),
        ("r50k_base", tiktoken_rs::r50k_base().unwrap()),
    ] {
        let mut longest = 0;
        let mut seen = 0;
        for rank in 0..300_000u32 {
            if let Ok(bytes) = bpe.decode_bytes(&[rank]) {
                longest = longest.max(bytes.len());
                seen += 1;
            }
        }
        assert!(seen > 50_000, "{name}: only {seen} tokens decoded");
        assert!(
            longest <= gnaw::driver::plan::MAX_TOKEN_BYTES,
            "{name}: a token of {longest} bytes"
        );
    }
}

/// A query is bounded in bytes and in distinct terms; over a bound it is refused before the
/// repository is read, with the limit in the message, on both surfaces. Before the fix the
/// server de-duplicated terms in quadratic time: a 1.3 MB query pinned the worker for a minute,
/// a 4 MiB one for about ten (this test's call would time out after 30 s).
#[test]
fn a_query_over_its_bounds_is_refused_at_once_naming_the_limit() {
    let (tmp, repo) = generated("r", 9, 20);
    // CLI: too long (distinct words), too many terms.
    let words: Vec<String> = (0..10_000).map(|i| format!("w{i}")).collect();
    let long = words.join(" ");
    let out = gnaw(&repo, &["--estimate", "--query", &long]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("4096 bytes"), "{err}");
    let many = words[..300].join(" ");
    let out = gnaw(&repo, &["--estimate", "--query", &many]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("300 distinct terms") && err.contains("256"),
        "{err}"
    );
    // Within the bounds it ranks as before.
    let ok = words[..200].join(" ");
    assert!(
        gnaw(&repo, &["--estimate", "--query", &ok])
            .status
            .success()
    );
    // MCP: a query of nearly 4 MiB (the line limit), 500,000 distinct words.
    let mut s = Server::start(tmp.path(), &[]);
    s.initialize("2025-11-25");
    let huge: String = (0..500_000).map(|i| format!("t{i:x} ")).collect();
    assert!(huge.len() > 3 << 20 && huge.len() < 4 << 20);
    let started = Instant::now();
    let resp = s.call("estimate", json!({ "repo": "r", "query": huge }));
    let elapsed = started.elapsed();
    let result = &resp["result"];
    assert_eq!(result["isError"], true, "{resp}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("the limit is 4096 bytes"), "{text}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    // The worker is free: a normal call is answered.
    let resp = s.call("estimate", json!({ "repo": "r", "query": "parse token" }));
    assert!(
        resp["result"]["structuredContent"]["tokens"].as_u64() > Some(0),
        "{resp}"
    );
}
