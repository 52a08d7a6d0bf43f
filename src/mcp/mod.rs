//! gnaw-mcp's MCP server: hand-written JSON-RPC 2.0 over newline-delimited stdio, no SDK, no
//! async runtime.
//!
//! | module | job |
//! |---|---|
//! | [`framing`] | split input into lines, discarding any line over the size cap unbuffered |
//! | [`jsonrpc`] | parse and classify messages; build responses and notifications |
//! | [`server`] | dispatch, both protocol eras, the worker thread, cancel and progress |
//! | [`tools`] | the `extract` and `estimate` tools: schemas, argument checks, running them |
//!
//! The server never sees a filesystem path of its own making: a tool's `repo` argument goes
//! through a [`Containment`] (in gnaw-mcp, the sandbox's `Root`) and reaches the pipeline only
//! as a `ContainedDir`.

pub mod framing;
pub mod jsonrpc;
pub mod server;
pub mod tools;

pub use server::{Config, LEGACY_VERSIONS, MODERN_VERSIONS, serve};
pub use tools::{Containment, Rejected, RootContainment};
