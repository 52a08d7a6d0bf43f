//! Source stage: which paths a run considers, either by walking the repo or from an explicit
//! list (the CLI's `--stdin`).
//!
//! The walk goes through directory handles, never through path strings: each directory is listed
//! through its own fd ([`BeneathDir::entries`]) and each subdirectory is opened by name from its
//! parent's fd without following links ([`BeneathDir::child_dir`]). A directory swapped for a
//! symlink mid-walk is therefore never followed out of the repo, and no name from outside is ever
//! listed. Links are not followed here: they come out as [`EntryKind::Symlink`] and the read stage
//! decides, with the kernel, whether a link stays inside the repo.
//!
//! Ignore files are honoured only from *inside* the repo, with the `ignore` crate's gitignore
//! matcher and its precedence: `.ignore` over `.gitignore` over `.git/info/exclude`, deeper
//! directories over shallower ones, and a directory holding `.git` (a nested repository) is not
//! subject to the `.gitignore` files above it. `.gitignore` counts whether or not `.git` exists;
//! `.git/info/exclude` only when `.git` at the repo root is a real directory. Parent
//! directories, the global git excludes file and `$HOME` are never consulted, so the result does
//! not depend on who runs it or where. Ignore files are opened through the directory's fd
//! without following links (as git does), non-blocking, and only regular files of at most
//! [`MAX_IGNORE_FILE`] bytes are read: a FIFO or a link to `/dev/zero` named `.gitignore` neither
//! hangs nor exhausts memory. `.git` itself is never emitted.

use crate::bounded::{os_message, read_capped};
use crate::par::{into_inner, lock};
use crate::stages::filter::Filter;
use crate::vocab::{Candidate, EntryKind, SkipReason, Skipped, display_path};
use gnaw_sandbox::beneath::{FileKind, Stat};
use gnaw_sandbox::{BeneathDir, Rejection, Root};
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Largest ignore file honoured, in bytes. A larger one is reported and not honoured.
pub const MAX_IGNORE_FILE: u64 = 16 << 20;

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

/// The ignore matchers of one directory, linked to those of the directories above it.
struct Level {
    parent: Option<Arc<Level>>,
    /// `.ignore` in this directory.
    ignore: Option<Gitignore>,
    /// `.gitignore` in this directory.
    git: Option<Gitignore>,
    /// `.git/info/exclude` (only on the level above the repo root).
    exclude: Option<Gitignore>,
    /// This directory holds `.git`: the `.gitignore` files above it do not apply below it.
    has_git: bool,
}

impl Level {
    /// Whether `path` (the virtual absolute path, see [`virtual_path`]) is ignored, with the
    /// precedence of the `ignore` crate: any `.ignore` match (deepest first) wins, then any
    /// `.gitignore` match, then `.git/info/exclude`.
    fn ignored(self: &Arc<Level>, path: &Path, is_dir: bool) -> bool {
        let (mut m_ignore, mut m_git, mut m_exclude) = (Match::None, Match::None, Match::None);
        let mut saw_git = false;
        let mut level = Some(self);
        while let Some(l) = level {
            if m_ignore.is_none()
                && let Some(gi) = &l.ignore
            {
                m_ignore = gi.matched(path, is_dir).map(|_| ());
            }
            if !saw_git {
                if m_git.is_none()
                    && let Some(gi) = &l.git
                {
                    m_git = gi.matched(path, is_dir).map(|_| ());
                }
                if m_exclude.is_none()
                    && let Some(gi) = &l.exclude
                {
                    m_exclude = gi.matched(path, is_dir).map(|_| ());
                }
            }
            saw_git = saw_git || l.has_git;
            level = l.parent.as_ref();
        }
        let decided = if !m_ignore.is_none() {
            m_ignore
        } else if !m_git.is_none() {
            m_git
        } else {
            m_exclude
        };
        decided.is_ignore()
    }
}

/// One directory to list.
struct Job {
    dir: BeneathDir,
    /// Relative to the repo; empty for the repo itself.
    rel: Vec<u8>,
    level: Option<Arc<Level>>,
}

/// Walk the repo through its directory handle `dir`, reading ignore files from inside it only.
pub fn walk(dir: &BeneathDir, opts: &WalkOptions<'_>) -> Sourced {
    let found = Mutex::new(Vec::new());
    let skipped = Mutex::new(Vec::new());
    let root = match dir.open_dir(Path::new("")) {
        Ok(d) => d,
        Err(e) => {
            return Sourced {
                candidates: Vec::new(),
                skipped: vec![Skipped {
                    path: ".".into(),
                    reason: SkipReason::Unreadable {
                        error: os_message(&e),
                    },
                }],
            };
        }
    };
    let exclude = if opts.no_ignore {
        None
    } else {
        git_info_exclude(&root, &skipped)
    };
    let first = Job {
        dir: root,
        rel: Vec::new(),
        level: exclude.map(|gi| {
            Arc::new(Level {
                parent: None,
                ignore: None,
                git: None,
                exclude: Some(gi),
                has_git: false,
            })
        }),
    };
    crate::par::drain(vec![first], opts.threads.max(1), |job, more| {
        list(job, opts, &found, &skipped, more);
    });
    let mut candidates = into_inner(found);
    candidates.sort_by(|a, b| a.rel.cmp(&b.rel));
    let mut skipped = into_inner(skipped);
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Sourced {
        candidates,
        skipped,
    }
}

/// List one directory: honour its ignore files, emit its files, queue its subdirectories.
fn list(
    job: Job,
    opts: &WalkOptions<'_>,
    found: &Mutex<Vec<Candidate>>,
    skipped: &Mutex<Vec<Skipped>>,
    more: &mut Vec<Job>,
) {
    let unreadable = |rel: &[u8], error: String| {
        lock(skipped).push(Skipped {
            path: if rel.is_empty() {
                ".".into()
            } else {
                display_path(rel)
            },
            reason: SkipReason::Unreadable { error },
        });
    };
    let changed = |rel: &[u8]| {
        lock(skipped).push(Skipped {
            path: display_path(rel),
            reason: SkipReason::Changed,
        });
    };
    let entries = match job.dir.entries() {
        Ok(entries) => entries,
        Err(e) => return unreadable(&job.rel, os_message(&e)),
    };
    let mut level = job.level;
    if !opts.no_ignore {
        let has = |name: &str| entries.iter().any(|e| e.name == name);
        let ignore = if has(".ignore") {
            ignore_file(&job.dir, &job.rel, ".ignore", opts.hidden, skipped)
        } else {
            None
        };
        let git = if has(".gitignore") {
            ignore_file(&job.dir, &job.rel, ".gitignore", opts.hidden, skipped)
        } else {
            None
        };
        let has_git = !job.rel.is_empty() && has(".git");
        if ignore.is_some() || git.is_some() || has_git {
            level = Some(Arc::new(Level {
                parent: level,
                ignore,
                git,
                exclude: None,
                has_git,
            }));
        }
    }
    let mut files = Vec::new();
    for entry in entries {
        let name = entry.name.as_bytes();
        if name == b".git" || (!opts.hidden && name.starts_with(b".")) {
            continue;
        }
        let rel = join(&job.rel, name);
        // The listing's type when it has one; an lstat through the directory fd otherwise.
        let mut stat = None;
        let kind = match entry.kind {
            Some(kind) => kind,
            None => match job.dir.stat_child(&entry.name) {
                Ok(st) => stat.insert(st).kind,
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => continue,
                Err(e) => {
                    unreadable(&rel, os_message(&e));
                    continue;
                }
            },
        };
        let is_dir = kind == FileKind::Dir;
        if let Some(level) = &level
            && level.ignored(&virtual_path(&rel), is_dir)
        {
            continue;
        }
        if !is_dir {
            if !opts.filter.keeps(&rel) {
                continue;
            }
            let stat = match stat {
                Some(st) => st,
                None => match job.dir.stat_child(&entry.name) {
                    Ok(st) => st,
                    // Gone since the listing.
                    Err(e) if e.raw_os_error() == Some(libc::ENOENT) => continue,
                    Err(e) => {
                        unreadable(&rel, os_message(&e));
                        continue;
                    }
                },
            };
            if stat.kind == FileKind::Dir {
                // Replaced by a directory since the listing: its contents are not this run's.
                changed(&rel);
            } else {
                files.push(candidate(rel, &stat));
            }
            continue;
        }
        if opts.filter.prunes_dir(&rel) {
            continue;
        }
        // Opened by name from this directory's fd, O_NOFOLLOW | O_DIRECTORY: a directory
        // swapped for a link or a file since the listing is refused, never followed.
        match job.dir.child_dir(&entry.name) {
            Ok(dir) => more.push(Job {
                dir,
                rel,
                level: level.clone(),
            }),
            Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                changed(&rel);
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {}
            Err(e) => unreadable(&rel, os_message(&e)),
        }
    }
    if !files.is_empty() {
        lock(found).append(&mut files);
    }
}

/// `dir/name` for repo-relative byte paths.
fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    if dir.is_empty() {
        return name.to_vec();
    }
    let mut rel = Vec::with_capacity(dir.len() + 1 + name.len());
    rel.extend_from_slice(dir);
    rel.push(b'/');
    rel.extend_from_slice(name);
    rel
}

/// The path the gitignore matchers see: the repo-relative path under a virtual `/`, so that
/// each matcher (rooted at its own directory the same way) strips its own prefix.
fn virtual_path(rel: &[u8]) -> PathBuf {
    Path::new("/").join(OsStr::from_bytes(rel))
}

/// Read the ignore file `name` of the directory `dir` (at `rel`) and build its matcher. Opened
/// by name from the directory's fd, without following a link, non-blocking; only a regular file
/// of at most [`MAX_IGNORE_FILE`] bytes is honoured. Anything else is logged, and reported as
/// skipped when it would not otherwise appear (hidden files are left out).
fn ignore_file(
    dir: &BeneathDir,
    rel: &[u8],
    name: &str,
    hidden: bool,
    skipped: &Mutex<Vec<Skipped>>,
) -> Option<Gitignore> {
    let file_rel = join(rel, name.as_bytes());
    let text = match read_bounded(dir, OsStr::new(name)) {
        Ok(Some(text)) => text,
        Ok(None) => return None,
        Err(why) => {
            let shown = display_path(&file_rel);
            log::warn!("{shown} is not honoured as an ignore file: {why}");
            if !hidden {
                lock(skipped).push(Skipped {
                    path: shown,
                    reason: SkipReason::Unreadable {
                        error: format!("not honoured as an ignore file: {why}"),
                    },
                });
            }
            return None;
        }
    };
    let mut b = GitignoreBuilder::new(virtual_path(rel));
    for line in text.lines() {
        // A bad line is ignored, as git does.
        let _ = b.add_line(None, line);
    }
    match b.build() {
        Ok(gi) if !gi.is_empty() => Some(gi),
        Ok(_) => None,
        Err(e) => {
            log::warn!("{} is not honoured: {e}", display_path(&file_rel));
            None
        }
    }
}

/// The text of the regular file `name` in `dir`, read through the directory's fd; `Ok(None)`
/// when it does not exist, `Err(why)` when it is not a usable regular file.
fn read_bounded(dir: &BeneathDir, name: &OsStr) -> Result<Option<String>, String> {
    let file = match dir.child_file(name) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(
                "it is a symbolic link, and links are not followed for ignore files".into(),
            );
        }
        Err(e) => return Err(os_message(&e)),
    };
    let meta = file.metadata().map_err(|e| os_message(&e))?;
    if !meta.is_file() {
        return Err("it is not a regular file".into());
    }
    if meta.len() > MAX_IGNORE_FILE {
        return Err(format!("it is larger than {} MiB", MAX_IGNORE_FILE >> 20));
    }
    let bytes = read_capped(file, MAX_IGNORE_FILE, meta.len())
        .map_err(|e| os_message(&e))?
        .ok_or_else(|| {
            format!(
                "it grew past {} MiB while it was read",
                MAX_IGNORE_FILE >> 20
            )
        })?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
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
        // The proof's own lstat: the path is not looked up again.
        let st = contained.stat();
        if st.kind == FileKind::Dir {
            skipped.push(Skipped {
                path: display_path(&rel),
                reason: SkipReason::NotRegular { kind: "directory" },
            });
        } else {
            candidates.push(candidate(rel, st));
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

fn candidate(rel: Vec<u8>, st: &Stat) -> Candidate {
    Candidate {
        rel,
        kind: kind_of(st.kind),
        dev: st.dev,
        ino: st.ino,
        size: st.size,
        mtime_ns: st.mtime_ns,
        ctime_ns: st.ctime_ns,
    }
}

fn kind_of(kind: FileKind) -> EntryKind {
    match kind {
        FileKind::File => EntryKind::File,
        FileKind::Symlink => EntryKind::Symlink,
        FileKind::Fifo => EntryKind::Other("fifo"),
        FileKind::Socket => EntryKind::Other("socket"),
        FileKind::CharDevice => EntryKind::Other("character device"),
        FileKind::BlockDevice => EntryKind::Other("block device"),
        FileKind::Dir => EntryKind::Other("directory"),
        FileKind::Unknown => EntryKind::Other("unknown type"),
    }
}

/// `.git/info/exclude`, when `.git` at the repo root is a real directory: reached through
/// directory handles without following links, bounded like every ignore file.
fn git_info_exclude(root: &BeneathDir, skipped: &Mutex<Vec<Skipped>>) -> Option<Gitignore> {
    let info = root
        .child_dir(OsStr::new(".git"))
        .and_then(|git| git.child_dir(OsStr::new("info")))
        .ok()?;
    let text = match read_bounded(&info, OsStr::new("exclude")) {
        Ok(text) => text?,
        Err(why) => {
            log::warn!(".git/info/exclude is not honoured: {why}");
            lock(skipped).push(Skipped {
                path: ".git/info/exclude".into(),
                reason: SkipReason::Unreadable {
                    error: format!("not honoured as an ignore file: {why}"),
                },
            });
            return None;
        }
    };
    let mut b = GitignoreBuilder::new("/");
    for line in text.lines() {
        // A bad line is ignored, as git does.
        let _ = b.add_line(None, line);
    }
    b.build().ok().filter(|gi| !gi.is_empty())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are made with std::fs
mod tests {
    use super::*;
    use std::fs;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        dir
    }

    fn walked(dir: &Path, hidden: bool, no_ignore: bool, include: &[&str]) -> Vec<String> {
        let root = Root::new(dir, false).unwrap();
        let beneath = root.as_dir().open().unwrap();
        let include: Vec<String> = include.iter().map(|s| s.to_string()).collect();
        let filter = Arc::new(Filter::new(&include, &[]).unwrap());
        let sourced = walk(
            &beneath,
            &WalkOptions {
                hidden,
                no_ignore,
                filter: &filter,
                threads: 2,
            },
        );
        sourced
            .candidates
            .iter()
            .map(|c| display_path(&c.rel))
            .collect()
    }

    #[test]
    fn the_walk_honours_ignore_files_inside_the_repo_only() {
        let dir = tree(&[
            (".gitignore", "*.log\nbuild/\n"),
            ("a.rs", ""),
            ("debug.log", ""),
            ("build/out.rs", ""),
            (".hidden/x.rs", ""),
            ("sub/.ignore", "keep.log\n"),
            ("sub/keep.log", ""),
            ("nested/.git/HEAD", ""),
            ("nested/z.log", ""),
        ]);
        // A nested repository is not subject to the .gitignore above it.
        assert_eq!(
            walked(dir.path(), false, false, &[]),
            ["a.rs", "nested/z.log"]
        );
        let all = walked(dir.path(), true, false, &[]);
        assert!(all.contains(&".hidden/x.rs".to_string()), "{all:?}");
        assert!(!all.iter().any(|p| p.starts_with("nested/.git")), "{all:?}");
        let everything = walked(dir.path(), false, true, &[]);
        assert!(
            everything.contains(&"debug.log".to_string()),
            "{everything:?}"
        );
        assert!(everything.contains(&"build/out.rs".to_string()));
        assert_eq!(
            walked(dir.path(), false, true, &["build"]),
            ["build/out.rs"]
        );
    }

    #[test]
    fn a_path_list_is_proven_inside_the_repo_and_uses_the_proofs_stat() {
        let dir = tree(&[("a.rs", "hello"), ("sub/b.rs", ""), (".git/config", "")]);
        let root = Root::new(dir.path(), false).unwrap();
        let filter = Filter::new(&[], &[]).unwrap();
        let list = split_list(b"a.rs\nsub\n.git/config\nmissing.rs\n\n", false);
        let sourced = from_list(&root, &list, &filter).unwrap();
        let rels: Vec<String> = sourced
            .candidates
            .iter()
            .map(|c| display_path(&c.rel))
            .collect();
        assert_eq!(rels, ["a.rs"]);
        assert_eq!(sourced.candidates[0].size, 5);
        let skipped: Vec<(&str, &str)> = sourced
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason.kind()))
            .collect();
        assert_eq!(
            skipped,
            [
                (".git/config", "sensitive"),
                ("missing.rs", "unreadable"),
                ("sub", "not_regular")
            ]
        );
        for escaping in ["../x", "/etc/passwd", "sub/../../x"] {
            let err = from_list(&root, &[escaping.as_bytes().to_vec()], &filter);
            assert!(err.is_err(), "{escaping} was accepted");
        }
    }

    #[test]
    fn lists_split_on_newlines_or_nul() {
        assert_eq!(
            split_list(b"a\nb\r\n\n", false),
            [b"a".to_vec(), b"b\r".to_vec()]
        );
        assert_eq!(
            split_list(b"a\nb\0c\0", true),
            [b"a\nb".to_vec(), b"c".to_vec()]
        );
    }
}
