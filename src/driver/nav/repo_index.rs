//! The search index of a repository as one call sees it: every file the walk lists and the
//! per-file step keeps (the same ignore, include/exclude, containment and secrets rules as
//! `extract`), each with its shown text and its [`FileIndex`] built from that text, so a
//! redacted span is never indexed.
//!
//! In gnaw-mcp the indexes live in the warm cache beside each file's text ([`DerivedKind`]),
//! keyed like the file's piece: what the walk's `lstat` saw (device, inode, size, mtime, ctime),
//! the display path and the options that shape the shown text. A warm call therefore re-indexes
//! exactly the files that changed (or appeared), and nothing else; [`IndexStatus::built`] counts
//! them. Outlines used by the ranking's re-scoring are kept the same way. Memory counts in the
//! cache's one byte budget (`GNAW_MCP_CACHE_BYTES`), and every answer states the index's size
//! beside the text it indexes ([`IndexStatus`]).
//!
//! What a call derives from the whole index is kept beside it the same way ([`derived`]): the
//! reference graph of its files and their ranks ([`Centrality`], what `overview` maps the
//! repository by; [`centrality`]), `overview`'s facts of the repository; each made the first
//! time a call asks for it and counted in the index's cost from then on.

use super::deferred::{self, Step};
use crate::cache::{Cache, DerivedKind, FileKey};
use crate::driver::call::request::{NavError, Request};
use crate::driver::call::session::Session;
use crate::driver::file::Processed;
use crate::driver::file::{Body, FileContext};
use crate::error::Error;
use crate::par::{self, lock};
use crate::stages::rank::{self, FileIndex, Graph, Postings, SymbolFacts};
use crate::stages::source::{self, Check, Listing};
use crate::stages::syntax;
use crate::vocab::{Candidate, EntryKind, Symbol};
use gnaw_sandbox::beneath::Stat;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// The most threads that parse files' outlines at once for one call (the parse workers are at
/// most three).
const MAX_PARSE_THREADS: usize = 3;

/// The search index of one call: its size beside the text it indexes, and how many files had to
/// be indexed for it (the others were unchanged since an earlier call and taken from the warm
/// cache).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexStatus {
    /// Files indexed.
    pub files: usize,
    /// What their indexes take in memory, in bytes.
    pub bytes: usize,
    /// The shown text they index, in bytes.
    pub text_bytes: usize,
    /// Files indexed for this call (new or changed, or every file without a warm cache).
    pub built: usize,
    /// What the index's postings (its files by term, built when a kept index is used again)
    /// take in memory, in bytes; 0 without them.
    pub postings_bytes: usize,
}

/// One indexed file.
#[derive(Clone)]
pub struct IndexedFile {
    /// Its path as shown.
    pub path: String,
    /// Its shown text (secrets redacted under the policy in force).
    pub body: Body,
    /// Its search index.
    pub index: Arc<FileIndex>,
    key: Option<FileKey>,
}

impl IndexedFile {
    /// Its definitions, from the warm cache when kept, else parsed (and kept).
    pub fn outline(
        &self,
        ctx: &FileContext<'_>,
        stop: &dyn Fn() -> bool,
    ) -> Option<Arc<Vec<Symbol>>> {
        self.outline_within(Shelf::of(ctx), &ctx.parse, stop)
    }

    /// [`IndexedFile::outline`], kept on `shelf`, parsed within `budget`.
    pub(super) fn outline_within(
        &self,
        shelf: Shelf<'_>,
        budget: &syntax::ParseBudget,
        stop: &dyn Fn() -> bool,
    ) -> Option<Arc<Vec<Symbol>>> {
        let (key, path) = (self.key.as_ref(), &self.path);
        outline_of(shelf, budget, key, path, &self.body.text, stop)
    }

    /// What the ranking's re-scoring needs of its definitions ([`SymbolFacts`]), from the warm
    /// cache when kept, else made from its outline (as `outline` gives it: the caller's memo of
    /// [`IndexedFile::outline`]) and kept.
    pub fn symbol_facts(
        &self,
        ctx: &FileContext<'_>,
        outline: impl FnOnce() -> Option<Arc<Vec<Symbol>>>,
    ) -> Option<Arc<SymbolFacts>> {
        let (shelf, key) = (Shelf::of(ctx), self.key.as_ref());
        if let Some(facts) = shelf.kept(&FACTS, key, &self.path) {
            return Some(facts);
        }
        let facts = Arc::new(SymbolFacts::of(&outline()?));
        shelf.keep(&FACTS, key, (&self.path, facts.clone(), facts.bytes()));
        Some(facts)
    }

    /// Its definitions when the warm cache holds them (`Some(None)`: its language has no
    /// grammar), else `None`; nothing is parsed.
    pub fn kept_outline(&self, ctx: &FileContext<'_>) -> Option<Option<Arc<Vec<Symbol>>>> {
        kept_outline(Shelf::of(ctx), self.key.as_ref(), &self.path)
    }

    /// Whether `shelf` holds its definitions (or knows its language has no grammar).
    pub(super) fn outline_is_kept(&self, shelf: Shelf<'_>) -> bool {
        kept_outline(shelf, self.key.as_ref(), &self.path).is_some()
    }
}

/// The definitions of an index's files as one call needs them: each file's taken once (from the
/// warm cache when kept, else parsed within the call's parse budget, and kept), and those a
/// step will need parsed ahead on as many threads as the parse workers ([`Outlines::prefetch`]).
pub struct Outlines<'a> {
    files: &'a [IndexedFile],
    ctx: &'a FileContext<'a>,
    stop: &'a (dyn Fn() -> bool + Sync),
    memo: Mutex<HashMap<usize, Option<Arc<Vec<Symbol>>>>>,
}

impl<'a> Outlines<'a> {
    /// The outlines of `files` for `ctx`'s call, none taken yet.
    pub fn new(
        files: &'a [IndexedFile],
        ctx: &'a FileContext<'a>,
        stop: &'a (dyn Fn() -> bool + Sync),
    ) -> Outlines<'a> {
        Outlines {
            files,
            ctx,
            stop,
            memo: Mutex::new(HashMap::new()),
        }
    }

    /// The definitions of file `i` (`None`: no grammar, or past a parse bound).
    pub fn get(&self, i: usize) -> Option<Arc<Vec<Symbol>>> {
        if let Some(found) = lock(&self.memo).get(&i) {
            return found.clone();
        }
        let found = self.files[i].outline(self.ctx, self.stop);
        lock(&self.memo).insert(i, found.clone());
        found
    }

    /// Take the files `wanted` now: those the warm cache holds at once, the others parsed on
    /// up to `MAX_PARSE_THREADS` threads.
    pub fn prefetch(&self, wanted: &[usize]) {
        let wanted: Vec<usize> = wanted
            .iter()
            .copied()
            .filter(|&i| {
                if lock(&self.memo).contains_key(&i) {
                    return false;
                }
                match self.files[i].kept_outline(self.ctx) {
                    Some(found) => {
                        lock(&self.memo).insert(i, found);
                        false
                    }
                    None => true,
                }
            })
            .collect();
        if wanted.is_empty() {
            return;
        }
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..par::threads().clamp(1, MAX_PARSE_THREADS).min(wanted.len()) {
                scope.spawn(|| {
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = wanted.get(k) else { break };
                        if (self.stop)() {
                            break;
                        }
                        self.get(i);
                    }
                });
            }
        });
    }
}

/// Where the warm cache keeps what is derived from one file's text under one call's options
/// (nowhere without a cache).
#[derive(Clone, Copy)]
pub struct Shelf<'a> {
    cache: Option<&'a Cache>,
    /// The key of the options that shape the shown text ([`FileContext::context_key`]).
    context: u128,
}

impl<'a> Shelf<'a> {
    /// The shelf of `ctx`'s call.
    pub fn of(ctx: &FileContext<'a>) -> Shelf<'a> {
        Shelf {
            cache: ctx.cache,
            context: ctx.context_key(),
        }
    }

    /// The same shelf without its cache, to carry past the call ([`Shelf::in_cache`]).
    pub fn detached(self) -> Shelf<'static> {
        Shelf {
            cache: None,
            context: self.context,
        }
    }

    /// The same shelf in `cache`, for work done after the call.
    pub fn in_cache(self, cache: &Cache) -> Shelf<'_> {
        Shelf {
            cache: Some(cache),
            context: self.context,
        }
    }

    /// The item of `kind` kept for the file `key` shown as `path`, if one is.
    fn kept<V: Clone + 'static>(
        self,
        kind: &DerivedKind<V>,
        key: Option<&FileKey>,
        path: &str,
    ) -> Option<V> {
        let (cache, key) = self.cache.zip(key)?;
        cache.derived(kind, key, self.context, path)
    }

    /// Keep `value`, about `cost` bytes, as the item of `kind` for the file `key` shown as
    /// `path` (nothing without a cache or a file key).
    fn keep<V: Send + Sync + 'static>(
        self,
        kind: &DerivedKind<V>,
        key: Option<&FileKey>,
        (path, value, cost): (&str, V, usize),
    ) {
        if let Some((cache, key)) = self.cache.zip(key) {
            cache.put_derived(kind, key, self.context, path, value, cost);
        }
    }
}

/// A file's search index, kept on the file's entry in the warm cache: each one kept is one
/// built (`index_built`).
const INDEXES: DerivedKind<Arc<FileIndex>> = DerivedKind::new("search indexes", |c, s| {
    s.index_built += c.insertions;
    s.derived_hits += c.hits;
});

/// A file's definitions (`None`: its language has no grammar), kept like its search index:
/// each one kept is one parsed (`outlines_built`).
const OUTLINES: DerivedKind<Option<Arc<Vec<Symbol>>>> = DerivedKind::new("outlines", |c, s| {
    s.outlines_built += c.insertions;
    s.derived_hits += c.hits;
});

/// What the ranking's re-scoring needs of a file's definitions, kept like its search index.
const FACTS: DerivedKind<Arc<SymbolFacts>> =
    DerivedKind::new("symbol facts", |c, s| s.derived_hits += c.hits);

/// A repository's index for one call.
pub struct RepoIndex {
    /// The files indexed, in the walk's order.
    pub files: Arc<Vec<IndexedFile>>,
    /// Their terms by term, when the index was kept from an earlier call.
    pub postings: Option<Arc<Postings>>,
    /// Files not indexed, by reason (`binary`, `too_large`, `sensitive`, ...).
    pub not_searched: BTreeMap<&'static str, usize>,
    /// How many files the index holds, and how many were indexed for this call.
    pub status: IndexStatus,
    /// The index as the warm cache keeps it, with its key, when it is kept: where its
    /// [`Centrality`] is kept too.
    kept: Option<(Weak<Kept>, u128)>,
}

/// The reference graph of an index's files ([`Graph`]) and each file's rank in it, not
/// personalized.
pub struct Centrality {
    /// The reference graph between the files.
    pub graph: Graph,
    /// Each file's rank in the graph, in the order of the index's files.
    pub ranks: Vec<f64>,
}

impl Centrality {
    /// The graph and ranks of `repo`'s files; `None` when `stop` said so.
    fn of(repo: &RepoIndex, stop: &dyn Fn() -> bool) -> Option<Centrality> {
        let paths: Vec<&str> = repo.files.iter().map(|f| f.path.as_str()).collect();
        let indexes: Vec<&FileIndex> = repo.files.iter().map(|f| &*f.index).collect();
        let graph = Graph::build(&paths, &indexes, stop)?;
        let ranks = graph.rank(None, stop)?;
        Some(Centrality { graph, ranks })
    }

    /// What it takes in memory, in bytes.
    pub fn bytes(&self) -> usize {
        self.graph.bytes() + std::mem::size_of_val(&*self.ranks)
    }
}

/// The [`Centrality`] of `repo`'s files: the one kept beside the index in the warm cache
/// (built and kept now if none is yet), else built for this call.
pub fn centrality(
    ctx: &FileContext<'_>,
    repo: &RepoIndex,
    stop: &dyn Fn() -> bool,
) -> Result<Arc<Centrality>, Error> {
    let t0 = std::time::Instant::now();
    let made = derived(ctx, repo, || {
        let c = Centrality::of(repo, stop)?;
        log::debug!(
            "search index: reference graph built in {:?}, {} links, {} bytes",
            t0.elapsed(),
            c.graph.link_count(),
            c.bytes()
        );
        let bytes = c.bytes();
        Some((c, bytes))
    });
    made.ok_or(Error::Cancelled)
}

/// What a call derives from a whole index (`overview`'s facts of the repository, the reference
/// graph), one value of each type `T`: the one kept beside the index in the warm cache, else
/// `make`'s (its value and about how many bytes it takes), kept there when the index is (and
/// counted in its cost from then on). `None` when `make` gives none (it was cancelled).
pub fn derived<T: Send + Sync + 'static>(
    ctx: &FileContext<'_>,
    repo: &RepoIndex,
    make: impl FnOnce() -> Option<(T, usize)>,
) -> Option<Arc<T>> {
    let kept = ctx
        .cache
        .zip(repo.kept.as_ref())
        .and_then(|(cache, (weak, key))| Some((cache, weak.upgrade()?, *key)));
    let Some((cache, kept, key)) = kept else {
        return make().map(|(value, _)| Arc::new(value));
    };
    let id = std::any::TypeId::of::<T>();
    let find = |kept: &Kept| -> Option<Arc<T>> {
        let derived = lock(&kept.derived);
        let (_, found, _) = derived.iter().find(|(t, _, _)| *t == id)?;
        Arc::clone(found).downcast::<T>().ok()
    };
    if let Some(found) = find(&kept) {
        return Some(found);
    }
    let (value, bytes) = make()?;
    {
        // Two calls may make it at once: the first one kept is used by both.
        let mut derived = lock(&kept.derived);
        if !derived.iter().any(|(t, _, _)| *t == id) {
            derived.push((id, Arc::new(value), bytes));
        }
    }
    // Its cost counts from now on, unless the cache holds another index under the key by now.
    let current = cache
        .repo_item::<Kept>(key)
        .is_some_and(|now| Arc::ptr_eq(&now, &kept));
    if current {
        cache.put_repo_item(key, kept.clone(), kept.cost_now());
    }
    find(&kept)
}

/// One value derived from a whole index: its type, the value, and about what it takes in bytes.
type Derived = (
    std::any::TypeId,
    Arc<dyn std::any::Any + Send + Sync>,
    usize,
);

/// A repository's index as the warm cache keeps it, with the listing of the walk it was built
/// from: it serves a later call only while a check of that listing finds nothing changed, or
/// only files changed in place (then those alone are done again).
struct Kept {
    listing: Listing,
    /// Each file the walk found, by path, with where its outcome is.
    found: Found,
    files: Arc<Vec<IndexedFile>>,
    not_searched: BTreeMap<&'static str, usize>,
    status: IndexStatus,
    /// What it was kept at, in bytes, before its postings.
    cost: usize,
    /// The files' terms by term, built the first time the index is used again (a repository
    /// searched once does not pay for them).
    postings: OnceLock<Arc<Postings>>,
    /// Set once idle work saw every file's outline kept (or not to be had).
    outlined: Arc<AtomicBool>,
    /// The order idle work parses the files' outlines in (positions in `files`), made by it at
    /// its first step; counted in `cost` from the start.
    order: OnceLock<Vec<u32>>,
    /// What calls derived from the whole index ([`derived`]: the files' reference graph and
    /// ranks, `overview`'s facts), one of each type, with about what each takes in bytes.
    derived: Mutex<Vec<Derived>>,
}

impl Kept {
    /// What it takes now, in bytes: its cost, and its postings' and graph's once built.
    fn cost_now(&self) -> usize {
        self.cost
            + self.postings.get().map_or(0, |p| p.bytes())
            + lock(&self.derived).iter().map(|d| d.2).sum::<usize>()
    }
}

/// Each file a walk found (sorted by path) with its outcome: its position in the index's files,
/// or why it is not searched; and what the walk itself left out, by reason.
#[derive(Clone, Default)]
struct Found {
    rels: Vec<Vec<u8>>,
    outcomes: Vec<Result<usize, &'static str>>,
    walk_skipped: BTreeMap<&'static str, usize>,
}

/// Open `req`'s session as a call that answers from the index does, and run `f` with it and its
/// file context: the per-file settings without token counts (the index's), findings unused (in
/// warn mode no scan is needed: they are part of neither the answer nor the index), and the
/// tokenizer built meanwhile when the answer is counted.
pub fn open_for_index<R>(
    req: &Request<'_>,
    f: impl FnOnce(&Session<'_, '_>, &FileContext<'_>) -> Result<R, NavError>,
) -> Result<R, NavError> {
    let session = Session::open(req)?;
    // A budget was prefetched by `Session::open` already.
    if session.counting() {
        crate::stages::count::prefetch(session.encoding());
    }
    let fo = session.file_options(false, None);
    let mut ctx = session.context(&fo)?;
    ctx.findings_unused = true;
    f(&session, &ctx)
}

/// The session's repository index: [`with_index`] with nothing more to do.
pub fn index(session: &Session<'_, '_>, ctx: &FileContext<'_>) -> Result<RepoIndex, NavError> {
    with_index(session, ctx, |repo| {
        Ok(RepoIndex {
            files: Arc::clone(&repo.files),
            postings: repo.postings.clone(),
            not_searched: repo.not_searched.clone(),
            status: repo.status,
            kept: repo.kept.clone(),
        })
    })
}

/// Run `f` on the session's repository index and return its answer.
///
/// The index: every file the walk keeps, each with its search index, taken from the warm cache
/// when the file is unchanged, else built here from the shown text (on the worker threads,
/// beside the read and the scan).
///
/// With a warm cache, the whole index is also kept, with the walk's [`Listing`] (when
/// everything the walk saw had settled and no file's outcome was transient), under a key made
/// of the repository's identity and every option that shapes the walk and the shown text. A
/// later call runs `f` on the kept index while the listing is checked on other threads (an
/// `lstat` of every directory, ignore file and file, beneath the repo), and answers with what
/// `f` gave only when the check finds nothing changed. When only files changed in place, their
/// per-file step is done again and the index updated (and kept anew); when more changed, it
/// walks and builds the index again (each unchanged file's own index still comes from the
/// cache). Then `f` runs again on the new index: `f` may run twice, so it must do nothing but
/// compute its answer.
pub fn with_index<R: Send>(
    session: &Session<'_, '_>,
    ctx: &FileContext<'_>,
    f: impl Fn(&RepoIndex) -> Result<R, NavError> + Sync,
) -> Result<R, NavError> {
    with_index_for(session, ctx, true, f)
}

/// [`with_index`], building the kept index's postings only when the call `wants_postings`
/// (they are still given when kept already): a call that looks no term up does not pay for
/// them.
pub fn with_index_for<R: Send>(
    session: &Session<'_, '_>,
    ctx: &FileContext<'_>,
    wants_postings: bool,
    f: impl Fn(&RepoIndex) -> Result<R, NavError> + Sync,
) -> Result<R, NavError> {
    let t0 = std::time::Instant::now();
    let stop = || session.cancelled();
    let kept_key = ctx
        .cache
        .map(|cache| (cache, session.repo_key(ctx, "search index")));
    if let Some((cache, key)) = kept_key
        && let Some(kept) = cache.repo_item::<Kept>(key)
    {
        let postings = match kept.postings.get() {
            Some(postings) => Some(postings),
            None if !wants_postings => None,
            None => {
                let files: Vec<&FileIndex> = kept.files.iter().map(|f| &*f.index).collect();
                let built = Postings::build(&files, &stop).ok_or(Error::Cancelled)?;
                // Two calls may build them at once: the first one kept is used by both.
                let _ = kept.postings.set(Arc::new(built));
                let postings = kept.postings.get().ok_or(Error::Cancelled)?;
                // Their cost counts from now on.
                cache.put_repo_item(key, kept.clone(), kept.cost_now());
                log::debug!(
                    "search index: postings built in {:?}, {} bytes",
                    t0.elapsed(),
                    postings.bytes()
                );
                Some(postings)
            }
        };
        let repo = RepoIndex {
            files: Arc::clone(&kept.files),
            postings: postings.map(Arc::clone),
            not_searched: kept.not_searched.clone(),
            status: IndexStatus {
                built: 0,
                postings_bytes: postings.map_or(0, |p| p.bytes()),
                ..kept.status
            },
            kept: Some((Arc::downgrade(&kept), key)),
        };
        let (checked, answer) = std::thread::scope(|s| {
            let check = crate::par::spawn(s, || {
                let found = kept
                    .listing
                    .check(&session.dir, crate::par::threads(), &stop);
                (found, t0.elapsed())
            });
            let answer = f(&repo);
            let checked = check
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            (checked, answer)
        });
        let (found, t_check) = checked;
        log::debug!(
            "search index: kept, {} entries checked in {t_check:?}: {}",
            kept.listing.entries(),
            match &found {
                Some(Check::Unchanged) => "unchanged".to_string(),
                Some(Check::Files(files)) => format!("{} files changed in place", files.len()),
                Some(Check::Changed) => "changed".to_string(),
                None => "(cancelled)".to_string(),
            }
        );
        match found {
            Some(Check::Unchanged) => {
                if !kept.outlined.load(Ordering::Relaxed) {
                    leave_outlines(session, ctx, key, Arc::downgrade(&kept));
                }
                return answer;
            }
            None => return Err(Error::Cancelled.into()),
            Some(Check::Files(files)) => {
                // Out of date: not checked again (the new state is kept when it may be).
                cache.remove_repo_item::<Kept>(key);
                let (repo, kept) = update(session, ctx, (cache, key), &kept, &files)?;
                leave_outlines(session, ctx, key, kept);
                return f(&repo);
            }
            Some(Check::Changed) => cache.remove_repo_item::<Kept>(key),
        }
    }
    let (repo, kept) = build(session, ctx, kept_key, t0)?;
    if let Some((_, key)) = kept_key {
        leave_outlines(session, ctx, key, kept);
    }
    f(&repo)
}

/// Leave the parsing of the outlines not kept yet of the files of the index `kept` for the
/// server's idle time, under its `key` (see [`super::idle`]). The work holds the index only
/// weakly, so memory stays the cache's to bound: it takes the index for one file's step at a
/// time, and ends at the first step after the cache let it go (evicted, replaced, out of date).
/// An index the cache did not keep (too big for it, or not to be kept) leaves no work.
fn leave_outlines(session: &Session<'_, '_>, ctx: &FileContext<'_>, key: u128, kept: Weak<Kept>) {
    let Some(now) = kept.upgrade() else {
        return;
    };
    let (count, done) = (now.files.len(), Arc::clone(&now.outlined));
    drop(now);
    let shelf = Shelf::of(ctx).detached();
    let step =
        move |i: usize, cache: &Cache, budget: &syntax::ParseBudget, busy: &dyn Fn() -> bool| {
            let Some(kept) = kept.upgrade() else {
                return Step::Gone;
            };
            // Sources first, then docs, tests, examples, generated and vendored files (the
            // default order's classes): when the budget runs out, what a query most likely
            // ranks is parsed. Made at the first step, in idle time, not by the call.
            let order = kept.order.get_or_init(|| {
                let files = &kept.files;
                let mut order: Vec<u32> = (0..files.len() as u32).collect();
                order.sort_by_key(|&k| rank::class_of(&files[k as usize].path) as u8);
                order
            });
            let (file, shelf) = (&kept.files[order[i] as usize], shelf.in_cache(cache));
            if file.outline_is_kept(shelf) {
                return Step::Kept;
            }
            file.outline_within(shelf, budget, busy);
            match (file.outline_is_kept(shelf), busy()) {
                (true, _) => Step::Parsed,
                (false, true) => Step::Interrupted,
                (false, false) => Step::NotParsed,
            }
        };
    session.leave(deferred::outlines(key, count, step, done));
}

/// The per-file step of a search index: the file's shown path and text with its index (from
/// the cache when kept), or why it is not searched; `built` counts the files indexed here.
fn step<'a>(
    ctx: &'a FileContext<'_>,
    built: &'a AtomicUsize,
) -> impl Fn(&Candidate, String, Processed) -> Result<IndexedFile, &'static str> + Sync + 'a {
    move |c, path, (r, _)| {
        r.map(|body| {
            let key = ctx.cache_key(c);
            let index = index_of(ctx, key.as_ref(), &path, &body.text, built);
            IndexedFile {
                path,
                body,
                index,
                key,
            }
        })
        .map_err(|reason| reason.kind())
    }
}

/// Walk the session's repository and index every kept file, keeping the whole index under
/// `kept_key` when it may be.
fn build(
    session: &Session<'_, '_>,
    ctx: &FileContext<'_>,
    kept_key: Option<(&Cache, u128)>,
    t0: std::time::Instant,
) -> Result<(RepoIndex, Weak<Kept>), NavError> {
    // The listing is made only for an index that may be kept.
    let (sourced, listing) = match kept_key {
        Some(_) => session.walk_listed()?,
        None => (session.walk()?, None),
    };
    let t_walk = t0.elapsed();
    let built = AtomicUsize::new(0);
    let processed = session.each_named(ctx, &sourced.candidates, step(ctx, &built))?;
    let mut found = Found::default();
    for s in &sourced.skipped {
        *found.walk_skipped.entry(s.reason.kind()).or_default() += 1;
    }
    let mut files = Vec::new();
    for (c, r) in sourced.candidates.iter().zip(processed) {
        found.rels.push(c.rel.clone());
        found.outcomes.push(r.map(|f| {
            files.push(f);
            files.len() - 1
        }));
    }
    let built = built.load(Ordering::Relaxed);
    log::debug!(
        "search index: walk {t_walk:?}, files {:?}; {} files, {built} indexed for this call",
        t0.elapsed() - t_walk,
        files.len(),
    );
    // Kept when no outcome depends on what the listing cannot see: a followed link's target.
    let followed = ctx.options.read.follow_links
        && sourced
            .candidates
            .iter()
            .any(|c| c.kind == EntryKind::Symlink);
    Ok(assemble(
        kept_key.zip(listing.filter(|_| !followed)),
        found,
        files,
        built,
        None,
    ))
}

/// The index `kept` holds with the files `changed` (each changed in place, with its new
/// `lstat`) done again: their per-file step, the rest as they were. Kept anew under
/// `kept_key` when it may be.
fn update(
    session: &Session<'_, '_>,
    ctx: &FileContext<'_>,
    kept_key: (&Cache, u128),
    kept: &Kept,
    changed: &[(Vec<u8>, Stat)],
) -> Result<(RepoIndex, Weak<Kept>), NavError> {
    let candidates: Vec<Candidate> = changed
        .iter()
        .map(|(rel, st)| source::candidate(rel.clone(), st))
        .collect();
    let built = AtomicUsize::new(0);
    let processed = session.each_named(ctx, &candidates, step(ctx, &built))?;
    let mut redone: Vec<Option<Result<IndexedFile, &'static str>>> =
        processed.into_iter().map(Some).collect();
    let mut found = kept.found.clone();
    let mut files = Vec::with_capacity(kept.files.len());
    // The positions of the files indexed again, when every file keeps its position.
    let mut moved = false;
    let mut reindexed: Vec<usize> = Vec::new();
    for (rel, outcome) in found.rels.iter().zip(found.outcomes.iter_mut()) {
        let now = match candidates.binary_search_by(|c| c.rel.as_slice().cmp(rel)) {
            Ok(at) => {
                let now = redone[at].take().unwrap_or(Err("changed"));
                moved |= now.is_ok() != outcome.is_ok();
                if now.is_ok() {
                    reindexed.push(files.len());
                }
                now
            }
            Err(_) => match *outcome {
                Ok(at) => Ok(kept.files[at].clone()),
                Err(kind) => Err(kind),
            },
        };
        *outcome = now.map(|f| {
            files.push(f);
            files.len() - 1
        });
    }
    // The kept postings, patched with the files indexed again (the next call has them at once).
    let postings = match kept.postings.get().filter(|_| !moved) {
        Some(p) => {
            let indexes: Vec<&FileIndex> = files.iter().map(|f| &*f.index).collect();
            let stop = || session.cancelled();
            let patched = p.patched(&indexes, &reindexed, &stop);
            Some(Arc::new(patched.ok_or(Error::Cancelled)?))
        }
        None => None,
    };
    let followed =
        ctx.options.read.follow_links && candidates.iter().any(|c| c.kind == EntryKind::Symlink);
    let listing = kept.listing.updated(changed).filter(|_| !followed);
    Ok(assemble(
        listing.map(|l| (kept_key, l)),
        found,
        files,
        built.load(Ordering::Relaxed),
        postings,
    ))
}

/// The index of `files` (the outcomes `found` says), `built` of them indexed for this call,
/// with their `postings` when known; kept under `keep`'s key with its listing unless an
/// outcome was transient, and then returned with a weak reference to what the cache keeps
/// (which never upgrades when it is not kept).
fn assemble(
    keep: Option<((&Cache, u128), Listing)>,
    found: Found,
    files: Vec<IndexedFile>,
    built: usize,
    postings: Option<Arc<Postings>>,
) -> (RepoIndex, Weak<Kept>) {
    let mut not_searched = found.walk_skipped.clone();
    for kind in found.outcomes.iter().filter_map(|o| o.err()) {
        *not_searched.entry(kind).or_default() += 1;
    }
    let status = IndexStatus {
        files: files.len(),
        bytes: files.iter().map(|f| f.index.bytes()).sum(),
        text_bytes: files.iter().map(|f| f.index.text_len()).sum(),
        built,
        postings_bytes: postings.as_ref().map_or(0, |p| p.bytes()),
    };
    let files = Arc::new(files);
    // A file's transient failure may be gone next time with no trace in any `lstat` (the
    // walk's own make it give no listing).
    let transient = found
        .outcomes
        .iter()
        .any(|o| matches!(o, Err("unreadable" | "changed")));
    let mut weak = Weak::new();
    let mut kept_at = None;
    if let Some(((cache, key), listing)) = keep
        && !transient
    {
        // The texts are shared with the file entries, but the kept index holds them while it
        // lives, so they count again here.
        let cost = listing.bytes()
            + status.bytes
            + status.text_bytes
            + found.rels.iter().map(|r| r.len() + 32).sum::<usize>()
            + files
                .iter()
                .map(|f| f.path.len() + std::mem::size_of::<IndexedFile>())
                .sum::<usize>()
            + files.len() * std::mem::size_of::<u32>();
        let kept = Kept {
            listing,
            found,
            files: Arc::clone(&files),
            not_searched: not_searched.clone(),
            status,
            cost,
            postings: OnceLock::new(),
            outlined: Arc::default(),
            order: OnceLock::new(),
            derived: Mutex::new(Vec::new()),
        };
        let mut cost_now = cost;
        if let Some(p) = &postings {
            cost_now += p.bytes();
            let _ = kept.postings.set(Arc::clone(p));
        }
        let kept = Arc::new(kept);
        weak = Arc::downgrade(&kept);
        kept_at = Some((weak.clone(), key));
        cache.put_repo_item(key, kept, cost_now);
    }
    let repo = RepoIndex {
        files,
        postings,
        not_searched,
        status,
        kept: kept_at,
    };
    (repo, weak)
}

/// The search index of the file `key` shown as `path` with `text`: the warm cache's when it
/// holds one for this file, path and options, else built from `text` (and kept).
fn index_of(
    ctx: &FileContext<'_>,
    key: Option<&FileKey>,
    path: &str,
    text: &str,
    built: &AtomicUsize,
) -> Arc<FileIndex> {
    let shelf = Shelf::of(ctx);
    if let Some(index) = shelf.kept(&INDEXES, key, path) {
        return index;
    }
    let index = Arc::new(FileIndex::build(path, text));
    built.fetch_add(1, Ordering::Relaxed);
    shelf.keep(&INDEXES, key, (path, index.clone(), index.bytes()));
    index
}

/// The definitions of the file `key` shown as `path` with `text`, `None` when its language has
/// no grammar or the parse hit a bound: the warm cache's when it holds them, else parsed (and
/// kept, unless a bound or a cancellation stopped the parse).
fn outline_of(
    shelf: Shelf<'_>,
    budget: &syntax::ParseBudget,
    key: Option<&FileKey>,
    path: &str,
    text: &str,
    stop: &dyn Fn() -> bool,
) -> Option<Arc<Vec<Symbol>>> {
    type Kept = Option<Arc<Vec<Symbol>>>;
    if let Some(kept) = kept_outline(shelf, key, path) {
        return kept;
    }
    let (outline, cost): (Kept, usize) =
        match syntax::outline_with(path.as_bytes(), text, budget, stop) {
            syntax::Outline::Parsed(symbols) => {
                let cost = symbols_cost(&symbols);
                (Some(Arc::new(symbols)), cost)
            }
            syntax::Outline::Unsupported => (None, 0),
            syntax::Outline::Skipped(_) => return None,
        };
    shelf.keep(&OUTLINES, key, (path, outline.clone(), cost));
    outline
}

/// The definitions of the file `key` shown as `path` as the warm cache keeps them, if it does.
fn kept_outline(
    shelf: Shelf<'_>,
    key: Option<&FileKey>,
    path: &str,
) -> Option<Option<Arc<Vec<Symbol>>>> {
    shelf.kept(&OUTLINES, key, path)
}

/// About what an outline takes in memory.
fn symbols_cost(symbols: &[Symbol]) -> usize {
    Symbol::walk(symbols)
        .into_iter()
        .map(|(_, s)| {
            std::mem::size_of::<Symbol>()
                + s.name.len()
                + s.signature.len()
                + s.doc.as_ref().map_or(0, String::len)
        })
        .sum()
}
