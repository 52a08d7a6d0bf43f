//! `symbol`: a name's definitions with their source and exact line ranges, then its uses, ranked;
//! the closest names on a miss (see [`crate::driver::nav::symbol`]).

use super::super::args::{Text, Tokens};
use super::super::tool::About;
use super::navigation::{Navigating, Own};
use crate::driver::nav::symbol::{self, DEFAULT_LIMIT, MAX_LIMIT, SymbolAnswer};
use crate::driver::nav::{NavError, Request};
use serde_json::{Value, json};

const SUMMARY: &str =
    "get a named function, method or type's exact source and line range, then its uses";
const DESCRIPTION: &str = "A name's definitions with source and lines, then its uses; closest names on a miss. Prefer it to grep for code.";

/// The `symbol` tool.
pub struct SymbolTool;

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

impl Own for Args {
    const FILTERED: bool = true;
}

impl Navigating for SymbolTool {
    const ABOUT: About = About::new("symbol", "Find a name", DESCRIPTION, SUMMARY);
    type Args = Args;
    type Answer = SymbolAnswer;
    fn run(args: &Args, req: &Request<'_>) -> Result<SymbolAnswer, NavError> {
        symbol::symbol(req, &args.name.0, args.limit.map(|t| t.0))
    }
    fn fields(a: &SymbolAnswer) -> Value {
        json!({
            "definitions": a.definitions,
            "uses": a.uses,
            "shown": a.shown,
            "suggestions": a.suggestions,
        })
    }
}
