//! `changes`: the working tree against a commit, as a list of changed files and a unified diff,
//! read from `.git` in-process (never by running git), within a token budget, with the
//! continuation as a plain `after` argument (see `crate::driver::git::changes`, whose arguments
//! it takes).

use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::git::changes::{self, ChangesArgs, ChangesFacts};

/// The `changes` tool.
pub static CHANGES: Navigation<ChangesArgs, ChangesFacts> = Navigation {
    about: About {
        name: "changes",
        title: "Changes (git diff)",
        description: "What changed in the working tree since `base` (default HEAD): files with status and line counts, then the diff.",
        summary: "what changed in the working tree against a commit: files with status, then the diff",
    },
    filtered: false,
    run: changes::changes,
};
