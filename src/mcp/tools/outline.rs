//! `outline`: each file's definitions, nested, with line ranges, signatures and first doc lines,
//! exactly within a token budget, with the continuation as a plain `paths` argument (see
//! [`crate::driver::nav::outline`]).

use super::super::args::PathText;
use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::outline::{self, OutlineFacts};

/// The arguments of `outline`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// Each "path", or "path:START-" for the definitions from line START.
    #[schemars(length(min = 1, max = outline::MAX_PATHS))]
    paths: Vec<PathText>,
}

/// The `outline` tool.
pub static OUTLINE: Navigation<Args, OutlineFacts> = Navigation {
    about: About {
        name: "outline",
        title: "Outline files",
        description: "Each file's definitions, nested: START-END kind name: signature. See what a file holds, then `read` one.",
        summary: "list the definitions in files (kind, name, signature, line range) to read just one",
    },
    filtered: false,
    run: |req, args| outline::outline(req, &PathText::all(&args.paths)),
};
