//! The default `search` answer as an agent reads it, on real files through the library: the path
//! said once per file, the first region on the file's line as `path:START-END` and each further
//! one as `:START-END` under it, a region shown by the definition holding it or else by the
//! query's words found in it, a secondary file marked with a word, no score. With `explain`, the
//! same files and regions, every region's words and each file's score with its parts. Every
//! region, as the text gives it, is a `read` argument that reads exactly its lines.

#![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

use crate::common;
use common::fixture::Tree;

use gnaw::driver::call::Request;
use gnaw::driver::nav::read::read;
use gnaw::driver::nav::search::{self, Hit, SearchAnswer, SearchArgs};
use gnaw_sandbox::Root;
use std::path::Path;

fn search(repo: &Path, query: &str, explain: bool) -> SearchAnswer {
    let root = Root::new(repo, false).unwrap();
    let req = Request::alone(root.as_dir(), 0, usize::MAX);
    let args = SearchArgs {
        query: query.into(),
        explain,
        ..Default::default()
    };
    search::search(&req, &args).unwrap()
}

/// A file a query about parsing headers finds, in every kind the answer marks, and with regions
/// of both kinds: inside a definition (Rust) and outside any (plain text).
fn fixture() -> Tree {
    let t = Tree::new("r");
    // Two definitions far apart, with unrelated code between: two regions, each inside one.
    let filler: String = (0..30)
        .map(|i| format!("pub fn unrelated_{i}() -> u32 {{\n    {i}\n}}\n\n"))
        .collect();
    let rust = format!(
        "pub fn parse_header(line: &str) -> (String, String) {{\n    \
         let (name, value) = line.split_once(':').unwrap_or((line, \"\"));\n    \
         (name.trim().to_string(), value.trim().to_string())\n}}\n\n{filler}\
         pub struct Header {{\n    pub name: String,\n}}\n\n\
         impl Header {{\n    /// Parse one header line.\n    \
         pub fn parse(line: &str) -> Header {{\n        \
         Header {{ name: parse_header(line).0 }}\n    }}\n}}\n"
    );
    t.write("src/header.rs", &rust);
    t.write(
        "notes/header.txt",
        "Headers\n\nEach header is parsed as name: value.\nA header without a colon is parsed \
         as a name alone.\n",
    );
    t.write(
        "tests/header_test.rs",
        "#[test]\nfn parses_a_header() {\n    assert_eq!(parse_header(\"a: b\").0, \"a\");\n}\n",
    );
    t.write("tests/fixtures/one_header.txt", "Host: parse.example\n");
    t.write(
        "examples/show.rs",
        "fn main() {\n    println!(\"{:?}\", parse_header(\"x: y\"));\n}\n",
    );
    t.write(
        "vendor/httparse/lib.rs",
        "pub fn parse_headers(buf: &[u8]) -> usize {\n    buf.len()\n}\n",
    );
    t
}

/// The word each fixture file is marked with (none for code written here and its notes).
fn mark_of(path: &str) -> Option<&'static str> {
    match path {
        "tests/header_test.rs" => Some("test"),
        "tests/fixtures/one_header.txt" => Some("fixture"),
        "examples/show.rs" => Some("example"),
        "vendor/httparse/lib.rs" => Some("vendored"),
        _ => None,
    }
}

/// One file as the text says it: its rank, its mark, its path, and its regions as
/// (start, end, what follows the range).
#[derive(Debug, PartialEq)]
struct Said {
    rank: usize,
    mark: Option<String>,
    path: String,
    regions: Vec<(u32, u32, String)>,
}

/// `START` or `START-END`.
fn range(s: &str) -> (u32, u32) {
    match s.split_once('-') {
        Some((a, b)) => (a.parse().unwrap(), b.parse().unwrap()),
        None => (s.parse().unwrap(), s.parse().unwrap()),
    }
}

/// `START-END  what` (what follows a `:`).
fn region(s: &str) -> (u32, u32, String) {
    let (r, what) = s.split_once("  ").unwrap_or((s, ""));
    let (a, b) = range(r);
    (a, b, what.to_string())
}

/// The files of an answer's text, read as an agent reads them: a line `N. [(word) ]PATH[:REGION]`
/// starts a file, a line `   :REGION` adds a region to it, a line `   score ...` is its score.
fn said(text: &str) -> Vec<Said> {
    let mut files: Vec<Said> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("   :") {
            files.last_mut().unwrap().regions.push(region(rest));
            continue;
        }
        let Some((n, rest)) = line.split_once(". ") else {
            continue;
        };
        let Ok(rank) = n.parse::<usize>() else {
            continue;
        };
        let (mark, rest) = match rest.strip_prefix('(').and_then(|r| r.split_once(") ")) {
            Some((word, rest)) => (Some(word.to_string()), rest),
            None => (None, rest),
        };
        let (path, regions) = match rest.split_once(':') {
            Some((path, r)) => (path.to_string(), vec![region(r)]),
            None => (rest.to_string(), Vec::new()),
        };
        files.push(Said {
            rank,
            mark,
            path,
            regions,
        });
    }
    files
}

/// What the answer should say of `h`: each region's definition, else its words (with
/// `explain`, each region's definition and its words).
fn expected(h: &Hit, explain: bool) -> Said {
    Said {
        rank: h.rank,
        mark: mark_of(&h.path).map(str::to_string),
        path: h.path.clone(),
        regions: h
            .regions
            .iter()
            .map(|r| {
                let words = r.terms.join(", ");
                let what = match (&r.symbol, explain) {
                    (Some(sym), false) => sym.clone(),
                    (Some(sym), true) => format!("{sym}: {words}"),
                    (None, _) => words,
                };
                (r.start, r.end, what)
            })
            .collect(),
    }
}

#[test]
fn the_default_answer_says_each_path_once_and_no_score() {
    let t = fixture();
    let a = search(&t.repo, "parse header", false);
    let hits = &a.facts.hits;
    let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    // Every fixture file matches, so every mark and both kinds of region are checked.
    for p in [
        "src/header.rs",
        "notes/header.txt",
        "tests/header_test.rs",
        "tests/fixtures/one_header.txt",
        "examples/show.rs",
        "vendor/httparse/lib.rs",
    ] {
        assert!(paths.contains(&p), "{p} not found: {}", a.page.text);
    }
    let regions = hits.iter().flat_map(|h| &h.regions);
    assert!(
        regions.clone().any(|r| r.symbol.is_some()),
        "{}",
        a.page.text
    );
    assert!(
        regions.clone().any(|r| r.symbol.is_none()),
        "{}",
        a.page.text
    );
    assert!(hits.iter().any(|h| h.regions.len() > 1), "{}", a.page.text);
    // The text says exactly the facts' files, in order, each once.
    let want: Vec<Said> = hits.iter().map(|h| expected(h, false)).collect();
    assert_eq!(said(&a.page.text), want, "{}", a.page.text);
    for p in &paths {
        let lines = a.page.text.lines().filter(|l| l.contains(p)).count();
        assert_eq!(lines, 1, "{p} said {lines} times: {}", a.page.text);
    }
    for part in ["score", "bm25", "secondary_file", "prior"] {
        assert!(!a.page.text.contains(part), "{part}: {}", a.page.text);
    }
    // Each region as the text gives it reads its lines.
    let args: Vec<String> = said(&a.page.text)
        .iter()
        .flat_map(|s| {
            s.regions
                .iter()
                .map(|(a, b, _)| format!("{}:{a}-{b}", s.path))
                .collect::<Vec<_>>()
        })
        .collect();
    let root = Root::new(&t.repo, false).unwrap();
    let back = read(&Request::alone(root.as_dir(), 0, usize::MAX), &args).unwrap();
    let want: Vec<(String, u64, u64)> = hits
        .iter()
        .flat_map(|h| {
            h.regions
                .iter()
                .map(|r| (h.path.clone(), u64::from(r.start), u64::from(r.end)))
        })
        .collect();
    let got: Vec<(String, u64, u64)> = back
        .facts
        .files
        .iter()
        .map(|f| (f.entry.path.clone(), f.start, f.end))
        .collect();
    assert_eq!(got, want, "{}", back.page.text);
}

#[test]
fn explain_adds_the_score_and_every_regions_words_to_the_same_files() {
    let t = fixture();
    let lean = search(&t.repo, "parse header", false);
    let full = search(&t.repo, "parse header", true);
    assert_eq!(lean.facts.hits, full.facts.hits);
    let want: Vec<Said> = full.facts.hits.iter().map(|h| expected(h, true)).collect();
    assert_eq!(said(&full.page.text), want, "{}", full.page.text);
    // Each file's last row is its score and its parts, the penalty of a secondary file with them.
    let mut blocks = full.page.text.split('\n');
    for h in &full.facts.hits {
        let parts: Vec<String> = h
            .score
            .parts
            .iter()
            .map(|(p, v)| format!("{} {v:.2}", p.name()))
            .collect();
        let row = format!("   score {:.2} ({})", h.score.total, parts.join(", "));
        let mut found = false;
        for line in blocks.by_ref() {
            if line == row {
                found = true;
                break;
            }
        }
        assert!(found, "{row} missing: {}", full.page.text);
        if mark_of(&h.path).is_some() {
            assert!(row.contains("secondary_file -"), "{row}");
        }
    }
    assert!(full.page.tokens > lean.page.tokens);
}
