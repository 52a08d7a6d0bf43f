//! `related`: the files most related to one file (or one of its definitions) by the search
//! index and the git history, best first, each with why (see [`crate::driver::nav::related`]).

use super::super::args::{PathText, Tokens};
use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::related::{self, DEFAULT_LIMIT, MAX_LIMIT, RelatedArgs, RelatedFacts};

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

/// The `related` tool.
pub static RELATED: Navigation<Args, RelatedFacts> = Navigation {
    about: About {
        name: "related",
        title: "Related files",
        description: "Files linked to one file by imports (both ways), shared names and commits changing both. Use it to widen from a hit.",
        summary: "find the files linked to one file by imports, shared names and commits, to widen a search from a hit",
    },
    filtered: false,
    run: |req, args| {
        let (path, symbol) = split_symbol(&args.path.0);
        let related_args = RelatedArgs {
            path,
            symbol,
            limit: args.limit.map(|t| t.0),
        };
        related::related(req, &related_args)
    },
};

/// `src/a.rs::Name` → the path and the name; a path without `::` is the whole file.
fn split_symbol(given: &str) -> (String, Option<String>) {
    match given.rsplit_once("::") {
        Some((path, name)) if !path.is_empty() && !name.is_empty() && !name.contains('/') => {
            (path.to_string(), Some(name.to_string()))
        }
        _ => (given.to_string(), None),
    }
}
