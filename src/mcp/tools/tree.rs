//! `tree`: a repository's directory tree with each entry's lines, bytes and the exact tokens
//! extract would spend on it, biggest first, within a budget (see
//! [`crate::driver::nav::tree`]).

use super::super::args::{self, Budget, Exclude, Include, PathText, Repo, Tokens};
use super::super::tool::{Outcome, Tool, ToolContext};
use super::navigation::{self, integer, string};
use crate::driver::nav::tree::{self, Entry, TreeAnswer, TreeArgs};
use serde_json::{Map, Value, json};

const DESCRIPTION: &str = "Directory tree with lines, bytes and tokens per entry, biggest first. Use it first on an unfamiliar repository.";

/// The `tree` tool.
pub struct Tree;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    repo: Repo,
    /// Directory inside the repository to list (default: all of it).
    path: Option<PathText>,
    /// Levels shown below path; 1 for its own entries (default: the budget's).
    depth: Option<Tokens>,
    include: Option<Include>,
    exclude: Option<Exclude>,
    budget: Option<Budget>,
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
        args::input_schema::<Args>()
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
            let tree_args = TreeArgs {
                path: args.path.map(|p| p.0),
                depth: args.depth.map(|t| t.0),
            };
            let req =
                navigation::call_request(ctx, &args.repo, args.include, args.exclude, args.budget)?;
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
