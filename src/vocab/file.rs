//! A file as the stages pass it along: the walk's candidate (path, type and the identity the
//! open must match) and the text the read stage made of it.

use std::sync::OnceLock;

/// A path the read stage will look at.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Relative to the repo, `/`-separated, raw bytes.
    pub rel: Vec<u8>,
    /// What the walk saw at the path (its `lstat`).
    pub kind: EntryKind,
    /// Device and inode seen by the walk's `lstat`; the open must see the same.
    pub dev: u64,
    /// Inode seen by the walk's `lstat`; the open must see the same.
    pub ino: u64,
    /// Size seen by the walk: schedules the largest files first, and keys the warm cache.
    pub size: u64,
    /// Modification and status-change times seen by the walk, in nanoseconds (cache key).
    pub mtime_ns: i128,
    /// Status-change time seen by the walk, in nanoseconds (cache key).
    pub ctime_ns: i128,
}

/// The walk's view of what a path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A symbolic link (read only when links are followed).
    Symlink,
    /// Anything else, named (`fifo`, `socket`, `character device`, ...): never opened.
    Other(&'static str),
}

/// A file's text, as read.
#[derive(Clone, Debug)]
pub struct Text {
    /// The text: the file's bytes, decoded as UTF-8.
    pub text: String,
    /// Bytes read from disk.
    pub bytes: u64,
    /// The file was not valid UTF-8 and was decoded lossily (U+FFFD replacements).
    pub lossy: bool,
    /// Whether `text` holds a keyword of some secret rule: a pure function of the text, worked
    /// out by the first caller that asks ([`Text::has_keyword`]) and kept with the text, so a
    /// text the warm cache shares is not looked through again on every call.
    keyword: OnceLock<bool>,
}

impl Text {
    /// A text read from `bytes` bytes of disk, `lossy` when decoded with replacements.
    pub fn new(text: String, bytes: u64, lossy: bool) -> Text {
        Text {
            text,
            bytes,
            lossy,
            keyword: OnceLock::new(),
        }
    }

    /// `check(&self.text)`, worked out once per text. `check` must be the one keyword check
    /// (`stages::scan::has_keyword`), which this bottom layer cannot name.
    pub fn has_keyword(&self, check: impl FnOnce(&str) -> bool) -> bool {
        *self.keyword.get_or_init(|| check(&self.text))
    }
}

/// Texts are equal when their contents are (whether the keyword check was asked yet does not
/// matter).
impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        (&self.text, self.bytes, self.lossy) == (&other.text, other.bytes, other.lossy)
    }
}

impl Eq for Text {}
