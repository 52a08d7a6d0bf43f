//! The git tools (`changes`, `log`, `extract --changed`) against real git: fixtures are built
//! here with the `git` binary (the tests may run git; gnaw never does), and gnaw's changed-file
//! lists, hunks and logs must match `git diff` / `git log` on them: added, modified, deleted,
//! renamed, binary and mode-changed files, CRLF, a merge, a packed repository, a shallow clone.
//! Then the rules: nothing is executed (fsmonitor, filters, textconv, external diff, hooks, a
//! `git` on PATH), nothing outside the repository is read (a hostile global config, includes),
//! `.git` files, links and alternates leading outside are refused by name, secrets are redacted
//! on removed lines, budgets are exact with continuations that cover everything, and broken
//! repositories (missing objects, corrupt packs) give errors, never panics. The MCP tools run
//! with the server's sandbox on (and off).

#![allow(clippy::disallowed_methods)] // fixtures use std::fs and run git directly

mod common;

use common::fixture::Tree;
use common::git::{git, git_at, git_bin};
use common::inotify::{opened_files, watch};
use common::mcp_client;

use mcp_client::Server;
use nix::sys::inotify::AddWatchFlags;
use serde_json::json;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Run the gnaw CLI with a clean environment plus `env`.
fn gnaw_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gnaw"));
    cmd.env_clear();
    if let Some(p) = std::env::var_os("PATH") {
        cmd.env("PATH", p);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.args(args).output().expect("run gnaw");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn gnaw(args: &[&str]) -> String {
    let (code, out, err) = gnaw_env(args, &[]);
    assert_eq!(code, 0, "gnaw {args:?}: {err}");
    out
}

fn write(repo: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let p = repo.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, content).unwrap();
}

fn lines(n: usize, tag: &str) -> String {
    (1..=n).map(|i| format!("{tag} line {i}\n")).collect()
}

/// base/root/repo with two commits, then every kind of working-tree change.
fn fixture() -> (Tree, PathBuf) {
    let tree = Tree::new("root/repo");
    let repo = tree.repo.clone();
    git(&repo, &["init", "-q"]);
    write(
        &repo,
        "src/main.rs",
        "fn main() {\n    println!(\"hi\");\n}\n\nfn helper() -> u32 {\n    1\n}\n",
    );
    write(&repo, "notes/long.txt", lines(60, "note"));
    write(&repo, "old/name.txt", lines(20, "renamed"));
    write(&repo, "gone.txt", "bye\n");
    write(&repo, "img.bin", b"\x89PNG\0\0\x01binary");
    write(&repo, "tool.sh", "echo tool\n");
    write(&repo, "crlf.txt", "one\r\ntwo\r\nthree\r\n");
    write(&repo, "noeol.txt", "a\nb");
    git(&repo, &["add", "-A"]);
    git_at(
        &repo,
        1,
        &["commit", "-qm", "first\n\nThe body of\nthe first commit."],
    );
    write(
        &repo,
        "notes/long.txt",
        lines(60, "note").replace("note line 30\n", "note line 30 changed\n"),
    );
    git(&repo, &["add", "-A"]);
    git_at(&repo, 2, &["commit", "-qm", "second"]);
    // The working tree's changes.
    write(
        &repo,
        "src/main.rs",
        "fn main() {\n    println!(\"hello\");\n}\n\nfn helper() -> u32 {\n    2\n}\n\nfn added() {}\n",
    );
    write(
        &repo,
        "notes/long.txt",
        lines(60, "note")
            .replace("note line 3\n", "")
            .replace("note line 50\n", "note fifty\n"),
    );
    fs::create_dir_all(repo.join("new")).unwrap();
    git(&repo, &["mv", "old/name.txt", "new/name.txt"]);
    write(
        &repo,
        "new/name.txt",
        lines(20, "renamed").replace("renamed line 7\n", "seven\n"),
    );
    fs::remove_file(repo.join("gone.txt")).unwrap();
    write(&repo, "img.bin", b"\x89PNG\0\0\x02binary2");
    fs::set_permissions(repo.join("tool.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    write(&repo, "crlf.txt", "one\r\nTWO\r\nthree\r\n");
    write(&repo, "noeol.txt", "a\nc");
    write(&repo, "added.txt", "staged new file\n");
    git(&repo, &["add", "added.txt"]);
    write(&repo, "untracked.txt", "not added\n");
    (tree, repo)
}

/// `git diff` output split by file, without `index` lines and similarity numbers.
fn git_blocks(diff: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in diff.lines() {
        if line.starts_with("diff --git ") {
            out.push(String::new());
        }
        if line.starts_with("index ") || line.starts_with("similarity index") {
            continue;
        }
        if let Some(block) = out.last_mut() {
            block.push_str(line);
            block.push('\n');
        }
    }
    out
}

/// gnaw's `changes` text split the same way (tracked files only).
fn gnaw_blocks(text: &str) -> Vec<String> {
    let diff = &text[text.find("\ndiff --git ").map_or(text.len(), |i| i + 1)..];
    git_blocks(diff)
        .into_iter()
        .map(|b| b.replace("\n\n", "\n"))
        .filter(|b| !b.contains("untracked file (not in the index)"))
        .collect()
}

/// The status letter and paths of `git diff --name-status`.
fn git_status(repo: &Path, base: &str) -> Vec<String> {
    git(repo, &["diff", "--name-status", "-M", base])
        .lines()
        .map(|l| {
            let mut parts = l.split('\t');
            let status = &parts.next().unwrap()[..1];
            let paths: Vec<&str> = parts.collect();
            format!("{status} {}", paths.join(" -> "))
        })
        .collect()
}

/// The status lines of gnaw's listing (letter and paths), tracked files only.
fn gnaw_status(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with('?') && !l.starts_with('('))
        .map(|l| {
            let l = l.split("  ").next().unwrap();
            let l = l.split(" (").next().unwrap();
            l.to_string()
        })
        .collect()
}

fn assert_changes_match(repo: &Path, base: &str, extra: &[&str]) {
    let r = repo.to_str().unwrap();
    let mut args = vec!["changes", r, base];
    args.extend_from_slice(extra);
    let ours = gnaw(&args);
    assert_eq!(gnaw_status(&ours), git_status(repo, base), "{ours}");
    let mut gargs = vec!["diff", "-M", "--no-color"];
    let u;
    if let Some(i) = extra.iter().position(|a| *a == "-U") {
        u = format!("-U{}", extra[i + 1]);
        gargs.push(&u);
    }
    gargs.push(base);
    let theirs = git(repo, &gargs);
    assert_eq!(
        gnaw_blocks(&ours),
        git_blocks(&theirs),
        "ours:\n{ours}\ntheirs:\n{theirs}"
    );
}

#[test]
fn changes_match_git_diff() {
    let (_base, repo) = fixture();
    assert_changes_match(&repo, "HEAD", &[]);
    assert_changes_match(&repo, "HEAD~1", &[]);
    assert_changes_match(&repo, "HEAD", &["-U", "1"]);
    assert_changes_match(&repo, "HEAD", &["-U", "0"]);
    let text = gnaw(&["changes", repo.to_str().unwrap()]);
    // Every kind is there, and the untracked file is listed with its content.
    for want in [
        "M src/main.rs",
        "D gone.txt",
        "R old/name.txt -> new/name.txt",
        "A added.txt",
        "? untracked.txt",
        "Binary files a/img.bin and b/img.bin differ",
        "old mode 100644\nnew mode 100755",
        "+not added",
        "-two\r\n+TWO\r\n",
        "\\ No newline at end of file",
        "@@ -4,7 +4,7 @@ renamed line 3",
    ] {
        assert!(text.contains(want), "{want:?} missing:\n{text}");
    }
    // Packed: the same after git gc.
    git(&repo, &["gc", "-q", "--aggressive", "--prune=now"]);
    assert!(
        fs::read_dir(repo.join(".git/objects/pack"))
            .unwrap()
            .count()
            > 0
    );
    assert_changes_match(&repo, "HEAD", &[]);
    assert_changes_match(&repo, "HEAD~1", &[]);
    // Paths narrow the changes.
    let narrowed = gnaw(&["changes", repo.to_str().unwrap(), "--path", "src"]);
    assert!(
        narrowed.contains("M src/main.rs") && !narrowed.contains("gone.txt"),
        "{narrowed}"
    );
}

/// A history with a merge and a binary file.
fn history() -> (Tree, PathBuf) {
    let tree = Tree::new("root/repo");
    let repo = tree.repo.clone();
    git(&repo, &["init", "-q"]);
    let n = std::cell::Cell::new(0);
    let commit = |repo: &Path, msg: &str| {
        n.set(n.get() + 1);
        git(repo, &["add", "-A"]);
        git_at(repo, n.get(), &["commit", "-qm", msg]);
    };
    write(&repo, "a.txt", lines(10, "a"));
    write(&repo, "bin.dat", b"\0\x01\x02");
    commit(&repo, "initial commit\n\nwith a body\n\n  indented line");
    for i in 0..5 {
        write(&repo, "a.txt", lines(10 + i, "a"));
        write(&repo, &format!("dir/f{i}.txt"), lines(i + 1, "f"));
        commit(&repo, &format!("step {i}"));
    }
    git(&repo, &["checkout", "-qb", "side"]);
    write(&repo, "side.txt", "side\n");
    write(&repo, "bin.dat", b"\0\x09");
    commit(&repo, "on the side");
    git(&repo, &["checkout", "-q", "main"]);
    write(&repo, "main.txt", "main\n");
    fs::remove_file(repo.join("dir/f0.txt")).unwrap();
    commit(&repo, "on main");
    n.set(n.get() + 1);
    git_at(
        &repo,
        n.get(),
        &["merge", "-q", "--no-ff", "-m", "Merge side", "side"],
    );
    write(&repo, "after.txt", "after the merge\n");
    commit(&repo, "after merge");
    (tree, repo)
}

fn assert_log_matches(repo: &Path, extra_gnaw: &[&str], extra_git: &[&str]) {
    let r = repo.to_str().unwrap();
    let mut args = vec!["log", r];
    args.extend_from_slice(extra_gnaw);
    if !extra_gnaw.contains(&"-n") {
        args.extend_from_slice(&["-n", "100"]);
    }
    let ours = gnaw(&args);
    let mut gargs = vec![
        "log",
        "--numstat",
        "--date=iso",
        "--no-renames",
        "-n",
        "100",
    ];
    gargs.extend_from_slice(extra_git);
    let theirs = git(repo, &gargs);
    let ours: String = ours
        .lines()
        .filter(|l| !l.starts_with("(shallow clone boundary") && !l.starts_with("--- showing"))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .replace("\n\n\n", "\n\n");
    assert_eq!(
        ours.trim_end(),
        theirs.trim_end(),
        "ours:\n{ours}\ntheirs:\n{theirs}"
    );
}

#[test]
fn log_matches_git_log() {
    let (_base, repo) = history();
    assert_log_matches(&repo, &[], &[]);
    assert_log_matches(&repo, &["--path", "dir"], &["--", "dir"]);
    assert_log_matches(&repo, &["-n", "3"], &["-n", "3"]);
    // Packed.
    git(&repo, &["gc", "-q", "--prune=now"]);
    assert_log_matches(&repo, &[], &[]);
    // A shallow clone: the boundary commit lists its whole tree, as git shows it.
    let clone = repo.parent().unwrap().join("shallow");
    let url = format!("file://{}", repo.display());
    git(
        repo.parent().unwrap(),
        &["clone", "-q", "--depth", "2", &url, "shallow"],
    );
    assert!(clone.join(".git/shallow").exists());
    assert_log_matches(&clone, &[], &[]);
    let text = gnaw(&["log", clone.to_str().unwrap()]);
    assert!(text.contains("shallow clone boundary"), "{text}");
    // Beyond the boundary: a clear error, not a panic.
    let (code, _, err) = gnaw_env(&["changes", clone.to_str().unwrap(), "HEAD~5"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("HEAD~5"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn log_patch_and_since() {
    let (_base, repo) = history();
    let r = repo.to_str().unwrap();
    let text = gnaw(&["log", r, "-n", "1", "-p"]);
    assert!(
        text.contains("+after the merge") && text.contains("new file mode 100644"),
        "{text}"
    );
    let all = gnaw(&["log", r, "-n", "100"]);
    let since = gnaw(&["log", r, "--since", "2023-11-14T22:18:00Z"]);
    // Commits n >= 5 are at 22:18 and later (1700000000 + n*60).
    assert!(
        since.matches("\ncommit ").count() + 1 < all.matches("commit ").count(),
        "{since}"
    );
    assert!(!since.contains("initial commit"));
    let (code, _, err) = gnaw_env(&["log", r, "--since", "last tuesday"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("YYYY-MM-DD"), "{err}");
}

/// A marker file that any executed command would create.
fn hostile_config(repo: &Path, marker: &Path) {
    let m = marker.display();
    let cmd = format!("touch {m}");
    let mut cfg = fs::read_to_string(repo.join(".git/config")).unwrap();
    cfg.push_str(&format!(
        "[core]\n\tfsmonitor = {cmd}\n\tpager = {cmd}\n\thooksPath = .git/hooks\n\
         [filter \"x\"]\n\tclean = {cmd}\n\tsmudge = {cmd}\n\tprocess = {cmd}\n\trequired = true\n\
         [diff \"x\"]\n\ttextconv = {cmd}\n\tcommand = {cmd}\n\
         [diff]\n\texternal = {cmd}\n\
         [uploadpack]\n\tpackObjectsHook = {cmd}\n"
    ));
    fs::write(repo.join(".git/config"), cfg).unwrap();
    write(repo, ".gitattributes", "* filter=x diff=x\n");
    for hook in [
        "pre-commit",
        "post-checkout",
        "post-index-change",
        "fsmonitor-watchman",
        "reference-transaction",
    ] {
        let p = repo.join(".git/hooks").join(hook);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, format!("#!/bin/sh\n{cmd}\n")).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn nothing_is_ever_executed() {
    let (_base, repo) = fixture();
    let b = repo.parent().unwrap().parent().unwrap().to_path_buf();
    let marker = b.join("MARKER");
    hostile_config(&repo, &marker);
    // A `git` first on PATH that would leave the marker too.
    let fake = b.join("fakebin");
    fs::create_dir_all(&fake).unwrap();
    fs::write(
        fake.join("git"),
        format!("#!/bin/sh\ntouch {}\n", marker.display()),
    )
    .unwrap();
    fs::set_permissions(fake.join("git"), fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let env = [("PATH", path.as_str())];
    let r = repo.to_str().unwrap();
    // The trap is armed: git itself, on the same repository, runs the configured commands.
    let copy = b.join("armed");
    let status = Command::new("cp")
        .arg("-a")
        .arg(&repo)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let armed = b.join("ARMED");
    hostile_config(&copy, &armed);
    let _ = Command::new(git_bin())
        .args(["diff", "HEAD"])
        .current_dir(&copy)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output();
    assert!(
        armed.exists(),
        "git did not run the configured commands: the test proves nothing"
    );
    for args in [
        vec!["changes", r],
        vec!["changes", r, "HEAD~1"],
        vec!["log", r, "-p"],
        vec![r, "--changed", "HEAD~1", "-q"],
    ] {
        let (code, out, err) = gnaw_env(&args, &env);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!out.is_empty());
        assert!(!marker.exists(), "{args:?} executed something");
    }
    for sandbox in ["strict", "off"] {
        let mut s = Server::start(
            &b.join("root"),
            &[("GNAW_MCP_SANDBOX", sandbox), ("PATH", &path)],
        );
        s.initialize("2025-11-25");
        for (tool, args) in [
            ("changes", json!({"repo": "repo"})),
            ("log", json!({"repo": "repo", "patch": true})),
            ("extract", json!({"repo": "repo", "changed": "HEAD~1"})),
        ] {
            let resp = s.call(tool, args);
            assert!(
                resp["result"]["isError"] != true && resp.get("result").is_some(),
                "{sandbox} {tool}: {resp}"
            );
            assert!(!marker.exists(), "{sandbox} {tool} executed something");
        }
    }
}

#[test]
fn no_config_outside_the_repository_is_read() {
    let (_base, repo) = fixture();
    let b = repo.parent().unwrap().parent().unwrap().to_path_buf();
    let r = repo.to_str().unwrap();
    let clean = gnaw(&["changes", r]);
    let clean_log = gnaw(&["log", r, "-p"]);
    // A home, an XDG dir and a system-like config that would change the diff if read.
    let home = b.join("home");
    let hostile = "[diff]\n\tnoprefix = true\n\tcontext = 9\n\trenames = false\n\
                   [core]\n\tautocrlf = true\n\tabbrev = 12\n[include]\n\tpath = outside.cfg\n";
    write(&home, ".gitconfig", hostile);
    write(&home, "outside.cfg", hostile);
    write(&home, ".config/git/config", hostile);
    // The repo's own config includes a file outside it.
    let mut cfg = fs::read_to_string(repo.join(".git/config")).unwrap();
    cfg.push_str(&format!(
        "[include]\n\tpath = {}\n[includeIf \"gitdir:/\"]\n\tpath = {}\n",
        home.join("outside.cfg").display(),
        home.join("outside.cfg").display()
    ));
    fs::write(repo.join(".git/config"), cfg).unwrap();
    let ino = watch(
        &[home.clone(), home.join(".config/git")],
        AddWatchFlags::IN_OPEN,
    );
    let h = home.to_str().unwrap();
    let xdg = home.join(".config");
    let global = home.join(".gitconfig");
    let system = home.join("outside.cfg");
    let env = [
        ("HOME", h),
        ("XDG_CONFIG_HOME", xdg.to_str().unwrap()),
        ("GIT_CONFIG_GLOBAL", global.to_str().unwrap()),
        ("GIT_CONFIG_SYSTEM", system.to_str().unwrap()),
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", "diff.noprefix"),
        ("GIT_CONFIG_VALUE_0", "true"),
        ("GIT_DIR", "/nonexistent"),
        ("GIT_INDEX_FILE", "/nonexistent/index"),
        ("GIT_OBJECT_DIRECTORY", "/nonexistent/objects"),
    ];
    let (code, out, err) = gnaw_env(&["changes", r], &env);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, clean);
    let (_, out, _) = gnaw_env(&["log", r, "-p"], &env);
    assert_eq!(out, clean_log);
    let opened = opened_files(&ino);
    assert!(
        opened.is_empty(),
        "config outside the repository was opened: {opened:?}"
    );
    // The same through the server, sandboxed.
    let mut s = Server::start(&b.join("root"), &[("HOME", h)]);
    s.initialize("2025-11-25");
    let resp = s.call("changes", json!({"repo": "repo", "budget": 0}));
    assert_eq!(
        resp["result"]["content"][0]["text"].as_str().unwrap_or(""),
        clean,
        "{resp}"
    );
}

#[test]
fn git_dirs_leading_outside_are_refused_by_name() {
    let (_base, repo) = fixture();
    let b = repo.parent().unwrap().parent().unwrap().to_path_buf();
    let other = b.join("root/other");
    fs::create_dir_all(&other).unwrap();
    let refusal = |rel: &str, kind: &str| {
        let mut s = Server::start(&b.join("root"), &[]);
        s.initialize("2025-11-25");
        for tool in ["changes", "log"] {
            let resp = s.call(tool, json!({"repo": rel}));
            assert_eq!(resp["error"]["data"]["kind"], kind, "{tool} {rel}: {resp}");
        }
        let resp = s.call("extract", json!({"repo": rel, "changed": "HEAD"}));
        assert_eq!(resp["error"]["data"]["kind"], kind, "extract {rel}: {resp}");
        let (code, _, err) = gnaw_env(
            &["changes", b.join("root").join(rel).to_str().unwrap()],
            &[],
        );
        assert_eq!(code, 2, "{err}");
        assert!(!err.contains("panicked"), "{err}");
    };
    // A worktree-style .git file pointing outside.
    write(
        &other,
        ".git",
        format!("gitdir: {}\n", repo.join(".git").display()),
    );
    refusal("other", "GitDirOutside");
    // A link named .git.
    fs::remove_file(other.join(".git")).unwrap();
    symlink(repo.join(".git"), other.join(".git")).unwrap();
    refusal("other", "GitDirLink");
    fs::remove_file(other.join(".git")).unwrap();
    refusal("other", "NotAGitRepository");
    // A copy of the repo whose git dir has a link, a commondir or alternates leading outside.
    let copy = b.join("root/copy");
    let status = Command::new("cp")
        .args(["-a"])
        .arg(&repo)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    symlink("/etc/passwd", copy.join(".git/packed-refs-link")).unwrap();
    refusal("copy", "GitDirLink");
    fs::remove_file(copy.join(".git/packed-refs-link")).unwrap();
    let outside = |rel: &str| format!("{}\n", repo.join(rel).display());
    fs::write(copy.join(".git/commondir"), outside(".git")).unwrap();
    refusal("copy", "CommonDirOutside");
    fs::remove_file(copy.join(".git/commondir")).unwrap();
    let alternates = copy.join(".git/objects/info/alternates");
    common::fixture::put(&alternates, outside(".git/objects"));
    refusal("copy", "AlternatesOutside");
    fs::write(
        copy.join(".git/objects/info/alternates"),
        "../../../../repo/.git/objects\n",
    )
    .unwrap();
    refusal("copy", "AlternatesOutside");
    fs::remove_file(copy.join(".git/objects/info/alternates")).unwrap();
    // A .git file pointing inside the repository is followed.
    let inner = b.join("root/inner");
    fs::create_dir_all(&inner).unwrap();
    let status = Command::new("cp")
        .args(["-a"])
        .arg(repo.join(".git"))
        .arg(inner.join("gitmeta"))
        .status()
        .unwrap();
    assert!(status.success());
    write(&inner, ".git", "gitdir: gitmeta\n");
    let text = gnaw(&["log", inner.to_str().unwrap()]);
    assert!(text.contains("second"), "{text}");
}

#[test]
fn mcp_tools_match_the_cli_under_the_sandbox() {
    let (_base, repo) = fixture();
    let b = repo.parent().unwrap().parent().unwrap().to_path_buf();
    let r = repo.to_str().unwrap();
    let mut s = Server::start(&b.join("root"), &[]);
    s.initialize("2025-11-25");
    for (tool, args, cli) in [
        (
            "changes",
            json!({"repo": "repo", "budget": 0}),
            vec!["changes", r],
        ),
        (
            "changes",
            json!({"repo": "repo", "budget": 0, "base": "HEAD~1", "context": 1}),
            vec!["changes", r, "HEAD~1", "-U", "1"],
        ),
        (
            "log",
            json!({"repo": "repo", "budget": 0, "patch": true}),
            vec!["log", r, "-p"],
        ),
        (
            "log",
            json!({"repo": "repo", "budget": 0, "path": "notes", "max_count": 5}),
            vec!["log", r, "--path", "notes", "-n", "5"],
        ),
    ] {
        let resp = s.call(tool, args.clone());
        let text = resp["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{tool} {args}: {resp}"));
        assert_eq!(text, gnaw(&cli), "{tool} {args}");
    }
    // extract with changed: only the changed files, through the normal pipeline.
    let resp = s.call(
        "extract",
        json!({"repo": "repo", "changed": "HEAD", "budget": 0}),
    );
    let text = resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{resp}"));
    assert!(
        text.contains("src/main.rs") && text.contains("fn added()"),
        "{text}"
    );
    assert!(
        text.contains("untracked.txt") && !text.contains("gone.txt"),
        "{text}"
    );
    assert!(
        !text.contains("noeol.txt\n") || text.contains("noeol"),
        "{text}"
    );
    let cli = gnaw(&[r, "--changed", "-q"]);
    assert!(
        cli.contains("fn added()") && !cli.contains("README"),
        "{cli}"
    );
    // A bad revision is an argument error with its kind.
    let resp = s.call("changes", json!({"repo": "repo", "base": "no-such-branch"}));
    assert_eq!(resp["error"]["data"]["kind"], "InvalidRevision", "{resp}");
    let resp = s.call("changes", json!({"repo": "repo", "paths": ["../outside"]}));
    assert_eq!(resp["error"]["data"]["kind"], "InvalidPath", "{resp}");
    // Structured content.
    let resp = s.call("changes", json!({"repo": "repo"}));
    let files = resp["result"]["structuredContent"]["files"]
        .as_array()
        .unwrap();
    assert!(
        files
            .iter()
            .any(|f| f["status"] == "renamed" && f["old_path"] == "old/name.txt"),
        "{resp}"
    );
}

/// A fake AWS key id, generated at test time.
fn aws_key() -> String {
    format!("AKIA{}", "QX7RT2LM9WZP4KVB")
}

#[test]
fn secrets_are_redacted_on_both_sides_and_sensitive_files_left_out() {
    let tree = Tree::new("root/repo");
    let (b, repo) = (tree.base.clone(), tree.repo.clone());
    git(&repo, &["init", "-q"]);
    let key = aws_key();
    write(
        &repo,
        "config.py",
        format!("AWS_ACCESS_KEY_ID = \"{key}\"\nregion = 1\n"),
    );
    write(&repo, ".env", "TOKEN=abc\n");
    git(&repo, &["add", "-A"]);
    git_at(&repo, 1, &["commit", "-qm", &format!("add key {key}")]);
    write(&repo, "config.py", "region = 2\n");
    write(&repo, ".env", "TOKEN=def\n");
    git(&repo, &["add", "-A"]);
    git_at(&repo, 2, &["commit", "-qm", "rotate"]);
    write(&repo, "config.py", "region = 3\n");
    let mut s = Server::start(&b.join("root"), &[]);
    s.initialize("2025-11-25");
    for (tool, args) in [
        ("changes", json!({"repo": "repo", "base": "HEAD~1"})),
        ("log", json!({"repo": "repo", "patch": true})),
    ] {
        let resp = s.call(tool, args);
        let text = resp["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{resp}"));
        assert!(!text.contains(&key), "{tool} leaked the key: {text}");
        assert!(text.contains("[REDACTED:"), "{tool}: {text}");
        assert!(text.contains("sensitive file"), "{tool}: {text}");
        assert!(
            !text.contains("TOKEN=abc") && !text.contains("TOKEN=def"),
            "{tool}: {text}"
        );
    }
}

#[test]
fn budgets_are_exact_and_continuations_cover_everything() {
    let (_base, repo) = fixture();
    let b = repo.parent().unwrap().parent().unwrap().to_path_buf();
    let mut s = Server::start(&b.join("root"), &[]);
    s.initialize("2025-11-25");
    let whole = s.call("changes", json!({"repo": "repo", "budget": 0}));
    let whole = whole["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let hunks_whole = whole.matches("\n@@ ").count() + whole.matches("Binary files").count();
    for budget in [400, 600, 1000] {
        let mut after: Option<String> = None;
        let mut hunks = 0;
        for round in 0..100 {
            let mut args = json!({"repo": "repo", "budget": budget});
            if let Some(a) = &after {
                args["after"] = json!(a);
            }
            let resp = s.call("changes", args);
            let sc = &resp["result"]["structuredContent"];
            assert!(sc["answer_tokens"].as_u64().unwrap() <= budget, "{resp}");
            let text = resp["result"]["content"][0]["text"].as_str().unwrap();
            hunks += text.matches("\n@@ ").count() + text.matches("Binary files").count();
            if sc["complete"] == true {
                break;
            }
            after = Some(sc["next_after"].as_str().unwrap().to_string());
            assert!(round < 99, "no end");
        }
        assert_eq!(hunks, hunks_whole, "budget {budget}");
    }
    let resp = s.call("changes", json!({"repo": "repo", "budget": 30}));
    assert!(resp.to_string().contains("too small"), "{resp}");
    // A too-small answer names the limit that stopped it, with one kind for every tool.
    for tool in ["changes", "log"] {
        let resp = s.call(tool, json!({"repo": "repo", "budget": 5}));
        assert_eq!(
            resp["result"]["_meta"]["gnaw/errorKind"], "BudgetTooSmall",
            "{resp}"
        );
        let text = resp["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("a budget of 5 tokens is too small"), "{text}");
        let resp = s.call(tool, json!({"repo": "repo", "max_chars": 40}));
        assert_eq!(
            resp["result"]["_meta"]["gnaw/errorKind"], "BudgetTooSmall",
            "{resp}"
        );
        let text = resp["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("size limit") && text.contains("raise max_chars"),
            "{text}"
        );
        assert!(!text.contains("budget of"), "{text}");
    }
    // log: by whole commits, continued by skip.
    let whole = s.call("log", json!({"repo": "repo", "budget": 0}));
    let commits = whole["result"]["structuredContent"]["commits"]
        .as_array()
        .unwrap()
        .len();
    let (mut skip, mut seen) = (0, 0);
    loop {
        let resp = s.call("log", json!({"repo": "repo", "budget": 200, "skip": skip}));
        let sc = &resp["result"]["structuredContent"];
        assert!(
            sc["answer_tokens"].as_u64().expect("tokens") <= 200,
            "{resp}"
        );
        seen += sc["commits"].as_array().unwrap().len();
        if sc["complete"] == true {
            break;
        }
        skip = sc["next_skip"].as_u64().unwrap();
    }
    assert_eq!(seen, commits);
}

#[test]
fn broken_repositories_give_errors_not_panics() {
    let (_base, repo) = fixture();
    let r = repo.to_str().unwrap();
    // A missing blob.
    let id = git(&repo, &["rev-parse", "HEAD:notes/long.txt"]);
    let id = id.trim();
    let loose = repo.join(".git/objects").join(&id[..2]).join(&id[2..]);
    fs::remove_file(&loose).unwrap();
    let (code, _, err) = gnaw_env(&["changes", r], &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("missing"), "{err}");
    // A corrupt pack.
    let (_base2, repo2) = fixture();
    git(&repo2, &["gc", "-q", "--prune=now"]);
    let pack = fs::read_dir(repo2.join(".git/objects/pack"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "pack"))
        .unwrap();
    let mut bytes = fs::read(&pack).unwrap();
    let len = bytes.len();
    for b in &mut bytes[64..len - 64] {
        *b ^= 0x5a;
    }
    fs::set_permissions(&pack, fs::Permissions::from_mode(0o644)).unwrap();
    fs::write(&pack, bytes).unwrap();
    for args in [
        vec!["changes", repo2.to_str().unwrap()],
        vec!["log", repo2.to_str().unwrap(), "-p"],
    ] {
        let (code, _, err) = gnaw_env(&args, &[]);
        assert_ne!(code, 0, "{args:?}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // Not a repository at all.
    let plain = tempfile::tempdir().unwrap();
    let (code, _, err) = gnaw_env(&["log", plain.path().to_str().unwrap()], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("no .git"), "{err}");
}

/// `changes` in the shapes the benchmark times (scripts/bench/driver.py, git block), against
/// `git diff -M HEAD` on the same tree: nested directories whose trees the index's cache-tree
/// records (and, once staged edits and moves invalidate some, does not), a file added with
/// `git add -N`, moves among unrelated additions and deletions, and a tracked directory
/// replaced by a link to a directory outside holding the same names (its files are deleted, as
/// git says; the link is not followed). Packed, the same again.
#[test]
fn changes_match_git_in_every_shape() {
    let tree = Tree::new("root/repo");
    let repo = tree.repo.clone();
    let r = repo.to_str().unwrap();
    git(&repo, &["init", "-q"]);
    for d in 0..4 {
        for f in 0..6 {
            let text = lines(30 + f, &format!("d{d} f{f}"));
            write(&repo, &format!("d{d}/sub{}/f{f}.txt", f % 2), text);
        }
    }
    write(&repo, "top.txt", lines(5, "top"));
    git(&repo, &["add", "-A"]);
    git_at(&repo, 1, &["commit", "-qm", "first"]);
    let clean = gnaw(&["changes", r]);
    assert!(
        clean.contains(": 0 changed (+0 -0), 0 untracked"),
        "{clean}"
    );
    // One edit deep down; every directory's tree is still in the cache-tree.
    let edit = |rel: &str, from: &str, to: &str| {
        let text = fs::read_to_string(repo.join(rel)).unwrap();
        assert!(text.contains(from), "{rel}");
        write(&repo, rel, text.replace(from, to));
    };
    edit("d2/sub1/f3.txt", "d2 f3 line 7\n", "seven\n");
    assert_changes_match(&repo, "HEAD", &[]);
    // Intent to add: in the index, in no tree.
    write(&repo, "d1/sub0/new.txt", "intent to add\n");
    git(&repo, &["add", "-N", "d1/sub0/new.txt"]);
    assert_changes_match(&repo, "HEAD", &[]);
    // A staged edit, and an unstaged one beside it.
    edit("d0/sub0/f0.txt", "d0 f0 line 3\n", "three\n");
    git(&repo, &["add", "d0/sub0/f0.txt"]);
    edit("d0/sub0/f2.txt", "d0 f2 line 9\n", "nine\n");
    assert_changes_match(&repo, "HEAD", &[]);
    // Moves, two of them edited, among an unrelated deletion and addition.
    for f in 0..6 {
        let from = format!("d3/sub{}/f{f}.txt", f % 2);
        fs::create_dir_all(repo.join("moved")).unwrap();
        git(&repo, &["mv", &from, &format!("moved/g{f}.txt")]);
    }
    edit("moved/g1.txt", "d3 f1 line 2\n", "two\n");
    edit("moved/g4.txt", "d3 f4 line 20\n", "twenty\n");
    fs::remove_file(repo.join("d1/sub1/f1.txt")).unwrap();
    write(&repo, "fresh.txt", lines(12, "unrelated"));
    git(&repo, &["add", "fresh.txt"]);
    assert_changes_match(&repo, "HEAD", &[]);
    let text = gnaw(&["changes", r]);
    assert!(text.contains("R d3/sub1/f1.txt -> moved/g1.txt"), "{text}");
    // A tracked directory replaced by a link to one outside with the same file names.
    let outside = tree.beside("outside");
    for f in [0, 2, 4] {
        write(&outside, &format!("f{f}.txt"), "outside the repository\n");
    }
    fs::rename(repo.join("d2/sub0"), tree.beside("moved-away")).unwrap();
    symlink(&outside, repo.join("d2/sub0")).unwrap();
    assert_changes_match(&repo, "HEAD", &[]);
    let text = gnaw(&["changes", r]);
    assert!(
        text.contains("D d2/sub0/f0.txt") && !text.contains("outside the repository"),
        "{text}"
    );
    git(&repo, &["gc", "-q", "--prune=now"]);
    assert_changes_match(&repo, "HEAD", &[]);
    assert_changes_match(&repo, "HEAD", &["-U", "1"]);
}

/// `log` reads each version of a file once (its new side in one commit is its old side in the
/// next): the counts still match `git log --numstat` commit by commit, and a file with the
/// same content under another path is still judged by its own path (`.env` is sensitive: its
/// lines are never counted, whatever `config.txt` beside it holds).
#[test]
fn log_sides_follow_their_paths() {
    let tree = Tree::new("root/repo");
    let repo = tree.repo.clone();
    git(&repo, &["init", "-q"]);
    for i in 0..5 {
        let text = lines(10 + 3 * i, "same");
        for rel in ["config.txt", ".env", "copy/config.txt"] {
            write(&repo, rel, &text);
        }
        git(&repo, &["add", "-A"]);
        git_at(
            &repo,
            i as u64 + 1,
            &["commit", "-qm", &format!("version {i}")],
        );
    }
    let ours = gnaw(&["log", repo.to_str().unwrap(), "-n", "10"]).replace("\n\n\n", "\n\n");
    let theirs = git(
        &repo,
        &["log", "--numstat", "--date=iso", "--no-renames", "-n", "10"],
    );
    let expected: String = theirs
        .lines()
        .map(|l| match l.strip_suffix("\t.env") {
            Some(_) => "?\t?\t.env\n".to_string(),
            None => format!("{l}\n"),
        })
        .collect();
    assert_eq!(ours.trim_end(), expected.trim_end(), "ours:\n{ours}");
    assert_eq!(ours.matches("?\t?\t.env").count(), 5, "{ours}");
}

/// A GitHub token the scanner redacts, built at test time from split prefixes.
fn ghp() -> String {
    format!("{}{}", "gh", "p_") + "u8Zq3LmN7pX2vR9tK4wY6bJ1cH5dF0gS8aQe"
}

/// A history for `hotspots`: one old commit (day 0), then four by three authors on days
/// 100 to 103, where `src/core.rs` changes in every one, `src/core_test.rs` with it in three,
/// and one author's name holds a token.
fn churn_history() -> (Tree, PathBuf, String) {
    use common::git::git_as;
    let tree = Tree::new("root/repo");
    let repo = tree.repo.clone();
    let token = ghp();
    let eve_name = format!("Eve {token}");
    let ada = common::git::ADA;
    let bob = (
        "Bob Builder",
        "bob@example.com",
        "Bob Builder",
        "bob@example.com",
    );
    let eve = (
        eve_name.as_str(),
        "eve@example.com",
        "Eve",
        "eve@example.com",
    );
    git(&repo, &["init", "-q"]);
    // A commit by `who` on day `day` that writes each file with its number of lines.
    let commit = |who, day: u64, msg: &str, files: &[(&str, usize)]| {
        for &(rel, n) in files {
            write(&repo, rel, lines(n, rel));
        }
        git(&repo, &["add", "-A"]);
        git_as(&repo, who, day * 1440, &["commit", "-qm", msg]);
    };
    let (core, test) = ("src/core.rs", "src/core_test.rs");
    commit(ada, 0, "old", &[("old.txt", 50)]);
    commit(ada, 100, "core", &[(core, 10), (test, 4), ("README.md", 1)]);
    commit(bob, 101, "more core", &[(core, 15), (test, 6)]);
    commit(eve, 102, "eve's", &[(core, 20), (test, 8), ("eve.txt", 1)]);
    commit(ada, 103, "trim core", &[(core, 12), ("docs.md", 1)]);
    (tree, repo, token)
}

#[test]
fn hotspots_rank_churn_with_authors_co_changes_and_bounds() {
    let (_base, repo, token) = churn_history();
    let b = repo.parent().unwrap().parent().unwrap().to_path_buf();
    let r = repo.to_str().unwrap();
    // hotspots is opt-in: named, or with `all`.
    let mut s = Server::start(&b.join("root"), &[("GNAW_MCP_TOOLS", "all")]);
    s.initialize("2025-11-25");
    let resp = s.call("hotspots", json!({"repo": "repo"}));
    let text = resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{resp}"))
        .to_string();
    let facts = &resp["result"]["structuredContent"];
    // The default window: 90 days before the newest commit leaves the old commit out.
    assert_eq!(facts["commits_walked"], 4, "{text}");
    assert_eq!(facts["stopped"], "", "{text}");
    assert!(!text.contains("old.txt"), "{text}");
    assert!(
        text.starts_with("hotspots: 4 commits walked, 2024-02-22 to 2024-02-25"),
        "{text}"
    );
    let files = facts["files"].as_array().unwrap();
    assert_eq!(files[0]["path"], "src/core.rs", "{text}");
    assert_eq!(files[0]["commits"], 4);
    // 10 added, then +5, +5, then -8 on a rewrite of distinct lines: as git's numstat counts.
    assert_eq!(files[0]["authors"], 3);
    assert_eq!(files[0]["top_author"], "Ada Tester");
    assert_eq!(files[0]["lines"], 12);
    assert_eq!(files[0]["with"][0], "src/core_test.rs", "{text}");
    assert_eq!(files[1]["path"], "src/core_test.rs", "{text}");
    assert_eq!(files[1]["commits"], 3);
    assert_eq!(files[1]["with"][0], "src/core.rs");
    let core = text.lines().find(|l| l.starts_with("src/core.rs")).unwrap();
    assert!(
        core.contains("commits 4  +") && core.contains("authors 3 (top Ada Tester)"),
        "{core}"
    );
    assert!(core.ends_with("size 12 lines"), "{core}");
    assert!(text.contains("    with: src/core_test.rs"), "{text}");
    // The token in an author's name is never shown.
    let eve = files.iter().find(|f| f["path"] == "eve.txt").unwrap();
    assert_eq!(eve["top_author"], "Eve [REDACTED:github-token]", "{eve}");
    assert!(!resp.to_string().contains(&token), "{resp}");
    // The CLI prints the same bytes under the server's policy (secrets redacted; the CLI's
    // default reports them, as for `log`'s authors).
    assert_eq!(text, gnaw(&["hotspots", r, "--secrets", "redact"]));
    // A `since` that reaches back takes the old commit in.
    let resp = s.call("hotspots", json!({"repo": "repo", "since": "2023-11-14"}));
    assert_eq!(
        resp["result"]["structuredContent"]["commits_walked"], 5,
        "{resp}"
    );
    let all = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(all.contains("old.txt  commits 1  +50 -0"), "{all}");
    assert_eq!(
        all,
        gnaw(&[
            "hotspots",
            r,
            "--since",
            "2023-11-14",
            "--secrets",
            "redact"
        ])
    );
    // max_commits stops the walk, and the header says so.
    let resp = s.call("hotspots", json!({"repo": "repo", "max_commits": 2}));
    let facts = &resp["result"]["structuredContent"];
    assert_eq!(facts["commits_walked"], 2, "{resp}");
    assert_eq!(facts["stopped"], "max_commits (2)", "{resp}");
    let cut = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(cut.contains("stopped by max_commits (2)"), "{cut}");
    // path, limit and offset: the continuation lists every file once.
    let resp = s.call(
        "hotspots",
        json!({"repo": "repo", "path": "src", "limit": 1}),
    );
    let facts = &resp["result"]["structuredContent"];
    assert_eq!(facts["files"][0]["path"], "src/core.rs", "{resp}");
    assert_eq!(facts["files_changed"], 2, "{resp}");
    assert_eq!(facts["next_offset"], 1, "{resp}");
    let cli = gnaw(&["hotspots", r, "--path", "src", "-n", "1", "--offset", "1"]);
    assert!(
        cli.contains("src/core_test.rs") && !cli.contains("src/core.rs "),
        "{cli}"
    );
    let resp = s.call("hotspots", json!({"repo": "repo", "max_commits": 0}));
    assert!(
        resp["error"].is_object() || resp["result"]["isError"] == true,
        "{resp}"
    );
}
