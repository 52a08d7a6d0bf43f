//! Which tools a client sees (issue 23): `GNAW_MCP_TOOLS` chosen by the operator, narrowed (never
//! widened) by the root's `.gnawconfig`, through the spawned `gnaw-mcp`. `tools/list`,
//! `tools/call`, `server/discover` and the `instructions` agree: a tool that is off is absent,
//! and a call to it is refused with the setting that turned it off.

#![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

use crate::common;

use common::mcp_client;

use common::json::{fields, text};
use mcp_client::{Server, modern_meta, run};
use serde_json::{Value, json};
use std::fs;
use std::path::Path;

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.rs"), "fn alpha() {}\n").unwrap();
    dir
}

fn listed(server: &mut Server) -> Vec<String> {
    let list = server.ok("tools/list", json!({}));
    fields(&list["tools"], "name")
}

fn start(root: &Path, tools: Option<&str>) -> (Server, Value) {
    let env: Vec<(&str, &str)> = tools.map(|t| ("GNAW_MCP_TOOLS", t)).into_iter().collect();
    let mut server = Server::start(root, &env);
    let init = server.initialize("2025-11-25");
    (server, init)
}

const ALL: [&str; 11] = [
    "extract", "estimate", "tree", "grep", "search", "related", "read", "changes", "log",
    "outline", "symbol",
];

#[test]
fn every_tool_by_default() {
    let dir = repo();
    let (mut server, init) = start(dir.path(), None);
    assert_eq!(listed(&mut server), ALL);
    for name in ALL {
        assert!(
            init["instructions"]
                .as_str()
                .unwrap()
                .contains(&format!("`{name}`"))
        );
    }
}

#[test]
fn minimal_offers_four_tools_and_refuses_the_rest_by_setting() {
    let dir = repo();
    let (mut server, init) = start(dir.path(), Some("minimal"));
    assert_eq!(listed(&mut server), ["tree", "grep", "search", "read"]);
    let instructions = init["instructions"].as_str().unwrap();
    assert!(instructions.contains("`read`") && !instructions.contains("`extract`"));
    let ok = server.call("read", json!({ "repo": ".", "paths": ["a.rs"] }));
    assert!(text(&ok).contains("alpha"), "{ok}");
    let refused = server.call("extract", json!({ "repo": "." }));
    let err = &refused["error"];
    assert_eq!(err["code"], -32602, "{refused}");
    assert_eq!(err["data"]["kind"], "ToolDisabled");
    let message = err["message"].as_str().unwrap();
    assert!(message.contains("GNAW_MCP_TOOLS=\"minimal\""), "{message}");
    assert!(message.contains("read"), "{message}");
    // A name that is no tool at all is still told apart.
    let unknown = server.call("nosuch", json!({}));
    assert!(
        unknown["error"]["data"]
            .get("kind")
            .is_none_or(|k| k != "ToolDisabled")
    );
    server.ping();
}

#[test]
fn removals_start_from_every_tool() {
    let dir = repo();
    let (mut server, _) = start(dir.path(), Some("-changes,-log"));
    let names = listed(&mut server);
    assert_eq!(names.len(), 9);
    assert!(!names.iter().any(|n| n == "changes" || n == "log"));
    let (mut five, _) = start(dir.path(), Some("minimal, log"));
    assert_eq!(listed(&mut five).len(), 5);
}

#[test]
fn the_modern_era_lists_the_same_tools() {
    let dir = repo();
    let mut server = Server::start(dir.path(), &[("GNAW_MCP_TOOLS", "read grep")]);
    let discover = server.ok("server/discover", json!({ "_meta": modern_meta() }));
    let text = discover["instructions"].as_str().unwrap();
    assert!(
        text.contains("`grep`") && !text.contains("`tree`"),
        "{text}"
    );
    let list = server.ok("tools/list", json!({ "_meta": modern_meta() }));
    assert_eq!(fields(&list["tools"], "name"), ["grep", "read"]);
}

#[test]
fn a_repository_narrows_and_never_widens() {
    let dir = repo();
    fs::write(
        dir.path().join(".gnawconfig"),
        "tools = [\"all\", \"-grep\"]\n",
    )
    .unwrap();
    // The operator allows four; the repo asks for all but grep: three.
    let (mut server, _) = start(dir.path(), Some("minimal"));
    assert_eq!(listed(&mut server), ["tree", "search", "read"]);
    let refused = server.call("grep", json!({ "repo": ".", "pattern": "alpha" }));
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains(".gnawconfig"), "{message}");
    // A repo naming a tool the operator turned off does not bring it back.
    fs::write(
        dir.path().join(".gnawconfig"),
        "tools = [\"extract\", \"read\"]\n",
    )
    .unwrap();
    let (mut server, _) = start(dir.path(), Some("minimal"));
    assert_eq!(listed(&mut server), ["read"]);
    // And extraction over that repo still works: the CLI and every call ignore the key.
    let (mut server, _) = start(dir.path(), None);
    assert_eq!(listed(&mut server), ["extract", "read"]);
    let ex = server.call("extract", json!({ "repo": "." }));
    assert!(text(&ex).contains("alpha"), "{ex}");
}

#[test]
fn a_bad_selection_stops_the_server_with_what_to_do() {
    let dir = repo();
    for (spec, says) in [
        ("read,grepp", "unknown tool \"grepp\""),
        ("", "names no tool"),
        ("-all", "turns every tool off"),
    ] {
        let (status, stdout, stderr) = run(dir.path(), &[], &[("GNAW_MCP_TOOLS", spec)]);
        assert!(!status.success(), "{spec:?} was accepted");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(
            stderr.contains("GNAW_MCP_TOOLS") && stderr.contains(says),
            "{spec:?}: {stderr}"
        );
    }
}
