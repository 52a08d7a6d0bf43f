//! The CLI's disk cache: the token counts and skeletons of one run kept for the next, in one
//! file, `$XDG_CACHE_HOME/gnaw/cache.bin` (else `$HOME/.cache/gnaw/cache.bin`; no cache when
//! neither is set). A run loads it into its in-memory [`Cache`] before the pipeline starts and
//! saves what it used after, so a rerun counts and parses only the texts it has not seen.
//!
//! - **Keys.** Both kinds of entry are pure functions of their key: a count of the encoding and
//!   the 128-bit hash of the exact text counted, a skeleton of the hash of the language and the
//!   text parsed. The file also names the build that wrote it (gnaw's version, the executable's
//!   size and modification time, and a probe of the hasher): another build's file is ignored, so
//!   a changed tokenizer or grammar never serves an old answer.
//! - **Format** (little-endian): magic `GNAWCACH`, format version (u32), build fingerprint
//!   (u64), entry count (u32), the entries, then a checksum (u64, SipHash of all that precedes
//!   it). An entry is its kind (u8: 0 count, 1 skeleton, 2 "no skeleton"), its last use (u64,
//!   seconds since the epoch), then for a count the encoding (u8) + key (u128) + tokens (u64),
//!   for a skeleton its id (u128) and, for kind 1, its length (u32) and UTF-8 text. A file that
//!   is damaged, truncated, foreign, of another version or another build is ignored, and
//!   replaced at the next save.
//! - **Bound.** The entries take at most [`DEFAULT_BYTES`] (64 MiB; `GNAW_CACHE_BYTES` sets
//!   another): those this run used are kept first, then the most recently used.
//! - **Writes.** Only when this run added an entry or used one not used for an hour. Under an
//!   exclusive lock on `gnaw/lock`, the file is read again (another run may have saved since),
//!   merged, bounded and replaced atomically (a temporary file in the same directory, synced,
//!   renamed over the old one): a reader sees the old file or the new one, never a mix, and two
//!   runs at once both land. A run that cannot take the lock in [`LOCK_WAIT`] saves nothing.
//!   Every open goes through the sandbox's one door to user files
//!   ([`gnaw_sandbox::user_file`]): a link or a FIFO named `lock` or `cache.bin` is never
//!   followed or waited on (the run warns and saves nothing).
//! - **Off** with `--no-cache` or `GNAW_NO_CACHE=1`. Only the CLI has this module: gnaw-mcp
//!   keeps its own cache in memory and writes nothing.
//!
//! The directory is created `0700` and the file `0600`: skeletons hold code of the repositories
//! they were made from.

use crate::cache::{Cache, Persistent};
use crate::vocab::Encoding;
use gnaw_sandbox::user_file::{Expect, UserDir, UserFileError};
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The bound on the entries kept on disk, unless `GNAW_CACHE_BYTES` sets another: 64 MiB.
pub const DEFAULT_BYTES: u64 = 64 << 20;

/// How long a save waits for another run's save to finish before it gives up.
pub const LOCK_WAIT: Duration = Duration::from_secs(2);

/// The cache file's name in the cache directory.
pub const FILE_NAME: &str = "cache.bin";
const LOCK_NAME: &str = "lock";
const MAGIC: &[u8; 8] = b"GNAWCACH";
const VERSION: u32 = 1;
/// Magic, version, build, entry count.
const HEADER: usize = 8 + 4 + 8 + 4;
/// A use this much older than now is written again when the entry is used.
const REFRESH_SECS: u64 = 3600;

/// The disk cache of one run: where it lives and how big it may grow.
pub struct DiskCache {
    dir: PathBuf,
    limit: u64,
    build: u64,
}

/// What identifies an entry, whatever its value.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Count(Encoding, u128),
    Skeleton(u128),
}

fn key_of(entry: &Persistent) -> Key {
    match entry {
        Persistent::Count { encoding, key, .. } => Key::Count(*encoding, *key),
        Persistent::Skeleton { id, .. } => Key::Skeleton(*id),
    }
}

/// The bytes an entry takes in the file.
fn size_of(entry: &Persistent) -> u64 {
    match entry {
        Persistent::Count { .. } => 1 + 8 + 1 + 16 + 8,
        Persistent::Skeleton { skeleton, .. } => {
            1 + 8 + 16 + skeleton.as_ref().map_or(0, |s| 4 + s.len() as u64)
        }
    }
}

/// The cache directory the environment names, or `None` when the cache is off: `--no-cache`
/// (`flag`), `GNAW_NO_CACHE` set to anything but empty or `0`, or neither `XDG_CACHE_HOME`
/// (absolute, as the XDG spec requires) nor `HOME` set.
pub fn location(
    flag: bool,
    no_cache: Option<OsString>,
    xdg: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    let off = no_cache.is_some_and(|v| !v.is_empty() && v != "0");
    if flag || off {
        return None;
    }
    let xdg = xdg.map(PathBuf::from).filter(|p| p.is_absolute());
    let home = home.map(PathBuf::from).filter(|p| p.is_absolute());
    xdg.or_else(|| home.map(|h| h.join(".cache")))
        .map(|base| base.join("gnaw"))
}

impl DiskCache {
    /// The disk cache the environment asks for, or `None` when it is off (see [`location`]).
    /// A `GNAW_CACHE_BYTES` that is not a size is an error that says what to write.
    pub fn from_env(flag: bool) -> Result<Option<DiskCache>, String> {
        let var = |name| std::env::var_os(name);
        let Some(dir) = location(
            flag,
            var("GNAW_NO_CACHE"),
            var("XDG_CACHE_HOME"),
            var("HOME"),
        ) else {
            return Ok(None);
        };
        let limit = match std::env::var("GNAW_CACHE_BYTES") {
            Ok(s) => crate::gnawconfig::parse_size(&s).ok_or_else(|| {
                format!(
                    "GNAW_CACHE_BYTES={s:?} is not a size; write a byte count or e.g. 64MiB, or \
                     unset it for the default (64 MiB)"
                )
            })?,
            Err(_) => DEFAULT_BYTES,
        };
        Ok(Some(DiskCache::new(dir, limit)))
    }

    /// The cache in `dir`, bounded to `limit` bytes of entries.
    pub fn new(dir: PathBuf, limit: u64) -> DiskCache {
        DiskCache {
            dir,
            limit,
            build: build_fingerprint(),
        }
    }

    /// Load the file's entries into `cache`, oldest first; returns the mark that tells the
    /// entries this run uses from the others (see [`Cache::import_persistent`]). A missing,
    /// damaged or foreign file loads nothing.
    pub fn load(&self, cache: &Cache) -> u64 {
        let mut entries = self.read().unwrap_or_default();
        entries.sort_by_key(|(_, used)| *used);
        cache.import_persistent(entries.into_iter().map(|(e, _)| e))
    }

    /// Save what `cache` holds (loaded with `mark`), if this run added or refreshed an entry:
    /// under the lock, merged with the file as it is now, bounded, written atomically. `Ok`
    /// when saved or when there was nothing to save or another run held the lock too long;
    /// `Err` says why the directory or file could not be written.
    pub fn save(&self, cache: &Cache, mark: u64) -> Result<(), String> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let used: Vec<Persistent> = cache
            .export_persistent()
            .into_iter()
            .filter(|(_, tick)| *tick > mark)
            .map(|(e, _)| e)
            .collect();
        if used.is_empty() {
            return Ok(());
        }
        let shown = crate::cli::output::shown(&self.dir);
        let dir = UserDir::create_all(&self.dir, 0o700).map_err(|e| match e {
            UserFileError::Io(e) => format!("cannot create the cache directory {shown}: {e}"),
            e => format!("cannot create the cache directory: {shown} {e}"),
        })?;
        let lock = dir
            .lock_file(OsStr::new(LOCK_NAME))
            .map_err(|e| format!("the cache's lock file {shown}/{LOCK_NAME} {e}"))?;
        if !lock_within(&lock, LOCK_WAIT) {
            return Ok(());
        }
        let mut merged: HashMap<Key, (Persistent, u64)> = self
            .read_in(&dir)
            .unwrap_or_default()
            .into_iter()
            .map(|(e, t)| (key_of(&e), (e, t)))
            .collect();
        let mut changed = false;
        for entry in used {
            let key = key_of(&entry);
            let stale = merged
                .get(&key)
                .is_none_or(|(_, t)| now.saturating_sub(*t) >= REFRESH_SECS);
            if stale {
                changed = true;
                merged.insert(key, (entry, now));
            }
        }
        if !changed {
            return Ok(());
        }
        // Under the lock, no other save is writing one: what is left is a dead run's.
        let _ = dir.remove_temporaries(OsStr::new(FILE_NAME));
        let kept = bounded(merged.into_values().collect(), self.limit);
        let bytes = encode(self.build, &kept);
        dir.replace(OsStr::new(FILE_NAME), &bytes, 0o600, Expect::AbsentOrFile)
            .map_err(|e| format!("the cache file {shown}/{FILE_NAME} {e}"))
        // The lock is released when `lock` is dropped.
    }

    /// The file's entries with their last use, or `None` when the directory or the file is
    /// missing or unusable.
    fn read(&self) -> Option<Vec<(Persistent, u64)>> {
        self.read_in(&UserDir::open(&self.dir).ok()?)
    }

    /// [`DiskCache::read`] through the directory's descriptor. A file larger than any this
    /// module writes is not one of ours, and is not read.
    fn read_in(&self, dir: &UserDir) -> Option<Vec<(Persistent, u64)>> {
        let cap = self.limit.saturating_add(HEADER as u64 + 8);
        let file = dir.read(OsStr::new(FILE_NAME), cap).ok()??;
        decode(self.build, &file.bytes)
    }
}

/// Take the exclusive lock on `lock`, waiting at most `wait`.
fn lock_within(lock: &File, wait: Duration) -> bool {
    let start = Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => return true,
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < wait => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(_) => return false,
        }
    }
}

/// The entries that fit in `limit` bytes, most recently used first (ties in key order, so the
/// cut is the same whatever the map's order).
fn bounded(mut entries: Vec<(Persistent, u64)>, limit: u64) -> Vec<(Persistent, u64)> {
    entries.sort_by(|(a, ta), (b, tb)| tb.cmp(ta).then_with(|| order(a).cmp(&order(b))));
    let mut total = 0;
    entries.retain(|(e, _)| {
        total += size_of(e);
        total <= limit
    });
    entries
}

/// A total order on keys, for ties.
fn order(entry: &Persistent) -> (u8, u8, u128) {
    match key_of(entry) {
        Key::Count(enc, key) => (0, enc.index() as u8, key),
        Key::Skeleton(id) => (1, 0, id),
    }
}

/// What names the build that writes and reads the file: gnaw's version, the running
/// executable's size and modification time (a rebuild, or another install, starts afresh), and
/// the hasher's answer for a fixed text (the keys are only as stable as the hasher).
fn build_fingerprint() -> u64 {
    let mut h = DefaultHasher::new();
    env!("CARGO_PKG_VERSION").hash(&mut h);
    VERSION.hash(&mut h);
    crate::cache::skeleton_id(&"gnaw", "the hasher's probe").hash(&mut h);
    // The running executable, stat'ed by the path the kernel gives for it.
    #[allow(clippy::disallowed_methods)]
    let exe = std::env::current_exe().and_then(std::fs::metadata);
    if let Ok(meta) = exe {
        use std::os::unix::fs::MetadataExt;
        (meta.len(), meta.mtime(), meta.mtime_nsec(), meta.ino()).hash(&mut h);
    }
    h.finish()
}

/// The checksum of `bytes`.
fn checksum(bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    h.write(bytes);
    h.finish()
}

/// The file's bytes for `entries`.
fn encode(build: u64, entries: &[(Persistent, u64)]) -> Vec<u8> {
    let body: u64 = entries.iter().map(|(e, _)| size_of(e)).sum();
    let mut out = Vec::with_capacity(HEADER + body as usize + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&build.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for (entry, used) in entries {
        match entry {
            Persistent::Count {
                encoding,
                key,
                tokens,
            } => {
                out.push(0);
                out.extend_from_slice(&used.to_le_bytes());
                out.push(encoding.index() as u8);
                out.extend_from_slice(&key.to_le_bytes());
                out.extend_from_slice(&(*tokens as u64).to_le_bytes());
            }
            Persistent::Skeleton { id, skeleton } => {
                out.push(if skeleton.is_some() { 1 } else { 2 });
                out.extend_from_slice(&used.to_le_bytes());
                out.extend_from_slice(&id.to_le_bytes());
                if let Some(text) = skeleton {
                    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
                    out.extend_from_slice(text.as_bytes());
                }
            }
        }
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// A reader over the file's bytes that fails on the first read past the end.
struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn u128(&mut self) -> Option<u128> {
        Some(u128::from_le_bytes(self.take(16)?.try_into().ok()?))
    }
}

/// The entries of a file written by the build `build`, or `None` for anything else: another
/// magic, version or build, a wrong checksum, a short or overlong body, text not UTF-8.
fn decode(build: u64, bytes: &[u8]) -> Option<Vec<(Persistent, u64)>> {
    let split = bytes.len().checked_sub(8)?;
    let (body, sum) = bytes.split_at(split);
    if u64::from_le_bytes(sum.try_into().ok()?) != checksum(body) {
        return None;
    }
    let mut r = Bytes(body);
    if r.take(8)? != MAGIC || r.u32()? != VERSION || r.u64()? != build {
        return None;
    }
    let n = r.u32()? as usize;
    // Every entry takes at least 25 bytes: a count larger than the body allows is damage.
    let mut entries = Vec::with_capacity(n.min(body.len() / 25));
    for _ in 0..n {
        let kind = r.u8()?;
        let used = r.u64()?;
        let entry = match kind {
            0 => Persistent::Count {
                encoding: *Encoding::ALL.get(usize::from(r.u8()?))?,
                key: r.u128()?,
                tokens: usize::try_from(r.u64()?).ok()?,
            },
            1 | 2 => {
                let id = r.u128()?;
                let skeleton = if kind == 1 {
                    let len = r.u32()? as usize;
                    Some(Arc::from(std::str::from_utf8(r.take(len)?).ok()?))
                } else {
                    None
                };
                Persistent::Skeleton { id, skeleton }
            }
            _ => return None,
        };
        entries.push((entry, used));
    }
    r.0.is_empty().then_some(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<(Persistent, u64)> {
        vec![
            (
                Persistent::Count {
                    encoding: Encoding::Cl100kBase,
                    key: u128::MAX - 5,
                    tokens: 1234,
                },
                10,
            ),
            (
                Persistent::Skeleton {
                    id: 7,
                    skeleton: Some(Arc::from("fn a() { ⋯ }")),
                },
                20,
            ),
            (
                Persistent::Skeleton {
                    id: 8,
                    skeleton: None,
                },
                30,
            ),
        ]
    }

    #[test]
    fn a_file_round_trips_and_any_damage_reads_as_nothing() {
        let bytes = encode(99, &sample());
        assert_eq!(decode(99, &bytes), Some(sample()));
        assert_eq!(decode(98, &bytes), None, "another build's file is ignored");
        for cut in [0, 1, 8, HEADER, bytes.len() / 2, bytes.len() - 1] {
            assert_eq!(decode(99, &bytes[..cut]), None, "truncated at {cut}");
        }
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x20;
            assert_eq!(decode(99, &bad), None, "byte {i} flipped");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(99, &longer), None);
    }

    #[test]
    fn the_bound_keeps_the_most_recent_entries() {
        let entries = sample();
        let kept = bounded(
            entries.clone(),
            size_of(&entries[2].0) + size_of(&entries[1].0),
        );
        let used: Vec<u64> = kept.iter().map(|(_, t)| *t).collect();
        assert_eq!(used, [30, 20]);
        assert!(bounded(entries, 0).is_empty());
    }

    #[test]
    fn the_environment_names_the_directory_or_turns_the_cache_off() {
        let s = |v: &str| Some(OsString::from(v));
        let at = |p: &str| Some(PathBuf::from(p));
        assert_eq!(location(false, None, s("/x"), s("/h")), at("/x/gnaw"));
        assert_eq!(location(false, None, None, s("/h")), at("/h/.cache/gnaw"));
        assert_eq!(
            location(false, None, s("rel"), s("/h")),
            at("/h/.cache/gnaw")
        );
        assert_eq!(location(false, None, None, None), None);
        assert_eq!(location(true, None, s("/x"), s("/h")), None);
        assert_eq!(location(false, s("1"), s("/x"), s("/h")), None);
        assert_eq!(location(false, s("0"), s("/x"), s("/h")), at("/x/gnaw"));
        assert_eq!(location(false, s(""), s("/x"), s("/h")), at("/x/gnaw"));
    }
}
