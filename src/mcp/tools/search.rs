//! `search`: the files of a repository ranked for a query by `extract --query`'s ranker, each
//! with the regions that match best as `path:START-END` (and with `explain`, its score's parts),
//! searched in the text the model would be shown (secrets already redacted), with a plain
//! `offset` continuation (see [`crate::driver::nav::search`], whose arguments it takes).

use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::search::{self, SearchArgs, SearchFacts};

/// The `search` tool.
pub static SEARCH: Navigation<SearchArgs, SearchFacts> = Navigation {
    about: About {
        name: "search",
        title: "Rank files",
        description: "Files ranked for a question or a name, with line ranges to `read`, when you don't know where to look.",
        summary: "find which files and line ranges matter for a question or a name, ranked, before reading them",
    },
    filtered: true,
    run: search::search,
};
