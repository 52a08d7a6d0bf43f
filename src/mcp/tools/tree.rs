//! `tree`: a repository's directory tree with each entry's lines, bytes and the exact tokens
//! extract would spend on it, biggest first, within a budget (see
//! [`crate::driver::nav::tree`]).

use super::super::tool::{Outcome, Tool, ToolContext, arg};
use super::navigation::{
    self, BUDGET_DESCRIPTION, EXCLUDE_DESCRIPTION, INCLUDE_DESCRIPTION, REPO_DESCRIPTION,
    integer, string,
};
use crate::driver::nav::tree::{self, Entry, TreeAnswer, TreeArgs};
use serde_json::{Map, Value, json};

const DESCRIPTION: &str = "Directory tree with lines, bytes and tokens per entry, biggest first. Use it first on an unfamiliar repository.";

/// The `tree` tool.
pub struct Tree;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    repo: Option<Value>,
    #[serde(default)]
    path: Option<Value>,
    #[serde(default)]
    depth: Option<arg::Tokens>,
    #[serde(default)]
    include: Option<arg::Globs>,
    #[serde(default)]
    exclude: Option<arg::Globs>,
    #[serde(default)]
    budget: Option<arg::Tokens>,
}

impl Tool for Tree {
    fn name(&self) -> &'static str {
        "tree"
    }
    fn title(&self) -> &'static str {
        "Repository tree with tokens"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn summary(&self) -> &'static str {
        "see a repository's layout with lines and tokens per file and directory"
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "repo": string(REPO_DESCRIPTION),
                "path": string("Directory inside the repository to list (default: all of it)."),
                "depth": integer("Levels shown below path; 1 for its own entries (default: the budget's)."),
                "include": { "type": "array", "items": { "type": "string" }, "description": INCLUDE_DESCRIPTION },
                "exclude": { "type": "array", "items": { "type": "string" }, "description": EXCLUDE_DESCRIPTION },
                "budget": integer(BUDGET_DESCRIPTION),
            },
            "required": ["repo"],
            "additionalProperties": false,
        })
    }
    fn output_schema(&self) -> Option<Value> {
        let n = integer;
        let entry = json!({
            "type": "object",
            "properties": {
                "path": string("Relative to the repository, as gnaw shows paths (\".\" for the repository)."),
                "type": string("file or dir."),
                "depth": n("Levels below the listed directory."),
                "files": n("Files (1 for a file)."),
                "lines": n("Lines."),
                "bytes": n("Bytes read."),
                "tokens": n("Exact tokens extract would spend on it."),
                "hidden_entries": n("A directory's entries not shown."),
                "hidden_tokens": n("Their tokens."),
            },
            "required": ["path", "type", "depth", "files", "lines", "bytes", "tokens", "hidden_entries", "hidden_tokens"],
        });
        Some(json!({
            "type": "object",
            "properties": {
                "answer_tokens": n("Exact token count of the text answer."),
                "encoding": string("The tiktoken encoding of the counts."),
                "budget": n("The token budget applied; 0 when none."),
                "root": entry,
                "not_included": {
                    "type": "object",
                    "description": "Files extract would leave out, by reason.",
                    "additionalProperties": { "type": "integer", "minimum": 0 },
                },
                "entries": { "type": "array", "items": entry, "description": "Shown entries, in the order of the text." },
                "complete": { "type": "boolean", "description": "True when every entry is shown." },
                "expand": {
                    "type": "array",
                    "items": { "type": "string" },
                    "description": "Directories with entries not shown, biggest first: pass one as path.",
                },
            },
            "required": ["answer_tokens", "encoding", "budget", "root", "not_included", "entries", "complete", "expand"],
            "additionalProperties": false,
        }))
    }
    fn call(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        navigation::outcome(|| {
            let args: Args = navigation::args(self, args)?;
            let path = args.path.as_ref().map(|p| navigation::path_arg("path", p));
            let tree_args = TreeArgs {
                path: path.transpose()?,
                depth: args.depth.map(|t| t.0),
            };
            let req = navigation::call_request(
                ctx,
                args.repo.as_ref(),
                args.include,
                args.exclude,
                args.budget,
            )?;
            let a = tree::tree(&req, &tree_args).map_err(|e| navigation::failure(self, e))?;
            let structured = structured(&a);
            Ok(navigation::result(ctx, a.text, structured))
        })
    }
}

fn entry(e: &Entry) -> Value {
    json!({
        "path": e.path,
        "type": if e.is_dir { "dir" } else { "file" },
        "depth": e.depth,
        "files": e.files,
        "lines": e.lines,
        "bytes": e.bytes,
        "tokens": e.tokens,
        "hidden_entries": e.hidden_entries,
        "hidden_tokens": e.hidden_tokens,
    })
}

fn structured(a: &TreeAnswer) -> Value {
    json!({
        "answer_tokens": a.tokens,
        "encoding": a.encoding.name(),
        "budget": a.budget.unwrap_or(0),
        "root": entry(&a.root),
        "not_included": a.not_included,
        "entries": a.entries.iter().map(entry).collect::<Vec<_>>(),
        "complete": a.expand.is_empty(),
        "expand": a.expand,
    })
}
