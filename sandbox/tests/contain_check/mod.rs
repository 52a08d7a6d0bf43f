//! The containment invariant, shared by the property test (`tests/containment/props.rs`) and the
//! `contain` fuzz target (`fuzz/fuzz_targets/contain.rs`): a hostile tree built once, and a
//! check that whatever bytes come in, `Root::contain` never proves a path outside the root and
//! no rejection message repeats anything from outside.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

use gnaw_sandbox::{Contained, Rejection, Root};

/// A word that appears only in names outside the root.
pub const CANARY: &str = "canaryoutside";

/// The hostile tree: a root full of links that lead out, sibling prefixes, and an outside
/// directory holding the canary.
pub struct Tree {
    _tmp: tempfile::TempDir,
    pub base: PathBuf,
    pub root: Root,
}

/// Names worth combining into paths: every link of the tree, the outside names, and spellings
/// that must stay literal.
pub const VOCABULARY: &[&str] = &[
    "..",
    ".",
    "",
    "sub",
    "deeper",
    "file.txt",
    "inner.txt",
    "link_out_file",
    "link_out_dir",
    "rel_out",
    "rel_up_up",
    "hop1",
    "hop2",
    "hop3",
    "in1",
    "dangling",
    "dangling_out",
    "loop_a",
    "self_link",
    "proc_root",
    "abs_inside",
    "dotdot_inside",
    "ancestor_out",
    "rootlink",
    "root",
    "root-evil",
    "root2",
    "root.bak",
    CANARY,
    "secret.txt",
    "%2e%2e",
    "..\\..",
    "C:\\x",
    "proc",
    "self",
    "cwd",
    "fd",
    "0",
    "3",
    "etc",
    "passwd",
    "..%2f",
    "\u{202e}",
    "\u{200b}",
    "e\u{301}",
];

pub fn tree() -> Tree {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = fs::canonicalize(tmp.path()).expect("canonical tempdir");
    let r = base.join("root");
    let out = base.join(CANARY);
    fs::create_dir_all(r.join("sub/deeper")).expect("mkdir");
    fs::create_dir_all(&out).expect("mkdir");
    fs::write(r.join("file.txt"), "inside").expect("write");
    fs::write(r.join("sub/inner.txt"), "inner").expect("write");
    fs::write(out.join("secret.txt"), CANARY).expect("write");
    for sib in ["root-evil", "root2", "root.bak"] {
        fs::create_dir(base.join(sib)).expect("mkdir");
        fs::write(base.join(sib).join("file.txt"), CANARY).expect("write");
    }
    let out_file = out.join("secret.txt");
    let links: &[(&OsStr, &str)] = &[
        (out_file.as_os_str(), "link_out_file"),
        (out.as_os_str(), "link_out_dir"),
        (OsStr::new("../canaryoutside/secret.txt"), "rel_out"),
        (OsStr::new("../../x"), "rel_up_up"),
        (OsStr::new("hop2"), "hop1"),
        (OsStr::new("hop3"), "hop2"),
        (out_file.as_os_str(), "hop3"),
        (OsStr::new("sub/inner.txt"), "in1"),
        (OsStr::new("nothing-here"), "dangling"),
        (OsStr::new("/canaryoutside-does-not-exist"), "dangling_out"),
        (OsStr::new("loop_b"), "loop_a"),
        (OsStr::new("loop_a"), "loop_b"),
        (OsStr::new("self_link"), "self_link"),
        (OsStr::new("/proc/self/root"), "proc_root"),
        (OsStr::new("sub/deeper/../inner.txt"), "dotdot_inside"),
        (OsStr::new("../root-evil"), "sub/ancestor_out"),
    ];
    for (target, name) in links {
        symlink(target, r.join(name)).expect("symlink");
    }
    symlink(r.join("sub"), r.join("abs_inside")).expect("symlink");
    symlink(&out, r.join("sub/deeper/ancestor_out")).expect("symlink");
    symlink(&r, base.join("rootlink")).expect("symlink");
    let root = Root::new(&r, false).expect("root");
    Tree {
        _tmp: tmp,
        base,
        root,
    }
}

/// Assemble a path from vocabulary indices and raw bytes: the fuzz target and the property
/// test both use it so that their inputs reach the interesting names.
pub fn assemble(tree: &Tree, absolute: u8, parts: &[Result<usize, Vec<u8>>]) -> Vec<u8> {
    let mut path = match absolute % 4 {
        0 => Vec::new(),
        1 => b"/".to_vec(),
        2 => {
            let mut p = tree.root.path().as_os_str().as_bytes().to_vec();
            p.push(b'/');
            p
        }
        _ => {
            let mut p = tree.base.as_os_str().as_bytes().to_vec();
            p.push(b'/');
            p
        }
    };
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            path.push(b'/');
        }
        match part {
            Ok(k) => path.extend_from_slice(VOCABULARY[k % VOCABULARY.len()].as_bytes()),
            Err(raw) => path.extend_from_slice(raw),
        }
    }
    path
}

/// The invariant. `Err` describes the violation.
pub fn check(tree: &Tree, input: &[u8]) -> Result<(), String> {
    let os = OsStr::from_bytes(input);
    verdict(tree, input, tree.root.contain(os))?;
    verdict(
        tree,
        input,
        tree.root.contain_dir(os).map(|d| d.contained().clone()),
    )
}

/// Judge one answer of the root to `input`.
pub fn verdict(tree: &Tree, input: &[u8], got: Result<Contained, Rejection>) -> Result<(), String> {
    let root = tree.root.path();
    let os = OsStr::from_bytes(input);
    let names_canary = |b: &[u8]| b.windows(CANARY.len()).any(|w| w == CANARY.as_bytes());
    match got {
        Ok(c) => {
            if !c.path().starts_with(root) {
                return Err(format!(
                    "{input:?} contained outside the root: {:?}",
                    c.path()
                ));
            }
            let real = fs::canonicalize(c.path())
                .map_err(|e| format!("{input:?}: contained path does not resolve: {e}"))?;
            if real != c.path() {
                return Err(format!(
                    "{input:?}: contained path {:?} is not canonical",
                    c.path()
                ));
            }
            if root.join(c.relative()) != c.path() && !c.relative().as_os_str().is_empty() {
                return Err(format!("{input:?}: relative {:?} disagrees", c.relative()));
            }
            if names_canary(c.path().as_os_str().as_bytes()) {
                return Err(format!("{input:?}: contained a path naming the canary"));
            }
        }
        Err(rejection) => {
            let message = format!("{rejection} {}", rejection.message_for(os));
            if message.contains(CANARY) && !names_canary(input) {
                return Err(format!("{input:?}: message leaks the outside: {message}"));
            }
        }
    }
    Ok(())
}
