//! Source stage: which paths a run considers, either by walking the repo or from an explicit
//! list (the CLI's `--stdin`).
//!
//! The walk uses the `ignore` crate and honours only ignore files *inside* the repo:
//! `.gitignore` (nested, with negation, whether or not `.git` exists), `.ignore`, and
//! `.git/info/exclude` when `.git` is a real directory at the repo root (read beneath the repo,
//! never through a link). Parent directories, the global git excludes file and `$HOME` are
//! never consulted, so the result does not depend on who runs it or where. `.git` itself is
//! never emitted. Links are not followed here: they come out as [`EntryKind::Symlink`] and the
//! read stage decides, with the kernel, whether a link stays inside the repo.

use crate::extraction::{SkipReason, Skipped};
use crate::filter::Filter;
use crate::render::display_path;
use gnaw_sandbox::{BeneathDir, Rejection, Root};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{WalkBuilder, WalkState};
use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Component, Path};
use std::sync::{Arc, Mutex};

/// A path the read stage will look at.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Relative to the repo, `/`-separated, raw bytes.
    pub rel: Vec<u8>,
    pub kind: EntryKind,
    /// Device and inode seen by the walk's `lstat`; the open must see the same.
    pub dev: u64,
    pub ino: u64,
    /// Size seen by the walk: schedules the largest files first, and keys the warm cache.
    pub size: u64,
    /// Modification and status-change times seen by the walk, in nanoseconds (cache key).
    pub mtime_ns: i128,
    pub ctime_ns: i128,
}

/// The walk's view of what a path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Symlink,
    Other(&'static str),
}

/// The walk's settings.
pub struct WalkOptions<'a> {
    pub hidden: bool,
    pub no_ignore: bool,
    pub filter: &'a Arc<Filter>,
    pub threads: usize,
}

/// What the source stage found.
pub struct Sourced {
    /// Sorted bytewise by path, without duplicates.
    pub candidates: Vec<Candidate>,
    /// Paths the walk itself could not use (unreadable directories and the like).
    pub skipped: Vec<Skipped>,
}

/// Walk the repo at `root` (canonical), reading ignore files from inside it only.
pub fn walk(root: &Path, dir: &BeneathDir, opts: &WalkOptions<'_>) -> Sourced {
    let exclude_file = if opts.no_ignore {
        None
    } else {
        git_info_exclude(root, dir)
    };
    let mut builder = WalkBuilder::new(root);
    builder
        .standard_filters(false)
        .hidden(!opts.hidden)
        .ignore(!opts.no_ignore)
        .git_ignore(!opts.no_ignore)
        .git_global(false)
        .git_exclude(false)
        .parents(false)
        .require_git(false)
        .follow_links(false)
        .threads(opts.threads.max(1));
    {
        let root = root.to_path_buf();
        let filter = Arc::clone(opts.filter);
        let exclude_file = exclude_file.clone();
        builder.filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            if entry.file_name() == ".git" {
                return false;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            let Ok(rel) = entry.path().strip_prefix(&root) else {
                return false;
            };
            if let Some(gi) = &exclude_file
                && gi.matched_path_or_any_parents(rel, is_dir).is_ignore()
            {
                return false;
            }
            !(is_dir && filter.prunes_dir(rel.as_os_str().as_bytes()))
        });
    }
    let found = Mutex::new(Vec::new());
    let skipped = Mutex::new(Vec::new());
    builder.build_parallel().run(|| {
        let found = &found;
        let skipped = &skipped;
        let filter = opts.filter;
        Box::new(move |result| {
            match result {
                Ok(entry) => {
                    if entry.depth() == 0 {
                        return WalkState::Continue;
                    }
                    let Ok(rel) = entry.path().strip_prefix(root) else {
                        return WalkState::Continue;
                    };
                    let rel = rel.as_os_str().as_bytes().to_vec();
                    let Some(ft) = entry.file_type() else {
                        return WalkState::Continue;
                    };
                    if ft.is_dir() || !filter.keeps(&rel) {
                        return WalkState::Continue;
                    }
                    match entry.metadata() {
                        Ok(meta) => {
                            let c = candidate(rel, &meta);
                            lock(found).push(c);
                        }
                        Err(e) => lock(skipped).push(Skipped {
                            path: display_path(&rel),
                            reason: SkipReason::Unreadable {
                                error: io_message(&e.to_string()),
                            },
                        }),
                    }
                }
                Err(err) => {
                    let (path, msg) = walk_error(root, &err);
                    lock(skipped).push(Skipped {
                        path,
                        reason: SkipReason::Unreadable { error: msg },
                    });
                }
            }
            WalkState::Continue
        })
    });
    let mut candidates = found.into_inner().unwrap_or_else(|p| p.into_inner());
    candidates.sort_by(|a, b| a.rel.cmp(&b.rel));
    let mut skipped = skipped.into_inner().unwrap_or_else(|p| p.into_inner());
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Sourced {
        candidates,
        skipped,
    }
}

/// Resolve an explicit path list against the repo. Every path is canonicalized and proven to
/// lie inside the repo by comparing components; the first one that does not rejects the whole
/// list with `Err((path, why))`. Paths inside `.git` are skipped with a reason, never read.
pub fn from_list(
    repo: &Root,
    paths: &[Vec<u8>],
    filter: &Filter,
) -> Result<Sourced, (String, String)> {
    let mut candidates = Vec::new();
    let mut skipped = Vec::new();
    for raw in paths {
        let shown = display_path(raw);
        let contained = match repo.contain(OsStr::from_bytes(raw)) {
            Ok(c) => c,
            Err(Rejection::NotFound) if lexically_inside(repo.path(), raw) => {
                skipped.push(Skipped {
                    path: shown,
                    reason: SkipReason::Unreadable {
                        error: "no such file".into(),
                    },
                });
                continue;
            }
            Err(Rejection::NotFound) => {
                return Err((
                    shown,
                    "it does not exist and is not inside the repository".into(),
                ));
            }
            Err(r) => return Err((shown, r.to_string())),
        };
        let rel = contained.relative().as_os_str().as_bytes().to_vec();
        if rel.is_empty() {
            return Err((
                shown,
                "it is the repository itself, not a file in it".into(),
            ));
        }
        if rel.split(|&b| b == b'/').any(|part| part == b".git") {
            skipped.push(Skipped {
                path: display_path(&rel),
                reason: SkipReason::Sensitive {
                    what: "inside .git",
                },
            });
            continue;
        }
        if !filter.keeps(&rel) {
            continue;
        }
        match std::fs::symlink_metadata(contained.path()) {
            Ok(meta) if meta.is_dir() => skipped.push(Skipped {
                path: display_path(&rel),
                reason: SkipReason::NotRegular { kind: "directory" },
            }),
            Ok(meta) => candidates.push(candidate(rel, &meta)),
            Err(e) => skipped.push(Skipped {
                path: display_path(&rel),
                reason: SkipReason::Unreadable {
                    error: io_message(&e.to_string()),
                },
            }),
        }
    }
    candidates.sort_by(|a, b| a.rel.cmp(&b.rel));
    candidates.dedup_by(|a, b| a.rel == b.rel);
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    skipped.dedup();
    Ok(Sourced {
        candidates,
        skipped,
    })
}

/// Split a stdin buffer into paths: on NUL when `nul` is set, else on newlines (a trailing
/// `\r` is kept: it is a legal byte of a Unix file name). Empty entries are dropped.
pub fn split_list(buf: &[u8], nul: bool) -> Vec<Vec<u8>> {
    let sep = if nul { 0 } else { b'\n' };
    buf.split(|&b| b == sep)
        .filter(|p| !p.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// For a path that does not exist: whether it would be inside the repo without resolving any
/// link (no `..` anywhere, and an absolute path must start with the repo's components).
fn lexically_inside(repo: &Path, raw: &[u8]) -> bool {
    let p = Path::new(OsStr::from_bytes(raw));
    let rest = if p.is_absolute() {
        match p.strip_prefix(repo) {
            Ok(rest) => rest,
            Err(_) => return false,
        }
    } else {
        p
    };
    rest.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

fn candidate(rel: Vec<u8>, meta: &std::fs::Metadata) -> Candidate {
    let ns = |secs: i64, nsec: i64| i128::from(secs) * 1_000_000_000 + i128::from(nsec);
    Candidate {
        rel,
        kind: kind_of(&meta.file_type()),
        dev: meta.dev(),
        ino: meta.ino(),
        size: meta.size(),
        mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
        ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
    }
}

fn kind_of(ft: &std::fs::FileType) -> EntryKind {
    if ft.is_file() {
        EntryKind::File
    } else if ft.is_symlink() {
        EntryKind::Symlink
    } else if ft.is_fifo() {
        EntryKind::Other("fifo")
    } else if ft.is_socket() {
        EntryKind::Other("socket")
    } else if ft.is_char_device() {
        EntryKind::Other("character device")
    } else if ft.is_block_device() {
        EntryKind::Other("block device")
    } else {
        EntryKind::Other("unknown type")
    }
}

/// `.git/info/exclude`, when `.git` at the repo root is a real directory. Read beneath the repo
/// without following links, bounded, so no file outside the repo is ever opened for it.
fn git_info_exclude(root: &Path, dir: &BeneathDir) -> Option<Arc<Gitignore>> {
    let git = std::fs::symlink_metadata(root.join(".git")).ok()?;
    if !git.is_dir() {
        return None;
    }
    let file = dir.open_file(Path::new(".git/info/exclude"), false).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(1 << 20).read_to_string(&mut text).ok()?;
    let mut b = GitignoreBuilder::new(root);
    for line in text.lines() {
        // A bad line is ignored, as git does.
        let _ = b.add_line(None, line);
    }
    b.build().ok().map(Arc::new)
}

fn walk_error(root: &Path, err: &ignore::Error) -> (String, String) {
    match err {
        ignore::Error::WithPath { path, err } => {
            let rel = path.strip_prefix(root).unwrap_or(path);
            (
                display_path(rel.as_os_str().as_bytes()),
                io_message(&err.to_string()),
            )
        }
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error(root, err)
        }
        other => (String::new(), io_message(&other.to_string())),
    }
}

/// Error text without any absolute path in it (the caller shows the relative path).
fn io_message(s: &str) -> String {
    s.split(" (os error").next().unwrap_or(s).to_string()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
