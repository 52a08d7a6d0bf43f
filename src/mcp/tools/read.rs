//! `read`: the lines of files by range, numbered, exactly within a token budget, with the
//! continuation as a plain `paths` argument (see [`crate::driver::nav::read`]).

use super::super::args::PathText;
use super::super::tool::About;
use super::navigation::{Navigating, Own};
use crate::driver::nav::read::{self, ReadAnswer};
use crate::driver::nav::{NavError, Request};
use serde_json::{Value, json};

const SUMMARY: &str = "read files or line ranges you found, numbered, within a budget";
const DESCRIPTION: &str = "Numbered lines of files by range (path:START-END): the code itself, once tree, grep, search or outline found it.";

/// The `read` tool.
pub struct Read;

/// The arguments of `read`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// Each "path", "path:START-END", "path:START-" or "path:N" (1-based).
    #[schemars(length(min = 1, max = read::MAX_PATHS))]
    paths: Vec<PathText>,
}

impl Own for Args {}

impl Navigating for Read {
    const ABOUT: About = About::new("read", "Read lines", DESCRIPTION, SUMMARY);
    type Args = Args;
    type Answer = ReadAnswer;
    fn run(args: &Args, req: &Request<'_>) -> Result<ReadAnswer, NavError> {
        read::read(req, &PathText::all(&args.paths))
    }
    fn fields(a: &ReadAnswer) -> Value {
        json!({
            "complete": a.next.is_empty(),
            "next_paths": a.next,
            "files": a.files.iter().map(|f| json!({
                "path": f.path, "status": f.status, "reason": f.reason,
                "total_lines": f.total_lines, "start": f.start, "end": f.end,
                "tokens": f.tokens, "lossy": f.lossy,
            })).collect::<Vec<_>>(),
        })
    }
}
