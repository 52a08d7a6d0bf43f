//! A file as the stages pass it along: the walk's candidate (path, type and the identity the
//! open must match) and the text the read stage made of it.

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

/// A file's text, as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text {
    pub text: String,
    pub bytes: u64,
    pub lossy: bool,
}
