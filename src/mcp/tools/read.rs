//! `read`: the lines of files by range, numbered, exactly within a token budget, with the
//! continuation as a plain `paths` argument (see [`crate::driver::nav::read`]).

use super::super::args::PathText;
use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::read::{self, ReadFacts};

/// The arguments of `read`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// Each "path", "path:START-END", "path:START-" or "path:N" (1-based).
    #[schemars(length(min = 1, max = read::MAX_PATHS))]
    paths: Vec<PathText>,
}

/// The `read` tool.
pub static READ: Navigation<Args, ReadFacts> = Navigation {
    about: About {
        name: "read",
        title: "Read lines",
        description: "Numbered lines of files by range (path:START-END): the code itself, once tree, grep, search or outline found it.",
        summary: "read files or line ranges you found, numbered, within a budget",
    },
    filtered: false,
    run: |req, args| read::read(req, &PathText::all(&args.paths)),
};
