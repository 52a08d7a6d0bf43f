//! `log`: a local repository's history, newest first, each commit with the files it changed and
//! their line counts (optionally the patch), read from `.git` in-process (never by running
//! git), within a token budget, with the continuation as a plain `skip` argument (see
//! [`crate::driver::git::log`]).

use super::super::args::{self, Budget, PathText, Repo, Text};
use super::super::tool::{Outcome, Tool, ToolContext};
use super::navigation::{self, integer, string};
use crate::driver::git::log::{self, LogAnswer, LogArgs};
use serde_json::{Map, Value, json};

const DESCRIPTION: &str = "Commit history, newest first: id, author, date, message, files with lines added and removed; `patch` for diffs.";

/// The `log` tool.
pub struct Log;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    repo: Repo,
    /// Commit to start from: a branch, tag or commit id (default HEAD).
    rev: Option<Text>,
    /// Most commits in this answer (default 20, at most 10000).
    max_count: Option<usize>,
    /// Only the commits that change this file or directory.
    path: Option<PathText>,
    /// Only commits since YYYY-MM-DD (or an RFC 3339 time, or @SECONDS).
    since: Option<Text>,
    /// Also show each commit's diff (default false).
    patch: Option<bool>,
    /// The continuation a cut answer gives, as given.
    skip: Option<usize>,
    budget: Option<Budget>,
}

impl Tool for Log {
    fn name(&self) -> &'static str {
        "log"
    }
    fn title(&self) -> &'static str {
        "Commit history (git log)"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn summary(&self) -> &'static str {
        "the commit history with files changed and line counts, optionally with patches"
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
                "complete": { "type": "boolean", "description": "True when nothing was cut and max_count was not reached." },
                "next_skip": n("The skip argument that continues the answer; 0 when complete."),
                "commits": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": string("The full commit id."),
                            "short": string("The short commit id."),
                            "author": string("Name <email>."),
                            "date": string("Author date, YYYY-MM-DD HH:MM:SS +ZZZZ."),
                            "subject": string("The message's first line."),
                            "files": n("Files changed (0 for a merge)."),
                        },
                        "required": ["id", "short", "author", "date", "subject", "files"],
                    },
                },
            },
            "required": ["answer_tokens", "encoding", "budget", "complete", "next_skip", "commits"],
            "additionalProperties": false,
        }))
    }
    fn call(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        navigation::outcome(|| {
            let args: Args = navigation::args(self, args)?;
            let req = navigation::call_request(ctx, &args.repo, None, None, args.budget)?;
            let largs = LogArgs {
                rev: args.rev.map(|t| t.0),
                max_count: args.max_count,
                path: args.path.map(|p| p.0),
                since: args.since.map(|t| t.0),
                patch: args.patch.unwrap_or(false),
                skip: args.skip.unwrap_or(0),
                count: true,
            };
            let a = log::log(&req, &largs).map_err(|e| navigation::failure(self, e))?;
            let structured = structured(&a);
            Ok(navigation::result(ctx, a.text, structured))
        })
    }
}

fn structured(a: &LogAnswer) -> Value {
    json!({
        "answer_tokens": a.tokens,
        "encoding": a.encoding.name(),
        "budget": a.budget.unwrap_or(0),
        "complete": a.next_skip.is_none(),
        "next_skip": a.next_skip.unwrap_or(0),
        "commits": a.commits.iter().map(|c| json!({
            "id": c.id, "short": c.short, "author": c.author, "date": c.date,
            "subject": c.subject, "files": c.files,
        })).collect::<Vec<_>>(),
    })
}
