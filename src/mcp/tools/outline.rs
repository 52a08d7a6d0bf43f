//! `outline`: each file's definitions, nested, with line ranges, signatures and first doc lines,
//! exactly within a token budget, with the continuation as a plain `paths` argument (see
//! [`crate::driver::nav::outline`]).

use super::super::tool::{Outcome, Tool, ToolContext, arg, parse_args};
use super::navigation::{self, BUDGET_DESCRIPTION, REPO_DESCRIPTION, integer, string};
use crate::driver::nav::outline::{self, OutlineAnswer};
use serde_json::{Map, Value, json};

const DESCRIPTION: &str = "Each file's definitions, nested: START-END kind name: signature. Learn what a file holds, then `read` one definition.";

/// The `outline` tool.
pub struct OutlineTool;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    repo: Option<Value>,
    paths: Option<Vec<Value>>,
    #[serde(default)]
    budget: Option<arg::Tokens>,
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
        json!({
            "type": "object",
            "properties": {
                "repo": string(REPO_DESCRIPTION),
                "paths": {
                    "type": "array",
                    "items": { "type": "string" },
                    "minItems": 1,
                    "maxItems": outline::MAX_PATHS,
                    "description": "Each \"path\", or \"path:START-\" for the definitions from line START.",
                },
                "budget": integer(BUDGET_DESCRIPTION),
            },
            "required": ["repo", "paths"],
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
        let args: Args = match parse_args(self, args) {
            Ok(a) => a,
            Err(e) => return Outcome::Rejected(e),
        };
        let repo = match navigation::repo_arg(args.repo.as_ref()) {
            Ok(r) => r,
            Err(o) => return o,
        };
        let Some(paths) = args.paths else {
            return Outcome::Rejected(super::super::tool::bad_argument(
                "argument \"paths\" is required: the files to outline, e.g. [\"src/main.rs\"]"
                    .into(),
            ));
        };
        let mut given = Vec::with_capacity(paths.len());
        for (i, p) in paths.iter().enumerate() {
            match navigation::path_arg(&format!("paths[{i}]"), p) {
                Ok(p) => given.push(p),
                Err(o) => return o,
            }
        }
        let req = match navigation::request(ctx, repo, Vec::new(), Vec::new(), args.budget.map(|t| t.0)) {
            Ok(r) => r,
            Err(o) => return o,
        };
        match outline::outline(&req, &given) {
            Ok(a) => {
                let structured = structured(&a);
                navigation::result(ctx, a.text, structured)
            }
            Err(e) => navigation::failure(self, e),
        }
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
