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
//! Bounds (see [`crate::limits`]): a subdirectory is opened only when its turn comes, so the
//! directories waiting to be listed hold no fd of their own; a parent's fd is kept for its
//! waiting subdirectories within a budget of [`MAX_WALK_DIR_FDS`], past which a subdirectory is
//! reached by its names from the nearest kept ancestor, one `O_NOFOLLOW` step at a time.
//! Running out of file descriptors ends the walk with an error rather than losing files. The
//! walk does not descend past [`WalkOptions::max_depth`] levels, nor into a directory whose
//! entries' relative paths could not fit [`PATH_MAX`]; each such directory is reported. Every
//! ignore-file line is checked against the glob limits before it is compiled.
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
use crate::error::Error;
use crate::limits::{MAX_IGNORE_PATTERN_BYTES, MAX_WALK_DIR_FDS, PATH_MAX, check_glob};
use crate::par::{into_inner, lock};
use crate::stages::filter::Filter;
use crate::vocab::{Candidate, EntryKind, SkipReason, Skipped, display_path};
use gnaw_sandbox::beneath::{FileKind, Stat};
use gnaw_sandbox::{BeneathDir, Rejection, Root};
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Largest ignore file honoured, in bytes. A larger one is reported and not honoured.
pub const MAX_IGNORE_FILE: u64 = 16 << 20;

/// The walk's settings.
pub struct WalkOptions<'a> {
    pub hidden: bool,
    pub no_ignore: bool,
    pub filter: &'a Arc<Filter>,
    pub threads: usize,
    /// Directories more than this many levels below the repo are not walked, and each one is
    /// reported ([`crate::limits::DEFAULT_MAX_DEPTH`] unless the operator says otherwise).
    pub max_depth: usize,
    /// Walk only this directory's subtree (repo-relative, no trailing `/`; empty for the whole
    /// repo). Its ancestors are still listed, for their ignore files, but only the directories
    /// on the way down are entered, and only files beneath it are kept.
    pub under: &'a [u8],
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

impl Drop for Level {
    /// Unlink the chain of parents one level at a time: the default drop recurses once per
    /// level, and a chain thousands of levels deep (a directory holding `.git` at each level)
    /// overflowed the stack. A parent another directory still uses is left to it.
    fn drop(&mut self) {
        let mut next = self.parent.take();
        while let Some(level) = next {
            next = Arc::into_inner(level).and_then(|mut l| l.parent.take());
        }
    }
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

/// A directory fd that subdirectories not yet listed are reached from. The repo's own is held
/// for the whole walk; any other is kept only while a job still needs it, and counts against
/// [`MAX_WALK_DIR_FDS`] until then.
struct Handle<'w> {
    dir: BeneathDir,
    kept: Option<&'w AtomicUsize>,
}

impl Drop for Handle<'_> {
    fn drop(&mut self) {
        if let Some(kept) = self.kept {
            kept.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// One directory to list. It is opened only when the job is taken, by name from `base`:
/// a queued job holds no fd of its own, so the number of open fds does not grow with the
/// number of directories waiting.
struct Job<'w> {
    /// The nearest directory above this one that is still open (the repo, for the repo).
    base: Arc<Handle<'w>>,
    /// The names from `base` down to this directory; empty for the repo itself.
    names: Vec<OsString>,
    /// Relative to the repo; empty for the repo itself.
    rel: Vec<u8>,
    /// Levels below the repo (0 for the repo).
    depth: usize,
    level: Option<Arc<Level>>,
}

/// What every worker of one walk shares.
struct Walk<'a> {
    opts: &'a WalkOptions<'a>,
    found: Mutex<Vec<Candidate>>,
    skipped: Mutex<Vec<Skipped>>,
    /// Directory fds kept open for queued jobs (see [`Handle`]).
    kept: AtomicUsize,
    /// The walk cannot go on (out of file descriptors): the first such error.
    fatal: Mutex<Option<Error>>,
    failed: AtomicBool,
    /// Bytes of ignore patterns compiled so far ([`MAX_IGNORE_PATTERN_BYTES`]).
    ignore_bytes: AtomicUsize,
}

impl Walk<'_> {
    fn skip(&self, rel: &[u8], reason: SkipReason) {
        let path = if rel.is_empty() {
            ".".into()
        } else {
            display_path(rel)
        };
        lock(&self.skipped).push(Skipped { path, reason });
    }

    fn unreadable(&self, rel: &[u8], error: String) {
        self.skip(rel, SkipReason::Unreadable { error });
    }

    /// An I/O failure at `rel`: the end of the walk when the process or the system is out of
    /// file descriptors (every later open would fail too, and files would go missing without
    /// a word), else `rel` is reported as unreadable.
    fn failed_at(&self, rel: &[u8], e: &io::Error) {
        match out_of_fds(rel, e) {
            Some(err) => {
                lock(&self.fatal).get_or_insert(err);
                self.failed.store(true, Ordering::Relaxed);
            }
            None => self.unreadable(rel, os_message(e)),
        }
    }

    /// Keep one more directory fd open for queued jobs, if the budget allows.
    fn try_keep(&self) -> bool {
        self.kept
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < MAX_WALK_DIR_FDS).then_some(n + 1)
            })
            .is_ok()
    }
}

/// The run's error when `e` says the process (`EMFILE`) or the system (`ENFILE`) has no file
/// descriptor left; `None` for any other failure.
fn out_of_fds(rel: &[u8], e: &io::Error) -> Option<Error> {
    if !matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) {
        return None;
    }
    let at = if rel.is_empty() {
        ".".into()
    } else {
        display_path(rel)
    };
    Some(Error::Io {
        what: format!(
            "ran out of file descriptors at {at}, so files would be missing; raise the \
             open-files limit (ulimit -n) and run again"
        ),
        error: os_message(e),
    })
}

/// The run's error when a file was left out because the process or the system ran out of file
/// descriptors (reported by any stage as unreadable): such a run would be missing files for a
/// reason that has nothing to do with them.
pub fn out_of_fds_error(skipped: &[Skipped]) -> Option<Error> {
    let messages =
        [libc::EMFILE, libc::ENFILE].map(|n| os_message(&io::Error::from_raw_os_error(n)));
    skipped.iter().find_map(|s| match &s.reason {
        SkipReason::Unreadable { error } if messages.contains(error) => out_of_fds(
            s.path.as_bytes(),
            &io::Error::from_raw_os_error(libc::EMFILE),
        ),
        _ => None,
    })
}

/// Walk the repo through its directory handle `dir`, reading ignore files from inside it only.
/// Fails only when the process or the system runs out of file descriptors; everything else
/// that cannot be walked is reported in [`Sourced::skipped`].
pub fn walk(dir: &BeneathDir, opts: &WalkOptions<'_>) -> Result<Sourced, Error> {
    let root = match dir.open_dir(Path::new("")) {
        Ok(d) => d,
        Err(e) => {
            if let Some(err) = out_of_fds(b"", &e) {
                return Err(err);
            }
            return Ok(Sourced {
                candidates: Vec::new(),
                skipped: vec![Skipped {
                    path: ".".into(),
                    reason: SkipReason::Unreadable {
                        error: os_message(&e),
                    },
                }],
            });
        }
    };
    let w = Walk {
        opts,
        found: Mutex::new(Vec::new()),
        skipped: Mutex::new(Vec::new()),
        kept: AtomicUsize::new(0),
        fatal: Mutex::new(None),
        failed: AtomicBool::new(false),
        ignore_bytes: AtomicUsize::new(0),
    };
    let exclude = if opts.no_ignore {
        None
    } else {
        git_info_exclude(&root, &w)
    };
    let first = Job {
        base: Arc::new(Handle {
            dir: root,
            kept: None,
        }),
        names: Vec::new(),
        rel: Vec::new(),
        depth: 0,
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
        list(job, &w, more);
    });
    if let Some(err) = into_inner(w.fatal) {
        return Err(err);
    }
    let mut candidates = into_inner(w.found);
    candidates.sort_by(|a, b| a.rel.cmp(&b.rel));
    let mut skipped = into_inner(w.skipped);
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Sourced {
        candidates,
        skipped,
    })
}

/// Open the directory `names` leads to from `base`, one name at a time, never following a
/// link (each step is [`BeneathDir::child_dir`]).
fn open_along(base: &BeneathDir, names: &[OsString]) -> io::Result<BeneathDir> {
    let mut dir = base.child_dir(&names[0])?;
    for name in &names[1..] {
        dir = dir.child_dir(name)?;
    }
    Ok(dir)
}

/// Why a subdirectory at `depth` below the repo, at `rel`, is not walked, if it is not.
fn not_walked(rel: &[u8], depth: usize, max_depth: usize) -> Option<String> {
    if depth > max_depth {
        return Some(format!(
            "not walked: it is {depth} directories below the repository, past the depth limit \
             (max_depth = {max_depth}; gnaw-mcp: GNAW_MCP_MAX_DEPTH)"
        ));
    }
    // Anything inside would have a relative path of at least `rel/x`: one that long cannot be
    // opened (PATH_MAX counts the terminating NUL).
    if rel.len() + 2 >= PATH_MAX {
        return Some(format!(
            "not walked: paths inside it would be longer than {PATH_MAX} bytes (PATH_MAX), so \
             nothing in it could be opened"
        ));
    }
    None
}

/// List one directory: honour its ignore files, emit its files, queue its subdirectories.
fn list<'w>(job: Job<'w>, w: &'w Walk<'_>, more: &mut Vec<Job<'w>>) {
    if w.failed.load(Ordering::Relaxed) {
        return;
    }
    let opts = w.opts;
    // Opened by name from the nearest open ancestor's fd, O_NOFOLLOW | O_DIRECTORY at each
    // step: a directory swapped for a link or a file since it was listed is refused, never
    // followed.
    let opened = if job.names.is_empty() {
        None
    } else {
        match open_along(&job.base.dir, &job.names) {
            Ok(dir) => Some(dir),
            Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                return w.skip(&job.rel, SkipReason::Changed);
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return,
            Err(e) => return w.failed_at(&job.rel, &e),
        }
    };
    let dir = opened.as_ref().unwrap_or(&job.base.dir);
    let entries = match dir.entries() {
        Ok(entries) => entries,
        Err(e) => return w.failed_at(&job.rel, &e),
    };
    let mut level = job.level;
    if !opts.no_ignore {
        let has = |name: &str| entries.iter().any(|e| e.name == name);
        let ignore = if has(".ignore") {
            ignore_file(dir, &job.rel, ".ignore", w)
        } else {
            None
        };
        let git = if has(".gitignore") {
            ignore_file(dir, &job.rel, ".gitignore", w)
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
    let mut subdirs = Vec::new();
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
            None => match dir.stat_child(&entry.name) {
                Ok(st) => stat.insert(st).kind,
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => continue,
                Err(e) => {
                    w.failed_at(&rel, &e);
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
            if !beneath(&rel, opts.under) || !opts.filter.keeps(&rel) {
                continue;
            }
            let stat = match stat {
                Some(st) => st,
                None => match dir.stat_child(&entry.name) {
                    Ok(st) => st,
                    // Gone since the listing.
                    Err(e) if e.raw_os_error() == Some(libc::ENOENT) => continue,
                    Err(e) => {
                        w.failed_at(&rel, &e);
                        continue;
                    }
                },
            };
            if stat.kind == FileKind::Dir {
                // Replaced by a directory since the listing: its contents are not this run's.
                w.skip(&rel, SkipReason::Changed);
            } else {
                files.push(candidate(rel, &stat));
            }
            continue;
        }
        if opts.filter.prunes_dir(&rel)
            || !(rel == opts.under || beneath(&rel, opts.under) || beneath(opts.under, &rel))
        {
            continue;
        }
        if let Some(why) = not_walked(&rel, job.depth + 1, opts.max_depth) {
            w.unreadable(&rel, why);
            continue;
        }
        subdirs.push((entry.name, rel));
    }
    if !files.is_empty() {
        lock(&w.found).append(&mut files);
    }
    if subdirs.is_empty() {
        return;
    }
    // The subdirectories are reached from this directory's fd while the budget of kept fds
    // allows, else from the nearest open ancestor by their names from it.
    let (base, names) = match opened {
        Some(dir) if w.try_keep() => (
            Arc::new(Handle {
                dir,
                kept: Some(&w.kept),
            }),
            Vec::new(),
        ),
        _ => (job.base, job.names),
    };
    for (name, rel) in subdirs {
        let mut path = Vec::with_capacity(names.len() + 1);
        path.extend_from_slice(&names);
        path.push(name);
        more.push(Job {
            base: Arc::clone(&base),
            names: path,
            rel,
            depth: job.depth + 1,
            level: level.clone(),
        });
    }
}

/// Whether `rel` lies strictly beneath the directory `dir` (everything does when `dir` is empty,
/// the repo itself).
fn beneath(rel: &[u8], dir: &[u8]) -> bool {
    dir.is_empty() || rel.len() > dir.len() && rel.starts_with(dir) && rel[dir.len()] == b'/'
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
fn ignore_file(dir: &BeneathDir, rel: &[u8], name: &str, w: &Walk<'_>) -> Option<Gitignore> {
    let file_rel = join(rel, name.as_bytes());
    let report = !w.opts.hidden;
    let text = match read_bounded(dir, OsStr::new(name)) {
        Ok(Some(text)) => text,
        Ok(None) => return None,
        Err(Unusable::Io(e)) => {
            w.failed_at(&file_rel, &e);
            return None;
        }
        Err(Unusable::Why(why)) => {
            not_honoured(w, &file_rel, &why, report);
            return None;
        }
    };
    matcher(&virtual_path(rel), &text, &file_rel, w, report)
}

/// Log `why` the ignore file at `file_rel` is not honoured, and report it when `report`.
fn not_honoured(w: &Walk<'_>, file_rel: &[u8], why: &str, report: bool) {
    let shown = display_path(file_rel);
    log::warn!("{shown} is not honoured as an ignore file: {why}");
    if report {
        w.unreadable(file_rel, format!("not honoured as an ignore file: {why}"));
    }
}

/// The matcher of an ignore file's `text`, rooted at `root`. Each pattern line is checked
/// against the limits on globs ([`check_glob`]) before it is compiled; a line past them, or
/// one the matcher refuses, is skipped, as git skips a bad line. The skipped lines are logged
/// and, when `report`, reported once for the file (the first one with its reason).
fn matcher(
    root: &Path,
    text: &str,
    file_rel: &[u8],
    w: &Walk<'_>,
    report: bool,
) -> Option<Gitignore> {
    let mut b = GitignoreBuilder::new(root);
    let mut bytes = 0usize;
    let mut bad = 0usize;
    let mut first_bad = None;
    for (n, line) in text.lines().enumerate() {
        // Comments and blank lines are not patterns.
        let pattern = !(line.starts_with('#') || line.trim().is_empty());
        let refused = match check_glob(line) {
            Err(limit) if pattern => Some(limit.to_string()),
            _ => b.add_line(None, line).err().map(|e| e.to_string()),
        };
        if pattern && refused.is_none() {
            bytes += line.len();
            if bytes > MAX_IGNORE_PATTERN_BYTES {
                break;
            }
        }
        if let Some(why) = refused {
            bad += 1;
            first_bad.get_or_insert((n + 1, why));
        }
    }
    // Compiling is what costs: bound the walk's total before it (skipped lines cost nothing).
    let total = w.ignore_bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
    if total > MAX_IGNORE_PATTERN_BYTES {
        let shown = display_path(file_rel);
        lock(&w.fatal).get_or_insert(Error::Limit {
            what: format!(
                "the repository's ignore files hold more than {} KiB of patterns (reached at \
                 {shown}); gnaw stops rather than leave some of them out and serve files they \
                 exclude; shorten the ignore files, or run on a subdirectory",
                MAX_IGNORE_PATTERN_BYTES >> 10
            ),
        });
        w.failed.store(true, Ordering::Relaxed);
        return None;
    }
    if let Some((line, why)) = first_bad {
        let shown = display_path(file_rel);
        let lines = if bad == 1 { "line" } else { "lines" };
        let message =
            format!("{bad} {lines} not honoured as ignore patterns (first, line {line}: {why})");
        log::warn!("{shown}: {message}");
        if report {
            w.unreadable(file_rel, message);
        }
    }
    match b.build() {
        Ok(gi) if !gi.is_empty() => Some(gi),
        Ok(_) => None,
        Err(e) => {
            let why = format!("its patterns together are too complex to compile ({e})");
            not_honoured(w, file_rel, &why, report);
            None
        }
    }
}

/// Why an ignore file is not read.
enum Unusable {
    /// It is not a usable regular file, for this reason.
    Why(String),
    /// The I/O failure (the caller tells running out of fds from the rest).
    Io(io::Error),
}

/// The text of the regular file `name` in `dir`, read through the directory's fd; `Ok(None)`
/// when it does not exist.
fn read_bounded(dir: &BeneathDir, name: &OsStr) -> Result<Option<String>, Unusable> {
    let why = |s: String| Unusable::Why(s);
    let file = match dir.child_file(name) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(why(
                "it is a symbolic link, and links are not followed for ignore files".into(),
            ));
        }
        Err(e) if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) => {
            return Err(Unusable::Io(e));
        }
        Err(e) => return Err(why(os_message(&e))),
    };
    let meta = file.metadata().map_err(|e| why(os_message(&e)))?;
    if !meta.is_file() {
        return Err(why("it is not a regular file".into()));
    }
    if meta.len() > MAX_IGNORE_FILE {
        return Err(why(format!(
            "it is larger than {} MiB",
            MAX_IGNORE_FILE >> 20
        )));
    }
    let bytes = read_capped(file, MAX_IGNORE_FILE, meta.len())
        .map_err(|e| why(os_message(&e)))?
        .ok_or_else(|| {
            why(format!(
                "it grew past {} MiB while it was read",
                MAX_IGNORE_FILE >> 20
            ))
        })?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Resolve an explicit path list against the repo. Every path is canonicalized and proven to
/// lie inside the repo by comparing components; the first one that does not rejects the whole
/// list with `Err((path, why))`. Paths inside `.git` are skipped with a reason, never read.
/// A list git made (`listed_by_git`, for `--changed`) names files of the repository by their
/// own paths: one that resolves outside through a symbolic link is skipped with the reason,
/// as the walk skips such a link, instead of rejecting the list.
pub fn from_list(
    repo: &Root,
    paths: &[Vec<u8>],
    filter: &Filter,
    listed_by_git: bool,
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
            Err(Rejection::OutsideRoot) if listed_by_git && lexically_inside(repo.path(), raw) => {
                skipped.push(Skipped {
                    path: shown,
                    reason: SkipReason::Symlink {
                        detail: "a symbolic link (or inside one) that leads outside the \
                                 repository; not read",
                    },
                });
                continue;
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
fn git_info_exclude(root: &BeneathDir, w: &Walk<'_>) -> Option<Gitignore> {
    const SHOWN: &[u8] = b".git/info/exclude";
    let info = match root
        .child_dir(OsStr::new(".git"))
        .and_then(|git| git.child_dir(OsStr::new("info")))
    {
        Ok(info) => info,
        Err(e) => {
            if let Some(err) = out_of_fds(b".git/info", &e) {
                lock(&w.fatal).get_or_insert(err);
                w.failed.store(true, Ordering::Relaxed);
            }
            return None;
        }
    };
    let text = match read_bounded(&info, OsStr::new("exclude")) {
        Ok(text) => text?,
        Err(Unusable::Io(e)) => {
            w.failed_at(SHOWN, &e);
            return None;
        }
        Err(Unusable::Why(why)) => {
            not_honoured(w, SHOWN, &why, true);
            return None;
        }
    };
    matcher(Path::new("/"), &text, SHOWN, w, true)
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

    #[test]
    fn a_subtree_walk_enters_only_the_way_down_and_keeps_the_ancestors_ignore_rules() {
        let dir = tree(&[
            (".gitignore", "*.log\n"),
            ("top.rs", ""),
            ("a/b/.gitignore", "gen/\n"),
            ("a/b/keep.rs", ""),
            ("a/b/x.log", ""),
            ("a/b/gen/out.rs", ""),
            ("a/b/c/deep.rs", ""),
            ("a/side.rs", ""),
            ("other/o.rs", ""),
        ]);
        // A directory off the way down whose ignore file has a line over the nesting limit:
        // entering it would report that line.
        let nested = format!("{}x{}\n", "{a,".repeat(20), "}".repeat(20));
        fs::write(dir.path().join("other/.gitignore"), &nested).unwrap();
        fs::write(dir.path().join("a/.gitignore"), "side.rs\n").unwrap();
        let root = Root::new(dir.path(), false).unwrap();
        let beneath = root.as_dir().open().unwrap();
        let filter = Arc::new(Filter::new(&[], &[]).unwrap());
        let sourced = walk(
            &beneath,
            &WalkOptions {
                hidden: false,
                no_ignore: false,
                filter: &filter,
                threads: 2,
                max_depth: crate::limits::DEFAULT_MAX_DEPTH,
                under: b"a/b",
            },
        )
        .unwrap();
        let got: Vec<String> = sourced
            .candidates
            .iter()
            .map(|c| String::from_utf8(c.rel.clone()).unwrap())
            .collect();
        assert_eq!(got, ["a/b/c/deep.rs", "a/b/keep.rs"]);
        assert!(sourced.skipped.is_empty(), "{:?}", sourced.skipped);
        // The same tree walked whole does enter `other` (so the check above means something).
        let whole = walk_with(dir.path(), false, &[], crate::limits::DEFAULT_MAX_DEPTH);
        assert_eq!(whole.skipped.len(), 1, "{:?}", whole.skipped);
        assert_eq!(whole.skipped[0].path, "other/.gitignore");
    }

    fn walk_with(dir: &Path, hidden: bool, include: &[&str], max_depth: usize) -> Sourced {
        let root = Root::new(dir, false).unwrap();
        let beneath = root.as_dir().open().unwrap();
        let include: Vec<String> = include.iter().map(|s| s.to_string()).collect();
        let filter = Arc::new(Filter::new(&include, &[]).unwrap());
        walk(
            &beneath,
            &WalkOptions {
                hidden,
                no_ignore: false,
                filter: &filter,
                threads: 2,
                max_depth,
                under: &[],
            },
        )
        .unwrap()
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
                max_depth: crate::limits::DEFAULT_MAX_DEPTH,
                under: &[],
            },
        )
        .unwrap();
        sourced
            .candidates
            .iter()
            .map(|c| display_path(&c.rel))
            .collect()
    }

    fn skips(s: &Sourced) -> Vec<(String, String)> {
        s.skipped
            .iter()
            .map(|k| (k.path.clone(), k.reason.describe()))
            .collect()
    }

    #[test]
    fn a_chain_of_levels_is_dropped_without_recursion() {
        // 200,000 levels: the recursive drop overflowed far smaller stacks than this thread's.
        let mut level = None;
        for _ in 0..200_000 {
            level = Some(Arc::new(Level {
                parent: level,
                ignore: None,
                git: None,
                exclude: None,
                has_git: true,
            }));
        }
        let shared = level.clone();
        std::thread::Builder::new()
            .stack_size(64 << 10)
            .spawn(move || drop(level))
            .unwrap()
            .join()
            .unwrap();
        // A chain still in use elsewhere is left whole.
        let mut n = 0;
        let mut l = shared.as_ref();
        while let Some(x) = l {
            n += 1;
            l = x.parent.as_ref();
        }
        assert_eq!(n, 200_000);
        std::thread::Builder::new()
            .stack_size(64 << 10)
            .spawn(move || drop(shared))
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn the_depth_limit_is_reported_where_it_cuts() {
        let dir = tree(&[("a/b/c/d.txt", ""), ("a/top.txt", ""), ("a/b/mid.txt", "")]);
        let s = walk_with(dir.path(), false, &[], 2);
        let files: Vec<String> = s.candidates.iter().map(|c| display_path(&c.rel)).collect();
        assert_eq!(files, ["a/b/mid.txt", "a/top.txt"]);
        let skipped = skips(&s);
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert_eq!(skipped[0].0, "a/b/c");
        assert!(skipped[0].1.contains("max_depth = 2"), "{skipped:?}");
        // An ignored or excluded directory is not reported.
        let s = walk_with(dir.path(), false, &["a/top.txt"], 2);
        assert_eq!(s.candidates.len(), 1);
        assert_eq!(
            s.skipped.len(),
            1,
            "include does not prune: {:?}",
            skips(&s)
        );
    }

    #[test]
    fn bad_ignore_lines_are_skipped_and_reported_once_per_file() {
        let deep = format!("{}a{}", "{a,".repeat(5000), "}".repeat(5000));
        let dir = tree(&[
            (
                ".gitignore",
                &format!("*.log\n{deep}\n# {deep}\n{{x,y\n{deep}\nbuild/\n"),
            ),
            ("a.rs", ""),
            ("x.log", ""),
            ("build/b.rs", ""),
        ]);
        let s = walk_with(dir.path(), false, &[], 8);
        let files: Vec<String> = s.candidates.iter().map(|c| display_path(&c.rel)).collect();
        assert_eq!(files, ["a.rs"]);
        let skipped = skips(&s);
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert_eq!(skipped[0].0, ".gitignore");
        // The comment is not a pattern; the unclosed group is refused by the matcher itself.
        assert!(
            skipped[0].1.contains("3 lines not honoured") && skipped[0].1.contains("line 2"),
            "{skipped:?}"
        );
        assert!(skipped[0].1.contains("nest 5000 deep"), "{skipped:?}");
        // Shown as a file with --hidden, so not reported as skipped (it is logged).
        let s = walk_with(dir.path(), true, &[], 8);
        assert!(s.skipped.is_empty(), "{:?}", skips(&s));
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
        let sourced = from_list(&root, &list, &filter, false).unwrap();
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
            let err = from_list(&root, &[escaping.as_bytes().to_vec()], &filter, false);
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
