//! The attack corpus: more than 60 hostile `repo` arguments sent to the real, spawned gnaw-mcp,
//! each with the rejection it must get (`-32602` with `data.kind` `InvalidPath`, `OutsideRoot`,
//! `NotFound` or `NotADirectory`) or, for legitimate but odd names inside the root, success with
//! the name escaped in the output. Canaries sit outside the root (in the contents and in a file
//! *name*); they must never appear on stdout or stderr, and inotify proves no outside directory
//! or file is even opened.
//!
//! Each input is tested against each layer:
//! - through MCP with the real Landlock on (`strict`, all layers), and with `GNAW_MCP_SANDBOX=off`
//!   (layer 1, userspace containment, alone);
//! - Landlock alone: this binary re-executes itself as a single-threaded child (selected by an
//!   environment variable; a test-only mechanism, not a switch in the shipped server) that enters
//!   the same `confine()` the server uses and then opens each input raw, with no userspace check,
//!   and reports the errno. The expected errno is in the table of [`corpus`]: `EACCES` for every
//!   existing object outside the root; inputs that never reach the kernel (NUL, empty) say so.
//!
//! `search` gets every `repo` input too, and every input as its `include` and `exclude` globs
//! (served or refused as a bad argument, never reaching outside).
//!
//! The navigation tools' own path arguments (`read`'s and `outline`'s `paths`, `grep`'s
//! `after`, `tree`'s `path`, the path in `symbol`'s `path::Name`)
//! get the same corpus, relative to the repo `.` (the root itself, so the Landlock-alone column
//! is the same table), each with the kind that argument must answer: a directory is reported by
//! `read`, refused as `NotAFile` by `after`; a file is read by `read` and `after`, refused as
//! `NotADirectory` by `tree`; path arguments are spelled as gnaw shows paths, so
//! `weird/nl\nname` names the directory with a newline.
//!
//! Resource URIs (`gnaw://root/PATH`) get the same corpus as their path, each refused as `read`
//! refuses the same path, with the same kind.
//!
//! `harness = false` (the child must be single-threaded), so this file has a tiny runner: every
//! test runs in turn, `cargo test --test attack_corpus -- NAME` runs the ones whose name
//! contains NAME. A per-class table is printed.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

mod common;

use common::inotify::opened;
use common::mcp_client;

use gnaw_sandbox::{Root, SandboxMode, confine};
use mcp_client::Server;
use nix::sys::inotify::Inotify;
use serde_json::json;
use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const CANARY: &str = "GNAW-CORPUS-CANARY-91c2e7";
const CANARY_NAME: &str = "gnaw-corpus-canary-name-0a4f";
const CHILD: &str = "GNAW_ATTACK_CORPUS_CHILD";
const SIBLINGS: [&str; 4] = ["root-evil", "root2", "root.bak", "root_backup"];

/// What the server must answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    Ok,
    Reject(&'static str),
}

/// What a raw open under Landlock alone must give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// This errno (0: success).
    Errno(i32),
    /// The input cannot be given to the kernel at all (empty, NUL byte).
    Never(&'static str),
}

struct Case {
    class: &'static str,
    input: String,
    want: Want,
    kernel: Kernel,
}

const OK: Kernel = Kernel::Errno(0);
const EACCES: Kernel = Kernel::Errno(libc::EACCES);
const ENOENT: Kernel = Kernel::Errno(libc::ENOENT);
const ELOOP: Kernel = Kernel::Errno(libc::ELOOP);
const ENOTDIR: Kernel = Kernel::Errno(libc::ENOTDIR);
const ENAMETOOLONG: Kernel = Kernel::Errno(libc::ENAMETOOLONG);

fn weird_names() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("newline", b"nl\nname".to_vec()),
        ("backtick", b"tick```name".to_vec()),
        ("ansi", b"ansi\x1b[31mred".to_vec()),
        ("rlo", "rlo\u{202e}txt.exe".as_bytes().to_vec()),
        ("zero-width", "zw\u{200b}sp".as_bytes().to_vec()),
        ("nfc", "caf\u{e9}".as_bytes().to_vec()),
        ("nfd", "cafe\u{301}".as_bytes().to_vec()),
        ("non-utf8", b"bad\xffname".to_vec()),
    ]
}

/// base/root is served. Beside it: `outside/` (canaries), the four sibling-prefix directories
/// (canaries, each with a `repo/`), and `outgit/`, the target of a `.git` file.
fn build(base: &Path) {
    let root = base.join("root");
    let outside = base.join("outside");
    fs::create_dir_all(outside.join("sub")).unwrap();
    fs::write(outside.join("canary.txt"), CANARY).unwrap();
    fs::write(outside.join(CANARY_NAME), CANARY).unwrap();
    fs::write(outside.join("sub/canary.txt"), CANARY).unwrap();
    for s in SIBLINGS {
        fs::create_dir_all(base.join(s).join("repo")).unwrap();
        fs::write(base.join(s).join("canary.txt"), CANARY).unwrap();
        fs::write(base.join(s).join("repo/canary.txt"), CANARY).unwrap();
    }
    let outgit = base.join("outgit");
    fs::create_dir_all(outgit.join("info")).unwrap();
    fs::write(outgit.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    fs::write(outgit.join("config"), format!("# {CANARY}\n")).unwrap();
    fs::write(outgit.join("info/exclude"), "*.rs\n").unwrap();

    fs::create_dir_all(root.join("repo/src")).unwrap();
    fs::write(root.join("repo/src/lib.rs"), "pub fn inside() {}\n").unwrap();
    fs::write(
        root.join("repo/.git"),
        format!("gitdir: {}\n", outgit.display()),
    )
    .unwrap();
    fs::write(root.join("file.txt"), "a file, not a directory\n").unwrap();
    fs::create_dir_all(root.join("sub/inner")).unwrap();
    fs::create_dir_all(root.join("deep/a/b")).unwrap();
    fs::create_dir_all(root.join("back\\slash")).unwrap();
    fs::create_dir_all(root.join("x".repeat(255))).unwrap();
    let link = |target: &Path, name: &str| symlink(target, root.join(name)).unwrap();
    link(&outside.join("canary.txt"), "link_file_out");
    link(&outside, "link_dir_out");
    link(&outside, "anc");
    link(Path::new("hop2"), "hop1");
    link(Path::new("hop3"), "hop2");
    link(&outside, "hop3");
    link(Path::new("in2"), "in1");
    link(Path::new("in3"), "in2");
    link(Path::new("repo"), "in3");
    symlink("../../../../outside", root.join("deep/a/b/rel")).unwrap();
    link(Path::new("../outside"), "rel_up");
    link(Path::new("nowhere"), "dangling");
    link(Path::new("/nonexistent-gnaw-corpus"), "dangling_abs");
    link(Path::new("loop_b"), "loop_a");
    link(Path::new("loop_a"), "loop_b");
    link(Path::new("self"), "self");
    link(Path::new("/proc/self/root"), "procroot");
    link(Path::new("/proc/self/cwd"), "proccwd");
    link(&root.join("repo"), "abs_in");
    fs::create_dir_all(root.join("weird")).unwrap();
    for (label, name) in weird_names() {
        let dir = root.join("weird").join(std::ffi::OsStr::from_bytes(&name));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("a.txt"), format!("marker-{label}\n")).unwrap();
    }
}

/// The corpus for a fixture at `base`. Same function in the parent and the Landlock child.
fn corpus(base: &Path) -> Vec<Case> {
    let root = base.join("root");
    let r = root.display().to_string();
    let o = base.join("outside").display().to_string();
    let mut v = Vec::new();
    let mut add = |class, input: String, want, kernel| {
        v.push(Case {
            class,
            input,
            want,
            kernel,
        })
    };
    let out = Want::Reject("OutsideRoot");
    let nf = Want::Reject("NotFound");
    let inv = Want::Reject("InvalidPath");
    let notdir = Want::Reject("NotADirectory");

    let c = "dotdot";
    for s in [
        "..",
        "../",
        "../..",
        "../outside",
        "../outside/",
        "./../outside",
        "repo/../../outside",
        "repo/../..",
        "sub/inner/../../../outside",
    ] {
        add(c, s.to_string(), out, EACCES);
    }
    // Climbs above the root and comes back: refused by us, but the kernel sees a path inside.
    add(c, "../root/repo".into(), out, OK);
    add(c, "../".repeat(1000), out, EACCES);
    add(c, format!("{}{}", "../".repeat(1000), &o[1..]), out, EACCES);
    add(c, format!("repo/{}etc", "../".repeat(1000)), out, EACCES);
    add(c, format!("{r}/../outside"), out, EACCES);

    let c = "absolute";
    for s in ["/", "/etc", "/etc/passwd", "/tmp", "//", "/./", "///etc"] {
        add(c, s.to_string(), out, EACCES);
    }
    add(c, o.clone(), out, EACCES);
    add(c, format!("{o}/canary.txt"), out, EACCES);
    add(c, format!("{o}/sub/"), out, EACCES);
    // No existence oracle: a missing absolute path outside is OutsideRoot, not NotFound. The
    // kernel alone does answer ENOENT there (a stat-level leak Landlock does not govern).
    add(c, "/nonexistent-gnaw/xyz".into(), out, ENOENT);

    let c = "dot-forms";
    add(c, String::new(), inv, Kernel::Never("empty path"));
    for s in [
        ".",
        "./",
        "repo/",
        "repo//",
        "repo/./src",
        ".//repo/.//src/",
    ] {
        add(c, s.to_string(), Want::Ok, OK);
    }
    add(c, format!("{r}//repo"), Want::Ok, OK);
    add(c, format!("{r}/./repo/"), Want::Ok, OK);
    add(c, "file.txt".into(), notdir, OK);
    add(c, "file.txt/".into(), notdir, ENOTDIR);
    add(c, "repo/src/lib.rs".into(), notdir, OK);

    let c = "sibling-prefix";
    for s in SIBLINGS {
        add(c, format!("{}", base.join(s).display()), out, EACCES);
        add(c, format!("{}/repo", base.join(s).display()), out, EACCES);
        add(c, format!("../{s}/repo"), out, EACCES);
    }

    let c = "encoded";
    for s in [
        "%2e%2e",
        "%2e%2e/%2e%2e/outside",
        "..%2f..%2foutside",
        "%252e%252e",
        "..\\outside",
        "..\\..\\outside",
        "C:\\x",
        "C:\\Windows\\System32",
        "\\\\server\\share",
        "repo\\..\\..",
    ] {
        add(c, s.to_string(), nf, ENOENT);
    }
    add(c, "back\\slash".into(), Want::Ok, OK);

    let c = "nul";
    for s in [
        "\0".to_string(),
        "repo\0".into(),
        "\0repo".into(),
        "re\0po/src".into(),
        "../outside\0".into(),
        format!("{o}\0"),
        "repo/\0/../../outside".into(),
    ] {
        add(c, s, inv, Kernel::Never("NUL byte"));
    }

    let c = "symlink";
    for s in [
        "link_file_out",
        "link_dir_out",
        "link_dir_out/",
        "link_dir_out/sub",
        "anc/sub",
        "hop1",
        "hop1/sub",
        "deep/a/b/rel",
        "deep/a/b/rel/sub",
        "rel_up",
    ] {
        add(c, s.to_string(), out, EACCES);
    }
    for (s, want, kernel) in [
        ("dangling", nf, ENOENT),
        ("dangling_abs", out, ENOENT),
        ("loop_a", inv, ELOOP),
        ("loop_a/x", inv, ELOOP),
        ("self", inv, ELOOP),
        ("in1", Want::Ok, OK),
        ("abs_in/src", Want::Ok, OK),
    ] {
        add(c, s.to_string(), want, kernel);
    }

    let c = "proc";
    add(c, format!("/proc/self/root{o}"), out, EACCES);
    add(c, "/proc/self/root".into(), out, EACCES);
    add(c, "/proc/self/root/etc".into(), out, EACCES);
    add(c, "/proc/self/cwd".into(), out, EACCES);
    add(c, "/proc/self/cwd/..".into(), out, EACCES);
    add(c, "/proc/self/fd/0".into(), out, EACCES);
    add(c, "/proc/self/fd/2".into(), out, EACCES);
    add(c, "/proc/self/fd/0/".into(), out, ENOTDIR);
    add(c, "procroot".into(), out, EACCES);
    add(c, format!("procroot{o}"), out, EACCES);
    add(c, format!("procroot{r}/repo"), out, OK);
    add(c, "proccwd".into(), out, EACCES);
    // Spelled through /proc but resolving inside. Landlock lets the open through (it resolves
    // into the root), but containment refuses it: an absolute path is accepted only under the
    // root as the operator spelled it, so no outside spelling can be probed for where it leads.
    add(c, format!("/proc/self/root{r}/repo"), out, OK);

    let c = "long";
    add(c, "a".repeat(256), inv, ENAMETOOLONG);
    add(c, format!("repo/{}", "b".repeat(300)), inv, ENAMETOOLONG);
    add(c, "a/".repeat(2100), inv, ENAMETOOLONG);
    add(c, "../".repeat(1400), inv, ENAMETOOLONG);
    add(c, format!("/{}", "c/".repeat(2100)), inv, ENAMETOOLONG);
    add(c, "x".repeat(255), Want::Ok, OK);
    add(c, "y".repeat(255), nf, ENOENT);

    let c = "names";
    for (label, name) in weird_names() {
        let Ok(s) = String::from_utf8(name) else {
            continue;
        };
        let _ = label;
        add(c, format!("weird/{s}"), Want::Ok, OK);
    }
    // A non-UTF-8 name cannot be spelled in JSON; its U+FFFD look-alike names nothing.
    add(c, "weird/bad\u{fffd}name".into(), nf, ENOENT);
    add(c, "weird/nl\\nname".into(), nf, ENOENT);
    add(c, "weird/caf".into(), nf, ENOENT);
    v
}

// ---------------------------------------------------------------- Landlock alone (child side)

fn child() {
    let base = PathBuf::from(std::env::var_os(CHILD).unwrap_or_default());
    let root = match Root::new(&base.join("root"), false) {
        Ok(r) => r,
        Err(e) => {
            println!("error {e}");
            return;
        }
    };
    if let Err(e) = confine(&root, SandboxMode::Strict) {
        println!("error {e}");
        return;
    }
    for (i, case) in corpus(&base).iter().enumerate() {
        let code = match raw_probe(root.path(), &case.input) {
            Some(Ok(())) => "0".to_string(),
            Some(Err(e)) => e.raw_os_error().map_or("-1".into(), |n| n.to_string()),
            None => "never".to_string(),
        };
        println!("probe {i} {code}");
    }
}

/// Open the input raw (relative to the root, as a path string: no userspace check at all) and
/// read from it (list it, for a directory). `None` when the kernel cannot be asked.
fn raw_probe(root: &Path, input: &str) -> Option<std::io::Result<()>> {
    if input.is_empty() || input.contains('\0') {
        return None;
    }
    let path = if input.starts_with('/') {
        PathBuf::from(input)
    } else {
        PathBuf::from(format!("{}/{input}", root.display()))
    };
    Some((|| {
        let mut f = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)?;
        if f.metadata()?.is_dir() {
            fs::read_dir(&path)?.next().transpose()?;
        } else {
            let mut b = [0u8; 1];
            let _ = f.read(&mut b)?;
        }
        Ok(())
    })())
}

/// Run the child and return each case's probe result.
fn landlock_alone(base: &Path) -> Vec<String> {
    let out = Command::new(std::env::current_exe().unwrap())
        .env(CHILD, base)
        .current_dir(base)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("run the Landlock child");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        !text.contains("error"),
        "the child could not confine: {text}"
    );
    assert!(!text.contains(CANARY), "the Landlock child read a canary");
    text.lines()
        .filter_map(|l| l.strip_prefix("probe "))
        .map(|l| l.split_once(' ').map_or("", |x| x.1).to_string())
        .collect()
}

// ---------------------------------------------------------------- parent side

fn watch_outside(base: &Path) -> Inotify {
    let mut dirs = vec![
        base.join("outside"),
        base.join("outside/sub"),
        base.join("outgit"),
        base.join("outgit/info"),
    ];
    for s in SIBLINGS {
        dirs.push(base.join(s));
        dirs.push(base.join(s).join("repo"));
    }
    common::inotify::watch_reads(&dirs)
}

fn no_canary(what: &str, text: &str) {
    assert!(!text.contains(CANARY), "{what}: canary leaked: {text:.400}");
    assert!(
        !text.contains(CANARY_NAME),
        "{what}: outside name leaked: {text:.400}"
    );
}

/// The watch on everything outside the root, and a server on the root in sandbox `mode`.
fn watched_server(base: &Path, mode: &str) -> (Inotify, Server) {
    let ino = watch_outside(base);
    let mut s = Server::start(&base.join("root"), &[("GNAW_MCP_SANDBOX", mode)]);
    s.initialize("2025-11-25");
    (ino, s)
}

/// Send the whole corpus to one server; returns per-case outcome (the kind, or "ok").
fn through_mcp(base: &Path, mode: &str) -> Vec<String> {
    let (ino, mut s) = watched_server(base, mode);
    let mut got = Vec::new();
    for case in corpus(base) {
        let shown = format!("{:.80?}", case.input);
        for tool in ["extract", "estimate", "search"] {
            let args = if tool == "search" {
                json!({ "repo": case.input, "query": "marker" })
            } else {
                json!({ "repo": case.input })
            };
            let resp = s.call(tool, args);
            no_canary(&format!("{mode} {tool} {shown}"), &resp.to_string());
            let outcome = match (&resp.get("error"), case.want) {
                (Some(err), Want::Reject(kind)) => {
                    assert_eq!(err["code"], -32602, "{mode} {tool} {shown}: {resp}");
                    assert_eq!(err["data"]["kind"], kind, "{mode} {tool} {shown}: {resp}");
                    kind.to_string()
                }
                (None, Want::Ok) => {
                    assert_ne!(
                        resp["result"]["isError"], true,
                        "{mode} {tool} {shown}: {resp}"
                    );
                    "ok".to_string()
                }
                _ => panic!(
                    "{mode} {tool} {shown}: wanted {:?}, got {resp:.600}",
                    case.want
                ),
            };
            if tool == "extract" {
                got.push(outcome);
            }
        }
    }
    finish_clean(s, &ino, &format!("{mode} stderr"));
    got
}

/// The server still answers, exits cleanly on end of input with no canary on stderr, and opened
/// nothing outside (`what` names the run).
fn finish_clean(mut s: Server, ino: &Inotify, what: &str) {
    s.ping();
    let (status, stderr) = s.finish();
    assert!(status.success());
    no_canary(what, &stderr);
    let seen = opened(ino);
    assert!(
        seen.is_empty(),
        "{what}: the server opened outside paths: {seen:?}"
    );
}

fn errno_name(code: &str) -> String {
    match code.parse::<i32>() {
        Ok(0) => "ok".into(),
        Ok(libc::EACCES) => "EACCES".into(),
        Ok(libc::ENOENT) => "ENOENT".into(),
        Ok(libc::ELOOP) => "ELOOP".into(),
        Ok(libc::ENOTDIR) => "ENOTDIR".into(),
        Ok(libc::ENAMETOOLONG) => "ENAMETOOLONG".into(),
        Ok(n) => format!("errno {n}"),
        Err(_) => code.to_string(),
    }
}

/// One line of the printed table: cases, MCP outcomes, Landlock-alone outcomes.
type Row = (usize, BTreeMap<String, usize>, BTreeMap<String, usize>);

fn test_corpus_every_layer() {
    let base = tempfile::tempdir().unwrap();
    let b = base.path();
    build(b);
    let cases = corpus(b);
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    let strict = through_mcp(b, "strict");
    let off = through_mcp(b, "off");
    assert_eq!(strict, off, "layer 1 alone answers differently");
    let kernel = landlock_alone(b);
    assert_eq!(kernel.len(), cases.len(), "child probes: {kernel:?}");
    let mut table: BTreeMap<&str, Row> = BTreeMap::new();
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let want = match case.kernel {
            Kernel::Errno(n) => n.to_string(),
            Kernel::Never(_) => "never".into(),
        };
        if kernel[i] != want {
            failures.push(format!(
                "{} {:.80?}: Landlock alone gave {}, expected {}",
                case.class,
                case.input,
                errno_name(&kernel[i]),
                errno_name(&want)
            ));
        }
        let row = table.entry(case.class).or_default();
        row.0 += 1;
        *row.1.entry(strict[i].clone()).or_default() += 1;
        let k = match case.kernel {
            Kernel::Never(why) => format!("never reaches kernel ({why})"),
            Kernel::Errno(_) => errno_name(&kernel[i]),
        };
        *row.2.entry(k).or_default() += 1;
    }
    println!(
        "\n{:<15} {:>5}  {:<40} Landlock alone (raw open)",
        "class", "cases", "MCP (strict == off)"
    );
    for (class, (n, mcp, k)) in &table {
        let f = |m: &BTreeMap<String, usize>| {
            m.iter()
                .map(|(k, v)| format!("{k}×{v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!("{class:<15} {n:>5}  {:<40} {}", f(mcp), f(k));
    }
    println!(
        "{} inputs, each through extract, estimate and search, strict and off\n",
        cases.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Odd but legal names inside the root: extract succeeds, each name is shown escaped (no raw
/// newline, escape, U+202E or zero-width character in a path), NFC and NFD twins stay distinct.
fn test_weird_names_are_escaped() {
    let base = tempfile::tempdir().unwrap();
    build(base.path());
    let mut s = Server::start(&base.path().join("root"), &[]);
    s.initialize("2025-11-25");
    let resp = s.call("extract", json!({ "repo": "weird" }));
    let text = resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    no_canary("weird", &text);
    for (label, _) in weird_names() {
        assert!(
            text.contains(&format!("marker-{label}")),
            "{label} missing: {text}"
        );
    }
    for escaped in [
        "nl\\nname",
        "ansi\\u{1b}[31mred",
        "rlo\\u{202e}txt.exe",
        "zw\\u{200b}sp",
        "bad\\xffname",
    ] {
        assert!(
            text.contains(escaped),
            "{escaped} not shown escaped: {text}"
        );
    }
    for raw in ["\x1b", "\u{202e}", "\u{200b}", "nl\nname"] {
        assert!(!text.contains(raw), "raw {raw:?} in the output: {text}");
    }
    assert!(text.contains("caf\u{e9}/a.txt") && text.contains("cafe\u{301}/a.txt"));
    // Each twin, asked for by its own spelling, gives its own file.
    for (spelling, label) in [("caf\u{e9}", "nfc"), ("cafe\u{301}", "nfd")] {
        let resp = s.call("extract", json!({ "repo": format!("weird/{spelling}") }));
        let t = resp["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            t.contains(&format!("marker-{label}")),
            "{spelling:?}: {resp}"
        );
        let other = if label == "nfc" {
            "marker-nfd"
        } else {
            "marker-nfc"
        };
        assert!(!t.contains(other), "{spelling:?} read its twin: {t}");
    }
    // A lone surrogate (how a non-UTF-8 byte would have to be smuggled) is not JSON at all.
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"ls\",\"method\":\"tools/call\",\"params\":{\"name\":\"extract\",\"arguments\":{\"repo\":\"weird/bad\\udcffname\"}}}\n");
    let resp = s.recv();
    assert_eq!(resp["error"]["code"], -32700, "{resp}");
    s.ping();
}

/// A `.git` *file* pointing outside: extract succeeds and nothing under the outside gitdir is
/// opened (its `info/exclude` would hide `*.rs`; its config holds the canary), in both modes;
/// the git tools (`changes`, `log`, `extract` with `changed`) refuse it as `GitDirOutside`.
fn test_git_file_pointing_outside() {
    let base = tempfile::tempdir().unwrap();
    let b = base.path();
    build(b);
    for mode in ["off", "strict"] {
        let ino = watch_outside(b);
        let mut s = Server::start(&b.join("root"), &[("GNAW_MCP_SANDBOX", mode)]);
        s.initialize("2025-11-25");
        let resp = s.call("extract", json!({ "repo": "repo" }));
        let text = resp["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains("pub fn inside()"), "{mode}: {resp}");
        assert!(
            !text.contains("gitdir:"),
            "{mode}: .git was emitted: {text}"
        );
        no_canary(mode, text);
        // The git tools refuse the repository by name, before opening anything of its gitdir;
        // their path filters are checked lexically and never opened.
        for (tool, args) in [
            ("changes", json!({ "repo": "repo" })),
            ("changes", json!({ "repo": "repo", "paths": ["src"] })),
            ("log", json!({ "repo": "repo", "path": "src" })),
            ("extract", json!({ "repo": "repo", "changed": "HEAD" })),
        ] {
            let resp = s.call(tool, args);
            no_canary(mode, &resp.to_string());
            assert_eq!(
                resp["error"]["data"]["kind"], "GitDirOutside",
                "{mode} {tool}: {resp}"
            );
        }
        for bad in ["../outside", "/etc", "src/../../x"] {
            let resp = s.call("changes", json!({ "repo": "repo", "paths": [bad] }));
            assert_eq!(
                resp["error"]["data"]["kind"], "InvalidPath",
                "{mode} {bad}: {resp}"
            );
        }
        let (_, stderr) = s.finish();
        no_canary(mode, &stderr);
        let seen = opened(&ino);
        assert!(
            seen.is_empty(),
            "{mode}: opened under the outside gitdir: {seen:?}"
        );
    }
}

/// GNAW_MCP_ROOT given as a symlink to the real root: both spellings of a path are the same
/// repo, and everything outside is still refused.
fn test_symlinked_root_both_spellings() {
    let base = tempfile::tempdir().unwrap();
    let b = base.path();
    build(b);
    symlink(b.join("root"), b.join("rootlink")).unwrap();
    let mut answers = Vec::new();
    for start in ["root", "rootlink"] {
        let mut s = Server::start(&b.join(start), &[]);
        s.initialize("2025-11-25");
        let mut got = Vec::new();
        for repo in [
            "repo".to_string(),
            format!("{}/repo", b.join("root").display()),
            format!("{}/repo", b.join("rootlink").display()),
            format!("{}/../outside", b.join("rootlink").display()),
            format!("{}", b.join("outside").display()),
            "../outside".into(),
            "../rootlink/repo".into(),
        ] {
            let resp = s.call("extract", json!({ "repo": repo }));
            no_canary(start, &resp.to_string());
            got.push(match resp.get("error") {
                Some(e) => e["data"]["kind"].as_str().unwrap_or("?").to_string(),
                None => resp["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or("?")
                    .to_string(),
            });
        }
        assert!(got[0].contains("pub fn inside()"), "{start}: {got:?}");
        assert_eq!(got[0], got[1], "{start}: real spelling differs");
        if start == "rootlink" {
            // The root as the operator spelled it is accepted.
            assert_eq!(got[0], got[2], "{start}: link spelling differs");
        } else {
            // An outside link into the root is another outside spelling: refused without
            // saying where it leads (issue 12, outside aliases).
            assert_eq!(got[2], "OutsideRoot", "{start}: {got:?}");
        }
        assert_eq!(&got[3..], ["OutsideRoot"; 4], "{start}");
        answers.push(got);
    }
    assert_eq!(
        (&answers[0][..2], &answers[0][3..]),
        (&answers[1][..2], &answers[1][3..]),
        "the two root spellings behave differently"
    );
}

/// Two servers, two sibling roots: neither reads the other's, by any spelling.
fn test_two_servers_two_roots() {
    let base = tempfile::tempdir().unwrap();
    let b = base.path();
    for (name, secret) in [
        ("tenant_a", "SECRET-OF-A-55"),
        ("tenant_b", "SECRET-OF-B-66"),
    ] {
        fs::create_dir_all(b.join(name).join("proj")).unwrap();
        fs::write(b.join(name).join("proj/s.txt"), secret).unwrap();
    }
    let mut a = Server::start(&b.join("tenant_a"), &[]);
    let mut bb = Server::start(&b.join("tenant_b"), &[]);
    for (s, own, other, other_secret) in [
        (&mut a, "SECRET-OF-A-55", "tenant_b", "SECRET-OF-B-66"),
        (&mut bb, "SECRET-OF-B-66", "tenant_a", "SECRET-OF-A-55"),
    ] {
        s.initialize("2025-11-25");
        let mine = s.call("extract", json!({ "repo": "proj" }));
        assert!(mine.to_string().contains(own));
        for repo in [
            format!("{}", b.join(other).display()),
            format!("{}/proj", b.join(other).display()),
            format!("../{other}/proj"),
            format!("/proc/self/root{}/proj", b.join(other).display()),
        ] {
            let resp = s.call("extract", json!({ "repo": repo }));
            assert_eq!(
                resp["error"]["data"]["kind"], "OutsideRoot",
                "{repo}: {resp}"
            );
            assert!(!resp.to_string().contains(other_secret));
        }
    }
}

/// The answer a navigation tool's path argument must get for a corpus input.
fn nav_want(tool: &str, case: &Case) -> Want {
    let slash = case.input.ends_with('/');
    // Path arguments are spelled as gnaw shows paths: `\n` is a newline.
    let base = if case.input == "weird/nl\\nname" {
        Want::Ok
    } else {
        case.want
    };
    match (tool, base) {
        // symbol's name is text, which refuses NUL before any path in it is looked at.
        ("symbol", _) if case.input.contains('\0') => Want::Reject("InvalidArguments"),
        ("read" | "outline" | "symbol", Want::Reject("NotADirectory")) if !slash => Want::Ok,
        ("after", Want::Ok) => Want::Reject("NotAFile"),
        ("after", Want::Reject("NotADirectory")) if !slash => Want::Ok,
        _ => base,
    }
}

/// Every corpus input through every path argument of read, grep and tree, and every glob
/// argument of search, in one mode.
fn nav_through_mcp(base: &Path, mode: &str) -> BTreeMap<String, usize> {
    let (ino, mut s) = watched_server(base, mode);
    let mut tally = BTreeMap::new();
    for case in corpus(base) {
        let shown = format!("{:.80?}", case.input);
        for tool in ["read", "after", "tree", "outline", "symbol"] {
            // symbol's name carries a path only when it has a `/` or `.` before the `::`.
            if tool == "symbol" && !(case.input.contains('/') || case.input.contains('.')) {
                continue;
            }
            let (name, args) = match tool {
                "read" => ("read", json!({ "repo": ".", "paths": [case.input] })),
                "outline" => ("outline", json!({ "repo": ".", "paths": [case.input] })),
                "symbol" => (
                    "symbol",
                    json!({ "repo": ".", "name": format!("{}::marker", case.input) }),
                ),
                "after" => (
                    "grep",
                    json!({ "repo": ".", "pattern": "marker", "after": format!("{}:1", case.input) }),
                ),
                _ => (
                    "tree",
                    json!({ "repo": ".", "path": case.input, "depth": 1 }),
                ),
            };
            let resp = s.call(name, args);
            no_canary(&format!("{mode} {tool} {shown}"), &resp.to_string());
            let want = nav_want(tool, &case);
            match (&resp.get("error"), want) {
                (Some(err), Want::Reject(kind)) => {
                    assert_eq!(err["code"], -32602, "{mode} {tool} {shown}: {resp}");
                    assert_eq!(err["data"]["kind"], kind, "{mode} {tool} {shown}: {resp}");
                }
                (None, Want::Ok) => {
                    assert_ne!(
                        resp["result"]["isError"], true,
                        "{mode} {tool} {shown}: {resp}"
                    );
                }
                _ => panic!("{mode} {tool} {shown}: wanted {want:?}, got {resp:.600}"),
            }
            let key = match want {
                Want::Ok => format!("{tool} ok"),
                Want::Reject(kind) => format!("{tool} {kind}"),
            };
            *tally.entry(key).or_default() += 1;
        }
        // search's include and exclude: a glob only filters what is inside the repo. Every
        // input is served or refused as a bad argument, and nothing outside is read or shown.
        for which in ["include", "exclude"] {
            let resp = s.call(
                "search",
                json!({ "repo": ".", "query": "marker", which: [case.input] }),
            );
            no_canary(&format!("{mode} search {which} {shown}"), &resp.to_string());
            let key = match resp.get("error") {
                Some(err) => {
                    assert_eq!(err["code"], -32602, "{mode} {which} {shown}: {resp}");
                    format!("search {which} refused")
                }
                // A glob over one of the filter's bounds is reported, naming the bound.
                None if resp["result"]["isError"] == true => {
                    let t = resp["result"]["content"][0]["text"].as_str().unwrap_or("");
                    assert!(
                        t.contains(&format!("invalid {which} pattern")),
                        "{mode} {which} {shown}: {resp}"
                    );
                    format!("search {which} over a bound")
                }
                None => format!("search {which} ok"),
            };
            *tally.entry(key).or_default() += 1;
        }
    }
    finish_clean(s, &ino, &format!("{mode} nav stderr"));
    tally
}

/// The tally `through` gives on the built corpus with the sandbox strict and off: the two must
/// agree; printed under `title`. The built corpus's directory is returned.
fn same_in_every_layer(
    title: &str,
    through: fn(&Path, &str) -> BTreeMap<String, usize>,
) -> tempfile::TempDir {
    let base = tempfile::tempdir().unwrap();
    build(base.path());
    let strict = through(base.path(), "strict");
    let off = through(base.path(), "off");
    assert_eq!(strict, off, "layer 1 alone answers differently");
    println!("\n{title} (strict == off):");
    for (k, n) in &strict {
        println!("  {k:<26} {n:>4}");
    }
    base
}

fn test_nav_arguments_every_layer() {
    let base = same_in_every_layer("navigation path arguments", nav_through_mcp);
    let b = base.path();
    println!(
        "{} inputs through read's and outline's paths, grep's after, tree's path, symbol's name \
         (path::Name) and search's include and exclude\n",
        corpus(b).len()
    );
}

/// Every corpus input as the path of a resource URI (`gnaw://root/PATH`, percent-encoded), read
/// with `resources/read`, against the same input through `read`'s `paths`: a path `read`
/// refuses is refused as a resource with the same kind; a file `read` shows is sent whole; what
/// `read` notes instead of showing (a directory, a binary or sensitive file) is refused as
/// `NotAFile` or `NotSearched`. Nothing outside is opened or shown, in either layer.
fn resources_through_mcp(base: &Path, mode: &str) -> BTreeMap<String, usize> {
    let (ino, mut s) = watched_server(base, mode);
    let mut tally = BTreeMap::new();
    // Each input encoded as a URI's path, and the path `read` is given for it.
    let mut inputs: Vec<(String, String)> = corpus(base)
        .into_iter()
        .map(|c| (gnaw::mcp::files::encode(&c.input, true), c.input))
        .collect();
    // Spellings only a URI has: dots and slashes percent-encoded, in either case, and raw.
    for (raw, read) in [
        ("%2e%2e/%2e%2e/outside", "../../outside"),
        ("%2E%2E%2F%2E%2E%2Foutside", "../../outside"),
        ("..%2f..%2foutside/canary", "../../outside/canary"),
        ("../../outside", "../../outside"),
        ("/etc/passwd", "/etc/passwd"),
        ("repo/%2e%2e/%2e%2e/outside", "repo/../../outside"),
    ] {
        inputs.push((raw.to_string(), read.to_string()));
    }
    for (encoded, input) in inputs {
        let shown = format!("{input:.80?}");
        let uri = format!("gnaw://root/{encoded}");
        let resource = s.request("resources/read", json!({ "uri": uri }));
        let read = s.call("read", json!({ "repo": ".", "paths": [input] }));
        no_canary(&format!("{mode} resource {shown}"), &resource.to_string());
        let key = match (&read.get("error"), &resource.get("error")) {
            (Some(r), Some(e)) => {
                assert_eq!(e["code"], -32602, "{mode} {shown}: {resource}");
                assert_eq!(
                    e["data"]["kind"], r["data"]["kind"],
                    "{mode} {shown}: {resource}"
                );
                // The URI is repeated as sent (an excerpt of a long one).
                if uri.len() <= 2048 {
                    assert_eq!(e["data"]["uri"], uri.as_str(), "{mode} {shown}");
                }
                format!("refused {}", e["data"]["kind"].as_str().unwrap_or_default())
            }
            (None, Some(e)) => {
                let text = read["result"]["content"][0]["text"].as_str().unwrap_or("");
                let kind = e["data"]["kind"].as_str().unwrap_or_default();
                assert!(
                    matches!(kind, "NotAFile" | "NotSearched") && text.contains("not shown"),
                    "{mode} {shown}: read {text:.300}, resource {resource}"
                );
                format!("not shown, {kind}")
            }
            (None, None) => {
                let text = resource["result"]["contents"][0]["text"].as_str().unwrap();
                let rows = read["result"]["content"][0]["text"].as_str().unwrap();
                for line in text.lines() {
                    assert!(
                        rows.contains(line),
                        "{mode} {shown}: {line:?} not in {rows:.300}"
                    );
                }
                "read".to_string()
            }
            (Some(_), None) => panic!("{mode} {shown}: read refused, the resource was sent"),
        };
        *tally.entry(key).or_default() += 1;
    }
    // Not a resource of this server: another scheme, another root's name, no path.
    for uri in [
        "file:///etc/passwd",
        "gnaw://root-evil/secret",
        "gnaw://root/",
        "gnaw://../x",
    ] {
        let resource = s.request("resources/read", json!({ "uri": uri }));
        no_canary(&format!("{mode} resource {uri}"), &resource.to_string());
        assert_eq!(
            resource["error"]["code"], -32602,
            "{mode} {uri}: {resource}"
        );
        assert_eq!(resource["error"]["data"]["uri"], uri, "{mode} {uri}");
    }
    finish_clean(s, &ino, &format!("{mode} resources stderr"));
    tally
}

fn test_resource_uris_every_layer() {
    same_in_every_layer("resource URIs", resources_through_mcp);
}

fn main() {
    if std::env::var_os(CHILD).is_some() {
        child();
        return;
    }
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let tests: [(&str, fn()); 7] = [
        ("corpus_every_layer", test_corpus_every_layer),
        ("nav_arguments_every_layer", test_nav_arguments_every_layer),
        ("resource_uris_every_layer", test_resource_uris_every_layer),
        ("weird_names_are_escaped", test_weird_names_are_escaped),
        ("git_file_pointing_outside", test_git_file_pointing_outside),
        (
            "symlinked_root_both_spellings",
            test_symlinked_root_both_spellings,
        ),
        ("two_servers_two_roots", test_two_servers_two_roots),
    ];
    let mut failed = Vec::new();
    for (name, f) in tests {
        if !filter.is_empty() && !filter.iter().any(|p| name.contains(p.as_str())) {
            continue;
        }
        let start = std::time::Instant::now();
        let r = std::panic::catch_unwind(f);
        let verdict = if r.is_ok() { "ok" } else { "FAILED" };
        println!(
            "test {name} ... {verdict} ({:.1}s)",
            start.elapsed().as_secs_f64()
        );
        if r.is_err() {
            failed.push(name);
        }
    }
    if !failed.is_empty() {
        println!("failed: {failed:?}");
        std::process::exit(1);
    }
}
