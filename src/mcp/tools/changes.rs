//! `changes`: the working tree against a commit, as a list of changed files and a unified diff,
//! read from `.git` in-process (never by running git), within a token budget, with the
//! continuation as a plain `after` argument (see [`crate::driver::git::changes`]).

use super::super::tool::{Outcome, Tool, ToolContext, arg, parse_args};
use super::navigation::{self, BUDGET_DESCRIPTION, REPO_DESCRIPTION, integer, string};
use crate::driver::git::changes::{self, ChangesAnswer, ChangesArgs};
use serde_json::{Map, Value, json};

const DESCRIPTION: &str = "What changed: the working tree against `base` (default HEAD), files with status and line counts, then the diff.";

/// The `changes` tool.
pub struct Changes;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    repo: Option<Value>,
    #[serde(default)]
    base: Option<arg::Text>,
    #[serde(default)]
    paths: Option<Vec<Value>>,
    #[serde(default)]
    context: Option<u32>,
    #[serde(default)]
    after: Option<arg::Text>,
    #[serde(default)]
    budget: Option<arg::Tokens>,
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
        json!({
            "type": "object",
            "properties": {
                "repo": string(REPO_DESCRIPTION),
                "base": string("Commit to compare the working tree with (default HEAD)."),
                "paths": {
                    "type": "array",
                    "items": { "type": "string" },
                    "maxItems": crate::driver::git::MAX_PATHS,
                    "description": "Files or directories to limit the changes to, e.g. [\"src/\"].",
                },
                "context": integer("Lines of context around each change (default 3, as git)."),
                "after": string("The continuation a cut answer gives, as given."),
                "budget": integer(BUDGET_DESCRIPTION),
            },
            "required": ["repo"],
            "additionalProperties": false,
        })
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
        let args: Args = match parse_args(self, args) {
            Ok(a) => a,
            Err(e) => return Outcome::Rejected(e),
        };
        let repo = match navigation::repo_arg(args.repo.as_ref()) {
            Ok(r) => r,
            Err(o) => return o,
        };
        let mut paths = Vec::new();
        for (i, p) in args.paths.unwrap_or_default().iter().enumerate() {
            match navigation::path_arg(&format!("paths[{i}]"), p) {
                Ok(p) => paths.push(p),
                Err(o) => return o,
            }
        }
        let req = match navigation::request(ctx, repo, Vec::new(), Vec::new(), args.budget.map(|t| t.0)) {
            Ok(r) => r,
            Err(o) => return o,
        };
        let cargs = ChangesArgs {
            base: args.base.map(|t| t.0),
            paths,
            context: args.context,
            after: args.after.map(|t| t.0),
            count: true,
        };
        match changes::changes(&req, &cargs) {
            Ok(a) => {
                let structured = structured(&a);
                navigation::result(ctx, a.text, structured)
            }
            Err(e) => navigation::failure(self, e),
        }
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
