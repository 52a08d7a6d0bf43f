//! `symbol`: a name's definitions with their source and exact line ranges, then its uses, ranked;
//! the closest names on a miss (see [`crate::driver::nav::symbol`]).

use super::super::args::{Text, Tokens};
use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::symbol::{self, DEFAULT_LIMIT, MAX_LIMIT, SymbolFacts};

/// The arguments of `symbol`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// "Name", "Type::method", or "dir/::Name" to look only under a path.
    name: Text,
    #[schemars(
        description = format!("Most matches, definitions then uses (default {DEFAULT_LIMIT})."),
        range(min = 1, max = MAX_LIMIT)
    )]
    limit: Option<Tokens>,
}

/// The `symbol` tool.
pub static SYMBOL: Navigation<Args, SymbolFacts> = Navigation {
    about: About {
        name: "symbol",
        title: "Find a name",
        description: "A name's definitions with source and lines, then its uses; closest names on a miss. Prefer it to grep for code.",
        summary: "get a named function, method or type's exact source and line range, then its uses",
    },
    filtered: true,
    run: |args, req| symbol::symbol(req, &args.name.0, args.limit.map(|t| t.0)),
};
