//! What a walk saw, kept so that a later walk with the same options can be answered without
//! listing again: every directory it listed and every ignore file it consulted, each with the
//! `lstat` it had then, and every file it found, with the `lstat` the walk took of it.
//!
//! [`Listing::unchanged`] takes each of those `lstat`s again: each directory is opened beneath
//! the repo without following a link ([`BeneathDir::open_dir`]), and its ignore files and files
//! are stat'ed by name through that fd. When every one is the same (type, device, inode, size,
//! link count, mode, mtime and ctime), the walk would list the same entries, read the same ignore
//! rules and find the same files in the same state, so whatever the caller derived from them
//! still holds. Adding, removing or renaming an entry moves its directory's mtime and ctime; a
//! write moves the file's own; a swap gives another inode or type; a mount gives another device.
//! Nothing outside the repo is ever stat'ed: a directory swapped for a link is refused at its
//! open, and that is a change.
//!
//! A listing is made only when everything in it had settled: last changed more than two seconds
//! before it was taken ([`crate::cache::is_racy_at`]), since a change in the same clock tick as
//! the walk could leave the times as they were. A walk that met an I/O failure or an entry that
//! changed under it gives none either: such an outcome may differ next time with no trace in any
//! `lstat`. Checking costs one open per directory and one `lstat` per file, on the walk's
//! threads; it stops as soon as one differs.

use super::*;
use crate::cache::{is_racy_at, now_ns};

/// What a walk saw of one directory.
pub(super) struct SeenDir {
    /// Relative to the repo; empty for the repo itself.
    pub(super) rel: Vec<u8>,
    /// The directory's own `lstat` (taken through its fd).
    pub(super) seen: Ident,
    /// The ignore files consulted in it (`.ignore`, `.gitignore`), each with its `lstat`.
    pub(super) ignores: Vec<(OsString, Ident)>,
}

/// What one walk saw, to tell whether another walk with the same options would see the same.
pub struct Listing {
    dirs: Vec<Checked>,
    /// `.git`, `.git/info` and `.git/info/exclude` at the repo root, as the walk found them
    /// (`Err`: the error number of the failed `lstat`); empty when ignore files were off.
    git: Vec<(&'static str, Result<Ident, i32>)>,
    /// Directories, ignore files and files in it.
    entries: usize,
}

/// One directory and everything checked through its fd.
struct Checked {
    rel: Vec<u8>,
    seen: Ident,
    /// Ignore files and found files: name and identity.
    names: Vec<(OsString, Ident)>,
}

/// What is compared of an `lstat`: a change to a node's content, entries, links or mode moves
/// its ctime (which no caller can set), a swap gives another inode or type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ident {
    kind: EntryKind,
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl From<&Stat> for Ident {
    fn from(st: &Stat) -> Ident {
        Ident {
            kind: kind_of(st.kind),
            dev: st.dev,
            ino: st.ino,
            size: st.size,
            mtime_ns: st.mtime_ns,
            ctime_ns: st.ctime_ns,
        }
    }
}

impl Ident {
    /// Whether it last changed so recently (before `now`) that a change in the same clock tick
    /// could follow unseen.
    fn racy(&self, now: i128) -> bool {
        is_racy_at(self.mtime_ns.max(self.ctime_ns), now)
    }
}

/// The paths at the repo root whose state decides whether `.git/info/exclude` is honoured.
const GIT_PROBES: [&str; 3] = [".git", ".git/info", ".git/info/exclude"];

impl Listing {
    /// The listing of a walk of `root` that saw `dirs` and found `candidates`, or `None` when
    /// something in it changed too recently to be checked by its times. `git` says whether the
    /// walk consulted `.git/info/exclude`.
    pub(super) fn new(
        root: &BeneathDir,
        dirs: Vec<SeenDir>,
        candidates: &[Candidate],
        git: bool,
    ) -> Option<Listing> {
        let mut checked: Vec<Checked> = dirs
            .into_iter()
            .map(|d| Checked {
                rel: d.rel,
                seen: d.seen,
                names: d.ignores,
            })
            .collect();
        checked.sort_by(|a, b| a.rel.cmp(&b.rel));
        for c in candidates {
            let (parent, name) = match c.rel.iter().rposition(|&b| b == b'/') {
                Some(at) => (&c.rel[..at], &c.rel[at + 1..]),
                None => (&[][..], &c.rel[..]),
            };
            let at = checked
                .binary_search_by(|d| d.rel.as_slice().cmp(parent))
                .ok()?;
            let seen = Ident {
                kind: c.kind,
                dev: c.dev,
                ino: c.ino,
                size: c.size,
                mtime_ns: c.mtime_ns,
                ctime_ns: c.ctime_ns,
            };
            checked[at]
                .names
                .push((OsStr::from_bytes(name).to_os_string(), seen));
        }
        let git: Vec<(&'static str, Result<Ident, i32>)> = if git {
            GIT_PROBES.iter().map(|&p| (p, probe(root, p))).collect()
        } else {
            Vec::new()
        };
        let now = now_ns();
        let racy = checked
            .iter()
            .any(|d| d.seen.racy(now) || d.names.iter().any(|(_, id)| id.racy(now)))
            || git
                .iter()
                .any(|(_, r)| r.as_ref().is_ok_and(|id| id.racy(now)));
        let entries = checked.iter().map(|d| 1 + d.names.len()).sum::<usize>() + git.len();
        (!racy).then_some(Listing {
            dirs: checked,
            git,
            entries,
        })
    }

    /// Directories, ignore files and files it holds: what a check stats.
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// About what it takes in memory, in bytes.
    pub fn bytes(&self) -> usize {
        let stat = std::mem::size_of::<Ident>();
        self.dirs
            .iter()
            .map(|d| {
                d.rel.len()
                    + stat
                    + d.names
                        .iter()
                        .map(|(n, _)| n.len() + stat + 24)
                        .sum::<usize>()
            })
            .sum::<usize>()
            + self.git.len() * stat
    }

    /// Whether a walk of `root` would see exactly what this one saw: every directory, ignore
    /// file and file `lstat`ed again, through directory fds opened beneath `root`, on `threads`
    /// threads. `false` as soon as one differs or cannot be reached; `None` when `stop` said so.
    pub fn unchanged(
        &self,
        root: &BeneathDir,
        threads: usize,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Option<bool> {
        if self.git.iter().any(|(p, was)| probe(root, p) != *was) {
            return Some(false);
        }
        let changed = AtomicBool::new(false);
        let order = crate::par::largest_first(&self.dirs, |d| d.names.len() as u64);
        let stopping = || stop() || changed.load(Ordering::Relaxed);
        crate::par::map(&self.dirs, &order, threads, &stopping, |d| {
            if !d.same(root) {
                changed.store(true, Ordering::Relaxed);
            }
        });
        if changed.into_inner() {
            return Some(false);
        }
        (!stop()).then_some(true)
    }
}

impl Checked {
    /// Whether the directory and everything in it is as it was.
    fn same(&self, root: &BeneathDir) -> bool {
        let dir = match root.open_dir(Path::new(OsStr::from_bytes(&self.rel))) {
            Ok(dir) => dir,
            Err(_) => return false,
        };
        if dir.stat().ok().as_ref().map(Ident::from) != Some(self.seen) {
            return false;
        }
        self.names
            .iter()
            .all(|(name, was)| dir.stat_child(name).ok().as_ref().map(Ident::from) == Some(*was))
    }
}

/// The `lstat` of `rel` beneath `root`, reached without following a link, or its error number.
fn probe(root: &BeneathDir, rel: &str) -> Result<Ident, i32> {
    root.stat_beneath(Path::new(rel))
        .map(|st| Ident::from(&st))
        .map_err(|e| e.raw_os_error().unwrap_or(0))
}
