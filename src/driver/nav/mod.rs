//! The navigation and code tools' driver: `read`, `grep`, `search`, `related`, `tree`,
//! `overview`, `outline` and `symbol`, for the MCP tools of the same names and the `gnaw`
//! subcommands, which print the same text. What a call shares with the git tools (the request,
//! its settings and paths, the arguments, the paged answer) is [`crate::driver::call`].
//!
//! | module | job |
//! |---|---|
//! | [`read`] | lines of files by range, numbered, with the exact continuation |
//! | [`grep`] | matching lines of the text the model would be shown, grouped by file, with totals and the continuation |
//! | [`repo_index`] | the search index of a repository: every kept file with its shown text and its term index, kept in the warm cache per file and rebuilt only for files that changed |
//! | `sections` | answers made of one section per named file (`read`, `outline`): entries parsed and proven, each section read, the continuation |
//! | [`deferred`] | what a search leaves for the server's idle time: the outlines of its index's files, parsed while no call waits |
//! | [`related`] | the files most related to one file: imports both ways, names it defines that they use and the other way |
//! | [`search`] | the files ranked for a query (`extract --query`'s ranker), each with its score's parts and best regions as `path:START-END` |
//! | `overview` | the repository at a glance: languages, size, where tests and docs live, entry points, then the map of files by centrality with their most used definitions |
//! | [`outline`] | each file's definitions (tree-sitter), nested, one line each, with the exact continuation |
//! | [`symbol`] | a name's definitions with their source and exact lines, then its uses; the closest names on a miss |
//! | [`tree`] | the directory tree with each entry's lines, bytes and exact tokens, biggest first |
//!
//! Every tool reads files only through the per-file step `extract` uses ([`crate::driver::file`]):
//! the same read stage, sensitive-file rule and secrets scan, the same warm cache. What a tool
//! searches, counts or shows is the scanned (by default redacted) text, never the raw file.

pub(crate) mod complete;
pub mod deferred;
pub mod grep;
pub mod outline;
pub(crate) mod overview;
pub mod read;
pub mod related;
pub mod repo_index;
pub mod search;
pub(crate) mod sections;
pub mod symbol;
pub mod tree;
