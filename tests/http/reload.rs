//! Tenants changed without a restart. On `SIGHUP` the service reads the tenants file again: a
//! new tenant is served, a removed or re-keyed tenant's sessions end and its worker stops, and
//! the others are untouched (their worker, their sessions and their calls in flight go on). A
//! file that does not parse, or whose roots overlap, is refused whole: the old tenants are
//! kept and the reason is logged; so is a FIFO, a link, a file past the bound or one that is
//! not UTF-8 in the file's place, at once. A changed tenant's roots are proven again.

use crate::front::{Front, mint};
use serde_json::json;
use std::time::{Duration, Instant};

fn hup(f: &Front) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(f.pid() as i32),
        nix::sys::signal::Signal::SIGHUP,
    )
    .unwrap();
}

/// Send `SIGHUP` and wait for the log to say `what` once more.
fn hup_logged(f: &Front, what: &str) {
    let n = f.log().matches(what).count() + 1;
    hup(f);
    let deadline = Instant::now() + Duration::from_secs(20);
    while f.log().matches(what).count() < n {
        assert!(
            Instant::now() < deadline,
            "never logged {what:?}:\n{}",
            f.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A tenants file of one table per `(name, token, root)`.
fn tenants_file(tenants: &[(&str, &str, std::path::PathBuf)]) -> String {
    tenants
        .iter()
        .map(|(name, token, root)| table(name, token, std::slice::from_ref(root)))
        .collect()
}

/// Write the tenants file with `text`, send `SIGHUP`, and wait for the log to say `what` once
/// more.
fn reload(f: &Front, text: &str, what: &str) {
    std::fs::write(f.base().join("tenants.toml"), text).unwrap();
    hup_logged(f, what);
}

/// A tenants-file table for `name` with `token`'s hash and `roots`.
fn table(name: &str, token: &str, roots: &[std::path::PathBuf]) -> String {
    use sha2::Digest;
    let hash: String = sha2::Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let roots: Vec<String> = roots
        .iter()
        .map(|r| format!("{:?}", r.display().to_string()))
        .collect();
    format!(
        "[tenants.{name}]\ntoken_sha256 = \"{hash}\"\nroots = [{}]\n",
        roots.join(", ")
    )
}

/// The service with two tenants, alice (`a/a.rs`) and bob (`b/b.rs`), and their tokens.
fn alice_and_bob() -> (Front, String, String) {
    let f = Front::start(
        &[
            ("alice", &[("a", &[("a.rs", "fn alpha() {}\n")])]),
            ("bob", &[("b", &[("b.rs", "fn beta() {}\n")])]),
        ],
        &[],
    );
    let (alice, bob) = (f.tokens["alice"].clone(), f.tokens["bob"].clone());
    (f, alice, bob)
}

fn tree_as(f: &Front, token: &str, id: u64) -> crate::front::Reply {
    let mut conn = f.connect();
    conn.post(
        Some(token),
        &crate::front::modern_headers("tools/call", Some("tree")),
        &crate::front::modern_call(json!(id), "tree", json!({"repo": "."})),
    )
}

#[test]
fn a_reload_adds_removes_and_rekeys_tenants_and_leaves_the_others_alone() {
    let (f, alice, bob) = alice_and_bob();
    let base = f.base();
    std::fs::create_dir_all(base.join("c")).unwrap();
    std::fs::write(base.join("c/c.rs"), "fn gamma() {}\n").unwrap();
    // Alice: a legacy session, a worker, and a slow call in flight across the reload.
    let init = f.initialize("alice", "2025-06-18");
    let alice_session = init.header("Mcp-Session-Id").unwrap().to_string();
    let bob_init = f.initialize("bob", "2025-06-18");
    let bob_session = bob_init.header("Mcp-Session-Id").unwrap().to_string();
    f.big_tree("a/big", 1500, 100, Front::let_line);
    let alice_pid = f.worker_pid("alice").unwrap();
    let (carol, _) = mint("carol");
    let file = tenants_file(&[
        ("alice", &alice, base.join("a")),
        ("carol", &carol, base.join("c")),
    ]);
    std::thread::scope(|s| {
        let slow = s.spawn(|| {
            f.post(
                Some("alice"),
                &[("Mcp-Session-Id", &alice_session)],
                &json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call",
                        "params": {"name": "extract", "arguments": {"repo": "big", "budget": 0}}}),
            )
        });
        std::thread::sleep(Duration::from_millis(300));
        reload(&f, &file, "tenants reloaded");
        // Alice's call in flight is answered, by the same worker.
        let done = slow.join().unwrap();
        done.status_is(200);
        assert!(done.json()["result"].is_object(), "{:.300}", done.text());
    });
    assert_eq!(f.worker_pid("alice"), Some(alice_pid));
    assert!(f.log().contains("1 kept as they were"), "{}", f.log());
    // Alice's session goes on.
    let list = f.post(
        Some("alice"),
        &[("Mcp-Session-Id", &alice_session)],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    );
    list.status_is(200);
    // Carol is served; Bob is gone: his token is refused and his session ended.
    let reply = tree_as(&f, &carol, 2);
    reply.status_is(200);
    assert!(reply.text().contains("c.rs"), "{}", reply.text());
    assert_eq!(tree_as(&f, &bob, 3).status, 401);
    let mut conn = f.connect();
    let ended = conn
        .send(
            "DELETE",
            Some(&alice),
            &[("Mcp-Session-Id", &bob_session)],
            None,
        )
        .read_reply();
    assert_eq!(ended.status, 404);
    // Re-key Alice: the old token is refused, the new one served, her old session ended.
    let (alice2, _) = mint("alice");
    let file = tenants_file(&[
        ("alice", &alice2, base.join("a")),
        ("carol", &carol, base.join("c")),
    ]);
    reload(&f, &file, "tenants reloaded");
    assert_eq!(tree_as(&f, &alice, 4).status, 401);
    assert_eq!(tree_as(&f, &alice2, 5).status, 200);
    let stale = f.post(
        Some("alice"),
        &[("Mcp-Session-Id", &alice_session)],
        &json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}),
    );
    assert_eq!(stale.status, 401, "the old token");
    let mut conn = f.connect();
    let stale = conn.post(
        Some(&alice2),
        &[("Mcp-Session-Id", &alice_session)],
        &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}),
    );
    assert_eq!(stale.status, 404, "the re-keyed tenant's sessions ended");
}

#[test]
fn a_bad_file_is_refused_whole_and_the_old_tenants_are_kept() {
    let (f, alice, bob) = alice_and_bob();
    let base = f.base();
    for (bad, says) in [
        ("[tenants.alice\nroots = 3\n".to_string(), "not reloaded"),
        (
            tenants_file(&[
                ("alice", &alice, base.join("a")),
                ("bob", &bob, base.join("a")),
            ]),
            "overlaps",
        ),
        (
            table("alice", &alice, &[base.join("no-such-dir")]),
            "does not exist",
        ),
    ] {
        reload(&f, &bad, "not reloaded");
        assert!(f.log().contains(says), "{says}: {}", f.log());
        assert_eq!(tree_as(&f, &alice, 1).status, 200);
        assert_eq!(tree_as(&f, &bob, 2).status, 200);
    }
    // Hostile files in its place: a FIFO (no one writes it: a reload that opened it would wait
    // forever), a link to a good file, a file past the bound, a file with a NUL and invalid
    // UTF-8. Each is refused at once, and the old tenants are kept.
    let good = base.join("good.toml");
    let both = tenants_file(&[
        ("alice", &alice, base.join("a")),
        ("bob", &bob, base.join("b")),
    ]);
    std::fs::write(&good, both).unwrap();
    let file = base.join("tenants.toml");
    let cases: [(&str, &dyn Fn()); 4] = [
        ("is a FIFO", &|| {
            nix::unistd::mkfifo(&file, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap()
        }),
        ("is a symbolic link", &|| {
            std::os::unix::fs::symlink(&good, &file).unwrap()
        }),
        ("larger than", &|| {
            std::fs::write(&file, "#".repeat(2 << 20)).unwrap()
        }),
        ("not UTF-8", &|| {
            std::fs::write(&file, b"[tenants.\xff\x00]\n").unwrap()
        }),
    ];
    for (says, make) in cases {
        std::fs::remove_file(&file).unwrap();
        make();
        let sent = Instant::now();
        hup_logged(&f, "not reloaded");
        assert!(sent.elapsed() < Duration::from_secs(10), "{says}: slow");
        assert!(f.log().contains(says), "{says}: {}", f.log());
        assert_eq!(tree_as(&f, &alice, 1).status, 200, "{says}");
        assert_eq!(tree_as(&f, &bob, 2).status, 200, "{says}");
    }
    std::fs::remove_file(&file).unwrap();
    // A tenant whose roots change is proven again and served from the new ones.
    std::fs::create_dir_all(base.join("a2")).unwrap();
    std::fs::write(base.join("a2/new.rs"), "fn new() {}\n").unwrap();
    let file = tenants_file(&[
        ("alice", &alice, base.join("a2")),
        ("bob", &bob, base.join("b")),
    ]);
    reload(&f, &file, "tenants reloaded");
    let reply = tree_as(&f, &alice, 3);
    assert!(reply.text().contains("new.rs"), "{}", reply.text());
    assert!(!reply.text().contains("a.rs"), "{}", reply.text());
}
