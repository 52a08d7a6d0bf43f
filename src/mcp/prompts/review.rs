//! `review`: "review the working changes": the diff of the working tree against a commit (the
//! `changes` tool's answer) and the files most related to the changed ones (`related`'s), fitted
//! to the prompt's budget, with the request to review them.

use super::super::resource::Completion;
use super::super::tool::{Outcome, ToolContext};
use super::super::tools::{changes::CHANGES, related::RELATED};
use super::{BUDGET, GnawPrompt, REPO, budget, run, tool_args};
use crate::mcp::prompt::Argument;
use serde_json::{Map, Value, json};

/// Share of the budget the diff takes; the related files take the rest.
const DIFF_SHARE: u64 = 4;
/// Commits offered as completions of `base`.
const BASES: [&str; 4] = ["HEAD", "HEAD~1", "HEAD~2", "HEAD~3"];

/// The `review` prompt.
pub static REVIEW: GnawPrompt = GnawPrompt {
    name: "review",
    title: "Review the working changes",
    description: "The working tree's changes against a commit and the files related to them, to review.",
    arguments: &[
        REPO,
        Argument {
            name: "base",
            description: "Commit to compare the working tree with (default HEAD).",
            required: false,
        },
        BUDGET,
    ],
    needs: &["changes", "related"],
    texts,
    complete: |argument, typed| (argument == "base").then(|| Completion::filtered(BASES, typed)),
};

/// The request to review, with the diff and the files related to the first changed one.
fn texts(args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Result<Vec<String>, Outcome> {
    let budget = budget(args).map_err(Outcome::Rejected)?;
    let diff_budget = budget * (DIFF_SHARE - 1) / DIFF_SHARE;
    let mut extra = json!({ "budget": diff_budget });
    if let Some(base) = args
        .get("base")
        .and_then(Value::as_str)
        .filter(|b| !b.is_empty())
    {
        extra["base"] = json!(base);
    }
    let (diff, facts) = run(&CHANGES, tool_args(args, extra), ctx)?;
    let base = args.get("base").and_then(Value::as_str).unwrap_or("HEAD");
    let mut texts = vec![format!(
        "Review the working changes of this repository against {base}: look for bugs, \
         missed cases, unclear names and missing tests, and say what to change, file \
         by file. The changes:\n\n{diff}"
    )];
    // The files related to the first changed file, when there is one.
    let first = facts["files"][0]["path"].as_str().map(str::to_string);
    if let Some(path) = first {
        let extra = json!({ "path": path, "budget": budget - diff_budget });
        let (related, _) = run(&RELATED, tool_args(args, extra), ctx)?;
        texts.push(format!(
            "Files related to {path} (read them with the read tool where the review \
             needs them):\n\n{related}"
        ));
    }
    Ok(texts)
}
