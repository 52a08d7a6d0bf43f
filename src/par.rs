//! A shared work queue over plain scoped threads: items are handed out in a given order
//! (largest first, so one big file does not finish last on one core) and results come back in
//! input order. No thread pool and no async runtime: gnaw-mcp enters its sandbox before any
//! thread exists, and scoped threads started later inherit it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

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

/// Run `f` on every job of a queue that grows while it runs (a directory walk: each directory
/// pushes its subdirectories), on up to `threads` threads. Jobs are taken last in, first out.
/// Returns when the queue is empty and no job is running.
pub fn drain<J, F>(initial: Vec<J>, threads: usize, f: F)
where
    J: Send,
    F: Fn(J, &mut Vec<J>) + Sync,
{
    struct State<J> {
        jobs: Vec<J>,
        running: usize,
    }
    let state = Mutex::new(State {
        jobs: initial,
        running: 0,
    });
    let wake = Condvar::new();
    let lock = || state.lock().unwrap_or_else(|p| p.into_inner());
    let run = || {
        loop {
            let job = {
                let mut st = lock();
                loop {
                    if let Some(job) = st.jobs.pop() {
                        st.running += 1;
                        break Some(job);
                    }
                    if st.running == 0 {
                        break None;
                    }
                    st = wake.wait(st).unwrap_or_else(|p| p.into_inner());
                }
            };
            let Some(job) = job else {
                wake.notify_all();
                return;
            };
            // Decrement `running` even if `f` panics, so the other workers do not wait forever.
            struct Done<'a, J> {
                state: &'a Mutex<State<J>>,
                wake: &'a Condvar,
                more: Vec<J>,
            }
            impl<J> Drop for Done<'_, J> {
                fn drop(&mut self) {
                    let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
                    st.running -= 1;
                    st.jobs.append(&mut self.more);
                    drop(st);
                    self.wake.notify_all();
                }
            }
            let mut done = Done {
                state: &state,
                wake: &wake,
                more: Vec::new(),
            };
            f(job, &mut done.more);
        }
    };
    if threads <= 1 {
        run();
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads).map(|_| s.spawn(run)).collect();
            for h in handles {
                if let Err(e) = h.join() {
                    std::panic::resume_unwind(e);
                }
            }
        });
    }
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
    fn drain_runs_every_job_including_the_ones_pushed_while_running() {
        use std::sync::atomic::AtomicU64;
        // A binary tree of depth 12: every job below depth 12 pushes two children.
        let sum = AtomicU64::new(0);
        let count = AtomicUsize::new(0);
        drain(vec![(0u32, 1u64)], 4, |(depth, id), more| {
            sum.fetch_add(id, Ordering::Relaxed);
            count.fetch_add(1, Ordering::Relaxed);
            if depth < 12 {
                more.push((depth + 1, id * 2));
                more.push((depth + 1, id * 2 + 1));
            }
        });
        let n = (1u64 << 13) - 1;
        assert_eq!(count.load(Ordering::Relaxed) as u64, n);
        assert_eq!(sum.load(Ordering::Relaxed), n * (n + 1) / 2);
    }

    #[test]
    fn stop_abandons_the_run() {
        let items: Vec<u64> = (0..100).collect();
        let order = largest_first(&items, |&x| x);
        assert!(map(&items, &order, 2, &|| true, |&x| x).is_none());
    }
}
