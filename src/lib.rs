//! gnaw turns a source repository into LLM-ready context: one prompt (a directory tree and every
//! file's contents, with an exact token count), or, through `gnaw-mcp`, a confined MCP server.
//!
//! The crate is layered. A module uses only modules of its own layer or below, never one above,
//! and no module-level import cycle exists anywhere (`tests/layers.rs` checks both on every
//! test run):
//!
//! | layer | modules | what |
//! |---|---|---|
//! | 0 vocabulary | [`vocab`], [`error`], [`bounded`], [`limits`], [`par`] | shared types, errors, capped reads, resource bounds, threads |
//! | 1 settings | [`gnawconfig`], [`cache`], [`spec`] | `.gnawconfig`, the warm cache, what a caller asks for |
//! | 2 stages | [`stages`]: source, filter, read, scan, count, render, rank, budget | one job each, in run order |
//! | 3 driver | [`driver`] | runs the stages for one spec: options, per file, plan, assemble |
//! | 4 front ends | [`cli`], [`mcp`] | the `gnaw` command and the `gnaw-mcp` server |
//!
//! Both front ends call [`run_extraction`] (or its streaming form, [`run_extraction_to`]) and
//! nothing else of the pipeline, so a tool call and the equivalent CLI run give the same bytes.
//! The two binaries in `src/bin/` only parse their arguments and call a front end.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

// layer 0
pub mod bounded;
pub mod error;
pub mod limits;
pub mod par;
pub mod vocab;
// layer 1
pub mod cache;
pub mod gnawconfig;
pub mod spec;
// layer 2
pub mod stages;
// layer 3
pub mod driver;
// layer 4
pub mod cli;
pub mod mcp;

pub use driver::extraction::{self, Extraction, FileEntry, Omitted, Ranked};
pub use driver::{run_extraction, run_extraction_parts, run_extraction_to};
pub use error::Error;
pub use spec::{ExtractionSpec, Mode, Observer, Overrides, Policy};
pub use stages::{budget, count, filter, rank, read, render, scan, source};
pub use vocab::{SkipReason, Skipped};
