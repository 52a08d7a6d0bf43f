//! A shared work queue over plain scoped threads: items are handed out in a given order
//! (largest first, so one big file does not finish last on one core) and results come back in
//! input order. No thread pool and no async runtime: gnaw-mcp enters its sandbox before any
//! thread exists, and scoped threads started later inherit it.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static THREADS: OnceLock<usize> = OnceLock::new();

/// The number of worker threads. Read once; gnaw-mcp calls this before it enters the sandbox,
/// because afterwards the cgroup CPU quota can no longer be read.
pub fn threads() -> usize {
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Run `f` on every item, handing items out in `order` (indices into `items`), on up to
/// `threads` threads. Returns results in input order, or `None` when `stop` returned true.
pub fn map<T, R, F>(
    items: &[T],
    order: &[usize],
    threads: usize,
    stop: &(dyn Fn() -> bool + Sync),
    f: F,
) -> Option<Vec<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let workers = threads.clamp(1, items.len().max(1));
    let run = || {
        let mut out = Vec::new();
        loop {
            if stopped.load(Ordering::Relaxed) {
                break;
            }
            if stop() {
                stopped.store(true, Ordering::Relaxed);
                break;
            }
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&idx) = order.get(i) else { break };
            out.push((idx, f(&items[idx])));
        }
        out
    };
    let parts: Vec<Vec<(usize, R)>> = if workers == 1 {
        vec![run()]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers).map(|_| s.spawn(run)).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    };
    if stopped.load(Ordering::Relaxed) {
        return None;
    }
    let mut slots: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    for (idx, r) in parts.into_iter().flatten() {
        slots[idx] = Some(r);
    }
    slots.into_iter().collect()
}

/// Indices of `items` ordered by `key` descending (stable, so ties keep input order).
pub fn largest_first<T>(items: &[T], key: impl Fn(&T) -> u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(key(&items[i])));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_input_order() {
        let items: Vec<u64> = (0..1000).collect();
        let order = largest_first(&items, |&x| x);
        let out = map(&items, &order, 4, &|| false, |&x| x * 2).unwrap();
        assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
    }

    #[test]
    fn stop_abandons_the_run() {
        let items: Vec<u64> = (0..100).collect();
        let order = largest_first(&items, |&x| x);
        assert!(map(&items, &order, 2, &|| true, |&x| x).is_none());
    }
}
