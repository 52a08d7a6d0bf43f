//! One tenant's worker as the front door sees it: a gnaw-mcp in stdio mode, confined to the
//! tenant's roots, reached over its stdin and stdout; started on demand, put to sleep when idle,
//! replaced when it dies.
//!
//! Clients' request ids and progress tokens are theirs and may collide across clients, so
//! every request forwarded gets an id of the front door's own (`g1`, `g2`, ...), its progress
//! token one too (`p1`, ...), and the answers and progress notifications are routed back by
//! them and given the client's values again ([`Upstream::call`]). A reader thread per worker
//! routes its stdout.
//!
//! **A request never meets a dead worker.** A worker behind the front door says when it takes a
//! request (`notifications/dev.gnaw/taken`, [`TAKEN`]), before it runs it. When a worker ends
//! (it died, was killed, or went to sleep), a request it had taken fails with `WorkerDied`, and
//! one it had not is sent to a new worker instead ([`Event::Untaken`], [`Forwarded::resend`]):
//! so a worker killed between calls costs the next call nothing but a start. Nothing is shared
//! between tenants' workers: one that dies is never noticed by another tenant.
//!
//! **Sleep.** A worker with no call for a while is put to sleep ([`Upstream::sleep_if_idle`]):
//! its stdin is closed, it answers nothing more and exits cleanly, and the tenant's next request
//! starts a new one. Legacy sessions live in the front door and pass their revision with each
//! request, so they survive their worker's sleep.
//!
//! Each tenant has a bound on the requests waiting for, or running on, its worker
//! ([`super::settings::Settings::max_calls_per_tenant`]).
//!
//! A worker that dies before it has answered anything (its roots vanished, say) is a failed
//! start. After two in a row the tenant's requests are refused, without starting a process, for
//! a back-off that doubles with each further failure ([`BackOff`]: 1 s up to 60 s), so a broken
//! tenant costs a fork per back-off period, not one per request; the first answer resets it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::par::lock;
use gnaw_sandbox::spawner::Spawner;

/// Decides whether a tenant may start a worker, and runs the start it is given (its argument:
/// the new worker's cache bound, when the fleet derives one) while no other start runs
/// ([`super::fleet::Fleet::admit`]).
pub type Admit<'a> = dyn Fn(&Upstream, &mut dyn FnMut(Option<u64>) -> Result<(), Refusal>) -> Result<(), Refusal>
    + 'a;

pub use crate::mcp::session_meta::TAKEN;

/// How many times one request is sent to a new worker after its worker ended without taking
/// it, before it fails as if the worker had died with it.
const RESENDS: u8 = 2;

/// What the worker said about one request.
#[derive(Debug)]
pub enum Event {
    /// A progress notification, its token already the client's.
    Progress(Value),
    /// The answer, its id still the front door's.
    Answer(Value),
    /// The worker died after taking the request.
    Died,
    /// The worker ended before taking the request: send it to a new one.
    Untaken,
    /// The client cancelled it (a legacy session's `notifications/cancelled`).
    Cancelled,
}

/// Why a request was not forwarded.
#[derive(Debug)]
pub enum Refusal {
    /// The tenant's bound on requests in flight is reached.
    Busy { limit: usize },
    /// The worker could not be started.
    Down(String),
    /// A root of the tenant is no longer the directory proven at startup: no worker is started
    /// for it (the text names the root, for the log).
    RootChanged(String),
    /// The worker failed to start `failures` times in a row; no start is tried for `wait`.
    BackingOff { failures: u32, wait: Duration },
    /// The service runs the most workers it may, and none of them is idle.
    Workers { max: usize },
    /// Another worker would pass the fleet's memory budget, and none is idle.
    Memory { budget: u64 },
}

/// Failed starts of one tenant's worker, and when the next start may be tried.
#[derive(Debug, Default)]
pub struct BackOff {
    failures: u32,
    until: Option<Instant>,
}

impl BackOff {
    /// The shortest wait, after the second failure in a row; each further one doubles it.
    const FIRST: Duration = Duration::from_secs(1);
    /// The longest wait.
    const MOST: Duration = Duration::from_secs(60);

    /// A worker ended; `answered`: whether it had answered anything (a start that worked).
    fn ended(&mut self, answered: bool, now: Instant) {
        if answered {
            *self = BackOff::default();
            return;
        }
        self.failures = self.failures.saturating_add(1);
        if self.failures >= 2 {
            let doublings = (self.failures - 2).min(16);
            let wait = (BackOff::FIRST * 2u32.pow(doublings)).min(BackOff::MOST);
            self.until = Some(now + wait);
        }
    }

    /// Whether a start may be tried at `now`, or how long is left to wait.
    fn wait(&self, now: Instant) -> Option<Duration> {
        self.until
            .and_then(|until| until.checked_duration_since(now))
            .filter(|d| !d.is_zero())
    }
}

struct Pending {
    events: mpsc::Sender<Event>,
    /// The client's progress token, when it gave one, and the front door's in its place.
    token: Option<(Value, String)>,
    /// Whether the worker said it took the request.
    taken: bool,
}

/// A running worker.
struct Live {
    pid: u32,
    /// `None` once closed (the worker was put to sleep).
    stdin: Mutex<Option<File>>,
    pending: Mutex<HashMap<String, Pending>>,
    /// Front door progress token -> front door id.
    tokens: Mutex<HashMap<String, String>>,
    dead: AtomicBool,
    /// Whether the front door put it to sleep (its end is not a death).
    asleep: AtomicBool,
    /// Whether the worker has written anything: a start that worked.
    answered: AtomicBool,
}

impl Live {
    fn write(&self, line: &[u8]) -> bool {
        let mut stdin = lock(&self.stdin);
        let Some(stdin) = stdin.as_mut() else {
            return false;
        };
        stdin.write_all(line).and_then(|()| stdin.flush()).is_ok()
    }

    /// Stop routing anything for request `id`.
    fn forget(&self, id: &str) -> Option<Pending> {
        let p = lock(&self.pending).remove(id)?;
        if let Some((_, ours)) = &p.token {
            lock(&self.tokens).remove(ours);
        }
        Some(p)
    }

    /// The worker's stdout ended: each request it had taken fails, each it had not goes to a
    /// new worker.
    fn end(&self) {
        self.dead.store(true, Ordering::SeqCst);
        for (_, p) in lock(&self.pending).drain() {
            let _ = p
                .events
                .send(if p.taken { Event::Died } else { Event::Untaken });
        }
        lock(&self.tokens).clear();
    }
}

/// Counters of one tenant's workers, for `/metrics`.
#[derive(Debug, Default)]
pub struct WorkerCounts {
    /// Workers started.
    pub started: AtomicU64,
    /// Workers put to sleep.
    pub slept: AtomicU64,
    /// Workers that ended without being put to sleep.
    pub died: AtomicU64,
}

/// One tenant's worker, started on demand and restarted after it dies or sleeps.
pub struct Upstream {
    index: usize,
    name: String,
    /// Unique to this tenant as configured now: a reload that changes the tenant makes a new
    /// one, and sessions are bound to it.
    key: u64,
    /// What the tenants file said of it, as the reloader described it: a reload that says the
    /// same keeps this tenant (and its worker and sessions) as it is.
    identity: String,
    /// The spawner of the generation this tenant was loaded in, and its index there.
    spawner: Arc<Spawner>,
    live: Mutex<Option<Arc<Live>>>,
    back_off: Arc<Mutex<BackOff>>,
    in_flight: AtomicUsize,
    limit: usize,
    next: Arc<AtomicU64>,
    /// When the last request was forwarded or answered.
    last_used: Mutex<Instant>,
    pub counts: Arc<WorkerCounts>,
}

/// A request forwarded and not yet answered. Dropping it forgets the request (its answer, if
/// one comes, is dropped); [`Forwarded::cancel`] also tells the worker to stop.
pub struct Forwarded<'a> {
    upstream: &'a Upstream,
    live: Arc<Live>,
    id: String,
    /// The request as sent, for a new worker when this one ends without taking it.
    line: Vec<u8>,
    token: Option<(Value, String)>,
    sender: mpsc::Sender<Event>,
    resent: u8,
    pub events: mpsc::Receiver<Event>,
}

impl Forwarded<'_> {
    /// Tell the worker the client cancelled; its answer will not be awaited.
    pub fn cancel(&self, reason: &str) {
        self.live.forget(&self.id);
        self.live.write(&cancel_line(&self.id, reason));
    }

    /// The front door's id of this request.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Send the request to a new worker: its worker ended without taking it
    /// ([`Event::Untaken`]). `false` when it was sent too often already or no worker can be
    /// had: the caller then fails it as if the worker had died with it.
    pub fn resend(&mut self, admit: &Admit<'_>) -> bool {
        if self.resent >= RESENDS {
            return false;
        }
        self.resent += 1;
        let Ok(live) = self.upstream.live(admit) else {
            return false;
        };
        log::info!(
            "tenant {}: request {} sent to a new worker (the last ended before taking it)",
            self.upstream.name,
            self.id
        );
        self.live = live;
        self.upstream
            .register(&self.live, &self.id, self.token.clone(), &self.sender);
        self.live.write(&self.line);
        true
    }
}

impl Drop for Forwarded<'_> {
    fn drop(&mut self) {
        self.live.forget(&self.id);
        self.upstream.in_flight.fetch_sub(1, Ordering::SeqCst);
        *lock(&self.upstream.last_used) = Instant::now();
    }
}

fn cancel_line(id: &str, reason: &str) -> Vec<u8> {
    let mut line = json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": { "requestId": id, "reason": reason },
    })
    .to_string()
    .into_bytes();
    line.push(b'\n');
    line
}

impl Upstream {
    /// Tenant `index` of `spawner`'s generation (named `name`, unique `key`, described by
    /// `identity`), at most `limit` requests in flight; `next` numbers the front door's ids
    /// across every tenant.
    pub fn new(
        index: usize,
        name: String,
        key: u64,
        identity: String,
        spawner: Arc<Spawner>,
        limit: usize,
        next: Arc<AtomicU64>,
    ) -> Upstream {
        Upstream {
            index,
            name,
            key,
            identity,
            spawner,
            live: Mutex::new(None),
            back_off: Arc::default(),
            in_flight: AtomicUsize::new(0),
            limit,
            next,
            last_used: Mutex::new(Instant::now()),
            counts: Arc::default(),
        }
    }

    /// The tenant's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key sessions are bound to.
    pub fn key(&self) -> u64 {
        self.key
    }

    /// What the tenants file said of it.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The spawner that starts its workers.
    pub fn spawner(&self) -> &Arc<Spawner> {
        &self.spawner
    }

    /// The running worker's pid, if one runs.
    pub fn pid(&self) -> Option<u32> {
        lock(&self.live)
            .as_ref()
            .filter(|l| !l.dead.load(Ordering::SeqCst))
            .map(|l| l.pid)
    }

    /// Whether a worker runs now, without waiting for a lock (`None` when busy deciding).
    pub fn running(&self) -> Option<bool> {
        let slot = self.live.try_lock().ok()?;
        Some(
            slot.as_ref()
                .is_some_and(|l| !l.dead.load(Ordering::SeqCst)),
        )
    }

    /// Requests waiting for, or running on, the worker.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }

    /// When the last request was forwarded or answered.
    pub fn last_used(&self) -> Instant {
        *lock(&self.last_used)
    }

    /// Put the worker to sleep when it has had no request for `idle` (or at once with
    /// `Duration::ZERO`) and has none now: close its stdin, so that it exits cleanly. Never
    /// waits: a tenant busy starting or calling is left alone. The pid put to sleep.
    pub fn sleep_if_idle(&self, idle: Duration) -> Option<u32> {
        let mut slot = self.live.try_lock().ok()?;
        let live = slot.as_ref()?;
        if live.dead.load(Ordering::SeqCst) {
            *slot = None;
            return None;
        }
        if self.in_flight.load(Ordering::SeqCst) > 0 || self.last_used().elapsed() < idle {
            return None;
        }
        let live = slot.take()?;
        live.asleep.store(true, Ordering::SeqCst);
        lock(&live.stdin).take();
        self.counts.slept.fetch_add(1, Ordering::Relaxed);
        log::info!(
            "tenant {}: worker pid {} put to sleep (idle)",
            self.name,
            live.pid
        );
        Some(live.pid)
    }

    /// Stop the worker, whatever it is doing (the tenant was removed): calls in flight on it
    /// fail.
    pub fn stop(&self) {
        if let Some(live) = lock(&self.live).take() {
            live.asleep.store(true, Ordering::SeqCst);
            lock(&live.stdin).take();
        }
    }

    /// The running worker, started if none runs (unless starts are backing off, or the fleet
    /// refuses another worker: `admit` runs the start, and may refuse it).
    fn live(&self, admit: &Admit<'_>) -> Result<Arc<Live>, Refusal> {
        let mut slot = lock(&self.live);
        if let Some(live) = slot.as_ref()
            && !live.dead.load(Ordering::SeqCst)
        {
            return Ok(Arc::clone(live));
        }
        {
            let back_off = lock(&self.back_off);
            if let Some(wait) = back_off.wait(Instant::now()) {
                return Err(Refusal::BackingOff {
                    failures: back_off.failures,
                    wait,
                });
            }
        }
        let mut started = None;
        admit(self, &mut |cache_bytes| {
            started = Some(self.start(cache_bytes)?);
            Ok(())
        })?;
        let live = started.ok_or_else(|| Refusal::Down("no worker was started".into()))?;
        *slot = Some(Arc::clone(&live));
        Ok(live)
    }

    /// Start a worker (its warm cache bounded by `cache_bytes` when the fleet says so), with
    /// its reader thread.
    fn start(&self, cache_bytes: Option<u64>) -> Result<Arc<Live>, Refusal> {
        let spawned = self
            .spawner
            .spawn(self.index, cache_bytes)
            .map_err(|e| match e {
                gnaw_sandbox::spawner::SpawnError::RootChanged(why) => Refusal::RootChanged(why),
                gnaw_sandbox::spawner::SpawnError::Failed(why) => Refusal::Down(why),
            })?;
        let live = Arc::new(Live {
            pid: spawned.pid,
            stdin: Mutex::new(Some(File::from(spawned.stdin))),
            pending: Mutex::default(),
            tokens: Mutex::default(),
            dead: AtomicBool::new(false),
            asleep: AtomicBool::new(false),
            answered: AtomicBool::new(false),
        });
        self.counts.started.fetch_add(1, Ordering::Relaxed);
        log::info!("tenant {}: worker started, pid {}", self.name, spawned.pid);
        let reader = {
            let live = Arc::clone(&live);
            let name = self.name.clone();
            let stdout = File::from(spawned.stdout);
            let back_off = Arc::clone(&self.back_off);
            let counts = Arc::clone(&self.counts);
            move || {
                read_worker(&live, stdout);
                if live.asleep.load(Ordering::SeqCst) {
                    log::info!("tenant {name}: worker pid {} asleep", live.pid);
                } else {
                    counts.died.fetch_add(1, Ordering::Relaxed);
                    log::warn!(
                        "tenant {name}: worker pid {} ended; a request it had taken fails, one \
                         it had not goes to a new worker",
                        live.pid
                    );
                    // Counted before the requests in flight are ended, so a client that
                    // retries at once already meets the back-off.
                    let mut back_off = lock(&back_off);
                    back_off.ended(live.answered.load(Ordering::SeqCst), Instant::now());
                    if let Some(wait) = back_off.wait(Instant::now()) {
                        log::error!(
                            "tenant {name}: the worker ended before answering, {} times in a \
                             row; no new one is started for {} ms (see its messages above)",
                            back_off.failures,
                            wait.as_millis()
                        );
                    }
                }
                live.end();
            }
        };
        if let Err(e) = std::thread::Builder::new()
            .name(format!("gnaw-mcp-tenant-{}", self.index))
            .stack_size(256 << 10)
            .spawn(reader)
        {
            return Err(Refusal::Down(format!(
                "no reader thread for the worker: {e}"
            )));
        }
        Ok(live)
    }

    /// Route request `id`'s answer and progress to `events` on `live`.
    fn register(
        &self,
        live: &Live,
        id: &str,
        token: Option<(Value, String)>,
        events: &mpsc::Sender<Event>,
    ) {
        if let Some((_, ours)) = &token {
            lock(&live.tokens).insert(ours.clone(), id.to_string());
        }
        lock(&live.pending).insert(
            id.to_string(),
            Pending {
                events: events.clone(),
                token,
                taken: false,
            },
        );
        // A worker that ended since has drained `pending` already: this request it never saw.
        if live.dead.load(Ordering::SeqCst)
            && let Some(p) = live.forget(id)
        {
            let _ = p.events.send(Event::Untaken);
        }
    }

    /// Cancel the request the front door numbered `ours`, if it is still in flight: its waiter
    /// is told (its events end) and the worker stops it.
    pub fn cancel(&self, ours: &str, reason: &str) {
        let live = lock(&self.live).clone();
        if let Some(live) = live
            && let Some(pending) = live.forget(ours)
        {
            let _ = pending.events.send(Event::Cancelled);
            live.write(&cancel_line(ours, reason));
        }
    }

    /// Forward `message` (a request with the client's id), numbering it anew. `admit` decides
    /// whether a new worker may start, when one must.
    pub fn call(&self, mut message: Value, admit: &Admit<'_>) -> Result<Forwarded<'_>, Refusal> {
        if self.in_flight.fetch_add(1, Ordering::SeqCst) >= self.limit {
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            return Err(Refusal::Busy { limit: self.limit });
        }
        *lock(&self.last_used) = Instant::now();
        let live = match self.live(admit) {
            Ok(live) => live,
            Err(refusal) => {
                self.in_flight.fetch_sub(1, Ordering::SeqCst);
                return Err(refusal);
            }
        };
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        let id = format!("g{n}");
        message["id"] = json!(id);
        let ours = format!("p{n}");
        let token = message
            .pointer_mut("/params/_meta/progressToken")
            .map(|t| (std::mem::replace(t, json!(ours)), ours.clone()));
        let (tx, rx) = mpsc::channel();
        self.register(&live, &id, token.clone(), &tx);
        let mut line = serde_json::to_vec(&message).unwrap_or_default();
        line.push(b'\n');
        if !live.write(&line) {
            // The worker is gone; its reader sends this request to a new one.
            log::info!("tenant {}: the worker's stdin is closed", self.name);
        }
        Ok(Forwarded {
            upstream: self,
            live,
            id,
            line,
            token,
            sender: tx,
            resent: 0,
            events: rx,
        })
    }
}

/// Route the worker's stdout until it ends (the caller then ends what is in flight).
fn read_worker(live: &Live, stdout: File) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => live.answered.store(true, Ordering::SeqCst),
        }
        let Ok(message) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        if let Some(id) = message.get("id").and_then(Value::as_str) {
            if let Some(p) = live.forget(id) {
                let _ = p.events.send(Event::Answer(message));
            }
            continue;
        }
        match message.get("method").and_then(Value::as_str) {
            Some(TAKEN) => {
                if let Some(id) = message.pointer("/params/requestId").and_then(Value::as_str)
                    && let Some(p) = lock(&live.pending).get_mut(id)
                {
                    p.taken = true;
                }
            }
            Some("notifications/progress") => {
                let Some(Value::String(token)) = message.pointer("/params/progressToken") else {
                    continue;
                };
                let id = lock(&live.tokens).get(token).cloned();
                let pending = lock(&live.pending);
                if let Some(p) = id.and_then(|id| pending.get(&id)) {
                    let mut message = message.clone();
                    if let Some(t) = message.pointer_mut("/params/progressToken") {
                        *t = p
                            .token
                            .as_ref()
                            .map_or(Value::Null, |(theirs, _)| theirs.clone());
                    }
                    let _ = p.events.send(Event::Progress(message));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod back_off_tests {
    use super::*;

    #[test]
    fn two_failed_starts_back_off_doubling_to_a_minute_and_an_answer_resets() {
        let t0 = Instant::now();
        let mut b = BackOff::default();
        b.ended(false, t0);
        assert_eq!(
            b.wait(t0),
            None,
            "one failure: the next request tries again"
        );
        let mut waits = Vec::new();
        for _ in 0..10 {
            b.ended(false, t0);
            waits.push(b.wait(t0).unwrap().as_secs());
        }
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60, 60]);
        assert_eq!(b.wait(t0 + Duration::from_secs(61)), None);
        b.ended(true, t0);
        assert_eq!((b.failures, b.wait(t0)), (0, None));
    }
}
