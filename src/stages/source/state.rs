//! The walk's shared state: the options, what it found, what it skipped and why, the first
//! fatal error (out of file descriptors), the budget of directory fds kept open, and the bytes of
//! ignore patterns compiled so far. The walk ([`super::walk`]) and the ignore files
//! ([`super::ignores`]) both report through it.

use super::seen::SeenDir;
use super::*;

/// What every worker of one walk shares.
pub(super) struct Walk<'a> {
    pub(super) opts: &'a WalkOptions<'a>,
    pub(super) found: Mutex<Vec<Candidate>>,
    pub(super) skipped: Mutex<Vec<Skipped>>,
    /// Directory fds kept open for queued jobs (see [`Handle`]).
    pub(super) kept: AtomicUsize,
    /// The walk cannot go on (out of file descriptors): the first such error.
    pub(super) fatal: Mutex<Option<Error>>,
    pub(super) failed: AtomicBool,
    /// Bytes of ignore patterns compiled so far ([`MAX_IGNORE_PATTERN_BYTES`]).
    pub(super) ignore_bytes: AtomicUsize,
    /// Found files are queued for the caller's step ([`super::walk_each`]) instead of being
    /// gathered in `found`.
    pub(super) stream: bool,
    /// Files queued for the caller's step so far.
    pub(super) streamed: AtomicUsize,
    /// Each directory listed, when the caller asked for a [`super::Listing`].
    pub(super) seen: Option<Mutex<Vec<SeenDir>>>,
    /// The walk met something a later `lstat` could not tell apart (an I/O failure, an entry
    /// changed mid-walk): no listing.
    pub(super) unsettled: AtomicBool,
}

impl Walk<'_> {
    pub(super) fn skip(&self, rel: &[u8], reason: SkipReason) {
        if reason == SkipReason::Changed {
            self.unsettled.store(true, Ordering::Relaxed);
        }
        let path = if rel.is_empty() {
            ".".into()
        } else {
            display_path(rel)
        };
        lock(&self.skipped).push(Skipped { path, reason });
    }

    pub(super) fn unreadable(&self, rel: &[u8], error: String) {
        self.skip(rel, SkipReason::Unreadable { error });
    }

    /// An I/O failure at `rel`: the end of the walk when the process or the system is out of
    /// file descriptors (every later open would fail too, and files would go missing without
    /// a word), else `rel` is reported as unreadable.
    pub(super) fn failed_at(&self, rel: &[u8], e: &io::Error) {
        self.unsettled.store(true, Ordering::Relaxed);
        match out_of_fds(rel, e) {
            Some(err) => {
                lock(&self.fatal).get_or_insert(err);
                self.failed.store(true, Ordering::Relaxed);
            }
            None => self.unreadable(rel, os_message(e)),
        }
    }

    /// Keep one more directory fd open for queued jobs, if the budget allows.
    pub(super) fn try_keep(&self) -> bool {
        self.kept
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < MAX_WALK_DIR_FDS).then_some(n + 1)
            })
            .is_ok()
    }
}

/// The run's error when `e` says the process (`EMFILE`) or the system (`ENFILE`) has no file
/// descriptor left; `None` for any other failure.
pub(super) fn out_of_fds(rel: &[u8], e: &io::Error) -> Option<Error> {
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

/// The path the gitignore matchers see: the repo-relative path under a virtual `/`, so that
/// each matcher (rooted at its own directory the same way) strips its own prefix.
pub(super) fn virtual_path(rel: &[u8]) -> PathBuf {
    Path::new("/").join(OsStr::from_bytes(rel))
}
