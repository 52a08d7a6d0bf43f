//! Who may call: no token or a wrong one is 401 with `WWW-Authenticate` naming the
//! protected-resource metadata; a foreign browser Origin is 403 whatever the token; a loopback
//! Origin passes; the audit line names the tenant and never the token.

use crate::front::{Front, modern_call, modern_headers};
use serde_json::{Value, json};

fn front() -> Front {
    Front::start(&[("alice", &[("a", &[("a.rs", "fn alpha() {}\n")])])], &[])
}

#[test]
fn no_token_or_a_wrong_one_gets_401_with_the_metadata() {
    let f = front();
    let call = modern_call(json!(1), "tree", json!({"repo": "."}));
    let headers = modern_headers("tools/call", Some("tree"));
    for token in [None, Some("gnaw_not-a-token"), Some(""), Some("Basic abc")] {
        let mut conn = f.connect();
        let reply = conn.post(token, &headers, &call);
        assert_eq!(reply.status, 401, "{token:?}: {}", reply.text());
        let auth = reply.header("WWW-Authenticate").unwrap();
        assert!(
            auth.starts_with(
                "Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource\""
            ),
            "{auth}"
        );
        assert_eq!(reply.json()["error"]["data"]["kind"], "Unauthorized");
        // A refused request closes its connection.
        assert_eq!(reply.header("Connection"), Some("close"), "{token:?}");
        assert!(conn.closed(), "{token:?}: the connection stayed open");
    }
    // GET /mcp without a token is refused too.
    let meta = f.connect().send("GET", None, &[], None).read_reply();
    assert_eq!(meta.status, 401);
    let mut raw = f.connect();
    raw.send_raw(b"GET /.well-known/oauth-protected-resource HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    let meta = raw.read_reply();
    assert_eq!(meta.status, 200);
    assert_eq!(meta.json()["resource"], "http://127.0.0.1/mcp");
    // The right token is served.
    let reply = f.modern_call("alice", json!(2), "tree", json!({"repo": "."}));
    reply.status_is(200);
    assert!(
        reply.json()["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("a.rs")
    );
}

#[test]
fn a_request_without_a_token_is_refused_on_its_head_and_its_body_is_never_read() {
    let f = front();
    // A head that announces 4 MiB and sends none of it: the refusal comes at once, on the head
    // alone, and the connection closes; the same head with a token waits for its body.
    let head = |token: Option<&str>| {
        let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        format!(
            "POST /mcp HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: application/json\r\n\
             Content-Length: 4000000\r\n\r\n"
        )
    };
    for (token, status) in [(None, 401), (Some("gnaw_wrong"), 401)] {
        let mut conn = f.connect();
        conn.stream
            .set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        conn.send_raw(head(token).as_bytes());
        let started = std::time::Instant::now();
        let reply = conn.read_reply();
        assert_eq!(reply.status, status, "{}", reply.text());
        assert!(started.elapsed() < std::time::Duration::from_secs(3));
        assert!(conn.closed());
    }
    // An unknown path and a foreign origin: refused on the head too, the connection closed.
    let mut conn = f.connect();
    conn.send_raw(b"POST /elsewhere HTTP/1.1\r\nHost: x\r\nContent-Length: 4000000\r\n\r\n");
    assert_eq!(conn.read_reply().status, 404);
    assert!(conn.closed());
    let mut conn = f.connect();
    let token = f.tokens["alice"].clone();
    conn.send_raw(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.example\r\n\
             Authorization: Bearer {token}\r\nContent-Length: 4000000\r\n\r\n"
        )
        .as_bytes(),
    );
    assert_eq!(conn.read_reply().status, 403);
    assert!(conn.closed());
}

#[test]
fn a_foreign_origin_gets_403_and_a_loopback_one_passes() {
    let f = front();
    let call = modern_call(json!(1), "tree", json!({"repo": "."}));
    let mut headers = modern_headers("tools/call", Some("tree"));
    headers.push(("Origin", "https://evil.example"));
    let reply = f.post(Some("alice"), &headers, &call);
    reply.status_is(403);
    assert_eq!(reply.json()["error"]["data"]["kind"], "OriginNotAllowed");
    for origin in [
        "http://localhost.evil.example",
        "null",
        "http://127.0.0.1.evil.example:80",
    ] {
        let mut headers = modern_headers("tools/call", Some("tree"));
        headers.push(("Origin", origin));
        assert_eq!(
            f.post(Some("alice"), &headers, &call).status,
            403,
            "{origin}"
        );
    }
    let mut headers = modern_headers("tools/call", Some("tree"));
    headers.push(("Origin", "http://localhost:6274"));
    assert_eq!(f.post(Some("alice"), &headers, &call).status, 200);
}

#[test]
fn every_request_gets_one_audit_line_without_the_token() {
    let f = front();
    let token = f.tokens["alice"].clone();
    let reply = f.modern_call("alice", json!(3), "tree", json!({"repo": "."}));
    assert_eq!(reply.status, 200);
    let reply = f.post(None, &[], &json!({}));
    assert_eq!(reply.status, 401);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let log = f.log();
    assert!(!log.contains(&token), "the token reached the log");
    let audits = f.audits();
    let served = audits
        .iter()
        .find(|a| a["tool"] == "tree")
        .expect("an audit line for the call");
    assert_eq!(served["tenant"], "alice");
    assert_eq!(served["repo"], ".");
    assert_eq!(served["method"], "tools/call");
    assert_eq!(served["decision"], "served");
    assert!(served["bytes"].as_u64().unwrap() > 100);
    assert!(served["ms"].is_u64());
    assert!(served["time"].as_str().unwrap().ends_with('Z'));
    assert!(
        audits
            .iter()
            .any(|a| a["status"] == 401 && a["decision"] == "refused: no bearer token"),
        "{audits:?}"
    );
}

#[test]
fn the_audit_trail_goes_to_the_descriptor_the_operator_passes() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.log");
    std::fs::write(&audit, "earlier line\n").unwrap();
    let f = Front::start_with_audit_fd(
        &[("alice", &[("a", &[("a.rs", "fn alpha() {}\n")])])],
        &audit,
    );
    let token = f.tokens["alice"].clone();
    assert_eq!(
        f.modern_call("alice", json!(1), "tree", json!({"repo": "."}))
            .status,
        200
    );
    assert_eq!(f.post(None, &[], &json!({})).status, 401);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let text = std::fs::read_to_string(&audit).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("earlier line"),
        "appended, not truncated"
    );
    let audits: Vec<Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(
        audits
            .iter()
            .any(|a| a["tool"] == "tree" && a["decision"] == "served"),
        "{audits:?}"
    );
    assert!(audits.iter().any(|a| a["status"] == 401), "{audits:?}");
    assert!(!text.contains(&token), "the token reached the audit file");
    // stderr keeps the log, not the audit lines.
    assert!(!f.log().contains("{\"audit\""), "{}", f.log());
    // The tenant's worker did not inherit the descriptor (it is close-on-exec).
    let worker = f.worker_pid_any("alice");
    let held: Vec<_> = std::fs::read_dir(format!("/proc/{worker}/fd"))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .collect();
    assert!(
        !held.iter().any(|p| p.ends_with("audit.log")),
        "the worker holds the audit file: {held:?}"
    );
}

#[test]
fn an_audit_descriptor_that_is_not_open_stops_the_start() {
    let out = std::process::Command::new(crate::front::bin())
        .args(["--listen", "127.0.0.1:0", "--unauthenticated-loopback"])
        .env("GNAW_MCP_AUDIT_FD", "9")
        .env_remove("GNAW_MCP_TENANTS")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("GNAW_MCP_AUDIT_FD: descriptor 9 is not open"),
        "{err}"
    );
}
