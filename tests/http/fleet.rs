//! The tenants' workers as a fleet. A worker killed between calls costs the next call nothing:
//! a request the worker never took goes to a new one (a hundred kills, a hundred answers).
//! Workers sleep when idle and wake on the next request, a legacy session surviving the sleep.
//! The bound on live workers puts the least recently used idle worker to sleep, or answers
//! 503 with `Retry-After` when none is idle. The fleet's memory budget bounds each worker's
//! cache and puts idle workers to sleep when their sum is over it. `/healthz` answers without a
//! token while no worker runs; `/metrics` serves the Prometheus text format to loopback or to
//! its own token, with no client string in any label.

use crate::front::{Front, modern_headers, modern_meta};
use serde_json::json;
use std::time::{Duration, Instant};

fn tree(f: &Front, tenant: &str, id: u64) -> crate::front::Reply {
    f.modern_call(tenant, json!(id), "tree", json!({"repo": "."}))
}

/// The environment `tenant`'s worker was started with.
fn worker_environ(f: &Front, tenant: &str) -> String {
    let pid = f.worker_pid(tenant).unwrap();
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    String::from_utf8_lossy(&environ).into_owned()
}

fn alive(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z ")
}

fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_worker_killed_between_calls_costs_the_next_call_nothing() {
    let f = Front::start(&[("alice", &[("a", &[("a.rs", "fn alpha() {}\n")])])], &[]);
    assert_eq!(tree(&f, "alice", 0).status, 200);
    for i in 1..=100 {
        let pid = f.worker_pid("alice").unwrap();
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        // At once: the front door may not have seen the worker end yet.
        let reply = tree(&f, "alice", i);
        assert_eq!(reply.status, 200, "kill {i}: {}", reply.text());
        assert!(
            reply.json()["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .contains("a.rs"),
            "kill {i}: {}",
            reply.text()
        );
        wait_until("a new worker", || f.worker_pid("alice") != Some(pid));
    }
}

#[test]
fn an_idle_worker_sleeps_and_the_next_request_wakes_it_with_its_session() {
    let f = Front::start(
        &[("alice", &[("a", &[("a.rs", "fn alpha() {}\n")])])],
        &[("GNAW_MCP_WORKER_IDLE_SECS", "1")],
    );
    let init = f.initialize("alice", "2024-11-05");
    let session = init.header("Mcp-Session-Id").unwrap().to_string();
    let pid = f.worker_pid("alice").unwrap();
    wait_until("the idle worker to exit", || !alive(pid));
    assert!(f.log().contains("put to sleep (idle)"), "{}", f.log());
    // The session survives its worker's sleep, and is still answered in its own revision.
    let started = Instant::now();
    let list = f.post(
        Some("alice"),
        &[("Mcp-Session-Id", &session)],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    );
    let woke = started.elapsed();
    list.status_is(200);
    let tools = list.json()["result"]["tools"].clone();
    assert!(tools[0].get("title").is_none(), "2024-11-05 has no titles");
    let new_pid = f.worker_pid("alice").unwrap();
    assert_ne!(new_pid, pid);
    eprintln!("the first call after a sleep took {woke:?} (a worker's start)");
}

#[test]
fn past_the_bound_on_workers_the_least_recent_idle_one_sleeps_or_the_request_waits() {
    let f = Front::start(
        &[
            ("alice", &[("a", &[("a.rs", "fn alpha() {}\n")])]),
            ("bob", &[("b", &[("b.rs", "fn beta() {}\n")])]),
        ],
        &[("GNAW_MCP_MAX_WORKERS", "1")],
    );
    assert_eq!(tree(&f, "alice", 1).status, 200);
    let alice = f.worker_pid("alice").unwrap();
    // Bob needs a worker; Alice's is idle: it sleeps and Bob is served.
    assert_eq!(tree(&f, "bob", 2).status, 200);
    wait_until("alice's worker to sleep", || !alive(alice));
    // Alice calls something slow; while it runs Bob cannot have a worker: 503, Retry-After.
    f.big_tree("a/big", 1500, 100, Front::let_line);
    std::thread::scope(|s| {
        let slow = s.spawn(|| {
            f.modern_call(
                "alice",
                json!(3),
                "extract",
                json!({"repo": "big", "budget": 0}),
            )
        });
        // Alice's new worker is busy with the extract (Bob's slept to make room for it).
        wait_until("alice's worker", || {
            f.worker_pid("alice").is_some_and(alive)
        });
        std::thread::sleep(Duration::from_millis(300));
        let reply = tree(&f, "bob", 4);
        reply.status_is(503);
        assert_eq!(reply.header("Retry-After"), Some("2"));
        assert!(
            reply.text().contains("GNAW_MCP_MAX_WORKERS"),
            "{}",
            reply.text()
        );
        assert_eq!(slow.join().unwrap().status, 200);
    });
}

#[test]
fn a_workers_share_of_the_budget_never_passes_the_operators_cache_bound() {
    let f = Front::start(
        &[("t1", &[("r1", &[("a.rs", "fn a() {}\n")])])],
        &[
            ("GNAW_MCP_FLEET_MEMORY", "4GiB"),
            ("GNAW_MCP_CACHE_BYTES", "32MiB"),
        ],
    );
    assert_eq!(tree(&f, "t1", 0).status, 200);
    assert!(
        worker_environ(&f, "t1").contains("GNAW_MCP_CACHE_BYTES=33554432"),
        "one worker's share of 4 GiB is capped by GNAW_MCP_CACHE_BYTES (32 MiB)"
    );
}

#[test]
fn the_memory_budget_bounds_each_cache_and_sleeps_idle_workers_over_it() {
    let f = Front::start(
        &[
            ("t1", &[("r1", &[("a.rs", "fn a() {}\n")])]),
            ("t2", &[("r2", &[("b.rs", "fn b() {}\n")])]),
            ("t3", &[("r3", &[("c.rs", "fn c() {}\n")])]),
        ],
        &[("GNAW_MCP_FLEET_MEMORY", "64MiB")],
    );
    // Each worker's cache bound is its share of the budget, given at its start.
    assert_eq!(tree(&f, "t1", 0).status, 200);
    assert!(
        worker_environ(&f, "t1").contains("GNAW_MCP_CACHE_BYTES=16777216"),
        "the first worker's share: 64 MiB less a worker's base (48 MiB)"
    );
    for (i, t) in ["t2", "t3"].iter().enumerate() {
        assert_eq!(tree(&f, t, 1 + i as u64).status, 200);
    }
    // Three workers at rest hold more than 64 MiB: the least recently used sleep until the
    // rest fit.
    wait_until("a worker to sleep for memory", || {
        f.log()
            .contains("to keep the fleet under GNAW_MCP_FLEET_MEMORY")
    });
    let live: u64 = ["t1", "t2", "t3"]
        .iter()
        .filter_map(|t| f.worker_pid(t))
        .filter(|p| alive(*p))
        .map(|p| crate::load::rss_kib(p) << 10)
        .sum();
    assert!(live <= 64 << 20, "{} MiB live", live >> 20);
    // Every tenant is still served.
    for (i, t) in ["t1", "t2", "t3"].iter().enumerate() {
        assert_eq!(tree(&f, t, 10 + i as u64).status, 200);
    }
}

#[test]
fn healthz_answers_without_a_token_and_metrics_only_to_loopback_or_its_token() {
    let (token, table) = crate::front::mint("metrics");
    let hash = table
        .lines()
        .find_map(|l| l.strip_prefix("token_sha256 = \""))
        .unwrap()
        .trim_end_matches('"')
        .to_string();
    let f = Front::start(
        &[("alice", &[("a", &[("a.rs", "fn alpha() {}\n")])])],
        &[("GNAW_MCP_METRICS_TOKEN_SHA256", &hash)],
    );
    // No worker has started: healthz is ok all the same.
    let mut conn = f.connect();
    conn.send_raw(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    let health = conn.read_reply();
    assert_eq!((health.status, health.text().as_str()), (200, "ok\n"));
    assert!(f.worker_pid("alice").is_none());
    // Some traffic: a call, a made-up tool, a refusal.
    assert_eq!(tree(&f, "alice", 1).status, 200);
    let _ = f.post(
        Some("alice"),
        &modern_headers("tools/call", Some("made/up\u{202e}")),
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "made/up\u{202e}", "arguments": {"repo": "/etc"}, "_meta": modern_meta()}}),
    );
    let _ = f.post(None, &[], &json!({}));
    // Without the token: 401; with it: the text format.
    let mut conn = f.connect();
    conn.send_raw(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!(conn.read_reply().status, 401);
    // A request is counted once its answer is written, by the thread that wrote it: on a
    // loaded machine the refusals just answered may not be counted yet. The text is asked for
    // again until every line is there, for at most 10 s. Each fetch is itself counted once
    // answered (`-`, `none`, 200): besides /healthz, at most the fetches made before.
    let expected = [
        "gnaw_mcp_up 1",
        "gnaw_mcp_requests_total{tenant=\"alice\",tool=\"tree\",status=\"200\"} 1",
        "gnaw_mcp_requests_total{tenant=\"alice\",tool=\"other\",status=\"400\"} 1",
        "gnaw_mcp_requests_total{tenant=\"-\",tool=\"none\",status=\"401\"} 2",
        "gnaw_mcp_workers{state=\"running\"} 1",
        "gnaw_mcp_worker_starts_total{tenant=\"alice\"} 1",
        "gnaw_mcp_request_duration_seconds_count{tenant=\"alice\"} 2",
    ];
    let public = "gnaw_mcp_requests_total{tenant=\"-\",tool=\"none\",status=\"200\"} ";
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut fetched = 0;
    let text = loop {
        let mut conn = f.connect();
        conn.send_raw(
            format!("GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n")
                .as_bytes(),
        );
        let metrics = conn.read_reply();
        assert_eq!(metrics.status, 200);
        assert_eq!(
            metrics.header("Content-Type"),
            Some("text/plain; version=0.0.4; charset=utf-8")
        );
        let text = metrics.text();
        check_exposition(&text);
        // /healthz, and the fetches before this one that were counted already.
        let served: Option<u64> = text
            .lines()
            .find_map(|l| l.strip_prefix(public))
            .and_then(|n| n.parse().ok());
        let missing = expected
            .iter()
            .find(|line| !text.lines().any(|l| l == **line))
            .copied()
            .or(served.is_none().then_some(public));
        if let Some(n) = served {
            assert!(
                (1..=1 + fetched).contains(&n),
                "{public}{n} after {fetched} fetches"
            );
        }
        match missing {
            None => break text,
            Some(line) => assert!(Instant::now() < deadline, "{line}\n{text}"),
        }
        fetched += 1;
        std::thread::sleep(Duration::from_millis(20));
    };
    for never in ["made/up", "/etc", "a.rs", &token] {
        assert!(!text.contains(never), "{never} in /metrics");
    }
}

#[test]
fn metrics_answer_a_loopback_peer_when_no_token_is_set() {
    let f = Front::start(&[("alice", &[("a", &[("a.rs", "fn alpha() {}\n")])])], &[]);
    let mut conn = f.connect();
    conn.send_raw(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    let metrics = conn.read_reply();
    metrics.status_is(200);
    check_exposition(&metrics.text());
    // A token is no use here: /metrics has none of its own, and a tenant's is not one.
    let mut conn = f.connect();
    conn.send_raw(
        format!(
            "GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\r\n",
            f.tokens["alice"]
        )
        .as_bytes(),
    );
    assert_eq!(conn.read_reply().status, 200);
}

/// The Prometheus text exposition format, line by line: `# HELP` and `# TYPE` before each
/// family's samples, sample names of the family (with `_bucket`, `_sum`, `_count` for a
/// histogram), labels `name="value"`, a number.
fn check_exposition(text: &str) {
    let mut family: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            assert!(rest.split_once(' ').is_some(), "{line}");
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap();
            assert!(["counter", "gauge", "histogram"].contains(&kind), "{line}");
            family = Some((name.to_string(), kind.to_string()));
            continue;
        }
        let (name, kind) = family.clone().expect("a sample before its TYPE");
        let (series, value) = line.rsplit_once(' ').unwrap();
        assert!(value.parse::<f64>().is_ok(), "{line}");
        let metric = series.split('{').next().unwrap();
        let allowed = match kind.as_str() {
            "histogram" => [
                format!("{name}_bucket"),
                format!("{name}_sum"),
                format!("{name}_count"),
            ]
            .contains(&metric.to_string()),
            _ => metric == name,
        };
        assert!(allowed, "{line} under {name}");
        if let Some(labels) = series.strip_prefix(metric)
            && !labels.is_empty()
        {
            let inner = labels.strip_prefix('{').and_then(|l| l.strip_suffix('}'));
            let inner = inner.expect(line);
            for pair in inner.split("\",") {
                let (k, v) = pair.split_once("=\"").expect(line);
                assert!(
                    k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'),
                    "{line}"
                );
                assert!(!v.contains('\n'), "{line}");
            }
        }
    }
}
