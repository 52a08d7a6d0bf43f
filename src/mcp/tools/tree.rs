//! `tree`: a repository's directory tree with each entry's lines, bytes and the exact tokens
//! extract would spend on it, biggest first, within a budget (see [`crate::driver::nav::tree`],
//! whose arguments it takes).

use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::tree::{self, TreeArgs, TreeFacts};

/// The `tree` tool.
pub static TREE: Navigation<TreeArgs, TreeFacts> = Navigation {
    about: About {
        name: "tree",
        title: "Tree with tokens",
        description: "Directory tree with lines, bytes and tokens per entry, biggest first; use it first on a new repository.",
        summary: "see a repository's layout with lines and tokens per file and directory",
    },
    filtered: true,
    run: tree::tree,
};
