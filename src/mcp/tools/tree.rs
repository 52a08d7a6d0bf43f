//! `tree`: a repository's directory tree with each entry's lines, bytes and the exact tokens
//! extract would spend on it, biggest first, within a budget (see
//! [`crate::driver::nav::tree`]).

use super::super::args::{PathText, Tokens};
use super::super::tool::About;
use super::navigation::{Navigating, Own};
use crate::driver::nav::tree::{self, Entry, TreeAnswer, TreeArgs};
use crate::driver::nav::{NavError, Request};
use serde_json::{Value, json};

const SUMMARY: &str = "see a repository's layout with lines and tokens per file and directory";
const DESCRIPTION: &str = "Directory tree with lines, bytes and tokens per entry, biggest first; use it first on a new repository.";

/// The `tree` tool.
pub struct Tree;

/// The arguments of `tree`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// Directory inside the repository (default: all of it).
    path: Option<PathText>,
    /// Levels below path; 1 for its own entries (default: what fits).
    depth: Option<Tokens>,
}

impl Own for Args {
    const FILTERED: bool = true;
}

impl Navigating for Tree {
    const ABOUT: About = About::new("tree", "Tree with tokens", DESCRIPTION, SUMMARY);
    type Args = Args;
    type Answer = TreeAnswer;
    fn run(args: &Args, req: &Request<'_>) -> Result<TreeAnswer, NavError> {
        let tree_args = TreeArgs {
            path: args.path.as_ref().map(|p| p.0.clone()),
            depth: args.depth.map(|t| t.0),
        };
        tree::tree(req, &tree_args)
    }
    fn fields(a: &TreeAnswer) -> Value {
        json!({
            "root": entry(&a.root),
            "not_included": a.not_included,
            "entries": a.entries.iter().map(entry).collect::<Vec<_>>(),
            "complete": a.complete,
            "expand": a.expand,
        })
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
