//! `grep`: the lines of a repository matching a pattern, searched in the text the model would
//! be shown (secrets already redacted), with totals and a plain `after` continuation (see
//! [`crate::driver::nav::grep`], whose arguments it takes).

use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::grep::{self, GrepArgs, GrepFacts};

/// The `grep` tool.
pub static GREP: Navigation<GrepArgs, GrepFacts> = Navigation {
    about: About {
        name: "grep",
        title: "Grep files",
        description: "Lines matching a regex, grouped by file, numbered, with totals; prefer it to `search` for exact text.",
        summary: "find where something is defined or used: matching lines with numbers and totals",
    },
    filtered: true,
    run: grep::grep,
};
