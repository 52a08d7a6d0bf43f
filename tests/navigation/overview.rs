//! `overview` (issue 36, item 1), through the real `gnaw-mcp` and the real `gnaw`: the map of a
//! small repository puts its manifest and program first and then its hub; the answer is within
//! its budget and grows with it; `offset` continues it with the next entries; a query moves the
//! ranking toward its files; include/exclude and `.gitignore` are honoured; a file name with
//! invisible characters is escaped and a secret in a signature redacted; a path outside the
//! root is refused; a budget too small is `BudgetTooSmall`; and the CLI prints the tool's bytes.

use crate::common;
use common::cli::gnaw;
use common::fixture::Tree;
use common::mcp_client::Server;
use serde_json::{Value, json};

/// A token the secrets scan finds (written in two pieces so no scanner flags this file).
fn ghp() -> String {
    format!("{}{}", "gh", "p_") + "u8Zq3LmN7pX2vR9tK4wY6bJ1cH5dF0gS8aQe"
}

/// `base/root/app`: a Rust crate whose `src/hub.rs` every other module imports and uses, a
/// `src/net.rs` only `src/client.rs` uses, a program, a test, docs, an ignored file, a file
/// whose name holds a right-to-left override, and a constant holding a token.
fn fixture() -> Tree {
    let t = Tree::new("root/app");
    t.write(
        "Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    t.write(
        "src/hub.rs",
        "/// The configuration.\npub struct HubConfig {\n    pub depth: usize,\n}\n\n\
         /// Parse it.\npub fn parse_config_text(text: &str) -> HubConfig {\n    \
         HubConfig { depth: text.len() }\n}\n",
    );
    for (name, extra) in [
        ("alpha", ""),
        ("beta", ""),
        ("gamma", ""),
        ("delta", ""),
        ("client", "use crate::net::retry_with_backoff;\n"),
    ] {
        t.write(
            &format!("src/{name}.rs"),
            format!(
                "use crate::hub::{{HubConfig, parse_config_text}};\n{extra}\n\
                 pub fn run_{name}(text: &str) -> HubConfig {{\n    parse_config_text(text)\n}}\n"
            ),
        );
    }
    t.write(
        "src/net.rs",
        "pub fn retry_with_backoff(attempts: u32) -> u32 {\n    attempts * 2\n}\n",
    );
    t.write(
        "src/lib.rs",
        "pub mod alpha;\npub mod beta;\npub mod client;\npub mod delta;\npub mod gamma;\n\
         pub mod hub;\npub mod keys;\npub mod net;\n",
    );
    t.write(
        "src/main.rs",
        "fn main() {\n    app::alpha::run_alpha(\"x\");\n}\n",
    );
    t.write(
        "src/keys.rs",
        format!("pub const GITHUB_TOKEN: &str = \"{}\";\n", ghp()),
    );
    t.write(
        "src/we\u{202e}ird.rs",
        "use crate::hub::HubConfig;\npub fn weird_one() -> usize {\n    0\n}\n",
    );
    t.write(
        "tests/it.rs",
        "use app::hub::parse_config_text;\n#[test]\nfn parses() {\n    parse_config_text(\"\");\n}\n",
    );
    t.write("docs/guide.md", "# Guide\n\nRead the hub first.\n");
    t.write(".gitignore", "ignored.rs\n");
    t.write(
        "ignored.rs",
        "pub fn ignored_everywhere() {}\n// parse_config_text HubConfig\n",
    );
    t
}

fn text(resp: &Value) -> String {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{resp}"))
        .to_string()
}

/// The map's files, in order, from an answer's structured copy.
fn mapped(resp: &Value) -> Vec<String> {
    resp["result"]["structuredContent"]["map"]
        .as_array()
        .unwrap_or_else(|| panic!("{resp}"))
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

fn server(t: &Tree) -> Server {
    // overview is opt-in: named, or with `all`.
    let mut s = Server::start(&t.base.join("root"), &[("GNAW_MCP_TOOLS", "all")]);
    s.initialize("2025-11-25");
    s
}

#[test]
fn the_map_puts_manifest_program_then_hub_first_within_the_budget() {
    let t = fixture();
    let mut s = server(&t);
    let resp = s.call("overview", json!({"repo": "app", "budget": 3000}));
    let out = text(&resp);
    let files = mapped(&resp);
    assert_eq!(files[0], "Cargo.toml", "{out}");
    assert_eq!(files[1], "src/main.rs", "{out}");
    assert_eq!(files[2], "src/hub.rs", "the hub first by rank: {out}");
    let sc = &resp["result"]["structuredContent"];
    assert_eq!(sc["map"][0]["role"], "manifest");
    assert_eq!(sc["map"][1]["role"], "bin app");
    // The hub's definitions, most used first, as one-line signatures with their lines.
    let hub = &sc["map"][2]["definitions"];
    assert_eq!(hub[0]["name"], "HubConfig", "{out}");
    assert!(
        out.contains("  2-4 pub struct HubConfig"),
        "a definition's line: {out}"
    );
    // The header: languages, tests, docs, entry points.
    assert!(out.starts_with("overview: "), "{out}");
    assert!(out.contains("rust "), "{out}");
    assert!(out.contains("tests: 1 file in tests (1)"), "{out}");
    assert!(out.contains("docs: 1 file in docs (1)"), "{out}");
    assert!(out.contains("src/main.rs (bin app)"), "{out}");
    assert!(out.contains("src/lib.rs (lib)"), "{out}");
    assert_eq!(sc["header"]["entry_points"][0]["manifest"], "Cargo.toml");
    // Docs are not mapped; the ignored file is nowhere.
    assert!(!files.iter().any(|f| f.ends_with(".md")), "{out}");
    assert!(!out.contains("ignored"), "{out}");
    assert_eq!(sc["complete"], true, "{out}");
    let tokens = sc["answer_tokens"].as_u64().unwrap();
    assert!(tokens > 0 && tokens <= 3000, "{tokens}");
    // The CLI prints the same bytes under the server's policy.
    let r = t.repo.to_str().unwrap();
    let cli = gnaw(&["overview", r, "--budget", "3000", "--secrets", "redact"]);
    assert!(cli.status.success(), "{cli:?}");
    assert_eq!(String::from_utf8(cli.stdout).unwrap(), out);
}

#[test]
fn budgets_are_exact_grow_the_map_and_continue_with_offset() {
    let t = fixture();
    let mut s = server(&t);
    let mut last = 0;
    let mut shown_before = 0;
    for budget in [150, 220, 320, 3000] {
        let resp = s.call("overview", json!({"repo": "app", "budget": budget}));
        let sc = &resp["result"]["structuredContent"];
        let tokens = sc["answer_tokens"]
            .as_u64()
            .unwrap_or_else(|| panic!("{resp}"));
        assert!(tokens <= budget, "{budget}: {tokens}");
        assert!(tokens >= last, "{budget}: grows ({last} then {tokens})");
        last = tokens;
        let defs: usize = sc["map"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["definitions"].as_array().unwrap().len().max(1))
            .sum();
        assert!(defs >= shown_before, "{budget}: more entries");
        shown_before = defs;
    }
    // A cut answer names the offset that continues it; the next page shows the entries after.
    let first = s.call("overview", json!({"repo": "app", "budget": 220}));
    let sc = &first["result"]["structuredContent"];
    assert_eq!(sc["complete"], false, "{first}");
    let offset = sc["offset"].as_u64().unwrap();
    assert!(offset > 0);
    let out = text(&first);
    assert!(
        out.ends_with(&format!(
            "Continue with the same arguments and: {{\"offset\":{offset}}}\n"
        )),
        "{out}"
    );
    let next = s.call(
        "overview",
        json!({"repo": "app", "budget": 3000, "offset": offset}),
    );
    let more = text(&next);
    assert!(
        more.starts_with(&format!(
            "overview (continued): the map from entry {}",
            offset + 1
        )),
        "{more}"
    );
    // Together the two pages show what one big page shows, each entry once.
    let whole = s.call("overview", json!({"repo": "app", "budget": 3000}));
    let count = |resp: &Value| -> usize {
        resp["result"]["structuredContent"]["map"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["definitions"].as_array().unwrap().len().max(1))
            .sum()
    };
    assert_eq!(count(&first) + count(&next), count(&whole), "{more}");
    assert_eq!(next["result"]["structuredContent"]["complete"], true);
    // Too small for the header: BudgetTooSmall.
    let resp = s.call("overview", json!({"repo": "app", "budget": 5}));
    assert_eq!(resp["result"]["isError"], true, "{resp}");
    assert_eq!(resp["result"]["_meta"]["gnaw/errorKind"], "BudgetTooSmall");
}

#[test]
fn a_query_moves_the_map_toward_its_files() {
    let t = fixture();
    let mut s = server(&t);
    let plain = mapped(&s.call("overview", json!({"repo": "app", "budget": 3000})));
    let resp = s.call(
        "overview",
        json!({"repo": "app", "budget": 3000, "query": "retry_with_backoff"}),
    );
    let around = mapped(&resp);
    let at = |list: &[String], p: &str| list.iter().position(|f| f == p).unwrap();
    assert!(
        at(&around, "src/net.rs") < at(&plain, "src/net.rs"),
        "{plain:?} {around:?}"
    );
    assert_eq!(around[0], "src/net.rs", "{around:?}");
    let out = text(&resp);
    assert!(
        out.contains("map around \"retry_with_backoff\" (its best files: src/net.rs"),
        "{out}"
    );
    let r = t.repo.to_str().unwrap();
    let cli = gnaw(&[
        "overview",
        r,
        "--budget",
        "3000",
        "--query",
        "retry_with_backoff",
        "--secrets",
        "redact",
    ]);
    assert_eq!(String::from_utf8(cli.stdout).unwrap(), out);
    // A query with no word to search for is refused.
    let resp = s.call("overview", json!({"repo": "app", "query": "!!"}));
    assert!(resp["error"].is_object(), "{resp}");
}

#[test]
fn globs_names_secrets_and_containment_hold() {
    let t = fixture();
    let mut s = server(&t);
    let resp = s.call(
        "overview",
        json!({"repo": "app", "budget": 3000, "exclude": ["src/hub.rs"]}),
    );
    let files = mapped(&resp);
    assert!(!files.contains(&"src/hub.rs".to_string()), "{files:?}");
    let resp = s.call(
        "overview",
        json!({"repo": "app", "budget": 3000, "include": ["src/net.rs", "src/client.rs"]}),
    );
    let files = mapped(&resp);
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(sorted, ["src/client.rs", "src/net.rs"], "{files:?}");
    // The whole map: the odd name escaped, the token redacted.
    let resp = s.call("overview", json!({"repo": "app", "budget": 0}));
    let out = text(&resp);
    assert!(out.contains("src/we\\u{202e}ird.rs"), "{out}");
    assert!(!out.contains('\u{202e}'), "{out}");
    assert!(
        out.contains("GITHUB_TOKEN: &str = \"[REDACTED:github-token]\""),
        "{out}"
    );
    assert!(!resp.to_string().contains(&ghp()), "{resp}");
    // A repo outside the root is refused.
    let resp = s.call("overview", json!({"repo": "../outside"}));
    assert!(
        resp["error"].is_object() || resp["result"]["isError"] == true,
        "{resp}"
    );
}
