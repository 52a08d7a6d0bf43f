//! `related`: the files most related to one file (or one of its definitions) by the search
//! index, best first, each with why (see [`crate::driver::nav::related`]).

use super::super::args::{Budget, Exclude, Include, PathText, Repo, Text, Tokens};
use super::super::tool::{About, Declared, Fields, Outcome, ToolContext};
use super::navigation;
use crate::driver::nav::related::{self, DEFAULT_LIMIT, MAX_LIMIT, RelatedAnswer, RelatedArgs};
use serde_json::{Value, json};

const DESCRIPTION: &str = "Files most related to a file: what it imports and what imports it, who uses its names and whose names it uses. Use it to widen from a search hit.";

/// The `related` tool.
pub struct Related;

/// The arguments of `related`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    repo: Repo,
    /// A file in the repository, as tools show it.
    path: PathText,
    /// Only this name of the file counts ("parse_header").
    symbol: Option<Text>,
    #[schemars(
        description = format!("Most files (default {DEFAULT_LIMIT})."),
        range(min = 1, max = MAX_LIMIT)
    )]
    limit: Option<Tokens>,
    include: Option<Include>,
    exclude: Option<Exclude>,
    budget: Option<Budget>,
}

impl Declared for Related {
    const ABOUT: About = About {
        name: "related",
        title: "Files related to a file",
        description: DESCRIPTION,
        summary: "find the files linked to one file by imports and shared names, to widen a search from a hit",
    };
    type Args = Args;
    const OUTPUT: Option<Fields> = Some(&[("answer_tokens", "integer"), ("encoding", "string"), ("budget", "integer"), ("total_files", "integer"), ("files_searched", "integer"), ("files", "array")]);
    fn run(&self, args: Args, ctx: &ToolContext<'_>) -> Result<Outcome, Outcome> {
        let req =
            navigation::call_request(ctx, &args.repo, args.include, args.exclude, args.budget)?;
        let a = related::related(
            &req,
            &RelatedArgs {
                path: args.path.0,
                symbol: args.symbol.map(|s| s.0),
                limit: args.limit.map(|t| t.0),
            },
        )
        .map_err(|e| navigation::failure(self, e))?;
        let structured = structured(&a);
        Ok(navigation::result(ctx, a.text, structured))
    }
}

fn structured(a: &RelatedAnswer) -> Value {
    json!({
        "answer_tokens": a.tokens,
        "encoding": a.encoding.name(),
        "budget": a.budget.unwrap_or(0),
        "total_files": a.total_files,
        "files_searched": a.files_searched,
        "files": a.files.iter().map(|f| json!({
            "path": f.path,
            "score": f.score,
            "imports_it": f.imports.0,
            "imported_by_it": f.imports.1,
            "uses": f.uses,
            "provides": f.provides,
        })).collect::<Vec<_>>(),
    })
}
