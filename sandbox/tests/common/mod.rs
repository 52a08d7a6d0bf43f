//! What the sandbox's test binaries share: a scratch directory to build their trees in, and the
//! tiny runner of the binaries that have their own `main` (they re-execute themselves as
//! single-threaded children, so they cannot use the test harness).

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

/// A fresh temporary directory, by its canonical path, removed when the test ends.
pub struct Scratch {
    _tmp: tempfile::TempDir,
    pub base: PathBuf,
}

impl Scratch {
    pub fn new() -> Scratch {
        let tmp = tempfile::tempdir().expect("tempdir");
        let base = fs::canonicalize(tmp.path()).expect("canonical tempdir");
        Scratch { _tmp: tmp, base }
    }

    /// `base/REL`, made with its parents.
    pub fn dir(&self, rel: &str) -> PathBuf {
        let d = self.base.join(rel);
        fs::create_dir_all(&d).unwrap();
        d
    }

    /// Write `base/REL`, making its parents.
    pub fn write(&self, rel: impl AsRef<Path>, content: &str) -> PathBuf {
        let p = self.base.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, content).unwrap();
        p
    }
}

/// The `main` of a binary without the test harness: as the child (environment variable
/// `child_var` set to a scenario) run `child`; otherwise run each of `tests` in turn, or those
/// whose name contains an argument (`cargo test --test NAME -- FILTER`). A failing test panics.
pub fn harness(child_var: &str, child: fn(&str), tests: &[(&str, fn())]) {
    if let Ok(scenario) = std::env::var(child_var) {
        return child(&scenario);
    }
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut ran = 0;
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        println!("test {name} ...");
        test();
        println!("test {name} ... ok");
        ran += 1;
    }
    println!("test result: ok. {ran} passed; 0 failed");
}

/// Two roots beside each other, as an operator may list them: `root` holding `file.txt`
/// ("inside"), `other` holding `other.txt` ("the second root"); and beside them `tenant`, another
/// tenant's root (holding `theirs.txt`) that neither may reach.
pub struct TwoRoots {
    pub scratch: Scratch,
    pub root: PathBuf,
    pub other: PathBuf,
    pub tenant: PathBuf,
}

pub fn two_roots() -> TwoRoots {
    let scratch = Scratch::new();
    let root = scratch.dir("root");
    let other = scratch.dir("other");
    fs::write(root.join("file.txt"), "inside").unwrap();
    fs::write(other.join("other.txt"), "the second root").unwrap();
    let tenant = scratch.dir("tenant");
    fs::write(tenant.join("theirs.txt"), "another tenant's").unwrap();
    TwoRoots {
        scratch,
        root,
        other,
        tenant,
    }
}

impl TwoRoots {
    /// Both, as one `Roots`.
    pub fn roots(&self) -> gnaw_sandbox::Roots {
        gnaw_sandbox::Roots::new(&[self.root.clone(), self.other.clone()], false).expect("roots")
    }

    /// The other tenant's root, proven.
    pub fn tenant_root(&self) -> gnaw_sandbox::Roots {
        gnaw_sandbox::Roots::new(std::slice::from_ref(&self.tenant), false).expect("tenant root")
    }
}
