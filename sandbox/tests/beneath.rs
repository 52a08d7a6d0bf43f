//! Layer 2 alone: per-open kernel containment with real FIFOs, symlinks and rename swaps,
//! through both mechanisms (`openat2` and the `O_NOFOLLOW` component walk).

use std::ffi::OsStr;
use std::fs;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

mod common;

use common::Scratch;
use gnaw_sandbox::{BeneathDir, Mechanism, Root, is_file_changed, refusal_reason};
use nix::sys::stat::Mode;

const BOTH: [Mechanism; 2] = [Mechanism::Openat2, Mechanism::NofollowComponents];

struct Fixture {
    _scratch: Scratch,
    root: PathBuf,
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let scratch = Scratch::new();
    let root = scratch.dir("repo");
    fs::create_dir_all(root.join("sub")).unwrap();
    let outside = scratch.dir("outside");
    fs::write(root.join("a.txt"), "AAAA").unwrap();
    fs::write(root.join("b.txt"), "BBBB").unwrap();
    fs::write(root.join("sub/inner.txt"), "inner").unwrap();
    fs::write(outside.join("canary.txt"), "CANARY").unwrap();
    fs::write(root.join(OsStr::from_bytes(b"n\xe4me\n.txt")), "odd name").unwrap();
    symlink(outside.join("canary.txt"), root.join("abs_out")).unwrap();
    symlink("../outside/canary.txt", root.join("rel_out")).unwrap();
    symlink(&outside, root.join("dir_out")).unwrap();
    symlink("a.txt", root.join("link_in")).unwrap();
    symlink("sub", root.join("sub_link")).unwrap();
    symlink("/proc/self/root/etc/hostname", root.join("magic")).unwrap();
    nix::unistd::mkfifo(&root.join("fifo"), Mode::S_IRUSR | Mode::S_IWUSR).unwrap();
    Fixture {
        _scratch: scratch,
        root,
        outside,
    }
}

fn open_dir(f: &Fixture) -> BeneathDir {
    Root::new(&f.root, false)
        .unwrap()
        .as_dir()
        .open()
        .expect("open repo dir")
}

/// The fixture and its repository directory, opened.
fn fixture_dir() -> (Fixture, BeneathDir) {
    let f = fixture();
    let d = open_dir(&f);
    (f, d)
}

/// Open `name` in `d` with mechanism `m`.
fn open(d: &BeneathDir, m: Mechanism, name: &str, follow: bool) -> std::io::Result<fs::File> {
    d.open_file_using(m, Path::new(name), follow)
}

fn errno(r: std::io::Result<fs::File>) -> i32 {
    match r {
        Ok(_) => 0,
        Err(e) => e.raw_os_error().unwrap_or(-1),
    }
}

fn read(file: std::io::Result<fs::File>) -> String {
    let mut s = String::new();
    file.expect("open").read_to_string(&mut s).unwrap();
    s
}

#[test]
fn this_kernel_uses_openat2() {
    assert_eq!(BeneathDir::mechanism(), "openat2");
}

#[test]
fn regular_and_odd_names_open_with_both_mechanisms() {
    let (_f, d) = fixture_dir();
    for m in BOTH {
        assert_eq!(read(open(&d, m, "a.txt", false)), "AAAA");
        assert_eq!(read(open(&d, m, "sub/inner.txt", false)), "inner");
        assert_eq!(read(open(&d, m, "./sub//inner.txt", false)), "inner");
        let odd = Path::new(OsStr::from_bytes(b"n\xe4me\n.txt"));
        assert_eq!(read(d.open_file_using(m, odd, false)), "odd name");
        assert_eq!(errno(open(&d, m, "missing", false)), libc::ENOENT);
    }
}

#[test]
fn fifo_opens_without_blocking() {
    let (f, d) = fixture_dir();
    for m in BOTH {
        let (tx, rx) = mpsc::channel();
        let dir = open_dir(&f);
        std::thread::spawn(move || {
            let r = dir
                .open_file_using(m, Path::new("fifo"), false)
                .map(|file| {
                    let meta = file.metadata().unwrap();
                    (
                        meta.file_type().is_file(),
                        nix::sys::stat::SFlag::from_bits_truncate(meta.mode()),
                    )
                });
            let _ = tx.send(r.map_err(|e| e.to_string()));
        });
        let got = rx
            .recv_timeout(Duration::from_secs(5))
            .unwrap_or_else(|_| panic!("opening a FIFO blocked ({m:?})"));
        let (is_regular, mode) = got.expect("FIFO opens");
        assert!(!is_regular, "a FIFO is not a regular file");
        assert!(mode.contains(nix::sys::stat::SFlag::S_IFIFO));
    }
    drop(d);
}

#[test]
fn escaping_symlinks_are_refused_even_when_following() {
    let (f, d) = fixture_dir();
    for follow in [true, false] {
        for name in ["abs_out", "rel_out", "dir_out/canary.txt", "magic"] {
            let e = errno(open(&d, Mechanism::Openat2, name, follow));
            let expected = if follow { libc::EXDEV } else { libc::ELOOP };
            // A magic link through /proc is absolute: EXDEV under RESOLVE_BENEATH.
            assert_eq!(e, expected, "openat2 {name} follow={follow}");
            let e = errno(open(&d, Mechanism::NofollowComponents, name, follow));
            assert_eq!(e, libc::ELOOP, "components {name} follow={follow}");
        }
    }
    for m in BOTH {
        for path in ["../outside/canary.txt", "sub/../../outside/canary.txt"] {
            assert_eq!(errno(open(&d, m, path, true)), libc::EXDEV, "{m:?} {path}");
        }
        let abs = f.outside.join("canary.txt");
        assert_eq!(
            errno(d.open_file_using(m, &abs, true)),
            libc::EXDEV,
            "{m:?} absolute"
        );
    }
    let err = d.open_file(Path::new("abs_out"), true).unwrap_err();
    assert_eq!(
        refusal_reason(&err),
        Some("path leaves the repository directory")
    );
}

#[test]
fn symlinks_inside_are_refused_without_follow() {
    let (_f, d) = fixture_dir();
    for m in BOTH {
        assert_eq!(errno(open(&d, m, "link_in", false)), libc::ELOOP, "{m:?}");
        assert_eq!(
            errno(open(&d, m, "sub_link/inner.txt", false)),
            libc::ELOOP,
            "{m:?} symlinked ancestor"
        );
    }
    // openat2 follows links that stay beneath; the fallback never follows.
    assert_eq!(read(open(&d, Mechanism::Openat2, "link_in", true)), "AAAA");
    assert_eq!(
        read(open(&d, Mechanism::Openat2, "sub_link/inner.txt", true)),
        "inner"
    );
    assert_eq!(
        errno(open(&d, Mechanism::NofollowComponents, "link_in", true)),
        libc::ELOOP
    );
    let err = d.open_file(Path::new("link_in"), false).unwrap_err();
    assert_eq!(refusal_reason(&err), Some("symbolic link refused"));
}

#[test]
fn identity_change_after_rename_swap_is_detected() {
    let (f, d) = fixture_dir();
    let seen = fs::symlink_metadata(f.root.join("a.txt")).unwrap();
    let (file, meta) = d
        .open_file_expecting(Path::new("a.txt"), false, seen.dev(), seen.ino())
        .expect("unchanged file opens");
    assert_eq!(meta.ino(), seen.ino());
    drop(file);

    // Swap a.txt and b.txt atomically after the "walk" saw a.txt.
    nix::fcntl::renameat2(
        nix::fcntl::AT_FDCWD,
        &f.root.join("a.txt"),
        nix::fcntl::AT_FDCWD,
        &f.root.join("b.txt"),
        nix::fcntl::RenameFlags::RENAME_EXCHANGE,
    )
    .unwrap();
    let err = d
        .open_file_expecting(Path::new("a.txt"), false, seen.dev(), seen.ino())
        .unwrap_err();
    assert!(is_file_changed(&err), "{err}");
    assert_eq!(err.to_string(), "file changed between walk and open");
    assert_eq!(
        refusal_reason(&err),
        Some("file changed between walk and open")
    );

    // Swap a symlink to the outside canary in place of a file: refused, never read.
    fs::rename(f.root.join("abs_out"), f.root.join("a.txt")).unwrap();
    let err = d
        .open_file_expecting(Path::new("a.txt"), false, seen.dev(), seen.ino())
        .unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::ELOOP));
    let err = d
        .open_file_expecting(Path::new("a.txt"), true, seen.dev(), seen.ino())
        .unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EXDEV));
}

#[test]
fn opening_a_contained_subdirectory() {
    let f = fixture();
    let root = Root::new(&f.root, false).unwrap();
    let sub = root
        .contain_dir(OsStr::new("sub_link"))
        .unwrap()
        .open()
        .unwrap();
    assert_eq!(sub.path(), f.root.join("sub"));
    assert_eq!(read(sub.open_file(Path::new("inner.txt"), false)), "inner");
    assert_eq!(
        errno(sub.open_file(Path::new("../a.txt"), true)),
        libc::EXDEV
    );
}
