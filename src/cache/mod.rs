//! The warm cache gnaw-mcp keeps between calls, in memory only (nothing is ever written).
//! The CLI keeps one for its run too ([`Cache::counts_only`]), whose counts and skeletons
//! ([`Persistent`]) its disk cache (`cli::disk_cache`) loads before and saves after; this
//! module itself never touches a file.
//!
//! Two maps, one byte budget, least-recently-used eviction:
//!
//! - **Files**, keyed by what the walk's `lstat` saw, `(device, inode, size, mtime_ns, ctime_ns)`,
//!   plus the read options that shape the outcome: the read stage's result (the text and whether
//!   it was lossy, or why the file is skipped). A hit skips the open and the read. Any write to a
//!   file moves its mtime and ctime, and a rename or swap gives another inode or file type, so a
//!   changed file is always read again.
//! - **Pieces**, attached to a file's entry and keyed by its display path and a digest of every
//!   option that shapes what is derived from the text (format, line numbers, encoding, counting,
//!   secrets mode, allow list, the includes that bring sensitive files back): the sensitive-file
//!   and secrets-scan outcome, the findings, and the exact token count and byte length of the
//!   file's rendered piece. A hit skips the scan, the render and the count: a warm call on an
//!   unchanged repo costs the walk, one lookup per file and a sum. A piece lives and dies with its
//!   file's entry, so it follows the same keys and the same racy-file rule.
//! - **Token counts**, keyed by the encoding and a 128-bit hash of the exact rendered text that
//!   was counted. A hit skips tokenization. Keying by the text itself makes the count correct
//!   whatever changed around it (path, format, line numbers, redaction).
//! - **Skeletons** (`extract --compress`), keyed by a 128-bit hash of the language and the exact
//!   text that was parsed (the scanned text, secrets already redacted): the skeleton, or that the
//!   file has none. A hit skips the parse. Keyed by content, an entry serves the same text
//!   wherever it is and however its file was touched; only outcomes that are a pure function of
//!   the text are kept (a parse stopped by its time bound or a cancellation is not).
//!
//! - **Derived items**, attached to a file's entry like pieces and keyed the same way (display
//!   path and options digest), plus their kind: what a navigation tool derived from the shown
//!   text and wants to keep, the search index of the file and its outline (see
//!   [`DerivedKind`]). The cache does not know their types; the caller states each one's cost,
//!   which counts in the one byte budget. They live and die with their file's entry, so a
//!   changed file is indexed again, and only that file.
//!
//! - **Repository items**, keyed by a digest the caller makes of everything that shapes them
//!   (the repository's identity, the walk's options, the per-file options): what a navigation
//!   tool derived from a whole walk and wants to keep with the walk's
//!   [`crate::stages::source::Listing`], the search index of every file (see
//!   `driver::nav::index`). The caller checks the listing before it uses one, and states each
//!   one's cost, which counts in the one byte budget.
//!
//! Only outcomes that are a pure function of the file's content and metadata are kept: transient
//! failures (unreadable, changed during the walk) are always retried.

use crate::par::lock;
use crate::vocab::{Encoding, Finding, SkipReason, Text};
use std::any::Any;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Default budget for `GNAW_MCP_CACHE_BYTES`: 256 MiB.
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// Approximate bookkeeping cost of one entry beyond its text.
const ENTRY_OVERHEAD: usize = 96;

/// How many pieces (paths times option sets) one file entry keeps; the oldest goes first.
const MAX_PIECES: usize = 32;

/// What identifies a file's read outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileKey {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub max_file_size: u64,
    pub skip_hard_links: bool,
}

/// A read outcome as the cache keeps it: the text is shared, not copied, on a hit.
pub type ReadOutcome = Result<Arc<Text>, SkipReason>;

/// What [`Cache::piece`] finds: the file's text and its piece, or why the file was skipped.
pub type PieceLookup = Result<(Arc<Text>, Arc<Piece>), SkipReason>;

/// What the pipeline derived from one file's text under one set of options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The file is kept (and how it renders), or why it is skipped after reading.
    pub outcome: Result<PieceInfo, SkipReason>,
    /// Secrets found in it, kept or not.
    pub findings: Vec<Finding>,
}

/// A kept file's rendered piece, as far as counting and sizing need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceInfo {
    /// The scan redacted the text: the kept text is not the file's text (scan again to get it).
    pub redacted: bool,
    /// Exact token count of the piece (not the last one in json), 0 when not counting.
    pub tokens: usize,
    /// Its length in bytes.
    pub len: usize,
}

/// What kind of item a navigation tool derived from a file's shown text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DerivedKind {
    /// The file's search index (`rank::FileIndex`).
    SearchIndex,
    /// The file's definitions from the syntax stage (or that its language has no grammar).
    Outline,
    /// What the ranking's re-scoring needs of those definitions (`rank::SymbolFacts`).
    SymbolFacts,
}

/// A derived item as the cache keeps it: shared, of a type only its kind's owner knows.
pub type DerivedValue = Arc<dyn Any + Send + Sync>;

/// How many derived items one file entry keeps; the oldest goes first.
const MAX_DERIVED: usize = 16;

/// Hit and miss counters, for tests, logs and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Files indexed for search (each a miss of the search index: a new or changed file).
    pub index_built: u64,
    /// Search indexes and outlines found in the cache.
    pub derived_hits: u64,
    /// Outlines computed and kept.
    pub outlines_built: u64,
    pub file_hits: u64,
    pub file_misses: u64,
    pub piece_hits: u64,
    pub piece_misses: u64,
    pub count_hits: u64,
    pub count_misses: u64,
    pub skeleton_hits: u64,
    pub skeleton_misses: u64,
    /// Repository items found (a kept search index, before its listing is checked).
    pub repo_hits: u64,
    pub bytes: usize,
    pub entries: usize,
}

/// The cache. Shared by reference across worker threads.
pub struct Cache {
    limit: usize,
    /// Whether read outcomes (and so pieces and derived items, which live on them) are kept:
    /// false for [`Cache::counts_only`].
    keeps_files: bool,
    inner: Mutex<Inner>,
    file_hits: AtomicU64,
    file_misses: AtomicU64,
    piece_hits: AtomicU64,
    piece_misses: AtomicU64,
    count_hits: AtomicU64,
    count_misses: AtomicU64,
    skeleton_hits: AtomicU64,
    skeleton_misses: AtomicU64,
    index_built: AtomicU64,
    derived_hits: AtomicU64,
    outlines_built: AtomicU64,
    repo_hits: AtomicU64,
}

/// One derived item on a file's entry.
struct Derived {
    kind: DerivedKind,
    context: u128,
    path: Box<str>,
    value: DerivedValue,
    cost: usize,
}

/// One file's entry: its read outcome, the pieces derived from it, its cost in bytes and when it
/// was last used.
struct FileEntry {
    outcome: ReadOutcome,
    pieces: Vec<(u128, Box<str>, Arc<Piece>)>,
    derived: Vec<Derived>,
    cost: usize,
    used: u64,
}

/// Items kept by a 128-bit key: each item, when it was last used, and its cost in bytes.
type Keyed<V> = HashMap<u128, (V, u64, usize)>;

#[derive(Default)]
struct Inner {
    files: HashMap<FileKey, FileEntry>,
    counts: HashMap<(Encoding, u128), (usize, u64)>,
    /// Skeletons by [`skeleton_id`].
    skeletons: Keyed<Skeleton>,
    /// Repository items by the caller's key.
    repos: Keyed<DerivedValue>,
    bytes: usize,
    tick: u64,
}

impl Inner {
    /// The time of a use: one tick later than the last one.
    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }
}

/// Count a lookup as a hit or a miss.
fn tally(hit: bool, hits: &AtomicU64, misses: &AtomicU64) {
    let counter = if hit { hits } else { misses };
    counter.fetch_add(1, Ordering::Relaxed);
}

impl Cache {
    /// A cache holding at most `limit_bytes` of text and bookkeeping.
    pub fn new(limit_bytes: usize) -> Cache {
        Cache {
            limit: limit_bytes,
            keeps_files: true,
            inner: Mutex::new(Inner::default()),
            file_hits: AtomicU64::new(0),
            file_misses: AtomicU64::new(0),
            piece_hits: AtomicU64::new(0),
            piece_misses: AtomicU64::new(0),
            count_hits: AtomicU64::new(0),
            count_misses: AtomicU64::new(0),
            skeleton_hits: AtomicU64::new(0),
            skeleton_misses: AtomicU64::new(0),
            index_built: AtomicU64::new(0),
            derived_hits: AtomicU64::new(0),
            outlines_built: AtomicU64::new(0),
            repo_hits: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        lock(&self.inner)
    }

    /// The cached read outcome for `key`, if any.
    pub fn file(&self, key: &FileKey) -> Option<ReadOutcome> {
        let mut inner = self.lock();
        let tick = inner.next_tick();
        let hit = inner.files.get_mut(key).map(|e| {
            e.used = tick;
            e.outcome.clone()
        });
        tally(hit.is_some(), &self.file_hits, &self.file_misses);
        hit
    }

    /// Remember a read outcome, unless it is transient or too big to be worth keeping.
    pub fn put_file(&self, key: FileKey, value: &ReadOutcome) {
        if !self.keeps_files {
            return;
        }
        if matches!(
            value,
            Err(SkipReason::Unreadable { .. } | SkipReason::Changed)
        ) {
            return;
        }
        let cost = ENTRY_OVERHEAD + value.as_ref().map_or(0, |t| t.text.len());
        // One file may take at most an eighth of the budget, so a few huge files cannot evict
        // everything else.
        if cost > self.limit / 8 {
            return;
        }
        let mut inner = self.lock();
        let tick = inner.next_tick();
        let entry = FileEntry {
            outcome: value.clone(),
            pieces: Vec::new(),
            derived: Vec::new(),
            cost,
            used: tick,
        };
        if let Some(old) = inner.files.insert(key, entry) {
            inner.bytes -= old.cost;
        }
        inner.bytes += cost;
        self.evict(&mut inner);
    }

    /// The file's text and the piece derived from it at `path` under the options digested in
    /// `context` (see [`context_key`]), if both are cached; or, when the cached read outcome is
    /// a skip, that skip (no piece is derived from a skipped file).
    pub fn piece(&self, key: &FileKey, context: u128, path: &str) -> Option<PieceLookup> {
        let mut inner = self.lock();
        let tick = inner.next_tick();
        let hit = inner.files.get_mut(key).and_then(|e| {
            let found = match &e.outcome {
                Err(reason) => Err(reason.clone()),
                Ok(text) => {
                    let (_, _, piece) = e
                        .pieces
                        .iter()
                        .find(|(c, p, _)| *c == context && **p == *path)?;
                    Ok((Arc::clone(text), Arc::clone(piece)))
                }
            };
            e.used = tick;
            Some(found)
        });
        drop(inner);
        match &hit {
            Some(Ok(_)) => {
                self.piece_hits.fetch_add(1, Ordering::Relaxed);
                self.file_hits.fetch_add(1, Ordering::Relaxed);
            }
            Some(Err(_)) => {
                self.file_hits.fetch_add(1, Ordering::Relaxed);
            }
            None => {
                self.piece_misses.fetch_add(1, Ordering::Relaxed);
            }
        }
        hit
    }

    /// Remember the piece derived from the file `key` at `path` under `context`. Kept only while
    /// the file's own entry is (so never for a file too recently changed to be cached).
    pub fn put_piece(&self, key: &FileKey, context: u128, path: &str, piece: Piece) {
        let cost = piece_cost(path, &piece);
        let mut inner = self.lock();
        let Some(entry) = inner.files.get_mut(key) else {
            return;
        };
        let mut freed = 0;
        entry.pieces.retain(|(c, p, old)| {
            let same = *c == context && **p == *path;
            if same {
                freed += piece_cost(p, old);
            }
            !same
        });
        if entry.pieces.len() >= MAX_PIECES {
            let (_, p, old) = entry.pieces.remove(0);
            freed += piece_cost(&p, &old);
        }
        entry.pieces.push((context, path.into(), Arc::new(piece)));
        entry.cost = entry.cost + cost - freed;
        inner.bytes = inner.bytes + cost - freed;
        self.evict(&mut inner);
    }

    /// The item of `kind` derived from the file `key` at `path` under `context`, if kept.
    pub fn derived(
        &self,
        key: &FileKey,
        context: u128,
        path: &str,
        kind: DerivedKind,
    ) -> Option<DerivedValue> {
        let mut inner = self.lock();
        let tick = inner.next_tick();
        let entry = inner.files.get_mut(key)?;
        let found = entry
            .derived
            .iter()
            .find(|d| d.kind == kind && d.context == context && *d.path == *path)
            .map(|d| Arc::clone(&d.value))?;
        entry.used = tick;
        drop(inner);
        self.derived_hits.fetch_add(1, Ordering::Relaxed);
        Some(found)
    }

    /// Remember an item of `kind` derived from the file `key` at `path` under `context`, which
    /// takes `cost` bytes. Kept only while the file's own entry is (so never for a file too
    /// recently changed to be cached, nor one too big to be).
    pub fn put_derived(
        &self,
        key: &FileKey,
        context: u128,
        path: &str,
        kind: DerivedKind,
        value: DerivedValue,
        cost: usize,
    ) {
        let counter = match kind {
            DerivedKind::SearchIndex => Some(&self.index_built),
            DerivedKind::Outline => Some(&self.outlines_built),
            DerivedKind::SymbolFacts => None,
        };
        if let Some(counter) = counter {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        let cost = ENTRY_OVERHEAD + path.len() + cost;
        if cost > self.limit / 8 {
            return;
        }
        let mut inner = self.lock();
        let Some(entry) = inner.files.get_mut(key) else {
            return;
        };
        let mut freed = 0;
        entry.derived.retain(|d| {
            let same = d.kind == kind && d.context == context && *d.path == *path;
            if same {
                freed += d.cost;
            }
            !same
        });
        if entry.derived.len() >= MAX_DERIVED {
            freed += entry.derived.remove(0).cost;
        }
        entry.derived.push(Derived {
            kind,
            context,
            path: path.into(),
            value,
            cost,
        });
        entry.cost = entry.cost + cost - freed;
        inner.bytes = inner.bytes + cost - freed;
        self.evict(&mut inner);
    }

    /// The token count of `text` in `enc`: from the cache when this exact text was counted
    /// before, else `count()`'s answer, which is then kept. The cache knows nothing of
    /// tokenizers: the caller counts.
    pub fn count(&self, enc: Encoding, text: &str, count: impl FnOnce() -> usize) -> usize {
        let key = (enc, hash128(text));
        {
            let mut inner = self.lock();
            let tick = inner.next_tick();
            if let Some((tokens, used)) = inner.counts.get_mut(&key) {
                *used = tick;
                let tokens = *tokens;
                drop(inner);
                self.count_hits.fetch_add(1, Ordering::Relaxed);
                return tokens;
            }
        }
        self.count_misses.fetch_add(1, Ordering::Relaxed);
        let tokens = count();
        let mut inner = self.lock();
        let tick = inner.next_tick();
        if inner.counts.insert(key, (tokens, tick)).is_none() {
            inner.bytes += ENTRY_OVERHEAD;
        }
        self.evict(&mut inner);
        tokens
    }

    /// The item under `key` in the map `pick` chooses, if any, now marked as just used.
    fn keyed<V: Clone>(&self, pick: fn(&mut Inner) -> &mut Keyed<V>, key: u128) -> Option<V> {
        let mut inner = self.lock();
        let tick = inner.next_tick();
        pick(&mut inner).get_mut(&key).map(|(v, used, _)| {
            *used = tick;
            v.clone()
        })
    }

    /// Keep `value` under `key` in the map `pick` chooses, at `cost` bytes, then evict.
    fn put_keyed<V>(
        &self,
        pick: fn(&mut Inner) -> &mut Keyed<V>,
        key: u128,
        value: V,
        cost: usize,
    ) {
        let mut inner = self.lock();
        let tick = inner.next_tick();
        let old = pick(&mut inner).insert(key, (value, tick, cost));
        inner.bytes = inner.bytes + cost - old.map_or(0, |(_, _, c)| c);
        self.evict(&mut inner);
    }

    /// The skeleton cached under `id` (see [`skeleton_id`]), if any.
    pub fn skeleton(&self, id: u128) -> Option<Skeleton> {
        let hit = self.keyed(|i| &mut i.skeletons, id);
        tally(hit.is_some(), &self.skeleton_hits, &self.skeleton_misses);
        hit
    }

    /// Remember the skeleton of the text `id` names, unless it is too big to be worth keeping.
    pub fn put_skeleton(&self, id: u128, skeleton: Skeleton) {
        let cost = ENTRY_OVERHEAD + skeleton.as_ref().map_or(0, |t| t.len());
        if cost <= self.limit / 8 {
            self.put_keyed(|i| &mut i.skeletons, id, skeleton, cost);
        }
    }

    /// The repository item kept under `key`, if any.
    pub fn repo_item(&self, key: u128) -> Option<DerivedValue> {
        let found = self.keyed(|i| &mut i.repos, key);
        if found.is_some() {
            self.repo_hits.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Forget the repository item under `key` (found out of date).
    pub fn remove_repo_item(&self, key: u128) {
        let mut inner = self.lock();
        if let Some((_, _, cost)) = inner.repos.remove(&key) {
            inner.bytes -= cost;
        }
    }

    /// Remember `value`, derived from a whole walk, under `key`; it takes `cost` bytes. Not
    /// kept when it would take more than half the budget.
    pub fn put_repo_item(&self, key: u128, value: DerivedValue, cost: usize) {
        let cost = ENTRY_OVERHEAD + cost;
        if cost <= self.limit / 2 {
            self.put_keyed(|i| &mut i.repos, key, value, cost);
        }
    }

    /// Whether the cache has room for work done on the side (at most 80% full): such work
    /// never makes the cache evict what calls put in it.
    pub fn has_room(&self) -> bool {
        self.lock().bytes <= self.limit / 10 * 8
    }

    /// Drop least recently used entries until the cache is within 90% of its limit.
    fn evict(&self, inner: &mut Inner) {
        if inner.bytes <= self.limit {
            return;
        }
        let target = self.limit / 10 * 9;
        let mut ages: Vec<(u64, bool, usize)> = inner
            .files
            .values()
            .map(|e| (e.used, true, e.cost))
            .chain(
                inner
                    .counts
                    .values()
                    .map(|(_, used)| (*used, false, ENTRY_OVERHEAD)),
            )
            .chain(
                inner
                    .skeletons
                    .values()
                    .map(|(_, used, cost)| (*used, false, *cost)),
            )
            .chain(
                inner
                    .repos
                    .values()
                    .map(|(_, used, cost)| (*used, false, *cost)),
            )
            .collect();
        ages.sort_unstable_by_key(|a| a.0);
        let mut freed = 0;
        let mut cutoff = 0;
        for (used, _, cost) in &ages {
            if inner.bytes - freed <= target {
                break;
            }
            freed += cost;
            cutoff = *used;
        }
        inner.files.retain(|_, e| e.used > cutoff);
        inner.counts.retain(|_, (_, used)| *used > cutoff);
        inner.skeletons.retain(|_, (_, used, _)| *used > cutoff);
        inner.repos.retain(|_, (_, used, _)| *used > cutoff);
        inner.bytes = inner.files.values().map(|e| e.cost).sum::<usize>()
            + inner.counts.len() * ENTRY_OVERHEAD
            + inner.skeletons.values().map(|(_, _, c)| c).sum::<usize>()
            + inner.repos.values().map(|(_, _, c)| c).sum::<usize>();
    }

    /// Counters and size.
    pub fn stats(&self) -> CacheStats {
        let inner = self.lock();
        CacheStats {
            index_built: self.index_built.load(Ordering::Relaxed),
            derived_hits: self.derived_hits.load(Ordering::Relaxed),
            outlines_built: self.outlines_built.load(Ordering::Relaxed),
            file_hits: self.file_hits.load(Ordering::Relaxed),
            file_misses: self.file_misses.load(Ordering::Relaxed),
            piece_hits: self.piece_hits.load(Ordering::Relaxed),
            piece_misses: self.piece_misses.load(Ordering::Relaxed),
            count_hits: self.count_hits.load(Ordering::Relaxed),
            count_misses: self.count_misses.load(Ordering::Relaxed),
            skeleton_hits: self.skeleton_hits.load(Ordering::Relaxed),
            skeleton_misses: self.skeleton_misses.load(Ordering::Relaxed),
            repo_hits: self.repo_hits.load(Ordering::Relaxed),
            bytes: inner.bytes,
            entries: inner.files.len()
                + inner.counts.len()
                + inner.skeletons.len()
                + inner.repos.len(),
        }
    }
}

/// A count or a skeleton as it is kept across runs: both are pure functions of their key (the
/// encoding and the hash of the counted text; the hash of the language and the parsed text),
/// so they hold in any later run of the same build. The CLI's disk cache
/// (`cli::disk_cache`) saves and loads them; gnaw-mcp never does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Persistent {
    Count {
        encoding: Encoding,
        key: u128,
        tokens: usize,
    },
    Skeleton {
        id: u128,
        skeleton: Skeleton,
    },
}

impl Cache {
    /// A cache of counts and skeletons only: read outcomes, and so pieces and derived items, are
    /// never kept. The CLI's one run reads each file once; keeping its text would only hold
    /// memory.
    pub fn counts_only(limit_bytes: usize) -> Cache {
        Cache {
            keeps_files: false,
            ..Cache::new(limit_bytes)
        }
    }

    /// Whether read outcomes and the pieces derived from them are kept (not for
    /// [`Cache::counts_only`]).
    pub fn keeps_files(&self) -> bool {
        self.keeps_files
    }

    /// Whether any count in `encoding` is kept.
    pub fn has_counts(&self, encoding: Encoding) -> bool {
        self.lock().counts.keys().any(|(e, _)| *e == encoding)
    }

    /// Keep `entries` (oldest first) as if they had been computed, each one tick after the
    /// last; returns the tick after the last one: an entry [`Cache::export_persistent`] shows
    /// with a later use was looked up or made after this import.
    pub fn import_persistent(&self, entries: impl IntoIterator<Item = Persistent>) -> u64 {
        let mut inner = self.lock();
        for entry in entries {
            let tick = inner.next_tick();
            match entry {
                Persistent::Count {
                    encoding,
                    key,
                    tokens,
                } => {
                    if inner
                        .counts
                        .insert((encoding, key), (tokens, tick))
                        .is_none()
                    {
                        inner.bytes += ENTRY_OVERHEAD;
                    }
                }
                Persistent::Skeleton { id, skeleton } => {
                    let cost = ENTRY_OVERHEAD + skeleton.as_ref().map_or(0, |t| t.len());
                    let old = inner.skeletons.insert(id, (skeleton, tick, cost));
                    inner.bytes = inner.bytes + cost - old.map_or(0, |(_, _, c)| c);
                }
            }
        }
        self.evict(&mut inner);
        inner.tick
    }

    /// Every count and skeleton kept, each with the tick of its last use (compare with what
    /// [`Cache::import_persistent`] returned).
    pub fn export_persistent(&self) -> Vec<(Persistent, u64)> {
        let inner = self.lock();
        let counts = inner
            .counts
            .iter()
            .map(|(&(encoding, key), &(tokens, used))| {
                let entry = Persistent::Count {
                    encoding,
                    key,
                    tokens,
                };
                (entry, used)
            });
        let skeletons = inner.skeletons.iter().map(|(&id, (skeleton, used, _))| {
            let entry = Persistent::Skeleton {
                id,
                skeleton: skeleton.clone(),
            };
            (entry, *used)
        });
        counts.chain(skeletons).collect()
    }
}

/// A text's skeleton as the cache keeps it: `None` when the text has none (nothing to elide).
pub type Skeleton = Option<Arc<str>>;

/// The key of the skeleton of `text` parsed as `language` (any hashable name of it).
pub fn skeleton_id(language: &impl Hash, text: &str) -> u128 {
    hash128(&(language, text))
}

/// What one piece costs the cache's budget.
fn piece_cost(path: &str, piece: &Piece) -> usize {
    ENTRY_OVERHEAD
        + path.len()
        + piece
            .findings
            .iter()
            .map(|f| 64 + f.path.len() + f.fingerprint.len())
            .sum::<usize>()
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
fn hash128<T: Hash + ?Sized>(value: &T) -> u128 {
    let mut a = DefaultHasher::new();
    value.hash(&mut a);
    let mut b = DefaultHasher::new();
    0x9e37_79b9_7f4a_7c15_u64.hash(&mut b);
    value.hash(&mut b);
    (u128::from(a.finish()) << 64) | u128::from(b.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ino: u64) -> FileKey {
        FileKey {
            dev: 1,
            ino,
            size: 10,
            mtime_ns: 5,
            ctime_ns: 5,
            max_file_size: 100,
            skip_hard_links: false,
        }
    }

    fn text(s: &str) -> ReadOutcome {
        Ok(Arc::new(Text::new(s.into(), s.len() as u64, false)))
    }

    #[test]
    fn counts_are_remembered_by_exact_text() {
        let c = Cache::new(1 << 20);
        let n = c.count(Encoding::O200kBase, "hello world", || 2);
        assert_eq!(c.count(Encoding::O200kBase, "hello world", || 99), n);
        c.count(Encoding::O200kBase, "hello world!", || 3);
        c.count(Encoding::Cl100kBase, "hello world", || 2);
        let s = c.stats();
        assert_eq!((s.count_hits, s.count_misses), (1, 3));
    }

    #[test]
    fn skeletons_are_kept_by_text_and_within_the_limit() {
        let c = Cache::new(8 * (ENTRY_OVERHEAD + 100));
        let id = skeleton_id(&"rust", "fn a() { 1 }");
        assert!(c.skeleton(id).is_none());
        c.put_skeleton(id, Some(Arc::from("fn a() { … }")));
        assert_eq!(c.skeleton(id), Some(Some(Arc::from("fn a() { … }"))));
        assert_ne!(skeleton_id(&"python", "fn a() { 1 }"), id);
        let none = skeleton_id(&"rust", "struct S;");
        c.put_skeleton(none, None);
        assert_eq!(c.skeleton(none), Some(None));
        for i in 0..50 {
            c.put_skeleton(
                skeleton_id(&"rust", &i.to_string()),
                Some(Arc::from("x".repeat(100))),
            );
        }
        assert!(c.stats().bytes <= 8 * (ENTRY_OVERHEAD + 100));
        let s = c.stats();
        assert_eq!((s.skeleton_hits, s.skeleton_misses), (2, 1));
    }

    #[test]
    fn transient_outcomes_are_not_kept_and_lru_evicts() {
        let c = Cache::new(8 * (ENTRY_OVERHEAD + 100));
        c.put_file(key(1), &Err(SkipReason::Changed));
        assert!(c.file(&key(1)).is_none());
        for i in 0..50 {
            c.put_file(key(i), &text(&"x".repeat(100)));
            // Keep touching entry 0 so it stays recent.
            assert!(c.file(&key(0)).is_some(), "{i}");
        }
        assert!(c.file(&key(1)).is_none(), "old entries are evicted");
        assert!(c.stats().bytes <= 8 * (ENTRY_OVERHEAD + 100));
    }

    #[test]
    fn persistent_entries_round_trip_and_tell_what_this_run_used() {
        let c = Cache::counts_only(1 << 20);
        c.put_file(key(1), &text("abc"));
        assert!(
            c.file(&key(1)).is_none(),
            "a counts-only cache keeps no text"
        );
        assert!(!c.keeps_files());
        let mark = c.import_persistent([
            Persistent::Count {
                encoding: Encoding::O200kBase,
                key: hash128("old"),
                tokens: 7,
            },
            Persistent::Count {
                encoding: Encoding::O200kBase,
                key: hash128("used"),
                tokens: 9,
            },
            Persistent::Skeleton {
                id: 42,
                skeleton: Some(Arc::from("fn a() { … }")),
            },
        ]);
        assert_eq!(
            c.count(Encoding::O200kBase, "used", || 99),
            9,
            "an imported count is a hit"
        );
        c.count(Encoding::Cl100kBase, "new", || 3);
        let mut out = c.export_persistent();
        out.sort_by_key(|(_, used)| *used);
        let used: Vec<bool> = out.iter().map(|(_, u)| *u > mark).collect();
        assert_eq!(used, [false, false, true, true]);
        assert!(
            out.iter()
                .any(|(e, _)| matches!(e, Persistent::Skeleton { id: 42, .. }))
        );
        assert!(out.iter().any(|(e, _)| *e
            == Persistent::Count {
                encoding: Encoding::Cl100kBase,
                key: hash128("new"),
                tokens: 3
            }));
    }
}
