//! `grep`: the lines of a repository matching a pattern, searched in the text the model would
//! be shown (secrets already redacted), with totals and a plain `after` continuation (see
//! [`crate::driver::nav::grep`]).

use super::super::args::{Budget, Exclude, Include, PathText, Repo, Text, Tokens};
use super::super::tool::{About, Declared, Fields, Outcome, ToolContext};
use super::navigation;
use crate::driver::nav::grep::{self, GrepAnswer, GrepArgs};
use crate::stages::grep::PatternOptions;
use serde_json::{Value, json};

const DESCRIPTION: &str = "Lines matching a regex, by file, with line numbers and totals. Prefer it to `search` for an exact text.";

/// The `grep` tool.
pub struct Grep;

/// The arguments of `grep`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
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

impl Declared for Grep {
    const ABOUT: About = About {
        name: "grep",
        title: "Search repository text",
        description: DESCRIPTION,
        summary: "find where something is defined or used: matching lines with numbers and totals",
    };
    type Args = Args;
    const OUTPUT: Option<Fields> = Some(&[("answer_tokens", "integer"), ("encoding", "string"), ("budget", "integer"), ("total_matches", "integer"), ("total_files", "integer"), ("files_searched", "integer"), ("not_searched", "object"), ("first", "integer"), ("matches", "array"), ("complete", "boolean"), ("after", "string")]);
    fn run(&self, args: Args, ctx: &ToolContext<'_>) -> Result<Outcome, Outcome> {
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
            count: true,
        };
        let req =
            navigation::call_request(ctx, &args.repo, args.include, args.exclude, args.budget)?;
        let a = grep::grep(&req, &grep_args).map_err(|e| navigation::failure(self, e))?;
        let structured = structured(&a);
        Ok(navigation::result(ctx, a.text, structured))
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
