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

use super::session::{NavError, Session};
use crate::cache::{DerivedKind, FileKey};
use crate::driver::file::{Body, FileContext};
use crate::stages::rank::FileIndex;
use crate::stages::syntax;
use crate::vocab::Symbol;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

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
}

/// One indexed file.
pub struct IndexedFile {
    /// Its path as shown.
    pub path: String,
    /// Its shown text (secrets redacted under the policy in force).
    pub body: Body,
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
        outline_of(ctx, self.key.as_ref(), &self.path, &self.body.text, stop)
    }
}

/// A repository's index for one call.
pub struct RepoIndex {
    /// The files indexed, in the walk's order.
    pub files: Vec<IndexedFile>,
    /// Files not indexed, by reason (`binary`, `too_large`, `sensitive`, ...).
    pub not_searched: BTreeMap<&'static str, usize>,
    pub status: IndexStatus,
}

/// Walk the session's repository and index every kept file: the warm cache's index when the
/// file is unchanged, else built here from the shown text (on the worker threads, beside the
/// read and the scan).
pub fn index(session: &Session<'_, '_>, ctx: &FileContext<'_>) -> Result<RepoIndex, NavError> {
    let t0 = std::time::Instant::now();
    let sourced = session.walk()?;
    let t_walk = t0.elapsed();
    let built = AtomicUsize::new(0);
    let processed = session.each_named(ctx, &sourced.candidates, |c, path, (r, _)| {
        r.map(|body| {
            let key = ctx.cache_key(c);
            let index = index_of(ctx, key.as_ref(), &path, &body.text, &built);
            IndexedFile {
                path,
                body,
                index,
                key,
            }
        })
        .map_err(|reason| reason.kind())
    })?;
    let mut not_searched: BTreeMap<&'static str, usize> = BTreeMap::new();
    for s in &sourced.skipped {
        *not_searched.entry(s.reason.kind()).or_default() += 1;
    }
    let mut files = Vec::new();
    for r in processed {
        match r {
            Ok(f) => files.push(f),
            Err(kind) => *not_searched.entry(kind).or_default() += 1,
        }
    }
    let status = IndexStatus {
        files: files.len(),
        bytes: files.iter().map(|f| f.index.bytes()).sum(),
        text_bytes: files.iter().map(|f| f.index.text_len()).sum(),
        built: built.load(Ordering::Relaxed),
    };
    log::debug!(
        "search index: walk {t_walk:?}, files {:?}; {} files, {} bytes for {} bytes of text, {} indexed for this call",
        t0.elapsed() - t_walk,
        status.files,
        status.bytes,
        status.text_bytes,
        status.built
    );
    Ok(RepoIndex {
        files,
        not_searched,
        status,
    })
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
    let cache = ctx.cache.zip(key);
    if let Some((cache, key)) = cache
        && let Some(found) = cache.derived(key, ctx.context_key(), path, DerivedKind::SearchIndex)
        && let Ok(index) = found.downcast::<FileIndex>()
    {
        return index;
    }
    let index = Arc::new(FileIndex::build(path, text));
    built.fetch_add(1, Ordering::Relaxed);
    if let Some((cache, key)) = cache {
        let cost = index.bytes();
        cache.put_derived(
            key,
            ctx.context_key(),
            path,
            DerivedKind::SearchIndex,
            index.clone(),
            cost,
        );
    }
    index
}

/// The definitions of the file `key` shown as `path` with `text`, `None` when its language has
/// no grammar or the parse hit a bound: the warm cache's when it holds them, else parsed (and
/// kept, unless a bound or a cancellation stopped the parse).
fn outline_of(
    ctx: &FileContext<'_>,
    key: Option<&FileKey>,
    path: &str,
    text: &str,
    stop: &dyn Fn() -> bool,
) -> Option<Arc<Vec<Symbol>>> {
    type Kept = Option<Arc<Vec<Symbol>>>;
    let cache = ctx.cache.zip(key);
    if let Some((cache, key)) = cache
        && let Some(found) = cache.derived(key, ctx.context_key(), path, DerivedKind::Outline)
        && let Ok(kept) = found.downcast::<Kept>()
    {
        return (*kept).clone();
    }
    let (kept, cost): (Kept, usize) =
        match syntax::outline_with(path.as_bytes(), text, &ctx.parse, stop) {
            syntax::Outline::Parsed(symbols) => {
                let cost = symbols_cost(&symbols);
                (Some(Arc::new(symbols)), cost)
            }
            syntax::Outline::Unsupported => (None, 0),
            syntax::Outline::Skipped(_) => return None,
        };
    if let Some((cache, key)) = cache {
        cache.put_derived(
            key,
            ctx.context_key(),
            path,
            DerivedKind::Outline,
            Arc::new(kept.clone()),
            cost,
        );
    }
    kept
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
