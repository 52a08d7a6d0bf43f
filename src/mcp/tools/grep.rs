//! `grep`: the lines of a repository matching a pattern, searched in the text the model would
//! be shown (secrets already redacted), with totals and a plain `after` continuation (see
//! [`crate::driver::nav::grep`]).

use super::super::args::{PathText, Text, Tokens};
use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::grep::{self, GrepArgs, GrepFacts};
use crate::stages::grep::PatternOptions;

/// The arguments of `grep`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// A Rust regex, matched against every line.
    pattern: Text,
    /// Match the pattern as a string, not a regex.
    fixed_strings: Option<bool>,
    /// Match letters in either case (default false).
    ignore_case: Option<bool>,
    /// Lines shown around each match (at most 50).
    context: Option<Tokens>,
    /// Most matches shown (default 200), all counted.
    max_matches: Option<Tokens>,
    /// The continuation a cut answer gives, as given.
    after: Option<PathText>,
}

/// The `grep` tool.
pub static GREP: Navigation<Args, GrepFacts> = Navigation {
    about: About {
        name: "grep",
        title: "Grep files",
        description: "Lines matching a regex, grouped by file, numbered, with totals; prefer it to `search` for exact text.",
        summary: "find where something is defined or used: matching lines with numbers and totals",
    },
    filtered: true,
    run: |args, req| {
        let grep_args = GrepArgs {
            pattern: args.pattern.0.clone(),
            options: PatternOptions {
                fixed_strings: args.fixed_strings.unwrap_or(false),
                ignore_case: args.ignore_case.unwrap_or(false),
            },
            context: args.context.map_or(0, |t| t.0),
            max_matches: args.max_matches.map(|t| t.0),
            after: args.after.as_ref().map(|a| a.0.clone()),
            count: true,
        };
        grep::grep(req, &grep_args)
    },
};
