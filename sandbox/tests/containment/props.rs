//! Property test of layer 1: paths assembled from a hostile tree's names, `..`, slashes and raw
//! bytes never yield a `Contained` outside the root, and no rejection message shows anything
//! from outside. The same invariant is fuzzed by `fuzz/fuzz_targets/contain.rs`.
//! `GNAW_PROPTEST_CASES` raises the case count (default 512, a second or two).

use crate::contain_check;

use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("GNAW_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(512)
}

fn part() -> impl Strategy<Value = Result<usize, Vec<u8>>> {
    prop_oneof![
        4 => (0..contain_check::VOCABULARY.len()).prop_map(Ok),
        1 => proptest::collection::vec(any::<u8>(), 0..6).prop_map(Err),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn never_contained_outside(absolute in 0u8..4, parts in proptest::collection::vec(part(), 0..8)) {
        thread_local! {
            static TREE: contain_check::Tree = contain_check::tree();
        }
        TREE.with(|tree| {
            let input = contain_check::assemble(tree, absolute, &parts);
            if let Err(violation) = contain_check::check(tree, &input) {
                panic!("{violation}");
            }
        });
    }

    #[test]
    fn raw_bytes_never_contained_outside(input in proptest::collection::vec(any::<u8>(), 0..64)) {
        thread_local! {
            static TREE: contain_check::Tree = contain_check::tree();
        }
        TREE.with(|tree| {
            if let Err(violation) = contain_check::check(tree, &input) {
                panic!("{violation}");
            }
        });
    }
}

/// The checker itself must catch a violation, or the properties above prove nothing.
#[test]
fn the_checker_catches_an_escape() {
    let tree = contain_check::tree();
    assert_eq!(contain_check::check(&tree, b"sub/inner.txt"), Ok(()));
    assert_eq!(contain_check::check(&tree, b"in1"), Ok(()));
    // A root one level up does contain the canary: fed to the verdict as if the real root had
    // answered that way, it must be flagged.
    let wider = gnaw_sandbox::Root::new(&tree.base, false).expect("base root");
    let escaped = wider
        .contain(std::ffi::OsStr::new("canaryoutside/secret.txt"))
        .expect("contained by the wider root");
    let flagged = contain_check::verdict(&tree, b"link_out_file", Ok(escaped));
    assert!(flagged.is_err_and(|e| e.contains("outside the root")));
}
