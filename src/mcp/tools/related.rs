//! `related`: the files most related to one file (or one of its definitions) by the search
//! index, best first, each with why (see [`crate::driver::nav::related`]).

use super::super::args::{PathText, Tokens};
use super::super::tool::About;
use super::navigation::{Navigating, Own};
use crate::driver::nav::related::{self, DEFAULT_LIMIT, MAX_LIMIT, RelatedAnswer, RelatedArgs};
use crate::driver::nav::{NavError, Request};
use serde_json::{Value, json};

const SUMMARY: &str =
    "find the files linked to one file by imports and shared names, to widen a search from a hit";
const DESCRIPTION: &str = "Files linked to one file by imports, both ways, and by names it defines or uses. Use it to widen from a hit.";

/// The `related` tool.
pub struct Related;

/// The arguments of `related`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// A file, or path::Name for one of the names it defines.
    path: PathText,
    #[schemars(
        description = format!("Most files to list, best first (default {DEFAULT_LIMIT})."),
        range(min = 1, max = MAX_LIMIT)
    )]
    limit: Option<Tokens>,
}

impl Own for Args {}

impl Navigating for Related {
    const ABOUT: About = About::new("related", "Related files", DESCRIPTION, SUMMARY);
    type Args = Args;
    type Answer = RelatedAnswer;
    fn run(args: &Args, req: &Request<'_>) -> Result<RelatedAnswer, NavError> {
        let (path, symbol) = split_symbol(&args.path.0);
        let related_args = RelatedArgs {
            path,
            symbol,
            limit: args.limit.map(|t| t.0),
        };
        related::related(req, &related_args)
    }
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
