//! Several roots (issue 23): `GNAW_MCP_ROOT=app:sdk` through the spawned gnaw-mcp, with the real
//! Landlock (`strict`) and with userspace containment alone (`GNAW_MCP_SANDBOX=off`).
//!
//! - a `repo` starts with a root's name; `.` and unknown names are refused with the names;
//! - a symlink from one root into another is served only when the target root is listed, and
//!   the answer names it under the target root's name; links to a sibling that is not listed,
//!   to the directory between the roots, or to anything outside are `OutsideRoot`;
//! - nested roots resolve in the innermost, and `..` climbs into the outer one, never above;
//! - canaries between and beside the roots never reach stdout or stderr, and inotify proves no
//!   directory outside the roots is even opened;
//! - every root's `.gnawconfig` may narrow the tools; the instructions name the roots.

#![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

use crate::common;

use common::inotify::{opened, watch_reads};
use common::mcp_client;

use mcp_client::Server;
use serde_json::{Value, json};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

const CANARY: &str = "GNAW-ROOTS-CANARY-5d1f0b";

struct Tree {
    _tmp: tempfile::TempDir,
    base: PathBuf,
}

/// base/app and base/sdk are the roots; base/unlisted is a sibling that is not one; base holds
/// a canary between them; base/app/nested can be a third, nested root.
fn tree() -> Tree {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    for d in [
        "app/src",
        "app/nested/deep",
        "sdk/lib",
        "unlisted/src",
        "other/app",
    ] {
        fs::create_dir_all(base.join(d)).unwrap();
    }
    fs::write(base.join("app/src/main.rs"), "fn app_main() {}\n").unwrap();
    fs::write(base.join("app/nested/deep/n.rs"), "fn nested_fn() {}\n").unwrap();
    fs::write(base.join("sdk/lib/lib.rs"), "pub fn sdk_call() {}\n").unwrap();
    fs::write(base.join("other/app/o.rs"), "fn other_app() {}\n").unwrap();
    fs::write(base.join("unlisted/src/x.rs"), format!("// {CANARY}\n")).unwrap();
    fs::write(base.join("between.txt"), format!("{CANARY}\n")).unwrap();
    // Relative links: (the link, its target).
    for (link, target) in [
        ("app/to-sdk-rel", "../sdk"),
        ("app/src/to-sdk-deep", "../../sdk/lib"),
        ("sdk/to-app", "../app/src"),
        ("app/to-unlisted", "../unlisted"),
        ("app/up", ".."),
        ("app/via-unlisted", "../unlisted/../sdk"),
    ] {
        symlink(target, base.join(link)).unwrap();
    }
    symlink(base.join("sdk/lib"), base.join("app/to-sdk-abs")).unwrap();
    symlink(base.join("unlisted/src"), base.join("app/to-unlisted-abs")).unwrap();
    Tree { _tmp: tmp, base }
}

impl Tree {
    /// A `GNAW_MCP_ROOT` listing these directories of the base, in order.
    fn roots(&self, dirs: &[&str]) -> PathBuf {
        let paths = dirs.iter().map(|d| self.base.join(d));
        PathBuf::from(std::env::join_paths(paths).unwrap())
    }
}

/// A server on `roots` under the sandbox `mode`, initialized, and its `initialize` answer.
fn serve(roots: &Path, mode: &str) -> (Server, Value) {
    let mut server = Server::start(roots, &[("GNAW_MCP_SANDBOX", mode)]);
    let init = server.initialize("2025-11-25");
    (server, init)
}

/// What a `repo` must give: served, with the name the answer shows; or refused with a kind.
enum Want {
    Shown(&'static str),
    Refused(&'static str),
}

fn extract(server: &mut Server, repo: &str) -> Result<String, (String, String)> {
    let r = server.call("extract", json!({ "repo": repo }));
    match r.get("error") {
        Some(e) => Err((
            e["data"]["kind"].as_str().unwrap_or("").to_string(),
            e["message"].as_str().unwrap_or("").to_string(),
        )),
        None => Ok(r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()),
    }
}

/// `extract` of `repo` gives what `want` says (a refusal as not a root's name also lists the
/// roots, app and sdk).
fn answers(server: &mut Server, mode: &str, repo: &str, want: &Want) {
    let got = extract(server, repo);
    match (want, &got) {
        (Want::Shown(name), Ok(text)) => assert!(
            text.starts_with(&format!("# `{name}`")),
            "[{mode}] {repo}: {text:.200}"
        ),
        (Want::Refused(kind), Err((k, message))) => {
            assert_eq!(k, kind, "[{mode}] {repo}: {message}");
            if *kind == "InvalidPath" {
                assert!(message.contains("app, sdk"), "[{mode}] {repo}: {message}");
            }
        }
        _ => panic!("[{mode}] {repo}: got {got:?}"),
    }
}

/// `check` on a server of the tree with the roots `dirs`, in each sandbox mode, given the mode
/// and the `initialize` answer.
fn in_each_mode(dirs: &[&str], mut check: impl FnMut(&str, &mut Server, &Value)) {
    let t = tree();
    let roots = t.roots(dirs);
    for mode in ["strict", "off"] {
        let (mut server, init) = serve(&roots, mode);
        check(mode, &mut server, &init);
        server.finish();
    }
}

#[test]
fn two_roots_serve_each_by_name_and_nothing_between() {
    let t = tree();
    let b = &t.base;
    let roots = t.roots(&["app", "sdk"]);
    let outside_abs = b.join("unlisted").display().to_string();
    let base_abs = b.display().to_string();
    let sdk_abs = b.join("sdk/lib").display().to_string();
    let cases: Vec<(&str, Want)> = vec![
        ("app", Want::Shown("app")),
        ("sdk", Want::Shown("sdk")),
        ("./sdk/lib", Want::Shown("sdk/lib")),
        ("app/src", Want::Shown("app/src")),
        (sdk_abs.as_str(), Want::Shown("sdk/lib")),
        // Links into the other listed root: served under that root's name.
        ("app/to-sdk-abs", Want::Shown("sdk/lib")),
        ("app/to-sdk-rel", Want::Shown("sdk")),
        ("app/src/to-sdk-deep", Want::Shown("sdk/lib")),
        ("sdk/to-app", Want::Shown("app/src")),
        ("app/../sdk", Want::Shown("sdk")),
        ("app/up/sdk", Want::Shown("sdk")),
        // Not a root's name.
        (".", Want::Refused("InvalidPath")),
        ("src", Want::Refused("InvalidPath")),
        ("unlisted", Want::Refused("InvalidPath")),
        // Beside, between and above the roots.
        ("../unlisted", Want::Refused("OutsideRoot")),
        ("app/..", Want::Refused("OutsideRoot")),
        ("app/../unlisted", Want::Refused("OutsideRoot")),
        ("app/to-unlisted", Want::Refused("OutsideRoot")),
        ("app/to-unlisted-abs", Want::Refused("OutsideRoot")),
        ("app/up", Want::Refused("OutsideRoot")),
        ("app/via-unlisted", Want::Refused("OutsideRoot")),
        (outside_abs.as_str(), Want::Refused("OutsideRoot")),
        (base_abs.as_str(), Want::Refused("OutsideRoot")),
        ("app/missing", Want::Refused("NotFound")),
    ];
    for mode in ["strict", "off"] {
        // The directory that holds the roots (where only the roots themselves may be opened)
        // and the sibling that is not listed (where nothing may be).
        let between = watch_reads(std::slice::from_ref(b));
        let beside = watch_reads(&[b.join("unlisted"), b.join("unlisted/src")]);
        let (mut server, init) = serve(&roots, mode);
        let instructions = init["instructions"].as_str().unwrap();
        assert!(
            instructions.contains("every `repo` starts with one of app, sdk"),
            "{instructions}"
        );
        for (repo, want) in &cases {
            answers(&mut server, mode, repo, want);
        }
        // Every tool reaches either root by name: the tool, its arguments (JSON), what it says.
        for (tool, args, says) in [
            ("tree", r#"{ "repo": "sdk" }"#, "lib.rs"),
            (
                "grep",
                r#"{ "repo": "sdk", "pattern": "sdk_call" }"#,
                "sdk_call",
            ),
            (
                "read",
                r#"{ "repo": "app/src", "paths": ["main.rs"] }"#,
                "app_main",
            ),
            (
                "search",
                r#"{ "repo": "app", "query": "app main" }"#,
                "src/main.rs",
            ),
            (
                "symbol",
                r#"{ "repo": "sdk", "name": "sdk_call" }"#,
                "pub fn sdk_call",
            ),
            (
                "outline",
                r#"{ "repo": "app/to-sdk-rel", "paths": ["lib/lib.rs"] }"#,
                "sdk_call",
            ),
        ] {
            let r = server.call(tool, serde_json::from_str(args).unwrap());
            let text = r["result"]["content"][0]["text"].as_str().unwrap_or("");
            assert!(text.contains(says), "[{mode}] {tool}: {r}");
        }
        let (_, stderr) = server.finish();
        assert!(!stderr.contains(CANARY), "[{mode}] canary on stderr");
        let seen: Vec<String> = opened(&between)
            .into_iter()
            .filter(|n| n != "app" && n != "sdk")
            .chain(opened(&beside))
            .collect();
        assert!(
            seen.is_empty(),
            "[{mode}] opened between or beside the roots: {seen:?}"
        );
    }
}

#[test]
fn a_link_to_a_root_that_is_not_listed_is_outside() {
    // Only app (and an unrelated root): sdk is not served, through any link.
    in_each_mode(&["app", "other/app"], |mode, server, init| {
        assert!(
            init["instructions"]
                .as_str()
                .unwrap()
                .contains("one of app, app-2"),
            "{init}"
        );
        for repo in ["app/to-sdk-abs", "app/to-sdk-rel", "app/src/to-sdk-deep"] {
            answers(server, mode, repo, &Want::Refused("OutsideRoot"));
        }
        // Two roots of the same directory name are told apart.
        let other = extract(server, "app-2").unwrap();
        assert!(other.contains("other_app"), "{other:.300}");
        let app = extract(server, "app/src").unwrap();
        assert!(app.contains("app_main"), "{app:.300}");
    });
}

#[test]
fn nested_roots_resolve_innermost_and_never_climb_above() {
    in_each_mode(&["app", "app/nested"], |mode, server, _| {
        for (repo, want) in [
            ("nested", Want::Shown("nested")),
            ("nested/deep", Want::Shown("nested/deep")),
            ("app/nested/deep", Want::Shown("app/nested/deep")),
            ("nested/..", Want::Shown("app")),
            ("nested/../src", Want::Shown("app/src")),
            ("nested/../..", Want::Refused("OutsideRoot")),
            ("app/..", Want::Refused("OutsideRoot")),
        ] {
            answers(server, mode, repo, &want);
        }
    });
}

#[test]
fn every_roots_gnawconfig_may_narrow_the_tools() {
    let t = tree();
    let b = &t.base;
    fs::write(b.join("sdk/.gnawconfig"), "tools = [\"all\", \"-grep\"]\n").unwrap();
    fs::write(b.join("app/.gnawconfig"), "tools = [\"all\", \"-log\"]\n").unwrap();
    let roots = t.roots(&["app", "sdk"]);
    let mut server = Server::start(&roots, &[]);
    server.initialize("2025-11-25");
    let tools: Vec<String> = server.ok("tools/list", json!({}))["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(!tools.contains(&"grep".to_string()), "{tools:?}");
    assert!(!tools.contains(&"log".to_string()), "{tools:?}");
    assert!(tools.contains(&"read".to_string()), "{tools:?}");
    let refused: Value = server.call("grep", json!({ "repo": "app", "pattern": "x" }));
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("root \"sdk\"'s .gnawconfig"), "{message}");
    let refused: Value = server.call("log", json!({ "repo": "app" }));
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("root \"app\"'s .gnawconfig"), "{message}");
    server.finish();
}

#[test]
fn a_bad_root_list_stops_the_server_saying_which_entry() {
    let t = tree();
    let b = &t.base;
    for (roots, says) in [
        (t.roots(&["app", "missing"]), "does not exist"),
        (t.roots(&["app", "app"]), "twice"),
        (t.roots(&["app", "app/src/main.rs"]), "not a directory"),
        (PathBuf::from(":"), "names no directory"),
    ] {
        let (status, _out, err) = mcp_client::run(&roots, &["--sandbox-status"], &[]);
        assert_eq!(status.code(), Some(2), "{roots:?}: {err}");
        assert!(
            err.contains("GNAW_MCP_ROOT") && err.contains(says),
            "{roots:?}: {err}"
        );
    }
    // The status names every root the ruleset grants.
    let roots = t.roots(&["app", "sdk"]);
    let (status, out, err) = mcp_client::run(&roots, &["--sandbox-status"], &[]);
    assert!(status.success(), "{err}");
    let status: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        status["roots"],
        json!([
            b.join("app").display().to_string(),
            b.join("sdk").display().to_string()
        ])
    );
    assert_eq!(status["ruleset"], "fully_enforced");
    // Each root by the device and inode Landlock's rule is bound to.
    use std::os::unix::fs::MetadataExt;
    for (i, name) in ["app", "sdk"].iter().enumerate() {
        let meta = std::fs::metadata(b.join(name)).unwrap();
        assert_eq!(status["root_ids"][i]["dev"], meta.dev(), "{name}");
        assert_eq!(status["root_ids"][i]["ino"], meta.ino(), "{name}");
    }
}
