//! `search`: the files of a repository ranked for a query by `extract --query`'s ranker, each
//! with its score's parts and the regions that match best as `path:START-END`, searched in the
//! text the model would be shown (secrets already redacted), with a plain `offset` continuation
//! (see [`crate::driver::nav::search`]).

use super::super::args::{Text, Tokens};
use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::search::{self, MAX_LIMIT, SearchArgs, SearchFacts};

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

/// The `search` tool.
pub static SEARCH: Navigation<Args, SearchFacts> = Navigation {
    about: About {
        name: "search",
        title: "Rank files for a query",
        description: "Files ranked for a question or an identifier, with line ranges to `read`, when you don't know where to look.",
        summary: "find which files and line ranges matter for a question or a name, ranked, before reading them",
    },
    filtered: true,
    run: |args, req| {
        let search_args = SearchArgs {
            query: args.query.0.clone(),
            limit: args.limit.map(|t| t.0),
            offset: args.offset.map(|t| t.0),
        };
        search::search(req, &search_args)
    },
};
