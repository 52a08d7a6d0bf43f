//! The one way gnaw opens a file outside the sandbox: the files a person names or owns (the
//! CLI's `-o` file and its `--split-output` parts, `--template`, the disk cache, the MCP client
//! files `gnaw-mcp setup --write` edits, gnaw-mcp's `--config`), and the clipboard tool looked
//! up on `PATH`. Every front-end reaches them through a [`UserDir`], and these rules hold for
//! all of them:
//!
//! - **A directory is opened once**, and every file in it is reached through that descriptor by
//!   one name (`openat`), never by a path string again. [`UserDir::open`] resolves the path a
//!   person gave (their own directories: `~/.config` may be a link of theirs);
//!   [`UserDir::child`] goes one level down without following a link, so a walk made of
//!   `child` steps follows none at any level, as in a workspace the repository controls
//!   (`.vscode/` for `setup vscode`).
//! - **No link is followed** at a file's own name: every open is `O_NOFOLLOW`, a new file is
//!   created `O_EXCL`, and a replace renames over the name (which replaces the entry, never
//!   what a link there points to). A link is refused as [`UserFileError::Link`].
//! - **No open blocks**: every open is `O_NONBLOCK | O_NOCTTY`, so a FIFO or a device opens at
//!   once and is refused by its type.
//! - **The type is checked before any read or write**: `fstat` on the descriptor just opened;
//!   only a regular file is read or written ([`UserDir::writer`] also takes `/dev/null`, where
//!   output is discarded).
//! - **Reads are bounded**: a file larger than the caller's limit is refused by its size before
//!   a byte is read ([`UserFileError::TooLarge`]).
//! - **A replace is atomic** ([`UserDir::replace`]): a new temporary file is created `O_EXCL` in
//!   the same directory through its descriptor, written, given its mode, synced, checked to
//!   still replace what the caller expects, renamed over the name, and the directory synced: a
//!   reader sees the old file or the new one, never a mix, and a crash leaves one of them.
//! - **A backup never replaces anything** ([`UserDir::backup`]): `NAME.bak`, else `NAME.bak.1`,
//!   `NAME.bak.2` ... up to [`MAX_BACKUPS`], each created `O_EXCL`; when all are taken it is
//!   refused and said so.
//!
//! Nothing here is `unsafe`: every call is one of `nix`'s safe wrappers.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, openat};
use nix::sys::stat::{FileStat, Mode, fstatat, mkdirat};
use nix::unistd::{UnlinkatFlags, unlinkat};

use crate::beneath::{FileKind, Stat};

/// How many numbered backups of one file may exist (`NAME.bak`, `NAME.bak.1` ...
/// `NAME.bak.99`) before a backup is refused.
pub const MAX_BACKUPS: u32 = 100;

/// How a temporary file of [`UserDir::replace`] is named after the file it replaces:
/// `.NAME.gnaw-tmp.PID.N`.
const TEMP_INFIX: &str = ".gnaw-tmp.";

/// Why a user file was refused; its `Display` is the part of a sentence that follows the path
/// ("is a symbolic link"), so the caller says whose file it is and what to do.
#[derive(Debug)]
pub enum UserFileError {
    /// The name is a symbolic link; where it points, when that could be read.
    Link(Option<OsString>),
    /// A file was expected and this is something else (named: "a FIFO", "a directory" ...).
    NotRegular(&'static str),
    /// A directory was expected and this is something else.
    NotDirectory(&'static str),
    /// Larger than the caller's limit (in bytes).
    TooLarge(u64),
    /// The file changed (was created, replaced or removed) between its read and its replace.
    Changed,
    /// `NAME.bak` through `NAME.bak.{MAX_BACKUPS - 1}` all exist.
    BackupsTaken,
    /// The name is not one path component.
    BadName,
    /// Anything else the system said.
    Io(io::Error),
}

impl fmt::Display for UserFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UserFileError::Link(_) => f.write_str("is a symbolic link"),
            UserFileError::NotRegular(kind) => write!(f, "is {kind}, not a regular file"),
            UserFileError::NotDirectory(kind) => write!(f, "is {kind}, not a directory"),
            UserFileError::TooLarge(limit) => write!(f, "is larger than {limit} bytes"),
            UserFileError::Changed => {
                f.write_str("changed while gnaw was writing it (another program wrote it)")
            }
            UserFileError::BackupsTaken => write!(
                f,
                "has {MAX_BACKUPS} backups already (.bak, .bak.1 ... .bak.{}), and gnaw never \
                 overwrites one",
                MAX_BACKUPS - 1
            ),
            UserFileError::BadName => f.write_str("does not name a file"),
            UserFileError::Io(e) => write!(f, "cannot be used ({e})"),
        }
    }
}

impl std::error::Error for UserFileError {}

impl From<Errno> for UserFileError {
    fn from(e: Errno) -> UserFileError {
        UserFileError::Io(e.into())
    }
}

impl From<io::Error> for UserFileError {
    fn from(e: io::Error) -> UserFileError {
        UserFileError::Io(e)
    }
}

/// What a file is, in words for a message ("a FIFO").
pub fn kind_name(kind: FileKind) -> &'static str {
    match kind {
        FileKind::File => "a regular file",
        FileKind::Dir => "a directory",
        FileKind::Symlink => "a symbolic link",
        FileKind::Fifo => "a FIFO",
        FileKind::Socket => "a socket",
        FileKind::CharDevice => "a character device",
        FileKind::BlockDevice => "a block device",
        FileKind::Unknown => "a special file",
    }
}

/// A file's identity (device and inode), to tell whether a name still holds the file read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    dev: u64,
    ino: u64,
}

/// A regular file as [`UserDir::read`] found it.
#[derive(Debug)]
pub struct Contents {
    pub bytes: Vec<u8>,
    /// Its permission bits (`0o7777` at most).
    pub mode: u32,
    pub identity: Identity,
}

/// What [`UserDir::replace`] expects to replace; anything else there is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Nothing: the file is new.
    Absent,
    /// The very file read ([`Contents::identity`]).
    Same(Identity),
    /// Nothing, or a regular file (a cache that another run may have replaced).
    AbsentOrFile,
}

/// A directory of the user's, opened once; every file in it is reached through its descriptor.
#[derive(Debug)]
pub struct UserDir {
    fd: OwnedFd,
    path: PathBuf,
}

impl AsFd for UserDir {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl UserDir {
    /// Open the directory at `path`, a path a person gave or their environment names (`-o`'s
    /// directory, `$HOME`, the cache directory): the kernel resolves it, links included.
    pub fn open(path: &Path) -> Result<UserDir, UserFileError> {
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
        let fd = retry(|| nix::fcntl::open(path, flags, Mode::empty()))
            .map_err(|e| not_a_directory(path).unwrap_or(e.into()))?;
        Ok(UserDir {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// [`UserDir::open`], creating the directory and its missing parents first (each new one
    /// with `mode`, less the umask).
    pub fn create_all(path: &Path, mode: u32) -> Result<UserDir, UserFileError> {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(mode)
            .create(path)
            .map_err(|e| not_a_directory(path).unwrap_or(UserFileError::Io(e)))?;
        UserDir::open(path)
    }

    /// The subdirectory `name` (one component), never through a link; created with `mode`
    /// (less the umask) when missing and `create` holds one.
    pub fn child(&self, name: &OsStr, create: Option<u32>) -> Result<UserDir, UserFileError> {
        check_name(name)?;
        if let Some(mode) = create {
            match retry(|| mkdirat(self.fd.as_fd(), name, Mode::from_bits_truncate(mode))) {
                Ok(()) | Err(Errno::EEXIST) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let flags = OFlag::O_RDONLY
            | OFlag::O_DIRECTORY
            | OFlag::O_NOFOLLOW
            | OFlag::O_NONBLOCK
            | OFlag::O_CLOEXEC;
        match retry(|| openat(self.fd.as_fd(), name, flags, Mode::empty())) {
            Ok(fd) => Ok(UserDir {
                fd,
                path: self.path.join(name),
            }),
            Err(e @ (Errno::ELOOP | Errno::ENOTDIR)) => Err(match self.kind(name) {
                Ok(Some(FileKind::Symlink)) => UserFileError::Link(self.link_target(name)),
                Ok(Some(kind)) => UserFileError::NotDirectory(kind_name(kind)),
                _ => e.into(),
            }),
            Err(e) => Err(e.into()),
        }
    }

    /// The directory's path as it was opened (for messages only; nothing is opened by it).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What `name` is, without following a link; `None` when nothing has that name.
    pub fn kind(&self, name: &OsStr) -> Result<Option<FileKind>, UserFileError> {
        check_name(name)?;
        match retry(|| fstatat(self.fd.as_fd(), name, AtFlags::AT_SYMLINK_NOFOLLOW)) {
            Ok(st) => Ok(Some(Stat::from(&st).kind)),
            Err(Errno::ENOENT) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Read the regular file `name`, at most `limit` bytes; `None` when nothing has that name.
    /// A link, a FIFO or any other non-regular file is refused without a read, and so is a file
    /// larger than `limit`.
    pub fn read(&self, name: &OsStr, limit: u64) -> Result<Option<Contents>, UserFileError> {
        check_name(name)?;
        let flags = OFlag::O_RDONLY
            | OFlag::O_NOFOLLOW
            | OFlag::O_NONBLOCK
            | OFlag::O_NOCTTY
            | OFlag::O_CLOEXEC;
        let fd = match retry(|| openat(self.fd.as_fd(), name, flags, Mode::empty())) {
            Ok(fd) => fd,
            Err(Errno::ENOENT) => return Ok(None),
            Err(e) => return Err(self.open_refusal(name, e)),
        };
        let st = regular(&fd)?;
        if u64::try_from(st.st_size).unwrap_or(u64::MAX) > limit {
            return Err(UserFileError::TooLarge(limit));
        }
        let mut bytes = Vec::new();
        File::from(fd).take(limit + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > limit {
            return Err(UserFileError::TooLarge(limit));
        }
        Ok(Some(Contents {
            bytes,
            mode: st.st_mode & 0o7777,
            identity: identity(&st),
        }))
    }

    /// Open `name` to be written from its start, as `-o` writes: created with `mode` when
    /// missing, truncated only once it is proven a regular file. `/dev/null` (character device
    /// 1:3) is the one other file taken, and is not truncated.
    pub fn writer(&self, name: &OsStr, mode: u32) -> Result<File, UserFileError> {
        check_name(name)?;
        let flags = OFlag::O_WRONLY
            | OFlag::O_CREAT
            | OFlag::O_NOFOLLOW
            | OFlag::O_NONBLOCK
            | OFlag::O_NOCTTY
            | OFlag::O_CLOEXEC;
        let mode = Mode::from_bits_truncate(mode);
        let fd = retry(|| openat(self.fd.as_fd(), name, flags, mode))
            .map_err(|e| self.open_refusal(name, e))?;
        let st = retry(|| nix::sys::stat::fstat(fd.as_fd()))?;
        if is_dev_null(&st) {
            return Ok(File::from(fd));
        }
        let kind = Stat::from(&st).kind;
        if kind != FileKind::File {
            return Err(UserFileError::NotRegular(kind_name(kind)));
        }
        let file = File::from(fd);
        file.set_len(0)?;
        Ok(file)
    }

    /// Check, before a run, that [`UserDir::writer`] would take `name`: missing, a regular file
    /// or `/dev/null`. Creates nothing.
    pub fn check_writable(&self, name: &OsStr) -> Result<(), UserFileError> {
        check_name(name)?;
        match retry(|| fstatat(self.fd.as_fd(), name, AtFlags::AT_SYMLINK_NOFOLLOW)) {
            Err(Errno::ENOENT) => Ok(()),
            Err(e) => Err(e.into()),
            Ok(st) if is_dev_null(&st) => Ok(()),
            Ok(st) => match Stat::from(&st).kind {
                FileKind::File => Ok(()),
                FileKind::Symlink => Err(UserFileError::Link(self.link_target(name))),
                kind => Err(UserFileError::NotRegular(kind_name(kind))),
            },
        }
    }

    /// Open (creating it, `0600`, when missing) the regular file `name` to lock it.
    pub fn lock_file(&self, name: &OsStr) -> Result<File, UserFileError> {
        check_name(name)?;
        let flags = OFlag::O_RDWR
            | OFlag::O_CREAT
            | OFlag::O_NOFOLLOW
            | OFlag::O_NONBLOCK
            | OFlag::O_NOCTTY
            | OFlag::O_CLOEXEC;
        let fd = retry(|| {
            openat(
                self.fd.as_fd(),
                name,
                flags,
                Mode::from_bits_truncate(0o600),
            )
        })
        .map_err(|e| self.open_refusal(name, e))?;
        regular(&fd)?;
        Ok(File::from(fd))
    }

    /// Replace `name` with `bytes` (permissions `mode`), atomically, if what is there is what
    /// `expect` says; otherwise nothing is changed. See the module's doc for the steps.
    pub fn replace(
        &self,
        name: &OsStr,
        bytes: &[u8],
        mode: u32,
        expect: Expect,
    ) -> Result<(), UserFileError> {
        check_name(name)?;
        let (temp, file) = self.temporary(name, mode)?;
        let done = write_synced(file, bytes, mode)
            .and_then(|()| self.expecting(name, expect))
            .and_then(|()| {
                retry(|| nix::fcntl::renameat(self.fd.as_fd(), &temp[..], self.fd.as_fd(), name))
                    .map_err(UserFileError::from)
            });
        if let Err(e) = done {
            let _ = unlinkat(self.fd.as_fd(), &temp[..], UnlinkatFlags::NoRemoveDir);
            return Err(e);
        }
        // The rename itself reaches the disk with the directory's own sync.
        retry(|| nix::unistd::fsync(self.fd.as_fd()))?;
        Ok(())
    }

    /// Keep `bytes` (permissions `mode`) as a new backup of `name`: the first of `NAME.bak`,
    /// `NAME.bak.1` ... that does not exist, created `O_EXCL` (never an existing file, never
    /// through a link). Returns the backup's name.
    pub fn backup(&self, name: &OsStr, bytes: &[u8], mode: u32) -> Result<OsString, UserFileError> {
        check_name(name)?;
        let flags = OFlag::O_WRONLY
            | OFlag::O_CREAT
            | OFlag::O_EXCL
            | OFlag::O_NOFOLLOW
            | OFlag::O_NONBLOCK
            | OFlag::O_CLOEXEC;
        for n in 0..MAX_BACKUPS {
            let mut backup = name.to_os_string();
            backup.push(if n == 0 {
                ".bak".to_string()
            } else {
                format!(".bak.{n}")
            });
            let created = retry(|| {
                openat(
                    self.fd.as_fd(),
                    &backup[..],
                    flags,
                    Mode::from_bits_truncate(0o600),
                )
            });
            match created {
                Ok(fd) => {
                    if let Err(e) = write_synced(File::from(fd), bytes, mode) {
                        let _ = unlinkat(self.fd.as_fd(), &backup[..], UnlinkatFlags::NoRemoveDir);
                        return Err(e);
                    }
                    return Ok(backup);
                }
                Err(Errno::EEXIST) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(UserFileError::BackupsTaken)
    }

    /// Remove the temporary files a [`UserDir::replace`] of `name` left when its process died
    /// mid-way. Call it only when no other replace of `name` can be running (under a lock).
    pub fn remove_temporaries(&self, name: &OsStr) -> Result<(), UserFileError> {
        check_name(name)?;
        let mut prefix = OsString::from(".");
        prefix.push(name);
        prefix.push(TEMP_INFIX);
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        let fd = retry(|| openat(self.fd.as_fd(), ".", flags, Mode::empty()))?;
        let mut dir = nix::dir::Dir::from_fd(fd)?;
        let stale: Vec<OsString> = dir
            .iter()
            .filter_map(Result::ok)
            .map(|e| OsStr::from_bytes(e.file_name().to_bytes()).to_os_string())
            .filter(|n| n.as_bytes().starts_with(prefix.as_bytes()))
            .collect();
        for temp in stale {
            let _ = unlinkat(self.fd.as_fd(), &temp[..], UnlinkatFlags::NoRemoveDir);
        }
        Ok(())
    }

    /// Whether `name` is a program that can be run: it, or what a link there leads to (installed
    /// tools are often links), is a regular file with an execute bit. Only a `stat`; nothing is
    /// opened.
    pub fn is_executable(&self, name: &OsStr) -> bool {
        check_name(name).is_ok()
            && retry(|| fstatat(self.fd.as_fd(), name, AtFlags::empty()))
                .is_ok_and(|st| Stat::from(&st).kind == FileKind::File && st.st_mode & 0o111 != 0)
    }

    /// A new temporary file beside `name`, created `O_EXCL` with `mode`.
    fn temporary(&self, name: &OsStr, mode: u32) -> Result<(OsString, File), UserFileError> {
        static SEQUENCE: AtomicU32 = AtomicU32::new(0);
        let flags =
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        loop {
            let mut temp = OsString::from(".");
            temp.push(name);
            temp.push(format!(
                "{TEMP_INFIX}{}.{}",
                std::process::id(),
                SEQUENCE.fetch_add(1, Ordering::Relaxed)
            ));
            let mode = Mode::from_bits_truncate(mode & 0o777);
            match retry(|| openat(self.fd.as_fd(), &temp[..], flags, mode)) {
                Ok(fd) => return Ok((temp, File::from(fd))),
                // Left by an earlier process with this id: take the next number.
                Err(Errno::EEXIST) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// `Ok` when what `name` holds now is what `expect` says.
    fn expecting(&self, name: &OsStr, expect: Expect) -> Result<(), UserFileError> {
        let now = match retry(|| fstatat(self.fd.as_fd(), name, AtFlags::AT_SYMLINK_NOFOLLOW)) {
            Ok(st) => Some(st),
            Err(Errno::ENOENT) => None,
            Err(e) => return Err(e.into()),
        };
        match (expect, now) {
            (Expect::Absent | Expect::AbsentOrFile, None) => Ok(()),
            (Expect::Same(id), Some(st)) if identity(&st) == id => Ok(()),
            (Expect::AbsentOrFile, Some(st)) => match Stat::from(&st).kind {
                FileKind::File => Ok(()),
                FileKind::Symlink => Err(UserFileError::Link(self.link_target(name))),
                kind => Err(UserFileError::NotRegular(kind_name(kind))),
            },
            _ => Err(UserFileError::Changed),
        }
    }

    /// The refusal for an `openat` of `name` that failed with `e`.
    fn open_refusal(&self, name: &OsStr, e: Errno) -> UserFileError {
        match e {
            // O_NOFOLLOW on a link.
            Errno::ELOOP => UserFileError::Link(self.link_target(name)),
            // A socket, or a FIFO opened for writing with no reader.
            Errno::ENXIO | Errno::EISDIR => match self.kind(name) {
                Ok(Some(kind)) => UserFileError::NotRegular(kind_name(kind)),
                _ => e.into(),
            },
            _ => e.into(),
        }
    }

    /// Where the link `name` points, for a message.
    fn link_target(&self, name: &OsStr) -> Option<OsString> {
        nix::fcntl::readlinkat(self.fd.as_fd(), name).ok()
    }
}

/// The refusal for `path` when it exists and is no directory (what a failed open or mkdir
/// says better than `ENOTDIR` or `EEXIST`).
fn not_a_directory(path: &Path) -> Option<UserFileError> {
    let kind = Stat::from(&nix::sys::stat::stat(path).ok()?).kind;
    (kind != FileKind::Dir).then(|| UserFileError::NotDirectory(kind_name(kind)))
}

/// `fstat` of a descriptor just opened, refused unless it is a regular file.
fn regular(fd: &OwnedFd) -> Result<FileStat, UserFileError> {
    let st = retry(|| nix::sys::stat::fstat(fd.as_fd()))?;
    match Stat::from(&st).kind {
        FileKind::File => Ok(st),
        kind => Err(UserFileError::NotRegular(kind_name(kind))),
    }
}

/// Write `bytes` to a new file, give it `mode` (the umask does not apply to a copy), sync it.
fn write_synced(mut file: File, bytes: &[u8], mode: u32) -> Result<(), UserFileError> {
    file.set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))?;
    file.write_all(bytes)?;
    file.sync_all()?;
    Ok(())
}

fn identity(st: &FileStat) -> Identity {
    Identity {
        dev: st.st_dev,
        ino: st.st_ino,
    }
}

/// `/dev/null`: the character device 1:3.
fn is_dev_null(st: &FileStat) -> bool {
    Stat::from(st).kind == FileKind::CharDevice && st.st_rdev == libc::makedev(1, 3)
}

/// A single path component: not empty, no `/`, not `.` or `..`.
fn check_name(name: &OsStr) -> Result<(), UserFileError> {
    let b = name.as_bytes();
    if b.is_empty() || b.contains(&b'/') || b == b"." || b == b".." || b.contains(&0) {
        return Err(UserFileError::BadName);
    }
    Ok(())
}

fn retry<T>(mut f: impl FnMut() -> nix::Result<T>) -> nix::Result<T> {
    loop {
        match f() {
            Err(Errno::EINTR) => continue,
            other => return other,
        }
    }
}

/// Split a path a person gave into its directory (`.` for a bare name) and its file name. A
/// path that names a directory rather than a file in one (`out/`, `out/.`, `..`) is refused.
pub fn split(path: &Path) -> Result<(PathBuf, OsString), UserFileError> {
    let bytes = path.as_os_str().as_bytes();
    // `Path::file_name` reads `out/.` as `out`: that spelling names the directory itself.
    if bytes.ends_with(b"/") || bytes.ends_with(b"/.") || bytes == b"." {
        return Err(UserFileError::BadName);
    }
    let name = path.file_name().ok_or(UserFileError::BadName)?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((dir, name.to_os_string()))
}
