//! `read`: the lines of files by range, numbered, exactly within a token budget, with the
//! continuation as a plain `paths` argument (see [`crate::driver::nav::read`]).

use super::super::args::{Budget, MaxChars, PathText, Repo};
use super::super::tool::{About, Declared, Fields, Outcome, ToolContext};
use super::navigation;
use crate::driver::nav::read::{self, ReadAnswer};
use serde_json::{Value, json};

const DESCRIPTION: &str = "Numbered lines of files by range (path:START-END): the code itself, once tree, grep, search or outline found it.";

/// The `read` tool.
pub struct Read;

/// The arguments of `read`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    repo: Repo,
    /// Each "path", "path:START-END", "path:START-" or "path:N" (1-based).
    #[schemars(length(min = 1, max = read::MAX_PATHS))]
    paths: Vec<PathText>,
    budget: Option<Budget>,
    max_chars: Option<MaxChars>,
}

impl Declared for Read {
    const ABOUT: About = About {
        name: "read",
        title: "Read lines",
        description: DESCRIPTION,
        summary: "read files or line ranges you found, numbered, within a budget",
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
        navigation::answer(self, ctx, call, |req| read::read(req, &given), fields)
    }
}

/// The fields of its structured copy after the counted ones.
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
