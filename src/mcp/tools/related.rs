//! `related`: the files most related to one file (or one of its definitions) by the search
//! index, best first, each with why (see [`crate::driver::nav::related`]).

use super::super::args::{Budget, MaxChars, PathText, Repo, Tokens};
use super::super::tool::{About, Declared, Fields, Outcome, ToolContext};
use super::navigation;
use crate::driver::nav::related::{self, DEFAULT_LIMIT, MAX_LIMIT, RelatedAnswer, RelatedArgs};
use serde_json::{Value, json};

const DESCRIPTION: &str = "Files linked to one file by imports, both ways, and by names it defines or uses. Use it to widen from a hit.";

/// The `related` tool.
pub struct Related;

/// The arguments of `related`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    repo: Repo,
    /// A file, or path::Name for one of the names it defines.
    path: PathText,
    #[schemars(
        description = format!("Most files to list, best first (default {DEFAULT_LIMIT})."),
        range(min = 1, max = MAX_LIMIT)
    )]
    limit: Option<Tokens>,
    budget: Option<Budget>,
    max_chars: Option<MaxChars>,
}

impl Declared for Related {
    const ABOUT: About = About {
        name: "related",
        title: "Related files",
        description: DESCRIPTION,
        summary: "find the files linked to one file by imports and shared names, to widen a search from a hit",
    };
    type Args = Args;
    const OUTPUT_SHARED: Fields = navigation::COUNTED;
    const OUTPUT: Option<Fields> = Some(&[("total_files", "integer"), ("files", "array")]);
    fn run(&self, args: Args, ctx: &ToolContext<'_>) -> Result<Outcome, Outcome> {
        let call =
            navigation::call_request(ctx, &args.repo, None, None, args.budget, args.max_chars)?;
        let (path, symbol) = split_symbol(&args.path.0);
        let related_args = RelatedArgs {
            path,
            symbol,
            limit: args.limit.map(|t| t.0),
        };
        navigation::answer(
            self,
            ctx,
            call,
            |req| related::related(req, &related_args),
            fields,
        )
    }
}

/// `src/a.rs::Name` → the path and the name; a path without `::` is the whole file.
fn split_symbol(given: &str) -> (String, Option<String>) {
    match given.rsplit_once("::") {
        Some((path, name)) if !path.is_empty() && !name.is_empty() && !name.contains('/') => {
            (path.to_string(), Some(name.to_string()))
        }
        _ => (given.to_string(), None),
    }
}

/// The fields of its structured copy after the counted ones.
fn fields(a: &RelatedAnswer) -> Value {
    json!({
        "total_files": a.total_files,
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
