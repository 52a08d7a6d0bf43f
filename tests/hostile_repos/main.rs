//! Hostile repositories through the built `gnaw` and the spawned `gnaw-mcp`: what the walk meets
//! (special, huge, growing and hard-linked files, deep trees, many files: [`walk`]) and what the
//! parsers meet (pathological nesting in every language: [`parse`]). Every run is bounded by a
//! deadline and every skipped file reported.

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

#[path = "../common/mod.rs"]
mod common;

mod parse;
mod walk;

use std::sync::{Mutex, MutexGuard};

static HEAVY: Mutex<()> = Mutex::new(());

/// Hold this for a heavy walk (200,000 files, 10,000 directories deep) or a parse under a
/// deadline: one at a time in the whole binary, so the parsers' deadlines are not measured
/// against a walk running beside them.
pub fn heavy() -> MutexGuard<'static, ()> {
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}
