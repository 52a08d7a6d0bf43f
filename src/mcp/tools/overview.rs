//! `overview`: the repository at a glance within a budget: languages, size, where tests and docs
//! live, entry points, then the map of its files by centrality (PageRank over imports and used
//! names, personalized toward a query's best files when given) with their most used definitions,
//! with the continuation as a plain `offset` argument (see `crate::driver::nav::overview`,
//! whose arguments it takes).

use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::nav::overview::{self, OverviewArgs, OverviewFacts};

/// The `overview` tool.
pub static OVERVIEW: Navigation<OverviewArgs, OverviewFacts> = Navigation {
    about: About {
        name: "overview",
        title: "Repo overview",
        description: "Repo at a glance: languages, tests, entry points, central files with key signatures. Call it first on a new repo.",
        summary: "see an unfamiliar repository at a glance: its central files and their key definitions, optionally around a query",
    },
    filtered: true,
    run: overview::overview,
};
