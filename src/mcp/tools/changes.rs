//! `changes`: the working tree against a commit, as a list of changed files and a unified diff,
//! read from `.git` in-process (never by running git), within a token budget, with the
//! continuation as a plain `after` argument (see [`crate::driver::git::changes`]).

use super::super::args::{self, Budget, PathText, Repo, Text};
use super::super::tool::{Outcome, Tool, ToolContext};
use super::navigation::{self, integer, string};
use crate::driver::git::changes::{self, ChangesAnswer, ChangesArgs};
use serde_json::{Map, Value, json};

const DESCRIPTION: &str = "What changed: the working tree against `base` (default HEAD), files with status and line counts, then the diff.";

/// The `changes` tool.
pub struct Changes;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    repo: Repo,
    /// Commit to compare the working tree with (default HEAD).
    base: Option<Text>,
    /// Files or directories to limit the changes to, e.g. ["src/"].
    #[schemars(length(max = crate::driver::git::MAX_PATHS))]
    paths: Option<Vec<PathText>>,
    /// Lines of context around each change (default 3, as git).
    context: Option<u32>,
    /// The continuation a cut answer gives, as given.
    after: Option<Text>,
    budget: Option<Budget>,
}

impl Tool for Changes {
    fn name(&self) -> &'static str {
        "changes"
    }
    fn title(&self) -> &'static str {
        "Working-tree changes (git diff)"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn summary(&self) -> &'static str {
        "what changed in the working tree against a commit: files with status, then the diff"
    }
    fn input_schema(&self) -> Value {
        args::input_schema::<Args>()
    }
    fn output_schema(&self) -> Option<Value> {
        let n = |d: &str| integer(d);
        Some(json!({
            "type": "object",
            "properties": {
                "answer_tokens": n("Exact token count of the text answer."),
                "encoding": string("The tiktoken encoding of the counts."),
                "budget": n("The token budget applied; 0 when none."),
                "base": string("The base commit's full id (empty without commits)."),
                "complete": { "type": "boolean", "description": "True when nothing was cut." },
                "next_after": string("The after argument that continues the answer; empty when complete."),
                "files": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "status": string("added, modified, deleted, renamed, type_changed or untracked."),
                            "path": string("The file, as gnaw shows paths."),
                            "old_path": string("A renamed file's old path; empty otherwise."),
                            "added": n("Lines added."),
                            "removed": n("Lines removed."),
                            "note": string("Why the diff is not shown; empty when it is."),
                        },
                        "required": ["status", "path", "old_path", "added", "removed", "note"],
                    },
                },
            },
            "required": ["answer_tokens", "encoding", "budget", "base", "complete", "next_after", "files"],
            "additionalProperties": false,
        }))
    }
    fn call(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        navigation::outcome(|| {
            let args: Args = navigation::args(self, args)?;
            let req = navigation::call_request(ctx, &args.repo, None, None, args.budget)?;
            let cargs = ChangesArgs {
                base: args.base.map(|t| t.0),
                paths: args.paths.unwrap_or_default().into_iter().map(|p| p.0).collect(),
                context: args.context,
                after: args.after.map(|t| t.0),
                count: true,
            };
            let a = changes::changes(&req, &cargs).map_err(|e| navigation::failure(self, e))?;
            let structured = structured(&a);
            Ok(navigation::result(ctx, a.text, structured))
        })
    }
}

fn structured(a: &ChangesAnswer) -> Value {
    json!({
        "answer_tokens": a.tokens,
        "encoding": a.encoding.name(),
        "budget": a.budget.unwrap_or(0),
        "base": a.base,
        "complete": a.next.is_none(),
        "next_after": a.next.clone().unwrap_or_default(),
        "files": a.files.iter().map(|f| json!({
            "status": f.status, "path": f.path, "old_path": f.old_path,
            "added": f.added, "removed": f.removed, "note": f.note,
        })).collect::<Vec<_>>(),
    })
}
