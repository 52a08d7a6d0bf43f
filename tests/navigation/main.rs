//! The navigation tools (`read`, `grep`, `tree`, `search`, `related`, `outline`, `symbol`), on
//! the library and through the real `gnaw-mcp`: exact budgets and continuations ([`budgets`]),
//! every path argument proven and no secret oracle through the server ([`server`]), grep's file
//! prefilter ([`grep_prefilter`]), the search index in the warm cache ([`search_index`]), and
//! outline and symbol over every language's fixture ([`outline`]).

#[path = "../common/mod.rs"]
mod common;

mod budgets;
mod grep_prefilter;
mod outline;
mod search_index;
mod server;
