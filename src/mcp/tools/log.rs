//! `log`: a local repository's history, newest first, each commit with the files it changed and
//! their line counts (optionally the patch), read from `.git` in-process (never by running
//! git), within a token budget, with the continuation as a plain `skip` argument (see
//! [`crate::driver::git::log`]).

use super::super::args::{PathText, Text};
use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::git::log::{self, LogArgs, LogFacts};

/// The arguments of `log`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
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
}

/// The `log` tool.
pub static LOG: Navigation<Args, LogFacts> = Navigation {
    about: About {
        name: "log",
        title: "History (git log)",
        description: "Commit history, newest first: id, author, date, message, files with lines added and removed; diffs by `patch`.",
        summary: "the commit history with files changed and line counts, optionally with patches",
    },
    filtered: false,
    run: |args, req| {
        let log_args = LogArgs {
            rev: args.rev.as_ref().map(|t| t.0.clone()),
            max_count: args.max_count,
            path: args.path.as_ref().map(|p| p.0.clone()),
            since: args.since.as_ref().map(|t| t.0.clone()),
            patch: args.patch.unwrap_or(false),
            skip: args.skip.unwrap_or(0),
            count: true,
        };
        log::log(req, &log_args)
    },
};
