//! The wire, exactly. One JSON-RPC message check for both transports: every bad id, bad
//! method, bad `params` and bad `_meta` is refused the same way over stdio and over HTTP (the
//! same code, message and id), before the front door rewrites anything. The 2026-07-28
//! revision's codes and statuses: a request outside a session without `_meta`, or without its
//! revision or capabilities, is 400 with `-32602`; an unsupported revision 400 with `-32022`;
//! a removed or unknown method 404 with `-32601`. Strict framing (RFC 9112 §6.3): a
//! `Content-Length` that is not digits, several that differ, or one beside
//! `Transfer-Encoding` is 400 and closes the connection. The front door's own strings pass the
//! exit gate: an audit line stays under its bound and never holds a token, and an error quotes
//! only an excerpt of what the client sent.

use crate::front::{Front, MODERN, bin, modern_headers, modern_meta};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn front() -> Front {
    Front::start(&[("alice", &[("a", &[("a.rs", "fn alpha() {}\n")])])], &[])
}

/// The answers of a stdio server to `lines` (each on its own line), in order.
fn stdio_answers(root: &std::path::Path, lines: &[String]) -> Vec<Value> {
    let mut child = Command::new(bin())
        .env("GNAW_MCP_ROOT", root)
        .env_remove("GNAW_MCP_LISTEN")
        .env_remove("GNAW_MCP_TENANTS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    drop(stdin);
    let out: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    child.wait().unwrap();
    out
}

/// The bad messages of issue 49 and their kin, as raw text.
fn bad_messages() -> Vec<String> {
    let mut out = Vec::new();
    for id in [
        "null",
        "1.5",
        "{\"a\":1}",
        "[1]",
        "true",
        "18446744073709551616",
        "-9223372036854775809",
        "1e3",
    ] {
        out.push(format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"_meta":{}}}}}"#,
            modern_meta()
        ));
    }
    for method in ["5", "null", "[]", "{}"] {
        out.push(format!(r#"{{"jsonrpc":"2.0","id":1,"method":{method}}}"#));
    }
    out.push(r#"{"jsonrpc":"2.0","id":1}"#.into());
    out.push(r#"{"jsonrpc":"1.0","id":2,"method":"tools/list"}"#.into());
    out.push(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[1]}"#.into());
    for meta in ["null", "[]", "5", "\"x\"", "true"] {
        out.push(format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{"_meta":{meta}}}}}"#
        ));
        out.push(format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"tree","arguments":{{"repo":"."}},"_meta":{meta}}}}}"#
        ));
    }
    out.push("[]".into());
    out.push("42".into());
    out
}

#[test]
fn every_bad_message_is_refused_the_same_way_on_both_transports() {
    let f = front();
    let root = f.base().join("a");
    let bad = bad_messages();
    let over_stdio = stdio_answers(&root, &bad);
    assert_eq!(over_stdio.len(), bad.len(), "{over_stdio:?}");
    for (message, stdio) in bad.iter().zip(&over_stdio) {
        let mut conn = f.connect();
        let token = f.tokens["alice"].clone();
        conn.send_raw(
            format!(
                "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
                 Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
                 MCP-Protocol-Version: {MODERN}\r\nMcp-Method: tools/list\r\n\
                 Content-Length: {}\r\n\r\n{message}",
                message.len()
            )
            .as_bytes(),
        );
        let reply = conn.read_reply();
        assert_eq!(reply.status, 400, "{message}: {}", reply.text());
        let http = reply.json();
        assert!(stdio.get("error").is_some(), "{message}: stdio {stdio}");
        assert_eq!(http["id"], stdio["id"], "{message}");
        assert_eq!(http["error"]["code"], stdio["error"]["code"], "{message}");
        assert_eq!(
            http["error"]["message"], stdio["error"]["message"],
            "{message}"
        );
        // An id beyond 64 bits never comes back as a float.
        assert!(
            !reply.text().contains("e+19"),
            "{message}: {}",
            reply.text()
        );
    }
}

#[test]
fn the_2026_07_28_codes_and_statuses() {
    let f = front();
    let post =
        |body: Value, method: &str| f.post(Some("alice"), &modern_headers(method, None), &body);
    // No _meta, no revision in it, no capabilities: 400 with -32602.
    let mut no_version = modern_meta();
    no_version
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/protocolVersion");
    let mut no_caps = modern_meta();
    no_caps
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    for params in [
        json!({}),
        json!({"_meta": no_version}),
        json!({"_meta": no_caps}),
    ] {
        let reply = post(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}),
            "tools/list",
        );
        assert_eq!(reply.status, 400, "{params}: {}", reply.text());
        assert_eq!(reply.json()["error"]["code"], -32602, "{params}");
    }
    // An unsupported revision: 400 with -32022 and the supported list.
    let mut old = modern_meta();
    old["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let reply = f.post(
        Some("alice"),
        &[
            ("MCP-Protocol-Version", "2099-01-01"),
            ("Mcp-Method", "tools/list"),
        ],
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": old}}),
    );
    reply.status_is(400);
    let error = &reply.json()["error"];
    assert_eq!(error["code"], -32022);
    assert_eq!(error["data"]["supported"], json!([MODERN]));
    // The same body under a head that says 2026-07-28: the head disagrees with the body, which
    // the revision checks first: 400 with -32020, not -32022.
    let reply = post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": old}}),
        "tools/list",
    );
    reply.status_is(400);
    assert_eq!(reply.json()["error"]["code"], -32020, "{}", reply.text());
    // Removed and unknown methods: 404 with -32601.
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "no/such/method",
    ] {
        let reply = post(
            json!({"jsonrpc": "2.0", "id": 3, "method": method,
                   "params": {"_meta": modern_meta(), "protocolVersion": "2025-11-25",
                              "capabilities": {}}}),
            method,
        );
        assert_eq!(reply.status, 404, "{method}: {}", reply.text());
        assert_eq!(reply.json()["error"]["code"], -32601, "{method}");
    }
    // server/discover is served.
    let reply = post(
        json!({"jsonrpc": "2.0", "id": 4, "method": "server/discover",
               "params": {"_meta": modern_meta()}}),
        "server/discover",
    );
    reply.status_is(200);
    // A legacy initialize (no _meta revision) still opens a session.
    let reply = f.post(
        Some("alice"),
        &[],
        &json!({"jsonrpc": "2.0", "id": 5, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}),
    );
    reply.status_is(200);
    assert!(reply.header("Mcp-Session-Id").is_some());
}

#[test]
fn framing_is_strict_and_a_bad_frame_closes_the_connection() {
    let f = front();
    let token = f.tokens["alice"].clone();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                      "params": {"_meta": modern_meta()}})
    .to_string();
    let n = body.len();
    for (lengths, why) in [
        (format!("Content-Length: +{n}\r\n"), "a sign"),
        (
            format!("Content-Length: {n}\r\nContent-Length: {}\r\n", n + 1),
            "two that differ",
        ),
        (
            format!("Content-Length: {n}, {}\r\n", n + 1),
            "a list that differs",
        ),
        (
            format!("Content-Length: {n}\r\nTransfer-Encoding: chunked\r\n"),
            "beside Transfer-Encoding",
        ),
        (format!("Content-Length: 0x{n:x}\r\n"), "hex"),
        (format!("Content-Length: {n}.0\r\n"), "a fraction"),
    ] {
        let mut conn = f.connect();
        conn.send_raw(
            format!(
                "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
                 Content-Type: application/json\r\nMCP-Protocol-Version: {MODERN}\r\n\
                 Mcp-Method: tools/list\r\n{lengths}\r\n{body}"
            )
            .as_bytes(),
        );
        let reply = conn.read_reply();
        assert_eq!(reply.status, 400, "{why}: {}", reply.text());
        assert!(conn.closed(), "{why}: the connection stayed open");
    }
    // The same length twice is one length.
    let mut conn = f.connect();
    conn.send_raw(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/json\r\nMCP-Protocol-Version: {MODERN}\r\n\
             Mcp-Method: tools/list\r\nContent-Length: {n}\r\nContent-Length: {n}\r\n\r\n{body}"
        )
        .as_bytes(),
    );
    assert_eq!(conn.read_reply().status, 200);
}

#[test]
fn the_front_doors_own_strings_pass_the_exit_gate() {
    let tmp = tempfile::tempdir().unwrap();
    let audit = tmp.path().join("audit.log");
    let f = Front::start_with_audit_fd(
        &[("alice", &[("a", &[("a.rs", "fn alpha() {}\n")])])],
        &audit,
    );
    let secret = format!("{}{}", "gh", "p_u8Zq3LmN7pX2vR9tK4wY6bJ1cH5dF0gS8aQe");
    let huge = "m".repeat(3_000_000);
    // A 3 MB method, and a token in a method and in a tool name.
    for method in [huge.clone(), format!("x/{secret}\u{202e}")] {
        let reply = f.post(
            Some("alice"),
            &modern_headers("x", None),
            &json!({"jsonrpc": "2.0", "id": 1, "method": method,
                    "params": {"_meta": modern_meta()}}),
        );
        assert!(reply.body.len() < 60_000, "{}", reply.body.len());
        assert!(!reply.text().contains(&secret));
    }
    let reply = f.post(
        Some("alice"),
        &[
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "tree"),
        ],
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": format!("{secret}{huge}"), "arguments": {},
                           "_meta": modern_meta()}}),
    );
    // The header-mismatch error quotes an excerpt, not the 3 MB name.
    assert_eq!(reply.status, 400, "{:.300}", reply.text());
    assert!(reply.body.len() < 2_000, "{}", reply.body.len());
    assert!(!reply.text().contains(&secret));
    // The HTTP method token the client sent, long and with a secret in it.
    let mut conn = f.connect();
    conn.send_raw(
        format!(
            "{}{secret} /mcp HTTP/1.1\r\nHost: x\r\n\r\n",
            "P".repeat(8000)
        )
        .as_bytes(),
    );
    let _ = conn.read_reply();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let log = std::fs::read_to_string(&audit).unwrap();
    assert!(log.lines().count() >= 4, "{log:.500}");
    for line in log.lines() {
        assert!(line.len() < 4096, "an audit line of {} bytes", line.len());
        assert!(!line.contains(&secret), "{line:.300}");
        assert!(!line.contains('\u{202e}'), "{line:.300}");
    }
}
