//! `tree`: a repository's directory tree with each entry's lines, bytes and the exact tokens
//! extract would spend on it, biggest first, within a budget (see
//! [`crate::driver::nav::tree`]).

use super::super::args::{Budget, Exclude, Include, MaxChars, PathText, Repo, Tokens};
use super::super::tool::{About, Declared, Fields, Outcome, ToolContext};
use super::navigation;
use crate::driver::nav::tree::{self, Entry, TreeAnswer, TreeArgs};
use serde_json::{Value, json};

const DESCRIPTION: &str = "Directory tree with lines, bytes and tokens per entry, biggest first; use it first on a new repository.";

/// The `tree` tool.
pub struct Tree;

/// The arguments of `tree`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    repo: Repo,
    /// Directory inside the repository (default: all of it).
    path: Option<PathText>,
    /// Levels below path; 1 for its own entries (default: what fits).
    depth: Option<Tokens>,
    include: Option<Include>,
    exclude: Option<Exclude>,
    budget: Option<Budget>,
    max_chars: Option<MaxChars>,
}

impl Declared for Tree {
    const ABOUT: About = About {
        name: "tree",
        title: "Tree with tokens",
        description: DESCRIPTION,
        summary: "see a repository's layout with lines and tokens per file and directory",
    };
    type Args = Args;
    const OUTPUT_SHARED: Fields = navigation::COUNTED;
    const OUTPUT: Option<Fields> = Some(&[
        ("root", "object"),
        ("not_included", "object"),
        ("entries", "array"),
        ("complete", "boolean"),
        ("expand", "array"),
    ]);
    fn run(&self, args: Args, ctx: &ToolContext<'_>) -> Result<Outcome, Outcome> {
        let tree_args = TreeArgs {
            path: args.path.map(|p| p.0),
            depth: args.depth.map(|t| t.0),
        };
        let call = navigation::call_request(
            ctx,
            &args.repo,
            args.include,
            args.exclude,
            args.budget,
            args.max_chars,
        )?;
        navigation::answer(self, ctx, call, |req| tree::tree(req, &tree_args), fields)
    }
}

fn entry(e: &Entry) -> Value {
    json!({
        "path": e.path,
        "type": if e.is_dir { "dir" } else { "file" },
        "depth": e.depth,
        "files": e.files,
        "lines": e.lines,
        "bytes": e.bytes,
        "tokens": e.tokens,
        "hidden_entries": e.hidden_entries,
        "hidden_tokens": e.hidden_tokens,
    })
}

/// The fields of its structured copy after the counted ones.
fn fields(a: &TreeAnswer) -> Value {
    json!({
        "root": entry(&a.root),
        "not_included": a.not_included,
        "entries": a.entries.iter().map(entry).collect::<Vec<_>>(),
        "complete": a.expand.is_empty(),
        "expand": a.expand,
    })
}
