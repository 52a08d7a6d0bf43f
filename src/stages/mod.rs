//! The pipeline's stages, in the order a run reaches them. Each is a module with one job; they
//! speak the shared vocabulary ([`crate::vocab`]) and know nothing of the driver that runs them
//! or the front ends above it.
//!
//! | # | stage | module | job |
//! |---|---|---|---|
//! | 1 | source | [`source`] | walk the repo through directory fds (or take the `--stdin` list), honouring ignore files inside it only |
//! | 2 | filter | [`filter`] | include/exclude globs; applied *inside* the walk, which prunes excluded directories |
//! | 3 | read | [`read`] | open each file beneath the repo, prove it is what the walk saw, read it bounded, text or binary |
//! | 4 | scan | [`scan`] | sensitive files and secrets: warn, redact or block before anything is counted |
//! | 5 | count | [`count`] | exact tiktoken counts of each file's rendered piece |
//! | 6 | render | [`render`] | markdown, xml or json pieces, byte-identical for the same input |
//! | 7 | rank | [`rank`] | order files by relevance to a query (BM25 over code-aware terms) |
//! | 8 | budget | [`budget`] | keep whole files, best first, so the exact count fits the budget |
//! | – | languages | [`languages`] | the one table of languages: names, extensions, fence tags, code or not, grammars |
//! | – | syntax | [`syntax`] | tree-sitter outlines of source files (bounded), and their skeletons |
//! | – | name | [`name`] | the one renderer of names: escaped, secrets redacted; what globs and answers see of a path |
//! | – | grep | [`grep`] | the navigation tools' search: a bounded pattern, and the lines of a shown text it matches |
//! | – | git | [`git`] | `.git` read in-process (never by running git): safe open, trees, blobs, index, history, line diffs |
//! | – | manifest | [`manifest`] | what a package manifest (`Cargo.toml`, `package.json`, `pyproject.toml`) declares as its entry points |
//!
//! Steps 3 to 6 run per file, in parallel ([`crate::driver::file`]); 7 and 8 on the whole set.
//! `grep` runs after step 4 on the scanned text, for the navigation tools
//! ([`crate::driver::nav`]).

pub mod budget;
pub mod count;
pub mod filter;
pub mod git;
pub mod grep;
pub mod languages;
pub mod manifest;
pub mod name;
pub mod rank;
pub mod read;
pub mod render;
pub mod scan;
pub mod source;
pub mod syntax;
