//! Confinement through the real gnaw-mcp (see `SECURITY.md`): symlink-swap races against the
//! running server ([`race`]), several roots ([`roots`]), `--self-test` on this kernel
//! ([`self_test`]), and the operator's policy over a repository's own config ([`policy`]). The
//! corpus of hostile `repo` spellings is `tests/attack_corpus.rs` (its own `main`).

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

#[path = "../common/mod.rs"]
mod common;

mod policy;
mod race;
mod roots;
mod self_test;
