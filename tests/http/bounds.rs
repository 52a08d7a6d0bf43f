//! Every bound of the front door, hit on purpose: each is answered with its HTTP status and a
//! JSON-RPC error naming the variable that sets it, and the server keeps serving.

use crate::front::{Front, initialize, modern_headers};
use serde_json::json;
use std::io::Read;
use std::time::{Duration, Instant};

fn front(env: &[(&str, &str)]) -> Front {
    Front::start(&[("alice", &[("a", &[("a.rs", "fn alpha() {}\n")])])], env)
}

fn names(reply: &crate::front::Reply, status: u16, variable: &str) {
    assert_eq!(reply.status, status, "{}", reply.text());
    let message = reply.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains(variable), "{message}");
}

fn still_serves(f: &Front) {
    let reply = f.modern_call("alice", json!(1), "tree", json!({"repo": "."}));
    reply.status_is(200);
}

#[test]
fn head_and_body_bounds() {
    let f = front(&[
        ("GNAW_MCP_MAX_HEADER_BYTES", "2048"),
        ("GNAW_MCP_MAX_LINE_BYTES", "4096"),
    ]);
    let big = "x".repeat(3000);
    let mut conn = f.connect();
    let reply = conn.post(Some(&f.tokens["alice"]), &[("X-Filler", &big)], &json!({}));
    names(&reply, 431, "GNAW_MCP_MAX_HEADER_BYTES");
    // A body over the bound is refused from its Content-Length, unread.
    let mut conn = f.connect();
    let token = f.tokens["alice"].clone();
    conn.send_raw(format!("POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{{").as_bytes());
    names(&conn.read_reply(), 413, "GNAW_MCP_MAX_LINE_BYTES");
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "y".repeat(5000)}});
    let reply = f.post(Some("alice"), &[], &body);
    names(&reply, 413, "GNAW_MCP_MAX_LINE_BYTES");
    // Chunked bodies are refused.
    let mut conn = f.connect();
    conn.send_raw(format!("POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n").as_bytes());
    assert_eq!(conn.read_reply().status, 411);
    still_serves(&f);
}

#[test]
fn a_slow_client_is_cut_off_at_the_header_timeout() {
    let f = front(&[("GNAW_MCP_HEADER_TIMEOUT_MS", "500")]);
    let mut conn = f.connect();
    let started = Instant::now();
    conn.send_raw(b"POST /mcp HTTP/1.1\r\nHost: x\r\n");
    // A byte every 200 ms never finishes the head.
    let mut reply = None;
    for _ in 0..30 {
        std::thread::sleep(Duration::from_millis(200));
        if std::io::Write::write_all(&mut conn.stream, b"X-Slow: y\r\n").is_err() {
            break;
        }
        let mut probe = [0u8; 1];
        conn.stream.set_nonblocking(true).unwrap();
        let got = conn.stream.peek(&mut probe);
        conn.stream.set_nonblocking(false).unwrap();
        if matches!(got, Ok(n) if n > 0) {
            reply = Some(conn.read_reply());
            break;
        }
    }
    let reply = reply.expect("the server answered the slow client");
    names(&reply, 408, "GNAW_MCP_HEADER_TIMEOUT_MS");
    assert!(started.elapsed() < Duration::from_secs(5));
    // And the connection is closed.
    let mut rest = Vec::new();
    let _ = conn.stream.read_to_end(&mut rest);
    still_serves(&f);
}

#[test]
fn connections_per_client_are_bounded() {
    let f = front(&[("GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT", "3")]);
    // Three connections that have authenticated (a request each, kept alive) hold the
    // client's three: a fourth is refused.
    let mut held: Vec<_> = (0..3).map(|_| f.connect()).collect();
    for (i, conn) in held.iter_mut().enumerate() {
        let reply = conn.post(
            Some(&f.tokens["alice"]),
            &modern_headers("tools/list", None),
            &json!({"jsonrpc": "2.0", "id": i, "method": "tools/list",
                    "params": {"_meta": crate::front::modern_meta()}}),
        );
        reply.status_is(200);
    }
    let mut fourth = f.connect();
    let reply = fourth.read_reply();
    names(&reply, 429, "GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT");
    drop(held);
    std::thread::sleep(Duration::from_millis(300));
    still_serves(&f);
}

#[test]
fn connections_without_a_token_never_hold_a_tenants_place() {
    let f = front(&[
        ("GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT", "8"),
        ("GNAW_MCP_MAX_UNAUTHENTICATED_PER_CLIENT", "4"),
    ]);
    // Sixteen connections that send nothing: the client's eight places fill, the rest are
    // refused (a connection that just arrived is never closed for another).
    let mut idle: Vec<_> = (0..16).map(|_| f.connect()).collect();
    // Once they have waited a second without a token, a tenant's connection closes the oldest
    // and is served, at once.
    std::thread::sleep(Duration::from_millis(1200));
    let started = Instant::now();
    still_serves(&f);
    assert!(started.elapsed() < Duration::from_secs(5));
    let open = idle
        .iter_mut()
        .filter(|c| {
            c.stream
                .set_read_timeout(Some(Duration::from_millis(300)))
                .unwrap();
            let mut b = [0u8; 1];
            matches!(
                (&c.stream).read(&mut b),
                Err(ref e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)
            )
        })
        .count();
    assert!(open <= 7, "{open} token-less connections still hold places");
}

#[test]
fn sessions_per_tenant_are_bounded() {
    let f = front(&[("GNAW_MCP_MAX_SESSIONS_PER_TENANT", "2")]);
    let init = initialize("2025-11-25");
    let a = f.post(Some("alice"), &[], &init);
    assert_eq!(a.status, 200);
    assert_eq!(f.post(Some("alice"), &[], &init).status, 200);
    names(
        &f.post(Some("alice"), &[], &init),
        429,
        "GNAW_MCP_MAX_SESSIONS_PER_TENANT",
    );
    // Ending one makes room.
    let mut conn = f.connect();
    let id = a.header("Mcp-Session-Id").unwrap().to_string();
    assert_eq!(
        conn.send(
            "DELETE",
            Some(&f.tokens["alice"]),
            &[("Mcp-Session-Id", &id)],
            None
        )
        .read_reply()
        .status,
        200
    );
    assert_eq!(f.post(Some("alice"), &[], &init).status, 200);
}

#[test]
fn calls_per_tenant_are_bounded() {
    let f = front(&[("GNAW_MCP_MAX_CALLS_PER_TENANT", "1")]);
    // A slow call holds the one slot: extract over a large tree, with progress over SSE.
    f.big_tree("a/big", 300, 300, |i| format!("fn f{i}() {{}}\n"));
    let token = f.tokens["alice"].clone();
    let mut slow = f.connect();
    let mut call =
        crate::front::modern_call(json!("slow"), "extract", json!({"repo": ".", "budget": 0}));
    call["params"]["_meta"]["progressToken"] = json!("p");
    let headers = modern_headers("tools/call", Some("extract"));
    slow.send("POST", Some(&token), &headers, Some(&call));
    // While it runs (its SSE head arrives at once), a second call is refused.
    let mut probe = [0u8; 1];
    let _ = slow.stream.peek(&mut probe);
    let reply = f.modern_call("alice", json!(2), "tree", json!({"repo": "."}));
    // A cold extract of 300 files takes seconds in a debug build: the probe finds it running.
    names(&reply, 429, "GNAW_MCP_MAX_CALLS_PER_TENANT");
    assert_eq!(reply.header("Retry-After"), Some("1"));
    let done = slow.read_reply();
    assert_eq!(done.events().last().unwrap()["id"], "slow");
    still_serves(&f);
}

#[test]
fn listen_refuses_unsafe_starts() {
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = std::process::Command::new(crate::front::bin());
        c.args(args)
            .env_remove("GNAW_MCP_TENANTS")
            .env_remove("GNAW_MCP_LISTEN");
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert!(!out.status.success(), "{args:?} started");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(run(&["--listen", "127.0.0.1:0"], &[]).contains("--unauthenticated-loopback"));
    assert!(
        run(
            &["--listen", "0.0.0.0:0", "--unauthenticated-loopback"],
            &[]
        )
        .contains("not a loopback address")
    );
    assert!(
        run(
            &[
                "--listen",
                "0.0.0.0:0",
                "--unauthenticated-loopback",
                "--allow-non-loopback"
            ],
            &[]
        )
        .contains("loopback address only")
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.toml");
    std::fs::write(
        &file,
        "[tenants.a]\ntoken_sha256 = \"00\"\nroots = [\"/tmp\"]\ncolour = 1\n",
    )
    .unwrap();
    let err = run(
        &["--listen", "127.0.0.1:0"],
        &[("GNAW_MCP_TENANTS", file.to_str().unwrap())],
    );
    assert!(err.contains("colour"), "{err}");
    std::fs::write(
        &file,
        format!(
            "[tenants.a]\ntoken_sha256 = \"{}\"\nroots = [\"/nonexistent/x\"]\n",
            "0".repeat(64)
        ),
    )
    .unwrap();
    let err = run(
        &["--listen", "127.0.0.1:0"],
        &[("GNAW_MCP_TENANTS", file.to_str().unwrap())],
    );
    assert!(err.contains("[tenants.a] roots"), "{err}");
}

#[test]
fn an_idle_session_expires() {
    let f = front(&[("GNAW_MCP_SESSION_IDLE_SECS", "1")]);
    let init = initialize("2025-11-25");
    let id = f
        .post(Some("alice"), &[], &init)
        .header("Mcp-Session-Id")
        .unwrap()
        .to_string();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    // Used within the second: kept.
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(
        f.post(Some("alice"), &[("Mcp-Session-Id", &id)], &ping)
            .status,
        200
    );
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(
        f.post(Some("alice"), &[("Mcp-Session-Id", &id)], &ping)
            .status,
        200
    );
    // Then unused for longer: gone.
    std::thread::sleep(Duration::from_millis(1300));
    let reply = f.post(Some("alice"), &[("Mcp-Session-Id", &id)], &ping);
    reply.status_is(404);
}

#[test]
fn a_trusted_proxy_is_not_bounded_per_client_and_its_clients_are_audited() {
    let f = front(&[
        ("GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT", "2"),
        ("GNAW_MCP_TRUSTED_PROXIES", "127.0.0.1"),
    ]);
    let headers = modern_headers("tools/call", Some("tree"));
    // A client's own line first, then the line its proxy appended (as HAProxy does): only the
    // proxy's last hop counts.
    let forwarded = [
        ("X-Forwarded-For", "6.6.6.6"),
        ("X-Forwarded-For", "198.51.100.9, 203.0.113.7"),
        ("X-Request-Id", "req-42.a"),
    ];
    let with_forwarded = [&headers[..], &forwarded].concat();
    // A proxy keeps many connections open for its clients: none is refused.
    let mut held: Vec<_> = (0..4).map(|_| f.connect()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let call = crate::front::modern_call(json!(7), "tree", json!({"repo": "."}));
    let reply = held[3].post(Some(&f.tokens["alice"]), &with_forwarded, &call);
    reply.status_is(200);
    // A request id that is not a plain token is left out, never quoted.
    let mut odd = headers.clone();
    odd.push(("X-Request-Id", "a\"b"));
    let call = crate::front::modern_call(json!(8), "tree", json!({"repo": "."}));
    assert_eq!(
        held[2].post(Some(&f.tokens["alice"]), &odd, &call).status,
        200
    );
    drop(held);
    std::thread::sleep(Duration::from_millis(200));
    let audits = f.audits();
    let forwarded = audits
        .iter()
        .find(|a| a["request_id"] == "req-42.a")
        .expect("the forwarded call's audit line");
    let client = forwarded["client"].as_str().unwrap();
    assert!(client.starts_with("203.0.113.7 via 127.0.0.1:"), "{client}");
    assert!(
        audits
            .iter()
            .any(|a| a["tool"] == "tree" && a["request_id"].is_null()),
        "{audits:?}"
    );
}

#[test]
fn an_untrusted_peer_cannot_name_its_own_client() {
    let f = front(&[]);
    let mut headers = crate::front::modern_headers("tools/call", Some("tree"));
    headers.push(("X-Forwarded-For", "203.0.113.7"));
    let call = crate::front::modern_call(json!(7), "tree", json!({"repo": "."}));
    assert_eq!(
        f.connect()
            .post(Some(&f.tokens["alice"]), &headers, &call)
            .status,
        200
    );
    std::thread::sleep(Duration::from_millis(200));
    let log = f.log();
    let line = log
        .lines()
        .find(|l| l.starts_with("{\"audit\"") && l.contains("\"tree\""))
        .expect("the call's audit line");
    assert!(!line.contains("203.0.113.7"), "{line}");
    assert!(line.contains("\"client\":\"127.0.0.1:"), "{line}");
}
