//! The front-ends' one door to files outside the sandbox (`gnaw_sandbox::user_file`), against
//! real links (at the file and at a directory on the way, dangling or not), FIFOs (with and
//! without a reader), sockets, directories where a file is expected, huge files and names with
//! control characters. Every operation that could block runs on a thread with a deadline, so a
//! door that waits on a FIFO fails the test instead of hanging it.
//!
//! Run alone: `cargo test -p gnaw-sandbox --test user_file`.

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

mod common;

use common::Scratch;
use gnaw_sandbox::user_file::{self, Expect, MAX_BACKUPS, UserDir, UserFileError};
use nix::sys::stat::Mode;

/// A directory of the user's (`home`) and one beside it whose files must never change
/// (`outside`, with `victim.txt`).
struct Fixture {
    _scratch: Scratch,
    home: PathBuf,
    outside: PathBuf,
}

const VICTIM: &str = "the victim's own bytes\n";

fn fixture() -> Fixture {
    let scratch = Scratch::new();
    let home = scratch.dir("home");
    let outside = scratch.dir("outside");
    fs::write(outside.join("victim.txt"), VICTIM).unwrap();
    Fixture {
        _scratch: scratch,
        home,
        outside,
    }
}

impl Fixture {
    fn dir(&self) -> UserDir {
        UserDir::open(&self.home).unwrap()
    }

    /// `home/NAME` as a link to the victim.
    fn link_to_victim(&self, name: &str) {
        symlink(self.outside.join("victim.txt"), self.home.join(name)).unwrap();
    }

    /// `home/NAME` as a link to a file that does not exist yet (in `outside`).
    fn dangling(&self, name: &str) -> PathBuf {
        let target = self.outside.join(format!("created-through-{name}"));
        symlink(&target, self.home.join(name)).unwrap();
        target
    }

    fn fifo(&self, name: &str) {
        nix::unistd::mkfifo(&self.home.join(name), Mode::from_bits_truncate(0o600)).unwrap();
    }

    fn victim_untouched(&self) {
        assert_eq!(
            fs::read_to_string(self.outside.join("victim.txt")).unwrap(),
            VICTIM
        );
        let names: Vec<OsString> = fs::read_dir(&self.outside)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [OsString::from("victim.txt")], "outside/ changed");
    }
}

/// Run `f` on a thread and fail if it takes more than a few seconds (a FIFO waited on).
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(5))
        .unwrap_or_else(|_| panic!("{what} blocked"))
}

fn n(name: &str) -> &OsStr {
    OsStr::new(name)
}

fn is_link(e: &UserFileError) -> bool {
    matches!(e, UserFileError::Link(_))
}

#[test]
fn a_read_takes_a_regular_file_and_nothing_else() {
    let f = fixture();
    fs::write(f.home.join("a.json"), "{}").unwrap();
    fs::set_permissions(f.home.join("a.json"), fs::Permissions::from_mode(0o640)).unwrap();
    let got = f.dir().read(n("a.json"), 100).unwrap().unwrap();
    assert_eq!(got.bytes, b"{}");
    assert_eq!(got.mode, 0o640);
    assert!(f.dir().read(n("missing"), 100).unwrap().is_none());

    f.link_to_victim("link");
    let e = f.dir().read(n("link"), 100).unwrap_err();
    match &e {
        UserFileError::Link(Some(target)) => {
            assert_eq!(Path::new(target), f.outside.join("victim.txt"))
        }
        other => panic!("a link was not refused as one: {other:?}"),
    }
    let target = f.dangling("dangling");
    assert!(is_link(&f.dir().read(n("dangling"), 100).unwrap_err()));
    assert!(!target.exists());

    fs::create_dir(f.home.join("dir")).unwrap();
    let e = f.dir().read(n("dir"), 100).unwrap_err();
    assert!(
        matches!(e, UserFileError::NotRegular("a directory")),
        "{e:?}"
    );

    let _socket = std::os::unix::net::UnixListener::bind(f.home.join("sock")).unwrap();
    let e = f.dir().read(n("sock"), 100).unwrap_err();
    assert!(matches!(e, UserFileError::NotRegular("a socket")), "{e:?}");
    f.victim_untouched();
}

#[test]
fn a_fifo_is_refused_at_once_never_waited_on() {
    let f = fixture();
    f.fifo("fifo");
    let home = f.home.clone();
    let e = within("a read of a FIFO", move || {
        UserDir::open(&home).unwrap().read(n("fifo"), 100)
    })
    .unwrap_err();
    assert!(matches!(e, UserFileError::NotRegular("a FIFO")), "{e:?}");
    let home = f.home.clone();
    let e = within("a writer on a FIFO without a reader", move || {
        UserDir::open(&home).unwrap().writer(n("fifo"), 0o644)
    })
    .unwrap_err();
    assert!(matches!(e, UserFileError::NotRegular("a FIFO")), "{e:?}");
    // With a reader, a non-blocking open for writing succeeds: the type check refuses it.
    let _reader = nix::fcntl::open(
        &f.home.join("fifo"),
        nix::fcntl::OFlag::O_RDONLY | nix::fcntl::OFlag::O_NONBLOCK,
        Mode::empty(),
    )
    .unwrap();
    let home = f.home.clone();
    let e = within("a writer on a FIFO with a reader", move || {
        UserDir::open(&home).unwrap().writer(n("fifo"), 0o644)
    })
    .unwrap_err();
    assert!(matches!(e, UserFileError::NotRegular("a FIFO")), "{e:?}");
    let home = f.home.clone();
    let e = within("a lock file that is a FIFO", move || {
        UserDir::open(&home).unwrap().lock_file(n("fifo"))
    })
    .unwrap_err();
    assert!(matches!(e, UserFileError::NotRegular("a FIFO")), "{e:?}");
    // A directory that is a FIFO is refused without blocking too.
    let fifo = f.home.join("fifo");
    let e = within("opening a FIFO as a directory", move || {
        UserDir::open(&fifo)
    })
    .unwrap_err();
    assert!(matches!(e, UserFileError::NotDirectory("a FIFO")), "{e:?}");
}

#[test]
fn a_huge_file_is_refused_by_its_size_before_a_read() {
    let f = fixture();
    let huge = fs::File::create(f.home.join("huge")).unwrap();
    huge.set_len(1 << 40).unwrap(); // sparse: a terabyte that takes no disk
    let e = f.dir().read(n("huge"), 64 << 20).unwrap_err();
    assert!(
        matches!(e, UserFileError::TooLarge(l) if l == 64 << 20),
        "{e:?}"
    );
    fs::write(f.home.join("edge"), "12345").unwrap();
    assert!(f.dir().read(n("edge"), 5).unwrap().is_some());
    assert!(matches!(
        f.dir().read(n("edge"), 4).unwrap_err(),
        UserFileError::TooLarge(4)
    ));
}

#[test]
fn a_writer_truncates_only_a_proven_regular_file() {
    let f = fixture();
    fs::write(f.home.join("out.md"), "old and longer").unwrap();
    let mut w = f.dir().writer(n("out.md"), 0o644).unwrap();
    w.write_all(b"new").unwrap();
    drop(w);
    assert_eq!(fs::read_to_string(f.home.join("out.md")).unwrap(), "new");

    f.link_to_victim("prompt.md");
    assert!(is_link(&f.dir().writer(n("prompt.md"), 0o644).unwrap_err()));
    assert!(is_link(
        &f.dir().check_writable(n("prompt.md")).unwrap_err()
    ));
    let target = f.dangling("new.md");
    assert!(is_link(&f.dir().writer(n("new.md"), 0o644).unwrap_err()));
    assert!(!target.exists(), "a dangling link's target was created");

    fs::create_dir(f.home.join("d")).unwrap();
    assert!(f.dir().writer(n("d"), 0o644).is_err());
    assert!(matches!(
        f.dir().check_writable(n("d")).unwrap_err(),
        UserFileError::NotRegular("a directory")
    ));
    // /dev/null is taken, and never truncated or replaced.
    let dev = UserDir::open(Path::new("/dev")).unwrap();
    dev.check_writable(n("null")).unwrap();
    dev.writer(n("null"), 0o644)
        .unwrap()
        .write_all(b"x")
        .unwrap();
    assert!(
        Path::new("/dev/null")
            .metadata()
            .unwrap()
            .file_type()
            .is_char_device()
    );
    f.victim_untouched();
}

#[test]
fn a_child_directory_is_never_reached_through_a_link() {
    let f = fixture();
    symlink(&f.outside, f.home.join(".vscode")).unwrap();
    let e = f.dir().child(n(".vscode"), Some(0o755)).unwrap_err();
    assert!(is_link(&e), "{e:?}");
    // A dangling link where a directory is to be created: nothing is made where it points.
    let target = f.outside.join("made-through-link");
    symlink(&target, f.home.join("new")).unwrap();
    assert!(is_link(&f.dir().child(n("new"), Some(0o755)).unwrap_err()));
    assert!(!target.exists());
    fs::write(f.home.join("file"), "").unwrap();
    assert!(matches!(
        f.dir().child(n("file"), None).unwrap_err(),
        UserFileError::NotDirectory("a regular file")
    ));
    let made = f.dir().child(n("made"), Some(0o700)).unwrap();
    assert!(f.home.join("made").is_dir());
    assert_eq!(made.path(), f.home.join("made"));
    assert!(f.dir().child(n("absent"), None).is_err());
    // Names of more than one component are refused, never resolved.
    for bad in ["a/b", "..", ".", ""] {
        assert!(matches!(
            f.dir().child(n(bad), None).unwrap_err(),
            UserFileError::BadName
        ));
        assert!(matches!(
            f.dir().read(n(bad), 10).unwrap_err(),
            UserFileError::BadName
        ));
    }
    f.victim_untouched();
}

#[test]
fn a_replace_is_atomic_keeps_the_mode_and_refuses_a_changed_file() {
    let f = fixture();
    let dir = f.dir();
    dir.replace(n("c.json"), b"first", 0o600, Expect::Absent)
        .unwrap();
    let path = f.home.join("c.json");
    assert_eq!(fs::read(&path).unwrap(), b"first");
    assert_eq!(path.metadata().unwrap().mode() & 0o777, 0o600);
    let read = dir.read(n("c.json"), 100).unwrap().unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    let old_ino = path.metadata().unwrap().ino();
    dir.replace(n("c.json"), b"second", 0o640, Expect::Same(read.identity))
        .unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"second");
    assert_eq!(path.metadata().unwrap().mode() & 0o777, 0o640);
    assert_ne!(
        path.metadata().unwrap().ino(),
        old_ino,
        "not a new file renamed over"
    );

    // The file read was replaced by someone else meanwhile: nothing is written.
    let e = dir
        .replace(n("c.json"), b"third", 0o640, Expect::Same(read.identity))
        .unwrap_err();
    assert!(matches!(e, UserFileError::Changed), "{e:?}");
    assert!(matches!(
        dir.replace(n("c.json"), b"third", 0o640, Expect::Absent)
            .unwrap_err(),
        UserFileError::Changed
    ));
    assert_eq!(fs::read(&path).unwrap(), b"second");

    // A link or a FIFO at the name is refused, the link left as it was.
    f.link_to_victim("l.json");
    let e = dir
        .replace(n("l.json"), b"x", 0o600, Expect::AbsentOrFile)
        .unwrap_err();
    assert!(is_link(&e), "{e:?}");
    assert!(
        fs::symlink_metadata(f.home.join("l.json"))
            .unwrap()
            .is_symlink()
    );
    f.fifo("p.json");
    let e = dir
        .replace(n("p.json"), b"x", 0o600, Expect::AbsentOrFile)
        .unwrap_err();
    assert!(matches!(e, UserFileError::NotRegular("a FIFO")), "{e:?}");
    // No temporary file is left behind by the refusals.
    let left: Vec<String> = fs::read_dir(&f.home)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("gnaw-tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    f.victim_untouched();
}

#[test]
fn backups_are_numbered_and_never_overwrite_anything() {
    let f = fixture();
    let dir = f.dir();
    fs::write(f.home.join("c.json.bak"), "the user's own backup").unwrap();
    f.fifo("c.json.bak.1");
    f.link_to_victim("c.json.bak.2");
    let home = f.home.clone();
    let name = within("a backup beside a FIFO", move || {
        UserDir::open(&home)
            .unwrap()
            .backup(n("c.json"), b"previous", 0o640)
    })
    .unwrap();
    assert_eq!(name, "c.json.bak.3");
    assert_eq!(fs::read(f.home.join("c.json.bak.3")).unwrap(), b"previous");
    assert_eq!(
        f.home.join("c.json.bak.3").metadata().unwrap().mode() & 0o777,
        0o640
    );
    assert_eq!(
        fs::read_to_string(f.home.join("c.json.bak")).unwrap(),
        "the user's own backup"
    );
    assert_eq!(
        dir.backup(n("c.json"), b"again", 0o600).unwrap(),
        "c.json.bak.4"
    );
    for k in 5..MAX_BACKUPS {
        fs::write(f.home.join(format!("c.json.bak.{k}")), "").unwrap();
    }
    let e = dir.backup(n("c.json"), b"more", 0o600).unwrap_err();
    assert!(matches!(e, UserFileError::BackupsTaken), "{e:?}");
    assert!(!f.home.join(format!("c.json.bak.{MAX_BACKUPS}")).exists());
    f.victim_untouched();
}

#[test]
fn a_lock_file_is_never_created_through_a_link() {
    let f = fixture();
    let target = f.dangling("lock");
    assert!(is_link(&f.dir().lock_file(n("lock")).unwrap_err()));
    assert!(
        !target.exists(),
        "the lock was created where the link points"
    );
    let lock = f.dir().lock_file(n("real-lock")).unwrap();
    assert!(lock.metadata().unwrap().is_file());
    assert_eq!(
        f.home.join("real-lock").metadata().unwrap().mode() & 0o777,
        0o600
    );
}

#[test]
fn stale_temporaries_of_one_name_are_removed_and_nothing_else() {
    let f = fixture();
    for name in [
        ".cache.bin.gnaw-tmp.1.0",
        ".cache.bin.gnaw-tmp.99.3",
        "keep",
        ".other.gnaw-tmp.1.0",
    ] {
        fs::write(f.home.join(name), "").unwrap();
    }
    f.dir().remove_temporaries(n("cache.bin")).unwrap();
    let mut left: Vec<String> = fs::read_dir(&f.home)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, [".other.gnaw-tmp.1.0", "keep"]);
}

#[test]
fn names_with_control_characters_are_files_like_any_other() {
    let f = fixture();
    let name = OsStr::from_bytes(b"a\x1b[31m\nb\xff.md");
    let dir = f.dir();
    dir.writer(name, 0o644).unwrap().write_all(b"x").unwrap();
    assert_eq!(dir.read(name, 10).unwrap().unwrap().bytes, b"x");
    dir.replace(name, b"y", 0o644, Expect::AbsentOrFile)
        .unwrap();
    assert_eq!(fs::read(f.home.join(name)).unwrap(), b"y");
    assert!(matches!(
        dir.read(OsStr::from_bytes(b"a\0b"), 10).unwrap_err(),
        UserFileError::BadName
    ));
}

#[test]
fn a_path_is_split_into_its_directory_and_a_file_name() {
    let s = |p: &str| user_file::split(Path::new(p)).map(|(d, n)| (d, n.into_string().unwrap()));
    assert_eq!(
        s("prompt.md").unwrap(),
        (PathBuf::from("."), "prompt.md".into())
    );
    assert_eq!(
        s("/tmp/x/p.md").unwrap(),
        (PathBuf::from("/tmp/x"), "p.md".into())
    );
    assert_eq!(s("../p").unwrap(), (PathBuf::from(".."), "p".into()));
    for bad in ["out/", "out/.", ".", "..", "/", "a/.."] {
        assert!(s(bad).is_err(), "{bad}");
    }
}

#[test]
fn an_executable_is_found_through_a_link_and_a_plain_file_is_not_one() {
    let f = fixture();
    let tool = f.outside.join("tool");
    fs::write(&tool, "#!/bin/sh\n").unwrap();
    fs::set_permissions(&tool, fs::Permissions::from_mode(0o755)).unwrap();
    symlink(&tool, f.home.join("xclip")).unwrap();
    fs::write(f.home.join("plain"), "").unwrap();
    fs::create_dir(f.home.join("dir")).unwrap();
    fs::set_permissions(f.home.join("dir"), fs::Permissions::from_mode(0o755)).unwrap();
    let dir = f.dir();
    assert!(dir.is_executable(n("xclip")));
    assert!(!dir.is_executable(n("plain")));
    assert!(!dir.is_executable(n("dir")));
    assert!(!dir.is_executable(n("absent")));
}
