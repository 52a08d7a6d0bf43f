//! `changes`: the working tree against a commit, as a list of changed files and a unified diff,
//! read from `.git` in-process (never by running git), within a token budget, with the
//! continuation as a plain `after` argument (see [`crate::driver::git::changes`]).

use super::super::args::{Budget, MaxChars, PathText, Repo, Text};
use super::super::tool::{About, Declared, Fields, Outcome, ToolContext};
use super::navigation;
use crate::driver::git::changes::{self, ChangesAnswer, ChangesArgs};
use serde_json::{Value, json};

const DESCRIPTION: &str = "What changed in the working tree since `base` (default HEAD): files with status and line counts, then the diff.";

/// The `changes` tool.
pub struct Changes;

/// The arguments of `changes`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    repo: Repo,
    /// Commit to compare the working tree with (default HEAD).
    base: Option<Text>,
    /// Files or directories to limit it to, e.g. src/.
    #[schemars(length(max = crate::driver::git::MAX_PATHS))]
    paths: Option<Vec<PathText>>,
    /// Lines of context around each change (default 3).
    context: Option<u32>,
    /// The continuation a cut answer gives, as given.
    after: Option<Text>,
    budget: Option<Budget>,
    max_chars: Option<MaxChars>,
}

impl Declared for Changes {
    const ABOUT: About = About {
        name: "changes",
        title: "Changes (git diff)",
        description: DESCRIPTION,
        summary: "what changed in the working tree against a commit: files with status, then the diff",
    };
    type Args = Args;
    const OUTPUT_SHARED: Fields = navigation::COUNTED;
    const OUTPUT: Option<Fields> = Some(&[
        ("base", "string"),
        ("files", "array"),
        ("files_not_listed", "integer"),
        ("complete", "boolean"),
        ("next_after", "string"),
    ]);
    fn run(&self, args: Args, ctx: &ToolContext<'_>) -> Result<Outcome, Outcome> {
        let call =
            navigation::call_request(ctx, &args.repo, None, None, args.budget, args.max_chars)?;
        let cargs = ChangesArgs {
            base: args.base.map(|t| t.0),
            paths: args
                .paths
                .unwrap_or_default()
                .into_iter()
                .map(|p| p.0)
                .collect(),
            context: args.context,
            after: args.after.map(|t| t.0),
            count: true,
        };
        navigation::answer(self, ctx, call, |req| changes::changes(req, &cargs), fields)
    }
}

/// The fields of its structured copy after the counted ones.
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
