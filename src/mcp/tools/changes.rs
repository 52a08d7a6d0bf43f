//! `changes`: the working tree against a commit, as a list of changed files and a unified diff,
//! read from `.git` in-process (never by running git), within a token budget, with the
//! continuation as a plain `after` argument (see [`crate::driver::git::changes`]).

use super::super::args::{PathText, Text};
use super::super::tool::About;
use super::navigation::{Navigating, Own};
use crate::driver::git::changes::{self, ChangesAnswer, ChangesArgs};
use crate::driver::nav::{NavError, Request};
use serde_json::{Value, json};

const SUMMARY: &str =
    "what changed in the working tree against a commit: files with status, then the diff";
const DESCRIPTION: &str = "What changed in the working tree since `base` (default HEAD): files with status and line counts, then the diff.";

/// The `changes` tool.
pub struct Changes;

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

impl Own for Args {}

impl Navigating for Changes {
    const ABOUT: About = About::new("changes", "Changes (git diff)", DESCRIPTION, SUMMARY);
    type Args = Args;
    type Answer = ChangesAnswer;
    fn run(args: &Args, req: &Request<'_>) -> Result<ChangesAnswer, NavError> {
        let changes_args = ChangesArgs {
            base: args.base.as_ref().map(|t| t.0.clone()),
            paths: args.paths.iter().flatten().map(|p| p.0.clone()).collect(),
            context: args.context,
            after: args.after.as_ref().map(|t| t.0.clone()),
            count: true,
        };
        changes::changes(req, &changes_args)
    }
    fn fields(a: &ChangesAnswer) -> Value {
        json!({
            "base": a.base,
            "files_not_listed": a.files_not_listed,
            "complete": a.next.is_none(),
            "next_after": a.next.clone().unwrap_or_default(),
            "files": a.files.iter().map(|f| json!({
                "status": f.status, "path": f.path, "old_path": f.old_path,
                "added": f.added, "removed": f.removed, "note": f.note,
            })).collect::<Vec<_>>(),
        })
    }
}
