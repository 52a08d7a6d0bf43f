//! `related` reads co-change from a real git history: files changed in the same small commits
//! rank by how many they share, a commit of many files and a merge count for nothing, a file the
//! index leaves out (sensitive, deleted since, ignored) is never named, `symbol` leaves the
//! history out, and a repository without `.git` answers as before.

use crate::common;
use common::fixture::Tree;
use common::git::git_at;
use gnaw::driver::call::Request;
use gnaw::driver::nav::related::{self, History, RelatedAnswer, RelatedArgs};
use gnaw_sandbox::Root;
use std::fs;
use std::path::Path;

fn related(repo: &Path, path: &str, symbol: Option<&str>) -> RelatedAnswer {
    let root = Root::new(repo, false).unwrap();
    let req = Request::alone(root.as_dir(), 0, usize::MAX);
    let args = RelatedArgs {
        path: path.into(),
        symbol: symbol.map(str::to_string),
        limit: Some(50),
    };
    related::related(&req, &args).unwrap()
}

/// Files that share no name and no import: only the history can relate them.
fn write(repo: &Path, rel: &str, n: usize) {
    let path = repo.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, format!("word{n} only{n}\n")).unwrap();
}

fn commit(repo: &Path, n: u64, files: &[(&str, usize)]) {
    for (rel, v) in files {
        write(repo, rel, *v + n as usize * 100);
    }
    git_at(repo, n, &["add", "-A"]);
    git_at(repo, n, &["commit", "-q", "-m", &format!("change {n}")]);
}

#[test]
fn related_ranks_files_changed_together_and_names_only_what_is_searched() {
    let t = Tree::new("repo");
    let repo = t.repo.as_path();
    git_at(repo, 0, &["init", "-q"]);
    fs::write(repo.join(".gitignore"), "ignored.txt\n").unwrap();
    commit(
        repo,
        1,
        &[("src/a.rs", 1), ("src/b.rs", 2), ("src/c.rs", 3)],
    );
    commit(repo, 2, &[("src/a.rs", 1), ("src/b.rs", 2)]);
    commit(repo, 3, &[("src/a.rs", 1), ("src/b.rs", 2)]);
    commit(repo, 4, &[("src/a.rs", 1), ("src/c.rs", 3)]);
    // A sensitive file, and one deleted later, changed with it: never named.
    commit(repo, 5, &[("src/a.rs", 1), (".env", 4), ("gone.rs", 5)]);
    git_at(repo, 6, &["rm", "-q", "gone.rs"]);
    git_at(repo, 6, &["commit", "-q", "-m", "remove"]);
    // A commit of 40 files says nothing of which belong together.
    let many: Vec<(String, usize)> = (0..40).map(|i| (format!("bulk/f{i}.rs"), i)).collect();
    let mut files: Vec<(&str, usize)> = many.iter().map(|(p, i)| (p.as_str(), *i)).collect();
    files.push(("src/a.rs", 1));
    commit(repo, 7, &files);
    // A branch merged: the merge itself counts for nothing, its commit does.
    git_at(repo, 8, &["checkout", "-q", "-b", "side"]);
    commit(repo, 9, &[("src/a.rs", 1), ("src/d.rs", 6)]);
    git_at(repo, 10, &["checkout", "-q", "main"]);
    commit(repo, 11, &[("src/e.rs", 7)]);
    git_at(
        repo,
        12,
        &["merge", "-q", "--no-ff", "-m", "merge side", "side"],
    );
    // Ignored, and changed with it in the history before it was ignored.
    fs::write(repo.join(".gitignore"), "").unwrap();
    commit(repo, 13, &[("src/a.rs", 1), ("ignored.txt", 8)]);
    fs::write(repo.join(".gitignore"), "ignored.txt\n").unwrap();
    git_at(repo, 14, &["rm", "-q", "--cached", "ignored.txt"]);
    git_at(repo, 14, &["commit", "-q", "-am", "ignore it"]);

    let a = related(repo, "src/a.rs", None);
    let co: Vec<(&str, u32)> = a
        .facts
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.co_changes))
        .collect();
    assert_eq!(
        co,
        vec![("src/b.rs", 3), ("src/c.rs", 2), ("src/d.rs", 1)],
        "{}",
        a.page.text
    );
    assert!(a.facts.files[0].score > a.facts.files[1].score);
    assert!(
        a.page.text.contains("changed with it in 3 commits"),
        "{}",
        a.page.text
    );
    // Twelve commits; 1-5, 9 and 13 change it and count (7 is passed over as too big); the
    // merge and the others do not.
    assert_eq!(
        a.facts.history,
        Some(History::Read {
            commits: 12,
            changing: 7,
            stopped: None
        }),
        "{}",
        a.page.text
    );
    assert!(
        a.page.text.contains("7 of the last 12 commits change it"),
        "{}",
        a.page.text
    );
    for never in [".env", "gone.rs", "ignored.txt", "bulk/"] {
        assert!(!a.page.text.contains(never), "{never}: {}", a.page.text);
    }

    // By one name, the history does not count.
    let by_name = related(repo, "src/a.rs", Some("word1"));
    assert_eq!(by_name.facts.history, None);
    assert!(by_name.facts.files.iter().all(|f| f.co_changes == 0));

    // The same files without `.git`: no history, nothing related, as before.
    fs::remove_dir_all(repo.join(".git")).unwrap();
    let plain = related(repo, "src/a.rs", None);
    assert!(plain.facts.files.is_empty(), "{}", plain.page.text);
    assert!(!plain.page.text.contains("commit"), "{}", plain.page.text);
}
