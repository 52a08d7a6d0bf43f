//! `log`: a local repository's history, newest first, each commit with the files it changed and
//! their line counts (optionally the patch), read from `.git` in-process (never by running
//! git), within a token budget, with the continuation as a plain `skip` argument (see
//! [`crate::driver::git::log`], whose arguments it takes).

use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::git::log::{self, LogArgs, LogFacts};

/// The `log` tool.
pub static LOG: Navigation<LogArgs, LogFacts> = Navigation {
    about: About {
        name: "log",
        title: "History (git log)",
        description: "Commit history, newest first: id, author, date, message, files with lines added and removed; diffs by `patch`.",
        summary: "the commit history with files changed and line counts, optionally with patches",
    },
    filtered: false,
    run: log::log,
};
