//! Tenants kept apart. Alice's token never reads Bob's root, through any `repo` spelling:
//! `../b`, absolute paths into it, `/`, a symlink inside Alice's root pointing into Bob's,
//! Bob's root name, in both eras, through `tree`, `read`, `grep` and `extract`; Bob's canary
//! never appears in any answer. (The same inputs opened raw under Alice's worker's Landlock
//! ruleset alone are in `tests/http_landlock.rs`.) A tenant's worker killed with SIGKILL is
//! restarted on that tenant's next request while the other tenant's calls keep being served.

use crate::front::{Front, modern_call, modern_headers};
use serde_json::{Value, json};
use std::os::unix::fs::symlink;

const CANARY: &str = "BOB-CANARY-7d0c2e";

fn front() -> Front {
    let f = Front::start(
        &[
            ("alice", &[("a", &[("a.rs", "fn alpha() {}\n")])]),
            (
                "bob",
                &[(
                    "b",
                    &[
                        ("secret.rs", "// BOB-CANARY-7d0c2e\nfn bob() {}\n"),
                        ("sub/x.rs", "// BOB-CANARY-7d0c2e\n"),
                    ],
                )],
            ),
        ],
        &[],
    );
    let base = f.base();
    symlink(base.join("b"), base.join("a/to-b")).unwrap();
    symlink(base.join("b/secret.rs"), base.join("a/secret-link.rs")).unwrap();
    symlink("../b/sub", base.join("a/rel-sub")).unwrap();
    f
}

fn no_canary(what: &str, reply: &Value) {
    assert!(
        !reply.to_string().contains(CANARY),
        "{what}: Bob's canary reached Alice: {reply}"
    );
}

#[test]
fn alice_cannot_read_bobs_root_through_any_repo_spelling() {
    let f = front();
    let base = f.base();
    let b = base.join("b").display().to_string();
    let repos = [
        "../b".to_string(),
        "../b/sub".to_string(),
        "./../b".to_string(),
        "to-b".to_string(),
        "to-b/sub".to_string(),
        "rel-sub".to_string(),
        b.clone(),
        format!("{b}/sub"),
        format!("{}/a/../b", base.display()),
        "/".to_string(),
        base.display().to_string(),
        "b".to_string(),
        "bob".to_string(),
        "..".to_string(),
    ];
    let mut n = 0;
    for repo in &repos {
        for (tool, args) in [
            ("tree", json!({"repo": repo})),
            ("grep", json!({"repo": repo, "pattern": "CANARY"})),
            ("extract", json!({"repo": repo})),
            ("read", json!({"repo": repo, "paths": ["secret.rs"]})),
        ] {
            n += 1;
            let reply = f.modern_call("alice", json!(n), tool, args);
            let answer = reply.json();
            no_canary(&format!("{tool} {repo}"), &answer);
            assert!(
                answer.get("error").is_some() || answer["result"]["isError"] == true,
                "{tool} repo={repo:?} was served: {answer:.300}"
            );
        }
    }
    // Paths inside Alice's own root that lead into Bob's: links are not followed out.
    for path in [
        "to-b/secret.rs",
        "secret-link.rs",
        "rel-sub/x.rs",
        "../b/secret.rs",
        &format!("{b}/secret.rs"),
    ] {
        n += 1;
        let reply = f.modern_call(
            "alice",
            json!(n),
            "read",
            json!({"repo": ".", "paths": [path]}),
        );
        no_canary(&format!("read {path}"), &reply.json());
    }
    for pattern in ["CANARY", "fn bob"] {
        n += 1;
        let reply = f.modern_call(
            "alice",
            json!(n),
            "grep",
            json!({"repo": ".", "pattern": pattern}),
        );
        no_canary(&format!("grep {pattern}"), &reply.json());
    }
    // The legacy era reaches the same worker and is refused the same way.
    let init = f.post(Some("alice"), &[], &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    let session = init.header("Mcp-Session-Id").unwrap().to_string();
    for repo in ["../b", b.as_str(), "to-b"] {
        let reply = f.post(
            Some("alice"),
            &[("Mcp-Session-Id", &session)],
            &json!({"jsonrpc": "2.0", "id": 1,
            "method": "tools/call", "params": {"name": "tree", "arguments": {"repo": repo}}}),
        );
        let answer = reply.json();
        no_canary(repo, &answer);
        assert_eq!(
            answer["error"]["data"]["kind"], "OutsideRoot",
            "{repo}: {answer}"
        );
    }
    // Bob's own token reads it: the canary test can fail.
    let reply = f.modern_call(
        "bob",
        json!(0),
        "grep",
        json!({"repo": ".", "pattern": "CANARY"}),
    );
    assert!(reply.text().contains(CANARY), "{}", reply.text());
    assert!(!f.log().contains(CANARY), "a canary reached the log");
}

#[test]
fn a_killed_worker_is_restarted_and_the_other_tenant_never_notices() {
    let f = front();
    let call = |tenant: &str, id: i64| {
        let reply = f.modern_call(tenant, json!(id), "tree", json!({"repo": "."}));
        assert_eq!(reply.status, 200);
        reply.json()
    };
    assert!(call("alice", 1)["result"].is_object());
    assert!(call("bob", 2)["result"].is_object());
    let alice_pid = f
        .worker_pid("alice")
        .expect("alice's worker pid in the log");
    let bob_pid = f.worker_pid("bob").unwrap();
    // Kill Alice's worker while Bob's calls run on.
    let bob = std::thread::scope(|s| {
        let bob = s.spawn(|| (0..40).map(|i| call("bob", 100 + i)).collect::<Vec<_>>());
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(alice_pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        bob.join().unwrap()
    });
    for (i, answer) in bob.iter().enumerate() {
        assert_eq!(answer["id"], 100 + i as i64);
        assert!(first_text(answer).contains("secret.rs"), "{answer}");
    }
    // Wait until the front door saw the death, then Alice's next call starts a new worker.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !f.log().contains(&format!("worker pid {alice_pid} ended")) {
        assert!(
            std::time::Instant::now() < deadline,
            "the death was not seen: {}",
            f.log()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let answer = call("alice", 3);
    assert!(first_text(&answer).contains("a.rs"), "{answer}");
    let restarted = f.worker_pid("alice").unwrap();
    assert_ne!(restarted, alice_pid);
    assert_eq!(
        f.worker_pid("bob"),
        Some(bob_pid),
        "Bob's worker was never restarted"
    );
}

#[test]
fn a_worker_killed_mid_call_fails_that_call_with_an_error_not_silence() {
    let f = front();
    // A repo big enough that extract takes a while.
    f.big_tree("a/big", 400, 200, Front::let_line);
    assert!(
        f.modern_call("alice", json!(0), "tree", json!({"repo": "."}))
            .status
            == 200
    );
    let pid = f.worker_pid("alice").unwrap();
    let reply = std::thread::scope(|s| {
        let call = s.spawn(|| {
            let mut c = modern_call(
                json!("slow"),
                "extract",
                json!({"repo": "big", "budget": 0}),
            );
            c["params"]["_meta"]["progressToken"] = json!(1);
            f.post(
                Some("alice"),
                &modern_headers("tools/call", Some("extract")),
                &c,
            )
        });
        std::thread::sleep(std::time::Duration::from_millis(300));
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
        call.join().unwrap()
    });
    let last = reply.events().pop().unwrap_or_else(|| reply.json());
    assert_eq!(last["id"], "slow");
    // Either the call finished before the kill, or it failed with the worker's death.
    if last.get("error").is_some() {
        assert_eq!(last["error"]["data"]["kind"], "WorkerDied", "{last}");
    }
    assert_eq!(
        f.modern_call("alice", json!(1), "tree", json!({"repo": "."}))
            .status,
        200
    );
}

/// `/proc/PID/status` fields.
fn status(pid: u32) -> std::collections::HashMap<String, String> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.to_string(), v.trim().to_string()))
        .collect()
}

/// The process `pid` (named `what` in a failure) runs confined: no new privileges, no
/// effective capabilities, under a seccomp filter. Returns its status.
fn confined(what: &str, pid: u32) -> std::collections::HashMap<String, String> {
    let s = status(pid);
    assert_eq!(s["NoNewPrivs"], "1", "{what}: {s:?}");
    assert_eq!(s["CapEff"], "0000000000000000", "{what}: {s:?}");
    assert_eq!(
        s["Seccomp"], "2",
        "{what} runs under its seccomp filter: {s:?}"
    );
    s
}

/// The first text part of a tool call's answer.
fn first_text(answer: &serde_json::Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap()
}

fn children(pid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat"))
                .ok()
                .and_then(|s| {
                    s.rsplit_once(')')
                        .map(|(_, r)| r.split_whitespace().nth(1).map(str::to_string))
                })
                .flatten()
                .is_some_and(|pp| pp == pid.to_string())
        })
        .collect()
}

#[test]
fn the_front_door_the_reloader_the_spawner_and_the_workers_run_confined() {
    let f = front();
    assert_eq!(
        f.modern_call("alice", json!(1), "tree", json!({"repo": "."}))
            .status,
        200
    );
    let door = confined("the front door", f.pid());
    assert_eq!(door["CapPrm"], "0000000000000000");
    // The front door's one child is the reloader (it reads the tenants and proves their roots,
    // read-only); its child, the spawner of the tenants' generation.
    let reloaders = children(f.pid());
    assert_eq!(reloaders.len(), 1, "one reloader: {reloaders:?}");
    confined("the reloader", reloaders[0]);
    let spawners = children(reloaders[0]);
    assert_eq!(spawners.len(), 1, "one spawner: {spawners:?}");
    confined("the spawner", spawners[0]);
    assert!(
        f.log()
            .contains("worker spawner confined: {\"ruleset\":\"fully_enforced\""),
        "{}",
        f.log()
    );
    assert!(f.log().contains("\"seccomp\":true}"), "{}", f.log());
    let worker = f.worker_pid("alice").unwrap();
    assert!(
        children(spawners[0]).contains(&worker),
        "the worker is the spawner's child"
    );
    confined("the worker", worker);
    assert!(
        f.log()
            .contains("front door confined: {\"ruleset\":\"fully_enforced\""),
        "{}",
        f.log()
    );
}

#[test]
fn a_root_moved_before_the_first_call_is_refused_and_the_other_tenant_never_notices() {
    let f = front();
    // Alice's root is moved away after startup: no worker is started for her, every call says
    // why, and nothing is served from either place.
    let alice_root = f.base().join("a");
    std::fs::rename(&alice_root, f.base().join("a-moved")).unwrap();
    let started = |f: &Front| f.log().matches("tenant alice: worker started").count();
    for i in 0..3 {
        let reply = f.modern_call("alice", json!(i), "tree", json!({"repo": "."}));
        reply.status_is(503);
        assert_eq!(reply.json()["error"]["data"]["kind"], "RootChanged");
        assert!(
            reply.text().contains("no longer the directory"),
            "{}",
            reply.text()
        );
    }
    assert_eq!(started(&f), 0, "{}", f.log());
    assert!(
        f.log().contains("is no longer the directory proven"),
        "{}",
        f.log()
    );
    // Bob never notices.
    let bob = f.modern_call("bob", json!(9), "tree", json!({"repo": "."}));
    assert_eq!(bob.status, 200);
    assert!(bob.json()["result"].is_object(), "{}", bob.text());
    // The very directory put back is served again.
    std::fs::rename(f.base().join("a-moved"), &alice_root).unwrap();
    let back = f.modern_call("alice", json!(10), "tree", json!({"repo": "."}));
    back.status_is(200);
    assert!(back.text().contains("a.rs"), "{}", back.text());
    assert_eq!(started(&f), 1);
}
