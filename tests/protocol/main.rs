//! gnaw-mcp's protocol surface through the real server: handshakes, malformed input and startup
//! ([`messages`]), the message invariant property-tested ([`jsonrpc_props`]), answers that fit
//! their client ([`answers`], [`default_answers`]), the exit gate ([`exit_gate`]), the tool definitions' size and shape
//! ([`schemas`]), which tools a client sees ([`tool_selection`]), and the files as resources, the
//! prompts and completions ([`resources`]).

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

#[path = "../common/mod.rs"]
mod common;

mod answers;
mod config_file;
mod default_answers;
mod exit_gate;
mod jsonrpc_props;
mod messages;
mod resources;
mod schemas;
mod too_small;
mod tool_selection;
