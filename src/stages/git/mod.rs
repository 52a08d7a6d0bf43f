//! Git stage: a repository's `.git` read in-process with gitoxide, never by running git. It
//! opens the repository safely ([`open`]), resolves revisions, lists and compares trees, reads
//! blobs with a size bound, reads the index and walks commits, all under a per-call cap on the
//! objects and bytes examined ([`Caps`]).
//!
//! What makes it safe to point at a hostile repository:
//! - Nothing is executed: the `gix` features that could run a filter, textconv driver or
//!   credential helper (`attributes`, `blob-diff`, `credentials`, the network clients) are not
//!   compiled in; gix's always-linked transport layer spawns programs only to fetch or clone,
//!   which nothing here does; and the git binary is never asked where its own config lives.
//! - No configuration outside the repository is read: the repository is opened with
//!   [`gix::open::Options::isolated`] (no system, global, XDG or `$HOME` config, no includes, no
//!   environment variables), and every path the open derives (git dir, common dir, objects,
//!   index, shallow file) must lie inside the `.git` directory ([`safe_open`]).
//! - `.git` must be a real directory inside the repository. A `.git` file (a linked worktree or
//!   submodule) whose `gitdir:` leads outside the repository, a `commondir` or an alternates
//!   entry outside `.git`, and any symbolic link inside `.git` are refused by name before gix
//!   opens anything.
//! - Every object read is counted against [`Caps`]; a blob is sized from its header before it is
//!   inflated; a missing object (shallow clone, partial clone), a corrupt pack or a malformed
//!   object is an error that says so, never a panic.

pub(crate) mod cochange;
pub(crate) mod diff;
pub(crate) mod history;
pub mod safe_open;
pub mod tree;

use crate::vocab::ErrorKind;
use gix::ObjectId;
use gix::bstr::ByteSlice;
use std::cell::Cell;
use std::path::PathBuf;

pub use safe_open::open;

/// Why the git stage could not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitError {
    /// The repository has no usable `.git` (none, or refused): `NotAGitRepository`,
    /// `GitDirLink`, `GitDirOutside`, `CommonDirOutside`, `AlternatesOutside`,
    /// `GitPathOutside`, `GitTooLarge`.
    Refused {
        /// The stable kind of refusal.
        kind: ErrorKind,
        /// What was refused, and what to do.
        message: String,
    },
    /// A revision that does not name a commit.
    BadRevision(String),
    /// A bound was hit (objects or bytes examined).
    Bound(String),
    /// Reading `.git` failed: a missing object, a corrupt pack, a malformed object.
    Failed(String),
}

impl std::fmt::Display for GitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GitError::Refused { message, .. } => f.write_str(message),
            GitError::BadRevision(m) | GitError::Bound(m) | GitError::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for GitError {}

/// Caps on one call's work: objects looked up and bytes inflated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// The most objects one call may look up.
    pub max_objects: u64,
    /// The most bytes one call may inflate.
    pub max_bytes: u64,
    /// The largest blob read whole; larger ones are reported as too large.
    pub max_blob: u64,
}

impl Default for Caps {
    fn default() -> Caps {
        Caps {
            max_objects: 2_000_000,
            max_bytes: 1 << 30,
            max_blob: 1 << 20,
        }
    }
}

/// An opened repository and what this call has spent of its caps.
pub struct Repo {
    pub(crate) repo: gix::Repository,
    /// The `.git` directory (for messages).
    pub git_dir: PathBuf,
    caps: Caps,
    objects: Cell<u64>,
    bytes: Cell<u64>,
    shallow: Vec<ObjectId>,
}

/// A blob's content, or why it is not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blob {
    /// The whole blob.
    Bytes(Vec<u8>),
    /// Larger than [`Caps::max_blob`]: its size in bytes.
    TooLarge(u64),
}

/// A commit, decoded.
#[derive(Clone, Debug)]
pub struct CommitInfo {
    /// The commit's object id.
    pub id: ObjectId,
    /// Its root tree's object id.
    pub tree: ObjectId,
    /// Its parents' ids, first parent first (none for a root commit).
    pub parents: Vec<ObjectId>,
    /// The author's name as the commit records it (untrusted, not yet escaped).
    pub author_name: String,
    /// The author's e-mail as the commit records it (untrusted, not yet escaped).
    pub author_email: String,
    /// Seconds since the epoch, and the author's offset from UTC in seconds.
    pub time: i64,
    /// The author's offset from UTC, in seconds.
    pub offset: i32,
    /// The committer's time, seconds since the epoch (what `since` compares).
    pub commit_time: i64,
    /// The whole commit message (untrusted, not yet escaped).
    pub message: String,
}

/// An index entry: path, mode, blob and the stat data git recorded.
#[derive(Clone, Debug)]
pub struct IndexEntry {
    /// The path relative to the work tree, as the bytes git stored.
    pub path: Vec<u8>,
    /// The file mode bits git recorded (such as `0o100644`, `0o120000` for a link).
    pub mode: u32,
    /// The staged blob's object id.
    pub id: ObjectId,
    /// The file size in bytes at staging time (truncated to 32 bits, as git stores it).
    pub size: u32,
    /// Modification time at staging: seconds and nanoseconds.
    pub mtime: (u32, u32),
    /// Status-change time at staging: seconds and nanoseconds.
    pub ctime: (u32, u32),
    /// Inode number at staging (truncated to 32 bits).
    pub ino: u32,
    /// Outside a sparse checkout: git does not look at the working tree for it.
    pub skip_worktree: bool,
    /// Added with `git add -N`: in the index, not yet in any tree git would write from it.
    pub intent_to_add: bool,
    /// A conflicted path (the entry kept is its lowest stage).
    pub conflicted: bool,
}

/// The index: its entries in path order (one per path), the index file's modification time,
/// and the directories whose tree the index's cache-tree extension records as valid.
#[derive(Clone, Debug, Default)]
pub struct Index {
    /// The entries, in path order, one per path.
    pub entries: Vec<IndexEntry>,
    /// The index file's modification time: seconds and nanoseconds.
    pub time: (u32, u32),
    /// The directories whose trees the cache-tree extension records as valid.
    pub cache: tree::CacheTree,
}

impl Repo {
    pub(crate) fn new(
        repo: gix::Repository,
        git_dir: PathBuf,
        caps: Caps,
    ) -> Result<Repo, GitError> {
        let shallow = repo
            .shallow_commits()
            .map_err(|e| failed("cannot read the shallow file", &e))?
            .map(|c| c.iter().copied().collect())
            .unwrap_or_default();
        Ok(Repo {
            repo,
            git_dir,
            caps,
            objects: Cell::new(0),
            bytes: Cell::new(0),
            shallow,
        })
    }

    /// Whether this is a shallow clone.
    pub fn is_shallow(&self) -> bool {
        !self.shallow.is_empty()
    }

    /// Whether `id` is a commit at the shallow boundary (its parents are not in the clone).
    pub fn is_shallow_boundary(&self, id: &ObjectId) -> bool {
        self.shallow.contains(id)
    }

    /// Objects and bytes examined so far.
    pub fn spent(&self) -> (u64, u64) {
        (self.objects.get(), self.bytes.get())
    }

    /// The caps this repository was opened with.
    pub fn caps(&self) -> Caps {
        self.caps
    }

    /// Count one object of `size` bytes, or the bound it crosses.
    fn spend(&self, size: u64) -> Result<(), GitError> {
        let n = self.objects.get() + 1;
        let b = self.bytes.get().saturating_add(size);
        self.objects.set(n);
        self.bytes.set(b);
        if n > self.caps.max_objects {
            return Err(GitError::Bound(format!(
                "examined {} git objects, the most one call may; narrow the request (paths, \
                 max_count) ",
                self.caps.max_objects
            )));
        }
        if b > self.caps.max_bytes {
            return Err(GitError::Bound(format!(
                "inflated {} bytes of git objects, the most one call may; narrow the request \
                 (paths, max_count)",
                self.caps.max_bytes
            )));
        }
        Ok(())
    }

    /// The commit `spec` names (a branch, tag, commit id, `HEAD~2`, ...).
    pub fn resolve(&self, spec: &str) -> Result<ObjectId, GitError> {
        if spec.is_empty() || spec.len() > 256 || spec.contains(['\0', '\n']) {
            return Err(GitError::BadRevision(format!(
                "{spec:?} is not a revision; give a branch, tag or commit id (at most 256 bytes)"
            )));
        }
        // Reflog and search forms read more than refs and objects; they are not offered.
        if spec.contains("@{") || spec.contains(":/") || spec.starts_with(':') {
            return Err(GitError::BadRevision(format!(
                "{spec:?}: reflog (@{{..}}), message search (:/) and index (:path) forms are not \
                 supported; give a branch, tag, commit id, or one with ~N / ^N"
            )));
        }
        let id = self
            .repo
            .rev_parse_single(spec.as_bytes().as_bstr())
            .map_err(|e| {
                GitError::BadRevision(format!(
                    "{spec:?} names no commit in this repository ({}); give a branch, tag or \
                     commit id",
                    one_line(&e.to_string())
                ))
            })?;
        self.spend(0)?;
        let object = id
            .object()
            .map_err(|e| failed(&format!("cannot read {spec}"), &e))?;
        let commit = object.peel_to_commit().map_err(|e| {
            GitError::BadRevision(format!(
                "{spec:?} does not name a commit ({})",
                one_line(&e.to_string())
            ))
        })?;
        Ok(commit.id)
    }

    /// The commit `HEAD` names, or `None` in a repository without commits.
    pub fn head(&self) -> Result<Option<ObjectId>, GitError> {
        match self.repo.head_id() {
            Ok(id) => Ok(Some(id.detach())),
            Err(_) => match self.repo.head() {
                Ok(h) if h.is_unborn() => Ok(None),
                Ok(_) => Err(GitError::Failed(
                    "HEAD does not name a readable commit; the repository may be corrupt".into(),
                )),
                Err(e) => Err(failed("cannot read HEAD", &e)),
            },
        }
    }

    /// Decode the commit `id` (a shallow boundary commit without its parents).
    pub fn commit(&self, id: ObjectId) -> Result<CommitInfo, GitError> {
        let object = self.find(id, "commit")?;
        self.spend(object.data.len() as u64)?;
        let commit = object
            .try_into_commit()
            .map_err(|_| GitError::Failed(format!("object {id} is not a commit")))?;
        let decoded = commit
            .decode()
            .map_err(|e| failed(&format!("commit {id} is malformed"), &e))?;
        let tree = decoded.tree();
        // A commit at a shallow clone's boundary has no parents in the clone: git shows it as
        // a root commit, and so does this.
        let parents: Vec<ObjectId> = if self.is_shallow_boundary(&id) {
            Vec::new()
        } else {
            decoded.parents().collect()
        };
        let author = decoded.author().ok();
        let (name, email, time, offset) = match author {
            Some(a) => {
                let t = a.time().unwrap_or_default();
                (
                    a.name.to_str_lossy().trim().to_string(),
                    a.email.to_str_lossy().trim().to_string(),
                    t.seconds,
                    t.offset,
                )
            }
            None => (String::new(), String::new(), 0, 0),
        };
        let commit_time = decoded
            .committer()
            .ok()
            .and_then(|c| c.time().ok())
            .map_or(time, |t| t.seconds);
        let message = decoded.message.to_str_lossy().into_owned();
        Ok(CommitInfo {
            id,
            tree,
            parents,
            author_name: name,
            author_email: email,
            time,
            offset,
            commit_time,
            message,
        })
    }

    /// The object `id`, or an error naming what is missing.
    pub(crate) fn find(&self, id: ObjectId, what: &str) -> Result<gix::Object<'_>, GitError> {
        match self.repo.try_find_object(id) {
            Ok(Some(o)) => Ok(o),
            Ok(None) => Err(self.missing(id, what)),
            Err(e) => Err(failed(&format!("cannot read {what} {id}"), &e)),
        }
    }

    /// The error for a missing object.
    fn missing(&self, id: ObjectId, what: &str) -> GitError {
        let hint = if self.is_shallow() {
            " (this is a shallow clone: history beyond its boundary is not there)"
        } else {
            " (the repository may be a partial clone or corrupt)"
        };
        GitError::Failed(format!("{what} {id} is missing from the repository{hint}"))
    }

    /// Read the blob `id` whole, unless its header says it is over `max_blob` bytes.
    pub fn blob(&self, id: ObjectId) -> Result<Blob, GitError> {
        let header = match self.repo.try_find_header(id) {
            Ok(Some(h)) => h,
            Ok(None) => return Err(self.missing(id, "blob")),
            Err(e) => return Err(failed(&format!("cannot read blob {id}"), &e)),
        };
        if header.size() > self.caps.max_blob {
            self.spend(0)?;
            return Ok(Blob::TooLarge(header.size()));
        }
        let object = self.find(id, "blob")?;
        self.spend(object.data.len() as u64)?;
        if object.kind != gix::object::Kind::Blob {
            return Err(GitError::Failed(format!("object {id} is not a blob")));
        }
        Ok(Blob::Bytes(object.detach().data))
    }

    /// The id the blob `data` would have.
    pub fn hash_blob(&self, data: &[u8]) -> Result<ObjectId, GitError> {
        gix::objs::compute_hash(self.repo.object_hash(), gix::object::Kind::Blob, data)
            .map_err(|e| failed("cannot hash a file", &e))
    }

    /// The index: its entries at stage 0 (conflicted paths at their first stage), the index
    /// file's modification time and its cache-tree. An absent index is empty.
    pub fn index(&self) -> Result<Index, GitError> {
        let index = self
            .repo
            .index_or_empty()
            .map_err(|e| failed("cannot read the index (.git/index)", &e))?;
        let ts = index.timestamp();
        let mut out: Vec<IndexEntry> = Vec::with_capacity(index.entries().len());
        for e in index.entries() {
            let path = e.path(&index);
            if let Some(last) = out.last_mut()
                && last.path.as_slice() == path
            {
                last.conflicted = true;
                continue;
            }
            self.spend(0)?;
            out.push(IndexEntry {
                path: path.to_vec(),
                mode: e.mode.bits(),
                id: e.id,
                size: e.stat.size,
                mtime: (e.stat.mtime.secs, e.stat.mtime.nsecs),
                ctime: (e.stat.ctime.secs, e.stat.ctime.nsecs),
                ino: e.stat.ino,
                skip_worktree: e.flags.contains(gix::index::entry::Flags::SKIP_WORKTREE),
                intent_to_add: e.flags.contains(gix::index::entry::Flags::INTENT_TO_ADD),
                conflicted: e.stage_raw() != 0,
            });
        }
        let cache = index
            .tree()
            .map(tree::CacheTree::from_extension)
            .unwrap_or_default();
        Ok(Index {
            entries: out,
            time: (
                ts.unix_seconds().clamp(0, u32::MAX as i64) as u32,
                ts.nanoseconds(),
            ),
            cache,
        })
    }

    /// Walk the history from `tip`, newest commit first (git log's default order), calling `f`
    /// with each commit id until it returns false.
    pub fn walk(
        &self,
        tip: ObjectId,
        mut f: impl FnMut(ObjectId) -> Result<bool, GitError>,
    ) -> Result<(), GitError> {
        use gix::revision::walk::Sorting;
        let walk = self
            .repo
            .rev_walk([tip])
            .sorting(Sorting::ByCommitTime(Default::default()))
            .use_commit_graph(false)
            .all()
            .map_err(|e| failed("cannot walk the history", &e))?;
        for info in walk {
            let info = match info {
                Ok(i) => i,
                Err(e) => {
                    let text = e.to_string();
                    if self.is_shallow() && text.to_lowercase().contains("not found") {
                        // The walk reached the shallow boundary.
                        break;
                    }
                    return Err(failed("cannot walk the history", &e));
                }
            };
            self.spend(0)?;
            if !f(info.id)? {
                break;
            }
        }
        Ok(())
    }
}

/// A failure with its cause, on one line.
pub(crate) fn failed(what: &str, e: &dyn std::fmt::Display) -> GitError {
    GitError::Failed(format!("{what}: {}", one_line(&e.to_string())))
}

/// `s` on one line, cut at 300 bytes.
fn one_line(s: &str) -> String {
    let mut out: String = s.replace(['\n', '\r'], " ");
    if out.len() > 300 {
        let mut cut = 300;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('…');
    }
    out
}

/// Whether git would call `data` binary: a NUL byte in its first 8000 bytes.
pub fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(8000)].contains(&0)
}

/// Short form of a commit id (7 hex digits, as git's default abbreviation for small repos).
pub fn short(id: &ObjectId) -> String {
    let mut s = id.to_string();
    s.truncate(7);
    s
}
