//! The search index in the warm cache, on real files through the library with the cache's own
//! counters: a warm search indexes nothing again and answers exactly as a cold one, an edit
//! re-indexes that one file (and the answer follows the edit), a new file is indexed alone, and
//! a secret the scan redacts is in no file's index. And `related`, on the library and through a
//! real gnaw-mcp process.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;
use common::fixture::Tree;

use common::mcp_client::Server;
use gnaw::cache::Cache;
use gnaw::driver::call::Request;
use gnaw::driver::call::session::Session;
use gnaw::driver::nav::related::{self, RelatedArgs};
use gnaw::driver::nav::repo_index;
use gnaw::driver::nav::search::{self, SearchAnswer, SearchArgs};
use gnaw::rank::{for_each_term, term_hash};
use gnaw_sandbox::Root;
use serde_json::json;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn request<'a>(repo: &Path, cache: Option<&'a Cache>) -> Request<'a> {
    let root = Root::new(repo, false).unwrap();
    Request {
        cache,
        ..Request::alone(root.as_dir(), 0, usize::MAX)
    }
}

fn search(repo: &Path, cache: Option<&Cache>, query: &str) -> SearchAnswer {
    let args = SearchArgs {
        query: query.into(),
        limit: Some(20),
        ..Default::default()
    };
    search::search(&request(repo, cache), &args).unwrap()
}

/// Files changed in the last two seconds are never cached (a write in the same timestamp tick
/// could go unseen); let the fixture settle.
fn settle() {
    std::thread::sleep(Duration::from_millis(2100));
}

fn fixture() -> (Tree, PathBuf) {
    let tmp = Tree::new("r");
    let repo = tmp.repo.clone();
    for i in 0..30 {
        let doc = format!("/// Parses header number {i}.\n");
        tmp.write(
            &format!("src/m{i}.rs"),
            doc + &format!("pub fn parse_header_{i}() -> u32 {{ {i} }}\n"),
        );
    }
    fs::write(
        repo.join("src/retry.rs"),
        "pub fn retry_with_backoff() {}\n",
    )
    .unwrap();
    fs::write(
        repo.join("README.md"),
        "# r\n\nParses headers, with retry.\n",
    )
    .unwrap();
    settle();
    (tmp, repo)
}

/// The answer without what may differ between calls: the index's build count.
fn same(a: &SearchAnswer, b: &SearchAnswer) {
    assert_eq!(a.page.text, b.page.text);
    assert_eq!(a.facts.hits, b.facts.hits);
    assert_eq!(a.facts.total_files, b.facts.total_files);
    assert_eq!(
        (
            a.facts.index.files,
            a.facts.index.bytes,
            a.facts.index.text_bytes
        ),
        (
            b.facts.index.files,
            b.facts.index.bytes,
            b.facts.index.text_bytes
        )
    );
}

#[test]
fn a_warm_search_indexes_nothing_again_and_an_edit_reindexes_one_file() {
    let (_tmp, repo) = fixture();
    let cache = Cache::new(64 << 20);
    let cold = search(&repo, Some(&cache), "parse header");
    assert_eq!(cold.facts.index.files, 32);
    assert_eq!(
        cold.facts.index.built, 32,
        "every file indexed on the first call"
    );
    assert_eq!(cache.stats().index_built, 32);
    // Without any cache: the same answer.
    same(&cold, &search(&repo, None, "parse header"));
    // Warm: nothing indexed again, the same answer, another query served by the same index.
    let warm = search(&repo, Some(&cache), "parse header");
    assert_eq!(warm.facts.index.built, 0);
    same(&cold, &warm);
    let other = search(&repo, Some(&cache), "retry backoff");
    assert_eq!(other.facts.index.built, 0);
    assert_eq!(
        other.facts.hits[0].path, "src/retry.rs",
        "{}",
        other.page.text
    );
    assert_eq!(cache.stats().index_built, 32);
    assert!(
        cold.facts.index.bytes > 0
            && cold.facts.index.bytes <= 4 * cold.facts.index.text_bytes + 32 * 256,
        "{:?}",
        cold.facts.index
    );

    // One file edited: that file, and only it, is indexed again, and the answer follows it.
    fs::write(
        repo.join("src/m7.rs"),
        "pub fn exponential_backoff_retry() {}\n",
    )
    .unwrap();
    settle();
    let after = search(&repo, Some(&cache), "retry backoff");
    assert_eq!(after.facts.index.built, 1, "only the edited file");
    assert_eq!(cache.stats().index_built, 33);
    assert!(
        after.facts.hits.iter().any(|h| h.path == "src/m7.rs"),
        "{}",
        after.page.text
    );
    same(&after, &search(&repo, None, "retry backoff"));
    assert_eq!(
        search(&repo, Some(&cache), "retry backoff")
            .facts
            .index
            .built,
        0
    );

    // A new file: indexed alone.
    fs::write(repo.join("src/jitter.rs"), "pub fn jitter() {}\n").unwrap();
    settle();
    let added = search(&repo, Some(&cache), "jitter");
    assert_eq!(added.facts.index.built, 1);
    assert_eq!(added.facts.index.files, 33);
    assert_eq!(added.facts.hits[0].path, "src/jitter.rs");
}

#[test]
fn a_redacted_secret_is_in_no_index() {
    let tmp = Tree::new("app");
    let repo = tmp.repo.clone();
    fs::create_dir_all(repo.join("src")).unwrap();
    // An AWS access key id, built so this file holds no key itself.
    let key = format!("{}{}", "AK", "IAQ3EGRIT5MPLX7KZW");
    fs::write(
        repo.join("src/config.py"),
        format!("import os\n\nAWS_ACCESS_KEY_ID = \"{key}\"\nREGION = \"eu-west-1\"\n"),
    )
    .unwrap();
    fs::write(repo.join("src/app.py"), "def region():\n    return 1\n").unwrap();
    settle();
    let cache = Cache::new(64 << 20);
    let req = request(&repo, Some(&cache));
    let session = Session::open(&req).unwrap();
    let fo = session.file_options(false, None);
    let ctx = session.context(&fo).unwrap();
    let indexed = repo_index::index(&session, &ctx).unwrap();
    assert_eq!(indexed.files.len(), 2);
    let mut secret_terms = Vec::new();
    for_each_term(&key, |t| secret_terms.push(t.to_string()));
    assert!(!secret_terms.is_empty());
    let config = indexed
        .files
        .iter()
        .find(|f| f.path == "src/config.py")
        .unwrap();
    // The file is indexed (its other words are there, and the redaction marker), the key is not.
    // A word's term as the index keeps it (stemmed: `redacted` → `redact`).
    let term = |word: &str| {
        let mut out = Vec::new();
        for_each_term(word, |t| out.push(t.to_string()));
        term_hash(&out[0])
    };
    assert!(config.index.tf(term("region")).is_some());
    assert!(config.index.tf(term("redacted")).is_some());
    for f in indexed.files.iter() {
        for t in &secret_terms {
            assert!(
                f.index.tf(term_hash(t)).is_none(),
                "{}: the secret's term {t:?} is indexed",
                f.path
            );
        }
    }
    // And the same index, taken warm from the cache, still holds none of it.
    let again = repo_index::index(&session, &ctx).unwrap();
    assert_eq!(again.status.built, 0);
    for f in again.files.iter() {
        for t in &secret_terms {
            assert!(f.index.tf(term_hash(t)).is_none());
        }
    }
    assert_eq!(search(&repo, Some(&cache), &key).facts.total_files, 0);
}

#[test]
fn related_files_are_linked_by_imports_and_names_both_ways() {
    let tmp = Tree::new("r");
    let repo = tmp.repo.clone();
    fs::create_dir_all(repo.join("src")).unwrap();
    let files = [
        (
            "src/parser.rs",
            "use crate::util;\npub fn parse_header() { util::trim_line(); }\npub struct HeaderMap;\n",
        ),
        (
            "src/client.rs",
            "use crate::parser;\nfn go() { parser::parse_header(); }\n",
        ),
        ("src/server.rs", "fn serve() -> HeaderMap { todo!() }\n"),
        ("src/util.rs", "pub fn trim_line() {}\n"),
        ("src/unrelated.rs", "fn nothing_here() {}\n"),
    ];
    for (p, t) in files {
        fs::write(repo.join(p), t).unwrap();
    }
    let req = request(&repo, None);
    let ask = |symbol: Option<&str>| {
        related::related(
            &req,
            &RelatedArgs {
                path: "src/parser.rs".into(),
                symbol: symbol.map(String::from),
                limit: None,
            },
        )
        .unwrap()
    };
    let a = ask(None);
    let by: std::collections::HashMap<&str, &related::Relation> =
        a.facts.files.iter().map(|f| (f.path.as_str(), f)).collect();
    assert_eq!(a.facts.total_files, 3, "{}", a.page.text);
    assert!(!by.contains_key("src/unrelated.rs"), "{}", a.page.text);
    assert!(!by.contains_key("src/parser.rs"), "not itself");
    // Whether a file imports src/parser.rs, and whether src/parser.rs imports it.
    let links = |path: &str| (by[path].imports_it, by[path].imported_by_it);
    assert_eq!(links("src/client.rs"), (true, false), "{}", a.page.text);
    assert_eq!(by["src/client.rs"].uses, vec!["parse_header".to_string()]);
    assert_eq!(by["src/server.rs"].uses, vec!["HeaderMap".to_string()]);
    assert_eq!(links("src/util.rs"), (false, true), "{}", a.page.text);
    assert_eq!(by["src/util.rs"].provides, 1);
    // Files linked by an import rank above one that only shares a name.
    assert_eq!(a.facts.files[2].path, "src/server.rs", "{}", a.page.text);
    assert!(a.page.text.contains("imports it"), "{}", a.page.text);
    // By one name: only the files that have it.
    let s = ask(Some("HeaderMap"));
    assert_eq!(
        s.facts
            .files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>(),
        vec!["src/server.rs"],
        "{}",
        s.page.text
    );
    // A path outside the files searched is refused by name.
    let e = related::related(
        &req,
        &RelatedArgs {
            path: "src/missing.rs".into(),
            ..RelatedArgs::default()
        },
    );
    assert!(e.is_err());
}

#[test]
fn related_through_the_server() {
    let tmp = Tree::new("app");
    let repo = tmp.repo.clone();
    fs::create_dir_all(repo.join("src")).unwrap();
    fs::write(
        repo.join("src/parser.rs"),
        "pub struct HeaderMap;\npub fn parse_header() {}\n",
    )
    .unwrap();
    fs::write(
        repo.join("src/client.rs"),
        "use crate::parser;\nfn go() { parser::parse_header(); }\n",
    )
    .unwrap();
    fs::write(
        repo.join("src/server.rs"),
        "fn serve() -> HeaderMap { todo!() }\n",
    )
    .unwrap();
    let mut s = Server::start(tmp.base.as_path(), &[]);
    s.initialize("2025-11-25");
    let resp = s.call("related", json!({"repo": "app", "path": "src/parser.rs"}));
    let sc = &resp["result"]["structuredContent"];
    let paths: Vec<&str> = sc["files"]
        .as_array()
        .unwrap_or_else(|| panic!("{resp}"))
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["src/client.rs", "src/server.rs"], "{resp}");
    assert_eq!(sc["files"][0]["imports_it"], true);
    // One name only: `path::Name`.
    let resp = s.call(
        "related",
        json!({"repo": "app", "path": "src/parser.rs::HeaderMap"}),
    );
    let files = &resp["result"]["structuredContent"]["files"];
    assert_eq!(files[0]["path"], "src/server.rs", "{resp}");
    assert_eq!(files[0]["uses"], json!(["HeaderMap"]));
    // Globs, as the CLI takes them: a file excluded is not related.
    let resp = s.call(
        "related",
        json!({"repo": "app", "path": "src/parser.rs", "exclude": ["src/client.rs"]}),
    );
    let files = &resp["result"]["structuredContent"]["files"];
    assert_eq!(files.as_array().map(Vec::len), Some(1), "{resp}");
    assert_eq!(files[0]["path"], "src/server.rs", "{resp}");
    // Outside the repo: refused like any path.
    let resp = s.call("related", json!({"repo": "app", "path": "../x.rs"}));
    assert!(
        resp.get("error").is_some() || resp["result"]["isError"] == true,
        "{resp}"
    );
    s.finish();
    // The CLI takes the same arguments: `path::Name` too, and the globs.
    let cli = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_gnaw"))
            .args(["related", repo.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let by_name = cli(&["src/parser.rs::HeaderMap"]);
    assert!(by_name.contains("src/server.rs"), "{by_name}");
    assert!(!by_name.contains("src/client.rs"), "{by_name}");
    assert_eq!(by_name, cli(&["src/parser.rs", "--symbol", "HeaderMap"]));
    let excluded = cli(&["src/parser.rs", "--exclude", "src/client.rs"]);
    assert!(!excluded.contains("src/client.rs"), "{excluded}");
    assert!(cli(&["src/parser.rs"]).contains("src/client.rs"));
}
