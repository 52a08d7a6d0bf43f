//! `symbol`: a name's definitions with their source and exact line ranges, then its uses, ranked;
//! the closest names on a miss (see [`crate::driver::nav::symbol`]).

use super::super::tool::{Outcome, Tool, ToolContext, arg, bad_argument, parse_args};
use super::navigation::{
    self, BUDGET_DESCRIPTION, EXCLUDE_DESCRIPTION, INCLUDE_DESCRIPTION, REPO_DESCRIPTION, integer,
    string,
};
use crate::driver::nav::symbol::{self, DEFAULT_LIMIT, MAX_LIMIT, SymbolAnswer};
use serde_json::{Map, Value, json};

const DESCRIPTION: &str = "A name's definitions with their source and exact lines, then its uses; closest names on a miss. Prefer it to grep for code.";

/// The `symbol` tool.
pub struct SymbolTool;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    repo: Option<Value>,
    name: Option<arg::Text>,
    #[serde(default)]
    limit: Option<arg::Tokens>,
    #[serde(default)]
    include: Option<arg::Globs>,
    #[serde(default)]
    exclude: Option<arg::Globs>,
    #[serde(default)]
    budget: Option<arg::Tokens>,
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
        json!({
            "type": "object",
            "properties": {
                "repo": string(REPO_DESCRIPTION),
                "name": string("\"Name\", \"Type::method\", or \"dir/::Name\" to look only under a path."),
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": format!("Most matches, definitions then uses (default {DEFAULT_LIMIT})."),
                },
                "include": { "type": "array", "items": { "type": "string" }, "description": INCLUDE_DESCRIPTION },
                "exclude": { "type": "array", "items": { "type": "string" }, "description": EXCLUDE_DESCRIPTION },
                "budget": integer(BUDGET_DESCRIPTION),
            },
            "required": ["repo", "name"],
            "additionalProperties": false,
        })
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
        let args: Args = match parse_args(self, args) {
            Ok(a) => a,
            Err(e) => return Outcome::Rejected(e),
        };
        let repo = match navigation::repo_arg(args.repo.as_ref()) {
            Ok(r) => r,
            Err(o) => return o,
        };
        let Some(name) = args.name else {
            return Outcome::Rejected(bad_argument(
                "argument \"name\" is required: the name to find, e.g. \"Config::load\"".into(),
            ));
        };
        let req = match navigation::request(
            ctx,
            repo,
            args.include.map(|g| g.0).unwrap_or_default(),
            args.exclude.map(|g| g.0).unwrap_or_default(),
            args.budget.map(|t| t.0),
        ) {
            Ok(r) => r,
            Err(o) => return o,
        };
        match symbol::symbol(&req, &name.0, args.limit.map(|t| t.0)) {
            Ok(a) => {
                let structured = structured(&a);
                navigation::result(ctx, a.text, structured)
            }
            Err(e) => navigation::failure(self, e),
        }
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
