//! The warm cache gnaw-mcp keeps between calls, in memory only (nothing is ever written).
//! The CLI keeps one for its run too ([`Cache::counts_only`]), whose counts and skeletons
//! ([`Persistent`]) its disk cache (`cli::disk_cache`) loads before and saves after; this
//! module itself never touches a file.
//!
//! Typed stores under one byte budget, in one least-recently-used order across them all, each
//! counting its own hits, misses, insertions and evictions (the mechanism: `store.rs`; the
//! counters and the [`CacheStats`] made of them: `stats.rs`). The stores:
//!
//! - **Files**, keyed by what the walk's `lstat` saw, `(device, inode, size, mtime_ns, ctime_ns)`,
//!   plus the read options that shape the outcome: the read stage's result (the text and whether
//!   it was lossy, or why the file is skipped). A hit skips the open and the read. Any write to a
//!   file moves its mtime and ctime, and a rename or swap gives another inode or file type, so a
//!   changed file is always read again.
//! - **Pieces**, kept on a file's entry and keyed by its display path and a digest of every
//!   option that shapes what is derived from the text (format, line numbers, encoding, counting,
//!   secrets mode, allow list, the includes that bring sensitive files back): the sensitive-file
//!   and secrets-scan outcome, the findings, and the exact token count and byte length of the
//!   file's rendered piece. A hit skips the scan, the render and the count: a warm call on an
//!   unchanged repo costs the walk, one lookup per file and a sum. A piece lives and dies with its
//!   file's entry (its cost is the entry's), so it follows the same keys and the same racy-file
//!   rule; an entry keeps at most 32.
//! - **Token counts**, keyed by the encoding and a 128-bit hash of the exact rendered text that
//!   was counted. A hit skips tokenization. Keying by the text itself makes the count correct
//!   whatever changed around it (path, format, line numbers, redaction).
//! - **Skeletons** (`extract --compress`), keyed by a 128-bit hash of the language and the exact
//!   text that was parsed (the scanned text, secrets already redacted): the skeleton, or that the
//!   file has none. A hit skips the parse. Keyed by content, an entry serves the same text
//!   wherever it is and however its file was touched; only outcomes that are a pure function of
//!   the text are kept (a parse stopped by its time bound or a cancellation is not).
//! - **Derived items**, one store per kind ([`DerivedKind`]: a typed key carrying its items'
//!   type, made where they are made), kept on a file's entry like pieces and keyed the same way:
//!   what a navigation tool derived from the shown text and wants to keep, the search index of the
//!   file and its outline (see `driver::nav::repo_index`). The caller states each one's cost. They
//!   live and die with their file's entry, so a changed file is indexed again, and only that file;
//!   an entry keeps at most 16, of all kinds.
//! - **Repository items**, keyed by their type and a digest the caller makes of everything that
//!   shapes them (the repository's identity, the walk's options, the per-file options): what a
//!   navigation tool derived from a whole walk and wants to keep with the walk's
//!   [`crate::stages::source::Listing`], the search index of every file (see
//!   `driver::nav::repo_index`). The caller checks the listing before it uses one, and states each
//!   one's cost.
//!
//! The cache sits below the layers whose types it keeps as derived and repository items, so it
//! holds those as values of an erased type (`typed.rs`), each given back only to the kind that
//! kept it: callers get their own types back. The keys and the racy-file rule: `keys.rs`.
//!
//! Only outcomes that are a pure function of the file's content and metadata are kept: transient
//! failures (unreadable, changed during the walk) are always retried.

mod keys;
mod stats;
mod store;
mod typed;

pub use keys::{FileKey, context_key, is_racy, is_racy_at, now_ns, skeleton_id};
pub use stats::{CacheStats, Counters};
pub use typed::DerivedKind;

use crate::par::lock;
use crate::vocab::{Encoding, Finding, SkipReason, Text};
use keys::hash128;
use std::any::{TypeId, type_name};
use std::sync::{Arc, Mutex, MutexGuard};
use store::{Attached, Budgeted, Side, Store};
use typed::{Erased, Kinds};

/// Default budget for `GNAW_MCP_CACHE_BYTES`: 256 MiB.
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// Approximate bookkeeping cost of one entry beyond its text.
const ENTRY_OVERHEAD: usize = 96;

/// How many pieces (paths times option sets) one file entry keeps; the oldest goes first.
const MAX_PIECES: usize = 32;

/// How many derived items (of every kind) one file entry keeps; the oldest goes first.
const MAX_DERIVED: usize = 16;

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

/// One file's entry: its read outcome, and the pieces and derived items kept on it.
struct FileEntry {
    outcome: ReadOutcome,
    pieces: Attached<Arc<Piece>>,
    derived: Attached<Erased>,
}

/// The cache. Shared by reference across worker threads.
pub struct Cache {
    limit: usize,
    /// Whether read outcomes (and so pieces and derived items, which live on them) are kept:
    /// false for [`Cache::counts_only`].
    keeps_files: bool,
    inner: Mutex<Inner>,
}

/// The stores, and the clock of their one least-recently-used order.
struct Inner {
    clock: u64,
    /// Read outcomes.
    files: Store<FileKey, FileEntry>,
    /// Token counts, by encoding and hash of the counted text.
    counts: Store<(Encoding, u128), usize>,
    /// Skeletons, by [`skeleton_id`].
    skeletons: Store<u128, Skeleton>,
    /// Repository items, by their type and the caller's key.
    repos: Store<(TypeId, u128), Erased>,
    /// Kept on the files' entries.
    pieces: Side,
    /// Kept on the files' entries, one side store per kind.
    derived: Kinds,
}

impl Inner {
    /// Empty stores under a budget of `limit` bytes: a file, a skeleton or a derived item may
    /// take at most an eighth of it (so a few huge ones cannot evict everything else), a
    /// repository item half. Each store's counters fill in the fields of [`CacheStats`] named
    /// after it.
    fn new(limit: usize) -> Inner {
        let (eighth, half, any) = (limit / 8, limit / 2, usize::MAX);
        Inner {
            clock: 0,
            files: Store::new(
                "files",
                |c, s| (s.file_hits, s.file_misses) = (c.hits, c.misses),
                eighth,
            ),
            counts: Store::new(
                "counts",
                |c, s| (s.count_hits, s.count_misses) = (c.hits, c.misses),
                any,
            ),
            skeletons: Store::new(
                "skeletons",
                |c, s| (s.skeleton_hits, s.skeleton_misses) = (c.hits, c.misses),
                eighth,
            ),
            repos: Store::new("repository items", |c, s| s.repo_hits = c.hits, half),
            pieces: Side::new(
                "pieces",
                |c, s| (s.piece_hits, s.piece_misses) = (c.hits, c.misses),
                MAX_PIECES,
                any,
            ),
            derived: Kinds::new(MAX_DERIVED, eighth),
        }
    }

    /// The time of a use: one tick later than the last one.
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// The stores that draw from the budget (the side stores' items are their files').
    fn budgeted(&mut self) -> [&mut dyn Budgeted; 4] {
        [
            &mut self.files,
            &mut self.counts,
            &mut self.skeletons,
            &mut self.repos,
        ]
    }

    /// The bytes kept.
    fn bytes(&mut self) -> usize {
        self.budgeted().iter().map(|s| s.bytes()).sum()
    }
}

impl Cache {
    /// A cache holding at most `limit_bytes` of text and bookkeeping.
    pub fn new(limit_bytes: usize) -> Cache {
        Cache {
            limit: limit_bytes,
            keeps_files: true,
            inner: Mutex::new(Inner::new(limit_bytes)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        lock(&self.inner)
    }

    /// Drop least recently used entries, of every store, until the cache is within 90% of its
    /// limit, when it is over it.
    fn evict(&self, inner: &mut Inner) {
        store::evict(self.limit, &mut inner.budgeted());
    }

    /// The cached read outcome for `key`, if any.
    pub fn file(&self, key: &FileKey) -> Option<ReadOutcome> {
        let mut inner = self.lock();
        let now = inner.tick();
        inner.files.get(key, now).map(|e| e.outcome.clone())
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
        let entry = FileEntry {
            outcome: value.clone(),
            pieces: Attached::default(),
            derived: Attached::default(),
        };
        let mut inner = self.lock();
        let now = inner.tick();
        if inner.files.insert(key, entry, cost, now) {
            self.evict(&mut inner);
        }
    }

    /// The file's text and the piece derived from it at `path` under the options digested in
    /// `context` (see [`context_key`]), if both are cached; or, when the cached read outcome is
    /// a skip, that skip (no piece is derived from a skipped file). Either is a use (and a hit)
    /// of the file's entry; a lookup that finds no piece is a miss of the pieces, not of the
    /// files.
    pub fn piece(&self, key: &FileKey, context: u128, path: &str) -> Option<PieceLookup> {
        let mut inner = self.lock();
        let now = inner.tick();
        let Inner { files, pieces, .. } = &mut *inner;
        let found = match files.peek(key) {
            Some(FileEntry {
                outcome: Err(reason),
                ..
            }) => Some(Err(reason.clone())),
            Some(FileEntry {
                outcome: Ok(text),
                pieces: on,
                ..
            }) => pieces
                .get(Some(on), (context, path), |_| true)
                .map(|piece| Ok((Arc::clone(text), Arc::clone(piece)))),
            None => {
                // No entry to find the piece on: still a miss of the pieces.
                pieces.get::<Arc<Piece>>(None, (context, path), |_| true);
                None
            }
        };
        if found.is_some() {
            files.touch(key, now, true);
        }
        found
    }

    /// Remember the piece derived from the file `key` at `path` under `context`. Kept only while
    /// the file's own entry is (so never for a file too recently changed to be cached).
    pub fn put_piece(&self, key: &FileKey, context: u128, path: &str, piece: Piece) {
        let cost = piece_cost(path, &piece);
        let mut inner = self.lock();
        let Inner { files, pieces, .. } = &mut *inner;
        let item = ((context, path), Arc::new(piece), cost);
        let capped = pieces.attach((files, key), |e| &mut e.pieces, item, |_| true);
        if capped.is_some() {
            pieces.evicted();
        }
        self.evict(&mut inner);
    }

    /// The item of `kind` derived from the file `key` at `path` under `context`, if kept (a
    /// use of the file's entry).
    pub fn derived<V: Clone + 'static>(
        &self,
        kind: &DerivedKind<V>,
        key: &FileKey,
        context: u128,
        path: &str,
    ) -> Option<V> {
        let mut inner = self.lock();
        let now = inner.tick();
        let Inner { files, derived, .. } = &mut *inner;
        let on = files.peek(key).map(|e| &e.derived);
        let is = |item: &Erased| item.is(kind.name());
        let found = derived
            .of(kind)
            .get(on, (context, path), is)?
            .get(kind.name());
        files.touch(key, now, false);
        found
    }

    /// Remember an item of `kind` derived from the file `key` at `path` under `context`, which
    /// takes `cost` bytes. Kept only while the file's own entry is (so never for a file too
    /// recently changed to be cached, nor one too big to be).
    pub fn put_derived<V: Send + Sync + 'static>(
        &self,
        kind: &DerivedKind<V>,
        key: &FileKey,
        context: u128,
        path: &str,
        value: V,
        cost: usize,
    ) {
        let cost = ENTRY_OVERHEAD + path.len() + cost;
        let mut inner = self.lock();
        let Inner { files, derived, .. } = &mut *inner;
        let item = ((context, path), Erased::new(kind.name(), value), cost);
        let is = |item: &Erased| item.is(kind.name());
        let capped = derived
            .of(kind)
            .attach((files, key), |e| &mut e.derived, item, is);
        if let Some(item) = capped {
            derived.evicted(&item);
        }
        self.evict(&mut inner);
    }

    /// The token count of `text` in `enc`: from the cache when this exact text was counted
    /// before, else `count()`'s answer, which is then kept. The cache knows nothing of
    /// tokenizers: the caller counts.
    pub fn count(&self, enc: Encoding, text: &str, count: impl FnOnce() -> usize) -> usize {
        let key = (enc, hash128(text));
        {
            let mut inner = self.lock();
            let now = inner.tick();
            if let Some(tokens) = inner.counts.get(&key, now) {
                return *tokens;
            }
        }
        let tokens = count();
        let mut inner = self.lock();
        let now = inner.tick();
        inner.counts.insert(key, tokens, ENTRY_OVERHEAD, now);
        self.evict(&mut inner);
        tokens
    }

    /// The skeleton cached under `id` (see [`skeleton_id`]), if any.
    pub fn skeleton(&self, id: u128) -> Option<Skeleton> {
        let mut inner = self.lock();
        let now = inner.tick();
        inner.skeletons.get(&id, now).cloned()
    }

    /// Remember the skeleton of the text `id` names, unless it is too big to be worth keeping.
    pub fn put_skeleton(&self, id: u128, skeleton: Skeleton) {
        let cost = skeleton_cost(&skeleton);
        let mut inner = self.lock();
        let now = inner.tick();
        if inner.skeletons.insert(id, skeleton, cost, now) {
            self.evict(&mut inner);
        }
    }

    /// The repository item of type `T` kept under `key`, if any.
    pub fn repo_item<T: Send + Sync + 'static>(&self, key: u128) -> Option<Arc<T>> {
        let mut inner = self.lock();
        let now = inner.tick();
        let found = inner.repos.get(&(TypeId::of::<T>(), key), now)?;
        found.get(type_name::<T>())
    }

    /// Forget the repository item of type `T` under `key` (found out of date).
    pub fn remove_repo_item<T: 'static>(&self, key: u128) {
        self.lock().repos.remove(&(TypeId::of::<T>(), key));
    }

    /// Remember `value`, derived from a whole walk, under `key`; it takes `cost` bytes. Not
    /// kept when it would take more than half the budget.
    pub fn put_repo_item<T: Send + Sync + 'static>(&self, key: u128, value: Arc<T>, cost: usize) {
        let (key, value) = (
            (TypeId::of::<T>(), key),
            Erased::new(type_name::<T>(), value),
        );
        let mut inner = self.lock();
        let now = inner.tick();
        if inner.repos.insert(key, value, ENTRY_OVERHEAD + cost, now) {
            self.evict(&mut inner);
        }
    }

    /// Whether the cache has room for work done on the side (at most 80% full): such work
    /// never makes the cache evict what calls put in it.
    pub fn has_room(&self) -> bool {
        self.lock().bytes() <= self.limit / 10 * 8
    }

    /// Counters and size, each store's counters filling in the fields they show in.
    pub fn stats(&self) -> CacheStats {
        let mut inner = self.lock();
        let mut stats = CacheStats::default();
        for store in inner.budgeted() {
            store.counted().report(&mut stats);
            stats.bytes += store.bytes();
            stats.entries += store.len();
        }
        for side in std::iter::once(&inner.pieces).chain(inner.derived.iter()) {
            side.counted().report(&mut stats);
        }
        stats
    }
}

/// A count or a skeleton as it is kept across runs: both are pure functions of their key (the
/// encoding and the hash of the counted text; the hash of the language and the parsed text),
/// so they hold in any later run of the same build. The CLI's disk cache
/// (`cli::disk_cache`) saves and loads them; gnaw-mcp never does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Persistent {
    /// A token count of a text.
    Count {
        /// The encoding counted in.
        encoding: Encoding,
        /// The hash of the counted text.
        key: u128,
        /// Its token count.
        tokens: usize,
    },
    /// The skeleton (`compress`) of a parsed text.
    Skeleton {
        /// Its key ([`skeleton_id`]: the language and the text).
        id: u128,
        /// The skeleton.
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
        self.lock()
            .counts
            .iter()
            .any(|((e, _), _, _)| *e == encoding)
    }

    /// Keep `entries` (oldest first) as if they had been computed, each one tick after the
    /// last (not counted as insertions, nor bounded by the cost one item may take); returns the
    /// tick after the last one: an entry [`Cache::export_persistent`] shows with a later use
    /// was looked up or made after this import.
    pub fn import_persistent(&self, entries: impl IntoIterator<Item = Persistent>) -> u64 {
        let mut inner = self.lock();
        for entry in entries {
            let now = inner.tick();
            match entry {
                Persistent::Skeleton { id, skeleton } => {
                    let cost = skeleton_cost(&skeleton);
                    inner.skeletons.restore(id, skeleton, cost, now);
                }
                Persistent::Count {
                    encoding,
                    key,
                    tokens,
                } => inner
                    .counts
                    .restore((encoding, key), tokens, ENTRY_OVERHEAD, now),
            }
        }
        self.evict(&mut inner);
        inner.clock
    }

    /// Every count and skeleton kept, each with the tick of its last use (compare with what
    /// [`Cache::import_persistent`] returned).
    pub fn export_persistent(&self) -> Vec<(Persistent, u64)> {
        let inner = self.lock();
        let counts = inner
            .counts
            .iter()
            .map(|(&(encoding, key), &tokens, used)| {
                let entry = Persistent::Count {
                    encoding,
                    key,
                    tokens,
                };
                (entry, used)
            });
        let skeletons = inner.skeletons.iter().map(|(&id, skeleton, used)| {
            let entry = Persistent::Skeleton {
                id,
                skeleton: skeleton.clone(),
            };
            (entry, used)
        });
        counts.chain(skeletons).collect()
    }
}

/// What one skeleton costs the cache's budget.
fn skeleton_cost(skeleton: &Skeleton) -> usize {
    ENTRY_OVERHEAD + skeleton.as_ref().map_or(0, |t| t.len())
}

/// A text's skeleton as the cache keeps it: `None` when the text has none (nothing to elide).
pub type Skeleton = Option<Arc<str>>;

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

#[cfg(test)]
mod tests;
