//! `related`: the files most related to one file (or one of its definitions) by the search
//! index and the git history, best first, each with why (see [`crate::driver::nav::related`],
//! whose arguments it takes).

use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::related::{self, RelatedArgs, RelatedFacts};

/// The `related` tool.
pub static RELATED: Navigation<RelatedArgs, RelatedFacts> = Navigation {
    about: About {
        name: "related",
        title: "Related files",
        description: "Files tied to one file by imports both ways, shared names and co-changes; widens a search from a hit.",
        summary: "find the files linked to one file by imports, shared names and commits, to widen a search from a hit",
    },
    filtered: true,
    run: related::related,
};
