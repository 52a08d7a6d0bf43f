//! The warm cache's keys: what identifies a file's read outcome ([`FileKey`]), the digests that
//! key pieces, counts and skeletons, and the racy-file rule (a file changed too recently to be
//! kept).

use std::hash::{DefaultHasher, Hash, Hasher};

/// What identifies a file's read outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileKey {
    /// Device seen by the walk.
    pub dev: u64,
    /// Inode seen by the walk.
    pub ino: u64,
    /// Size in bytes seen by the walk.
    pub size: u64,
    /// Modification time seen by the walk, in nanoseconds.
    pub mtime_ns: i128,
    /// Status-change time seen by the walk, in nanoseconds.
    pub ctime_ns: i128,
    /// The size cap in effect: it decides whether the file is read.
    pub max_file_size: u64,
    /// Whether files with more than one link are skipped: it decides whether the file is read.
    pub skip_hard_links: bool,
}

/// The key of the skeleton of `text` parsed as `language` (any hashable name of it).
pub fn skeleton_id(language: &impl Hash, text: &str) -> u128 {
    hash128(&(language, text))
}

/// The key of one set of options that shape a piece: a 128-bit digest of the options value
/// (the driver hashes the very struct its per-file step receives). Two different option sets
/// never share a key in practice.
pub fn context_key(options: &impl Hash) -> u128 {
    hash128(options)
}

/// How recent a change must be for its file to stay out of the cache.
const RACY_NS: i128 = 2_000_000_000;

/// Whether a file changed so recently that another write could still land within the same
/// timestamp tick without moving mtime or ctime (git's "racy" problem). Such files are read
/// every time until they settle.
pub fn is_racy(changed_ns: i128) -> bool {
    is_racy_at(changed_ns, now_ns())
}

/// [`is_racy`], with the time now (`now_ns`, nanoseconds since the epoch) read once by the
/// caller for many checks.
pub fn is_racy_at(changed_ns: i128, now_ns: i128) -> bool {
    now_ns - changed_ns < RACY_NS
}

/// The time now, nanoseconds since the epoch.
pub fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// Two independent 64-bit SipHashes of a value: a 128-bit key, so that a collision (which would
/// give a wrong count, never a wrong text) is out of reach in practice.
pub(super) fn hash128<T: Hash + ?Sized>(value: &T) -> u128 {
    let mut a = DefaultHasher::new();
    value.hash(&mut a);
    let mut b = DefaultHasher::new();
    0x9e37_79b9_7f4a_7c15_u64.hash(&mut b);
    value.hash(&mut b);
    (u128::from(a.finish()) << 64) | u128::from(b.finish())
}
