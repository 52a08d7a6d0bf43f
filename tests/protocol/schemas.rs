//! Lean tool definitions (issue 23): what `tools/list` costs a client on every turn, pinned so it
//! cannot creep back. Measured on the server's own bytes (compact JSON) in every protocol era;
//! the interop suite measures them again the way Python prints JSON and checks every schema with
//! a JSON Schema 2020-12 validator.

#![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

use crate::common;

use common::mcp_client;

use mcp_client::{Server, modern_meta};
use serde_json::{Value, json};

/// All tools' definitions together, in characters; the goal is 16,000 (measured with
/// Python's spaced separators, about 7% more than this compact form).
const MAX_LIST_CHARS: usize = 15_000;
/// One tool's definition.
const MAX_TOOL_CHARS: usize = 1_900;
/// `overview`'s definition (opt-in: the default set has no room left for its 1,288).
const MAX_OVERVIEW_CHARS: usize = 1_350;

fn chars(v: &Value) -> usize {
    serde_json::to_string(v).unwrap().chars().count()
}

fn check(list: &Value, era: &str) {
    let tools = list["tools"].as_array().unwrap();
    // The default set: every tool but `hotspots` and `overview` (opt-in, see
    // src/mcp/selection.rs).
    assert_eq!(tools.len(), 11, "{era}");
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

/// The opt-in tools are as lean as the others, and `overview` leaner still.
#[test]
fn opt_in_definitions_are_lean_too() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(dir.path(), &[("GNAW_MCP_TOOLS", "all")]);
    server.initialize("2025-11-25");
    let list = server.ok("tools/list", json!({}));
    let tools = list["tools"].as_array().unwrap();
    for name in ["hotspots", "overview"] {
        let tool = tools.iter().find(|t| t["name"] == name).unwrap();
        let size = chars(tool);
        assert!(size <= MAX_TOOL_CHARS, "{name} is {size} characters");
        if name == "overview" {
            assert!(size <= MAX_OVERVIEW_CHARS, "{name} is {size} characters");
        }
    }
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

/// The keywords an input schema may use: what the argument types derive, nothing a client must
/// resolve (`$ref`, `anyOf`, ...). With the Python suite's Draft 2020-12 validator, this keeps
/// every schema plain.
const INPUT_KEYWORDS: [&str; 10] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "description",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
];

fn keywords_only(name: &str, schema: &Value) {
    let Some(map) = schema.as_object() else {
        panic!("{name}: a schema is an object: {schema}");
    };
    for (key, value) in map {
        assert!(INPUT_KEYWORDS.contains(&key.as_str()), "{name}: {key}");
        match key.as_str() {
            "properties" => {
                for (prop, sub) in value.as_object().unwrap() {
                    keywords_only(&format!("{name}.{prop}"), sub);
                }
            }
            "items" => keywords_only(&format!("{name}[]"), value),
            "type" => assert!(value.is_string(), "{name}: one type, not {value}"),
            _ => {}
        }
    }
}

/// Each input schema comes from its tool's argument type, so what `tools/list` says and what a
/// call accepts are the same: every property the schema lists is accepted, an argument it does
/// not list is refused by name, a required one left out is refused by name with what it is, and a
/// wrongly typed one is refused by name.
#[test]
fn arguments_are_what_the_schemas_say() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("repo/src")).unwrap();
    std::fs::write(dir.path().join("repo/src/a.rs"), "fn alpha() {}\n").unwrap();
    let known: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/interop/tool_args.json"
        ))
        .unwrap(),
    )
    .unwrap();
    // Every tool, the opt-in ones too.
    let mut server = Server::start(dir.path(), &[("GNAW_MCP_TOOLS", "all")]);
    server.initialize("2025-11-25");
    let list = server.ok("tools/list", json!({}));
    for tool in list["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        let schema = &tool["inputSchema"];
        keywords_only(name, schema);
        assert_eq!(schema["type"], "object", "{name}");
        assert_eq!(schema["additionalProperties"], false, "{name}");
        let props = schema["properties"].as_object().unwrap();
        // The richest known-good call uses every property: accepted, whatever it then answers.
        let sets = known["tools"][name].as_array().cloned().unwrap_or_default();
        let base = sets.first().cloned().unwrap_or_else(|| {
            json!({ "repo": "repo", "paths": ["src/a.rs"], "name": "alpha" })
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| props.contains_key(*k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        });
        for set in &sets {
            for arg in set.as_object().unwrap().keys() {
                assert!(
                    props.contains_key(arg),
                    "{name}: known-good {arg} not in the schema"
                );
            }
        }
        // Unknown: refused by name, with the arguments the tool takes.
        let mut args = base.clone();
        args["gnaw_no_such_argument"] = json!(1);
        let e = server.call(name, args);
        let message = e["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(e["error"]["code"], -32602, "{name}: {e}");
        assert!(
            message.contains("\"gnaw_no_such_argument\"") && message.contains("repo"),
            "{name}: {message}"
        );
        // Each required argument left out: refused by name, saying what it is.
        for required in schema["required"].as_array().into_iter().flatten() {
            let required = required.as_str().unwrap();
            let mut args = base.clone();
            args.as_object_mut().unwrap().remove(required);
            let e = server.call(name, args);
            let message = e["error"]["message"].as_str().unwrap_or_default();
            let what = props[required]["description"].as_str().unwrap();
            let first_word = what.split(' ').nth(1).unwrap_or(what);
            assert!(
                message.contains(&format!("\"{required}\" is required"))
                    && message.contains(first_word),
                "{name}: {message}"
            );
        }
        // Each property given a value of the wrong type: refused, naming the argument.
        for (prop, sub) in props {
            // A number for a string (`compress` takes `true` as well as its names).
            let wrong = match sub["type"].as_str().unwrap() {
                "string" => json!(12345),
                "array" => json!(true),
                _ => json!("not a number or boolean"),
            };
            let mut args = base.clone();
            args[prop] = wrong;
            let e = server.call(name, args);
            assert_eq!(e["error"]["code"], -32602, "{name}.{prop}: {e}");
            let message = e["error"]["message"].as_str().unwrap_or_default();
            assert!(
                message.contains(&format!("\"{prop}\""))
                    || (prop == "repo" && message.contains("repo")),
                "{name}.{prop}: {message}"
            );
        }
    }
}
