//! `symbol`: a name's definitions with their source and exact line ranges, then its uses, ranked;
//! the closest names on a miss (see [`crate::driver::nav::symbol`], whose arguments it takes).

use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::symbol::{self, SymbolArgs, SymbolFacts};

/// The `symbol` tool.
pub static SYMBOL: Navigation<SymbolArgs, SymbolFacts> = Navigation {
    about: About {
        name: "symbol",
        title: "Find a name",
        description: "A name's definitions with source and lines, then its uses; closest names on a miss. Prefer it to grep for code.",
        summary: "get a named function, method or type's exact source and line range, then its uses",
    },
    filtered: true,
    run: symbol::symbol,
};
