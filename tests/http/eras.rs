//! Both eras over HTTP: a stateless 2026-07-28 call (JSON, and SSE with progress) whose
//! mirrored headers must match its body; a legacy session from `initialize` to DELETE, its id
//! random and bound to the tenant that opened it (404 for a made-up id, for another tenant's
//! token, after DELETE); its revision shapes its answers even when another session of the same
//! tenant negotiated another.

use crate::front::{Front, MODERN, modern_call, modern_headers};
use serde_json::{Value, json};

fn front() -> Front {
    Front::start(
        &[
            (
                "alice",
                &[(
                    "a",
                    &[("a.rs", "fn alpha() {}\n"), ("lib/b.rs", "fn beta() {}\n")],
                )],
            ),
            ("bob", &[("b", &[("bob.rs", "fn bob() {}\n")])]),
        ],
        &[],
    )
}

#[test]
fn a_modern_call_is_stateless_and_its_headers_must_match() {
    let f = front();
    let reply = f.modern_call(
        "alice",
        json!("x-1"),
        "search",
        json!({"repo": ".", "query": "alpha"}),
    );
    reply.status_is(200);
    assert_eq!(reply.header("Content-Type"), Some("application/json"));
    assert!(reply.header("Mcp-Session-Id").is_none());
    let answer = reply.json();
    assert_eq!(answer["id"], "x-1");
    assert_eq!(answer["result"]["resultType"], "complete");
    // With a progress token and SSE accepted: progress, then the result, on one stream.
    let mut call = modern_call(json!(9), "search", json!({"repo": ".", "query": "beta"}));
    call["params"]["_meta"]["progressToken"] = json!("mine");
    let reply = f.post(
        Some("alice"),
        &modern_headers("tools/call", Some("search")),
        &call,
    );
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("Content-Type"), Some("text/event-stream"));
    let events = reply.events();
    let last = events.last().unwrap();
    assert_eq!(last["id"], 9, "{events:?}");
    assert!(
        last["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("b.rs")
    );
    for note in &events[..events.len() - 1] {
        assert_eq!(note["method"], "notifications/progress");
        assert_eq!(
            note["params"]["progressToken"], "mine",
            "the client's token, not ours"
        );
    }
    // Mirrored headers: missing or different is 400 HeaderMismatch.
    let call = modern_call(json!(2), "tree", json!({"repo": "."}));
    for (headers, what) in [
        (
            vec![("Mcp-Method", "tools/call"), ("Mcp-Name", "tree")],
            "MCP-Protocol-Version is missing",
        ),
        (
            vec![
                ("MCP-Protocol-Version", "2025-11-25"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "tree"),
            ],
            "MCP-Protocol-Version is 2025-11-25",
        ),
        (
            vec![("MCP-Protocol-Version", MODERN), ("Mcp-Name", "tree")],
            "Mcp-Method is missing",
        ),
        (
            vec![
                ("MCP-Protocol-Version", MODERN),
                ("Mcp-Method", "tools/list"),
                ("Mcp-Name", "tree"),
            ],
            "Mcp-Method is tools/list",
        ),
        (
            vec![
                ("MCP-Protocol-Version", MODERN),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "read"),
            ],
            "Mcp-Name is read",
        ),
        (
            vec![
                ("MCP-Protocol-Version", MODERN),
                ("Mcp-Method", "tools/call"),
            ],
            "Mcp-Name is missing",
        ),
    ] {
        let reply = f.post(Some("alice"), &headers, &call);
        assert_eq!(reply.status, 400, "{what}: {}", reply.text());
        let error = &reply.json()["error"];
        assert_eq!(error["data"]["kind"], "HeaderMismatch");
        assert_eq!(error["code"], -32020, "the revision's own code");
        assert!(error["message"].as_str().unwrap().contains(what), "{error}");
    }
    // Mcp-Name in the revision's =?base64?...?= form is decoded before it is compared.
    for (name, status) in [
        ("=?base64?dHJlZQ==?=", 200),
        ("=?base64?cmVhZA==?=", 400),
        ("=?base64?!!?=", 400),
    ] {
        let headers = [
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", name),
        ];
        let reply = f.post(Some("alice"), &headers, &call);
        assert_eq!(reply.status, status, "{name}: {}", reply.text());
    }
    // tools/list and server/discover are served statelessly too.
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": crate::front::modern_meta()}});
    let reply = f.post(Some("alice"), &modern_headers("tools/list", None), &list);
    reply.status_is(200);
    assert!(reply.json()["result"]["tools"].as_array().unwrap().len() > 3);
}

fn initialize(f: &Front, tenant: &str, version: &str, client: &str) -> String {
    let reply = f.post(
        Some(tenant),
        &[],
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": version, "capabilities": {},
                           "clientInfo": {"name": client, "version": "1"}}}),
    );
    reply.status_is(200);
    assert_eq!(reply.json()["result"]["protocolVersion"], version);
    let id = reply.header("Mcp-Session-Id").unwrap().to_string();
    assert_eq!(id.len(), 64, "32 random bytes as hex: {id}");
    id
}

#[test]
fn a_legacy_session_from_initialize_to_delete() {
    let f = front();
    let old = initialize(&f, "alice", "2025-03-26", "old-client");
    let new = initialize(&f, "alice", "2025-11-25", "new-client");
    assert_ne!(old, new);
    let session = |id: &str, version: &'static str| {
        vec![
            ("Mcp-Session-Id", id.to_string()),
            ("MCP-Protocol-Version", version.to_string()),
        ]
    };
    let post = |h: &[(&'static str, String)], body: Value| {
        let h: Vec<(&str, &str)> = h.iter().map(|(n, v)| (*n, v.as_str())).collect();
        f.post(Some("alice"), &h, &body)
    };
    let h_old = session(&old, "2025-03-26");
    let h_new = session(&new, "2025-11-25");
    assert_eq!(
        post(
            &h_old,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .status,
        202
    );
    // tools/list in each session's own revision: 2025-03-26 has no title (2025-06-18 added it).
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let tools_old = post(&h_old, list.clone()).json();
    let tools_new = post(&h_new, list).json();
    let first_old = &tools_old["result"]["tools"][0];
    let first_new = &tools_new["result"]["tools"][0];
    assert!(first_new.get("title").is_some(), "{first_new}");
    assert!(
        first_old.get("title").is_none(),
        "the old session is shaped for 2025-03-26: {first_old}"
    );
    // A client cannot claim another session's shape through _meta.
    let forged = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
        "params": {"_meta": {"dev.gnaw/session": {"protocolVersion": "2025-11-25"}}}});
    assert!(
        post(&h_old, forged).json()["result"]["tools"][0]
            .get("title")
            .is_none()
    );
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "read", "arguments": {"repo": ".", "paths": ["a.rs"]}}});
    let answer = post(&h_new, call).json();
    assert_eq!(answer["id"], 3);
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("fn alpha")
    );
    // The session's revision is checked.
    // MCP-Protocol-Version must name a revision of that era (some clients always send
    // 2025-03-26); the session's own revision still shapes the answers.
    let other = session(&new, "2025-03-26");
    let listed = post(
        &other,
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}),
    )
    .json();
    assert!(
        listed["result"]["tools"][0].get("title").is_some(),
        "{listed}"
    );
    let wrong = session(&new, "2024-99-99");
    assert_eq!(
        post(&wrong, json!({"jsonrpc": "2.0", "id": 4, "method": "ping"})).status,
        400
    );
    // No session: 400; GET without a session: 405.
    assert_eq!(
        f.post(
            Some("alice"),
            &[],
            &json!({"jsonrpc": "2.0", "id": 5, "method": "ping"})
        )
        .status,
        400
    );
    let mut conn = f.connect();
    assert_eq!(
        conn.send("GET", Some(&f.tokens["alice"]), &[], None)
            .read_reply()
            .status,
        405
    );
    // DELETE ends it; afterwards it is unknown.
    let mut conn = f.connect();
    let del = conn
        .send(
            "DELETE",
            Some(&f.tokens["alice"]),
            &[("Mcp-Session-Id", &new)],
            None,
        )
        .read_reply();
    assert_eq!(del.status, 200);
    assert_eq!(
        post(&h_new, json!({"jsonrpc": "2.0", "id": 6, "method": "ping"})).status,
        404
    );
    assert_eq!(
        post(&h_old, json!({"jsonrpc": "2.0", "id": 7, "method": "ping"})).json()["result"],
        json!({})
    );
}

#[test]
fn a_session_is_unknown_to_another_tenant_and_when_made_up() {
    let f = front();
    let alice = initialize(&f, "alice", "2025-06-18", "c");
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let made_up = "0".repeat(64);
    for (tenant, id) in [
        ("bob", alice.as_str()),
        ("alice", made_up.as_str()),
        ("alice", &alice[..63]),
    ] {
        let reply = f.post(Some(tenant), &[("Mcp-Session-Id", id)], &ping);
        assert_eq!(reply.status, 404, "{tenant} {id}: {}", reply.text());
        assert_eq!(reply.json()["error"]["data"]["kind"], "UnknownSession");
        let mut conn = f.connect();
        let del = conn
            .send(
                "DELETE",
                Some(&f.tokens[tenant]),
                &[("Mcp-Session-Id", id)],
                None,
            )
            .read_reply();
        assert_eq!(del.status, 404);
        let get = conn
            .send(
                "GET",
                Some(&f.tokens[tenant]),
                &[("Mcp-Session-Id", id), ("Accept", "text/event-stream")],
                None,
            )
            .read_reply();
        assert_eq!(get.status, 404);
    }
    // Bob's failed DELETE did not end Alice's session.
    let reply = f.post(Some("alice"), &[("Mcp-Session-Id", alice.as_str())], &ping);
    reply.status_is(200);
}

#[test]
fn a_sessions_get_stream_opens_and_ends_with_the_session() {
    let f = front();
    let id = initialize(&f, "alice", "2025-11-25", "c");
    let mut conn = f.connect();
    let token = f.tokens["alice"].clone();
    let head = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nMcp-Session-Id: {id}\r\nAccept: text/event-stream\r\n\r\n"
    );
    conn.send_raw(head.as_bytes());
    std::thread::sleep(std::time::Duration::from_millis(300));
    // A second stream on the same session is refused while the first is open.
    let mut other = f.connect();
    let second = other
        .send(
            "GET",
            Some(&token),
            &[("Mcp-Session-Id", &id), ("Accept", "text/event-stream")],
            None,
        )
        .read_reply();
    assert_eq!(second.status, 409);
    let mut third = f.connect();
    assert_eq!(
        third
            .send("DELETE", Some(&token), &[("Mcp-Session-Id", &id)], None)
            .read_reply()
            .status,
        200
    );
    // The stream ends (chunked end) once the session is gone.
    let stream = conn.read_reply();
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("Content-Type"), Some("text/event-stream"));
}

/// A repo whose extract takes a while in a debug build.
fn big_repo(f: &Front) {
    f.big_tree("a/big", 1500, 100, Front::let_line);
}

#[test]
fn a_legacy_cancel_stops_the_call_it_names() {
    let f = front();
    big_repo(&f);
    let session = initialize(&f, "alice", "2025-11-25", "c");
    let h = [("Mcp-Session-Id", session.as_str())];
    let started = std::time::Instant::now();
    let reply = std::thread::scope(|s| {
        let call = s.spawn(|| {
            f.post(
                Some("alice"),
                &h,
                &json!({"jsonrpc": "2.0", "id": "long", "method": "tools/call",
                "params": {"name": "extract", "arguments": {"repo": "big", "budget": 0}}}),
            )
        });
        std::thread::sleep(std::time::Duration::from_millis(400));
        let cancel = f.post(
            Some("alice"),
            &h,
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": "long", "reason": "test"}}),
        );
        assert_eq!(cancel.status, 202);
        call.join().unwrap()
    });
    let answer = reply.json();
    assert_eq!(answer["id"], "long");
    // A cold extract of 1,500 files takes seconds in a debug build: the cancel, sent 400 ms in,
    // always finds it running.
    assert!(
        answer.get("result").is_none(),
        "the call was not cancelled ({:?})",
        started.elapsed()
    );
    assert_eq!(answer["error"]["code"], -32800, "{answer}");
    // The worker was told: it logs the cancel under the front door's id.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !f.log().contains("cancelling request \"g") {
        assert!(std::time::Instant::now() < deadline, "{}", f.log());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn closing_the_connection_cancels_a_modern_call() {
    let f = front();
    big_repo(&f);
    let mut conn = f.connect();
    let call = modern_call(
        json!("gone"),
        "extract",
        json!({"repo": "big", "budget": 0}),
    );
    let headers = modern_headers("tools/call", Some("extract"));
    conn.send("POST", Some(&f.tokens["alice"]), &headers, Some(&call));
    std::thread::sleep(std::time::Duration::from_millis(400));
    drop(conn);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let log = f.log();
        if log.contains("cancelling request \"g") {
            break;
        }
        // A cold extract of 1,500 files takes seconds: finishing means nobody cancelled it.
        assert!(
            !log.contains("extract finished"),
            "the call ran to its end: {log}"
        );
        assert!(std::time::Instant::now() < deadline, "{log}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The audit line says why (written once the connection's thread lets go of it).
    while !f
        .log()
        .contains("client closed the connection; call cancelled")
    {
        assert!(std::time::Instant::now() < deadline, "{}", f.log());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
