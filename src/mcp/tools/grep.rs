//! `grep`: the lines of a repository matching a pattern, searched in the text the model would
//! be shown (secrets already redacted), with totals and a plain `after` continuation (see
//! [`crate::driver::nav::grep`]).

use super::super::args::{self, Budget, Exclude, Include, PathText, Repo, Text, Tokens};
use super::super::tool::{Outcome, Tool, ToolContext};
use super::navigation::{self, integer, string};
use crate::driver::nav::grep::{self, GrepAnswer, GrepArgs};
use crate::stages::grep::PatternOptions;
use serde_json::{Map, Value, json};

const DESCRIPTION: &str = "Lines matching a regex, by file, with line numbers and totals. Prefer it to `search` for an exact text.";

/// The `grep` tool.
pub struct Grep;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    repo: Repo,
    /// A Rust regex matched on each line, e.g. "fn \\w+".
    pattern: Text,
    /// Match the pattern as a string, not a regex.
    fixed_strings: Option<bool>,
    /// Match letters in either case (default false).
    ignore_case: Option<bool>,
    include: Option<Include>,
    exclude: Option<Exclude>,
    /// Lines shown around each match (default 0, at most 50).
    context: Option<Tokens>,
    /// Most matches shown (default 200); totals count all.
    max_matches: Option<Tokens>,
    budget: Option<Budget>,
    /// The continuation a cut answer gives, as given.
    after: Option<PathText>,
}

impl Tool for Grep {
    fn name(&self) -> &'static str {
        "grep"
    }
    fn title(&self) -> &'static str {
        "Search repository text"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn summary(&self) -> &'static str {
        "find where something is defined or used: matching lines with numbers and totals"
    }
    fn input_schema(&self) -> Value {
        args::input_schema::<Args>()
    }
    fn output_schema(&self) -> Option<Value> {
        let n = integer;
        Some(json!({
            "type": "object",
            "properties": {
                "answer_tokens": n("Exact token count of the text answer."),
                "encoding": string("The tiktoken encoding of the count."),
                "budget": n("The token budget applied; 0 when none."),
                "total_matches": n("Matching lines in the whole search."),
                "total_files": n("Files holding them."),
                "files_searched": n("Files searched."),
                "not_searched": {
                    "type": "object",
                    "description": "Files not searched, by reason (binary, too_large, sensitive, ...).",
                    "additionalProperties": { "type": "integer", "minimum": 0 },
                },
                "first": n("Position of the first shown match among all (1-based; 0 when none is shown)."),
                "matches": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": string("The file, as gnaw shows paths."),
                            "line": { "type": "integer", "minimum": 1 },
                            "text": string("The line, cut around the match when long."),
                        },
                        "required": ["path", "line", "text"],
                    },
                },
                "complete": { "type": "boolean", "description": "True when every match after the start position is shown." },
                "after": string("The after argument that continues the answer; empty when complete."),
            },
            "required": ["answer_tokens", "encoding", "budget", "total_matches", "total_files",
                         "files_searched", "not_searched", "first", "matches", "complete", "after"],
            "additionalProperties": false,
        }))
    }
    fn call(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        navigation::outcome(|| {
            let args: Args = navigation::args(self, args)?;
            let pattern = args.pattern;
            let grep_args = GrepArgs {
                pattern: pattern.0,
                options: PatternOptions {
                    fixed_strings: args.fixed_strings.unwrap_or(false),
                    ignore_case: args.ignore_case.unwrap_or(false),
                },
                context: args.context.map_or(0, |t| t.0),
                max_matches: args.max_matches.map(|t| t.0),
                after: args.after.map(|a| a.0),
            };
            let req =
                navigation::call_request(ctx, &args.repo, args.include, args.exclude, args.budget)?;
            let a = grep::grep(&req, &grep_args).map_err(|e| navigation::failure(self, e))?;
            let structured = structured(&a);
            Ok(navigation::result(ctx, a.text, structured))
        })
    }
}

fn structured(a: &GrepAnswer) -> Value {
    json!({
        "answer_tokens": a.tokens,
        "encoding": a.encoding.name(),
        "budget": a.budget.unwrap_or(0),
        "total_matches": a.total_matches,
        "total_files": a.total_files,
        "files_searched": a.files_searched,
        "not_searched": a.not_searched,
        "first": a.first,
        "matches": a.matches.iter().map(|m| json!({
            "path": m.path, "line": m.line, "text": m.text,
        })).collect::<Vec<_>>(),
        "complete": a.next.is_empty(),
        "after": a.next,
    })
}
