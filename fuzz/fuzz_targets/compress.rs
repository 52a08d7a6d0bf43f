//! Fuzz target `compress`: the checks of `fuzz/checks/compress.rs`, which say what is asserted.
#![no_main]

#[path = "../checks/mod.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(init: checks::start_parse_workers(), |data: &[u8]| checks::compress::check(data));
