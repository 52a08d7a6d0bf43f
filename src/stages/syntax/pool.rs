//! Parsing out of process: the caller's side of the parse workers, and the workers' loop.
//!
//! The binaries call [`start`] first thing in `main`, while single-threaded: it forks the
//! workers through [`gnaw_sandbox::workers`] (a supervisor that confines itself with no file
//! access and replaces each worker that dies; each worker capped at [`WORKER_MEMORY`] of data
//! by the kernel and under its own seccomp allow-list) and keeps this process's end of each
//! slot. From then on every parse is sent to a worker: a grammar that allocates without bound
//! makes the worker's allocation fail and only the worker dies; a parse that runs past its time
//! is stopped by the worker's progress check or, failing that, by its alarm; a caller that
//! cancels stops waiting at once. The answer is the file's definitions (`Outcome`).
//!
//! Without [`start`] (the library in tests, fuzzing), parses run in the calling thread, bounded
//! in time but not in memory.
//!
//! Messages are `SOCK_SEQPACKET` packets: `kind` (`Q` request, `A` answer), a `u64` request id,
//! flags (first, last), then up to `CHUNK` bytes of payload (`X`, empty: the caller cancelled
//! request `id`; the worker's progress check sees it waiting and stops the parse; `S`, empty:
//! the worker took request `id`, so a death reported after it is that request's). A request's
//! payload is the language (its index; the high bit asks for the comments and blocks of code
//! too), the time the parse may take in milliseconds, and the text; an answer's is the
//! `Outcome` as JSON. Packets of another id are ignored, so an abandoned request's late answer
//! can never be taken for the next one.
//!
//! The pool always recovers. A request the caller stopped waiting for (cancelled, or given up
//! past its deadline and grace) leaves its slot owed an answer; before the slot is used again,
//! everything its worker sent meanwhile is read first (the late answer, or the supervisor's
//! report of a death), and only then is the slot judged by the clock. Free slots are taken
//! in the best state (ready, owed, wedged, dead), the longest free first among equals. A slot
//! still owed past the time its worker's alarm would have killed it is wedged: it is handed out
//! only when no slot in a better state exists, and the supervisor is asked to replace its worker
//! (`REPLACE` on the control socket), whose reported death makes the slot ready again. Only a
//! closed socket (the supervisor gone) makes a slot dead. [`health`] reports the slots' states.

use super::{Language, Outcome, parse_here};
use crate::par::lock;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, OnceLock, TryLockError};
use std::time::{Duration, Instant};

/// Data segment of each worker (`RLIMIT_DATA`) besides the grammars' tables: the memory one
/// parse may hold, the worker's own small heap included.
pub const WORKER_MEMORY: u64 = 160 << 20;
/// The zeroed memory the grammars of this build reserve for their parse tables
/// (`gnaw_grammars::inflated_bytes`, 35 MB with every language). It is mapped in every process
/// from the start, so `RLIMIT_DATA` counts it, though a worker touches only the part of the
/// grammars it parses with; the worker's limit adds it, so a parse keeps its [`WORKER_MEMORY`].
const GRAMMAR_TABLES: u64 = gnaw_grammars::inflated_bytes() as u64;
/// Most workers, whatever the core count: the memory all parses may hold at once is at most
/// `MAX_WORKERS * WORKER_MEMORY`.
pub const MAX_WORKERS: usize = 3;
/// Payload bytes per packet.
const CHUNK: usize = 32 << 10;
/// Header bytes per packet: kind, id, flags.
const HEADER: usize = 10;
const FIRST: u8 = 1;
const LAST: u8 = 2;
/// How often a waiting caller looks at its cancellation and its deadline.
const TICK: Duration = Duration::from_millis(20);
/// Past its deadline, how long a parse may still take before its worker is given up: the
/// worker's alarm, set to the deadline rounded up to whole seconds plus one, kills it by then.
const GRACE: Duration = Duration::from_millis(2500);

static POOL: OnceLock<Pool> = OnceLock::new();

/// Why parsing is off in this process: the workers could not start. Parsing then never falls
/// back to this process (where a hostile file could exhaust or abort it): every file is shown
/// as text, with this reason.
static DISABLED: OnceLock<String> = OnceLock::new();

/// Fork the parse workers (`slots` of them, at most [`MAX_WORKERS`]) and send every later
/// parse of this process to them. Call while the process is single-threaded, before its
/// seccomp filter. On an error, parsing is off for the process (never run in it), and the
/// error says why.
pub fn start(slots: usize) -> std::io::Result<()> {
    start_pool(slots).inspect_err(|e| {
        let _ = DISABLED.set(format!("the parse workers could not start ({e})"));
    })
}

fn start_pool(slots: usize) -> std::io::Result<()> {
    let limits = gnaw_sandbox::workers::WorkerLimits {
        slots: slots.clamp(1, MAX_WORKERS),
        data_bytes: WORKER_MEMORY + GRAMMAR_TABLES,
    };
    let workers = gnaw_sandbox::workers::spawn(limits, serve)?;
    let control = UnixStream::from(workers.control);
    control.set_write_timeout(Some(TICK))?;
    let control = File::from(OwnedFd::from(control));
    let mut slots = Vec::with_capacity(workers.slots.len());
    for fd in workers.slots {
        let sock = UnixStream::from(fd);
        // Set now: once confined, the server may not call setsockopt.
        sock.set_read_timeout(Some(TICK))?;
        sock.set_write_timeout(Some(TICK))?;
        // Read and written as a file: plain read(2) and write(2), which the server's seccomp
        // filter allows (a socket's write is sendto(2), which it refuses).
        let sock = File::from(OwnedFd::from(sock));
        slots.push(Mutex::new(Slot {
            sock,
            stale: None,
            dead: false,
            replace_asked: None,
        }));
    }
    let _ = POOL.set(Pool {
        states: slots.iter().map(|_| AtomicU8::new(READY)).collect(),
        free: Mutex::new((0..slots.len()).collect()),
        slots,
        freed: Condvar::new(),
        next_id: AtomicU64::new(1),
        replaced: AtomicU64::new(0),
        control: Mutex::new(control),
    });
    Ok(())
}

/// Leave the parse workers unstarted, for a process that parses nothing (the CLI's `grep`,
/// `read`, `tree`, `changes` and `log`): a parse asked for anyway fails with `why`, and never
/// runs in this process.
pub fn not_started(why: &str) {
    let _ = DISABLED.set(why.to_string());
}

/// Whether parses run in workers.
pub fn started() -> bool {
    POOL.get().is_some()
}

/// The parse workers' health, as this process sees them (`gnaw-mcp --sandbox-status` prints
/// it as `parse_workers`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Health {
    /// Workers started, one per slot (0: parses run in this process, or parsing is off).
    pub slots: usize,
    /// Slots that answer, or still may: neither wedged (owed an answer past the time its
    /// worker's alarm would have killed it) nor dead (the supervisor gone).
    pub live: usize,
    /// Workers that died (a memory bound, an alarm, a fault, a signal from outside) and that
    /// the supervisor replaced, as far as this process has read their reports.
    pub replaced: u64,
    /// Why parsing is off, when it is: files are then shown as text.
    pub disabled: Option<String>,
}

/// The parse workers' health now, from what this process last read of each slot.
pub fn health() -> Health {
    let Some(pool) = POOL.get() else {
        return Health {
            slots: 0,
            live: 0,
            replaced: 0,
            disabled: DISABLED.get().cloned(),
        };
    };
    let states: Vec<u8> = pool
        .states
        .iter()
        .map(|s| s.load(Ordering::Relaxed))
        .collect();
    let live = states.iter().filter(|&&s| s < WEDGED).count();
    let disabled = states.iter().all(|&s| s == DEAD).then(|| {
        "the parse workers' supervisor is gone; parsing is off until the server restarts".into()
    });
    Health {
        slots: states.len(),
        live,
        replaced: pool.replaced.load(Ordering::Relaxed),
        disabled,
    }
}

/// Parse a one-line file once per slot (each in turn, as the longest free slot is taken
/// first), then report [`health`]: whether the workers answer now, not only whether they
/// were started.
pub fn probe() -> Health {
    if let Some(pool) = POOL.get()
        && let Some(&lang) = Language::ALL.iter().find(|l| l.compiled_in())
    {
        let job = Job {
            lang,
            text: "x",
            limit: super::MAX_PARSE_TIME,
            extras: false,
        };
        for _ in 0..pool.slots.len() {
            let _ = pool.parse(&job, &|| false);
        }
    }
    health()
}

/// Parse `text` as `lang` within `limit` (with `extras`, finding its comments and blocks of code
/// too): in a worker when [`start`] ran, else here. With the outcome, the CPU time the parse ran
/// (the worker's or this thread's), when it is known: not for a worker that died, was given up
/// or never answered.
pub(super) fn parse(
    lang: Language,
    text: &str,
    limit: Duration,
    extras: bool,
    stop: &dyn Fn() -> bool,
) -> (Outcome, Option<Duration>) {
    let job = Job {
        lang,
        text,
        limit,
        extras,
    };
    match (POOL.get(), DISABLED.get()) {
        (Some(pool), _) => pool.parse(&job, stop),
        (None, Some(reason)) => (Outcome::Failed(reason.clone()), None),
        (None, None) => {
            let cpu = gnaw_sandbox::workers::thread_cpu_time();
            let outcome = parse_here(lang, text, limit, extras, stop);
            let cpu = gnaw_sandbox::workers::thread_cpu_time().saturating_sub(cpu);
            (outcome, Some(cpu))
        }
    }
}

/// One parse asked of a worker.
#[derive(Clone, Copy)]
struct Job<'a> {
    lang: Language,
    text: &'a str,
    limit: Duration,
    /// Find the comments and blocks of code too.
    extras: bool,
}

/// The bit of a request's language byte that asks for the comments and blocks of code too.
const WITH_EXTRAS: u8 = 0x80;

/// A worker's answer: the CPU time of the parse in nanoseconds (`u64`, little-endian), then
/// the [`Outcome`] as JSON.
fn decode(answer: &[u8]) -> (Outcome, Option<Duration>) {
    let Some((cpu, json)) = answer.split_first_chunk::<8>() else {
        return (
            Outcome::Failed("the parse worker's answer was cut short".into()),
            None,
        );
    };
    let outcome = serde_json::from_slice(json).unwrap_or_else(|e| {
        Outcome::Failed(format!("the parse worker's answer did not decode: {e}"))
    });
    (
        outcome,
        Some(Duration::from_nanos(u64::from_le_bytes(*cpu))),
    )
}

struct Pool {
    slots: Vec<Mutex<Slot>>,
    /// Each slot's state as last judged ([`READY`] to [`DEAD`]), read without its lock.
    states: Vec<AtomicU8>,
    /// The free slots, the longest free first: a slot just given back goes last, so a slot
    /// still owed an answer has the most time to get it before it is chosen again.
    free: Mutex<VecDeque<usize>>,
    freed: Condvar,
    next_id: AtomicU64,
    /// Deaths the supervisor reported: each dead worker was replaced by a fresh one.
    replaced: AtomicU64,
    /// To the supervisor: asks to replace a wedged slot's worker.
    control: Mutex<File>,
}

/// A slot's state, lowest best: how [`Pool::acquire`] ranks the free slots.
///
/// Nothing owed: its worker waits for a request.
const READY: u8 = 0;
/// An abandoned request's answer (or its worker's death) is still owed, and may still come.
const OWED: u8 = 1;
/// Owed past the time its worker's alarm would have killed it: not chosen while a slot in a
/// better state exists, and judged again (by what its worker sent) each time it could be.
const WEDGED: u8 = 2;
/// Its socket closed: the supervisor is gone, and nothing will answer on this slot again.
const DEAD: u8 = 3;

struct Slot {
    sock: File,
    /// A request whose answer was not waited for, and when its worker is surely done with it.
    stale: Option<(u64, Instant)>,
    /// The socket closed (the supervisor is gone): this slot answers nothing any more.
    dead: bool,
    /// When the supervisor was last asked to replace this slot's worker (wedged).
    replace_asked: Option<Instant>,
}

impl Slot {
    /// Read, without waiting, everything the worker sent while no one waited (an abandoned
    /// request's late answer, the report of a death), then judge the slot by it: what came
    /// counts before any deadline.
    fn settle(&mut self, index: usize, buf: &mut [u8], replaced: &AtomicU64) -> u8 {
        if !self.dead {
            let fd = std::os::fd::AsFd::as_fd(&self.sock);
            if gnaw_sandbox::workers::set_nonblocking(fd, true).is_ok() {
                loop {
                    match read_packet(&mut self.sock, buf) {
                        Packet::Nothing => break,
                        Packet::Closed => {
                            self.dead = true;
                            break;
                        }
                        Packet::Message(n) => self.take(index, &buf[..n], replaced),
                    }
                }
                let fd = std::os::fd::AsFd::as_fd(&self.sock);
                let _ = gnaw_sandbox::workers::set_nonblocking(fd, false);
            }
        }
        self.state()
    }

    /// Note a packet no request waits for: the end of the abandoned request, or a death (after
    /// which the slot's fresh worker owes nothing).
    fn take(&mut self, index: usize, packet: &[u8], replaced: &AtomicU64) {
        if packet.first() == Some(&gnaw_sandbox::workers::DIED) {
            replaced.fetch_add(1, Ordering::Relaxed);
            log::debug!("parse worker {index} died ({packet:?}); the supervisor replaced it");
            self.stale = None;
            self.replace_asked = None;
            return;
        }
        if let Some((old, _)) = self.stale
            && packet.len() >= HEADER
            && packet[0] == b'A'
            && packet[1..9] == old.to_le_bytes()
            && packet[9] & LAST != 0
        {
            self.stale = None;
            self.replace_asked = None;
        }
    }

    fn state(&self) -> u8 {
        match self.stale {
            _ if self.dead => DEAD,
            None => READY,
            Some((_, until)) if Instant::now() < until => OWED,
            Some(_) => WEDGED,
        }
    }
}

/// What reading one packet gave.
enum Packet {
    Message(usize),
    Nothing,
    Closed,
}

fn read_packet(sock: &mut File, buf: &mut [u8]) -> Packet {
    match sock.read(buf) {
        Ok(0) => Packet::Closed,
        Ok(n) => Packet::Message(n),
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
            ) =>
        {
            Packet::Nothing
        }
        Err(_) => Packet::Closed,
    }
}

fn header(kind: u8, id: u64, flags: u8) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[0] = kind;
    h[1..9].copy_from_slice(&id.to_le_bytes());
    h[9] = flags;
    h
}

/// Send `payload` as packets of `kind` and `id`, giving up at `until`.
fn send(sock: &mut File, kind: u8, id: u64, payload: &[u8], until: Instant) -> bool {
    let mut packet = Vec::with_capacity(HEADER + CHUNK);
    let chunks: Vec<&[u8]> = if payload.is_empty() {
        vec![&[][..]]
    } else {
        payload.chunks(CHUNK).collect()
    };
    let n = chunks.len();
    for (i, chunk) in chunks.into_iter().enumerate() {
        let flags = if i == 0 { FIRST } else { 0 } | if i + 1 == n { LAST } else { 0 };
        packet.clear();
        packet.extend_from_slice(&header(kind, id, flags));
        packet.extend_from_slice(chunk);
        loop {
            match sock.write(&packet) {
                Ok(_) => break,
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) =>
                {
                    if Instant::now() >= until {
                        return false;
                    }
                }
                Err(_) => return false,
            }
        }
    }
    true
}

impl Pool {
    /// Judge slot `index` by what its worker sent ([`Slot::settle`]); a wedged one's worker is
    /// killed by the supervisor (asked again each [`GRACE`] it stays wedged), whose report of
    /// the death then makes the slot ready with a fresh worker.
    fn judge(&self, index: usize, slot: &mut Slot, buf: &mut [u8]) -> u8 {
        let state = slot.settle(index, buf, &self.replaced);
        if state == WEDGED
            && slot
                .replace_asked
                .is_none_or(|asked| asked.elapsed() >= GRACE)
        {
            log::warn!(
                "parse worker {index} has not answered since its alarm should have stopped \
                 it; asking the supervisor to replace it"
            );
            let index_byte = u8::try_from(index).unwrap_or(u8::MAX);
            let _ = lock(&self.control).write(&[gnaw_sandbox::workers::REPLACE, index_byte]);
            slot.replace_asked = Some(Instant::now());
        }
        self.states[index].store(state, Ordering::Relaxed);
        state
    }

    fn parse(&self, job: &Job<'_>, stop: &dyn Fn() -> bool) -> (Outcome, Option<Duration>) {
        let Some(index) = self.acquire(stop) else {
            return (Outcome::Cancelled, None);
        };
        let outcome = {
            let mut slot = lock(&self.slots[index]);
            let outcome = self.parse_on(index, &mut slot, job, stop);
            self.states[index].store(slot.state(), Ordering::Relaxed);
            outcome
        };
        lock(&self.free).push_back(index);
        self.freed.notify_one();
        outcome
    }

    /// A free slot, waiting for one; `None` if the call is cancelled meanwhile. The free slot in
    /// the best state is taken, the longest free first among equals; a wedged or dead slot only
    /// when no slot in a better state exists, free or busy (it is then judged again, and fails
    /// the parse at once if it has not recovered).
    fn acquire(&self, stop: &dyn Fn() -> bool) -> Option<usize> {
        let mut buf = Vec::new();
        let mut free = lock(&self.free);
        loop {
            if stop() {
                return None;
            }
            // A slot owed something may have got it since it was last judged.
            for &i in free.iter() {
                let state = self.states[i].load(Ordering::Relaxed);
                if state == READY || state == DEAD {
                    continue;
                }
                let mut slot = match self.slots[i].try_lock() {
                    Ok(slot) => slot,
                    Err(TryLockError::Poisoned(e)) => e.into_inner(),
                    Err(TryLockError::WouldBlock) => continue,
                };
                buf.resize(HEADER + CHUNK, 0);
                self.judge(i, &mut slot, &mut buf);
            }
            let best = free
                .iter()
                .enumerate()
                .map(|(at, &i)| (self.states[i].load(Ordering::Relaxed), at))
                .min();
            if let Some((state, at)) = best {
                let better_busy = || {
                    (0..self.slots.len()).any(|j| {
                        !free.contains(&j) && self.states[j].load(Ordering::Relaxed) < state
                    })
                };
                if state < WEDGED || !better_busy() {
                    return free.remove(at);
                }
            }
            free = self
                .freed
                .wait_timeout(free, TICK)
                .map(|(guard, _)| guard)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }

    fn parse_on(
        &self,
        index: usize,
        slot: &mut Slot,
        job: &Job<'_>,
        stop: &dyn Fn() -> bool,
    ) -> (Outcome, Option<Duration>) {
        let Job {
            lang,
            text,
            limit,
            extras,
        } = *job;
        let mut buf = vec![0u8; HEADER + CHUNK];
        // First what the worker sent while no one waited: a late answer, a death.
        self.judge(index, slot, &mut buf);
        if let Some((_, until)) = slot.stale
            && !drain(slot, index, until, &mut buf, stop, &self.replaced)
        {
            let outcome = if slot.dead {
                unavailable()
            } else if stop() {
                Outcome::Cancelled
            } else {
                self.judge(index, slot, &mut buf);
                Outcome::Failed(
                    "the parse worker has not answered in time (the file is shown as text)".into(),
                )
            };
            return (outcome, None);
        }
        if slot.dead {
            return (unavailable(), None);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let started = Instant::now();
        let deadline = started + limit;
        let given_up = deadline + GRACE;
        let mut payload = Vec::with_capacity(text.len() + 5);
        payload.push(lang as u8 | if extras { WITH_EXTRAS } else { 0 });
        payload.extend_from_slice(
            &u32::try_from(limit.as_millis())
                .unwrap_or(u32::MAX)
                .to_le_bytes(),
        );
        payload.extend_from_slice(text.as_bytes());
        if !send(&mut slot.sock, b'Q', id, &payload, given_up) {
            slot.stale = Some((id, given_up));
            // A closed socket is seen now, not at the next parse.
            slot.settle(index, &mut buf, &self.replaced);
            let outcome = if slot.dead {
                unavailable()
            } else {
                Outcome::Failed("the parse worker did not take the file".into())
            };
            return (outcome, None);
        }
        let mut answer = Vec::new();
        // Whether a worker said it took the request: a death reported before that is an
        // earlier worker's (killed while idle, the report not yet read when the request was
        // sent), and the request goes again to its replacement.
        let mut taken = false;
        loop {
            if stop() {
                // Ask the worker to stop now (its progress check looks for a message).
                let _ = send(&mut slot.sock, b'X', id, &[], Instant::now() + TICK);
                slot.stale = Some((id, given_up));
                return (Outcome::Cancelled, None);
            }
            if Instant::now() >= given_up {
                slot.stale = Some((id, given_up + GRACE));
                return (Outcome::Time, None);
            }
            let n = match read_packet(&mut slot.sock, &mut buf) {
                Packet::Nothing => continue,
                Packet::Closed => {
                    slot.dead = true;
                    return (unavailable(), None);
                }
                Packet::Message(n) => n,
            };
            let packet = &buf[..n];
            if packet[0] == gnaw_sandbox::workers::DIED {
                self.replaced.fetch_add(1, Ordering::Relaxed);
                if taken {
                    return (died(packet, started.elapsed() >= limit), None);
                }
                log::debug!("parse worker {index} was replaced before it took a request");
                if !send(&mut slot.sock, b'Q', id, &payload, given_up) {
                    slot.stale = Some((id, given_up));
                    return (
                        Outcome::Failed("the parse worker did not take the file".into()),
                        None,
                    );
                }
                continue;
            }
            if n < HEADER || packet[1..9] != id.to_le_bytes() {
                continue;
            }
            if packet[0] == b'S' {
                taken = true;
                continue;
            }
            if packet[0] != b'A' {
                continue;
            }
            if packet[9] & FIRST != 0 {
                answer.clear();
            }
            answer.extend_from_slice(&packet[HEADER..]);
            if packet[9] & LAST != 0 {
                return decode(&answer);
            }
        }
    }
}

/// Wait for what an abandoned request still owes (its last packet, or its worker's death),
/// reading before judging by the clock. False if it did not come by `until`, the slot closed,
/// or the caller cancelled.
fn drain(
    slot: &mut Slot,
    index: usize,
    until: Instant,
    buf: &mut [u8],
    stop: &dyn Fn() -> bool,
    replaced: &AtomicU64,
) -> bool {
    loop {
        match read_packet(&mut slot.sock, buf) {
            Packet::Nothing => {}
            Packet::Closed => slot.dead = true,
            Packet::Message(n) => slot.take(index, &buf[..n], replaced),
        }
        if slot.stale.is_none() {
            return true;
        }
        if slot.dead || stop() || Instant::now() >= until {
            return false;
        }
    }
}

fn unavailable() -> Outcome {
    Outcome::Failed("the parse workers are not running (the file is shown as text)".into())
}

/// The outcome of a request whose worker died: its memory bound, or its alarm, or a fault.
fn died(packet: &[u8], past_deadline: bool) -> Outcome {
    let signal = packet.get(1).copied().unwrap_or(0);
    let code = packet.get(2).copied().unwrap_or(0);
    if past_deadline && signal == libc::SIGALRM as u8 {
        return Outcome::Time;
    }
    Outcome::Died { signal, code }
}

/// A worker's loop: read requests, parse each, answer, until the socket closes.
pub fn serve(fd: OwnedFd) {
    let mut sock = File::from(fd);
    let mut buf = vec![0u8; HEADER + CHUNK];
    let mut current: Option<u64> = None;
    let mut payload: Vec<u8> = Vec::new();
    loop {
        let n = match sock.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        let packet = &buf[..n];
        if n < HEADER || packet[0] != b'Q' {
            continue;
        }
        let id = u64::from_le_bytes(packet[1..9].try_into().unwrap_or_default());
        let flags = packet[9];
        if flags & FIRST != 0 {
            current = Some(id);
            payload.clear();
        } else if current != Some(id) {
            continue;
        }
        if payload.len() + (n - HEADER) > super::MAX_PARSE_BYTES + 5 {
            current = None;
            payload.clear();
            continue;
        }
        payload.extend_from_slice(&packet[HEADER..]);
        if flags & LAST == 0 {
            continue;
        }
        current = None;
        // Taken: a death from here on is this request's.
        if !send(
            &mut sock,
            b'S',
            id,
            &[],
            Instant::now() + Duration::from_secs(3600),
        ) {
            return;
        }
        let cpu = gnaw_sandbox::workers::thread_cpu_time();
        let outcome = answer(&payload, &|| {
            gnaw_sandbox::workers::has_message(std::os::fd::AsFd::as_fd(&sock))
        });
        let cpu = gnaw_sandbox::workers::thread_cpu_time().saturating_sub(cpu);
        payload.clear();
        let mut reply = u64::try_from(cpu.as_nanos())
            .unwrap_or(u64::MAX)
            .to_le_bytes()
            .to_vec();
        reply.extend(serde_json::to_vec(&outcome).unwrap_or_default());
        if !send(
            &mut sock,
            b'A',
            id,
            &reply,
            Instant::now() + Duration::from_secs(3600),
        ) {
            return;
        }
    }
}

/// Parse one request's payload in this worker.
fn answer(payload: &[u8], cancelled: &dyn Fn() -> bool) -> Outcome {
    let (Some(&lang), Some(ms)) = (payload.first(), payload.get(1..5)) else {
        return Outcome::Failed("a malformed parse request".into());
    };
    let extras = lang & WITH_EXTRAS != 0;
    let Some(lang) = Language::ALL.get(usize::from(lang & !WITH_EXTRAS)).copied() else {
        return Outcome::Failed("a malformed parse request".into());
    };
    let limit = Duration::from_millis(u64::from(u32::from_le_bytes(
        ms.try_into().unwrap_or_default(),
    )));
    let Ok(text) = std::str::from_utf8(&payload[5..]) else {
        return Outcome::Failed("a parse request that is not UTF-8".into());
    };
    // The hard stop, should the parser spin where it never looks at the clock.
    let secs = u32::try_from(limit.as_secs())
        .unwrap_or(u32::MAX - 2)
        .saturating_add(2);
    gnaw_sandbox::workers::set_alarm(secs);
    let outcome = parse_here(lang, text, limit, extras, cancelled);
    gnaw_sandbox::workers::set_alarm(0);
    outcome
}
