//! The idle worker: a thread beside the call worker that does the work calls leave for idle
//! time ([`IdleWork`]: a search's outlines), a slice at a time, only while no call runs or
//! waits, and only once no call has started for [`QUIET`]: a burst of calls (a script, or an
//! agent's parallel calls) is not slowed down, while the seconds an agent thinks between
//! calls are used. A call that arrives stops the slice in progress (a parse in a parse worker
//! within one of its waits, 20 ms); the call itself never waits for idle work, which runs on
//! its own thread. Work left under a key replaces the work waiting under it; at most
//! [`MAX_IDLE_WORK`] pieces wait, the oldest dropped first. It ends when the call worker does.

use crate::cache::Cache;
use crate::spec::IdleWork;
use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::Duration;

/// The most pieces of idle work waiting at once. Each holds only a weak reference to what it
/// works on (a search index the warm cache keeps) and a few counters: what waits costs nothing
/// against the cache's bound, and work whose index the cache let go ends at its next slice.
pub const MAX_IDLE_WORK: usize = 4;

/// How often the idle worker looks again while a call runs.
const POLL: Duration = Duration::from_millis(5);

/// How long no call must have started before idle work begins (or goes on after a call).
pub const QUIET: Duration = Duration::from_millis(100);

/// What the idle worker sees of the calls.
pub trait Calls: Sync {
    /// Whether a call runs or waits, or the server is closing.
    fn busy(&self) -> bool;
    /// How many calls have started so far.
    fn started(&self) -> u64;
}

/// Do the work that arrives on `left`, in `cache`, while none of `calls` runs or waits.
pub fn run(left: &Receiver<IdleWork>, cache: &Cache, calls: &dyn Calls) {
    let busy = || calls.busy();
    // The calls started when idle work last ran.
    let mut seen = u64::MAX;
    let mut waiting: VecDeque<IdleWork> = VecDeque::new();
    loop {
        // Take what calls left; with nothing to do, wait for it.
        loop {
            let work = if waiting.is_empty() {
                match left.recv() {
                    Ok(work) => work,
                    Err(_) => return,
                }
            } else {
                match left.try_recv() {
                    Ok(work) => work,
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return,
                }
            };
            waiting.retain(|w| w.key != work.key);
            if waiting.len() == MAX_IDLE_WORK {
                waiting.pop_front();
            }
            waiting.push_back(work);
        }
        if busy() {
            std::thread::sleep(POLL);
            continue;
        }
        // After a call, a quiet moment first: no call started for `QUIET`.
        if calls.started() != seen {
            seen = calls.started();
            std::thread::sleep(QUIET);
            continue;
        }
        if let Some(work) = waiting.front_mut()
            && (work.slice)(cache, &busy)
        {
            waiting.pop_front();
        }
    }
}
