//! gnaw turns a source repository into one LLM-ready prompt: a directory tree and every
//! file's contents, with an exact token count.
//!
//! The pipeline's stages are modules, run in this order by [`run_extraction`]:
//!
//! | stage | module | job |
//! |---|---|---|
//! | source | [`source`] | walk the repo (or take paths from stdin), honouring ignore files inside it only |
//! | filter | [`filter`] | apply `.gnawconfig` and CLI include/exclude globs |
//! | read | [`read`] | open regular files beneath the repo, bounded, and decide text or binary |
//! | scan | [`scan`] | find secrets and redact or block them before anything is counted |
//! | count | [`count`] | exact tiktoken counts, in parallel, of the rendered pieces |
//! | render | [`render`] | markdown, xml or json, byte-identical for the same input |
//!
//! [`config`] resolves `.gnawconfig` plus overrides into [`config::Options`]; [`spec`] holds what a
//! caller asks for and [`extraction`] what it gets back. Both `gnaw` and `gnaw-mcp` call
//! [`run_extraction`] and nothing else.

pub mod config;
pub mod count;
pub mod error;
pub mod extraction;
pub mod mcp;
pub mod scan;
pub mod spec;

pub use error::Error;
pub use extraction::{Extraction, FileEntry, SkipReason, Skipped};
pub use spec::{ExtractionSpec, Mode, Observer, Overrides};

/// Run the whole pipeline for one spec. The CLI and gnaw-mcp both call this and nothing else.
pub fn run_extraction(spec: &ExtractionSpec<'_>) -> Result<Extraction, Error> {
    let _ = spec;
    Err(Error::Io("the pipeline is not assembled yet".into()))
}
