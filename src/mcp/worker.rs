//! The call worker: the one thread that runs tool calls (and the other requests that may read the
//! repository: resources, prompts, completions), in order, off a bounded queue, with the
//! server's warm cache; each call gets an observer that reports progress (at most every 100 ms)
//! and answers whether the client cancelled it. A panic in a tool is caught and answered as an
//! internal error; a cancelled call gets no answer.
//!
//! The work a call leaves for idle time ([`IdleWork`]: a search's outlines) goes to the idle
//! worker ([`super::idle`]), a thread beside this one that does it only while no call runs or
//! waits; without a warm cache there is none.

use super::config::Config;
use super::containment::Containment;
use super::era::{Era, finish};
use super::gate;
use super::idle;
use super::jsonrpc::{self, RpcError};
use super::tool::{Outcome, Shape, ToolContext};
use super::transport::Output;
use crate::cache::Cache;
use crate::par::lock;
use crate::spec::{IdleWork, Observer};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Minimum gap between two progress notifications for one call.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// What a job runs: a tool's call, a resource's read, a prompt's get, a completion.
pub type Work = Box<dyn FnOnce(&ToolContext<'_>) -> Outcome + Send>;

/// A call waiting for, or running on, the worker: a `tools/call`, or a request that may read
/// the repository (`resources/list`, `resources/read`, `prompts/get`, `completion/complete`).
pub struct Job {
    pub id: Value,
    pub key: String,
    pub era: Era,
    /// What the logs call it (the tool's name, or the method).
    pub name: String,
    pub work: Work,
    /// The request's params as sent (the context's [`ToolContext::params`]).
    pub params: Map<String, Value>,
    /// The call's `max_chars`, which an error answer is cut to as its answer would be.
    pub max_chars: Option<u64>,
    /// Bytes of the request line, counted against the queue's byte bound.
    pub bytes: usize,
    pub shape: Shape,
    pub progress_token: Option<Value>,
    pub cancel: Arc<AtomicBool>,
}

/// How much is waiting for the worker, against [`Config::max_queued_calls`] and
/// [`Config::max_queued_bytes`].
#[derive(Default)]
pub struct Queued {
    pub calls: usize,
    pub bytes: usize,
}

/// The observer handed to the pipeline for one call: cancellation and progress.
struct CallObserver<'a> {
    cancel: &'a AtomicBool,
    out: &'a Output,
    token: Option<&'a Value>,
    /// Last `done` reported and when.
    last: Mutex<(usize, Option<Instant>)>,
    /// Work the call left for idle time.
    left: Mutex<Vec<IdleWork>>,
}

impl Observer for CallObserver<'_> {
    fn progress(&self, done: usize, total: usize) {
        let Some(token) = self.token else { return };
        if self.cancelled() {
            return;
        }
        let mut last = lock(&self.last);
        let due = last.1.is_none_or(|t| t.elapsed() >= PROGRESS_INTERVAL) || done >= total;
        if done <= last.0 && last.1.is_some() || !due {
            return;
        }
        *last = (done, Some(Instant::now()));
        self.out.send(jsonrpc::notification(
            "notifications/progress",
            json!({
                "progressToken": token,
                "progress": done,
                "total": total,
                "message": format!("{done} of {total} files"),
            }),
        ));
    }

    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    fn leave(&self, work: IdleWork) {
        lock(&self.left).push(work);
    }
}

pub type InFlight = Arc<Mutex<HashMap<String, Arc<AtomicBool>>>>;

pub fn id_key(id: &Value) -> String {
    id.to_string()
}

/// What the worker shares with the dispatcher.
pub struct Shared {
    pub out: Arc<Output>,
    pub inflight: InFlight,
    pub queued: Arc<Mutex<Queued>>,
    pub containment: Arc<dyn Containment>,
    pub config: Config,
}

/// The calls as the idle worker sees them: whether one runs or waits, how many started, and
/// whether the server is closing.
struct Calls<'a> {
    queued: &'a Mutex<Queued>,
    running: AtomicBool,
    started: AtomicU64,
    closing: AtomicBool,
}

impl<'a> Calls<'a> {
    fn new(queued: &'a Mutex<Queued>) -> Calls<'a> {
        Calls {
            queued,
            running: AtomicBool::new(false),
            started: AtomicU64::new(0),
            closing: AtomicBool::new(false),
        }
    }

    /// A call is taken off the queue to run. The dispatcher counts a call before it sends it,
    /// and this is said before the worker takes it off that count: no call goes unseen.
    fn start(&self) {
        self.running.store(true, Ordering::SeqCst);
        self.started.fetch_add(1, Ordering::SeqCst);
    }

    /// The call has been answered.
    fn end(&self) {
        self.running.store(false, Ordering::SeqCst);
    }

    /// The worker is done: idle work stops.
    fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
    }
}

impl idle::Calls for Calls<'_> {
    fn busy(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
            || self.running.load(Ordering::SeqCst)
            || lock(self.queued).calls > 0
    }

    fn started(&self) -> u64 {
        self.started.load(Ordering::SeqCst)
    }
}

pub fn worker(jobs: mpsc::Receiver<Job>, shared: Shared) {
    // The warm cache lives as long as the worker: in memory only, bounded, shared by every call.
    let cache = Cache::new(shared.config.cache_bytes);
    let cache = (shared.config.cache_bytes > 0).then_some(&cache);
    let calls = Calls::new(&shared.queued);
    std::thread::scope(|s| {
        let (left, left_rx) = mpsc::channel::<IdleWork>();
        if let Some(cache) = cache {
            let calls = &calls;
            let spawned = std::thread::Builder::new()
                .name("gnaw-mcp-idle".into())
                .stack_size(crate::limits::THREAD_STACK_BYTES)
                .spawn_scoped(s, move || idle::run(&left_rx, cache, calls));
            if let Err(e) = spawned {
                log::warn!("no idle worker ({e}): work calls leave for idle time is not done");
            }
        }
        for job in jobs {
            calls.start();
            run_call(job, &shared, cache, &left);
            calls.end();
        }
        calls.close();
    });
}

/// Run one call and answer it; what it leaves for idle time goes to `left`.
fn run_call(job: Job, shared: &Shared, cache: Option<&Cache>, left: &mpsc::Sender<IdleWork>) {
    let out = &shared.out;
    {
        let mut q = lock(&shared.queued);
        q.calls -= 1;
        q.bytes -= job.bytes;
    }
    let started = Instant::now();
    let outcome = if job.cancel.load(Ordering::Relaxed) {
        Some(Outcome::Cancelled)
    } else {
        let observer = CallObserver {
            cancel: &job.cancel,
            out,
            token: job.progress_token.as_ref(),
            last: Mutex::new((0, None)),
            left: Mutex::new(Vec::new()),
        };
        let notify = |method: &str, params: Value| {
            if !job.cancel.load(Ordering::Relaxed) {
                out.send(jsonrpc::notification(method, params));
            }
        };
        let ctx = ToolContext {
            containment: shared.containment.as_ref(),
            cache,
            config: &shared.config,
            observer: &observer,
            shape: job.shape,
            params: &job.params,
            notify: &notify,
        };
        let work = job.work;
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&ctx)));
        match cache {
            Some(c) => log::info!(
                "{} finished in {:?}; cache {:?}",
                job.name,
                started.elapsed(),
                c.stats()
            ),
            None => log::info!("{} finished in {:?}", job.name, started.elapsed()),
        }
        if cache.is_some() {
            for work in std::mem::take(&mut *lock(&observer.left)) {
                // Only fails once the idle worker is gone; the work is then not done.
                let _ = left.send(work);
            }
        }
        run.ok()
    };
    lock(&shared.inflight).remove(&job.key);
    // An error answer is cut to the call's ceiling, as its answer would be.
    let gate = out
        .gate()
        .for_call(job.max_chars, shared.config.max_output_bytes);
    match outcome {
        Some(Outcome::Done(result)) if !job.cancel.load(Ordering::Relaxed) => {
            out.send_through(jsonrpc::result(&job.id, finish(job.era, result)), gate);
        }
        Some(Outcome::Rejected(e)) if !job.cancel.load(Ordering::Relaxed) => {
            log::info!("{} rejected: {}", job.name, gate::for_log(&e.message));
            out.send_through(jsonrpc::error(&job.id, &e), gate);
        }
        Some(_) => log::info!("request {} was cancelled; no response sent", job.key),
        None => out.send(jsonrpc::error(
            &job.id,
            &RpcError::new(
                jsonrpc::INTERNAL_ERROR,
                "Internal error: the tool failed unexpectedly; see the server's stderr log",
            ),
        )),
    }
}
