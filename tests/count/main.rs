//! Token counting: exact against tiktoken-rs in every encoding ([`exact`]), and the embedded BPE
//! tables equal to the ones the `bpe` crate builds from tiktoken-rs's vocabularies
//! ([`bpe_tables`], which also writes them on request).

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

#[path = "../common/mod.rs"]
mod common;

mod bpe_tables;
mod exact;
