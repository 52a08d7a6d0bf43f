//! `changes`: the working tree against a commit, as a list of changed files and a unified diff,
//! read from `.git` in-process (never by running git), within a token budget, with the
//! continuation as a plain `after` argument (see [`crate::driver::git::changes`]).

use super::super::args::{PathText, Text};
use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::git::changes::{self, ChangesArgs, ChangesFacts};

/// The arguments of `changes`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// Commit to compare the working tree with (default HEAD).
    base: Option<Text>,
    /// Files or directories to limit it to, e.g. src/.
    #[schemars(length(max = crate::driver::git::MAX_PATHS))]
    paths: Option<Vec<PathText>>,
    /// Lines of context around each change (default 3).
    context: Option<u32>,
    /// The continuation a cut answer gives, as given.
    after: Option<Text>,
}

/// The `changes` tool.
pub static CHANGES: Navigation<Args, ChangesFacts> = Navigation {
    about: About {
        name: "changes",
        title: "Changes (git diff)",
        description: "What changed in the working tree since `base` (default HEAD): files with status and line counts, then the diff.",
        summary: "what changed in the working tree against a commit: files with status, then the diff",
    },
    filtered: false,
    run: |args, req| {
        let changes_args = ChangesArgs {
            base: args.base.as_ref().map(|t| t.0.clone()),
            paths: args.paths.iter().flatten().map(|p| p.0.clone()).collect(),
            context: args.context,
            after: args.after.as_ref().map(|t| t.0.clone()),
            count: true,
        };
        changes::changes(req, &changes_args)
    },
};
