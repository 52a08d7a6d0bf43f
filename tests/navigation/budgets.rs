//! The navigation tools' budgets and continuations, on the library over generated repositories:
//! over many random ranges, patterns and budgets, every answer's exact count (gnaw's counter,
//! and tiktoken-rs on a sample) equals the count it reports and is within its budget; following
//! the continuations reproduces exactly the uncut answer (read: the file's lines; grep: the full
//! match list, which is also a naive line-by-line search's; search: the full ranking, whose files
//! are the ones a naive scan finds the query's words in); tree's per-file tokens are `extract`'s.

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

use crate::common;
use common::cli::reference_count;

use common::xorshift;

use gnaw::driver::call::{NavError, Request};
use gnaw::driver::nav::grep::{GrepArgs, grep};
use gnaw::driver::nav::read::read;
use gnaw::driver::nav::search::{SearchArgs, search};
use gnaw::driver::nav::tree::{TreeArgs, tree};
use gnaw::stages::count::{Encoding, count};
use gnaw::{ExtractionSpec, Mode, Overrides, Policy, run_extraction};
use gnaw_sandbox::Root;
use std::collections::BTreeMap;
use std::fs;
use xorshift::Rng;

const WORDS: &[&str] = &[
    "fn", "let", "foo1", "foo22", "bar", "Bar", "BAR", "self", "{", "}", "(x)", "=>", "// note",
    "é", "naïve", "日本", "🦀", "\t", "  ", "0x1f", "if", "else", "return", "x", "xx", "xxx", "'s",
    "/", "\\", "::", ";", "#", "```",
];

fn line(rng: &mut Rng) -> String {
    match rng.below(12) {
        0 => String::new(),
        1 => "    ".repeat(rng.below(4)),
        2 => format!("{}\r", WORDS[rng.below(WORDS.len())]),
        _ => {
            let n = 1 + rng.below(14);
            let indent = " ".repeat(4 * rng.below(4));
            let words: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect();
            format!("{indent}{}", words.join(" "))
        }
    }
}

fn file_text(rng: &mut Rng, lines: usize) -> String {
    let mut t: Vec<String> = (0..lines).map(|_| line(rng)).collect();
    if rng.below(5) == 0 {
        // A long line, longer than a small budget.
        t.push(
            (0..900)
                .map(|i| WORDS[i % WORDS.len()])
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    let mut s = t.join("\n");
    if rng.below(3) > 0 {
        s.push('\n');
    }
    s
}

/// A repo of `files` generated files under a few directories, in a new temporary directory:
/// the directory (removed when dropped), a root on it, and the files' paths and texts, sorted.
fn repo(seed: u64, files: usize) -> (tempfile::TempDir, Root, Vec<(String, String)>) {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for i in 0..files {
        let dir = ["src", "src/net", "lib/a/b", "docs", ""][rng.below(5)];
        let rel = if dir.is_empty() {
            format!("f{i}.rs")
        } else {
            format!("{dir}/f{i}.rs")
        };
        let n = rng.below(300);
        let text = file_text(&mut rng, n);
        let p = tmp.path().join(&rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, &text).unwrap();
        out.push((rel, text));
    }
    out.sort();
    let root = Root::new(tmp.path(), false).unwrap();
    (tmp, root, out)
}

fn request(root: &Root, budget: usize) -> Request<'static> {
    Request::alone(root.as_dir(), budget, 2 << 20)
}

fn lines_of(text: &str) -> Vec<&str> {
    let mut v: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') || text.is_empty() {
        v.pop();
    }
    v
}

/// The `N | text` rows of a read answer, in order.
fn rows(answer: &str) -> Vec<(u64, String)> {
    answer
        .split('\n')
        .filter_map(|l| {
            let (num, rest) = l.split_once(" | ")?;
            let n = num.trim_start().parse::<u64>().ok()?;
            Some((n, rest.to_string()))
        })
        .collect()
}

/// A call whose budget cannot hold one item is refused, saying so.
fn refused_as_too_small<T, E: std::fmt::Display>(answer: Result<T, E>) {
    match answer {
        Ok(_) => panic!("a budget too small for one item was answered"),
        Err(e) => assert!(e.to_string().contains("too small"), "{e}"),
    }
}

/// An answer's text costs exactly the tokens it reports, by gnaw's counter and (when `reference`
/// is set) by tiktoken-rs's, and fits `budget`; `what` names the call in a failure.
fn exact_within(text: &str, tokens: usize, budget: usize, reference: bool, what: &str) {
    let c = count(Encoding::O200kBase, text);
    assert_eq!(tokens, c, "{what}: reported count");
    assert!(c <= budget, "{what}: {c} > {budget}");
    if reference {
        assert_eq!(reference_count(text), c, "{what}: tiktoken-rs disagrees");
    }
}

#[test]
fn read_fits_every_budget_and_continuations_give_every_line_once() {
    let (_dir, root, files) = repo(0x9e37_79b9_7f4a_7c15, 24);
    let mut rng = Rng(0xdead_beef_1234_5678);
    let mut answers = 0;
    for round in 0..60 {
        // One to three entries, each a random range of a random file.
        let picks: Vec<usize> = (0..1 + rng.below(3))
            .map(|_| rng.below(files.len()))
            .collect();
        let mut wanted: Vec<(u64, String)> = Vec::new();
        let mut paths = Vec::new();
        for &f in &picks {
            let (rel, text) = &files[f];
            let lines = lines_of(text);
            let total = lines.len() as u64;
            let (start, end) = match rng.below(3) {
                0 => (1, total),
                _ if total == 0 => (1, 0),
                _ => {
                    let s = 1 + rng.below(total as usize) as u64;
                    (s, s + rng.below((total - s + 1) as usize) as u64)
                }
            };
            paths.push(if start == 1 && end == total {
                rel.clone()
            } else {
                format!("{rel}:{start}-{end}")
            });
            for n in start..=end {
                wanted.push((n, lines[(n - 1) as usize].to_string()));
            }
        }
        let budget = [300, 700, 1500, 4000, 12000][rng.below(5)];
        let mut got: Vec<(u64, String)> = Vec::new();
        let mut next = paths.clone();
        let mut calls = 0;
        while !next.is_empty() {
            calls += 1;
            assert!(calls < 400, "round {round}: no progress with {paths:?}");
            let a = read(&request(&root, budget), &next).unwrap();
            let what = format!("round {round}: {next:?}");
            exact_within(&a.page.text, a.page.tokens, budget, answers % 7 == 0, &what);
            answers += 1;
            let r = rows(&a.page.text);
            if a.page.text.contains("[line cut]") {
                // The one row too long for the budget: compare its prefix only.
                let (n, shown) = &r[0];
                let shown = shown.trim_end_matches(" [line cut]");
                let full = &wanted[got.len()];
                assert_eq!(*n, full.0);
                assert!(full.1.starts_with(shown), "cut row is not a prefix");
                got.push(full.clone());
            } else {
                got.extend(r);
            }
            next = a.facts.next;
        }
        assert_eq!(
            got.len(),
            wanted.len(),
            "round {round}: {paths:?} budget {budget}"
        );
        assert!(got == wanted, "round {round}: rows differ for {paths:?}");
    }
    assert!(answers > 100, "only {answers} answers");
}

#[test]
fn a_line_longer_than_the_budget_is_cut_and_the_read_moves_on() {
    let dir = tempfile::tempdir().unwrap();
    let long = "word ".repeat(5000);
    fs::write(
        dir.path().join("long.txt"),
        format!("first\n{long}\nthird\n"),
    )
    .unwrap();
    let root = Root::new(dir.path(), false).unwrap();
    let a = read(&request(&root, 200), &["long.txt:2-".to_string()]).unwrap();
    assert!(
        a.page.tokens <= 200 && a.page.text.contains("[line cut]"),
        "{}",
        a.page.text
    );
    assert_eq!(a.facts.next, ["long.txt:3-"]);
    let a = read(&request(&root, 200), &a.facts.next).unwrap();
    assert_eq!(rows(&a.page.text), [(3, "third".to_string())]);
    assert!(a.facts.next.is_empty());
    // Too small for even a header: an error naming what it needs.
    let e = read(&request(&root, 5), &["long.txt".to_string()]).unwrap_err();
    assert!(
        matches!(e, NavError::Run(_)) && e.to_string().contains("too small"),
        "{e}"
    );
}

/// Every (path, line) matching `re` on its own line, in path order.
fn naive_grep(files: &[(String, String)], re: &regex::Regex) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    for (rel, text) in files {
        for (i, l) in lines_of(text).iter().enumerate() {
            if re.is_match(l) {
                out.push((rel.clone(), i as u32 + 1));
            }
        }
    }
    out
}

/// The items of every page of a continued call, in order. `page` makes the call at a cursor
/// (`None` first) and gives its items and the cursor it continues at (`None`: the last page).
/// Fewer than `most` calls must do, and every page but the last must hold something; `what`
/// names the call in a failure.
fn paged<C, T>(
    what: &str,
    most: usize,
    mut page: impl FnMut(Option<C>) -> (Vec<T>, Option<C>),
) -> Vec<T> {
    let mut got = Vec::new();
    let mut at = None;
    let mut calls = 0;
    loop {
        calls += 1;
        assert!(calls < most, "{what}: no progress");
        let (items, next) = page(at.take());
        let progress = !items.is_empty();
        got.extend(items);
        match next {
            None => return got,
            Some(next) => {
                assert!(progress, "{what}: an answer without progress");
                at = Some(next);
            }
        }
    }
}

#[test]
fn grep_fits_every_budget_and_continuations_give_the_full_match_list() {
    let (_dir, root, files) = repo(0x1234_5678_9abc_def1, 30);
    let mut rng = Rng(0x0bad_cafe_f00d_0001);
    let patterns = [
        ("foo\\d+", false, false),
        ("bar", false, true),
        ("^\\s*$", false, false),
        ("x{2,}", false, false),
        ("(x)", true, false),
        ("日本|🦀", false, false),
        ("naïve", false, false),
        ("\\bif\\b.*\\belse\\b", false, false),
        ("fn [^\\n]*;$", false, false),
        ("\\t", false, false),
    ];
    for (round, &(pattern, fixed, ignore_case)) in patterns.iter().cycle().take(30).enumerate() {
        let source = if fixed {
            regex::escape(pattern)
        } else {
            pattern.to_string()
        };
        let re = regex::RegexBuilder::new(&source)
            .case_insensitive(ignore_case)
            .build()
            .unwrap();
        let naive = naive_grep(&files, &re);
        let args = |after: Option<String>, max: usize, context: usize| GrepArgs {
            pattern: pattern.to_string(),
            fixed_strings: fixed,
            ignore_case,
            context,
            max_matches: Some(max),
            after,
            count: true,
        };
        let full = grep(&request(&root, 0), &args(None, 1 << 20, 0)).unwrap();
        assert!(full.facts.next.is_empty());
        let full_list: Vec<(String, u32)> = full
            .facts
            .matches
            .iter()
            .map(|m| (m.path.clone(), m.line))
            .collect();
        assert_eq!(full_list, naive, "{pattern}: uncut answer vs naive search");
        assert_eq!(full.facts.total_matches, naive.len());
        let budget = [400, 900, 2500, 8000][rng.below(4)];
        let max = [5, 40, 200, 100_000][rng.below(4)];
        let context = [0, 0, 1, 3][rng.below(4)];
        let what = format!("round {round} {pattern}");
        let got = paged(pattern, 500, |after| {
            let a = grep(&request(&root, budget), &args(after, max, context)).unwrap();
            exact_within(&a.page.text, a.page.tokens, budget, round % 5 == 0, &what);
            assert_eq!(
                a.facts.total_matches,
                naive.len(),
                "totals are given even when cut"
            );
            let found = a.facts.matches.iter().map(|m| (m.path.clone(), m.line));
            (
                found.collect(),
                Some(a.facts.next).filter(|n| !n.is_empty()),
            )
        });
        assert_eq!(got, naive, "{what} budget {budget} max {max}");
    }
    // A budget too small for one match is an error, never an answer that continues nowhere.
    let args = GrepArgs {
        pattern: "foo".into(),
        context: 5,
        ..Default::default()
    };
    refused_as_too_small(grep(&request(&root, 60), &args));
}

#[test]
fn search_fits_every_budget_and_continuations_give_the_full_ranking() {
    let (_dir, root, files) = repo(0x5eed_0000_1111_2222, 30);
    let mut rng = Rng(0x0ff5_e7c0_de00_0001);
    let queries = [
        "foo22",
        "bar self",
        "naïve 日本",
        "return else xx",
        "BAR f3",
        "xxx",
    ];
    for (round, query) in queries.iter().take(6).enumerate() {
        // Every other round asks for the score's parts and every region's words: both answers
        // fit exactly.
        let args = |offset: Option<usize>, limit: usize| SearchArgs {
            query: query.to_string(),
            limit: Some(limit),
            offset,
            explain: round % 2 == 1,
        };
        // The uncut ranking, page by page without a budget.
        let full = paged(query, usize::MAX, |offset| {
            let a = search(&request(&root, 0), &args(offset, 100)).unwrap();
            (
                a.facts.hits.iter().map(|h| h.path.clone()).collect(),
                a.facts.next,
            )
        });
        // Its files are those whose path or text holds one of the query's words (as words, in
        // any case), and only those.
        let words: Vec<String> = query.split(' ').map(str::to_lowercase).collect();
        let holds = |text: &str| {
            text.split(|c: char| !c.is_alphanumeric())
                .any(|w| words.contains(&w.to_lowercase()))
        };
        let mut naive: Vec<String> = files
            .iter()
            .filter(|(p, t)| holds(p) || holds(t))
            .map(|(p, _)| p.clone())
            .collect();
        naive.sort();
        let mut sorted = full.clone();
        sorted.sort();
        assert_eq!(sorted, naive, "{query}: the matching files");
        let budget = [300, 700, 2000, 6000][rng.below(4)];
        let limit = [1, 3, 10, 100][rng.below(4)];
        let what = format!("round {round} {query}");
        let got = paged(query, 200, |offset| {
            let a = search(&request(&root, budget), &args(offset, limit)).unwrap();
            exact_within(&a.page.text, a.page.tokens, budget, round % 3 == 0, &what);
            for h in &a.facts.hits {
                let text = &files.iter().find(|(p, _)| *p == h.path).unwrap().1;
                let lines = lines_of(text);
                assert!(h.regions.len() <= 3);
                for r in &h.regions {
                    assert!(1 <= r.start && r.start <= r.end, "{r:?}");
                    assert!(r.end as usize <= lines.len(), "{r:?} past the end");
                    let inside = &lines[r.start as usize - 1..r.end as usize];
                    assert!(
                        inside.iter().any(|l| holds(l)),
                        "{query}: {r:?} holds no word"
                    );
                }
                assert!(a.page.text.contains(&h.path));
            }
            assert_eq!(
                a.facts.total_files,
                full.len(),
                "the total is given even when cut"
            );
            if let Some(n) = a.facts.next {
                assert!(
                    a.page.text.contains(&format!("{{\"offset\":{n}}}")),
                    "{}",
                    a.page.text
                );
            }
            (
                a.facts.hits.iter().map(|h| h.path.clone()).collect(),
                a.facts.next,
            )
        });
        assert_eq!(got, full, "{what} budget {budget} limit {limit}");
    }
    // A budget too small for one file is an error, never an answer that continues nowhere.
    let args = SearchArgs {
        query: "foo22 bar".into(),
        ..Default::default()
    };
    refused_as_too_small(search(&request(&root, 40), &args));
    // Bad arguments are refused with what to do.
    for (q, limit, want) in [
        ("the of", None, "no word"),
        ("x ; y", None, "no word"),
        ("bar", Some(0), "limit"),
        ("bar", Some(101), "limit"),
    ] {
        let e = search(
            &request(&root, 0),
            &SearchArgs {
                query: q.into(),
                limit,
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(matches!(e, NavError::Argument { .. }), "{e}");
        assert!(e.to_string().contains(want), "{e}");
    }
}

#[test]
fn tree_fits_every_budget_and_counts_what_extract_spends() {
    let (_dir, root, files) = repo(0x5555_aaaa_3333_cccc, 60);
    let spec = ExtractionSpec {
        repo: root.as_dir(),
        overrides: Overrides {
            budget: Some(0),
            ..Default::default()
        },
        paths: None,
        mode: Mode::Estimate,
        observer: None,
        policy: Policy::server(),
        cache: None,
    };
    let ex = run_extraction(&spec).unwrap();
    let extract: BTreeMap<String, u64> = ex
        .files
        .iter()
        .map(|f| (f.path.clone(), f.tokens as u64))
        .collect();
    let full = tree(&request(&root, 0), &TreeArgs::default()).unwrap();
    assert!(full.facts.expand.is_empty());
    let listed: BTreeMap<String, u64> = full
        .facts
        .entries
        .iter()
        .filter(|e| !e.is_dir)
        .map(|e| (e.path.clone(), e.tokens))
        .collect();
    assert_eq!(listed, extract, "tree's file tokens are extract's");
    assert_eq!(full.facts.root.files as usize, files.len());
    assert_eq!(full.facts.root.tokens, extract.values().sum::<u64>());
    for budget in [120, 200, 350, 600, 1000, 2500] {
        let a = tree(&request(&root, budget), &TreeArgs::default()).unwrap();
        exact_within(&a.page.text, a.page.tokens, budget, true, "tree");
        if budget < 1000 {
            assert!(!a.facts.expand.is_empty(), "{budget}: {}", a.page.text);
        }
        // Expanding the biggest hidden directory lists it with its own totals.
        if let Some(d) = a.facts.expand.first().filter(|d| *d != ".") {
            let sub = tree(
                &request(&root, 0),
                &TreeArgs {
                    path: Some(d.clone()),
                    depth: None,
                },
            )
            .unwrap();
            let want: u64 = extract
                .iter()
                .filter(|(p, _)| p.starts_with(&format!("{d}/")))
                .map(|(_, t)| t)
                .sum();
            assert_eq!(sub.facts.root.tokens, want, "{d}");
        }
    }
    let shallow = tree(
        &request(&root, 0),
        &TreeArgs {
            path: None,
            depth: Some(1),
        },
    )
    .unwrap();
    assert!(shallow.facts.entries.iter().all(|e| e.depth == 1));
    assert!(
        shallow.page.text.contains("depth reached"),
        "{}",
        shallow.page.text
    );
}
