//! Work a search leaves for gnaw-mcp's idle time: the outline of every file of its index,
//! parsed while no call waits, so that a later query's re-scoring and regions find the outlines
//! kept instead of waiting for tree-sitter.
//!
//! It reads no file: it parses the shown (redacted) texts the index already holds, and keeps
//! each outline in the warm cache exactly as a call would ([`IndexedFile::outline_within`]).
//! It is bounded like a call: one parse budget (CPU time and bytes) for the whole repository,
//! each parse within its own bounds, and it stops adding once the cache is 80% full
//! ([`Cache::has_room`]), so it never makes the cache evict what calls put there. A call that
//! arrives stops the parse in progress; a file stopped that way [`MAX_INTERRUPTIONS`] times is
//! left for a call to parse.

use super::index::{IndexedFile, Shelf};
use crate::cache::Cache;
use crate::spec::IdleWork;
use crate::stages::syntax::ParseBudget;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The longest run of idle work before the worker looks for a call again (a parse already
/// started finishes first, unless a call waits).
const SLICE: Duration = Duration::from_millis(50);

/// How many times a file's parse may be stopped by an arriving call before it is left alone:
/// a file that takes longer to parse than the gaps between calls would otherwise be parsed
/// again and again for nothing.
pub const MAX_INTERRUPTIONS: usize = 3;

/// The work of parsing every outline of `files` not kept yet on `shelf`, left under `key`;
/// `done` is set once every file was seen.
pub fn outlines(
    key: u128,
    files: Arc<Vec<IndexedFile>>,
    shelf: Shelf<'_>,
    done: Arc<AtomicBool>,
) -> IdleWork {
    let shelf = shelf.detached();
    let budget = ParseBudget::default();
    let (mut next, mut interrupted, mut parsed) = (0, 0, 0);
    let started = Instant::now();
    IdleWork {
        key,
        slice: Box::new(move |cache: &Cache, waiting: &dyn Fn() -> bool| {
            let shelf = shelf.in_cache(cache);
            let t0 = Instant::now();
            while let Some(file) = files.get(next) {
                if waiting() || t0.elapsed() > SLICE {
                    return false;
                }
                if !cache.has_room() {
                    log::info!(
                        "idle: outlines stopped at {next} of {} files: the warm cache is 80% full",
                        files.len()
                    );
                    return true;
                }
                if !file.outline_is_kept(shelf) {
                    file.outline_within(shelf, &budget, waiting);
                    if !file.outline_is_kept(shelf) && waiting() {
                        interrupted += 1;
                        if interrupted < MAX_INTERRUPTIONS {
                            return false;
                        }
                    }
                    parsed += 1;
                }
                (next, interrupted) = (next + 1, 0);
            }
            done.store(true, Ordering::Relaxed);
            log::info!(
                "idle: outlines of {} files ready, {parsed} parsed in {:?}{}",
                files.len(),
                started.elapsed(),
                budget
                    .not_parsed()
                    .map(|why| format!("; not parsed: {why}"))
                    .unwrap_or_default()
            );
            true
        }),
    }
}
