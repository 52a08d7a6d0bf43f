//! `search`: the files of a repository ranked for a query by `extract --query`'s ranker, each
//! with its score's parts and the regions that match best as `path:START-END`, searched in the
//! text the model would be shown (secrets already redacted), with a plain `offset` continuation
//! (see [`crate::driver::nav::search`]).

use super::super::args::{self, Budget, Exclude, Include, Repo, Text, Tokens};
use super::super::tool::{Outcome, Tool, ToolContext};
use super::navigation::{self, integer, string};
use crate::driver::nav::search::{self, MAX_LIMIT, SearchAnswer, SearchArgs};
use serde_json::{Map, Value, json};

const DESCRIPTION: &str = "Files ranked for a question or an identifier, with line ranges to `read`. Use it when you do not know where to look.";

/// The `search` tool.
pub struct Search;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    repo: Repo,
    /// An identifier ("Config::load"), a file name or a few words.
    query: Text,
    #[schemars(description = format!("Most files in this answer, 1 to {MAX_LIMIT} (default 10)."))]
    limit: Option<Tokens>,
    /// The continuation a cut answer gives, as given.
    offset: Option<Tokens>,
    include: Option<Include>,
    exclude: Option<Exclude>,
    budget: Option<Budget>,
}

impl Tool for Search {
    fn name(&self) -> &'static str {
        "search"
    }
    fn title(&self) -> &'static str {
        "Rank repository files for a query"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn summary(&self) -> &'static str {
        "find which files and line ranges matter for a question or a name, ranked, before reading them"
    }
    fn input_schema(&self) -> Value {
        args::input_schema::<Args>()
    }
    fn output_schema(&self) -> Option<Value> {
        let n = integer;
        Some(json!({
            "type": "object",
            "properties": {
                "answer_tokens": n("Exact token count of the text answer."),
                "encoding": string("The tiktoken encoding of the count."),
                "budget": n("The token budget applied; 0 when none."),
                "total_files": n("Files the query matches."),
                "files_searched": n("Files searched."),
                "not_searched": {
                    "type": "object",
                    "description": "Files not searched, by reason (binary, too_large, sensitive, ...).",
                    "additionalProperties": { "type": "integer", "minimum": 0 },
                },
                "files": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "rank": { "type": "integer", "minimum": 1 },
                            "path": string("The file, as gnaw shows paths."),
                            "score": { "type": "number", "description": "The file's score." },
                            "parts": {
                                "type": "object",
                                "description": "What the score is made of (bm25, names_file, defines_symbol, prior, ...).",
                                "additionalProperties": { "type": "number" },
                            },
                            "regions": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "start": { "type": "integer", "minimum": 1 },
                                        "end": { "type": "integer", "minimum": 1 },
                                        "terms": { "type": "array", "items": { "type": "string" } },
                                        "symbol": string("The innermost definition holding the region (kind and name); empty when none is known."),
                                    },
                                    "required": ["start", "end", "terms"],
                                },
                            },
                        },
                        "required": ["rank", "path", "score", "parts", "regions"],
                    },
                },
                "complete": { "type": "boolean", "description": "True when every matching file after the offset is shown." },
                "offset": n("The offset argument that continues the answer; 0 when complete."),
            },
            "required": ["answer_tokens", "encoding", "budget", "total_files", "files_searched",
                         "not_searched", "files", "complete", "offset"],
            "additionalProperties": false,
        }))
    }
    fn call(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        navigation::outcome(|| {
            let args: Args = navigation::args(self, args)?;
            let req =
                navigation::call_request(ctx, &args.repo, args.include, args.exclude, args.budget)?;
            let search_args = SearchArgs {
                query: args.query.0,
                limit: args.limit.map(|t| t.0),
                offset: args.offset.map(|t| t.0),
            };
            let a = search::search(&req, &search_args).map_err(|e| navigation::failure(self, e))?;
            let structured = structured(&a);
            Ok(navigation::result(ctx, a.text, structured))
        })
    }
}

fn structured(a: &SearchAnswer) -> Value {
    json!({
        "answer_tokens": a.tokens,
        "encoding": a.encoding.name(),
        "budget": a.budget.unwrap_or(0),
        "total_files": a.total_files,
        "files_searched": a.files_searched,
        "not_searched": a.not_searched,
        "files": a.hits.iter().map(|h| json!({
            "rank": h.rank,
            "path": h.path,
            "score": h.score.total,
            "parts": h.score.parts.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<Map<_, _>>(),
            "regions": h.regions.iter().map(|r| json!({
                "start": r.start, "end": r.end, "terms": r.terms,
                "symbol": r.symbol.clone().unwrap_or_default(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "complete": a.next.is_none(),
        "offset": a.next.unwrap_or(0),
    })
}
