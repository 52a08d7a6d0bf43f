//! The whole search index kept in the warm cache with the listing of its walk: a warm call on
//! an unchanged repository answers from it without walking, and after any change a walk would
//! see (an edit that keeps the size and the mtime, a new file, a removed one, an ignore file
//! written or edited, `.git/info/exclude`, a directory swapped for a link out of the repo, a
//! hard link, a mode change) the answer is exactly a cold search's, at once and once the change
//! has settled. The swapped directory's outside target is never opened or read.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;
use common::fixture::Tree;
use common::inotify;
use gnaw::cache::Cache;
use gnaw::driver::call::Request;
use gnaw::driver::nav::search::{self, SearchAnswer, SearchArgs};
use gnaw_sandbox::Root;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::time::Duration;

fn search(repo: &Path, cache: Option<&Cache>, query: &str) -> SearchAnswer {
    search_within(repo, cache, query, 0)
}

/// [`search`] with a token budget (0: none).
fn search_within(repo: &Path, cache: Option<&Cache>, query: &str, budget: usize) -> SearchAnswer {
    let root = Root::new(repo, false).unwrap();
    let req = Request {
        cache,
        ..Request::alone(root.as_dir(), budget, usize::MAX)
    };
    let args = SearchArgs {
        query: query.into(),
        limit: Some(50),
        ..Default::default()
    };
    search::search(&req, &args).unwrap()
}

/// Changes in the last two seconds are never kept (a write in the same timestamp tick could go
/// unseen); let the fixture settle.
fn settle() {
    std::thread::sleep(Duration::from_millis(2100));
}

/// The warm search (with `cache`) answers as a cold one, for every query; returns how many of
/// them were answered from the kept index.
fn answers_as_cold(repo: &Path, cache: &Cache, why: &str) -> u64 {
    let mut kept = 0;
    for q in [
        "parse header",
        "retry backoff",
        "jitter",
        "secret outside",
        "vendored",
    ] {
        let before = cache.stats().repo_hits;
        let warm = search(repo, Some(cache), q);
        let cold = search(repo, None, q);
        assert_eq!(warm.page.text, cold.page.text, "{why}: query {q:?}");
        assert_eq!(warm.facts.hits, cold.facts.hits, "{why}: query {q:?}");
        assert_eq!(warm.facts.not_searched, cold.facts.not_searched, "{why}");
        if cache.stats().repo_hits > before && warm.facts.index.built == 0 {
            kept += 1;
        }
    }
    kept
}

/// One change to the fixture.
type Change<'a> = Box<dyn Fn() + 'a>;

#[test]
fn a_kept_index_answers_as_a_cold_walk_after_every_change() {
    let t = Tree::new("root/r");
    let repo = t.repo.clone();
    for i in 0..12 {
        t.write(
            &format!("src/m{i}.rs"),
            format!("/// Parses header {i}.\npub fn parse_header_{i}() -> u32 {{ {i} }}\n"),
        );
    }
    t.write("src/retry.rs", "pub fn retry_with_backoff() {}\n");
    t.write("vendor/lib/vendored.rs", "pub fn vendored() {}\n");
    t.write("README.md", "# r\n\nParses headers, with retry.\n");
    fs::create_dir_all(repo.join(".git/info")).unwrap();
    let outside = t.beside("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.rs"), "pub fn secret_outside() {}\n").unwrap();
    settle();

    let cache = Cache::new(64 << 20);
    answers_as_cold(&repo, &cache, "first calls");
    assert_eq!(
        answers_as_cold(&repo, &cache, "unchanged"),
        5,
        "an unchanged repository is answered from the kept index"
    );
    let watch = inotify::watch_reads(&[&outside]);

    // Each change, then the check right away and once it has settled.
    let changes: Vec<(&str, Change)> = vec![
        (
            "an edit keeping the size and the mtime",
            Box::new(|| {
                let p = repo.join("src/m3.rs");
                let before = fs::metadata(&p).unwrap();
                let text = fs::read_to_string(&p).unwrap().replace("header", "jitter");
                fs::write(&p, text).unwrap();
                let f = fs::File::options().write(true).open(&p).unwrap();
                f.set_modified(before.modified().unwrap()).unwrap();
            }),
        ),
        (
            "a new file deep down",
            Box::new(|| {
                common::fixture::put(&repo.join("src/a/b/jitter.rs"), "pub fn jitter() {}\n")
            }),
        ),
        (
            "a file removed",
            Box::new(|| fs::remove_file(repo.join("src/m5.rs")).unwrap()),
        ),
        (
            "a .gitignore written",
            Box::new(|| fs::write(repo.join(".gitignore"), "vendor/\n").unwrap()),
        ),
        (
            "the .gitignore edited",
            Box::new(|| fs::write(repo.join(".gitignore"), "src/retry.rs\n").unwrap()),
        ),
        (
            "an .ignore in a subdirectory",
            Box::new(|| fs::write(repo.join("src/a/.ignore"), "jitter.rs\n").unwrap()),
        ),
        (
            ".git/info/exclude written",
            Box::new(|| fs::write(repo.join(".git/info/exclude"), "src/m1.rs\n").unwrap()),
        ),
        (
            "a directory swapped for a link out of the repo",
            Box::new(|| {
                fs::rename(repo.join("vendor/lib"), t.beside("lib-moved")).unwrap();
                symlink(&outside, repo.join("vendor/lib")).unwrap();
            }),
        ),
        (
            "a hard link made",
            Box::new(|| fs::hard_link(repo.join("src/m2.rs"), t.beside("m2-link.rs")).unwrap()),
        ),
        (
            "a mode changed",
            Box::new(|| {
                fs::set_permissions(repo.join("src/m4.rs"), fs::Permissions::from_mode(0o444))
                    .unwrap()
            }),
        ),
    ];
    for (what, change) in &changes {
        change();
        answers_as_cold(&repo, &cache, &format!("{what}, at once"));
        settle();
        answers_as_cold(&repo, &cache, &format!("{what}, settled"));
        assert_eq!(
            answers_as_cold(&repo, &cache, &format!("{what}, settled, again")),
            5,
            "{what}: once settled, the new state is kept and answers"
        );
    }
    assert_eq!(
        inotify::opened(&watch),
        Vec::<String>::new(),
        "the outside directory behind the swapped link was opened or read"
    );
}

#[test]
fn a_recent_change_is_never_kept_and_a_budget_shares_the_kept_index() {
    let t = Tree::new("r");
    let repo = t.repo.clone();
    t.write("src/lib.rs", "pub fn parse_header() {}\n");
    let cache = Cache::new(64 << 20);
    // Written just now: nothing is kept, so every call walks.
    for _ in 0..3 {
        search(&repo, Some(&cache), "parse header");
    }
    assert_eq!(cache.stats().repo_hits, 0, "{:?}", cache.stats());
    settle();
    search(&repo, Some(&cache), "parse header");
    search(&repo, Some(&cache), "parse header");
    assert_eq!(cache.stats().repo_hits, 1, "{:?}", cache.stats());
    // A budget shapes the answer, not the index: the same kept index serves it.
    search_within(&repo, Some(&cache), "parse header", 3000);
    assert_eq!(cache.stats().repo_hits, 2, "{:?}", cache.stats());
}
