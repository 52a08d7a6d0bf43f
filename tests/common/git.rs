//! The real `git`, as the tests run it to build fixtures (gnaw itself never runs git): no system
//! or global configuration, a fixed identity and fixed dates, so a repository comes out the same
//! on every machine.

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Who writes a commit: author name and e-mail, committer name and e-mail.
pub type Who<'a> = (&'a str, &'a str, &'a str, &'a str);

/// The identity every fixture commits as, unless a test says otherwise.
pub const ADA: Who<'static> = (
    "Ada Tester",
    "ada@example.com",
    "Ada Tester",
    "ada@example.com",
);

/// The real git binary, found once on `PATH` (tests may later put a fake `git` first on it).
pub fn git_bin() -> &'static Path {
    static GIT: OnceLock<PathBuf> = OnceLock::new();
    GIT.get_or_init(|| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|d| d.join("git"))
            .find(|p| p.is_file())
            .expect("the tests need git installed (CI installs it)")
    })
}

/// `git ARGS` in `dir` as `who`, dated `n` minutes after a fixed time, with no config but what
/// is given (`$HOME` is `dir`'s sibling `githome`); its standard output. A failure fails the test.
pub fn git_as(dir: &Path, who: Who, n: u64, args: &[&str]) -> String {
    let home = dir.parent().unwrap().join("githome");
    std::fs::create_dir_all(&home).unwrap();
    let date = format!("@{} +0100", 1_700_000_000 + n * 60);
    let out = Command::new(git_bin())
        .env_clear()
        .env("HOME", &home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", who.0)
        .env("GIT_AUTHOR_EMAIL", who.1)
        .env("GIT_COMMITTER_NAME", who.2)
        .env("GIT_COMMITTER_EMAIL", who.3)
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .args(["-c", "init.defaultBranch=main", "-c", "core.autocrlf=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `git ARGS` in `dir` as [`ADA`], at the fixed time.
pub fn git(dir: &Path, args: &[&str]) -> String {
    git_as(dir, ADA, 0, args)
}

/// `git ARGS` in `dir` as [`ADA`], dated `n` minutes after the fixed time.
pub fn git_at(dir: &Path, n: u64, args: &[&str]) -> String {
    git_as(dir, ADA, n, args)
}
