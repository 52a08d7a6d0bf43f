//! `read`: the lines of files by range, numbered, exactly within a token budget, with the
//! continuation as a plain `paths` argument (see [`crate::driver::nav::read`]).

use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::read::{self, ReadArgs, ReadFacts};

/// The `read` tool.
pub static READ: Navigation<ReadArgs, ReadFacts> = Navigation {
    about: About {
        name: "read",
        title: "Read lines",
        description: "Numbered lines of files by range (path:START-END): the code itself, once tree, grep, search or outline found it.",
        summary: "read files or line ranges you found, numbered, within a budget",
    },
    filtered: false,
    run: |req, args| read::read(req, &args.paths),
};
