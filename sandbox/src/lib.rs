//! Confinement for gnaw-mcp: every piece of the project's `unsafe`, and its three layers.
//!
//! - [`contain`]: userspace containment. A [`Root`] turns untrusted paths into [`Contained`] /
//!   [`ContainedDir`] proofs, or a named [`Rejection`].
//! - [`roots`]: several roots, each named; a path that leaves one root may enter another
//!   listed root, never anything else ([`Roots`]).
//! - [`beneath`]: per-open kernel containment. [`BeneathDir`] opens files relative to a
//!   directory fd with `openat2(RESOLVE_BENEATH)` and checks they are the files the walk saw.
//! - [`confine`](mod@confine): the process-wide Landlock read-only ruleset and process
//!   hardening, then the capability drop and the seccomp filter ([`confine()`], [`SandboxMode`],
//!   [`SandboxStatus`]).
//! - [`caps`]: reading and dropping the capability sets.
//! - [`seccomp`]: the seccomp-bpf allow-list.
//! - [`syscall_probes`]: raw system calls for what Landlock does not cover, used by the probes.
//! - [`workers`]: parse workers, child processes that run untrusted parsers under hard memory
//!   and time limits, confined with no file access at all.
//! - [`spawner`]: the tenant spawner of `gnaw-mcp --listen`, forked before the front door
//!   confines itself, which starts a tenant's worker on request and hands back its pipes.
//! - [`reloader`]: the process of `gnaw-mcp --listen` that reads the tenants and proves their
//!   roots, at startup and at every reload, and forks each generation's spawner.
//! - [`front_door`]: confining that HTTP front door: no file, no new bind, no connect.
//! - `forked` (internal): forking the helper processes (the reloader, the spawner, the parse
//!   workers' supervisor) and handing each its sockets; the messages on those sockets.
//! - [`selftest`]: the Landlock probes shared by `gnaw-mcp --self-test` and the real-Landlock
//!   test.
//! - [`report`]: the self-test's cases, written as text, JSON or JUnit XML.
//! - [`user_file`]: the one way the front-ends open a file outside the sandbox (the CLI's
//!   output, template and disk cache, `gnaw-mcp setup`'s client files, `--config`): through a
//!   directory's descriptor, no link followed, no open blocking, the type checked before any
//!   read or write, reads bounded, replaces atomic, backups never overwriting ([`UserDir`]).
//!
//! This crate does not depend on the pipeline. `unsafe` is denied here and allowed only on
//! the functions that make raw system calls, each block with a `SAFETY` comment.

#![deny(unsafe_code)]

pub mod beneath;
pub mod caps;
pub mod confine;
pub mod contain;
mod forked;
pub mod front_door;
pub mod reloader;
pub mod report;
pub mod roots;
pub mod seccomp;
pub mod selftest;
pub mod spawner;
pub mod syscall_probes;
pub mod user_file;
pub mod workers;

pub use beneath::{BeneathDir, FileChanged, Mechanism, is_file_changed, refusal_reason};
pub use confine::{
    ConfineError, Layers, Readable, SandboxMode, SandboxStatus, TESTED_ABI, confine,
    confine_layers, probe_status,
};
pub use contain::{Contained, ContainedDir, Rejection, Root, RootError, RootId};
pub use roots::{NamedRoot, Roots, RootsError};
pub use user_file::{UserDir, UserFileError};
