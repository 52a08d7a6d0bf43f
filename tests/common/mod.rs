//! What the integration tests share, in one place instead of copies: the MCP test client
//! ([`mcp_client`]), a seeded generator ([`xorshift`]), the repository fixture builder
//! ([`fixture`]), fixtures deeper than `PATH_MAX` ([`deep_repo`]), the real `git` for fixtures
//! ([`git`]), inotify proof that nothing was opened ([`inotify`]), reading JSON answers
//! ([`json`]), the JSON-RPC handling invariant ([`jsonrpc_check`], also the fuzz target's),
//! running a process under a deadline ([`process`]), and running the CLI and counting its
//! output independently ([`cli`]). Each test file takes it with `mod common;` and uses what it
//! needs; what one file does not use is not a warning.

#![allow(dead_code, unused_imports)]

pub mod cli;
pub mod deep_repo;
pub mod fixture;
pub mod git;
pub mod inotify;
pub mod json;
pub mod jsonrpc_check;
pub mod mcp_client;
pub mod process;
pub mod xorshift;
