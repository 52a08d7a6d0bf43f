//! One exactness test for every navigation tool (issue 25 item 3), through the real server:
//! for each tool and each budget, every page of the answer costs exactly the tokens it reports
//! (`answer_tokens`, counted again here) and no more than the budget; a page that is cut ends
//! with a continuation, and following the continuations, as given, reaches an answer that is
//! complete in a bounded number of pages, each different from the one before. A budget too
//! small for the next item is refused, saying so and naming the budget. The tools are taken from `tools/list`, so a new
//! navigation tool fails here until it has a call below.

use crate::common;

use common::fixture::Tree;
use common::git::git_at;
use common::json;
use common::mcp_client::Server;
use gnaw::stages::count::{Encoding, count};
use serde_json::{Value, json};

/// Budgets from a few lines' worth to a few pages.
const BUDGETS: &[u64] = &[150, 400, 1_200, 5_000];

/// The most pages a continued answer may take at the smallest budget.
const MAX_PAGES: usize = 400;

/// The calls, by tool: each asks for more than the smallest budget holds.
fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("tree", json!({})),
        ("grep", json!({"pattern": "parse"})),
        ("search", json!({"query": "parse token"})),
        ("read", json!({"paths": ["src/m00.rs", "src/m01.rs"]})),
        ("outline", json!({"paths": ["src/m00.rs", "src/m01.rs"]})),
        ("symbol", json!({"name": "parse_token_3"})),
        ("related", json!({"path": "src/m00.rs"})),
        ("changes", json!({"base": "HEAD~3"})),
        ("log", json!({})),
    ]
}

/// Twenty Rust files that use each other, committed over twelve commits, some edited since.
fn repo() -> Tree {
    let t = Tree::new("repo");
    let file = |i: usize, extra: &str| {
        let mut s = format!("//! Module {i}: parsing of tokens, part {i}.\n");
        s.push_str(&format!(
            "use crate::m{:02}::parse_token_{};\n\n",
            (i + 1) % 20,
            (i + 1) % 20
        ));
        for j in 0..12 {
            s.push_str(&format!(
                "/// Parse token {j} of module {i}.\npub fn parse_token_{}(input: &str) -> usize {{\n    input.len() + {j} // {}\n}}\n\n",
                if j == 0 { i.to_string() } else { format!("{i}_{j}") },
                // Edits touch two functions a file: hunks of a few lines.
                if j == 3 || j == 9 { extra } else { "same" }
            ));
        }
        s
    };
    for i in 0..20 {
        t.write(&format!("src/m{i:02}.rs"), file(i, "first"));
    }
    git_at(&t.repo, 0, &["init", "-q"]);
    git_at(&t.repo, 0, &["add", "-A"]);
    git_at(&t.repo, 0, &["commit", "-q", "-m", "first"]);
    for c in 1..12 {
        for i in (c % 4..20).step_by(4) {
            t.write(&format!("src/m{i:02}.rs"), file(i, &format!("commit {c}")));
        }
        git_at(&t.repo, c as u64, &["add", "-A"]);
        git_at(
            &t.repo,
            c as u64,
            &[
                "commit",
                "-q",
                "-m",
                &format!("commit {c}: parse more tokens"),
            ],
        );
    }
    for i in 0..5 {
        t.write(&format!("src/m{i:02}.rs"), file(i, "edited"));
    }
    t
}

#[test]
fn every_tool_fits_every_budget_exactly_and_its_continuations_end() {
    let t = repo();
    let mut s = Server::start(&t.base, &[]);
    s.initialize("2025-06-18");
    let listed = s.ok("tools/list", json!({}));
    let mut names = json::strings(&listed["tools"], "name");
    names.retain(|n| !["extract", "estimate"].contains(n));
    let calls = calls();
    let mut ours: Vec<&str> = calls.iter().map(|(t, _)| *t).collect();
    names.sort_unstable();
    ours.sort_unstable();
    assert_eq!(names, ours, "every navigation tool has a call here");
    for (tool, args) in &calls {
        let mut was_cut = false;
        for &budget in BUDGETS {
            let mut args = args.clone();
            args["repo"] = json!("repo");
            args["budget"] = json!(budget);
            let mut previous = String::new();
            let mut pages = 0;
            loop {
                let what = format!("{tool} budget {budget} page {pages}");
                let result = s.call(tool, args.clone())["result"].clone();
                let text = json::texts(&result);
                if result["isError"] == json!(true) {
                    // Refused only for a budget smaller than the next item, saying so (a
                    // commit of many files in `log` at the smallest budget); the largest
                    // budget holds every item here.
                    assert!(
                        budget < BUDGETS[BUDGETS.len() - 1]
                            && text.contains("too small")
                            && text.contains(&format!("budget of {budget} tokens")),
                        "{what}: {text}"
                    );
                    break;
                }
                let tokens = count(Encoding::O200kBase, &text) as u64;
                let reported = result["structuredContent"]["answer_tokens"].as_u64();
                assert_eq!(reported, Some(tokens), "{what}: reported count");
                assert!(tokens <= budget, "{what}: {tokens} > {budget}");
                assert_ne!(
                    text, previous,
                    "{what}: a continuation that does not move on"
                );
                pages += 1;
                assert!(pages <= MAX_PAGES, "{what}: more than {MAX_PAGES} pages");
                let Some(next) = json::continuation(&text) else {
                    // Incomplete with no continuation only where nothing can be named: the
                    // answer then says how to see more.
                    if result["structuredContent"].get("complete") == Some(&json!(false)) {
                        assert!(
                            text.contains("narrow with include/exclude")
                                || text.contains("Narrow with include/exclude"),
                            "{what}: incomplete, and no way on: {text}"
                        );
                    }
                    break;
                };
                was_cut = true;
                if let Some(done) = result["structuredContent"].get("complete") {
                    assert_eq!(done, &json!(false), "{what}: complete, with a continuation");
                }
                for (k, v) in next.as_object().unwrap() {
                    args[k] = v.clone();
                }
                previous = text;
            }
        }
        // Tools that continue were made to: the smallest budgets cannot hold these answers.
        if !["symbol", "related"].contains(tool) {
            assert!(
                was_cut,
                "{tool} was never cut, so its continuation went untested"
            );
        }
    }
    s.finish();
}
