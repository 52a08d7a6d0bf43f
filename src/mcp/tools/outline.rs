//! `outline`: each file's definitions, nested, with line ranges, signatures and first doc lines,
//! exactly within a token budget, with the continuation as a plain `paths` argument (see
//! [`crate::driver::nav::outline`]).

use super::super::args::{self, Budget, PathText, Repo};
use super::super::tool::{Outcome, Tool, ToolContext};
use super::navigation::{self, integer, string};
use crate::driver::nav::outline::{self, OutlineAnswer};
use serde_json::{Map, Value, json};

const DESCRIPTION: &str = "Each file's definitions, nested: START-END kind name: signature. Learn what a file holds, then `read` one definition.";

/// The `outline` tool.
pub struct OutlineTool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    repo: Repo,
    /// Each "path", or "path:START-" for the definitions from line START.
    #[schemars(length(min = 1, max = outline::MAX_PATHS))]
    paths: Vec<PathText>,
    budget: Option<Budget>,
}

impl Tool for OutlineTool {
    fn name(&self) -> &'static str {
        "outline"
    }
    fn title(&self) -> &'static str {
        "Outline source files"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn summary(&self) -> &'static str {
        "list the definitions in files (kind, name, signature, line range) to read just one"
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
                            "status": string("shown, partial, no_outline, not_shown or not_reached."),
                            "reason": string("Why it is not outlined; empty otherwise."),
                            "language": string("The grammar used; empty when none."),
                            "total_lines": n("Lines in the file (0 when not read)."),
                            "definitions": n("Definitions in the entry's range."),
                            "shown": n("Definitions shown."),
                        },
                        "required": ["path", "status", "reason", "language", "total_lines", "definitions", "shown"],
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
            let a = outline::outline(&req, &given).map_err(|e| navigation::failure(self, e))?;
            let structured = structured(&a);
            Ok(navigation::result(ctx, a.text, structured))
        })
    }
}

fn structured(a: &OutlineAnswer) -> Value {
    json!({
        "answer_tokens": a.tokens,
        "encoding": a.encoding.name(),
        "budget": a.budget.unwrap_or(0),
        "complete": a.next.is_empty(),
        "next_paths": a.next,
        "files": a.files.iter().map(|f| json!({
            "path": f.path, "status": f.status, "reason": f.reason, "language": f.language,
            "total_lines": f.total_lines, "definitions": f.definitions, "shown": f.shown,
        })).collect::<Vec<_>>(),
    })
}
