//! Userspace containment: turn an untrusted path into a proof that it names something under the
//! root, or into a named [`Rejection`].
//!
//! A [`Root`] is canonicalized once, and its directory is opened once (an `O_PATH` fd). Then
//! [`Root::contain`] resolves the untrusted path itself, one component at a time, through file
//! descriptors, never through a path string: each name is opened with `O_PATH | O_NOFOLLOW`
//! relative to the fd of the directory reached so far and `fstat`ed (so the type and the node
//! come from one lookup), a symlink's target is read from its own fd (`readlinkat(fd, "")`), and
//! `..` goes back to the fd kept for the parent. So the resolution only ever looks at entries of
//! directories it reached from the root's fd: swapping a directory for a link to the outside
//! mid-resolution (`renameat2(RENAME_EXCHANGE)`) cannot make it `lstat` or `readlink` anything
//! outside, even for metadata, which Landlock does not cover.
//!
//! - relative paths are resolved against the root, never against the working directory;
//! - a `..` that would climb above the root is `OutsideRoot`, even if a later component comes
//!   back in (`../root/x`);
//! - an absolute symlink target is accepted only when it is spelled under the canonical root,
//!   and resolution restarts from the root's fd; otherwise it is `OutsideRoot` and is never
//!   followed, so nothing outside is ever probed;
//! - a dangling link, or a missing component, is `NotFound` only while the resolution is still
//!   inside the root. There is no fallback to checking a parent directory (CVE-2025-53109).
//! - more than [`MAX_SYMLINK_HOPS`] links (loops, self-links) is `InvalidPath`: a loop does not
//!   escape, it is just not a usable path.
//! - names over 255 bytes and paths over 4095 bytes are `InvalidPath` before any system call;
//!   so is a resolution whose absolute spelling would grow past 4095 bytes.
//!
//! An absolute input is accepted only when it is spelled under the canonical root or under the
//! root as the operator gave it; any other (a symlinked alias of the root, `/proc/self/root/...`)
//! is `OutsideRoot` without being resolved, so the answer cannot be used to test whether a path
//! outside exists or where a link outside points.
//!
//! The root is its descriptor. It is opened once, when the root is proven ([`Root::new`]), or
//! handed on by the process that proved it ([`Root::adopt`]: `gnaw-mcp --listen`'s spawner gives
//! each tenant's worker its roots so), and every resolution starts from it; Landlock's rule is
//! bound to it too. The root's path is never resolved again to reach anything: it is only
//! compared ([`Root::check_in_place`], at the start of every resolution), and once it no longer
//! names the proven directory (moved, replaced by another directory or a link, removed) every
//! call is `RootChanged`, serving neither the old directory nor the new one.
//!
//! Defense in depth: the resolved names are walked once more from the root's fd, beneath it and
//! following no link ([`BeneathDir::stat_beneath`]), and must reach the same node (device and
//! inode) the resolution ended on; a tree that changed under the resolution is `NotFound`.
//! [`Contained::path`] is the canonical root joined with those names, and component-based, never
//! a string prefix (`/root-evil` is not under `/root`).
//!
//! Messages never contain anything read from outside the root (symlink targets are never shown).
//!
//! A proof is about a path, and paths can change after they are proven. So
//! [`ContainedDir::open`] reaches the directory from the root's fd again (beneath it, no
//! symlinks: [`BeneathDir::open_dir`]) and checks that it is the same directory (device and
//! inode) that was proven. A directory swapped for a link to the outside between the proof and
//! the open is refused instead of followed.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::beneath::{
    BeneathDir, FileChanged, FileKind, Stat, open_node, open_parent, read_link_fd, stat_fd,
};

/// Longest path accepted, in bytes (Linux `PATH_MAX` is 4096 including the NUL).
pub const MAX_PATH_BYTES: usize = 4095;
/// Longest single name accepted, in bytes (Linux `NAME_MAX`).
pub const MAX_NAME_BYTES: usize = 255;
/// Symlinks followed while resolving one path before giving up (the kernel's limit is 40).
pub const MAX_SYMLINK_HOPS: usize = 40;

/// A canonical directory that every contained path lies under.
#[derive(Clone, Debug)]
pub struct Root {
    path: PathBuf,
    /// The root as the operator spelled it, made absolute without resolving anything: the one
    /// other spelling under which an absolute path is accepted.
    given: PathBuf,
    /// The root directory, opened when the root was made; every [`ContainedDir::open`] starts
    /// here.
    dir: Arc<BeneathDir>,
    /// The directory's identity when it was proven ([`Root::check_in_place`]).
    id: RootId,
}

/// A directory's identity: its device and inode, as `fstat` gave them when it was proven.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct RootId {
    pub dev: u64,
    pub ino: u64,
}

impl fmt::Display for RootId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "device {} inode {}", self.dev, self.ino)
    }
}

/// Why a directory cannot be the root.
#[derive(Debug)]
pub enum RootError {
    /// The path does not exist.
    NotFound(PathBuf),
    /// The path exists but is not a directory.
    NotADirectory(PathBuf),
    /// The path is `/`, which would make confinement meaningless.
    FilesystemRoot(PathBuf),
    /// Canonicalizing or inspecting the path failed for another reason.
    Io(PathBuf, io::Error),
    /// A directory handed on by descriptor is no longer at the path it was proven at (moved,
    /// replaced by another directory or a link, or removed); the text says what was found.
    Changed(PathBuf, String),
}

impl fmt::Display for RootError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RootError::NotFound(p) => write!(
                f,
                "root directory {} does not exist; point the root (GNAW_MCP_ROOT) at an existing directory",
                p.display()
            ),
            RootError::NotADirectory(p) => write!(
                f,
                "root {} is not a directory; point the root (GNAW_MCP_ROOT) at a directory",
                p.display()
            ),
            RootError::FilesystemRoot(p) => write!(
                f,
                "root {} resolves to the filesystem root `/`, which would make confinement meaningless; \
                 choose a project directory, or allow `/` explicitly if you really mean it",
                p.display()
            ),
            RootError::Io(p, e) => write!(
                f,
                "cannot use {} as the root: {e}; check that it exists and is readable",
                p.display()
            ),
            RootError::Changed(p, why) => write!(
                f,
                "root {} is no longer the directory proven when the server started ({why}); \
                 restore it, or restart the server so that it proves the root again",
                p.display()
            ),
        }
    }
}

impl std::error::Error for RootError {}

/// Why an untrusted path was refused. [`Rejection::kind`] gives the stable name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// Not a usable path: empty, NUL byte, not a string, too long, or a symlink loop.
    InvalidPath(String),
    /// The path, or a symlink on its way, leads outside the root.
    OutsideRoot,
    /// Nothing exists at that path under the root (or it cannot be accessed).
    NotFound,
    /// A directory was required (or the path ended with `/`), but it is something else.
    NotADirectory,
    /// The root itself is no longer the directory proven at startup: moved, replaced (by
    /// another directory or a link) or removed. Nothing is served from it.
    RootChanged,
}

impl Rejection {
    /// The stable name of this rejection: `InvalidPath`, `OutsideRoot`, `NotFound`,
    /// `NotADirectory` or `RootChanged`.
    pub fn kind(&self) -> &'static str {
        match self {
            Rejection::InvalidPath(_) => "InvalidPath",
            Rejection::OutsideRoot => "OutsideRoot",
            Rejection::NotFound => "NotFound",
            Rejection::NotADirectory => "NotADirectory",
            Rejection::RootChanged => "RootChanged",
        }
    }

    /// The message with the untrusted input quoted (escaped, and shortened when very long).
    /// Only the caller's own input is echoed, never anything found on disk.
    pub fn message_for(&self, input: &OsStr) -> String {
        format!("{}: {}", quote(input), self)
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::InvalidPath(why) => write!(f, "invalid path: {why}"),
            Rejection::OutsideRoot => {
                f.write_str("path resolves outside the root; give a path inside the root")
            }
            Rejection::NotFound => f.write_str("no such file or directory under the root"),
            Rejection::NotADirectory => f.write_str("not a directory"),
            Rejection::RootChanged => f.write_str(
                "the root directory was moved, replaced or removed after the server proved it; \
                 nothing is served from it until the server's operator restores it or restarts \
                 the server",
            ),
        }
    }
}

impl std::error::Error for Rejection {}

/// Escape an untrusted path for a message: Debug-style quoting (control characters and
/// non-UTF-8 bytes escaped), cut after 200 bytes.
fn quote(input: &OsStr) -> String {
    let bytes = input.as_bytes();
    if bytes.len() > 200 {
        let head = OsStr::from_bytes(&bytes[..200]);
        format!("{head:?}… ({} bytes)", bytes.len())
    } else {
        format!("{input:?}")
    }
}

/// A path proven to lie under a [`Root`]: its canonical absolute path, and the same path
/// relative to the root (empty for the root itself). Only [`Root`] can make one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contained {
    path: PathBuf,
    relative: PathBuf,
    /// Identity and type of the node when it was proven.
    dev: u64,
    ino: u64,
    is_dir: bool,
    /// The node's `lstat` when it was proven.
    stat: Stat,
}

impl Contained {
    /// Canonical absolute path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Path relative to the root; `""` for the root itself.
    pub fn relative(&self) -> &Path {
        &self.relative
    }

    /// What the proof saw of the node (type, identity, size, times): no second look by path.
    pub fn stat(&self) -> &Stat {
        &self.stat
    }
}

/// A directory proven to lie under a [`Root`], with the identity it had when proven.
#[derive(Clone, Debug)]
pub struct ContainedDir {
    inner: Contained,
    dev: u64,
    ino: u64,
    root: Arc<BeneathDir>,
    /// The name of the root it lies under, when the server has several ([`Roots`](crate::Roots)).
    root_name: Option<Arc<str>>,
}

impl PartialEq for ContainedDir {
    fn eq(&self, other: &ContainedDir) -> bool {
        self.inner == other.inner && self.dev == other.dev && self.ino == other.ino
    }
}

impl Eq for ContainedDir {}

impl ContainedDir {
    /// The contained path.
    pub fn contained(&self) -> &Contained {
        &self.inner
    }

    /// Canonical absolute path.
    pub fn path(&self) -> &Path {
        self.inner.path()
    }

    /// Path relative to the root; `""` for the root itself.
    pub fn relative(&self) -> &Path {
        self.inner.relative()
    }

    /// How an answer names this directory when the server has several roots: the root's name,
    /// then the path under it (`sdk`, `sdk/src`). `None` with one root, where answers name a
    /// directory by its own name as before.
    pub fn shown_name(&self) -> Option<String> {
        let root = self.root_name.as_deref()?;
        let rel = self.inner.relative.to_string_lossy();
        Some(if rel.is_empty() {
            root.to_string()
        } else {
            format!("{root}/{rel}")
        })
    }

    /// The same directory, named as lying under the root called `name`.
    pub(crate) fn under_root_named(mut self, name: Arc<str>) -> ContainedDir {
        self.root_name = Some(name);
        self
    }

    /// This directory as a [`Root`] of its own, e.g. to contain paths given relative to a repo
    /// that is itself a subdirectory of the server's root. No new canonicalization is needed;
    /// the new root's fd is opened with [`ContainedDir::open`].
    pub fn as_root(&self) -> io::Result<Root> {
        Ok(Root {
            path: self.inner.path.clone(),
            given: self.inner.path.clone(),
            dir: Arc::new(self.open()?),
            id: RootId {
                dev: self.dev,
                ino: self.ino,
            },
        })
    }

    /// Open a directory fd on it, for per-open kernel containment: reached from the root's fd
    /// without following any link, and refused (an `io::Error` wrapping [`FileChanged`]) unless
    /// it is still the directory that was proven.
    pub fn open(&self) -> io::Result<BeneathDir> {
        let dir = self.root.open_dir(&self.inner.relative)?;
        let st = dir.stat()?;
        if st.dev != self.dev || st.ino != self.ino {
            return Err(io::Error::other(FileChanged));
        }
        Ok(dir)
    }
}

impl Root {
    /// Canonicalize `path` once. It must exist and be a directory; `/` is refused unless
    /// `allow_filesystem_root`.
    pub fn new(path: &Path, allow_filesystem_root: bool) -> Result<Root, RootError> {
        let canonical = std::fs::canonicalize(path).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => RootError::NotFound(path.to_path_buf()),
            _ => RootError::Io(path.to_path_buf(), e),
        })?;
        let meta =
            std::fs::metadata(&canonical).map_err(|e| RootError::Io(path.to_path_buf(), e))?;
        if !meta.is_dir() {
            return Err(RootError::NotADirectory(path.to_path_buf()));
        }
        if canonical.parent().is_none() && !allow_filesystem_root {
            return Err(RootError::FilesystemRoot(path.to_path_buf()));
        }
        let dir = BeneathDir::open(&canonical).map_err(|e| RootError::Io(path.to_path_buf(), e))?;
        let st = dir
            .stat()
            .map_err(|e| RootError::Io(path.to_path_buf(), e))?;
        if st.dev != meta.dev() || st.ino != meta.ino() {
            return Err(RootError::Io(
                path.to_path_buf(),
                io::Error::other("the directory changed while it was being opened; try again"),
            ));
        }
        let given = std::path::absolute(path).unwrap_or_else(|_| canonical.clone());
        Ok(Root {
            path: canonical,
            given,
            dir: Arc::new(dir),
            id: RootId {
                dev: st.dev,
                ino: st.ino,
            },
        })
    }

    /// Adopt a directory that another process proved and handed on by descriptor (`gnaw-mcp
    /// --listen`'s spawner gives each tenant's worker its roots so): `fd` is the directory,
    /// `canonical` the path it was proven at. Nothing is resolved through the path: the
    /// descriptor is the root, for containment and for Landlock's rules alike. The path is
    /// only compared, once here and at every later use ([`Root::check_in_place`]), and must
    /// still name the very same directory.
    pub fn adopt(fd: OwnedFd, canonical: &Path) -> Result<Root, RootError> {
        let p = || canonical.to_path_buf();
        if !canonical.is_absolute()
            || canonical
                .components()
                .any(|c| matches!(c, Component::CurDir | Component::ParentDir))
        {
            return Err(RootError::Io(
                p(),
                io::Error::other("a root handed on must be a canonical absolute path"),
            ));
        }
        let st = stat_fd(fd.as_fd()).map_err(|e| RootError::Io(p(), e))?;
        if st.kind != FileKind::Dir {
            return Err(RootError::NotADirectory(p()));
        }
        let root = Root {
            path: canonical.to_path_buf(),
            given: canonical.to_path_buf(),
            dir: Arc::new(BeneathDir::from_fd(fd, canonical.to_path_buf())),
            id: RootId {
                dev: st.dev,
                ino: st.ino,
            },
        };
        root.where_it_is()
            .map_err(|why| RootError::Changed(p(), why))?;
        Ok(root)
    }

    /// The directory's identity when it was proven.
    pub fn id(&self) -> RootId {
        self.id
    }

    /// The root's directory descriptor (an `O_PATH` descriptor opened when it was proven):
    /// what Landlock's rule and the spawner's hand-over are bound to.
    pub fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.dir.as_fd()
    }

    /// `Ok` while the root's path still names the directory that was proven (same device and
    /// inode, found without following a link at its last component); `RootChanged` once it was
    /// moved, replaced or removed. Every containment starts with it, so a root swapped after
    /// startup fails every call with that kind instead of serving either directory.
    pub fn check_in_place(&self) -> Result<(), Rejection> {
        self.where_it_is().map_err(|_| Rejection::RootChanged)
    }

    /// What the root's path names now, when that is not the proven directory.
    fn where_it_is(&self) -> Result<(), String> {
        match nix::sys::stat::lstat(&self.path) {
            Ok(st) if (st.st_dev, st.st_ino) == (self.id.dev, self.id.ino) => Ok(()),
            Ok(st) if st.st_mode & libc::S_IFMT == libc::S_IFLNK => {
                Err("its path is now a symbolic link".into())
            }
            Ok(st) => Err(format!(
                "its path now names device {} inode {}, not the proven {}",
                st.st_dev, st.st_ino, self.id
            )),
            Err(e) => Err(format!("its path cannot be found: {e}")),
        }
    }

    /// Whether this root and `other` share any directory: the same directory, or one inside
    /// the other. Compared by identity up each one's chain of parents (`..` from its
    /// descriptor, so a bind mount or a second spelling of the same tree is seen too), not by
    /// the paths' spelling.
    pub fn overlaps(&self, other: &Root) -> bool {
        self.id == other.id
            || self.ancestors().contains(&other.id)
            || other.ancestors().contains(&self.id)
    }

    /// The identities of every directory above this one, nearest first, up to `/`.
    fn ancestors(&self) -> Vec<RootId> {
        let mut out = Vec::new();
        let mut at: Option<OwnedFd> = None;
        // Deeper than any path of 4095 bytes can be.
        for _ in 0..MAX_PATH_BYTES / 2 {
            let here = at.as_ref().map_or(self.dir.as_fd(), |fd| fd.as_fd());
            let Ok((up, st)) = open_parent(here) else {
                break;
            };
            let id = RootId {
                dev: st.dev,
                ino: st.ino,
            };
            if out.last() == Some(&id) || id == self.id {
                break;
            }
            out.push(id);
            at = Some(up);
        }
        out
    }

    /// The canonical root directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The root itself as a contained directory.
    pub fn as_dir(&self) -> ContainedDir {
        let stat = self.dir.stat().unwrap_or(Stat {
            kind: FileKind::Dir,
            dev: 0,
            ino: 0,
            size: 0,
            nlink: 0,
            mtime_ns: 0,
            ctime_ns: 0,
            mode: 0,
        });
        let (dev, ino) = (stat.dev, stat.ino);
        ContainedDir {
            inner: Contained {
                path: self.path.clone(),
                relative: PathBuf::new(),
                dev,
                ino,
                is_dir: true,
                stat,
            },
            dev,
            ino,
            root: Arc::clone(&self.dir),
            root_name: None,
        }
    }

    /// Prove that `untrusted` names an existing file, directory or other node under the root.
    pub fn contain(&self, untrusted: &OsStr) -> Result<Contained, Rejection> {
        let want_dir = check_input(untrusted)?;
        let input = Path::new(untrusted);

        let rest = if input.is_absolute() {
            // Only spellings under the root as the operator gave it (canonical, or as given)
            // are accepted. Anything else is OutsideRoot without being resolved: an outside
            // link that leads in would otherwise tell the client that the outside path exists
            // and where it points.
            match self.strip_spelling(input) {
                Some(rest) => rest.to_path_buf(),
                None => return Err(Rejection::OutsideRoot),
            }
        } else {
            input.to_path_buf()
        };

        let mut pending = VecDeque::new();
        push_front_components(&mut pending, &rest);
        match self.resolve(pending, 0)? {
            Walk::Done(found) => self.finish(found, want_dir),
            // One root: whatever leaves it is outside.
            Walk::Left(_) => Err(Rejection::OutsideRoot),
        }
    }

    /// `input` (absolute) without the root's canonical spelling or the spelling the operator
    /// gave, whichever it starts with; `None` when it starts with neither.
    pub(crate) fn strip_spelling<'a>(&self, input: &'a Path) -> Option<&'a Path> {
        input
            .strip_prefix(&self.path)
            .or_else(|_| input.strip_prefix(&self.given))
            .ok()
    }

    /// The length of the root's spelling that `input` starts with (for choosing the innermost
    /// of nested roots), or `None`.
    pub(crate) fn spelling_len(&self, input: &Path) -> Option<usize> {
        if input.starts_with(&self.path) {
            Some(self.path.as_os_str().len())
        } else if input.starts_with(&self.given) {
            Some(self.given.as_os_str().len())
        } else {
            None
        }
    }

    /// Turn a finished resolution into a proof. Defense in depth: walking the resolved names
    /// from the root's fd, beneath it and following no link, must reach the very node the
    /// resolution ended on. Otherwise the tree changed under the resolution and the answer
    /// cannot be proven. (Its length was bounded during the resolution, so any failure here is a
    /// change: a directory renamed away or swapped for a link.)
    pub(crate) fn finish(&self, found: Resolved, want_dir: bool) -> Result<Contained, Rejection> {
        let again = self
            .dir
            .stat_beneath(&found.relative)
            .map_err(|_| Rejection::NotFound)?;
        if (again.dev, again.ino) != (found.stat.dev, found.stat.ino) {
            return Err(Rejection::NotFound);
        }
        let is_dir = found.stat.kind == FileKind::Dir;
        if want_dir && !is_dir {
            return Err(Rejection::NotADirectory);
        }
        Ok(Contained {
            path: self.path.join(&found.relative),
            relative: found.relative,
            dev: found.stat.dev,
            ino: found.stat.ino,
            is_dir,
            stat: found.stat,
        })
    }

    /// A proven directory as a [`ContainedDir`] of this root.
    pub(crate) fn dir_of(&self, inner: Contained) -> Result<ContainedDir, Rejection> {
        if !inner.is_dir {
            return Err(Rejection::NotADirectory);
        }
        Ok(ContainedDir {
            dev: inner.dev,
            ino: inner.ino,
            inner,
            root: Arc::clone(&self.dir),
            root_name: None,
        })
    }

    /// Like [`Root::contain`], and the result must be a directory.
    pub fn contain_dir(&self, untrusted: &OsStr) -> Result<ContainedDir, Rejection> {
        self.dir_of(self.contain(untrusted)?)
    }

    /// A directory from a JSON argument: anything but a string is `InvalidPath`.
    pub fn contain_json(&self, value: &serde_json::Value) -> Result<ContainedDir, Rejection> {
        self.contain_dir(json_path(value)?)
    }

    /// Resolve the names in `pending` (relative to the root) without ever leaving the root:
    /// every name is opened (`O_PATH | O_NOFOLLOW`) relative to the fd of the directory reached
    /// so far, and `..` goes back to the fd kept for the parent. `hops` symlinks were followed
    /// before (by an earlier root of a [`Roots`](crate::Roots) list).
    ///
    /// Ends in [`Walk::Done`] with the resolved path relative to the root, free of symlinks, `.`
    /// and `..`, and the `fstat` of the node it names; or in [`Walk::Left`] where the path
    /// leaves the root (a `..` above it, or an absolute link target not spelled under it),
    /// with nothing outside the root looked at.
    pub(crate) fn resolve(
        &self,
        mut pending: VecDeque<OsString>,
        mut hops: usize,
    ) -> Result<Walk, Rejection> {
        self.check_in_place()?;
        // The directories entered so far, outermost first; the root's own fd is below them.
        let mut entered: Vec<(OsString, OwnedFd)> = Vec::new();
        let mut leaf: Option<(OsString, Stat)> = None;
        // Length of the absolute path resolved so far, to keep the old PATH_MAX limit.
        let root_len = match self.path.as_os_str().len() {
            1 => 0,
            n => n,
        };
        let mut spelled_len = root_len;
        while let Some(name) = pending.pop_front() {
            if name == ".." {
                match entered.pop() {
                    Some((up, _)) => spelled_len -= 1 + up.len(),
                    None => {
                        let at = self.path.parent().unwrap_or(&self.path).to_path_buf();
                        return Ok(Walk::Left(Leaving { at, pending, hops }));
                    }
                }
                continue;
            }
            if spelled_len + 1 + name.len() > MAX_PATH_BYTES {
                return Err(Rejection::InvalidPath("path is too long".into()));
            }
            let here = entered
                .last()
                .map_or(self.dir.as_fd(), |(_, fd)| fd.as_fd());
            let (node, st) = open_node(here, &name).map_err(map_io)?;
            match st.kind {
                FileKind::Symlink => {
                    hops += 1;
                    if hops > MAX_SYMLINK_HOPS {
                        return Err(Rejection::InvalidPath(
                            "too many levels of symbolic links (a loop?)".into(),
                        ));
                    }
                    let target = PathBuf::from(read_link_fd(node.as_fd()).map_err(map_io)?);
                    if target.is_absolute() {
                        // Only targets spelled under the canonical root are followed here,
                        // and they restart from the root's fd. Any other is handed back.
                        match target.strip_prefix(&self.path) {
                            Ok(rest) => {
                                entered.clear();
                                spelled_len = root_len;
                                push_front_components(&mut pending, rest);
                            }
                            Err(_) => {
                                push_front_components(&mut pending, &target);
                                let at = PathBuf::from("/");
                                return Ok(Walk::Left(Leaving { at, pending, hops }));
                            }
                        }
                    } else {
                        push_front_components(&mut pending, &target);
                    }
                }
                FileKind::Dir => {
                    spelled_len += 1 + name.len();
                    entered.push((name, node));
                }
                // The last name may be anything else (file, FIFO, socket, device).
                _ if pending.is_empty() => leaf = Some((name, st)),
                // A file in the middle of the path ("file/x"): nothing by that name exists.
                _ => return Err(Rejection::NotFound),
            }
        }
        let mut relative: PathBuf = entered.iter().map(|(name, _)| name).collect();
        let stat = match leaf {
            Some((name, st)) => {
                relative.push(name);
                st
            }
            None => {
                let here = entered
                    .last()
                    .map_or(self.dir.as_fd(), |(_, fd)| fd.as_fd());
                stat_fd(here).map_err(map_io)?
            }
        };
        Ok(Walk::Done(Resolved { relative, stat }))
    }
}

/// Where [`Root::resolve`] ends: a node under the root, or the point where the path left it.
pub(crate) enum Walk {
    Done(Resolved),
    Left(Leaving),
}

/// A path that left a root: the absolute, canonical place it reached (the root's parent for a
/// `..`, `/` for an absolute link target), the names still to resolve from there, and the links
/// followed so far. Nothing outside the root was looked at to get here.
pub(crate) struct Leaving {
    pub(crate) at: PathBuf,
    pub(crate) pending: VecDeque<OsString>,
    pub(crate) hops: usize,
}

/// What [`Root::resolve`] ends on.
pub(crate) struct Resolved {
    relative: PathBuf,
    stat: Stat,
}

/// Check an untrusted path before any system call: not empty, no NUL byte, at most
/// [`MAX_PATH_BYTES`], no name over [`MAX_NAME_BYTES`]. Returns whether it ends with `/` (a
/// directory is required).
pub(crate) fn check_input(untrusted: &OsStr) -> Result<bool, Rejection> {
    let bytes = untrusted.as_bytes();
    if bytes.is_empty() {
        return Err(Rejection::InvalidPath("empty path".into()));
    }
    if bytes.contains(&0) {
        return Err(Rejection::InvalidPath("path contains a NUL byte".into()));
    }
    if bytes.len() > MAX_PATH_BYTES {
        return Err(Rejection::InvalidPath(format!(
            "path is longer than {MAX_PATH_BYTES} bytes"
        )));
    }
    if bytes
        .split(|&b| b == b'/')
        .any(|name| name.len() > MAX_NAME_BYTES)
    {
        return Err(Rejection::InvalidPath(format!(
            "a name in the path is longer than {MAX_NAME_BYTES} bytes"
        )));
    }
    Ok(bytes.ends_with(b"/"))
}

/// Put the components of `p` at the front of the queue, in order. `.` and the root are
/// dropped; `..` is kept for the resolver.
pub(crate) fn push_front_components(queue: &mut VecDeque<OsString>, p: &Path) {
    let names: Vec<OsString> = p
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect();
    for n in names.into_iter().rev() {
        queue.push_front(n);
    }
}

/// Map a filesystem error met *inside* the root to a rejection.
fn map_io(e: io::Error) -> Rejection {
    match e.raw_os_error() {
        Some(libc::ENAMETOOLONG) => Rejection::InvalidPath("path is too long".into()),
        Some(libc::ELOOP) => {
            Rejection::InvalidPath("too many levels of symbolic links (a loop?)".into())
        }
        Some(libc::ENOTDIR) => Rejection::NotFound,
        // ENOENT, and EACCES: an inaccessible entry is reported like a missing one.
        _ => Rejection::NotFound,
    }
}

/// The path a JSON argument names: a string; anything else is `InvalidPath`.
pub(crate) fn json_path(value: &serde_json::Value) -> Result<&OsStr, Rejection> {
    match value {
        serde_json::Value::String(s) => Ok(OsStr::new(s)),
        other => Err(Rejection::InvalidPath(format!(
            "expected a string path, got {}",
            json_type(other)
        ))),
    }
}

fn json_type(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
