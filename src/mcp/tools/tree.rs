//! `tree`: a repository's directory tree with each entry's lines, bytes and the exact tokens
//! extract would spend on it, biggest first, within a budget (see
//! [`crate::driver::nav::tree`]).

use super::super::args::{PathText, Tokens};
use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::tree::{self, TreeArgs, TreeFacts};

/// The arguments of `tree`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// Directory inside the repository (default: all of it).
    path: Option<PathText>,
    /// Levels below path; 1 for its own entries (default: what fits).
    depth: Option<Tokens>,
}

/// The `tree` tool.
pub static TREE: Navigation<Args, TreeFacts> = Navigation {
    about: About {
        name: "tree",
        title: "Tree with tokens",
        description: "Directory tree with lines, bytes and tokens per entry, biggest first; use it first on a new repository.",
        summary: "see a repository's layout with lines and tokens per file and directory",
    },
    filtered: true,
    run: |args, req| {
        let tree_args = TreeArgs {
            path: args.path.as_ref().map(|p| p.0.clone()),
            depth: args.depth.map(|t| t.0),
        };
        tree::tree(req, &tree_args)
    },
};
