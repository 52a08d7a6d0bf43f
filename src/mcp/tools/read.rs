//! `read`: the lines of files by range, numbered, exactly within a token budget, with the
//! continuation as a plain `paths` argument (see [`crate::driver::nav::read`]).

use super::super::args::{self, Budget, PathText, Repo};
use super::super::tool::{Outcome, Tool, ToolContext};
use super::navigation::{self, integer, string};
use crate::driver::nav::read::{self, ReadAnswer};
use serde_json::{Map, Value, json};

const DESCRIPTION: &str = "Numbered lines of files by range (\"path:START-END\"): the code itself, once tree, grep, search or outline found it.";

/// The `read` tool.
pub struct Read;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    repo: Repo,
    /// Each "path", "path:START-END", "path:START-" or "path:N" (1-based).
    #[schemars(length(min = 1, max = read::MAX_PATHS))]
    paths: Vec<PathText>,
    budget: Option<Budget>,
}

impl Tool for Read {
    fn name(&self) -> &'static str {
        "read"
    }
    fn title(&self) -> &'static str {
        "Read file lines"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn summary(&self) -> &'static str {
        "read files or line ranges you found, numbered, within a budget"
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
                "complete": { "type": "boolean", "description": "True when nothing was cut." },
                "next_paths": {
                    "type": "array",
                    "items": { "type": "string" },
                    "description": "The paths argument that continues the answer; empty when complete.",
                },
                "files": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": string("The file, as gnaw shows paths."),
                            "status": string("shown, partial, empty, not_shown or not_reached."),
                            "reason": string("Why it is not shown; empty otherwise."),
                            "total_lines": n("Lines in the file (0 when not read)."),
                            "start": n("First line shown (0 when none)."),
                            "end": n("Last line shown (0 when none)."),
                            "tokens": n("Exact tokens of the rows shown, counted alone."),
                            "lossy": { "type": "boolean", "description": "Not valid UTF-8; shown with U+FFFD." },
                        },
                        "required": ["path", "status", "reason", "total_lines", "start", "end", "tokens", "lossy"],
                    },
                },
            },
            "required": ["answer_tokens", "encoding", "budget", "complete", "next_paths", "files"],
            "additionalProperties": false,
        }))
    }
    fn call(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        navigation::outcome(|| {
            let args: Args = navigation::args(self, args)?;
            let given: Vec<String> = args.paths.into_iter().map(|p| p.0).collect();
            let req = navigation::call_request(ctx, &args.repo, None, None, args.budget)?;
            let a = read::read(&req, &given).map_err(|e| navigation::failure(self, e))?;
            let structured = structured(&a);
            Ok(navigation::result(ctx, a.text, structured))
        })
    }
}

fn structured(a: &ReadAnswer) -> Value {
    json!({
        "answer_tokens": a.tokens,
        "encoding": a.encoding.name(),
        "budget": a.budget.unwrap_or(0),
        "complete": a.next.is_empty(),
        "next_paths": a.next,
        "files": a.files.iter().map(|f| json!({
            "path": f.path, "status": f.status, "reason": f.reason,
            "total_lines": f.total_lines, "start": f.start, "end": f.end,
            "tokens": f.tokens, "lossy": f.lossy,
        })).collect::<Vec<_>>(),
    })
}
