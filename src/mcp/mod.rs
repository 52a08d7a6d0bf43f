//! gnaw-mcp's MCP server: JSON-RPC 2.0 over newline-delimited stdio, no SDK, no async runtime.
//!
//! | module | job |
//! |---|---|
//! | [`operator`] | the operator's settings: one table of every `GNAW_MCP_*` variable and `--config` key |
//! | [`config`] | the server's limits and the policy for every call, with their defaults |
//! | [`framing`] | transport in: split input into lines, discarding any over the size cap unbuffered |
//! | [`gate`] | the exit gate: every message redacted and escaped, every error cut to its ceiling |
//! | [`transport`] | transport out: one message per line on stdout, each through the gate |
//! | [`jsonrpc`] | parse and classify messages; build responses and notifications |
//! | [`era`] | the protocol eras: revisions spoken, a request's era from its `_meta` |
//! | `worker` | the call worker: runs queued tool calls with the warm cache, progress and cancel |
//! | [`idle`] | the idle worker: does what calls leave for idle time (a search's outlines) while no call runs or waits |
//! | [`definition`] | a server definition: its tools, resources, prompts and instructions (gnaw-mcp's, or a test fixture's) |
//! | [`dispatch`] | the protocol loop: answers every message in its era for any definition, queues calls (bounded) |
//! | `containment` | the only route from a `repo` argument to a directory: a [`Containment`] |
//! | [`args`] | tool arguments as types: the shared ones, described once; schemas derived from them |
//! | [`fit`] | the one step that fits a tool's answer to its ceiling, measured as sent |
//! | [`tool`] | the [`tool::Tool`] trait, the context a call runs with, typed arguments |
//! | [`tools`] | the registry: one file per tool |
//! | [`resource`] | the [`resource::Resources`] trait, completions and caching hints |
//! | [`files`] | gnaw-mcp's resources: each root's files as `gnaw://ROOT/PATH` |
//! | [`prompt`] | the [`prompt::Prompt`] trait |
//! | `prompts` | gnaw-mcp's prompts: `review` (the working changes) and `explain` (the overview map) |
//! | [`selection`] | which tools are offered: `GNAW_MCP_TOOLS`, narrowed by the root's `.gnawconfig` |
//! | `session_meta` | a forwarded legacy session's revision and client, in a request's `_meta` |
//! | [`http`] | `gnaw-mcp --listen`: Streamable HTTP, bearer tokens, one confined worker per tenant |
//! | [`self_test`] | `gnaw-mcp --self-test`: the sandbox's probes in a child, and in the HTTP mode each tenant kept from another's root |
//! | [`stdio`] | `gnaw-mcp` on stdio: prove the roots (or adopt those `--listen` hands on), start the parse workers, confine, serve |
//! | [`setup`] | `gnaw-mcp setup CLIENT`: the entry for an MCP client's file, printed or merged in (the one place gnaw-mcp writes) |
//!
//! The server never sees a filesystem path of its own making: a tool's `repo` argument goes
//! through the [`Containment`] (in gnaw-mcp, the sandbox's `Root`) and reaches the pipeline only
//! as a `ContainedDir`.

pub mod args;
pub mod config;
pub(crate) mod containment;
pub mod definition;
pub mod dispatch;
pub mod era;
pub mod files;
pub mod fit;
pub mod framing;
pub mod gate;
pub mod http;
pub mod idle;
pub mod jsonrpc;
pub mod operator;
pub mod prompt;
pub(crate) mod prompts;
pub mod resource;
pub mod selection;
pub mod self_test;
pub(crate) mod session_meta;
pub mod setup;
pub mod stdio;
pub mod tool;
pub mod tools;
pub mod transport;
pub(crate) mod worker;

pub use config::Config;
pub use containment::{Containment, Rejected, RootContainment};
pub use definition::Definition;
pub use dispatch::{serve, serve_definition};
pub use era::{LEGACY_VERSIONS, MODERN_VERSIONS};
pub use operator::Operator;
pub use selection::ToolSet;
