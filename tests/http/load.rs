//! A load test on loopback: 50 concurrent clients across 3 tenants, 3,000 stateless calls on
//! keep-alive connections, about one in twenty cancelled by closing its connection mid-call,
//! and one tenant's worker killed midway. Every answer must carry its own request's id and its
//! own tenant's files (no lost or mixed-up answer); only calls of the killed tenant may fail,
//! and only with the worker's death. Figures (throughput, latency, front door memory) are
//! printed; docs/performance.md records a run. Token-less clients (trickled 4 MiB bodies, 512
//! idle connections) cost the front door their heads only, and a tenant is served throughout.

use crate::front::{Conn, Front, Root, Roots, modern_call, modern_headers};
use serde_json::json;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const CLIENTS: usize = 50;
const CALLS: usize = 60;
const TENANTS: [&str; 3] = ["t0", "t1", "t2"];

pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .map(|v| v.trim().trim_end_matches(" kB").trim().parse().unwrap())
        .unwrap()
}

#[derive(Default)]
struct Tally {
    ok: AtomicUsize,
    died: AtomicUsize,
    cancelled: AtomicUsize,
    latencies: Mutex<Vec<Duration>>,
}

#[test]
fn fifty_clients_three_tenants_cancels_and_a_killed_worker_lose_nothing() {
    let files: Vec<Vec<(String, String)>> = TENANTS
        .iter()
        .map(|t| {
            (0..30)
                .map(|i| (format!("own-{t}-{i}.rs"), format!("fn {t}_{i}() {{}}\n")))
                .collect()
        })
        .collect();
    let refs: Vec<Vec<(&str, &str)>> = files
        .iter()
        .map(|f| f.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect())
        .collect();
    let roots: Vec<[Root<'_>; 1]> = TENANTS
        .iter()
        .zip(&refs)
        .map(|(t, f)| [(*t, f.as_slice())])
        .collect();
    let layout: Vec<(&str, Roots<'_>)> = TENANTS
        .iter()
        .zip(&roots)
        .map(|(t, r)| (*t, r.as_slice()))
        .collect();
    let f = Front::start(
        &layout,
        &[
            ("GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT", "400"),
            ("GNAW_MCP_MAX_CALLS_PER_TENANT", "400"),
            ("RUST_LOG", "warn,gnaw::mcp::http=info"),
        ],
    );
    // Warm every worker so the kill below has a pid to hit.
    for t in TENANTS {
        assert_eq!(
            f.modern_call(t, json!(0), "tree", json!({"repo": "."}))
                .status,
            200
        );
    }
    let rss_before = rss_kib(f.pid());
    let done = AtomicUsize::new(0);
    let tally = Tally::default();
    let started = Instant::now();
    let mut killed = None;
    std::thread::scope(|s| {
        for client in 0..CLIENTS {
            let (f, done, tally) = (&f, &done, &tally);
            s.spawn(move || run_client(f, client, done, tally));
        }
        // Kill t1's worker once half the calls are done.
        while done.load(Ordering::SeqCst) < CLIENTS * CALLS / 2 {
            std::thread::sleep(Duration::from_millis(5));
        }
        let pid = f.worker_pid_any("t1");
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        killed = Some(pid);
    });
    let elapsed = started.elapsed();
    std::thread::sleep(Duration::from_millis(500));
    let rss_after = rss_kib(f.pid());
    let mut lat = tally.latencies.lock().unwrap().clone();
    lat.sort();
    let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
    let ok = tally.ok.load(Ordering::SeqCst);
    let died = tally.died.load(Ordering::SeqCst);
    let cancelled = tally.cancelled.load(Ordering::SeqCst);
    eprintln!(
        "load: {CLIENTS} clients, {} calls in {:.2?} ({:.0}/s): {ok} answered, {died} failed with \
         the killed worker (pid {killed:?}), {cancelled} cancelled; latency p50 {:.2?} p99 {:.2?} \
         max {:.2?}; front door RSS {rss_before} KiB -> {rss_after} KiB",
        CLIENTS * CALLS,
        elapsed,
        (CLIENTS * CALLS) as f64 / elapsed.as_secs_f64(),
        pct(0.5),
        pct(0.99),
        lat[lat.len() - 1],
    );
    assert_eq!(ok + died + cancelled, CLIENTS * CALLS, "a call was lost");
    assert!(cancelled > 0 && ok > CLIENTS * CALLS / 2);
    assert!(
        rss_after < 200 * 1024,
        "the front door grew to {rss_after} KiB"
    );
    // Every tenant still serves, t1 by a new worker.
    for t in TENANTS {
        assert_eq!(
            f.modern_call(t, json!(1), "tree", json!({"repo": "."}))
                .status,
            200
        );
    }
    assert_ne!(Some(f.worker_pid_any("t1")), killed);
}

fn run_client(f: &Front, client: usize, done: &AtomicUsize, tally: &Tally) {
    let tenant = TENANTS[client % TENANTS.len()];
    let token = f.tokens[tenant].clone();
    let mut conn: Option<Conn> = None;
    let mut seed = client as u64 * 7919 + 1;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for i in 0..CALLS {
        let id = format!("c{client}-{i}");
        let (tool, args) = match next() % 3 {
            0 => ("tree", json!({"repo": "."})),
            1 => (
                "grep",
                json!({"repo": ".", "pattern": format!("{tenant}_") }),
            ),
            _ => (
                "read",
                json!({"repo": ".", "paths": [format!("own-{tenant}-{}.rs", next() % 30)]}),
            ),
        };
        let call = modern_call(json!(id), tool, args);
        let headers = modern_headers("tools/call", Some(tool));
        if next() % 20 == 0 {
            // Cancel: send on a fresh connection and close it before the answer.
            let mut c = f.connect();
            let body = call.to_string();
            let mut head = format!(
                "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            );
            for (n, v) in &headers {
                head.push_str(&format!("{n}: {v}\r\n"));
            }
            head.push_str("\r\n");
            c.send_raw(head.as_bytes());
            c.send_raw(body.as_bytes());
            std::thread::sleep(Duration::from_micros(next() % 3000));
            drop(c);
            tally.cancelled.fetch_add(1, Ordering::SeqCst);
            done.fetch_add(1, Ordering::SeqCst);
            continue;
        }
        let c = conn.get_or_insert_with(|| f.connect());
        let t = Instant::now();
        let reply = c.post(Some(&token), &headers, &call);
        tally.latencies.lock().unwrap().push(t.elapsed());
        reply.status_is(200);
        let answer = reply.json();
        assert_eq!(answer["id"], json!(id), "a mixed-up answer: {answer}");
        if let Some(error) = answer.get("error") {
            assert_eq!(tenant, "t1", "{tenant} failed: {error}");
            assert_eq!(error["data"]["kind"], "WorkerDied", "{error}");
            tally.died.fetch_add(1, Ordering::SeqCst);
        } else {
            let text = answer["result"]["content"][0]["text"].as_str().unwrap();
            assert!(text.contains(tenant), "{tenant} got {text:.200}");
            for other in TENANTS.iter().filter(|o| **o != tenant) {
                assert!(
                    !text.contains(&format!("own-{other}-")),
                    "{tenant} got {other}'s files"
                );
            }
            tally.ok.fetch_add(1, Ordering::SeqCst);
        }
        done.fetch_add(1, Ordering::SeqCst);
    }
}

/// One tenant call's latency, answered as JSON.
fn timed_call(f: &Front, id: usize) -> Duration {
    let started = Instant::now();
    let reply = f.modern_call("t0", json!(id), "tree", json!({"repo": "."}));
    reply.status_is(200);
    started.elapsed()
}

fn p50(mut d: Vec<Duration>) -> Duration {
    d.sort();
    d[d.len() / 2]
}

/// Token-less clients as the attack sent them: 60 connections that announce a 4 MiB
/// body and trickle it, and 512 that connect and send nothing, from loopback (one client).
/// Nothing they send is read past its head: the front door's memory stays near its rest and a
/// tenant's calls are served at once. Figures printed; docs/performance.md records a run.
#[test]
fn token_less_clients_cost_a_header_and_never_hold_a_tenants_place() {
    let f = Front::start(&[("t0", &[("r0", &[("a.rs", "fn a() {}\n")])])], &[]);
    // Warm: the worker started, the front door's threads made.
    timed_call(&f, 0);
    let quiet: Vec<Duration> = (1..=10).map(|i| timed_call(&f, i)).collect();
    let rest = rss_kib(f.pid());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut threads = Vec::new();
    for _ in 0..60 {
        let port = f.port;
        let stop = std::sync::Arc::clone(&stop);
        threads.push(std::thread::spawn(move || {
            let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
                return;
            };
            let head = "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                        Content-Length: 4194304\r\n\r\n";
            if std::io::Write::write_all(&mut s, head.as_bytes()).is_err() {
                return;
            }
            let chunk = vec![b'x'; 64 << 10];
            while !stop.load(Ordering::Relaxed) {
                if std::io::Write::write_all(&mut s, &chunk).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }));
    }
    let mut idle = Vec::new();
    for _ in 0..512 {
        if let Ok(s) = std::net::TcpStream::connect(("127.0.0.1", f.port)) {
            idle.push(s);
        }
    }
    std::thread::sleep(Duration::from_secs(2));
    let attacked: Vec<Duration> = (11..=30).map(|i| timed_call(&f, i)).collect();
    let peak = rss_kib(f.pid());
    stop.store(true, Ordering::Relaxed);
    drop(idle);
    for t in threads {
        let _ = t.join();
    }
    let (quiet, attacked) = (p50(quiet), p50(attacked));
    eprintln!(
        "token-less load: front door RSS {rest} KiB at rest, {peak} KiB under 60 trickled 4 MiB \
         bodies and 512 idle connections; a tenant's call p50 {quiet:?} quiet, {attacked:?} \
         under attack"
    );
    // The old front door read every body whole: 60 x 4 MiB. Now each costs its head.
    assert!(
        peak < rest + 48 * 1024,
        "the front door grew from {rest} to {peak} KiB"
    );
    assert!(attacked < Duration::from_secs(2), "{attacked:?}");
}

/// Per-tenant fairness: one tenant's burst (64 clients calling `search` without pause, past its
/// own bound on calls, `GNAW_MCP_MAX_CALLS_PER_TENANT` = 8) is that tenant's alone: its excess
/// is refused 429 with `Retry-After`, and the other tenant's calls meanwhile are every one
/// answered, never refused or queued behind the burst (each tenant has its own worker and its
/// own bound). The quiet tenant's latency at rest and under the burst is printed, not asserted:
/// on a shared machine the two workers still share its cores; scripts/bench/fairness.py
/// measures it and docs/performance.md records a run.
#[test]
fn one_tenants_burst_is_refused_past_its_own_bound_and_never_refuses_another() {
    let files: Vec<(String, String)> = (0..40)
        .map(|i| {
            (
                format!("m{i}.rs"),
                format!("/// module {i}\nfn parse_{i}() {{}}\n"),
            )
        })
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let f = Front::start(
        &[
            ("loud", &[("a", &files[..])]),
            ("quiet", &[("b", &files[..])]),
        ],
        &[
            ("GNAW_MCP_MAX_CALLS_PER_TENANT", "8"),
            // Every client here is loopback, one client to the front door: room for all of
            // them, authenticated or not yet (a busy machine may hold many mid-handshake).
            ("GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT", "256"),
            ("GNAW_MCP_MAX_UNAUTHENTICATED_PER_CLIENT", "256"),
            ("GNAW_MCP_MAX_UNAUTHENTICATED_CONNECTIONS", "256"),
        ],
    );
    let search = |tenant: &str, id: usize| {
        let started = Instant::now();
        let reply = f.post(
            Some(tenant),
            &modern_headers("tools/call", Some("search")),
            &modern_call(json!(id), "search", json!({"query": "parse module"})),
        );
        (reply, started.elapsed())
    };
    let quiet = |n: usize| -> Vec<Duration> {
        (0..n)
            .map(|i| {
                let (reply, took) = search("quiet", i);
                assert_eq!(reply.status, 200, "the quiet tenant: {}", reply.text());
                took
            })
            .collect()
    };
    quiet(3);
    let at_rest = p50(quiet(20));
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (answered, refused) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let during = std::thread::scope(|s| {
        for c in 0..64 {
            let (stop, answered, refused, search) = (&stop, &answered, &refused, &search);
            s.spawn(move || {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let (reply, _) = search("loud", c * 100_000 + i);
                    match reply.status {
                        200 => answered.fetch_add(1, Ordering::Relaxed),
                        429 => {
                            assert_eq!(reply.header("Retry-After"), Some("1"));
                            // A client that heard 429 waits a little before its next try.
                            std::thread::sleep(Duration::from_millis(20));
                            refused.fetch_add(1, Ordering::Relaxed)
                        }
                        other => panic!("the loud tenant: {other} {}", reply.text()),
                    };
                    i += 1;
                }
            });
        }
        std::thread::sleep(Duration::from_millis(500));
        let during = p50(quiet(20));
        stop.store(true, Ordering::Relaxed);
        during
    });
    eprintln!(
        "fairness: the quiet tenant's search p50 {at_rest:?} at rest, {during:?} while the loud \
         tenant's 64 clients had {} calls answered and {} refused (429)",
        answered.load(Ordering::Relaxed),
        refused.load(Ordering::Relaxed)
    );
    assert!(
        refused.load(Ordering::Relaxed) > 0,
        "the burst never passed the loud tenant's bound"
    );
}
