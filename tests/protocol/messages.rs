//! gnaw-mcp's protocol surface, end to end over real pipes: both handshake eras and version
//! negotiation, tools/list schemas, malformed input of every kind (after each of which the
//! server must still answer a ping), notifications, ids, EOF, and startup configuration.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;

use common::mcp_client;

use mcp_client::{MODERN, Server, modern_meta, run};
use serde_json::{Value, json};
use std::time::Duration;
use tempfile::TempDir;

fn root() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("repo")).unwrap();
    std::fs::write(dir.path().join("repo/a.txt"), "hello\n").unwrap();
    dir
}

#[test]
fn legacy_handshake_negotiates_each_version() {
    let dir = root();
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut s = Server::start(dir.path(), &[]);
        let init = s.initialize(version);
        assert_eq!(init["protocolVersion"], version);
        assert_eq!(init["serverInfo"]["name"], "gnaw-mcp");
        assert!(init["capabilities"]["tools"].is_object());
        assert!(
            init.get("resultType").is_none(),
            "legacy results carry no resultType"
        );
        // notifications/initialized got no answer: the next message is the ping's.
        s.ping();
        s.finish_ok();
    }
}

#[test]
fn legacy_negotiation_falls_back_to_newest_legacy_version() {
    let dir = root();
    for asked in ["2099-01-01", "1.0", MODERN] {
        let mut s = Server::start(dir.path(), &[]);
        assert_eq!(
            s.initialize(asked)["protocolVersion"],
            "2025-11-25",
            "asked {asked}"
        );
    }
    let mut s = Server::start(dir.path(), &[]);
    let err = s.err("initialize", json!({ "capabilities": {} }));
    assert_eq!(err["code"], -32602);
    s.ping();
}

#[test]
fn ping_works_before_initialize() {
    let dir = root();
    let mut s = Server::start(dir.path(), &[]);
    s.ping();
    let (status, _) = s.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn modern_discover_and_tools_list() {
    let dir = root();
    let mut s = Server::start(dir.path(), &[]);
    let d = s.ok("server/discover", json!({ "_meta": modern_meta() }));
    assert_eq!(d["resultType"], "complete");
    assert!(
        d["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!(MODERN))
    );
    assert!(d["capabilities"]["tools"].is_object());
    assert!(d["ttlMs"].as_u64().is_some());
    assert!(matches!(
        d["cacheScope"].as_str(),
        Some("public" | "private")
    ));
    assert_eq!(
        d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "gnaw-mcp"
    );

    let list = s.ok("tools/list", json!({ "_meta": modern_meta() }));
    assert_eq!(list["resultType"], "complete");
    assert!(list["ttlMs"].as_u64().is_some());
    assert!(matches!(
        list["cacheScope"].as_str(),
        Some("public" | "private")
    ));
    // extract and estimate, the navigation tools, the git tools, then outline and symbol.
    assert_eq!(list["tools"].as_array().unwrap().len(), 11);
    // Modern requests need no initialize, and leave the legacy side untouched.
    s.ping();
}

#[test]
fn modern_version_and_meta_errors() {
    let dir = root();
    let mut s = Server::start(dir.path(), &[]);
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    for method in ["server/discover", "tools/list", "tools/call"] {
        let err = s.err(method, json!({ "_meta": meta }));
        assert_eq!(err["code"], -32022, "{method}");
        assert_eq!(err["data"]["requested"], "1900-01-01");
        assert!(
            err["data"]["supported"]
                .as_array()
                .unwrap()
                .contains(&json!(MODERN))
        );
        s.ping();
    }
    // Required per-request fields.
    let mut no_caps = modern_meta();
    no_caps
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    assert_eq!(
        s.err("tools/list", json!({ "_meta": no_caps }))["code"],
        -32602
    );
    let mut bad_version = modern_meta();
    bad_version["io.modelcontextprotocol/protocolVersion"] = json!(20260728);
    assert_eq!(
        s.err("tools/list", json!({ "_meta": bad_version }))["code"],
        -32602
    );
    // server/discover without the modern _meta is malformed, not silently answered.
    assert_eq!(s.err("server/discover", json!({}))["code"], -32602);
    // ping was removed in 2026-07-28.
    assert_eq!(
        s.err("ping", json!({ "_meta": modern_meta() }))["code"],
        -32601
    );
    s.ping();
}

fn check_tool_schemas(tools: &Value, with_annotations: bool, with_output: bool) {
    let tools = tools.as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "extract", "estimate", "tree", "grep", "search", "related", "read", "changes", "log",
            "outline", "symbol"
        ]
    );
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        );
        assert!(tool["description"].as_str().unwrap().len() > 100);
        let schema = &tool["inputSchema"];
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false);
        // `repo` defaults to the one root, so it is never required.
        let required = schema["required"].as_array().cloned().unwrap_or_default();
        assert!(!required.contains(&json!("repo")), "{name}: {required:?}");
        for key in ["oneOf", "anyOf", "allOf", "$ref", "$defs"] {
            assert!(schema.get(key).is_none(), "{name} has {key}");
        }
        let props = schema["properties"].as_object().unwrap();
        assert_eq!(props["repo"]["type"], "string");
        for list in ["include", "exclude"]
            .into_iter()
            .filter(|l| props.contains_key(*l))
        {
            assert_eq!(props[list]["type"], "array");
            assert_eq!(props[list]["items"]["type"], "string");
        }
        for prop in props.values() {
            assert!(prop["description"].as_str().unwrap().len() > 30);
        }
        if with_annotations {
            let a = &tool["annotations"];
            assert_eq!(a["readOnlyHint"], true);
            assert_eq!(a["openWorldHint"], false);
            // Meaningful only when readOnlyHint is false (the MCP schema): not sent.
            assert!(a.get("idempotentHint").is_none() && a.get("destructiveHint").is_none());
        } else {
            assert!(tool.get("annotations").is_none());
        }
        let out = tool.get("outputSchema");
        if with_output && name == "estimate" {
            let out = out.unwrap();
            assert_eq!(out["type"], "object");
            for key in ["tokens", "encoding", "files", "bytes", "skipped"] {
                assert!(
                    out["properties"].get(key).is_some(),
                    "outputSchema lacks {key}"
                );
            }
        } else if with_output && name != "extract" {
            // The navigation tools: an object schema with the exact count of their text.
            let out = out.unwrap();
            assert_eq!(out["type"], "object");
            assert!(out["properties"].get("answer_tokens").is_some(), "{name}");
        } else {
            assert!(out.is_none(), "{name} outputSchema");
        }
    }
}

#[test]
fn tools_list_schemas_per_revision() {
    let dir = root();
    for (version, annotations, output) in [
        ("2024-11-05", false, false),
        ("2025-03-26", true, false),
        ("2025-06-18", true, true),
        ("2025-11-25", true, true),
    ] {
        let mut s = Server::start(dir.path(), &[]);
        s.initialize(version);
        let list = s.ok("tools/list", json!({}));
        check_tool_schemas(&list["tools"], annotations, output);
    }
    let mut s = Server::start(dir.path(), &[]);
    let list = s.ok("tools/list", json!({ "_meta": modern_meta() }));
    check_tool_schemas(&list["tools"], true, true);
    // Missing params entirely is fine too.
    s.send(&json!({ "jsonrpc": "2.0", "id": "no-params", "method": "tools/list" }));
    let resp = s.response(&json!("no-params"));
    check_tool_schemas(&resp["result"]["tools"], true, true);
}

fn expect_error(s: &mut Server, raw: &[u8], code: i64, id: Value) {
    s.send_raw(raw);
    let msg = s.recv();
    assert_eq!(
        msg["error"]["code"],
        code,
        "for {:?}: {msg}",
        String::from_utf8_lossy(raw)
    );
    assert_eq!(msg["id"], id);
    s.ping();
}

#[test]
fn malformed_input_is_answered_and_survived() {
    let dir = root();
    let mut s = Server::start(dir.path(), &[]);
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_obj = format!("{}1{}", "{\"a\":".repeat(10_000), "}".repeat(10_000));
    // Each malformed line, in turn: the error it gets and the id that error carries.
    let cases: Vec<(&[u8], i64, Value)> = vec![
        (br#"garbage"#, -32700, Value::Null),
        (b"\xff\xfe\x00binary", -32700, Value::Null),
        (br#"{"jsonrpc":"2.0","id":1,"meth"#, -32700, Value::Null),
        (deep.as_bytes(), -32700, Value::Null),
        (deep_obj.as_bytes(), -32700, Value::Null),
        (
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            -32600,
            Value::Null,
        ),
        (br#"[]"#, -32600, Value::Null),
        (br#""just a string""#, -32600, Value::Null),
        (
            br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
        (
            br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#,
            -32600,
            json!(7),
        ),
        (br#"{"jsonrpc":"2.0","id":8,"method":42}"#, -32600, json!(8)),
        (br#"{"jsonrpc":"2.0","id":9}"#, -32600, json!(9)),
        (
            br#"{"jsonrpc":"2.0","id":10,"method":"nope/nothing"}"#,
            -32601,
            json!(10),
        ),
        (
            br#"{"jsonrpc":"2.0","id":11,"method":"tools/list","params":[1,2]}"#,
            -32602,
            json!(11),
        ),
    ];
    for (raw, code, id) in cases {
        expect_error(&mut s, &[raw, b"\n"].concat(), code, id);
    }
    // Blank lines and CRLF endings are tolerated.
    s.send_raw(b"\n\r\n   \n");
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"ping\"}\r\n");
    assert_eq!(s.recv()["id"], "crlf");
    let (status, _) = s.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn oversize_line_is_rejected_without_killing_the_server() {
    let dir = root();
    let mut s = Server::start(dir.path(), &[("GNAW_MCP_MAX_LINE_BYTES", "4096")]);
    // 8 MiB in one line, written in pieces: the server must discard it as it streams.
    let mut big = Vec::with_capacity(8 << 20);
    big.extend_from_slice(
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"",
    );
    big.resize(8 << 20, b'a');
    big.extend_from_slice(b"\"}}\n");
    for chunk in big.chunks(1 << 16) {
        s.send_raw(chunk);
    }
    let msg = s.recv();
    assert_eq!(msg["id"], Value::Null);
    assert_eq!(msg["error"]["code"], -32600);
    assert!(
        msg["error"]["message"]
            .as_str()
            .unwrap()
            .contains("GNAW_MCP_MAX_LINE_BYTES")
    );
    s.ping();
    // A line just under the cap still works.
    let pad = "p".repeat(3900);
    s.send(
        &json!({ "jsonrpc": "2.0", "id": "big-ok", "method": "ping", "params": { "pad": pad } }),
    );
    assert_eq!(s.recv()["id"], "big-ok");
}

#[test]
fn notifications_are_never_answered() {
    let dir = root();
    let mut s = Server::start(dir.path(), &[]);
    for note in [
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 99 } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/unknown", "params": { "x": 1 } }),
        json!({ "jsonrpc": "2.0", "method": "tools/list" }),
        json!({ "jsonrpc": "2.0", "method": "ping", "params": 5 }),
        // A response to a request we never sent.
        json!({ "jsonrpc": "2.0", "id": 5, "result": {} }),
    ] {
        s.send(&note);
    }
    assert!(s.recv_within(Duration::from_millis(500)).is_none());
    s.ping();
}

#[test]
fn ids_are_echoed_exactly() {
    let dir = root();
    let mut s = Server::start(dir.path(), &[]);
    for id in [
        json!(0),
        json!("0"),
        json!(-5),
        json!(""),
        json!("id with \"quotes\" ✓"),
        json!(9007199254740993u64),
    ] {
        s.send(&json!({ "jsonrpc": "2.0", "id": id, "method": "ping" }));
        let msg = s.recv();
        assert_eq!(msg["id"], id);
        assert_eq!(msg["result"], json!({}));
    }
    // Byte-level: `0` stays `0`, not `0.0` or `"0"`.
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}\n");
    let msg = s.recv();
    assert!(msg["id"].is_u64() && msg["id"] == 0);
}

#[test]
fn wrong_tool_calls_are_invalid_params() {
    let dir = root();
    let mut s = Server::start(dir.path(), &[]);
    s.initialize("2025-11-25");
    let cases = [
        json!({ "name": "nope", "arguments": { "repo": "repo" } }),
        json!({ "name": 5, "arguments": { "repo": "repo" } }),
        json!({ "arguments": { "repo": "repo" } }),
        json!({ "name": "extract", "arguments": { "repo": 5 } }),
        json!({ "name": "extract", "arguments": "repo" }),
        json!({ "name": "extract", "arguments": { "repo": "repo", "include": "src/**" } }),
        json!({ "name": "extract", "arguments": { "repo": "repo", "include": [1] } }),
        json!({ "name": "estimate", "arguments": { "repo": "repo", "exclude": {} } }),
        json!({ "name": "estimate", "arguments": { "repo": "repo", "verbose": true } }),
        json!({ "name": "estimate", "arguments": { "repo": "repo", "budget": -1 } }),
        json!({ "name": "estimate", "arguments": { "repo": "repo", "budget": "big" } }),
        json!({ "name": "estimate", "arguments": { "repo": "repo", "query": 7 } }),
        json!({ "name": "extract", "arguments": { "repo": "repo", "profile": ["a"] } }),
    ];
    for params in cases {
        let err = s.err("tools/call", params.clone());
        assert_eq!(err["code"], -32602, "{params}");
        s.ping();
    }
}

#[test]
fn eof_exits_zero_and_stdout_is_protocol_only() {
    let dir = root();
    let mut s = Server::start(dir.path(), &[]);
    s.initialize("2025-06-18");
    s.ok("tools/list", json!({}));
    let (status, stderr) = s.finish();
    assert_eq!(status.code(), Some(0));
    // Logs went to stderr.
    assert!(stderr.contains("sandbox"), "stderr: {stderr}");
}

#[test]
fn startup_configuration_errors_exit_2() {
    let dir = root();
    let missing = dir.path().join("does-not-exist");
    let (status, stdout, stderr) = run(&missing, &[], &[]);
    assert_eq!(status.code(), Some(2));
    assert!(stdout.is_empty());
    assert!(stderr.contains("GNAW_MCP_ROOT"), "{stderr}");

    let (status, _, stderr) = run(&dir.path().join("repo/a.txt"), &[], &[]);
    assert_eq!(status.code(), Some(2), "{stderr}");

    let (status, _, stderr) = run(std::path::Path::new("/"), &[], &[]);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("allow-filesystem-root"), "{stderr}");

    let (status, _, stderr) = run(dir.path(), &[], &[("GNAW_MCP_SANDBOX", "sometimes")]);
    assert_eq!(status.code(), Some(2), "{stderr}");

    let (status, _, stderr) = run(dir.path(), &[], &[("GNAW_MCP_MAX_OUTPUT_BYTES", "lots")]);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("GNAW_MCP_MAX_OUTPUT_BYTES"));

    let (status, _, _) = run(dir.path(), &["--bogus"], &[]);
    assert_eq!(status.code(), Some(2));
}

#[test]
fn help_version_and_sandbox_status() {
    let dir = root();
    let (status, stdout, _) = run(dir.path(), &["--version"], &[]);
    assert!(status.success());
    assert!(stdout.contains(env!("CARGO_PKG_VERSION")));
    let (status, stdout, _) = run(dir.path(), &["--help"], &[]);
    assert!(status.success());
    assert!(stdout.contains("GNAW_MCP_ROOT"));

    let (status, stdout, stderr) = run(dir.path(), &["--sandbox-status"], &[]);
    assert!(status.success(), "{stderr}");
    let json: Value = serde_json::from_str(stdout.trim()).expect("status is one JSON document");
    let canonical = dir.path().canonicalize().unwrap();
    assert_eq!(json["root"], canonical.to_str().unwrap());
    assert_eq!(json["mode"], "strict");
    // This kernel has Landlock ABI 7: strict mode means the ruleset is fully enforced.
    assert_eq!(json["ruleset"], "fully_enforced", "{json}");
}

/// Initialize as the client called `name` at `version`, then list the tools and read a file.
/// Returns whether any definition has an `outputSchema`, the read's whole result, and whether it
/// carried `structuredContent`.
fn as_client(env: &[(&str, &str)], version: &str, name: &str) -> (bool, Value) {
    let dir = root();
    let mut s = Server::start(dir.path(), env);
    s.ok(
        "initialize",
        json!({
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": { "name": name, "version": "2.1.300" },
        }),
    );
    s.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    let list = s.ok("tools/list", json!({}));
    let with_output = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t.get("outputSchema").is_some());
    let read = s.call("read", json!({"repo": "repo", "paths": ["a.txt"]}));
    let result = read["result"].clone();
    assert!(
        result["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("1 | hello")),
        "{read}"
    );
    s.finish();
    (with_output, result)
}

/// Claude Code shows the model only `structuredContent` when a result has both; gnaw's copies
/// hold an answer's facts, not its text. So, by default, a legacy client that says it is Claude
/// Code gets the text alone and no `outputSchema`, as a revision without them would; every
/// other client (and every modern request, whose `clientInfo` may not decide behaviour) gets
/// both; the operator's `GNAW_MCP_STRUCTURED` overrides either way.
#[test]
fn a_client_that_shows_only_the_structured_copy_gets_the_text() {
    for (env, name, structured) in [
        (vec![], "claude-code", false),
        (vec![], "Claude-Code", false),
        (vec![], "claude-code-wrapper", true),
        (vec![], "gnaw-tests", true),
        (vec![("GNAW_MCP_STRUCTURED", "on")], "claude-code", true),
        (vec![("GNAW_MCP_STRUCTURED", "off")], "gnaw-tests", false),
        (vec![("GNAW_MCP_STRUCTURED", "auto")], "claude-code", false),
    ] {
        let (with_output, result) = as_client(&env, "2025-06-18", name);
        assert_eq!(with_output, structured, "{env:?} {name}: outputSchema");
        assert_eq!(
            result.get("structuredContent").is_some(),
            structured,
            "{env:?} {name}: {result}"
        );
    }
    // An older revision never has them, whatever the client.
    let (with_output, result) = as_client(&[], "2025-03-26", "gnaw-tests");
    assert!(!with_output && result.get("structuredContent").is_none());

    // A modern request is answered by what it asks, not by who it says it is.
    let dir = root();
    let mut s = Server::start(dir.path(), &[]);
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/clientInfo"] = json!({ "name": "claude-code", "version": "1" });
    let read = s.request(
        "tools/call",
        json!({
            "name": "read",
            "arguments": {"repo": "repo", "paths": ["a.txt"]},
            "_meta": meta,
        }),
    );
    assert!(read["result"]["structuredContent"].is_object(), "{read}");
    s.finish();

    let (status, _, stderr) = run(dir.path(), &[], &[("GNAW_MCP_STRUCTURED", "sometimes")]);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("GNAW_MCP_STRUCTURED"), "{stderr}");
}
