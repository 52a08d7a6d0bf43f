//! The secrets scan: each rule through the scanner's API ([`rules`]), secrets in names
//! ([`names`]), no secret reaching the model through the CLI or the server ([`secrets`]), and the
//! scan's throughput over real source ([`bench`], ignored by default).

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

#[path = "../common/mod.rs"]
mod common;

mod bench;
mod names;
mod rules;
mod secrets;
