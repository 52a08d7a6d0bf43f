//! The `extract` and `estimate` tools, through the real `gnaw` binary and the real `gnaw-mcp`
//! server: budgets and ranking ([`budget`]), `--compress` skeletons ([`compress`]) and their
//! levels ([`compress_levels`]), the server's side of the tools (containment of `repo`, CLI
//! bytes, progress, cancellation, the output cap: [`server`]), the warm cache that serves a
//! second call ([`warm_cache`]), the CLI's disk cache of counts and skeletons
//! ([`disk_cache`]) and what the ranking knows of C and C++ ([`ranking`]).

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

#[path = "../common/mod.rs"]
mod common;

mod budget;
mod compress;
mod compress_levels;
mod disk_cache;
mod ranking;
mod server;
mod warm_cache;
