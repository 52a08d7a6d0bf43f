//! A shared work queue over plain scoped threads: items are handed out in a given order
//! (largest first, so one big file does not finish last on one core) and results come back in
//! input order. No thread pool and no async runtime: gnaw-mcp enters its sandbox before any
//! thread exists, and scoped threads started later inherit it.
//!
//! Every worker gets an explicit stack of [`THREAD_STACK_BYTES`] (the main thread's usual
//! 8 MiB) rather than the 2 MiB default, so that what runs on the main thread with one worker
//! runs the same with many. The inputs that could use deep stacks are bounded before they get
//! here ([`crate::limits`]); this is the backstop.

use crate::limits::THREAD_STACK_BYTES;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::thread::{Builder, Scope, ScopedJoinHandle};

/// Lock a mutex, taking the data even when another thread panicked while holding it. Every
/// mutex in gnaw guards data that stays consistent between statements (a queue, a map, a
/// counter), and a panic in one tool call must not take the next call down with it.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A mutex's data once no thread holds it, poisoned or not (see [`lock`]).
pub fn into_inner<T>(m: Mutex<T>) -> T {
    m.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// Start a scoped worker thread with a stack of [`THREAD_STACK_BYTES`]. Like
/// [`Scope::spawn`], panics when the system cannot start a thread.
pub fn spawn<'scope, T: Send + 'scope>(
    s: &'scope Scope<'scope, '_>,
    f: impl FnOnce() -> T + Send + 'scope,
) -> ScopedJoinHandle<'scope, T> {
    Builder::new()
        .stack_size(THREAD_STACK_BYTES)
        .spawn_scoped(s, f)
        .unwrap_or_else(|e| panic!("cannot start a worker thread: {e}"))
}

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
            let handles: Vec<_> = (0..workers).map(|_| spawn(s, run)).collect();
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
/// pushes its subdirectories), on up to `threads` threads. Returns when every job has run.
///
/// Each worker keeps the jobs it pushes on its own stack (depth first, no lock) and hands the
/// older half to a shared stack only while another worker is idle, so a walk of many small
/// directories does not contend on one lock.
pub fn drain<J, F>(initial: Vec<J>, threads: usize, f: F)
where
    J: Send,
    F: Fn(J, &mut Vec<J>) + Sync,
{
    let threads = threads.max(1);
    if threads == 1 {
        let mut local = initial;
        while let Some(job) = local.pop() {
            f(job, &mut local);
        }
        return;
    }
    struct Shared<J> {
        jobs: Vec<J>,
        idle: usize,
        done: bool,
    }
    let shared = Mutex::new(Shared {
        jobs: initial,
        idle: 0,
        done: false,
    });
    let idle_hint = AtomicUsize::new(0);
    let wake = Condvar::new();
    let lock_shared = || lock(&shared);
    // Ends the walk for everyone if a worker panics, instead of leaving them waiting.
    struct PanicGuard<'a, J> {
        shared: &'a Mutex<Shared<J>>,
        wake: &'a Condvar,
    }
    impl<J> Drop for PanicGuard<'_, J> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                lock(self.shared).done = true;
                self.wake.notify_all();
            }
        }
    }
    let run = || {
        let _guard = PanicGuard {
            shared: &shared,
            wake: &wake,
        };
        let mut local: Vec<J> = Vec::new();
        loop {
            let job = match local.pop() {
                Some(job) => job,
                None => {
                    let mut st = lock_shared();
                    loop {
                        if st.done {
                            return;
                        }
                        if let Some(job) = st.jobs.pop() {
                            break job;
                        }
                        st.idle += 1;
                        idle_hint.store(st.idle, Ordering::Relaxed);
                        if st.idle == threads {
                            st.done = true;
                            wake.notify_all();
                            return;
                        }
                        st = wake.wait(st).unwrap_or_else(PoisonError::into_inner);
                        st.idle -= 1;
                        idle_hint.store(st.idle, Ordering::Relaxed);
                    }
                }
            };
            f(job, &mut local);
            if local.len() > 1 && idle_hint.load(Ordering::Relaxed) > 0 {
                let give: Vec<J> = local.drain(..local.len() / 2).collect();
                let n = give.len();
                lock_shared().jobs.extend(give);
                for _ in 0..n {
                    wake.notify_one();
                }
            }
        }
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| spawn(s, run)).collect();
        for h in handles {
            if let Err(e) = h.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
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
    fn workers_get_the_main_threads_stack() {
        // Several MiB of stack each (a debug build): more than the 2 MiB a spawned thread gets
        // by default.
        fn burn(n: usize) -> usize {
            let buf = std::hint::black_box([n as u8; 1024]);
            if n == 0 {
                0
            } else {
                burn(n - 1) + usize::from(buf[0] & 1)
            }
        }
        let items = [1500usize, 1500];
        let out = map(&items, &[0, 1], 2, &|| false, |&n| burn(n)).unwrap();
        assert_eq!(out, [750, 750]);
        let sum = AtomicUsize::new(0);
        drain(vec![1500usize, 1500], 2, |n, _| {
            sum.fetch_add(burn(n), Ordering::Relaxed);
        });
        assert_eq!(sum.load(Ordering::Relaxed), 1500);
    }

    #[test]
    fn stop_abandons_the_run() {
        let items: Vec<u64> = (0..100).collect();
        let order = largest_first(&items, |&x| x);
        assert!(map(&items, &order, 2, &|| true, |&x| x).is_none());
    }
}
