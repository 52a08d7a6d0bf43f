//! `review`: "review the working changes": the diff of the working tree against a commit (the
//! `changes` tool's answer) and the files most related to the changed ones (`related`'s), fitted
//! to the prompt's budget, with the request to review them.

use super::super::jsonrpc::RpcError;
use super::super::prompt::{Argument, Prompt, messages};
use super::super::resource::Completion;
use super::super::tool::{Outcome, ToolContext};
use super::super::tools::{changes::CHANGES, related::RELATED};
use super::{BUDGET, REPO, budget, complete_shared, run, tool_args};
use serde_json::{Map, Value, json};

/// Share of the budget the diff takes; the related files take the rest.
const DIFF_SHARE: u64 = 4;
/// Commits offered as completions of `base`.
const BASES: [&str; 4] = ["HEAD", "HEAD~1", "HEAD~2", "HEAD~3"];

/// The `review` prompt.
pub struct Review;

pub static REVIEW: Review = Review;

const ARGUMENTS: &[Argument] = &[
    REPO,
    Argument {
        name: "base",
        description: "Commit to compare the working tree with (default HEAD).",
        required: false,
    },
    BUDGET,
];

impl Prompt for Review {
    fn name(&self) -> &'static str {
        "review"
    }
    fn title(&self) -> &'static str {
        "Review the working changes"
    }
    fn description(&self) -> &'static str {
        "The working tree's changes against a commit and the files related to them, to review."
    }
    fn arguments(&self) -> &'static [Argument] {
        ARGUMENTS
    }
    fn needs(&self) -> &'static [&'static str] {
        &["changes", "related"]
    }

    fn get(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        let go = || -> Result<Value, Outcome> {
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
            Ok(messages(self.title(), &texts))
        };
        go().map_or_else(|early| early, Outcome::Done)
    }

    fn complete(
        &self,
        argument: &str,
        typed: &str,
        _context: &Map<String, Value>,
        ctx: &ToolContext<'_>,
    ) -> Result<Completion, RpcError> {
        Ok(match argument {
            "base" => Completion::filtered(BASES, typed),
            other => complete_shared(other, typed, ctx),
        })
    }
}
