//! `read`: the lines of files by range, numbered, exactly within a token budget, with the
//! continuation as a plain `paths` argument (see [`crate::driver::nav::read`]).

use super::super::args::{Budget, PathText, Repo, MaxChars};
use super::super::tool::{About, Declared, Fields, Outcome, ToolContext};
use super::navigation;
use crate::driver::nav::read::{self, ReadAnswer};
use serde_json::{Value, json};

const DESCRIPTION: &str = "Numbered lines of files by range (\"path:START-END\"): the code itself, once tree, grep, search or outline found it.";

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
        title: "Read file lines",
        description: DESCRIPTION,
        summary: "read files or line ranges you found, numbered, within a budget",
    };
    type Args = Args;
    const OUTPUT: Option<Fields> = Some(&[("answer_tokens", "integer"), ("encoding", "string"), ("budget", "integer"), ("complete", "boolean"), ("next_paths", "array"), ("files", "array")]);
    fn run(&self, args: Args, ctx: &ToolContext<'_>) -> Result<Outcome, Outcome> {
        let given: Vec<String> = args.paths.into_iter().map(|p| p.0).collect();
        let call = navigation::call_request(ctx, &args.repo, None, None, args.budget, args.max_chars)?;
        navigation::answer(self, ctx, call, |req| {
            let a = read::read(req, &given)?;
            Ok((structured(&a), a.text))
        })
    }
}

fn structured(a: &ReadAnswer) -> Value {
    json!({
        "answer_tokens": a.tokens,
        "encoding": a.encoding.name(),
        "budget": a.budget.unwrap_or(0),
        "complete": a.next.is_empty(),
        "next_paths": a.next,
        "files": a.files.iter().map(|f| json!({
            "path": f.path, "status": f.status, "reason": f.reason,
            "total_lines": f.total_lines, "start": f.start, "end": f.end,
            "tokens": f.tokens, "lossy": f.lossy,
        })).collect::<Vec<_>>(),
    })
}
