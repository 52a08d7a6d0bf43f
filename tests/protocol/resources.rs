//! Resources, prompts and completions through the real server, in both eras: the roots' files as
//! `gnaw://ROOT/PATH` (template, list, read, the path completed), the prompts offered with the
//! tools they run, and the 2026-07-28 caching hints on every list and read. (Every hostile URI is
//! in tests/attack_corpus.rs.)

use crate::common;

use common::git::git;
use common::json::fields;
use common::mcp_client::{Server, modern_meta};
use serde_json::{Value, json};
use tempfile::TempDir;

/// A root `proj` holding a git repository `repo` with a working change to `src/util.rs`.
fn root() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    let repo = proj.join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(
        repo.join("src/main.rs"),
        "mod util;\nfn main() { util::hi(); }\n",
    )
    .unwrap();
    std::fs::write(repo.join("src/util.rs"), "pub fn hi() {}\n").unwrap();
    std::fs::write(repo.join("README.md"), "# Sample\n").unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "first"]);
    std::fs::write(repo.join("src/util.rs"), "pub fn hi() {}\n// changed\n").unwrap();
    dir
}

/// `params` with the 2026-07-28 `_meta`.
fn modern(mut params: Value) -> Value {
    params["_meta"] = modern_meta();
    params
}

#[test]
fn files_are_resources_in_both_eras() {
    let dir = root();
    let mut s = Server::start(&dir.path().join("proj"), &[]);
    let init = s.initialize("2025-11-25");
    for cap in ["tools", "resources", "prompts", "completions"] {
        assert!(init["capabilities"][cap].is_object(), "{cap}: {init}");
    }
    for era in ["legacy", "modern"] {
        let p = |params: Value| {
            if era == "modern" {
                modern(params)
            } else {
                params
            }
        };
        let templates = s.ok("resources/templates/list", p(json!({})));
        assert_eq!(
            templates["resourceTemplates"][0]["uriTemplate"],
            "gnaw://proj/{+path}"
        );
        let listed = s.ok("resources/list", p(json!({})));
        let uris = fields(&listed["resources"], "uri");
        assert!(
            uris.iter().any(|u| u == "gnaw://proj/repo/src/main.rs"),
            "{uris:?}"
        );
        let read = s.ok(
            "resources/read",
            p(json!({ "uri": "gnaw://proj/repo/src/main.rs" })),
        );
        assert_eq!(
            read["contents"][0]["text"],
            "mod util;\nfn main() { util::hi(); }\n"
        );
        assert_eq!(read["contents"][0]["uri"], "gnaw://proj/repo/src/main.rs");
        // The path completed from the index, prefix first.
        let done = s.ok(
            "completion/complete",
            p(json!({
                "ref": { "type": "ref/resource", "uri": "gnaw://proj/{+path}" },
                "argument": { "name": "path", "value": "repo/src/" },
            })),
        );
        let values = done["completion"]["values"].as_array().unwrap();
        assert_eq!(values.len(), 2, "{done}");
        assert_eq!(done["completion"]["total"], 2);
        assert_eq!(done["completion"]["hasMore"], false);
        // Caching hints at 2026-07-28 only.
        for (result, ttl, scope) in [
            (&templates, 3_600_000, "private"),
            (&listed, 0, "private"),
            (&read, 0, "private"),
        ] {
            if era == "modern" {
                assert_eq!(result["ttlMs"], ttl, "{result}");
                assert_eq!(result["cacheScope"], scope, "{result}");
                assert_eq!(result["resultType"], "complete");
            } else {
                assert!(result.get("ttlMs").is_none() && result.get("resultType").is_none());
            }
        }
    }
    // What typing may not do: more than 1,024 bytes, or a template of no root.
    let long = "a".repeat(1025);
    let e = s.err(
        "completion/complete",
        json!({ "ref": { "type": "ref/resource", "uri": "gnaw://proj/{+path}" },
                "argument": { "name": "path", "value": long } }),
    );
    assert_eq!(e["code"], -32602, "{e}");
    assert!(e["message"].as_str().unwrap().contains("1024"), "{e}");
    let e = s.err(
        "completion/complete",
        json!({ "ref": { "type": "ref/resource", "uri": "gnaw://other/{+path}" },
                "argument": { "name": "path", "value": "" } }),
    );
    assert_eq!(e["code"], -32602, "{e}");
    // A URI that names no resource: -32602 with the URI (SEP-2164).
    let e = s.err("resources/read", json!({ "uri": "test://nothing" }));
    assert_eq!(e["code"], -32602);
    assert_eq!(e["data"]["uri"], "test://nothing");
    s.ping();
}

#[test]
fn prompts_are_offered_with_their_tools() {
    let dir = root();
    let proj = dir.path().join("proj");
    // The default tools: review (changes, related), not explain (overview is opt-in).
    let mut s = Server::start(&proj, &[]);
    s.initialize("2025-11-25");
    let listed = s.ok("prompts/list", json!({}));
    assert_eq!(fields(&listed["prompts"], "name"), ["review"]);
    let review = s.ok(
        "prompts/get",
        json!({ "name": "review", "arguments": { "repo": "repo" } }),
    );
    let text = review["messages"].to_string();
    assert!(
        text.contains("src/util.rs") && text.contains("// changed"),
        "{text}"
    );
    assert!(text.contains("Files related to src/util.rs"), "{text}");
    let e = s.err("prompts/get", json!({ "name": "explain" }));
    assert_eq!(e["code"], -32602);
    let e = s.err(
        "prompts/get",
        json!({ "name": "review", "arguments": { "budget": "lots" } }),
    );
    assert_eq!(e["data"]["kind"], "InvalidArguments", "{e}");
    let e = s.err(
        "prompts/get",
        json!({ "name": "review", "arguments": { "nope": "x" } }),
    );
    assert!(e["message"].as_str().unwrap().contains("\"nope\""), "{e}");
    let bases = s.ok(
        "completion/complete",
        json!({ "ref": { "type": "ref/prompt", "name": "review" },
                "argument": { "name": "base", "value": "HEAD~" } }),
    );
    assert_eq!(
        bases["completion"]["values"],
        json!(["HEAD~1", "HEAD~2", "HEAD~3"])
    );
    s.finish();

    // All tools: explain too, with the overview map; at 2026-07-28 with its hints.
    let mut s = Server::start(&proj, &[("GNAW_MCP_TOOLS", "all")]);
    let listed = s.ok("prompts/list", modern(json!({})));
    assert_eq!(listed["prompts"].as_array().unwrap().len(), 2);
    assert_eq!(listed["ttlMs"], 3_600_000);
    assert_eq!(listed["cacheScope"], "public");
    let explain = s.ok(
        "prompts/get",
        modern(json!({ "name": "explain", "arguments": { "repo": "repo" } })),
    );
    assert!(explain["messages"].to_string().contains("main.rs"));
    s.finish();

    // No tool a prompt needs: no prompts, and no prompts capability.
    let mut s = Server::start(&proj, &[("GNAW_MCP_TOOLS", "minimal")]);
    let init = s.initialize("2025-11-25");
    assert!(init["capabilities"].get("prompts").is_none(), "{init}");
    assert_eq!(s.err("prompts/list", json!({}))["code"], -32601);
    s.finish();
}
