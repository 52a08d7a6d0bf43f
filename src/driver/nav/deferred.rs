//! Work a search leaves for gnaw-mcp's idle time: the outline of every file of its index,
//! parsed while no call waits, so that a later query's re-scoring and regions find the outlines
//! kept instead of waiting for tree-sitter.
//!
//! It reads no file: it parses the shown (redacted) texts the index already holds, and keeps
//! each outline in the warm cache exactly as a call would (the index's step,
//! `super::index::IndexedFile::outline_within`); this module only slices the work.
//! It owns no index: the step finds the index the cache keeps, one file at a time, and the
//! work ends quietly once the cache has let it go ([`Step::Gone`]), so waiting work holds
//! nothing outside the cache's byte bound.
//! It is bounded like a call: one parse budget (CPU time and bytes) for the whole repository,
//! each parse within its own bounds, and it stops adding once the cache is 80% full
//! ([`Cache::has_room`]), so it never makes the cache evict what calls put there. A call that
//! arrives stops the parse in progress; a file stopped that way [`MAX_INTERRUPTIONS`] times is
//! left for a call to parse.

use crate::cache::Cache;
use crate::spec::IdleWork;
use crate::stages::syntax::ParseBudget;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The longest run of idle work before the idle worker looks for new work again (a parse
/// already started finishes first, unless a call arrives).
const SLICE: Duration = Duration::from_millis(50);

/// How many times a file's parse may be stopped by an arriving call before it is left alone:
/// a file that takes longer to parse than the gaps between calls would otherwise be parsed
/// again and again for nothing.
pub const MAX_INTERRUPTIONS: usize = 3;

/// What the step for one file did.
pub enum Step {
    /// Its outline was kept already (or its language has none).
    Kept,
    /// It was parsed now, and kept.
    Parsed,
    /// It could not be parsed: a bound (its own, or the budget's).
    NotParsed,
    /// An arriving call stopped its parse.
    Interrupted,
    /// The index is no longer kept (evicted, replaced or out of date): the work is given up.
    Gone,
}

/// The work of `step` over `files` files (the `i`th file's outline, kept in the cache within
/// the parse budget, stopping when a call arrives), left under `key`; `done` is set once every
/// file was seen.
pub fn outlines(
    key: u128,
    files: usize,
    mut step: impl FnMut(usize, &Cache, &ParseBudget, &dyn Fn() -> bool) -> Step + Send + 'static,
    done: Arc<AtomicBool>,
) -> IdleWork {
    let budget = ParseBudget::default();
    let (mut next, mut interrupted, mut parsed) = (0, 0, 0);
    let started = Instant::now();
    IdleWork {
        key,
        slice: Box::new(move |cache: &Cache, busy: &dyn Fn() -> bool| {
            let t0 = Instant::now();
            while next < files {
                if busy() || t0.elapsed() > SLICE {
                    return false;
                }
                if !cache.has_room() {
                    log::info!(
                        "idle: outlines stopped at {next} of {files} files: the warm cache is 80% full"
                    );
                    return true;
                }
                if budget.was_spent() {
                    log::info!(
                        "idle: outlines stopped at {next} of {files} files, {parsed} parsed in \
                         {:?}: {}",
                        started.elapsed(),
                        budget.spent_reason()
                    );
                    return true;
                }
                match step(next, cache, &budget, busy) {
                    Step::Gone => {
                        log::info!(
                            "idle: outlines given up at {next} of {files} files: the warm cache \
                             no longer keeps their index"
                        );
                        return true;
                    }
                    Step::Kept | Step::NotParsed => {}
                    Step::Parsed => parsed += 1,
                    Step::Interrupted => {
                        interrupted += 1;
                        if interrupted < MAX_INTERRUPTIONS {
                            return false;
                        }
                    }
                }
                (next, interrupted) = (next + 1, 0);
            }
            done.store(true, Ordering::Relaxed);
            log::info!(
                "idle: outlines of {files} files ready, {parsed} parsed in {:?}{}",
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
