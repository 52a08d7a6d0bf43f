//! Confinement for gnaw-mcp: every piece of the project's `unsafe`, and its three layers.
//!
//! - [`contain`]: userspace containment. A [`Root`] turns untrusted paths into [`Contained`] /
//!   [`ContainedDir`] proofs, or a named [`Rejection`].
//! - [`beneath`]: per-open kernel containment. [`BeneathDir`] opens files relative to a
//!   directory fd with `openat2(RESOLVE_BENEATH)` and checks they are the files the walk saw.
//! - [`confine`](mod@confine): the process-wide Landlock read-only ruleset and process
//!   hardening ([`confine()`], [`SandboxMode`], [`SandboxStatus`]).
//! - [`selftest`]: the Landlock probes shared by `gnaw-mcp --self-test` and the real-Landlock
//!   test.
//!
//! This crate does not depend on the pipeline.

pub mod beneath;
pub mod confine;
pub mod contain;
pub mod selftest;

pub use beneath::{BeneathDir, FileChanged, Mechanism, is_file_changed, refusal_reason};
pub use confine::{ConfineError, SandboxMode, SandboxStatus, TESTED_ABI, confine, probe_status};
pub use contain::{Contained, ContainedDir, Rejection, Root, RootError};
