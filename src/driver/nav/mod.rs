//! The navigation tools' driver: `read`, `grep`, `search` and `tree`, for the MCP tools of the
//! same names and the `gnaw read|grep|search|tree` subcommands, which print the same text.
//!
//! | module | job |
//! |---|---|
//! | [`args`] | a call's arguments as a tool call's JSON gives them: the pieces and how each field is read |
//! | [`session`] | one call's settings (as `extract` resolves them), path arguments proven inside the repo, the per-file step over many files |
//! | [`fit`] | an answer made of items ([`fit::Paged`]) and the one step every navigation and git tool fits it with: the most items whose rendered answer, counted whole, fits the budget and the byte ceiling, or the one "too small" refusal |
//! | [`read`] | lines of files by range, numbered, with the exact continuation |
//! | [`grep`] | matching lines of the text the model would be shown, grouped by file, with totals and the continuation |
//! | [`index`] | the search index: every kept file with its shown text and its term index, kept in the warm cache per file and rebuilt only for files that changed |
//! | [`deferred`] | what a search leaves for the server's idle time: the outlines of its index's files, parsed while no call waits |
//! | [`related`] | the files most related to one file: imports both ways, names it defines that they use and the other way |
//! | [`search`] | the files ranked for a query (`extract --query`'s ranker), each with its score's parts and best regions as `path:START-END` |
//! | [`overview`] | the repository at a glance: languages, size, where tests and docs live, entry points, then the map of files by centrality with their most used definitions |
//! | [`outline`] | each file's definitions (tree-sitter), nested, one line each, with the exact continuation |
//! | [`symbol`] | a name's definitions with their source and exact lines, then its uses; the closest names on a miss |
//! | [`tree`] | the directory tree with each entry's lines, bytes and exact tokens, biggest first |
//!
//! Every tool reads files only through the per-file step `extract` uses ([`crate::driver::file`]):
//! the same read stage, sensitive-file rule and secrets scan, the same warm cache. What a tool
//! searches, counts or shows is the scanned (by default redacted) text, never the raw file.

pub mod args;
pub mod complete;
pub mod deferred;
pub mod fit;
pub mod grep;
pub mod index;
pub mod outline;
pub mod overview;
pub mod read;
pub mod related;
pub mod search;
pub mod sections;
pub mod session;
pub mod symbol;
pub mod tree;

pub use fit::Page;
pub use session::{NavError, Request};

/// A navigation answer: its [`Page`] (the text, fitted, and its exact count) and its facts, what
/// a program reads instead of the text (`read`'s files and their ranges, `grep`'s totals, the
/// argument that continues a cut answer...). Serialized, the page's counted fields, then the
/// facts' own: the MCP tool's structured copy.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Answer<F> {
    #[serde(flatten)]
    pub page: Page,
    #[serde(flatten)]
    pub facts: F,
}
