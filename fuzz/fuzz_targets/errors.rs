//! Fuzz target `errors`: the checks of `fuzz/checks/errors.rs`, which say what is asserted.
#![no_main]

#[path = "../checks/mod.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::errors::check(data));
