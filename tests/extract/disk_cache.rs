//! The CLI's disk cache of counts and skeletons (`src/cli/disk_cache.rs`), through the real
//! `gnaw` binary: a cold run, a warm run and a run with the cache off print the same bytes, at
//! each compress level; a damaged file is ignored and replaced; two runs at once leave one whole
//! file holding both runs' entries; the bound holds; an unwritable cache warns and says what to
//! do; a link or a FIFO in the cache directory is never followed or waited on; and gnaw-mcp,
//! whatever its environment, writes nothing.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;
use common::fixture::Tree;
use common::mcp_client::Server;
use serde_json::json;
use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// A repository with code to count and to skeletonize, and a cache directory beside it.
fn fixture(seed: &str) -> (Tree, PathBuf) {
    let t = Tree::new("repo");
    for i in 0..6 {
        t.write(
            &format!("src/m{i}.rs"),
            format!(
                "//! Module {i} of {seed}.\n\n/// Adds.\npub fn add{i}(a: u32, b: u32) -> u32 {{\n    \
                 let s = a + b;\n    s * {i}\n}}\n\npub struct S{i} {{ pub x: u32 }}\n"
            ),
        );
    }
    t.write("README.md", format!("# {seed}\n\nSome prose to count.\n"));
    t.write(
        "app.py",
        "def f(x):\n    return x + 1\n\nclass C:\n    def g(self):\n        pass\n",
    );
    let cache = t.beside("xdg-cache");
    (t, cache)
}

/// `gnaw REPO ARGS` with `XDG_CACHE_HOME` = `cache`, `HOME` beside the repository, and `env`.
fn gnaw(repo: &Path, cache: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    command(repo, cache, args, env).output().expect("run gnaw")
}

fn command(repo: &Path, cache: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gnaw"));
    cmd.arg(repo)
        .args(args)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("GNAW_NO_CACHE")
        .env_remove("GNAW_CACHE_BYTES")
        .env("XDG_CACHE_HOME", cache)
        .env("HOME", repo.parent().unwrap())
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

fn ok(out: Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "gnaw failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn cache_file(cache: &Path) -> PathBuf {
    cache.join("gnaw/cache.bin")
}

/// The entry count in the file's header (after magic, version and build).
fn entries(cache: &Path) -> u32 {
    let bytes = fs::read(cache_file(cache)).unwrap();
    assert_eq!(&bytes[..8], b"GNAWCACH");
    u32::from_le_bytes(bytes[20..24].try_into().unwrap())
}

/// What is in `dir`, recursively (empty when it does not exist).
fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            out.push(e.path());
            out.extend(listing(&e.path()));
        }
    }
    out
}

#[test]
fn cold_warm_and_uncached_runs_print_the_same_bytes() {
    let (t, cache) = fixture("same");
    for args in [
        &["-q"][..],
        &["-q", "--compress"],
        &["-q", "--format", "xml", "--encoding", "cl100k_base"],
        &["--estimate"],
        &["-q", "--budget", "200", "--compress"],
    ] {
        let _ = fs::remove_dir_all(&cache);
        let cold = ok(gnaw(&t.repo, &cache, args, &[]));
        let file = fs::read(cache_file(&cache)).expect("a cold run saves the cache");
        assert!(entries(&cache) > 0, "{args:?}");
        let warm = ok(gnaw(&t.repo, &cache, args, &[]));
        assert_eq!(
            fs::read(cache_file(&cache)).unwrap(),
            file,
            "a warm run with nothing new writes nothing ({args:?})"
        );
        let flag = ok(gnaw(
            &t.repo,
            &cache,
            &[args, &["--no-cache"]].concat(),
            &[],
        ));
        let var = ok(gnaw(&t.repo, &cache, args, &[("GNAW_NO_CACHE", "1")]));
        assert_eq!(cold, warm, "{args:?}");
        assert_eq!(cold, flag, "{args:?}");
        assert_eq!(cold, var, "{args:?}");
    }
    // Off means off: nothing is created.
    let off = t.beside("off-cache");
    ok(gnaw(&t.repo, &off, &["-q", "--no-cache"], &[]));
    ok(gnaw(&t.repo, &off, &["-q"], &[("GNAW_NO_CACHE", "1")]));
    assert!(listing(&off).is_empty(), "{:?}", listing(&off));
}

/// Each compress level is its own entry: one cache, filled by every level in turn, answers
/// each level as a run without the cache does.
#[test]
fn each_compress_level_has_its_own_entries() {
    let (t, cache) = fixture("levels");
    // A doc comment of two sentences: summary keeps one, signatures none, docs both.
    t.write(
        "src/two.rs",
        "/// One. Two.\npub fn two() -> u32 {\n    let a = 1;\n    a + 1\n}\n",
    );
    let levels = ["--compress=summary", "--compress=signatures", "--compress"];
    let want: Vec<Vec<u8>> = levels
        .iter()
        .map(|l| ok(gnaw(&t.repo, &cache, &["-q", l, "--no-cache"], &[])))
        .collect();
    assert!(want[0] != want[1] && want[1] != want[2] && want[0] != want[2]);
    for round in 0..2 {
        for (level, want) in levels.iter().zip(&want) {
            let n = entries_or_zero(&cache);
            assert!(
                ok(gnaw(&t.repo, &cache, &["-q", level], &[])) == *want,
                "{level}, round {round}"
            );
            // The first round adds each level's skeletons; the second adds nothing.
            assert_eq!(entries(&cache) > n, round == 0, "{level}, round {round}");
        }
    }
}

fn entries_or_zero(cache: &Path) -> u32 {
    if cache_file(cache).exists() {
        entries(cache)
    } else {
        0
    }
}

#[test]
fn an_edit_adds_entries_and_keeps_the_others() {
    let (t, cache) = fixture("edit");
    let before = ok(gnaw(&t.repo, &cache, &["-q"], &[]));
    let n = entries(&cache);
    t.write("src/m0.rs", "pub fn edited() {}\n");
    let after = ok(gnaw(&t.repo, &cache, &["-q"], &[]));
    assert_ne!(before, after);
    assert!(entries(&cache) > n, "the edited file's count is added");
    assert_eq!(after, ok(gnaw(&t.repo, &cache, &["-q", "--no-cache"], &[])));
}

#[test]
fn a_damaged_or_foreign_cache_file_is_ignored_and_replaced() {
    let (t, cache) = fixture("damaged");
    let want = ok(gnaw(&t.repo, &cache, &["-q", "--compress"], &[]));
    let good = fs::read(cache_file(&cache)).unwrap();
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x01;
    let damages: Vec<Vec<u8>> = vec![
        flipped,
        good[..good.len() / 3].to_vec(),
        good[..good.len() - 1].to_vec(),
        Vec::new(),
        b"{\"version\":1,\"entries\":{}}".to_vec(),
        vec![0xff; 4096],
    ];
    for damaged in damages {
        fs::write(cache_file(&cache), &damaged).unwrap();
        let out = gnaw(&t.repo, &cache, &["--compress"], &[]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(ok(out), want);
        assert!(!stderr.contains("warning"), "{stderr}");
        let now = fs::read(cache_file(&cache)).unwrap();
        assert_eq!(now.len(), good.len(), "replaced by a whole file");
        assert_eq!(&now[..8], b"GNAWCACH");
        // The replacement is whole: a rerun finds every entry and writes nothing.
        ok(gnaw(&t.repo, &cache, &["-q", "--compress"], &[]));
        assert_eq!(fs::read(cache_file(&cache)).unwrap(), now);
    }
}

#[test]
fn two_runs_at_once_leave_one_whole_file_with_both_runs_entries() {
    let (a, cache) = fixture("first");
    let (b, _) = fixture("second");
    for round in 0..6 {
        // Each round brings new texts to both runs, so both must save.
        a.write("src/round.rs", format!("pub const A: u32 = {round};\n"));
        b.write(
            "src/round.rs",
            format!("pub const B: &str = \"{round}\";\n"),
        );
        let mut children: Vec<_> = [&a, &b]
            .iter()
            .map(|t| {
                command(
                    &t.repo,
                    &cache,
                    &["-q", "--compress", "-o", "/dev/null"],
                    &[],
                )
                .spawn()
                .unwrap()
            })
            .collect();
        for c in &mut children {
            assert!(c.wait().unwrap().success());
        }
        let file = fs::read(cache_file(&cache)).unwrap();
        // Both runs' entries landed: neither run finds anything new to save.
        for t in [&a, &b] {
            ok(gnaw(&t.repo, &cache, &["-q", "--compress"], &[]));
            assert_eq!(
                fs::read(cache_file(&cache)).unwrap(),
                file,
                "round {round}: a run's entries were lost"
            );
        }
    }
    let names: Vec<String> = listing(&cache.join("gnaw"))
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.contains("gnaw-tmp")), "{names:?}");
}

#[test]
fn the_file_stays_within_its_bound() {
    let (t, cache) = fixture("bound");
    let bound = 200;
    let want = ok(gnaw(&t.repo, &cache, &["-q", "--compress"], &[]));
    let env = [("GNAW_CACHE_BYTES", "200")];
    let _ = fs::remove_dir_all(&cache);
    assert_eq!(ok(gnaw(&t.repo, &cache, &["-q", "--compress"], &env)), want);
    let len = fs::metadata(cache_file(&cache)).unwrap().len();
    assert!(len <= 24 + bound + 8, "{len} bytes");
    assert!(entries(&cache) > 0);
    let bad = gnaw(&t.repo, &cache, &["-q"], &[("GNAW_CACHE_BYTES", "lots")]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("64MiB"));
}

#[test]
fn a_cache_that_cannot_be_written_warns_and_says_what_to_do() {
    let (t, _) = fixture("unwritable");
    let not_a_dir = t.beside("plain-file");
    fs::write(&not_a_dir, "").unwrap();
    let want = ok(gnaw(&t.repo, &not_a_dir, &["-q", "--no-cache"], &[]));
    let out = gnaw(&t.repo, &not_a_dir, &[], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(ok(out), want);
    assert!(
        stderr.contains("gnaw: warning: cannot create the cache directory"),
        "{stderr}"
    );
    assert!(stderr.contains("--no-cache"), "{stderr}");
}

/// The cache directory is the user's, but what is in it is opened by the one door to user
/// files: a dangling `lock` link makes nothing where it points, a FIFO named `cache.bin` is
/// never waited on, a `cache.bin` link is never read or written through; each run still
/// prints its prompt, warns, and leaves those entries as they were.
#[test]
fn a_link_or_a_fifo_in_the_cache_directory_is_never_followed_or_waited_on() {
    let (t, cache) = fixture("hostile");
    let want = ok(gnaw(&t.repo, &cache, &["-q", "--no-cache"], &[]));
    let dir = cache.join("gnaw");
    fs::create_dir_all(&dir).unwrap();
    let victim = t.beside("victim");
    fs::write(&victim, "the user's file\n").unwrap();
    let run = |what: &str| {
        let cmd = command(&t.repo, &cache, &[], &[]);
        let run = common::process::run_within(cmd, Duration::from_secs(60));
        assert!(run.status.success(), "{what}: {}", run.stderr);
        assert_eq!(run.stdout.as_bytes(), want.as_slice(), "{what}");
        assert!(
            run.elapsed < Duration::from_secs(30),
            "{what}: {:?}",
            run.elapsed
        );
        assert!(
            run.stderr.contains("gnaw: warning: "),
            "{what}: {}",
            run.stderr
        );
        run.stderr
    };
    let target = t.beside("created-through-the-lock");
    std::os::unix::fs::symlink(&target, dir.join("lock")).unwrap();
    let e = run("a dangling lock link");
    assert!(e.contains("lock is a symbolic link"), "{e}");
    assert!(
        !target.exists(),
        "the lock was created where the link points"
    );
    fs::remove_file(dir.join("lock")).unwrap();

    nix::unistd::mkfifo(&dir.join("cache.bin"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    let e = run("a FIFO cache.bin");
    assert!(e.contains("cache.bin is a FIFO, not a regular file"), "{e}");
    assert!(
        fs::symlink_metadata(dir.join("cache.bin"))
            .unwrap()
            .file_type()
            .is_fifo()
    );
    fs::remove_file(dir.join("cache.bin")).unwrap();

    std::os::unix::fs::symlink(&victim, dir.join("cache.bin")).unwrap();
    let e = run("a cache.bin link");
    assert!(e.contains("cache.bin is a symbolic link"), "{e}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "the user's file\n");
    assert!(
        fs::symlink_metadata(dir.join("cache.bin"))
            .unwrap()
            .is_symlink()
    );
}

#[test]
fn gnaw_mcp_never_writes_a_disk_cache() {
    let (t, cache) = fixture("server");
    let home = t.beside("home");
    fs::create_dir_all(&cache).unwrap();
    fs::create_dir_all(&home).unwrap();
    let env = [
        ("XDG_CACHE_HOME", cache.to_str().unwrap()),
        ("HOME", home.to_str().unwrap()),
    ];
    let mut s = Server::start(&t.base, &env);
    s.initialize("2025-06-18");
    for args in [
        json!({"repo": "repo"}),
        json!({"repo": "repo", "compress": true}),
        json!({"repo": "repo", "compress": true}),
    ] {
        let r = s.call("extract", args);
        assert!(r["result"]["isError"] != json!(true), "{r}");
    }
    s.call("estimate", json!({"repo": "repo"}));
    s.finish();
    assert!(listing(&cache).is_empty(), "{:?}", listing(&cache));
    assert!(listing(&home).is_empty(), "{:?}", listing(&home));
    // The same environment makes the CLI write one: the server's silence is its own.
    ok(gnaw(
        &t.repo,
        &cache,
        &["-q"],
        &[("HOME", home.to_str().unwrap())],
    ));
    assert!(cache_file(&cache).is_file());
}
