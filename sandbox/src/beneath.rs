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
//! A walk never goes through path strings either: [`BeneathDir::entries`] lists a directory through
//! its fd, [`BeneathDir::stat_child`] `lstat`s an entry relative to it, and [`BeneathDir::child_dir`] opens one
//! subdirectory by name with `O_NOFOLLOW`. Each directory handle is therefore reached from the
//! one above it, and swapping a directory for a symlink mid-walk cannot lead the walk outside.
//!
//! Errors are plain `io::Error`s with the kernel's errno: `EXDEV` for a path that would leave the
//! directory, `ELOOP` for a refused symlink. [`refusal_reason`] names them for reports.

use std::ffi::{OsStr, OsString};
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

    /// A directory already open: a root proven by another process and handed on by
    /// descriptor (`path` is where it was proven; nothing is resolved through it).
    pub(crate) fn from_fd(fd: OwnedFd, path: PathBuf) -> BeneathDir {
        BeneathDir { fd, path }
    }

    /// Open the directory `rel` beneath this one, never following a symlink and never leaving
    /// this directory (`""` or `"."` is this directory again, as a new fd).
    pub fn open_dir(&self, rel: &Path) -> io::Result<BeneathDir> {
        let rel = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        let fd = match probed() {
            Mechanism::Openat2 => self.openat2_with(rel, dir_flags(), false)?,
            Mechanism::NofollowComponents => self.components_with(rel, dir_flags())?,
        };
        Ok(BeneathDir {
            fd,
            path: self.path.join(rel),
        })
    }

    /// Open the subdirectory `name` (one component) without following a link.
    pub fn child_dir(&self, name: &OsStr) -> io::Result<BeneathDir> {
        check_name(name)?;
        let fd = retry_eintr(|| openat(self.fd.as_fd(), name, dir_flags(), Mode::empty()))?;
        Ok(BeneathDir {
            fd,
            path: self.path.join(name),
        })
    }

    /// Open the file `name` (one component) read-only without following a link
    /// (`O_NONBLOCK`: a FIFO does not block; the caller checks the type with `fstat`).
    pub fn child_file(&self, name: &OsStr) -> io::Result<File> {
        check_name(name)?;
        let flags = read_flags() | OFlag::O_NOFOLLOW;
        let fd = retry_eintr(|| openat(self.fd.as_fd(), name, flags, Mode::empty()))?;
        Ok(File::from(fd))
    }

    /// `lstat` of this directory itself.
    pub fn stat(&self) -> io::Result<Stat> {
        let st = retry_eintr(|| nix::sys::stat::fstat(self.fd.as_fd()))?;
        Ok(Stat::from(&st))
    }

    /// List this directory through its fd: every entry but `.` and `..`, in the order the
    /// kernel returns them, with the type the listing reports (`None` when the filesystem does
    /// not say; ask [`BeneathDir::stat_child`]).
    pub fn entries(&self) -> io::Result<Vec<Entry>> {
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        let fd = retry_eintr(|| openat(self.fd.as_fd(), ".", flags, Mode::empty()))?;
        let mut dir = nix::dir::Dir::from_fd(fd)?;
        let mut out = Vec::new();
        for item in dir.iter() {
            let item = item?;
            let name = item.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let kind = item.file_type().map(|t| match t {
                nix::dir::Type::File => FileKind::File,
                nix::dir::Type::Directory => FileKind::Dir,
                nix::dir::Type::Symlink => FileKind::Symlink,
                nix::dir::Type::Fifo => FileKind::Fifo,
                nix::dir::Type::Socket => FileKind::Socket,
                nix::dir::Type::CharacterDevice => FileKind::CharDevice,
                nix::dir::Type::BlockDevice => FileKind::BlockDevice,
            });
            out.push(Entry {
                name: OsStr::from_bytes(name).to_os_string(),
                kind,
            });
        }
        Ok(out)
    }

    /// `lstat` of the entry `name` (one component), relative to this directory's fd.
    pub fn stat_child(&self, name: &OsStr) -> io::Result<Stat> {
        check_name(name)?;
        let st = retry_eintr(|| {
            fstatat(
                self.fd.as_fd(),
                name,
                nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
            )
        })?;
        Ok(Stat::from(&st))
    }

    /// `fstat` of whatever `rel` names beneath this directory, reached without following any
    /// link and without leaving this directory (`""` is this directory). A trailing symlink is
    /// stat'ed itself. Used to check that a resolved path still names the node it was resolved
    /// to.
    pub fn stat_beneath(&self, rel: &Path) -> io::Result<Stat> {
        let rel = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        let flags = OFlag::O_PATH | OFlag::O_CLOEXEC;
        let fd = match probed() {
            Mechanism::Openat2 => self.openat2_with(rel, flags, false)?,
            Mechanism::NofollowComponents => self.components_with(rel, flags)?,
        };
        stat_fd(fd.as_fd())
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
            Mechanism::Openat2 => self.openat2_with(rel, read_flags(), follow_symlinks)?,
            Mechanism::NofollowComponents => self.components_with(rel, read_flags())?,
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

    fn openat2_with(&self, rel: &Path, flags: OFlag, follow: bool) -> io::Result<OwnedFd> {
        let mut flags = flags;
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
    fn components_with(&self, rel: &Path, last_flags: OFlag) -> io::Result<OwnedFd> {
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
            return retry_eintr(|| openat(self.fd.as_fd(), ".", last_flags, Mode::empty()));
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
        let mut flags = last_flags | OFlag::O_NOFOLLOW;
        if bytes.ends_with(b"/") {
            flags |= OFlag::O_DIRECTORY;
        }
        retry_eintr(|| openat(parent, OsStr::from_bytes(last), flags, Mode::empty()))
    }
}

/// One entry of [`BeneathDir::entries`].
#[derive(Clone, Debug)]
pub struct Entry {
    /// The name, one component.
    pub name: OsString,
    /// The type the listing reported (`d_type`), if the filesystem reports one.
    pub kind: Option<FileKind>,
}

/// What an `lstat` says a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    File,
    Dir,
    Symlink,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    Unknown,
}

/// The fields of an `lstat` the pipeline uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub kind: FileKind,
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub nlink: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Status-change time, nanoseconds since the epoch.
    pub ctime_ns: i128,
    /// `st_mode`: the type and permission bits (git's diff needs the executable bit).
    pub mode: u32,
}

impl From<&FileStat> for Stat {
    fn from(st: &FileStat) -> Stat {
        let kind = match SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT {
            SFlag::S_IFREG => FileKind::File,
            SFlag::S_IFDIR => FileKind::Dir,
            SFlag::S_IFLNK => FileKind::Symlink,
            SFlag::S_IFIFO => FileKind::Fifo,
            SFlag::S_IFSOCK => FileKind::Socket,
            SFlag::S_IFCHR => FileKind::CharDevice,
            SFlag::S_IFBLK => FileKind::BlockDevice,
            _ => FileKind::Unknown,
        };
        Stat {
            kind,
            dev: st.st_dev,
            ino: st.st_ino,
            size: u64::try_from(st.st_size).unwrap_or(0),
            nlink: st.st_nlink,
            mtime_ns: nanos(st.st_mtime, st.st_mtime_nsec),
            ctime_ns: nanos(st.st_ctime, st.st_ctime_nsec),
            mode: st.st_mode,
        }
    }
}

/// Open the entry `name` (one component) of the directory `dir` as an `O_PATH` fd without
/// following it (a symlink is opened itself, a FIFO or device is not opened for I/O), and
/// `fstat` it: the type and the fd come from the same inode, so a rename between a look and a
/// use cannot make them disagree.
pub(crate) fn open_node(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<(OwnedFd, Stat)> {
    check_name(name)?;
    let flags = OFlag::O_PATH | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let fd = retry_eintr(|| openat(dir, name, flags, Mode::empty()))?;
    let st = stat_fd(fd.as_fd())?;
    Ok((fd, st))
}

/// The directory above `dir` (`..` from its descriptor), with its `fstat`: for comparing roots
/// by identity up their chains of parents, never to read anything there.
pub(crate) fn open_parent(dir: BorrowedFd<'_>) -> io::Result<(OwnedFd, Stat)> {
    let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
    let fd = retry_eintr(|| openat(dir, "..", flags, Mode::empty()))?;
    let st = stat_fd(fd.as_fd())?;
    Ok((fd, st))
}

/// The target of the symlink that `link` (an `O_PATH | O_NOFOLLOW` fd from [`open_node`])
/// refers to: `readlinkat(link, "")`, no path involved.
pub(crate) fn read_link_fd(link: BorrowedFd<'_>) -> io::Result<OsString> {
    retry_eintr(|| nix::fcntl::readlinkat(link, ""))
}

/// `fstat` of an fd (an `O_PATH` fd is fine).
pub(crate) fn stat_fd(fd: BorrowedFd<'_>) -> io::Result<Stat> {
    let st = retry_eintr(|| nix::sys::stat::fstat(fd))?;
    Ok(Stat::from(&st))
}

impl From<&Metadata> for Stat {
    fn from(meta: &Metadata) -> Stat {
        use std::fs::FileType;
        use std::os::unix::fs::FileTypeExt;
        // Each kind with the test that says a file is of it.
        type IsKind = fn(&FileType) -> bool;
        let kinds: [(IsKind, FileKind); 7] = [
            (FileType::is_file, FileKind::File),
            (FileType::is_dir, FileKind::Dir),
            (FileType::is_symlink, FileKind::Symlink),
            (FileTypeExt::is_fifo, FileKind::Fifo),
            (FileTypeExt::is_socket, FileKind::Socket),
            (FileTypeExt::is_char_device, FileKind::CharDevice),
            (FileTypeExt::is_block_device, FileKind::BlockDevice),
        ];
        let ft = meta.file_type();
        let kind = kinds
            .iter()
            .find(|(is, _)| is(&ft))
            .map_or(FileKind::Unknown, |(_, kind)| *kind);
        Stat {
            kind,
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            nlink: meta.nlink(),
            mtime_ns: nanos(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: nanos(meta.ctime(), meta.ctime_nsec()),
            mode: meta.mode(),
        }
    }
}

fn nanos(secs: i64, nsec: i64) -> i128 {
    i128::from(secs) * 1_000_000_000 + i128::from(nsec)
}

/// A single path component: not empty, no `/`, not `.` or `..`.
fn check_name(name: &OsStr) -> io::Result<()> {
    let b = name.as_bytes();
    if b.is_empty() || b.contains(&b'/') || b == b"." || b == b".." {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a single path component",
        ));
    }
    Ok(())
}

fn dir_flags() -> OFlag {
    OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC
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
