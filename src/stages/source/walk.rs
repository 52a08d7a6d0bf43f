//! The walk: each directory listed through its own fd, subdirectories opened by name from their
//! parent's fd without following links, fds kept within a budget, depth and path length bounded;
//! every entry matched against the ignore files and the filter as it is met.
//!
//! [`walk`] lists everything, then returns the files sorted. [`walk_each`] also runs a caller's
//! per-file step on each file as soon as the walk finds it, on the walk's own threads (a found
//! file is one more job of the walk's queue, beside the directories still to list), so reading
//! and searching overlap the listing instead of waiting for its end; what it returns is sorted
//! the same way, so the answer does not depend on the order the files were met in.

use super::ignores::{git_info_exclude, ignore_file};
use super::seen::{Ident, Listing, SeenDir};
use super::state::{Walk, out_of_fds, virtual_path};
use super::*;

/// The ignore matchers of one directory, linked to those of the directories above it.
pub(super) struct Level {
    pub(super) parent: Option<Arc<Level>>,
    /// `.ignore` in this directory.
    pub(super) ignore: Option<Gitignore>,
    /// `.gitignore` in this directory.
    pub(super) git: Option<Gitignore>,
    /// `.git/info/exclude` (only on the level above the repo root).
    pub(super) exclude: Option<Gitignore>,
    /// This directory holds `.git`: the `.gitignore` files above it do not apply below it.
    pub(super) has_git: bool,
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
pub(super) struct Handle<'w> {
    pub(super) dir: BeneathDir,
    pub(super) kept: Option<&'w AtomicUsize>,
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
pub(super) struct Job<'w> {
    /// The nearest directory above this one that is still open (the repo, for the repo).
    pub(super) base: Arc<Handle<'w>>,
    /// The names from `base` down to this directory; empty for the repo itself.
    pub(super) names: Vec<OsString>,
    /// Relative to the repo; empty for the repo itself.
    pub(super) rel: Vec<u8>,
    /// Levels below the repo (0 for the repo).
    pub(super) depth: usize,
    pub(super) level: Option<Arc<Level>>,
}

/// One job of the walk's queue: a directory to list, or, in [`walk_each`], a file it found, for
/// the caller's step.
pub(super) enum Task<'w> {
    Dir(Job<'w>),
    File(Candidate),
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
    let (sourced, _, _) = run::<()>(dir, opts, None, false)?;
    Ok(sourced)
}

/// [`walk`], with the [`Listing`] of what it saw when everything in it had settled (see
/// `super::listing`): what tells a later walk with the same options whether it would find
/// the same.
pub fn walk_listed(
    dir: &BeneathDir,
    opts: &WalkOptions<'_>,
) -> Result<(Sourced, Option<Listing>), Error> {
    let (sourced, _, listing) = run::<()>(dir, opts, None, true)?;
    Ok((sourced, listing))
}

/// The caller's per-file step in [`walk_each`]: the file, and how many files the walk has found
/// so far (this one included; the final count is known only at the end).
pub type Each<'f, R> = &'f (dyn Fn(&Candidate, usize) -> R + Sync);

/// [`walk`], running `each` on every file it keeps as soon as the walk finds it, on the walk's
/// threads. Returns what [`walk`] returns and each file's result, in the order of
/// [`Sourced::candidates`]. `stop` is asked before each job; once it says so, nothing more is
/// listed or handed to `each`, and the walk ends with [`Error::Cancelled`].
pub fn walk_each<R: Send>(
    dir: &BeneathDir,
    opts: &WalkOptions<'_>,
    stop: &(dyn Fn() -> bool + Sync),
    each: Each<'_, R>,
) -> Result<(Sourced, Vec<R>), Error> {
    let (sourced, results, _) = run(dir, opts, Some((stop, each)), false)?;
    Ok((sourced, results))
}

/// What [`run`] gives: the walk's outcome, the per-file step's results, and the listing when
/// one was asked for and could be made.
type Ran<R> = (Sourced, Vec<R>, Option<Listing>);

/// The walk, with or without a per-file step, recording what it saw when `record`.
fn run<R: Send>(
    dir: &BeneathDir,
    opts: &WalkOptions<'_>,
    step: Option<(&(dyn Fn() -> bool + Sync), Each<'_, R>)>,
    record: bool,
) -> Result<Ran<R>, Error> {
    let root = match dir.open_dir(Path::new("")) {
        Ok(d) => d,
        Err(e) => {
            if let Some(err) = out_of_fds(b"", &e) {
                return Err(err);
            }
            let sourced = Sourced {
                candidates: Vec::new(),
                skipped: vec![Skipped {
                    path: ".".into(),
                    reason: SkipReason::Unreadable {
                        error: os_message(&e),
                    },
                }],
            };
            return Ok((sourced, Vec::new(), None));
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
        stream: step.is_some(),
        streamed: AtomicUsize::new(0),
        seen: record.then(|| Mutex::new(Vec::new())),
        unsettled: AtomicBool::new(false),
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
    // Each file's result, beside its candidate (in the order the files were done).
    let done: Mutex<Vec<(Candidate, R)>> = Mutex::new(Vec::new());
    let stopped = AtomicBool::new(false);
    crate::par::drain(vec![Task::Dir(first)], opts.threads.max(1), |task, more| {
        if w.failed.load(Ordering::Relaxed) || stopped.load(Ordering::Relaxed) {
            return;
        }
        if let Some((stop, _)) = step
            && stop()
        {
            stopped.store(true, Ordering::Relaxed);
            return;
        }
        match task {
            Task::Dir(job) => list(job, &w, more),
            Task::File(c) => {
                if let Some((_, each)) = step {
                    let r = each(&c, w.streamed.load(Ordering::Relaxed));
                    lock(&done).push((c, r));
                }
            }
        }
    });
    if let Some(err) = into_inner(w.fatal) {
        return Err(err);
    }
    if stopped.into_inner() {
        return Err(Error::Cancelled);
    }
    let mut skipped = into_inner(w.skipped);
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    let mut candidates = into_inner(w.found);
    let mut results = Vec::new();
    if step.is_some() {
        let mut done = into_inner(done);
        done.sort_by(|a, b| a.0.rel.cmp(&b.0.rel));
        (candidates, results) = done.into_iter().unzip();
    } else {
        candidates.sort_by(|a, b| a.rel.cmp(&b.rel));
    }
    let listing = match w.seen {
        Some(seen) if !w.unsettled.into_inner() => {
            Listing::new(dir, into_inner(seen), &candidates, !opts.no_ignore)
        }
        _ => None,
    };
    Ok((
        Sourced {
            candidates,
            skipped,
        },
        results,
        listing,
    ))
}

/// Open the directory `names` leads to from `base`, one name at a time, never following a
/// link (each step is [`BeneathDir::child_dir`]).
pub(super) fn open_along(base: &BeneathDir, names: &[OsString]) -> io::Result<BeneathDir> {
    let mut dir = base.child_dir(&names[0])?;
    for name in &names[1..] {
        dir = dir.child_dir(name)?;
    }
    Ok(dir)
}

/// Why a subdirectory at `depth` below the repo, at `rel`, is not walked, if it is not.
pub(super) fn not_walked(rel: &[u8], depth: usize, max_depth: usize) -> Option<String> {
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
pub(super) fn list<'w>(job: Job<'w>, w: &'w Walk<'_>, more: &mut Vec<Task<'w>>) {
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
    // Its own `lstat` for the listing, taken before its entries are read.
    let seen = match &w.seen {
        Some(_) => match dir.stat() {
            Ok(st) => Some(Ident::from(&st)),
            Err(e) => return w.failed_at(&job.rel, &e),
        },
        None => None,
    };
    let entries = match dir.entries() {
        Ok(entries) => entries,
        Err(e) => return w.failed_at(&job.rel, &e),
    };
    let mut level = job.level;
    let mut ignores = Vec::new();
    if !opts.no_ignore {
        let has = |name: &str| entries.iter().any(|e| e.name == name);
        // The ignore files consulted, with their `lstat`s, for the listing.
        if w.seen.is_some() {
            for name in [".ignore", ".gitignore"].into_iter().filter(|n| has(n)) {
                match dir.stat_child(OsStr::new(name)) {
                    Ok(st) => ignores.push((OsString::from(name), Ident::from(&st))),
                    // Gone or unreachable since the listing: its read says what it is.
                    Err(_) => w.unsettled.store(true, Ordering::Relaxed),
                }
            }
        }
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
    if let (Some(seen), Some(list)) = (seen, &w.seen) {
        lock(list).push(SeenDir {
            rel: job.rel.clone(),
            seen,
            ignores,
        });
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
    // Found files go to the caller's step as jobs of their own, pushed after the subdirectories:
    // this thread takes them first (they are on top of its stack), and an idle thread is handed
    // the older half, the subdirectories, which make more work.
    let files = if w.stream {
        Some(files)
    } else {
        if !files.is_empty() {
            lock(&w.found).append(&mut files);
        }
        None
    };
    let job = Job {
        level,
        base: job.base,
        names: job.names,
        rel: job.rel,
        depth: job.depth,
    };
    queue_subdirs(job, opened, subdirs, w, more);
    if let Some(files) = files
        && !files.is_empty()
    {
        w.streamed.fetch_add(files.len(), Ordering::Relaxed);
        more.extend(files.into_iter().map(Task::File));
    }
}

/// Queue the subdirectories `subdirs` (name, relative path) of the directory `job` listed
/// (`opened`, unless it is the repo itself); `job.level` holds the ignore rules in force there.
fn queue_subdirs<'w>(
    job: Job<'w>,
    opened: Option<BeneathDir>,
    subdirs: Vec<(OsString, Vec<u8>)>,
    w: &'w Walk<'_>,
    more: &mut Vec<Task<'w>>,
) {
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
        more.push(Task::Dir(Job {
            base: Arc::clone(&base),
            names: path,
            rel,
            depth: job.depth + 1,
            level: job.level.clone(),
        }));
    }
}
