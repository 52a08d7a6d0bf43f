//! `outline`: each file's definitions, nested, with line ranges, signatures and first doc lines,
//! exactly within a token budget, with the continuation as a plain `paths` argument (see
//! [`crate::driver::nav::outline`]).

use super::super::args::PathText;
use super::super::tool::About;
use super::navigation::{Navigating, Own};
use crate::driver::nav::outline::{self, OutlineAnswer};
use crate::driver::nav::{NavError, Request};
use serde_json::{Value, json};

const SUMMARY: &str =
    "list the definitions in files (kind, name, signature, line range) to read just one";
const DESCRIPTION: &str = "Each file's definitions, nested: START-END kind name: signature. See what a file holds, then `read` one.";

/// The `outline` tool.
pub struct OutlineTool;

/// The arguments of `outline`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// Each "path", or "path:START-" for the definitions from line START.
    #[schemars(length(min = 1, max = outline::MAX_PATHS))]
    paths: Vec<PathText>,
}

impl Own for Args {}

impl Navigating for OutlineTool {
    const ABOUT: About = About::new("outline", "Outline files", DESCRIPTION, SUMMARY);
    type Args = Args;
    type Answer = OutlineAnswer;
    fn run(args: &Args, req: &Request<'_>) -> Result<OutlineAnswer, NavError> {
        outline::outline(req, &PathText::all(&args.paths))
    }
    fn fields(a: &OutlineAnswer) -> Value {
        json!({
            "complete": a.next.is_empty(),
            "next_paths": a.next,
            "files": a.files.iter().map(|f| json!({
                "path": f.path, "status": f.status, "reason": f.reason, "language": f.language,
                "total_lines": f.total_lines, "definitions": f.definitions, "shown": f.shown,
            })).collect::<Vec<_>>(),
        })
    }
}
