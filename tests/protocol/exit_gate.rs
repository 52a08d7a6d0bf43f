//! The exit gate (issue 39 items 1 and 2), through the real server: a secret the repository
//! holds in a `.gnawconfig` key, value, profile name or glob, in a directory's name that a bound's
//! error or a title quotes, never leaves the server, from any tool, in any error or title; a
//! `.gnawconfig` value of 750 KB makes an error of an excerpt, not of the value; and every answer
//! (errors, `extract` and `estimate` included) fits its ceiling as sent, measured on the encoded
//! JSON, when the text is made of quotes and backslashes.

use crate::common::mcp_client::{Server, required_arguments};
use serde_json::{Value, json};
use std::fs;
use std::path::Path;

/// A GitHub token the secret rules know (spelled in two parts so no scanner flags this file).
fn token() -> String {
    format!("{}{}", "gh", "p_u8Zq3LmN7pX2vR9tK4wY6bJ1cH5dF0gS8aQe")
}

fn put(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Arguments that make `tool` run on `repo`.
fn arguments(schema: &Value, repo: &str, extra: &Value) -> Value {
    required_arguments(schema, repo, "a.txt", "alpha", extra)
}

/// Every tool the server offers, with its input schema.
fn tools(server: &mut Server) -> Vec<(String, Value)> {
    let list = server.ok("tools/list", json!({}));
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["inputSchema"].clone(),
            )
        })
        .collect()
}

#[test]
fn no_error_or_title_shows_a_secret_from_the_repository() {
    let t = token();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Each repo's .gnawconfig quotes the token where an error will name it.
    let configs = [
        ("key", format!("{t} = 1\n")),
        ("value", format!("format = \"{t}\"\n")),
        ("number_value", format!("budget = \"{t}\"\n")),
        ("list_value", format!("include = [1, \"{t}\"]\n")),
        ("profile_key", format!("[profiles.{t}]\nbudgett = 5\n")),
        (
            "profile_value",
            format!("[profiles.{t}]\nformat = \"xml-{t}\"\n"),
        ),
        ("profile_list", format!("[profiles.{t}]\nbudget = 100\n")),
        ("secrets_key", format!("[secrets]\n{t} = true\n")),
        ("glob", format!("include = [\"{t}[\"]\n")),
        ("exclude_glob", format!("exclude = [\"src/{{{t}\"]\n")),
        ("toml", format!("format = {t}\n")),
    ];
    for (name, config) in &configs {
        put(&root.join(name).join(".gnawconfig"), config);
        put(&root.join(name).join("a.txt"), "alpha beta\n");
    }
    // A directory named after the token: a bound's error names it, and reached through a link
    // it would title extract's prompt.
    let secret_dir = root.join(format!("d_{t}"));
    put(&secret_dir.join("a.txt"), "alpha\n");
    put(
        &secret_dir.join("big.txt"),
        &"alpha beta gamma\n".repeat(4096),
    );
    std::os::unix::fs::symlink(&secret_dir, root.join("linked")).unwrap();

    let mut server = Server::start(root, &[("GNAW_MCP_MAX_FILE_SIZE", "1KiB")]);
    server.initialize("2025-11-25");
    let tools = tools(&mut server);
    assert!(tools.len() >= 10, "{tools:?}");
    let mut answers: Vec<(String, Value)> = Vec::new();
    let mut errors = 0;
    let mut ask = |server: &mut Server, what: String, tool: &str, args: Value| {
        let answer = server.call(tool, args);
        let failed = answer.get("error").is_some() || answer["result"]["isError"] == true;
        if failed {
            errors += 1;
        }
        answers.push((what, answer));
    };
    for (name, _) in &configs {
        for (tool, schema) in &tools {
            let args = arguments(schema, name, &json!({}));
            ask(&mut server, format!("{tool} on {name}"), tool, args);
        }
    }
    // The profile list: asked for one that is not there.
    for tool in ["extract", "estimate"] {
        let args = json!({ "repo": "profile_list", "profile": "missing" });
        ask(
            &mut server,
            format!("{tool} with a missing profile"),
            tool,
            args,
        );
    }
    // Through the link: every tool, and extract's title; read of a file over the size bound.
    for (tool, schema) in &tools {
        let args = arguments(schema, "linked", &json!({}));
        ask(&mut server, format!("{tool} through the link"), tool, args);
    }
    let big = json!({ "repo": ".", "path": format!("d_{t}/big.txt") });
    ask(
        &mut server,
        "read of a file over the bound".into(),
        "read",
        big,
    );
    let missing = json!({ "repo": ".", "path": format!("d_{t}/missing.txt") });
    ask(
        &mut server,
        "read of a missing file".into(),
        "read",
        missing,
    );

    for (what, answer) in &answers {
        let sent = answer.to_string();
        assert!(!sent.contains(&t), "{what} shows the secret: {sent}");
    }
    // The calls did fail where the secret sits, and say so (redacted, not silent).
    assert!(errors >= configs.len() * 2, "only {errors} errors");
    let shown = answers
        .iter()
        .filter(|(_, a)| a.to_string().contains("[REDACTED:github-token]"))
        .count();
    assert!(
        shown >= configs.len(),
        "only {shown} answers show the marker"
    );
    let extract = &answers
        .iter()
        .find(|(what, _)| what == "extract through the link")
        .unwrap()
        .1;
    let title = extract["result"]["content"][0]["text"].as_str().unwrap();
    let first_line = title.lines().next().unwrap_or_default();
    assert!(
        first_line.starts_with("# ") && first_line.contains("d_[REDACTED:github-token]"),
        "{first_line}"
    );
}

#[test]
fn an_error_quotes_an_excerpt_and_fits_its_ceiling() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let huge = "q".repeat(750_000);
    put(
        &root.join("big/.gnawconfig"),
        &format!("format = \"{huge}\"\n"),
    );
    put(&root.join("big/a.txt"), "alpha\n");
    put(&root.join("key/.gnawconfig"), &format!("{huge} = 1\n"));
    put(&root.join("key/a.txt"), "alpha\n");
    let mut server = Server::start(root, &[]);
    server.initialize("2025-11-25");
    let tools = tools(&mut server);
    for repo in ["big", "key"] {
        for (tool, schema) in &tools {
            let answer = server.call(tool, arguments(schema, repo, &json!({})));
            let sent = answer.to_string();
            assert!(
                sent.chars().count() <= 50_000,
                "{tool} on {repo}: {} characters",
                sent.chars().count()
            );
            assert!(!sent.contains(&"q".repeat(200)), "{tool} on {repo}: {sent}");
            let failed = answer.get("error").is_some() || answer["result"]["isError"] == true;
            assert!(failed, "{tool} on {repo} did not fail: {sent}");
        }
    }
}

#[test]
fn extract_and_estimate_fit_their_ceiling_as_sent() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Text and names of quotes and backslashes: each takes two characters once encoded.
    let dense = "\"\\\"\\\"\\".repeat(400);
    for i in 0..200 {
        let name = format!("q\"\\{i}\"\\\"{}.txt", "\\\"".repeat(20));
        put(&root.join("r").join(name), &format!("{dense}\n"));
    }
    let mut server = Server::start(root, &[]);
    server.initialize("2025-11-25");
    for (tool, extra) in [
        ("extract", json!({})),
        ("estimate", json!({})),
        ("extract", json!({ "max_chars": 20_000 })),
        ("estimate", json!({ "max_chars": 8_000 })),
        ("tree", json!({ "max_chars": 8_000 })),
    ] {
        let ceiling = extra["max_chars"].as_u64().unwrap_or(50_000) as usize;
        let mut args = json!({ "repo": "r" });
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        let answer = server.call(tool, args);
        let result = &answer["result"];
        assert!(result.is_object(), "{tool}: {answer}");
        assert_ne!(result["isError"], true, "{tool}: {answer}");
        let sent = result.to_string().chars().count();
        assert!(sent <= ceiling, "{tool} {extra}: {sent} characters sent");
        eprintln!("{tool} {extra}: {sent} characters sent");
        // And it is not empty: the fit lowered the text, it did not drop it.
        if tool != "estimate" {
            assert!(sent > ceiling / 4, "{tool} {extra}: only {sent} characters");
        }
    }
}
