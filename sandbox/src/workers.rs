//! Parse workers: child processes that run an untrusted parser (tree-sitter's C runtime and
//! grammars) under hard limits, so that no input can abort, exhaust or stall the process that
//! asked.
//!
//! A grammar can be driven by a small hostile file into allocating without bound in code that
//! never checks for cancellation (tree-sitter's error recovery enumerates stack paths), and the
//! runtime aborts the whole process when an allocation fails; some grammars' scanners call
//! `abort` themselves. None of that can be caught in-process, so parses run here:
//!
//! - [`spawn`] forks, while the caller is still single-threaded (before any thread and before
//!   the server's own seccomp filter, which forbids creating processes), one supervisor process.
//!   It confines itself at once: Landlock with every filesystem and network right handled and
//!   none granted (no file can be opened, not even inside the root), no capabilities,
//!   `no_new_privs`, and death with its parent (`PR_SET_PDEATHSIG`).
//! - The supervisor forks one worker per slot. A worker limits its data segment
//!   (`RLIMIT_DATA`: every heap and private mapping, so a parse's memory is bounded by the
//!   kernel), installs a seccomp allow-list of its own (read and write on the sockets it holds,
//!   memory, its own signals and alarm, clocks, exit: [`crate::seccomp::install_worker`]), and
//!   then serves requests on its slot's socket with the caller's function.
//! - When a worker dies (its memory bound made an allocation fail and the runtime abort, the
//!   alarm of an overlong parse fired, or a grammar faulted), the supervisor reaps it, sends a
//!   [`DIED`] message on the slot's socket, and forks a fresh worker for the slot. The caller's
//!   end of each slot stays valid for the life of the process, so the caller (confined, unable
//!   to create a process or a socket) never needs a new descriptor.
//! - A worker that no longer answers, which its own alarm cannot end (one stopped by a signal
//!   from outside), is replaced on request: the caller writes [`REPLACE`] and the slot on the
//!   control socket, and the supervisor kills that worker, which then dies like any other.
//!   The supervisor sleeps in `poll` on the control socket and on each worker's pidfd.
//!
//! Sockets are `SOCK_SEQPACKET`: a worker killed mid-answer never leaves half a message.

#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Duration;

use landlock::{Ruleset, RulesetCreatedAttr};
use nix::sys::resource::{Resource, setrlimit};
use nix::sys::signal::Signal;
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{ForkResult, Pid, fork, getppid};

/// First byte of the message the supervisor sends on a slot when its worker died; the second
/// byte is the signal that killed it (0 for an exit), the third the exit code.
pub const DIED: u8 = 0xFF;

/// Limits of every worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkerLimits {
    /// Number of workers, each on its own slot: the most parses that run at once.
    pub slots: usize,
    /// `RLIMIT_DATA` of each worker, in bytes: its whole heap, the parse's memory included.
    pub data_bytes: u64,
}

/// A worker's body: serves requests on its slot's socket until the socket closes, then
/// returns (the worker exits 0).
pub type Serve = fn(OwnedFd);

/// First byte of the message the caller sends on [`Workers::control`] to have a slot's worker
/// replaced (killed, then forked afresh as after any death); the second byte is the slot.
pub const REPLACE: u8 = b'K';

/// The caller's ends of what [`spawn`] started.
#[derive(Debug)]
pub struct Workers {
    /// One socket per slot, to its worker (and, for [`DIED`], from the supervisor).
    pub slots: Vec<OwnedFd>,
    /// To the supervisor: [`REPLACE`] messages, for a worker that no longer answers (one stopped
    /// by a signal from outside, say), which its own alarm could not end.
    pub control: OwnedFd,
}

/// Fork the supervisor and its workers. Returns the caller's end of each slot's socket and of
/// the supervisor's control socket. Must be called while the process is single-threaded (it
/// checks), before the caller's own seccomp filter (which forbids `fork`).
pub fn spawn(limits: WorkerLimits, serve: Serve) -> io::Result<Workers> {
    let ends = || {
        let mut ours = Vec::with_capacity(limits.slots);
        let mut theirs = Vec::with_capacity(limits.slots);
        for _ in 0..limits.slots.max(1) {
            let (a, b) = crate::forked::seqpacket_pair()?;
            ours.push(a);
            theirs.push(b);
        }
        let (control, control_theirs) = crate::forked::seqpacket_pair()?;
        Ok((
            Workers {
                slots: ours,
                control,
            },
            (theirs, control_theirs),
        ))
    };
    crate::forked::fork_helper(
        |n| format!("parse workers must be started while the process has one thread (it has {n})"),
        ends,
        |parent, (slots, control)| supervise(parent, slots, control, limits, serve),
    )
}

/// The supervisor's life: confine, fork a worker per slot, replace each worker that dies or
/// that the caller asks to have replaced.
fn supervise(
    parent: Pid,
    slots: Vec<OwnedFd>,
    control: OwnedFd,
    limits: WorkerLimits,
    serve: Serve,
) -> ! {
    die_with_parent(parent);
    // Nothing of the caller's: not its stdin/stdout (the protocol), not its stderr (a dying
    // grammar's message is not the server's log), not its files.
    let mut keep: Vec<i32> = slots.iter().map(|fd| fd.as_raw_fd()).collect();
    keep.push(control.as_raw_fd());
    close_all_but(&keep);
    if confine_self().is_err() {
        // An unconfined supervisor would run parsers with the caller's rights: refuse. Every
        // slot then answers as a dead worker (the caller's reads see the sockets close).
        std::process::exit(3);
    }
    // Confining changed this process's credentials, which may clear the parent-death signal:
    // ask again.
    die_with_parent(parent);
    let mut pids: Vec<Option<Pid>> = vec![None; slots.len()];
    // Each worker's pidfd, readable once it exits: what the supervisor waits on, beside the
    // control socket. Without pidfds (a kernel before 5.3), it looks every 100 ms instead.
    let mut pidfds: Vec<Option<OwnedFd>> = (0..slots.len()).map(|_| None).collect();
    let mut deaths: Vec<std::time::Instant> = Vec::new();
    loop {
        // A supervisor whose caller is gone has nothing to serve (seen: supervisors left
        // sleeping under init after their server exited, retrying workers forever).
        if getppid() != parent {
            std::process::exit(0);
        }
        for (i, pid) in pids.iter_mut().enumerate() {
            if pid.is_none() {
                *pid = start_worker(&slots, i, limits, serve);
                pidfds[i] = pid.and_then(pidfd_open);
            }
        }
        let every_one_watched = pidfds.iter().all(Option::is_some);
        wait_for_news(&control, &pidfds, every_one_watched, &pids);
        // Reap every worker that died, whichever woke this loop.
        loop {
            let status = match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => break,
                Ok(status) => status,
                Err(nix::errno::Errno::EINTR) => continue,
                Err(_) => break,
            };
            let (pid, signal, code) = match status {
                WaitStatus::Exited(pid, code) => (pid, 0u8, code as u8),
                WaitStatus::Signaled(pid, signal, _) => (pid, signal as i32 as u8, 0u8),
                _ => continue,
            };
            if let Some(i) = pids.iter().position(|p| *p == Some(pid)) {
                pids[i] = None;
                pidfds[i] = None;
                let _ = nix::unistd::write(&slots[i], &[DIED, signal, code]);
            }
            // A worker that dies at once, again and again (a broken host), must not spin this
            // process: at most 50 restarts a second.
            let now = std::time::Instant::now();
            deaths.retain(|t| now.duration_since(*t) < Duration::from_secs(1));
            deaths.push(now);
            if deaths.len() > 50 {
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        if pids.iter().all(Option::is_none) {
            // No worker could be started: wait before trying again.
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Sleep until a worker exits or the caller writes on `control` (a [`REPLACE`] message is
/// acted on here: the slot's worker is killed, to be reaped and replaced). Wakes every 100 ms
/// when some worker has no pidfd to watch. Exits the supervisor when the caller's end closed.
fn wait_for_news(
    control: &OwnedFd,
    pidfds: &[Option<OwnedFd>],
    every_one_watched: bool,
    pids: &[Option<Pid>],
) {
    let mut fds: Vec<libc::pollfd> = std::iter::once(control)
        .chain(pidfds.iter().flatten())
        .map(|fd| libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let timeout = if every_one_watched { -1 } else { 100 };
    // SAFETY: `fds` is a valid array of `fds.len()` pollfd structures for the whole call.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout) };
    if ready <= 0 || fds[0].revents == 0 {
        return;
    }
    let mut message = [0u8; 2];
    match nix::unistd::read(control, &mut message) {
        Ok(0) => std::process::exit(0),
        Ok(2) if message[0] == REPLACE => {
            if let Some(Some(pid)) = pids.get(usize::from(message[1])) {
                let _ = nix::sys::signal::kill(*pid, Signal::SIGKILL);
            }
        }
        Ok(_) | Err(nix::errno::Errno::EINTR) | Err(nix::errno::Errno::EAGAIN) => {}
        Err(_) => std::process::exit(0),
    }
}

/// A descriptor that becomes readable when `pid` exits (`None` where the kernel has none).
fn pidfd_open(pid: Pid) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid.as_raw(), 0) };
    let fd = i32::try_from(fd).ok().filter(|&fd| fd >= 0)?;
    // SAFETY: the kernel just returned this descriptor; nothing else owns it.
    Some(unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) })
}

/// Fork the worker of slot `i`; `None` when the fork failed (tried again after the next death).
fn start_worker(slots: &[OwnedFd], i: usize, limits: WorkerLimits, serve: Serve) -> Option<Pid> {
    let supervisor = nix::unistd::getpid();
    // SAFETY: the supervisor is single-threaded (it never starts a thread), so the child is a
    // complete copy with no lock held by a missing thread.
    match unsafe { fork() } {
        Ok(ForkResult::Parent { child }) => Some(child),
        Err(_) => None,
        Ok(ForkResult::Child) => {
            die_with_parent(supervisor);
            let _ = setrlimit(Resource::RLIMIT_DATA, limits.data_bytes, limits.data_bytes);
            let _ = setrlimit(Resource::RLIMIT_CORE, 0, 0);
            // Its own socket only: every other slot's end is closed in this process.
            let mut mine = None;
            for (j, fd) in slots.iter().enumerate() {
                if j == i {
                    mine = fd.try_clone().ok();
                }
            }
            let Some(mine) = mine else {
                std::process::exit(4);
            };
            close_all_but(&[mine.as_raw_fd()]);
            if crate::seccomp::install_worker().is_err() {
                std::process::exit(5);
            }
            serve(mine);
            std::process::exit(0);
        }
    }
}

/// Ask for `SIGKILL` when the parent dies, and die now if it already has.
pub(crate) fn die_with_parent(parent: Pid) {
    let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGKILL);
    if getppid() != parent {
        std::process::exit(0);
    }
}

/// Close every descriptor but `keep` (inherited ones: the caller's files, other slots).
pub(crate) fn close_all_but(keep: &[i32]) {
    let mut keep: Vec<u32> = keep.iter().map(|&fd| fd as u32).collect();
    keep.sort_unstable();
    let mut next = 0u32;
    for &k in &keep {
        if k > next {
            close_range(next, k - 1);
        }
        next = k + 1;
    }
    close_range(next, u32::MAX);
}

fn close_range(first: u32, last: u32) {
    // SAFETY: close_range only closes descriptors; nothing in this process uses the ones it
    // closes (the worker holds only its socket and the standard streams from here on).
    unsafe {
        libc::syscall(libc::SYS_close_range, first, last, 0);
    }
}

/// Landlock with every right handled and none granted, no capabilities, `no_new_privs`.
fn confine_self() -> Result<(), String> {
    let _ = nix::sys::prctl::set_dumpable(false);
    let err = |e: landlock::RulesetError| format!("Landlock: {e}");
    let ruleset = crate::confine::handle_all(Ruleset::default()).map_err(err)?;
    ruleset
        .create()
        .map_err(err)?
        .no_new_privs(true)
        .restrict_self()
        .map_err(err)?;
    let caps = crate::caps::drop_all();
    if !caps.holds_none() {
        return Err("capabilities could not be dropped".into());
    }
    Ok(())
}

/// Kill this process with `SIGALRM` in `secs` seconds (0 cancels): a worker's hard stop for a
/// parse that never returns to its own time check.
pub fn set_alarm(secs: u32) {
    if secs == 0 {
        nix::unistd::alarm::cancel();
    } else {
        nix::unistd::alarm::set(secs);
    }
}

/// Whether a message waits on `fd`, without taking it or blocking: a worker's progress check
/// asks it to learn, mid-parse, that its caller cancelled (the caller sends a message).
pub fn has_message(fd: std::os::fd::BorrowedFd<'_>) -> bool {
    use nix::sys::socket::{MsgFlags, recv};
    let mut byte = [0u8; 1];
    matches!(
        recv(fd.as_raw_fd(), &mut byte, MsgFlags::MSG_PEEK | MsgFlags::MSG_DONTWAIT),
        Ok(n) if n > 0
    )
}

/// The CPU time the calling thread has run so far (zero if the clock cannot be read): what a
/// parse is charged to its call's budget, so that a machine busy with other work slows a call
/// down without making it parse fewer files.
pub fn thread_cpu_time() -> std::time::Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(std::time::Duration::from)
        .unwrap_or_default()
}

/// Make reads of `fd` return at once when nothing waits (`on`), or wait again (off): how the
/// caller reads everything a worker sent while no one waited, before judging its slot. Done
/// with `fcntl(F_SETFL)`, which the server's seccomp filter allows (the `FIONBIO` ioctl that
/// `UnixStream::set_nonblocking` uses is refused).
pub fn set_nonblocking(fd: std::os::fd::BorrowedFd<'_>, on: bool) -> io::Result<()> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let flags = OFlag::from_bits_retain(fcntl(fd, FcntlArg::F_GETFL).map_err(io::Error::from)?);
    let flags = if on {
        flags | OFlag::O_NONBLOCK
    } else {
        flags - OFlag::O_NONBLOCK
    };
    fcntl(fd, FcntlArg::F_SETFL(flags)).map_err(io::Error::from)?;
    Ok(())
}
