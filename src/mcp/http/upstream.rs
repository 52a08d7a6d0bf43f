//! One tenant's worker as the front door sees it: a gnaw-mcp in stdio mode, confined to the
//! tenant's roots, reached over its stdin and stdout.
//!
//! Clients' request ids and progress tokens are theirs and may collide across clients, so
//! every request forwarded gets an id of the front door's own (`g1`, `g2`, ...), its progress
//! token one too (`p1`, ...), and the answers and progress notifications are routed back by
//! them and given the client's values again ([`Upstream::call`]). A reader thread
//! per worker routes its stdout.
//!
//! A worker that dies (its stdout ends) fails every request in flight on it with a JSON-RPC
//! error, and the next request starts a new one through the spawner. Nothing is shared between
//! tenants' workers: one that dies is never noticed by another tenant.
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

/// Starts tenant `i`'s worker (the spawner, in gnaw-mcp).
pub type Spawn = dyn Fn(usize) -> Result<gnaw_sandbox::spawner::Spawned, gnaw_sandbox::spawner::SpawnError>
    + Send
    + Sync;

/// What the worker said about one request.
#[derive(Debug)]
pub enum Event {
    /// A progress notification, its token already the client's.
    Progress(Value),
    /// The answer, its id still the front door's.
    Answer(Value),
    /// The worker died before answering.
    Died,
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
}

/// A running worker.
struct Live {
    pid: u32,
    stdin: Mutex<File>,
    pending: Mutex<HashMap<String, Pending>>,
    /// Front door progress token -> front door id.
    tokens: Mutex<HashMap<String, String>>,
    dead: AtomicBool,
    /// Whether the worker has written anything: a start that worked.
    answered: AtomicBool,
}

impl Live {
    fn write(&self, message: &Value) -> bool {
        let mut line = serde_json::to_vec(message).unwrap_or_default();
        line.push(b'\n');
        let mut stdin = lock(&self.stdin);
        stdin.write_all(&line).and_then(|()| stdin.flush()).is_ok()
    }

    /// Stop routing anything for request `id`.
    fn forget(&self, id: &str) -> Option<Pending> {
        let p = lock(&self.pending).remove(id)?;
        if let Some((_, ours)) = &p.token {
            lock(&self.tokens).remove(ours);
        }
        Some(p)
    }

    /// The worker's stdout ended: fail everything in flight.
    fn die(&self) {
        self.dead.store(true, Ordering::SeqCst);
        for (_, p) in lock(&self.pending).drain() {
            let _ = p.events.send(Event::Died);
        }
        lock(&self.tokens).clear();
    }
}

/// One tenant's worker, started on demand and restarted after it dies.
pub struct Upstream {
    index: usize,
    name: String,
    spawn: Arc<Spawn>,
    live: Mutex<Option<Arc<Live>>>,
    back_off: Arc<Mutex<BackOff>>,
    in_flight: AtomicUsize,
    limit: usize,
    next: Arc<AtomicU64>,
}

/// A request forwarded and not yet answered. Dropping it forgets the request (its answer, if
/// one comes, is dropped); [`Forwarded::cancel`] also tells the worker to stop.
pub struct Forwarded<'a> {
    upstream: &'a Upstream,
    live: Arc<Live>,
    id: String,
    pub events: mpsc::Receiver<Event>,
}

impl Forwarded<'_> {
    /// Tell the worker the client cancelled; its answer will not be awaited.
    pub fn cancel(&self, reason: &str) {
        self.live.forget(&self.id);
        self.live.write(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": self.id, "reason": reason },
        }));
    }

    /// The front door's id of this request.
    pub fn id(&self) -> &str {
        &self.id
    }
}

impl Drop for Forwarded<'_> {
    fn drop(&mut self) {
        self.live.forget(&self.id);
        self.upstream.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Upstream {
    /// Tenant `index` (named `name`), at most `limit` requests in flight; `next` numbers the
    /// front door's ids across every tenant.
    pub fn new(
        index: usize,
        name: String,
        spawn: Arc<Spawn>,
        limit: usize,
        next: Arc<AtomicU64>,
    ) -> Upstream {
        Upstream {
            index,
            name,
            spawn,
            live: Mutex::new(None),
            back_off: Arc::default(),
            in_flight: AtomicUsize::new(0),
            limit,
            next,
        }
    }

    /// The tenant's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The running worker's pid, if one runs.
    pub fn pid(&self) -> Option<u32> {
        lock(&self.live)
            .as_ref()
            .filter(|l| !l.dead.load(Ordering::SeqCst))
            .map(|l| l.pid)
    }

    /// The running worker, started if none runs (unless starts are backing off).
    fn live(&self) -> Result<Arc<Live>, Refusal> {
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
        let spawned = (self.spawn)(self.index).map_err(|e| match e {
            gnaw_sandbox::spawner::SpawnError::RootChanged(why) => Refusal::RootChanged(why),
            gnaw_sandbox::spawner::SpawnError::Failed(why) => Refusal::Down(why),
        })?;
        let live = Arc::new(Live {
            pid: spawned.pid,
            stdin: Mutex::new(File::from(spawned.stdin)),
            pending: Mutex::default(),
            tokens: Mutex::default(),
            dead: AtomicBool::new(false),
            answered: AtomicBool::new(false),
        });
        log::info!("tenant {}: worker started, pid {}", self.name, spawned.pid);
        let reader = {
            let live = Arc::clone(&live);
            let name = self.name.clone();
            let stdout = File::from(spawned.stdout);
            let back_off = Arc::clone(&self.back_off);
            move || {
                read_worker(&live, stdout, &name);
                // Counted before the requests in flight are failed, so a client that retries at
                // once already meets the back-off.
                {
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
                live.die();
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
        *slot = Some(Arc::clone(&live));
        Ok(live)
    }

    /// Cancel the request the front door numbered `ours`, if it is still in flight: its waiter
    /// is told (its events end) and the worker stops it.
    pub fn cancel(&self, ours: &str, reason: &str) {
        let live = lock(&self.live).clone();
        if let Some(live) = live
            && live.forget(ours).is_some()
        {
            live.write(&json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": { "requestId": ours, "reason": reason },
            }));
        }
    }

    /// Forward `message` (a request with the client's id), numbering it anew.
    pub fn call(&self, mut message: Value) -> Result<Forwarded<'_>, Refusal> {
        if self.in_flight.fetch_add(1, Ordering::SeqCst) >= self.limit {
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            return Err(Refusal::Busy { limit: self.limit });
        }
        let live = match self.live() {
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
        if token.is_some() {
            lock(&live.tokens).insert(ours, id.clone());
        }
        lock(&live.pending).insert(id.clone(), Pending { events: tx, token });
        // A worker that died between `live()` and now has drained `pending` already.
        if live.dead.load(Ordering::SeqCst)
            && let Some(p) = live.forget(&id)
        {
            let _ = p.events.send(Event::Died);
        }
        let forwarded = Forwarded {
            upstream: self,
            live: Arc::clone(&live),
            id,
            events: rx,
        };
        if !live.write(&message) {
            // The worker is gone; its reader fails what is in flight, this one included.
            log::warn!("tenant {}: the worker's stdin is closed", self.name);
        }
        Ok(forwarded)
    }
}

/// Route the worker's stdout until it ends (the caller then fails what is in flight).
fn read_worker(live: &Live, stdout: File, name: &str) {
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
        if message.get("method").and_then(Value::as_str) == Some("notifications/progress")
            && let Some(Value::String(token)) = message.pointer("/params/progressToken")
        {
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
    }
    log::warn!(
        "tenant {name}: worker pid {} ended; requests in flight on it fail, the next one starts a new worker",
        live.pid
    );
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
