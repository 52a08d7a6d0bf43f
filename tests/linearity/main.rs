//! Cost grows linearly with input: a doubled input may take at most about twice the time (and
//! memory) of the single one, for what a client sends ([`requests`]), for the bounded inputs a
//! repository controls ([`bounded_inputs`]) and for every rule of the secrets scan ([`scan`]).
//!
//! The measurements run one at a time ([`serial`]): timings taken side by side would measure
//! each other.

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

#[path = "../common/mod.rs"]
mod common;

mod bounded_inputs;
mod requests;
mod scan;

use std::sync::{Mutex, MutexGuard};

static SERIAL: Mutex<()> = Mutex::new(());

/// Hold this while measuring: one measurement at a time in the whole binary.
pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}
