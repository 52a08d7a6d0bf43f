//! Layer 1 alone: userspace containment against a real tree of files, directories, sibling
//! prefixes and hostile symlinks built at test time. Each case asserts the exact rejection kind.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::common::Scratch;
use gnaw_sandbox::{Rejection, Root, RootError};

/// A word that appears only outside the root; no message may contain it.
const CANARY: &str = "canaryoutside";

struct Fixture {
    scratch: Scratch,
    root: Root,
}

fn fixture() -> Fixture {
    let scratch = Scratch::new();
    let base = scratch.base.clone();
    let r = base.join("root");
    let out = scratch.dir(CANARY);
    fs::create_dir_all(r.join("sub/deeper")).unwrap();
    fs::write(r.join("file.txt"), "inside").unwrap();
    fs::write(r.join("sub/inner.txt"), "inner").unwrap();
    fs::write(out.join("secret.txt"), "secret").unwrap();
    for sib in ["root-evil", "root2", "root.bak", "root_backup"] {
        fs::create_dir(base.join(sib)).unwrap();
        fs::write(base.join(sib).join("file.txt"), "sibling").unwrap();
    }
    let out_file = out.join("secret.txt");
    symlink(&out_file, r.join("link_out_file")).unwrap();
    symlink(&out, r.join("link_out_dir")).unwrap();
    symlink(format!("../{CANARY}/secret.txt"), r.join("rel_out")).unwrap();
    symlink(&out_file, r.join("hop3")).unwrap();
    symlink(format!("/{CANARY}-does-not-exist"), r.join("dangling_out")).unwrap();
    symlink(r.join("sub"), r.join("abs_inside")).unwrap();
    // Each link (name, target) whose target is written the same wherever the tree is.
    for (name, target) in [
        ("rel_up_up", "../../x"),
        ("hop1", "hop2"),
        ("hop2", "hop3"),
        ("in1", "in2"),
        ("in2", "in3"),
        ("in3", "sub/inner.txt"),
        ("dangling", "nothing-here"),
        ("loop_a", "loop_b"),
        ("loop_b", "loop_a"),
        ("self_link", "self_link"),
        ("proc_root", "/proc/self/root"),
        ("dotdot_inside", "sub/deeper/../inner.txt"),
    ] {
        symlink(target, r.join(name)).unwrap();
    }
    symlink(&r, base.join("rootlink")).unwrap();
    fs::create_dir(r.join("%2e%2e")).unwrap();
    fs::write(r.join(OsStr::from_bytes(b"caf\xe9.txt")), "latin1 name").unwrap();
    let root = Root::new(&r, false).expect("root");
    Fixture { scratch, root }
}

fn kind(f: &Fixture, input: impl AsRef<OsStr>) -> &'static str {
    let input = input.as_ref();
    match f.root.contain(input) {
        Ok(c) => {
            assert!(
                c.path().starts_with(f.root.path()),
                "contained path {:?} is not under the root",
                c.path()
            );
            "Ok"
        }
        Err(rej) => {
            let msg = format!("{rej} / {}", rej.message_for(input));
            let input_has_canary = input
                .as_bytes()
                .windows(CANARY.len())
                .any(|w| w == CANARY.as_bytes());
            if !input_has_canary {
                assert!(
                    !msg.contains(CANARY),
                    "message leaks outside content: {msg}"
                );
            }
            rej.kind()
        }
    }
}

/// Each of `inputs` gets `want`.
fn each_kind(f: &Fixture, want: &str, inputs: &[&str]) {
    for input in inputs {
        assert_eq!(kind(f, input), want, "{input:?}");
    }
}

fn rel(f: &Fixture, input: &str) -> PathBuf {
    f.root
        .contain(OsStr::new(input))
        .expect(input)
        .relative()
        .to_path_buf()
}

#[test]
fn dotdot_chains_are_outside() {
    let f = fixture();
    each_kind(
        &f,
        "OutsideRoot",
        &["..", "../", "../../../../etc/passwd", "sub/../../file.txt"],
    );
    // Leaving the root and coming back in is still refused.
    assert_eq!(kind(&f, "../root/file.txt"), "OutsideRoot");
    assert_eq!(kind(&f, "sub/../../root/file.txt"), "OutsideRoot");
    let deep = format!("{}etc/passwd", "../".repeat(1000));
    assert_eq!(kind(&f, &deep), "OutsideRoot");
    let deep_missing = format!("{}no/such/{CANARY}", "../".repeat(1000));
    assert_eq!(kind(&f, &deep_missing), "OutsideRoot");
    // `..` that stays inside is fine.
    assert_eq!(
        rel(&f, "sub/deeper/../inner.txt"),
        Path::new("sub/inner.txt")
    );
}

#[test]
fn absolute_paths() {
    let f = fixture();
    each_kind(&f, "OutsideRoot", &["/etc/passwd", "/", "//", "/./"]);
    assert_eq!(kind(&f, format!("/{CANARY}-missing/x")), "OutsideRoot");
    assert_eq!(
        kind(&f, f.scratch.base.join(CANARY).join("secret.txt")),
        "OutsideRoot"
    );
    let inside = f.root.path().join("sub/inner.txt");
    assert_eq!(
        rel(&f, inside.to_str().unwrap()),
        Path::new("sub/inner.txt")
    );
    let spelled = format!("{}//sub/./inner.txt", f.root.path().display());
    assert_eq!(rel(&f, &spelled), Path::new("sub/inner.txt"));
    let up = format!("{}/../{CANARY}/secret.txt", f.root.path().display());
    assert_eq!(kind(&f, &up), "OutsideRoot");
    // Absolute, spelled under the root, missing: NotFound (it is inside).
    assert_eq!(kind(&f, f.root.path().join("missing")), "NotFound");
}

#[test]
fn empty_nul_dot_and_slashes() {
    let f = fixture();
    assert_eq!(kind(&f, ""), "InvalidPath");
    assert_eq!(kind(&f, OsStr::from_bytes(b"file.txt\0")), "InvalidPath");
    assert_eq!(kind(&f, OsStr::from_bytes(b"\0")), "InvalidPath");
    assert_eq!(kind(&f, OsStr::from_bytes(b"sub/\0/../x")), "InvalidPath");
    assert_eq!(rel(&f, "."), Path::new(""));
    assert_eq!(rel(&f, "./"), Path::new(""));
    assert_eq!(
        f.root.contain(OsStr::new(".")).unwrap().path(),
        f.root.path()
    );
    assert_eq!(rel(&f, "sub/"), Path::new("sub"));
    assert_eq!(rel(&f, "sub//inner.txt"), Path::new("sub/inner.txt"));
    assert_eq!(rel(&f, "./sub/./inner.txt"), Path::new("sub/inner.txt"));
    assert_eq!(kind(&f, "file.txt/"), "NotADirectory");
    each_kind(
        &f,
        "NotFound",
        &["file.txt/x", "missing", "sub/missing/deeper"],
    );
}

#[test]
fn sibling_prefixes_are_outside() {
    let f = fixture();
    for sib in ["root-evil", "root2", "root.bak", "root_backup"] {
        assert_eq!(
            kind(&f, format!("../{sib}/file.txt")),
            "OutsideRoot",
            "{sib}"
        );
        assert_eq!(
            kind(&f, f.scratch.base.join(sib).join("file.txt")),
            "OutsideRoot",
            "{sib}"
        );
        assert_eq!(kind(&f, f.scratch.base.join(sib)), "OutsideRoot", "{sib}");
    }
}

#[test]
fn symlinks_out_are_outside() {
    let f = fixture();
    each_kind(
        &f,
        "OutsideRoot",
        &[
            "link_out_file",
            "link_out_dir",
            "link_out_dir/secret.txt",
            "link_out_dir/missing",
            "rel_out",
            "rel_up_up",
            "hop1",
            "dangling_out",
            "proc_root",
            "proc_root/etc/passwd",
        ],
    );
    assert!(f.root.contain_dir(OsStr::new("link_out_dir")).is_err());
}

#[test]
fn symlinks_inside_resolve() {
    let f = fixture();
    assert_eq!(rel(&f, "in1"), Path::new("sub/inner.txt"));
    assert_eq!(rel(&f, "abs_inside/inner.txt"), Path::new("sub/inner.txt"));
    assert_eq!(rel(&f, "dotdot_inside"), Path::new("sub/inner.txt"));
    assert_eq!(kind(&f, "dangling"), "NotFound");
    each_kind(&f, "InvalidPath", &["loop_a", "self_link", "self_link/x"]);
}

#[test]
fn proc_self_paths() {
    let f = fixture();
    each_kind(
        &f,
        "OutsideRoot",
        &[
            "/proc/self/root/etc/passwd",
            "/proc/self/cwd",
            "/proc/self/cwd/Cargo.toml",
            "/proc/self/fd/0",
        ],
    );
    assert_eq!(
        kind(&f, format!("/proc/self/root/{CANARY}-missing")),
        "OutsideRoot"
    );
    // The same file spelled through /proc/self/root resolves inside, but it is an outside
    // spelling: only the root as the operator gave it (or its canonical form) is accepted, so no
    // outside path can be probed for where it leads.
    let via_proc = format!("/proc/self/root{}/file.txt", f.root.path().display());
    assert_eq!(kind(&f, &via_proc), "OutsideRoot");
}

#[test]
fn long_names_and_paths_are_invalid() {
    let f = fixture();
    assert_eq!(kind(&f, "a".repeat(256)), "InvalidPath");
    assert_eq!(kind(&f, format!("sub/{}", "b".repeat(300))), "InvalidPath");
    assert_eq!(kind(&f, "a".repeat(255)), "NotFound");
    assert_eq!(kind(&f, "sub/".repeat(1100)), "InvalidPath");
    assert_eq!(kind(&f, format!("/{}", "x/".repeat(3000))), "InvalidPath");
}

#[test]
fn literal_names_are_never_decoded() {
    let f = fixture();
    each_kind(
        &f,
        "NotFound",
        &[
            "%2e%2e/%2e%2e/etc/passwd",
            "..\\..\\etc\\passwd",
            "C:\\x",
            "sub\\inner.txt",
        ],
    );
    assert_eq!(rel(&f, "%2e%2e"), Path::new("%2e%2e"));
}

#[test]
fn non_utf8_names() {
    let f = fixture();
    let name = OsString::from_vec(b"caf\xe9.txt".to_vec());
    let c = f.root.contain(&name).expect("non-UTF-8 name");
    assert_eq!(c.relative().as_os_str(), name.as_os_str());
    assert_eq!(fs::read(c.path()).unwrap(), b"latin1 name");
    assert_eq!(kind(&f, OsStr::from_bytes(b"caf\xe9-missing")), "NotFound");
    let rej = f
        .root
        .contain(OsStr::from_bytes(b"\xff\x1b[31m"))
        .unwrap_err();
    let msg = rej.message_for(OsStr::from_bytes(b"\xff\x1b[31m"));
    assert!(
        !msg.contains('\x1b'),
        "control characters must be escaped: {msg:?}"
    );
}

#[test]
fn directories_and_json() {
    let f = fixture();
    let d = f.root.contain_dir(OsStr::new("sub")).unwrap();
    assert_eq!(d.relative(), Path::new("sub"));
    assert_eq!(d.contained().path(), f.root.path().join("sub"));
    assert_eq!(
        f.root.contain_dir(OsStr::new("file.txt")).unwrap_err(),
        Rejection::NotADirectory
    );
    assert_eq!(
        f.root.contain_dir(OsStr::new("in1")).unwrap_err(),
        Rejection::NotADirectory
    );
    assert_eq!(
        f.root.contain_dir(OsStr::new("nope")).unwrap_err(),
        Rejection::NotFound
    );
    let j = serde_json::json!("sub/deeper");
    assert_eq!(
        f.root.contain_json(&j).unwrap().relative(),
        Path::new("sub/deeper")
    );
    for bad in [
        serde_json::json!(null),
        serde_json::json!(1),
        serde_json::json!(["sub"]),
        serde_json::json!({"path": "sub"}),
        serde_json::json!(true),
    ] {
        assert_eq!(
            f.root.contain_json(&bad).unwrap_err().kind(),
            "InvalidPath",
            "{bad}"
        );
    }
    assert_eq!(
        f.root
            .contain_json(&serde_json::json!("../root2"))
            .unwrap_err()
            .kind(),
        "OutsideRoot"
    );
    let sub_root = d.as_root().unwrap();
    assert_eq!(sub_root.path(), f.root.path().join("sub"));
    assert_eq!(
        sub_root.contain(OsStr::new("../file.txt")).unwrap_err(),
        Rejection::OutsideRoot
    );
    assert_eq!(
        sub_root
            .contain(OsStr::new("inner.txt"))
            .unwrap()
            .relative(),
        Path::new("inner.txt")
    );
    let whole = f.root.as_dir();
    assert_eq!(whole.relative(), Path::new(""));
    assert_eq!(whole.path(), f.root.path());
}

#[test]
fn root_given_via_symlink_behaves_the_same() {
    let f = fixture();
    let link = f.scratch.base.join("rootlink");
    let again = Root::new(&link, false).expect("root through a symlink");
    assert_eq!(again.path(), f.root.path());
    assert_eq!(
        again.contain(OsStr::new("sub/inner.txt")).unwrap(),
        f.root.contain(OsStr::new("sub/inner.txt")).unwrap()
    );
    // Spelled under the root as given (the link), an absolute path is accepted by the root made
    // through the link...
    let spelled = link.join("sub/inner.txt");
    let through_link = again.contain(spelled.as_os_str()).unwrap();
    assert_eq!(through_link.relative(), Path::new("sub/inner.txt"));
    // ...and refused by the root made from the canonical path, for which the link is an outside
    // alias that leads in (issue 12: outside aliases answer OutsideRoot).
    assert_eq!(kind(&f, &spelled), "OutsideRoot");
    assert_eq!(kind(&f, link.join("../root2/file.txt")), "OutsideRoot");
}

#[test]
fn root_errors() {
    let f = fixture();
    let missing = f.scratch.base.join("nope");
    assert!(matches!(
        Root::new(&missing, false),
        Err(RootError::NotFound(_))
    ));
    let file = f.root.path().join("file.txt");
    assert!(matches!(
        Root::new(&file, false),
        Err(RootError::NotADirectory(_))
    ));
    let e = Root::new(Path::new("/"), false).unwrap_err();
    assert!(matches!(e, RootError::FilesystemRoot(_)));
    assert!(e.to_string().contains("meaningless"), "{e}");
    assert_eq!(
        Root::new(Path::new("/"), true).unwrap().path(),
        Path::new("/")
    );
    assert!(
        Root::new(&missing, false)
            .unwrap_err()
            .to_string()
            .contains("does not exist")
    );
}

#[test]
fn rejection_kinds_and_messages() {
    assert_eq!(Rejection::OutsideRoot.kind(), "OutsideRoot");
    assert_eq!(Rejection::NotFound.kind(), "NotFound");
    assert_eq!(Rejection::NotADirectory.kind(), "NotADirectory");
    assert_eq!(Rejection::InvalidPath("x".into()).kind(), "InvalidPath");
    let long = "z".repeat(5000);
    let msg = Rejection::InvalidPath("too long".into()).message_for(OsStr::new(&long));
    assert!(msg.len() < 400, "long inputs are shortened in messages");
}
