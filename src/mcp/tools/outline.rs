//! `outline`: each file's definitions, nested, with line ranges, signatures and first doc lines,
//! exactly within a token budget, with the continuation as a plain `paths` argument (see
//! [`crate::driver::nav::outline`]).

use super::super::args::{Budget, MaxChars, PathText, Repo};
use super::super::tool::{About, Declared, Fields, Outcome, ToolContext};
use super::navigation;
use crate::driver::nav::outline::{self, OutlineAnswer};
use serde_json::{Value, json};

const DESCRIPTION: &str = "Each file's definitions, nested: START-END kind name: signature. See what a file holds, then `read` one.";

/// The `outline` tool.
pub struct OutlineTool;

/// The arguments of `outline`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    repo: Repo,
    /// Each "path", or "path:START-" for the definitions from line START.
    #[schemars(length(min = 1, max = outline::MAX_PATHS))]
    paths: Vec<PathText>,
    budget: Option<Budget>,
    max_chars: Option<MaxChars>,
}

impl Declared for OutlineTool {
    const ABOUT: About = About {
        name: "outline",
        title: "Outline files",
        description: DESCRIPTION,
        summary: "list the definitions in files (kind, name, signature, line range) to read just one",
    };
    type Args = Args;
    const OUTPUT_SHARED: Fields = navigation::COUNTED;
    const OUTPUT: Option<Fields> = Some(&[
        ("complete", "boolean"),
        ("next_paths", "array"),
        ("files", "array"),
    ]);
    fn run(&self, args: Args, ctx: &ToolContext<'_>) -> Result<Outcome, Outcome> {
        let given: Vec<String> = args.paths.into_iter().map(|p| p.0).collect();
        let call =
            navigation::call_request(ctx, &args.repo, None, None, args.budget, args.max_chars)?;
        navigation::answer(self, ctx, call, |req| outline::outline(req, &given), fields)
    }
}

/// The fields of its structured copy after the counted ones.
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
