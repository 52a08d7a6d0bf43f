//! `hotspots`: the files ranked by recent churn (commits weighted by recency, lines changed),
//! each with its size, last change, distinct authors and the files that change with it, read
//! from `.git` in-process (never by running git), bounded in commits and time, within a token
//! budget, with the continuation as a plain `offset` argument (see
//! `crate::driver::git::hotspots`, whose arguments it takes).

use super::super::tool::About;
use super::navigation::Navigation;
use crate::driver::git::hotspots::{self, HotspotsArgs, HotspotsFacts};

/// The `hotspots` tool.
pub static HOTSPOTS: Navigation<HotspotsArgs, HotspotsFacts> = Navigation {
    about: About {
        name: "hotspots",
        title: "Hotspots (git churn)",
        description: "Files ranked by recent churn: commits, lines changed, authors, last change, size, files changed with them.",
        summary: "the files changed most lately, with authors and the files that change with them",
    },
    filtered: false,
    run: hotspots::hotspots,
};
