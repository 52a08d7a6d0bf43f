//! `search`: the files of a repository ranked for a query by `extract --query`'s ranker, each
//! with its score's parts and the regions that match best as `path:START-END`, searched in the
//! text the model would be shown (secrets already redacted), with a plain `offset` continuation
//! (see [`crate::driver::nav::search`]).

use super::super::args::{Text, Tokens};
use super::super::tool::About;
use super::navigation::{Navigating, Own};
use crate::driver::nav::search::{self, MAX_LIMIT, SearchAnswer, SearchArgs};
use crate::driver::nav::{NavError, Request};
use serde_json::{Map, Value, json};

const SUMMARY: &str =
    "find which files and line ranges matter for a question or a name, ranked, before reading them";
const DESCRIPTION: &str = "Files ranked for a question or an identifier, with line ranges to `read`, when you don't know where to look.";

/// The `search` tool.
pub struct Search;

/// The arguments of `search`: its input schema is derived from them.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args {
    /// An identifier (Config::load), a file name or a few words.
    query: Text,
    #[schemars(description = format!("Most files in this answer, 1 to {MAX_LIMIT} (default 10)."))]
    limit: Option<Tokens>,
    /// The continuation a cut answer gives, as given.
    offset: Option<Tokens>,
}

impl Own for Args {
    const FILTERED: bool = true;
}

impl Navigating for Search {
    const ABOUT: About = About::new("search", "Rank files for a query", DESCRIPTION, SUMMARY);
    type Args = Args;
    type Answer = SearchAnswer;
    fn run(args: &Args, req: &Request<'_>) -> Result<SearchAnswer, NavError> {
        let search_args = SearchArgs {
            query: args.query.0.clone(),
            limit: args.limit.map(|t| t.0),
            offset: args.offset.map(|t| t.0),
        };
        search::search(req, &search_args)
    }
    fn fields(a: &SearchAnswer) -> Value {
        json!({
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
            "index": {
                "files": a.index.files,
                "bytes": a.index.bytes,
                "text_bytes": a.index.text_bytes,
            },
        })
    }
}
