//! `outline`: each file's definitions, nested, with line ranges, signatures and first doc lines,
//! exactly within a token budget, with the continuation as a plain `paths` argument (see
//! [`crate::driver::nav::outline`]).

use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::outline::{self, OutlineArgs, OutlineFacts};

/// The `outline` tool.
pub static OUTLINE: Navigation<OutlineArgs, OutlineFacts> = Navigation {
    about: About {
        name: "outline",
        title: "Outline files",
        description: "Each file's definitions, nested: START-END kind name: signature. See what a file holds, then `read` one.",
        summary: "list the definitions in files (kind, name, signature, line range) to read just one",
    },
    filtered: false,
    run: |req, args| outline::outline(req, &args.paths),
};
