//! `symbol`: a name's definitions with their source and exact line ranges, then its uses, ranked;
//! the closest names on a miss (see [`crate::driver::nav::symbol`]).

use super::super::args::{Budget, Exclude, Include, MaxChars, Repo, Text, Tokens};
use super::super::tool::{About, Declared, Fields, Outcome, ToolContext};
use super::navigation;
use crate::driver::nav::symbol::{self, DEFAULT_LIMIT, MAX_LIMIT, SymbolAnswer};
use serde_json::{Value, json};

const DESCRIPTION: &str = "A name's definitions with source and lines, then its uses; closest names on a miss. Prefer it to grep for code.";

/// The `symbol` tool.
pub struct SymbolTool;

/// The arguments of `symbol`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    repo: Repo,
    /// "Name", "Type::method", or "dir/::Name" to look only under a path.
    name: Text,
    #[schemars(
        description = format!("Most matches, definitions then uses (default {DEFAULT_LIMIT})."),
        range(min = 1, max = MAX_LIMIT)
    )]
    limit: Option<Tokens>,
    include: Option<Include>,
    exclude: Option<Exclude>,
    budget: Option<Budget>,
    max_chars: Option<MaxChars>,
}

impl Declared for SymbolTool {
    const ABOUT: About = About {
        name: "symbol",
        title: "Find a name",
        description: DESCRIPTION,
        summary: "get a named function, method or type's exact source and line range, then its uses",
    };
    type Args = Args;
    const OUTPUT_SHARED: Fields = navigation::COUNTED;
    const OUTPUT: Option<Fields> = Some(&[
        ("definitions", "integer"),
        ("uses", "integer"),
        ("shown", "integer"),
        ("suggestions", "array"),
    ]);
    fn run(&self, args: Args, ctx: &ToolContext<'_>) -> Result<Outcome, Outcome> {
        let call = navigation::call_request(
            ctx,
            &args.repo,
            args.include,
            args.exclude,
            args.budget,
            args.max_chars,
        )?;
        navigation::answer(
            self,
            ctx,
            call,
            |req| symbol::symbol(req, &args.name.0, args.limit.map(|t| t.0)),
            fields,
        )
    }
}

/// The fields of its structured copy after the counted ones.
fn fields(a: &SymbolAnswer) -> Value {
    json!({
        "definitions": a.definitions,
        "uses": a.uses,
        "shown": a.shown,
        "suggestions": a.suggestions,
    })
}
