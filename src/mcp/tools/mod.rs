//! The registry: every tool the server can offer, in `tools/list` order, each a value (a
//! `navigation::Navigation`, or for `extract` and `estimate` a [`super::tool::Declared`]).
//! `tools/list`, the unknown-tool error and the `instructions` text are all derived from it (over
//! the tools the operator turned on, [`super::selection`]), and each tool parses its own typed
//! arguments. Adding a tool is one new file in this folder and one line in `registry!` below.

use super::tool::{Shape, Tool};
use serde_json::{Map, Value, json};

/// Declares each tool's module and lists its value, in order.
macro_rules! registry {
    ($($module:ident :: $tool:ident),+ $(,)?) => {
        $(pub mod $module;)+
        /// Every tool, in `tools/list` order.
        pub static TOOLS: &[&dyn Tool] = &[$(&$module::$tool),+];
    };
}

// What extract and estimate share (not a tool).
pub mod prompt;
// What the navigation tools share (not a tool): the kind of value each is, and its one road.
pub(crate) mod navigation;

registry! {
    extract::EXTRACT,
    estimate::ESTIMATE,
    overview::OVERVIEW,
    tree::TREE,
    grep::GREP,
    search::SEARCH,
    related::RELATED,
    read::READ,
    changes::CHANGES,
    log::LOG,
    hotspots::HOTSPOTS,
    outline::OUTLINE,
    symbol::SYMBOL,
}

/// The tool called `name`.
pub fn find(name: &str) -> Option<&'static dyn Tool> {
    TOOLS.iter().copied().find(|t| t.name() == name)
}

/// The answer to a call of a tool that does not exist, naming the tools `offered`.
pub fn unknown_tool_message(offered: &[&dyn Tool]) -> String {
    let names: Vec<&str> = offered.iter().map(|t| t.name()).collect();
    format!(
        "Unknown tool; this server has the tools {}",
        names.join(", ")
    )
}

/// The server's `instructions`: what gnaw is, and one line per tool `offered` on when to use it.
pub fn instructions(offered: &[&dyn Tool]) -> String {
    let mut text = String::from(
        "gnaw reads local source repositories under this server's root directory and hands \
         them to you with exact token counts. Every tool is read-only.",
    );
    for tool in offered {
        text.push_str(&format!(" `{}`: {}.", tool.name(), tool.summary()));
    }
    text
}

/// The definitions of the tools `offered`, for `tools/list`, shaped for the client's revision.
pub fn definitions(shape: Shape, offered: &[&dyn Tool]) -> Vec<Value> {
    offered
        .iter()
        .map(|tool| {
            let mut def = json!({
                "name": tool.name(),
                "description": tool.description(),
                "inputSchema": tool.input_schema(),
            });
            if shape.structured {
                def["title"] = json!(tool.title());
                if let Some(schema) = tool.output_schema() {
                    def["outputSchema"] = lean(schema);
                }
                def["_meta"] = json!({ "anthropic/maxResultSizeChars": tool.max_result_chars() });
            }
            if shape.annotations {
                let mut annotations = tool.annotations();
                // Revisions with a top-level title need it only once.
                if !shape.structured {
                    annotations["title"] = json!(tool.title());
                }
                def["annotations"] = annotations;
            }
            def
        })
        .collect()
}

/// An output schema as `tools/list` sends it: each top-level field's name and JSON type, no
/// prose. Descriptions, bounds, `required` lists and what nested arrays and objects hold go (the
/// tool docs in docs/mcp.md say them); what stays still validates every answer, so a client
/// that checks `structuredContent` checks its fields' types.
fn lean(schema: Value) -> Value {
    let props: Map<String, Value> = schema["properties"]
        .as_object()
        .map(|p| {
            p.iter()
                .map(|(n, v)| (n.clone(), json!({ "type": v["type"] })))
                .collect()
        })
        .unwrap_or_default();
    json!({ "type": "object", "properties": props })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_follow_the_rules() {
        for shape in [Shape::FULL, Shape::for_version("2024-11-05")] {
            let defs = definitions(shape, TOOLS);
            assert_eq!(defs.len(), TOOLS.len());
            for def in &defs {
                let name = def["name"].as_str().unwrap();
                assert!(
                    name.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                );
                assert!(find(name).is_some());
                let schema = &def["inputSchema"];
                assert_eq!(schema["type"], "object");
                assert_eq!(schema["additionalProperties"], false);
                for key in ["oneOf", "anyOf", "allOf", "$ref"] {
                    assert!(schema.get(key).is_none());
                }
                for (_, prop) in schema["properties"].as_object().unwrap() {
                    assert!(prop["type"].is_string());
                    let d = prop["description"].as_str().unwrap();
                    assert!(
                        d.len() > 40,
                        "{name}: a description of {} bytes: {d:?}",
                        d.len()
                    );
                }
            }
        }
    }

    #[test]
    fn shapes_follow_the_negotiated_revision() {
        let old = definitions(Shape::for_version("2024-11-05"), TOOLS);
        assert!(old.iter().all(|d| d.get("annotations").is_none()));
        let mid = definitions(Shape::for_version("2025-03-26"), TOOLS);
        assert!(mid.iter().all(|d| d["annotations"]["readOnlyHint"] == true));
        assert!(mid.iter().all(|d| d.get("outputSchema").is_none()));
        let new = definitions(Shape::for_version("2025-11-25"), TOOLS);
        let estimate = new.iter().find(|d| d["name"] == "estimate").unwrap();
        assert_eq!(estimate["outputSchema"]["type"], "object");
        assert_eq!(new, definitions(Shape::FULL, TOOLS));
    }

    #[test]
    fn instructions_and_errors_name_every_tool() {
        for tool in TOOLS {
            assert!(instructions(TOOLS).contains(&format!("`{}`", tool.name())));
            assert!(unknown_tool_message(TOOLS).contains(tool.name()));
        }
    }
}
