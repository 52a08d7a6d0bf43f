//! What a walk saw, kept so that a later walk with the same options can be answered without
//! listing again: every directory it listed and every ignore file it consulted, each with the
//! `lstat` it had then, and every file it found, with the `lstat` the walk took of it.
//!
//! [`Listing::check`] takes each of those `lstat`s again: each directory is opened beneath
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
//! threads. It stops as soon as a directory or an ignore file differs (a walk could find other
//! paths); files that changed in place are listed with their new `lstat` ([`Check::Files`]), so
//! the caller can do its per-file step again for them alone, and [`Listing::updated`] gives the
//! listing of the new state.

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
#[derive(Clone)]
pub struct Listing {
    dirs: Vec<Checked>,
    /// `.git`, `.git/info` and `.git/info/exclude` at the repo root, as the walk found them
    /// (`Err`: the error number of the failed `lstat`); empty when ignore files were off.
    git: Vec<(&'static str, Result<Ident, i32>)>,
    /// Directories, ignore files and files in it.
    entries: usize,
}

/// One directory and everything checked through its fd.
#[derive(Clone)]
struct Checked {
    rel: Vec<u8>,
    seen: Ident,
    /// Its ignore files, then its files: name and identity.
    names: Vec<(OsString, Ident)>,
    /// How many of `names` are ignore files.
    ignores: usize,
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

impl From<&Candidate> for Ident {
    /// What the walk's `lstat` of a found file said.
    fn from(c: &Candidate) -> Ident {
        Ident {
            kind: c.kind,
            dev: c.dev,
            ino: c.ino,
            size: c.size,
            mtime_ns: c.mtime_ns,
            ctime_ns: c.ctime_ns,
        }
    }
}

impl From<&Stat> for Ident {
    fn from(st: &Stat) -> Ident {
        Ident::from(&candidate(Vec::new(), st))
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
                ignores: d.ignores.len(),
                names: d.ignores,
            })
            .collect();
        checked.sort_by(|a, b| a.rel.cmp(&b.rel));
        for c in candidates {
            let (parent, name) = split_parent(&c.rel);
            let at = checked
                .binary_search_by(|d| d.rel.as_slice().cmp(parent))
                .ok()?;
            let seen = Ident::from(c);
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

    /// What a walk of `root` would see against what this one saw: every directory, ignore file
    /// and file `lstat`ed again, through directory fds opened beneath `root`, on `threads`
    /// threads. [`Check::Changed`] as soon as a directory, an ignore file or `.git/info/exclude`
    /// differs or cannot be reached, a file is gone, or more than [`MAX_FILES_CHANGED`] files
    /// changed; `None` when `stop` said so.
    pub fn check(
        &self,
        root: &BeneathDir,
        threads: usize,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Option<Check> {
        if self.git.iter().any(|(p, was)| probe(root, p) != *was) {
            return Some(Check::Changed);
        }
        let changed = AtomicBool::new(false);
        let order = crate::par::largest_first(&self.dirs, |d| d.names.len() as u64);
        let stopping = || stop() || changed.load(Ordering::Relaxed);
        let found = crate::par::map(&self.dirs, &order, threads, &stopping, |d| {
            let files = d.check(root);
            if files.is_none() {
                changed.store(true, Ordering::Relaxed);
            }
            files
        });
        if changed.into_inner() {
            return Some(Check::Changed);
        }
        let found = found.filter(|_| !stop())?;
        let mut files = Vec::new();
        for (d, changed) in self.dirs.iter().zip(found) {
            for (at, stat) in changed.unwrap_or_default() {
                let name = d.names[at].0.as_bytes();
                let rel = if d.rel.is_empty() {
                    name.to_vec()
                } else {
                    [&d.rel[..], b"/", name].concat()
                };
                files.push((rel, stat));
            }
        }
        Some(match files.len() {
            0 => Check::Unchanged,
            n if n > MAX_FILES_CHANGED => Check::Changed,
            _ => {
                files.sort_by(|a, b| a.0.cmp(&b.0));
                Check::Files(files)
            }
        })
    }

    /// This listing with the files `files` (each with its new `lstat`, as [`Check::Files`]
    /// gives them) as they are now, or `None` when one of them changed too recently to be
    /// checked by its times.
    pub fn updated(&self, files: &[(Vec<u8>, Stat)]) -> Option<Listing> {
        let now = now_ns();
        let mut listing = self.clone();
        for (rel, st) in files {
            let seen = Ident::from(st);
            if seen.racy(now) {
                return None;
            }
            let (parent, name) = split_parent(rel);
            let d = listing
                .dirs
                .binary_search_by(|d| d.rel.as_slice().cmp(parent))
                .ok()?;
            let dir = &mut listing.dirs[d];
            let at = dir.names[dir.ignores..]
                .iter()
                .position(|(n, _)| n.as_bytes() == name)?;
            dir.names[dir.ignores + at].1 = seen;
        }
        Some(listing)
    }
}

/// What a check of a [`Listing`] found.
#[derive(Debug)]
pub enum Check {
    /// Everything is as the walk saw it.
    Unchanged,
    /// Only these files changed, each still in its directory (relative path and new `lstat`,
    /// sorted by path): every directory and ignore file is as it was, so a walk would find the
    /// same paths; each of these needs its per-file step again.
    Files(Vec<(Vec<u8>, Stat)>),
    /// A directory, an ignore file or `.git/info/exclude` changed, a file is gone, or many
    /// files changed: walk again.
    Changed,
}

/// The most changed files a [`Check::Files`] lists; past it a walk costs about the same.
pub const MAX_FILES_CHANGED: usize = 256;

/// The directory part of `rel` (empty at the repo's top) and its last name.
fn split_parent(rel: &[u8]) -> (&[u8], &[u8]) {
    match rel.iter().rposition(|&b| b == b'/') {
        Some(at) => (&rel[..at], &rel[at + 1..]),
        None => (&[][..], rel),
    }
}

impl Checked {
    /// The files of this directory that changed (their positions in `names` and new
    /// `lstat`s), or `None` when the directory itself or one of its ignore files changed, it
    /// cannot be reached, or a file is gone or is no longer what it was.
    fn check(&self, root: &BeneathDir) -> Option<Vec<(usize, Stat)>> {
        let dir = root
            .open_dir(Path::new(OsStr::from_bytes(&self.rel)))
            .ok()?;
        if dir.stat().ok().as_ref().map(Ident::from) != Some(self.seen) {
            return None;
        }
        let mut changed = Vec::new();
        for (at, (name, was)) in self.names.iter().enumerate() {
            let now = dir.stat_child(name).ok()?;
            let seen = Ident::from(&now);
            if seen == *was {
                continue;
            }
            // An ignore file changed, or a file is now something else.
            if at < self.ignores || seen.kind != was.kind {
                return None;
            }
            changed.push((at, now));
        }
        Some(changed)
    }
}

/// The `lstat` of `rel` beneath `root`, reached without following a link, or its error number.
fn probe(root: &BeneathDir, rel: &str) -> Result<Ident, i32> {
    root.stat_beneath(Path::new(rel))
        .map(|st| Ident::from(&st))
        .map_err(|e| e.raw_os_error().unwrap_or(0))
}
