//! `grep`: the lines of a repository matching a pattern, searched in the text the model would
//! be shown (secrets already redacted), with totals and a plain `after` continuation (see
//! [`crate::driver::nav::grep`]).

use super::super::args::{Budget, Exclude, Include, MaxChars, PathText, Repo, Text, Tokens};
use super::super::tool::{About, Declared, Fields, Outcome, ToolContext};
use super::navigation;
use crate::driver::nav::grep::{self, GrepAnswer, GrepArgs};
use crate::stages::grep::PatternOptions;
use serde_json::{Value, json};

const DESCRIPTION: &str = "Lines matching a regex, grouped by file, numbered, with totals; prefer it to `search` for exact text.";

/// The `grep` tool.
pub struct Grep;

/// The arguments of `grep`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    repo: Repo,
    /// A Rust regex, matched against every line.
    pattern: Text,
    /// Match the pattern as a string, not a regex.
    fixed_strings: Option<bool>,
    /// Match letters in either case (default false).
    ignore_case: Option<bool>,
    include: Option<Include>,
    exclude: Option<Exclude>,
    /// Lines shown around each match (at most 50).
    context: Option<Tokens>,
    /// Most matches shown (default 200), all counted.
    max_matches: Option<Tokens>,
    budget: Option<Budget>,
    max_chars: Option<MaxChars>,
    /// The continuation a cut answer gives, as given.
    after: Option<PathText>,
}

impl Declared for Grep {
    const ABOUT: About = About {
        name: "grep",
        title: "Grep files",
        description: DESCRIPTION,
        summary: "find where something is defined or used: matching lines with numbers and totals",
    };
    type Args = Args;
    const OUTPUT_SHARED: Fields = navigation::COUNTED;
    const OUTPUT: Option<Fields> = Some(&[
        ("total_matches", "integer"),
        ("total_files", "integer"),
        ("files_searched", "integer"),
        ("not_searched", "object"),
        ("first", "integer"),
        ("matches", "array"),
        ("complete", "boolean"),
        ("after", "string"),
    ]);
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
        let call = navigation::call_request(
            ctx,
            &args.repo,
            args.include,
            args.exclude,
            args.budget,
            args.max_chars,
        )?;
        navigation::answer(self, ctx, call, |req| grep::grep(req, &grep_args), fields)
    }
}

/// The fields of its structured copy after the counted ones.
fn fields(a: &GrepAnswer) -> Value {
    json!({
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
