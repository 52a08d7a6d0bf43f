//! `symbol`: a name's definitions with their source and exact line ranges, then its uses, ranked;
//! the closest names on a miss (see [`crate::driver::nav::symbol`]).

use super::super::args::{self, Budget, Exclude, Include, Repo, Text, Tokens};
use super::super::tool::{Outcome, Tool, ToolContext};
use super::navigation::{self, integer, string};
use crate::driver::nav::symbol::{self, DEFAULT_LIMIT, MAX_LIMIT, SymbolAnswer};
use serde_json::{Map, Value, json};

const DESCRIPTION: &str = "A name's definitions with their source and exact lines, then its uses; closest names on a miss. Prefer it to grep for code.";

/// The `symbol` tool.
pub struct SymbolTool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
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
}

impl Tool for SymbolTool {
    fn name(&self) -> &'static str {
        "symbol"
    }
    fn title(&self) -> &'static str {
        "Find a definition"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn summary(&self) -> &'static str {
        "get a named function, method or type's exact source and line range, then its uses"
    }
    fn input_schema(&self) -> Value {
        args::input_schema::<Args>()
    }
    fn output_schema(&self) -> Option<Value> {
        let n = |d: &str| integer(d);
        Some(json!({
            "type": "object",
            "properties": {
                "answer_tokens": n("Exact token count of the text answer."),
                "encoding": string("The tiktoken encoding of the counts."),
                "budget": n("The token budget applied; 0 when none."),
                "definitions": n("Definitions found."),
                "uses": n("Uses found (lines naming it outside its definitions)."),
                "shown": n("Matches shown."),
                "suggestions": {
                    "type": "array",
                    "items": { "type": "string" },
                    "description": "The closest defined names, when nothing is defined under this one.",
                },
            },
            "required": ["answer_tokens", "encoding", "budget", "definitions", "uses", "shown", "suggestions"],
            "additionalProperties": false,
        }))
    }
    fn call(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        navigation::outcome(|| {
            let args: Args = navigation::args(self, args)?;
            let req =
                navigation::call_request(ctx, &args.repo, args.include, args.exclude, args.budget)?;
            let a = symbol::symbol(&req, &args.name.0, args.limit.map(|t| t.0))
                .map_err(|e| navigation::failure(self, e))?;
            let structured = structured(&a);
            Ok(navigation::result(ctx, a.text, structured))
        })
    }
}

fn structured(a: &SymbolAnswer) -> Value {
    json!({
        "answer_tokens": a.tokens,
        "encoding": a.encoding.name(),
        "budget": a.budget.unwrap_or(0),
        "definitions": a.definitions,
        "uses": a.uses,
        "shown": a.shown,
        "suggestions": a.suggestions,
    })
}
