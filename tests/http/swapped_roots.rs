//! A tenant's roots are what was proven at startup. Each root is opened (by descriptor) when the
//! front door proves it, and the worker is handed those descriptors, never the path strings to
//! resolve again. So a root changed after startup, before the tenant's first call (no worker
//! yet) or after it (a worker running), is never followed: Alice is served her own proven
//! directory, or refused with `RootChanged`, and Bob's files never reach her. Five changes: the
//! link the tenants file names repointed at Bob's root; the root directory replaced by a link
//! to Bob's; replaced by another directory holding Bob's file; a directory above it replaced by
//! a link to where Bob's root sits under the same name; the root removed.
//!
//! Overlapping roots are refused at startup unless the tenants file says they are shared
//! (`shares_with`), and the startup log names each root by device and inode.

use crate::front::Front;
use serde_json::{Value, json};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

const CANARY: &str = "BOB-CANARY-5e1f";

/// Alice's root `p/a` (listed through the link `alice-link`), Bob's `q/a`: the same last name,
/// so that a directory above Alice's root swapped for a link to `q` lands on Bob's root.
fn front() -> Front {
    Front::start_with(
        &[
            ("alice", &[("p/a", &[("a.rs", "fn alpha() {}\n")])]),
            (
                "bob",
                &[("q/a", &[("secret.rs", "// BOB-CANARY-5e1f\nfn bob() {}\n")])],
            ),
        ],
        &[],
        |base| symlink(base.join("p/a"), base.join("alice-link")).unwrap(),
        |base, dir| {
            if dir == "p/a" {
                base.join("alice-link")
            } else {
                base.join(dir)
            }
        },
    )
}

/// The changes, each made under `base` after startup.
fn changes() -> Vec<(&'static str, fn(&Path))> {
    vec![
        ("the listed link repointed at Bob's root", |base: &Path| {
            fs::remove_file(base.join("alice-link")).unwrap();
            symlink(base.join("q/a"), base.join("alice-link")).unwrap();
        }),
        ("the root replaced by a link to Bob's", |base: &Path| {
            fs::rename(base.join("p/a"), base.join("p/a-old")).unwrap();
            symlink(base.join("q/a"), base.join("p/a")).unwrap();
        }),
        (
            "the root replaced by a directory holding Bob's file",
            |base| {
                fs::rename(base.join("p/a"), base.join("p/a-old")).unwrap();
                fs::create_dir(base.join("p/a")).unwrap();
                fs::copy(base.join("q/a/secret.rs"), base.join("p/a/secret.rs")).unwrap();
            },
        ),
        ("a directory above the root replaced by a link", |base| {
            fs::rename(base.join("p"), base.join("p-old")).unwrap();
            symlink(base.join("q"), base.join("p")).unwrap();
        }),
        ("the root removed", |base| {
            fs::remove_dir_all(base.join("p/a")).unwrap();
        }),
    ]
}

fn no_canary(what: &str, reply: &Value) {
    assert!(
        !reply.to_string().contains(CANARY),
        "{what}: Bob's file reached Alice: {reply}"
    );
}

/// Alice's `tree` and `read` after `change`: her own proven directory, or `RootChanged`;
/// never Bob's file.
fn alice_after(f: &Front, what: &str, first_id: u64) {
    for (i, (tool, args)) in [
        ("tree", json!({"repo": "."})),
        ("read", json!({"repo": ".", "paths": ["a.rs"]})),
        ("grep", json!({"repo": ".", "pattern": "CANARY"})),
    ]
    .into_iter()
    .enumerate()
    {
        let reply = f.modern_call("alice", json!(first_id + i as u64), tool, args);
        let answer = reply.json();
        no_canary(&format!("{what}: {tool}"), &answer);
        let kind = answer["error"]["data"]["kind"].as_str().unwrap_or_default();
        let served_own = answer["result"].is_object() && answer["result"]["isError"] != true;
        assert!(
            kind == "RootChanged" || served_own,
            "{what}: {tool}: neither her own root nor RootChanged: {answer:.400}"
        );
        if what.contains("repointed") {
            // The directory proven is still where it was: she keeps being served it.
            assert!(served_own, "{what}: {tool}: {answer:.400}");
        } else {
            assert_eq!(kind, "RootChanged", "{what}: {tool}: {answer:.400}");
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("moved, replaced or removed"),
                "{what}: {message}"
            );
        }
    }
    // Bob's file by its name: not there, or the root refused.
    let reply = f.modern_call(
        "alice",
        json!(first_id + 10),
        "read",
        json!({"repo": ".", "paths": ["secret.rs"]}),
    );
    let answer = reply.json();
    no_canary(&format!("{what}: read secret.rs"), &answer);
    let kind = answer["error"]["data"]["kind"].as_str().unwrap_or_default();
    assert!(
        kind == "NotFound" || kind == "RootChanged",
        "{what}: read secret.rs: {answer:.400}"
    );
}

#[test]
fn a_root_changed_before_the_first_call_is_never_followed() {
    for (what, change) in changes() {
        let f = front();
        change(&f.base());
        alice_after(&f, what, 1);
        // Bob is served throughout.
        let bob = f.modern_call("bob", json!(99), "tree", json!({"repo": "."}));
        assert!(bob.text().contains("secret.rs"), "{what}: {}", bob.text());
    }
}

#[test]
fn a_root_changed_under_a_running_worker_is_never_followed() {
    for (what, change) in changes() {
        let f = front();
        let first = f.modern_call("alice", json!(0), "tree", json!({"repo": "."}));
        assert!(first.text().contains("a.rs"), "{what}: {}", first.text());
        let pid = f.worker_pid("alice").expect("alice's worker started");
        change(&f.base());
        alice_after(&f, what, 1);
        assert_eq!(
            f.worker_pid("alice"),
            Some(pid),
            "{what}: the same worker answered"
        );
    }
}

#[test]
fn the_startup_log_names_each_root_by_device_and_inode() {
    let f = front();
    let base = f.base();
    let meta = fs::metadata(base.join("p/a")).unwrap();
    use std::os::unix::fs::MetadataExt;
    let line = format!(
        "tenant alice: root {} proven (device {} inode {})",
        base.join("p/a").display(),
        meta.dev(),
        meta.ino()
    );
    assert!(f.log().contains(&line), "{line}\n{}", f.log());
}

/// A tenants file whose two tenants list `alice_roots` and `bob_roots` (under one base), with
/// `extra` appended to Alice's table: the server's exit status and stderr.
fn start_overlapping(alice_roots: &[&str], bob_roots: &[&str], extra: &str) -> (bool, String) {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    for d in ["shared/inner", "other", "alias-target"] {
        fs::create_dir_all(base.join(d)).unwrap();
    }
    symlink(base.join("shared"), base.join("shared-link")).unwrap();
    let list = |roots: &[&str]| {
        roots
            .iter()
            .map(|r| format!("{:?}", base.join(r).display().to_string()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (_, alice) = crate::front::mint("alice");
    let (_, bob) = crate::front::mint("bob");
    let file = format!(
        "{}{extra}\n{}",
        alice.replace(
            "roots = [\"/path/to/repo\"]",
            &format!("roots = [{}]", list(alice_roots))
        ),
        bob.replace(
            "roots = [\"/path/to/repo\"]",
            &format!("roots = [{}]", list(bob_roots))
        ),
    );
    let tenants = base.join("tenants.toml");
    fs::write(&tenants, file).unwrap();
    let mut child = std::process::Command::new(crate::front::bin())
        .args(["--listen", "127.0.0.1:0"])
        .env("GNAW_MCP_TENANTS", &tenants)
        .env("RUST_LOG", "info")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = String::new();
    let stderr = child.stderr.take().unwrap();
    use std::io::BufRead;
    for line in std::io::BufReader::new(stderr).lines() {
        let line = line.unwrap();
        err.push_str(&line);
        err.push('\n');
        if line.contains("listening on") {
            let _ = child.kill();
            let _ = child.wait();
            return (true, err);
        }
    }
    let status = child.wait().unwrap();
    (status.success(), err)
}

#[test]
fn overlapping_roots_of_two_tenants_are_refused_unless_shared() {
    for (alice, bob, why) in [
        (&["shared"][..], &["shared"][..], "the same directory"),
        (&["shared"], &["shared/inner"], "Bob's inside Alice's"),
        (&["shared/inner"], &["shared"], "Alice's inside Bob's"),
        (&["shared-link"], &["shared/inner"], "through a link"),
        (&["other", "shared/inner"], &["shared"], "one of several"),
    ] {
        let (started, err) = start_overlapping(alice, bob, "");
        assert!(!started, "{why}: started\n{err}");
        assert!(
            err.contains("overlaps") && err.contains("shares_with"),
            "{why}: {err}"
        );
        let (started, err) = start_overlapping(alice, bob, "shares_with = [\"bob\"]\n");
        assert!(started, "{why}, shared: {err}");
    }
    let (started, err) = start_overlapping(&["other"], &["shared"], "");
    assert!(started, "apart: {err}");
    let (started, err) = start_overlapping(&["other"], &["shared"], "shares_with = [\"carol\"]\n");
    assert!(!started && err.contains("carol"), "unknown tenant: {err}");
}
