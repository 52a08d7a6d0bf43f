//! Lean tool definitions (issue 23): what `tools/list` costs a client on every turn, pinned so it
//! cannot creep back. Measured on the server's own bytes (compact JSON) in every protocol era;
//! the interop suite measures them again the way Python prints JSON and checks every schema with
//! a JSON Schema 2020-12 validator.

#![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

mod mcp_client;

use mcp_client::{Server, modern_meta};
use serde_json::{Value, json};

/// All tools' definitions together, in characters; the goal is 16,000 (measured with
/// Python's spaced separators, about 7% more than this compact form).
const MAX_LIST_CHARS: usize = 15_000;
/// One tool's definition.
const MAX_TOOL_CHARS: usize = 1_900;

fn chars(v: &Value) -> usize {
    serde_json::to_string(v).unwrap().chars().count()
}

fn check(list: &Value, era: &str) {
    let tools = list["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 10, "{era}");
    let total = chars(&list["tools"]);
    assert!(
        total <= MAX_LIST_CHARS,
        "{era}: tools/list is {total} characters"
    );
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        let size = chars(tool);
        assert!(size <= MAX_TOOL_CHARS, "{era}: {name} is {size} characters");
        // One or two sentences that say what it is for.
        let description = tool["description"].as_str().unwrap();
        assert!(description.len() <= 200, "{name}: {description}");
        for (arg, prop) in tool["inputSchema"]["properties"].as_object().unwrap() {
            let doc = prop["description"].as_str().unwrap();
            assert!(
                doc.len() <= 90 && !doc.contains('\n'),
                "{name}.{arg}: {doc}"
            );
        }
        // Output schemas carry names and types, no prose.
        if let Some(out) = tool.get("outputSchema") {
            assert!(!out.to_string().contains("\"description\""), "{name}");
            for (field, prop) in out["properties"].as_object().unwrap() {
                assert!(prop["type"].is_string(), "{name}.{field}");
            }
        }
    }
}

#[test]
fn every_era_lists_lean_definitions() {
    let dir = tempfile::tempdir().unwrap();
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut server = Server::start(dir.path(), &[]);
        server.initialize(version);
        let list = server.ok("tools/list", json!({}));
        check(&list, version);
    }
    let mut server = Server::start(dir.path(), &[]);
    let list = server.ok("tools/list", json!({ "_meta": modern_meta() }));
    check(&list, "2026-07-28");
}

#[test]
fn shared_arguments_are_described_once_and_alike() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &[]);
    server.initialize("2025-11-25");
    let list = server.ok("tools/list", json!({}));
    for arg in ["repo", "include", "exclude", "budget"] {
        let docs: std::collections::BTreeSet<&str> = list["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["inputSchema"]["properties"][arg]["description"].as_str())
            .collect();
        assert!(
            docs.len() == 1,
            "{arg} is described {} ways: {docs:?}",
            docs.len()
        );
    }
}
