//! Per-open kernel containment: open files relative to a directory fd of the repository, so that
//! the kernel itself refuses anything that resolves outside it.
//!
//! The preferred mechanism is `openat2(2)` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS` (and
//! `RESOLVE_NO_SYMLINKS` when links must not be followed). Where `openat2` is unavailable (Linux
//! before 5.6, or a seccomp filter answering `ENOSYS`/`EPERM`), the fallback walks the path one
//! component at a time with `openat(O_NOFOLLOW)` and refuses `..`, absolute paths and every
//! symlink, even when following was asked for. Which one is used is probed once
//! ([`BeneathDir::mechanism`]).
//!
//! Every open is `O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC`: a FIFO opens at once instead of
//! blocking; the caller `fstat`s the file and reads only regular files. The returned file keeps
//! `O_NONBLOCK`, which has no effect on regular files.
//!
//! [`BeneathDir::open_file_expecting`] also closes the walk-then-open race: it refuses a file whose
//! device and inode differ from what the walk's `lstat` saw.
//!
//! Errors are plain `io::Error`s with the kernel's errno: `EXDEV` for a path that would leave the
//! directory, `ELOOP` for a refused symlink. [`refusal_reason`] names them for reports.

use std::ffi::OsStr;
use std::fmt;
use std::fs::{File, Metadata};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use nix::errno::Errno;
use nix::fcntl::{OFlag, OpenHow, ResolveFlag, openat, openat2};
use nix::sys::stat::{FileStat, Mode, SFlag, fstatat};

/// How many times an `openat2` that reports a concurrent rename (`EAGAIN`) is retried.
const EAGAIN_RETRIES: usize = 32;

/// The per-open containment mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`.
    Openat2,
    /// Component-by-component `openat` with `O_NOFOLLOW`; refuses every symlink.
    NofollowComponents,
}

impl Mechanism {
    /// `"openat2"` or `"nofollow-components"`.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Openat2 => "openat2",
            Mechanism::NofollowComponents => "nofollow-components",
        }
    }
}

/// The error carried when a file's identity changed between the walk and the open.
#[derive(Debug)]
pub struct FileChanged;

impl fmt::Display for FileChanged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("file changed between walk and open")
    }
}

impl std::error::Error for FileChanged {}

/// True when `err` came from [`BeneathDir::open_file_expecting`] seeing a different file.
pub fn is_file_changed(err: &io::Error) -> bool {
    err.get_ref().is_some_and(|e| e.is::<FileChanged>())
}

/// A short reason for a refusal made by this module, or `None` for ordinary I/O errors.
pub fn refusal_reason(err: &io::Error) -> Option<&'static str> {
    if is_file_changed(err) {
        return Some("file changed between walk and open");
    }
    match err.raw_os_error() {
        Some(libc::EXDEV) => Some("path leaves the repository directory"),
        Some(libc::ELOOP) => Some("symbolic link refused"),
        _ => None,
    }
}

/// A directory fd (`O_PATH | O_DIRECTORY`) that files are opened beneath.
#[derive(Debug)]
pub struct BeneathDir {
    fd: OwnedFd,
    path: PathBuf,
}

impl AsFd for BeneathDir {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl BeneathDir {
    /// Open `dir` (a canonical path) as an `O_PATH` directory fd. The last component must not
    /// be a symlink.
    pub(crate) fn open(dir: &Path) -> io::Result<BeneathDir> {
        let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let fd = retry_eintr(|| nix::fcntl::open(dir, flags, Mode::empty()))?;
        Ok(BeneathDir {
            fd,
            path: dir.to_path_buf(),
        })
    }

    /// The directory's path, as it was when opened (for messages only).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The mechanism this process uses: `"openat2"` or `"nofollow-components"`, probed once.
    pub fn mechanism() -> &'static str {
        probed().name()
    }

    /// Open `rel` read-only beneath this directory, with the probed mechanism.
    pub fn open_file(&self, rel: &Path, follow_symlinks: bool) -> io::Result<File> {
        self.open_file_using(probed(), rel, follow_symlinks)
    }

    /// Open `rel` with a given mechanism (both are public so that both can be tested).
    pub fn open_file_using(
        &self,
        mechanism: Mechanism,
        rel: &Path,
        follow_symlinks: bool,
    ) -> io::Result<File> {
        let fd = match mechanism {
            Mechanism::Openat2 => self.open_openat2(rel, follow_symlinks)?,
            Mechanism::NofollowComponents => self.open_components(rel)?,
        };
        Ok(File::from(fd))
    }

    /// Open `rel`, `fstat` it, and refuse it unless it is the file the walk saw (`dev`, `ino`
    /// from its `lstat`). The refusal is an `io::Error` wrapping [`FileChanged`].
    pub fn open_file_expecting(
        &self,
        rel: &Path,
        follow: bool,
        dev: u64,
        ino: u64,
    ) -> io::Result<(File, Metadata)> {
        let file = self.open_file(rel, follow)?;
        let meta = file.metadata()?;
        if meta.dev() != dev || meta.ino() != ino {
            return Err(io::Error::other(FileChanged));
        }
        Ok((file, meta))
    }

    fn open_openat2(&self, rel: &Path, follow: bool) -> io::Result<OwnedFd> {
        let mut flags = read_flags();
        let mut resolve = ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_MAGICLINKS;
        if !follow {
            flags |= OFlag::O_NOFOLLOW;
            resolve |= ResolveFlag::RESOLVE_NO_SYMLINKS;
        }
        let how = OpenHow::new().flags(flags).resolve(resolve);
        let mut again = 0;
        loop {
            match openat2(self.fd.as_fd(), rel, how) {
                Ok(fd) => return Ok(fd),
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) if again < EAGAIN_RETRIES => again += 1,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Fallback: walk `rel` one component at a time, refusing `..`, absolute paths and links.
    fn open_components(&self, rel: &Path) -> io::Result<OwnedFd> {
        let bytes = rel.as_os_str().as_bytes();
        if bytes.starts_with(b"/") {
            return Err(Errno::EXDEV.into());
        }
        if bytes.is_empty() {
            return Err(Errno::ENOENT.into());
        }
        let names: Vec<&[u8]> = bytes
            .split(|&b| b == b'/')
            .filter(|n| !n.is_empty() && *n != b".")
            .collect();
        if names.contains(&&b".."[..]) {
            return Err(Errno::EXDEV.into());
        }
        let Some((last, dirs)) = names.split_last() else {
            // "." or "./": the directory itself.
            return retry_eintr(|| openat(self.fd.as_fd(), ".", read_flags(), Mode::empty()));
        };
        let mut current: Option<OwnedFd> = None;
        for name in dirs {
            let name = OsStr::from_bytes(name);
            let parent = current.as_ref().map_or(self.fd.as_fd(), |f| f.as_fd());
            let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
            match retry_eintr(|| openat(parent, name, flags, Mode::empty())) {
                Ok(fd) => current = Some(fd),
                Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) && is_symlink(parent, name) => {
                    return Err(Errno::ELOOP.into());
                }
                Err(e) => return Err(e),
            }
        }
        let parent = current.as_ref().map_or(self.fd.as_fd(), |f| f.as_fd());
        let mut flags = read_flags() | OFlag::O_NOFOLLOW;
        if bytes.ends_with(b"/") {
            flags |= OFlag::O_DIRECTORY;
        }
        retry_eintr(|| openat(parent, OsStr::from_bytes(last), flags, Mode::empty()))
    }
}

fn read_flags() -> OFlag {
    OFlag::O_RDONLY | OFlag::O_NONBLOCK | OFlag::O_NOCTTY | OFlag::O_CLOEXEC
}

fn is_symlink(dir: BorrowedFd<'_>, name: &OsStr) -> bool {
    fstatat(dir, name, nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW).is_ok_and(|st: FileStat| {
        SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT == SFlag::S_IFLNK
    })
}

fn retry_eintr<T>(mut f: impl FnMut() -> nix::Result<T>) -> io::Result<T> {
    loop {
        match f() {
            Err(Errno::EINTR) => continue,
            other => return other.map_err(io::Error::from),
        }
    }
}

/// Probe once whether `openat2` with `RESOLVE_BENEATH` works in this process.
fn probed() -> Mechanism {
    static MECHANISM: OnceLock<Mechanism> = OnceLock::new();
    *MECHANISM.get_or_init(|| {
        let how = OpenHow::new()
            .flags(OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC)
            .resolve(ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_MAGICLINKS);
        let root = match nix::fcntl::open("/", OFlag::O_PATH | OFlag::O_CLOEXEC, Mode::empty()) {
            Ok(fd) => fd,
            Err(e) => {
                log::warn!("cannot open / to probe openat2 ({e}); using nofollow-components");
                return Mechanism::NofollowComponents;
            }
        };
        match openat2(root.as_fd(), ".", how) {
            Ok(_) => Mechanism::Openat2,
            Err(e) => {
                log::warn!(
                    "openat2 with RESOLVE_BENEATH is unavailable ({e}); per-open containment \
                     falls back to O_NOFOLLOW per component, and symlinks are never followed"
                );
                Mechanism::NofollowComponents
            }
        }
    })
}
