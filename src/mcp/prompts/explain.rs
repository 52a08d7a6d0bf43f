//! `explain`: "explain this repository": the `overview` tool's map of the repository (its
//! languages, where tests and docs live, entry points, central files and their key
//! definitions), optionally around a focus, with the request to explain it.

use super::super::tool::{Outcome, ToolContext};
use super::super::tools::overview::OVERVIEW;
use super::{BUDGET, GnawPrompt, REPO, budget, run, tool_args};
use crate::mcp::prompt::Argument;
use serde_json::{Map, Value, json};

/// The `explain` prompt.
pub static EXPLAIN: GnawPrompt = GnawPrompt {
    name: "explain",
    title: "Explain this repository",
    description: "The repository's overview map (central files and key definitions), to explain it.",
    arguments: &[
        REPO,
        Argument {
            name: "focus",
            description: "Words or an identifier to center the map on (optional).",
            required: false,
        },
        BUDGET,
    ],
    needs: &["overview"],
    texts,
    complete: |_, _| None,
};

/// The request to explain, with the overview map (around the focus, when there is one).
fn texts(args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Result<Vec<String>, Outcome> {
    let budget = budget(args).map_err(Outcome::Rejected)?;
    let mut extra = json!({ "budget": budget });
    let focus = args
        .get("focus")
        .and_then(Value::as_str)
        .filter(|f| !f.is_empty());
    if let Some(focus) = focus {
        extra["query"] = json!(focus);
    }
    let (map, _) = run(&OVERVIEW, tool_args(args, extra), ctx)?;
    let around = focus.map_or(String::new(), |f| format!(", especially around {f:?}"));
    Ok(vec![format!(
        "Explain this repository to me{around}: what it is for, how it is laid out, its \
         main parts and how they fit together, and where to start reading. Its overview \
         map:\n\n{map}"
    )])
}
