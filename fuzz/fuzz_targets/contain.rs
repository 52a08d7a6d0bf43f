//! Fuzz layer 1: arbitrary path bytes against a hostile tree (links out, loops, sibling
//! prefixes, /proc links). `Root::contain` must never return a `Contained` outside the root,
//! and no rejection may show anything from outside (the invariant lives in
//! `sandbox/tests/contain_check`, shared with the property test).
//!
//! Each input is also read as a structured path: the first byte picks how it starts (relative,
//! `/`, the root, the root's parent), the rest is split on `/`, and a part that is one byte of
//! 0x80 or more names a word of the tree's vocabulary, so the fuzzer reaches the links quickly.
#![no_main]

#[path = "../../sandbox/tests/contain_check/mod.rs"]
mod contain_check;

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn tree() -> &'static contain_check::Tree {
    static TREE: OnceLock<contain_check::Tree> = OnceLock::new();
    TREE.get_or_init(contain_check::tree)
}

fuzz_target!(|data: &[u8]| {
    let tree = tree();
    // The raw bytes as they are...
    if let Err(violation) = contain_check::check(tree, data) {
        panic!("{violation}");
    }
    // ...and as a structured path.
    let Some((&start, rest)) = data.split_first() else {
        return;
    };
    let parts: Vec<Result<usize, Vec<u8>>> = rest
        .split(|&b| b == b'/')
        .map(|p| match p {
            [k] if *k >= 0x80 => Ok(usize::from(k - 0x80)),
            other => Err(other.to_vec()),
        })
        .collect();
    let input = contain_check::assemble(tree, start, &parts);
    if let Err(violation) = contain_check::check(tree, &input) {
        panic!("{violation}");
    }
});
