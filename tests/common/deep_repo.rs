//! Test fixtures whose paths are deeper than `PATH_MAX` allows a single system call to name:
//! directories are made one level at a time, each from its parent's file descriptor, as the
//! gnaw walk itself reads them.

#![allow(dead_code)]
#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

use nix::fcntl::{OFlag, openat};
use nix::sys::stat::{Mode, mkdirat};
use std::io::Write;
use std::os::fd::OwnedFd;
use std::path::Path;

/// `repo/c{k}/d/d/…/d/x.txt` for each of `chains` chains, `depth` directories `d` deep, each
/// file one line; and a README at the top.
pub fn deep_repo(repo: &Path, depth: usize, chains: usize) {
    std::fs::create_dir_all(repo).unwrap();
    std::fs::write(repo.join("README.md"), "# deep\n").unwrap();
    for k in 0..chains {
        let top = format!("c{k}");
        let mut fd: OwnedFd = std::fs::File::open(repo).unwrap().into();
        for name in std::iter::once(top.as_str()).chain(std::iter::repeat_n("d", depth)) {
            mkdirat(&fd, name, Mode::from_bits_truncate(0o755)).unwrap();
            fd = openat(
                &fd,
                name,
                OFlag::O_DIRECTORY | OFlag::O_RDONLY,
                Mode::empty(),
            )
            .unwrap();
        }
        let file = openat(
            &fd,
            "x.txt",
            OFlag::O_CREAT | OFlag::O_WRONLY | OFlag::O_EXCL,
            Mode::from_bits_truncate(0o644),
        )
        .unwrap();
        std::fs::File::from(file)
            .write_all(format!("one line in chain {k}\n").as_bytes())
            .unwrap();
    }
}

/// Create `depth` nested directories named `name` under `top`, each holding an empty `.git`
/// file when `git_file` is set, walking down with directory fds (paths soon pass `PATH_MAX`).
/// Returns the deepest directory's fd.
pub fn deep_tree(top: &Path, depth: usize, name: &str, git_file: bool) -> OwnedFd {
    use nix::fcntl::open;
    use std::os::fd::AsFd;
    let flags = OFlag::O_DIRECTORY | OFlag::O_RDONLY | OFlag::O_CLOEXEC;
    let mut fd = open(top, flags, Mode::empty()).unwrap();
    for _ in 0..depth {
        mkdirat(fd.as_fd(), name, Mode::from_bits_truncate(0o755)).unwrap();
        fd = openat(fd.as_fd(), name, flags | OFlag::O_NOFOLLOW, Mode::empty()).unwrap();
        if git_file {
            create_at(&fd, ".git");
        }
    }
    fd
}

/// Create the empty file `name` in the directory `dir`.
pub fn create_at(dir: &OwnedFd, name: &str) {
    let file = openat(
        dir,
        name,
        OFlag::O_CREAT | OFlag::O_WRONLY | OFlag::O_CLOEXEC,
        Mode::from_bits_truncate(0o644),
    )
    .unwrap();
    drop(file);
}
