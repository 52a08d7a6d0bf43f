//! Layer 1 under a concurrent attacker: while `Root::contain` runs in a loop, another thread
//! swaps a directory inside the root with a symlink to an outside directory
//! (`renameat2(RENAME_EXCHANGE)`, atomic), as fast as it can.
//!
//! Every name asked for lives only in the *outside* directory, which holds links chosen so that
//! any look at them changes the answer into one that is impossible from the inside alone:
//!
//! - `swap/probe_in` does not exist inside; outside it is a link to `<root>/file.txt`, spelled
//!   under the root. A resolver that reads it answers `Ok(file.txt)`: a proof built from
//!   content outside the root.
//! - `swap/probe_long` does not exist inside; outside it is a link to a 300-byte name. A
//!   resolver that reads it answers `InvalidPath`.
//!
//! - `swap/real.txt` exists inside; outside it is a link to `<root>/file.txt` too.
//!
//! From the inside, the only honest answers are `NotFound` (the directory has no such entry, or
//! it changed while being resolved), `OutsideRoot` (the link) and, for `swap/real.txt` only,
//! `Ok(swap/real.txt)`. A resolver that looks anything up by path string can
//! look through the swapped link between two of its steps; one that resolves every component
//! from the directory fd it reached cannot. Bounded to about two seconds; the test also
//! requires that both honest answers were seen, so that the race really ran in both states.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gnaw_sandbox::{Rejection, Root};
use nix::fcntl::{AT_FDCWD, RenameFlags, renameat2};

const RUN_FOR: Duration = Duration::from_secs(2);

#[test]
fn swapping_a_directory_for_a_link_out_never_lets_outside_links_decide() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = fs::canonicalize(tmp.path()).expect("canonical tempdir");
    let r = base.join("root");
    let out = base.join("outside");
    fs::create_dir_all(r.join("swap")).expect("mkdir swap");
    fs::write(r.join("file.txt"), "inside").expect("write file.txt");
    fs::write(r.join("swap/real.txt"), "inside").expect("write swap/real.txt");
    fs::create_dir(&out).expect("mkdir outside");
    symlink(r.join("file.txt"), out.join("probe_in")).expect("link probe_in");
    symlink("l".repeat(300), out.join("probe_long")).expect("link probe_long");
    symlink(r.join("file.txt"), out.join("real.txt")).expect("link real.txt");
    symlink(&out, r.join("swap_link")).expect("link swap_link");
    let root = Root::new(&r, false).expect("root");

    // Without a race: the directory gives NotFound (or the real file), the link OutsideRoot.
    let exchange = |a: &Path, b: &Path| {
        renameat2(AT_FDCWD, a, AT_FDCWD, b, RenameFlags::RENAME_EXCHANGE)
            .expect("renameat2(RENAME_EXCHANGE) must work on the temp filesystem")
    };
    let (dir, link) = (r.join("swap"), r.join("swap_link"));
    for probe in ["swap/probe_in", "swap/probe_long"] {
        assert_eq!(
            root.contain(OsStr::new(probe)),
            Err(Rejection::NotFound),
            "{probe}"
        );
    }
    let real = root.contain(OsStr::new("swap/real.txt")).expect("real.txt");
    assert_eq!(real.relative(), Path::new("swap/real.txt"));
    exchange(&dir, &link);
    for probe in ["swap/probe_in", "swap/probe_long", "swap/real.txt"] {
        assert_eq!(
            root.contain(OsStr::new(probe)),
            Err(Rejection::OutsideRoot),
            "{probe}"
        );
    }
    exchange(&dir, &link);

    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                exchange(&dir, &link);
                swaps += 1;
            }
            swaps
        })
    };

    let started = Instant::now();
    let (mut not_found, mut outside, mut found, mut calls) = (0u64, 0u64, 0u64, 0u64);
    let mut violation = None;
    'race: while started.elapsed() < RUN_FOR {
        for probe in ["swap/probe_in", "swap/probe_long", "swap/real.txt"] {
            calls += 1;
            match root.contain(OsStr::new(probe)) {
                Err(Rejection::NotFound) => not_found += 1,
                Err(Rejection::OutsideRoot) => outside += 1,
                Ok(c)
                    if probe == "swap/real.txt"
                        && c.relative() == Path::new(probe)
                        && c.path() == root.path().join(probe) =>
                {
                    found += 1
                }
                other => {
                    violation = Some(format!("{probe}: {other:?}"));
                    break 'race;
                }
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().expect("swapper thread");

    assert!(
        violation.is_none(),
        "after {calls} calls and {swaps} swaps, an answer came from a link outside the root: {}",
        violation.unwrap_or_default()
    );
    eprintln!(
        "{calls} calls, {swaps} swaps: {not_found} NotFound, {outside} OutsideRoot, {found} Ok"
    );
    assert!(
        not_found > 0 && outside > 0 && found > 0,
        "the race did not run in both states ({not_found} NotFound, {outside} OutsideRoot, \
         {found} Ok, {swaps} swaps): the test proved nothing"
    );
}
