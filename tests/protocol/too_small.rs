//! One "too small" for every tool (issue 37 item 1; the opt-in ones too): a token budget too
//! small for any answer is reported by every tool the same way docs/mcp.md says, an `isError`
//! result whose `_meta["gnaw/errorKind"]` is `BudgetTooSmall`, whose text names the budget; and a character
//! ceiling too small for any answer is the same kind, naming `max_chars`. Every navigation and
//! git tool is among them, and from the budget too small for its summary up to the one its
//! first item needs, every refusal is that one kind.

use crate::common::git::git;
use crate::common::mcp_client::{Server, required_arguments};
use serde_json::{Value, json};
use std::fs;

/// Arguments that make `tool` run: each required argument given a value that finds something.
fn arguments(schema: &Value, extra: Value) -> Value {
    required_arguments(schema, ".", "src/lib.rs", "parse_config", &extra)
}

#[test]
fn a_budget_too_small_is_one_kind_from_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let body: String = (0..40)
        .map(|i| format!("/// Parses part {i} of the config.\npub fn parse_config_{i}(text: &str) -> usize {{\n    text.len() + {i}\n}}\n\n"))
        .collect();
    fs::create_dir_all(repo.join("src")).unwrap();
    fs::write(
        repo.join("src/lib.rs"),
        format!("pub fn parse_config() {{}}\n{body}"),
    )
    .unwrap();
    fs::write(
        repo.join("src/main.rs"),
        "fn main() { gnaw::parse_config(); }\n",
    )
    .unwrap();
    git(repo, &["init", "-q"]);
    git(repo, &["add", "."]);
    git(
        repo,
        &[
            "commit",
            "-q",
            "-m",
            "parse_config: the first version of the parser",
        ],
    );
    fs::write(
        repo.join("src/lib.rs"),
        format!("pub fn parse_config() {{ 1; }}\n{body}"),
    )
    .unwrap();

    let mut server = Server::start(repo, &[("GNAW_MCP_TOOLS", "all")]);
    server.initialize("2025-11-25");
    let list = server.ok("tools/list", json!({}));
    let tools = list["tools"].as_array().unwrap();
    assert!(tools.len() >= 10);
    let mut checked = Vec::new();
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        let schema = &tool["inputSchema"];
        for (extra, names) in [
            (json!({ "budget": 1 }), "a budget of 1 tokens"),
            (json!({ "max_chars": 1 }), "max_chars"),
        ] {
            if schema["properties"]
                .get(extra.as_object().unwrap().keys().next().unwrap())
                .is_none()
            {
                continue;
            }
            let answer = server.call(name, arguments(schema, extra.clone()));
            let result = &answer["result"];
            assert_eq!(result["isError"], true, "{name} {extra}: {answer}");
            assert_eq!(
                result["_meta"]["gnaw/errorKind"], "BudgetTooSmall",
                "{name} {extra}: {answer}"
            );
            let text = result["content"][0]["text"].as_str().unwrap();
            assert!(
                text.contains("too small") || text.contains("did not fit"),
                "{name}: {text}"
            );
            assert!(text.contains(names), "{name} {extra}: {text}");
            checked.push(name.to_string());
        }
    }
    for tool in [
        "read", "grep", "search", "tree", "outline", "symbol", "related", "changes", "log",
        "hotspots", "overview",
    ] {
        assert_eq!(
            checked.iter().filter(|c| *c == tool).count(),
            2,
            "{tool} was not checked with both limits: {checked:?}"
        );
    }
}

/// From a budget too small for anything up to one the answer fits, a tool either answers or
/// refuses with `BudgetTooSmall`: too small for its summary, and too small for its first item
/// (a grep match, a search hit, a hunk, a commit, a definition) are one kind.
#[test]
fn every_budget_below_an_answer_is_refused_as_budget_too_small() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    // One long item first: a budget can fit the summary but not it.
    let long: String = (0..60).map(|i| format!("parse_config_{i}, ")).collect();
    let body = format!(
        "/// {long}\npub fn parse_config(first: usize, {long}) -> usize {{\n    first // parse_config\n}}\n"
    );
    fs::create_dir_all(repo.join("src")).unwrap();
    fs::write(repo.join("src/lib.rs"), &body).unwrap();
    git(repo, &["init", "-q"]);
    git(repo, &["add", "."]);
    git(
        repo,
        &["commit", "-q", "-m", &format!("parse_config: {long}")],
    );
    fs::write(repo.join("src/lib.rs"), format!("{body}// {long}\n")).unwrap();

    let mut server = Server::start(repo, &[("GNAW_MCP_TOOLS", "all")]);
    server.initialize("2025-11-25");
    let list = server.ok("tools/list", json!({}));
    for tool in list["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        let schema = &tool["inputSchema"];
        if schema["properties"].get("budget").is_none() {
            continue;
        }
        let mut refused = 0;
        let mut answered = false;
        for budget in [
            1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 4096,
        ] {
            let answer = server.call(name, arguments(schema, json!({ "budget": budget })));
            let result = &answer["result"];
            if result["isError"] == true {
                assert_eq!(
                    result["_meta"]["gnaw/errorKind"], "BudgetTooSmall",
                    "{name} at {budget}: {answer}"
                );
                let text = result["content"][0]["text"].as_str().unwrap();
                assert!(
                    text.contains(&format!("a budget of {budget} tokens")),
                    "{name} at {budget}: {text}"
                );
                refused += 1;
            } else {
                answered = true;
            }
        }
        assert!(refused > 0 && answered, "{name}: {refused} refused");
    }
}
