//! `log`: a local repository's history, newest first, each commit with the files it changed and
//! their line counts (optionally the patch), read from `.git` in-process (never by running
//! git), within a token budget, with the continuation as a plain `skip` argument (see
//! [`crate::driver::git::log`]).

use super::super::args::{Budget, MaxChars, PathText, Repo, Text};
use super::super::tool::{About, Declared, Fields, Outcome, ToolContext};
use super::navigation;
use crate::driver::git::log::{self, LogAnswer, LogArgs};
use serde_json::{Value, json};

const DESCRIPTION: &str = "Commit history, newest first: id, author, date, message, files with lines added and removed; diffs by `patch`.";

/// The `log` tool.
pub struct Log;

/// The arguments of `log`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    repo: Repo,
    /// Commit to start from: branch, tag or id (default HEAD).
    rev: Option<Text>,
    /// Most commits shown (default 20, at most 10000).
    max_count: Option<usize>,
    /// Only the commits that change this file or directory.
    path: Option<PathText>,
    /// Only commits since YYYY-MM-DD, an RFC 3339 time or @SECONDS.
    since: Option<Text>,
    /// Also show each commit's diff (default false).
    patch: Option<bool>,
    /// The continuation a cut answer gives, as given.
    skip: Option<usize>,
    budget: Option<Budget>,
    max_chars: Option<MaxChars>,
}

impl Declared for Log {
    const ABOUT: About = About {
        name: "log",
        title: "History (git log)",
        description: DESCRIPTION,
        summary: "the commit history with files changed and line counts, optionally with patches",
    };
    type Args = Args;
    const OUTPUT_SHARED: Fields = navigation::COUNTED;
    const OUTPUT: Option<Fields> = Some(&[
        ("commits", "array"),
        ("complete", "boolean"),
        ("next_skip", "integer"),
    ]);
    fn run(&self, args: Args, ctx: &ToolContext<'_>) -> Result<Outcome, Outcome> {
        let call =
            navigation::call_request(ctx, &args.repo, None, None, args.budget, args.max_chars)?;
        let largs = LogArgs {
            rev: args.rev.map(|t| t.0),
            max_count: args.max_count,
            path: args.path.map(|p| p.0),
            since: args.since.map(|t| t.0),
            patch: args.patch.unwrap_or(false),
            skip: args.skip.unwrap_or(0),
            count: true,
        };
        navigation::answer(self, ctx, call, |req| log::log(req, &largs), fields)
    }
}

/// The fields of its structured copy after the counted ones.
fn fields(a: &LogAnswer) -> Value {
    json!({
        "complete": a.next_skip.is_none(),
        "next_skip": a.next_skip.unwrap_or(0),
        "commits": a.commits.iter().map(|c| json!({
            "id": c.id, "short": c.short, "author": c.author, "date": c.date,
            "subject": c.subject, "files": c.files,
        })).collect::<Vec<_>>(),
    })
}
