//! Hostile repositories through the built `gnaw` and the spawned `gnaw-mcp`: what the walk meets
//! (special, huge, growing and hard-linked files, deep trees, many files: [`walk`]) and what the
//! parsers meet (pathological nesting in every language: [`parse`]). Every run is bounded by a
//! deadline and every skipped file reported.

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

#[path = "../common/mod.rs"]
mod common;

mod parse;
mod walk;
