//! The seccomp-bpf filter: an allow-list of the system calls gnaw-mcp makes once confined.
//!
//! Landlock (ABI 7) governs files, TCP and a few scopes; it does not see UDP, UNIX pathname,
//! raw, packet or netlink sockets, `io_uring`, `memfd_create` + `execveat`, namespaces, bpf,
//! `perf_event_open`, keyrings, fanotify, MPTCP or TCP fast open. After Landlock and the
//! capability drop, [`install`] puts the process under a filter that allows only the calls the
//! served server was seen to make (its whole test suite runs under it), some with their
//! arguments checked, and fails everything else with `EPERM`:
//!
//! - **Files:** read, stat, list, seek, close, `openat` only without any write, create,
//!   truncate, append or `O_TMPFILE` flag (`openat2`, whose flags live in memory a filter
//!   cannot read, is allowed for the per-open beneath checks; Landlock denies writes there),
//!   `readlink(at)`, `access`/`faccessat(2)`, `fcntl` only to get or set descriptor and status flags or duplicate with
//!   close-on-exec, `ioctl` only `TCGETS`, `FIOCLEX` and `FIONCLEX`.
//! - **Memory and threads:** `mmap` family, `brk`, `futex`, `rseq`, robust lists; `clone`
//!   only with `CLONE_THREAD` and no namespace flag (plain threads; no process can be forked);
//!   `clone3`, whose flags a filter cannot read, fails with `ENOSYS` so that glibc falls back to
//!   `clone`.
//! - **Signals:** own handlers and masks, and `tgkill` only to this process (`abort`).
//! - **Misc:** `getrandom`, clocks and sleeps, `sched_getaffinity`/`sched_yield`, `getpid`,
//!   `gettid`, `prlimit64` only to read, `prctl` only to name threads and read flags, `exit`.
//!
//! Built for musl (the static binary), the list also has the calls musl makes where glibc makes
//! others, each checked as its glibc counterpart: `open` (flags as `openat`'s), `tkill` only to
//! this process's pid (`abort`), `ioctl` `TIOCGWINSZ` (`isatty`). glibc builds do not list them.
//!
//! Every `socket`, `socketpair`, `execve(at)`, `memfd_create`, `io_uring_*`, `unshare`,
//! `setns`, `mount`, `ptrace`, `process_vm_*`, `bpf`, `perf_event_open`, `keyctl`,
//! `fanotify_init`, `userfaultfd`, `kill`, write-side file call and so on is therefore refused.
//!
//! The architecture is checked first: seccompiler's program kills the process when
//! `seccomp_data.arch` is not this build's (an `int 0x80` i386 call on x86_64). x32 calls (number
//! with bit `0x40000000` set) match no allowed number and fail with `EPERM`.
//!
//! Two filters are installed, because one seccompiler filter has a single "no match" action.
//! First a one-rule filter that answers `clone3` with `ENOSYS` and allows everything else, then
//! the allow-list, which lets `clone3` through to it. The kernel runs every filter and keeps the
//! most restrictive answer (an errno beats "allow"), so `clone3` gets `ENOSYS` and every other
//! call the allow-list's answer. (The other order cannot work: the allow-list refuses the
//! `seccomp` call that would install a second filter, and between two errnos the newer
//! filter's wins.)
//!
//! The filter is inherited by every thread created afterwards, so [`install`] must run while
//! the process is single-threaded (`confine` checks). It also sets `no_new_privs`.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use serde::Serialize;

/// What a denied call gets.
const DENY_ERRNO: i32 = libc::EPERM;

/// Namespace flags of `clone`, all refused.
const CLONE_NAMESPACES: u64 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u64
    | 0x80; // CLONE_NEWTIME

/// `openat` flags that write, create or truncate; none may be set.
const OPEN_WRITE_FLAGS: u64 =
    (libc::O_WRONLY | libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC | libc::O_APPEND | libc::O_EXCL)
        as u64
        | 0o2000_0000; // __O_TMPFILE

/// `ioctl` requests, as the filter compares them. The libc crate types them `c_ulong` for glibc
/// and `c_int` for musl; the kernel's numbers are the same.
#[allow(clippy::unnecessary_cast)]
const TCGETS: u64 = libc::TCGETS as u64;
#[allow(clippy::unnecessary_cast)]
const FIONBIO: u64 = libc::FIONBIO as u64;
#[allow(clippy::unnecessary_cast)]
const FIOCLEX: u64 = libc::FIOCLEX as u64;
#[allow(clippy::unnecessary_cast)]
const FIONCLEX: u64 = libc::FIONCLEX as u64;

/// The server's `ioctl` requests: `isatty` (glibc asks `TCGETS`) and close-on-exec.
#[cfg(not(target_env = "musl"))]
const SERVER_IOCTLS: &[u64] = &[TCGETS, FIOCLEX, FIONCLEX];
/// The server's `ioctl` requests: `isatty` (musl asks `TIOCGWINSZ`, the window size, where glibc
/// asks `TCGETS`; both only read a terminal's settings) and close-on-exec. (The musl binary was
/// seen to ask it only before confinement, from the logger; it is the counterpart of glibc's
/// `TCGETS`, so that an `isatty` once confined answers the same on both.)
#[cfg(target_env = "musl")]
#[allow(clippy::unnecessary_cast)]
const SERVER_IOCTLS: &[u64] = &[TCGETS, libc::TIOCGWINSZ as u64, FIOCLEX, FIONCLEX];

/// How one allowed call's arguments are checked.
#[derive(Clone, Copy, Debug)]
enum Args {
    /// Any arguments.
    Any,
    /// The 32-bit argument `index` is one of `values`.
    OneOf(u8, &'static [u64]),
    /// `arg[index] & mask == value`, on all 64 bits.
    Masked(u8, u64, u64),
    /// The 64-bit argument `index` is zero (a NULL pointer).
    Null(u8),
    /// The 32-bit argument `index` is this process's pid (filled in at install).
    OwnPid(u8),
}

/// One allowed call: name (for the status), number, argument check.
type Allowed = (&'static str, libc::c_long, Args);

/// Memory, as every process under a filter manages it (the allocator's calls).
const MEMORY: &[Allowed] = &[
    ("brk", libc::SYS_brk, Args::Any),
    ("mmap", libc::SYS_mmap, Args::Any),
    ("munmap", libc::SYS_munmap, Args::Any),
    ("mremap", libc::SYS_mremap, Args::Any),
    ("mprotect", libc::SYS_mprotect, Args::Any),
    ("madvise", libc::SYS_madvise, Args::Any),
];

/// Reading files by descriptor, and opening them without any write: the server's and the
/// spawner's (the loader, a worker's own /proc entries and settings, the roots).
const READ_FILES: &[Allowed] = &[
    ("read", libc::SYS_read, Args::Any),
    ("readv", libc::SYS_readv, Args::Any),
    ("pread64", libc::SYS_pread64, Args::Any),
    ("preadv", libc::SYS_preadv, Args::Any),
    ("write", libc::SYS_write, Args::Any),
    ("writev", libc::SYS_writev, Args::Any),
    ("close", libc::SYS_close, Args::Any),
    ("lseek", libc::SYS_lseek, Args::Any),
    ("fstat", libc::SYS_fstat, Args::Any),
    ("newfstatat", libc::SYS_newfstatat, Args::Any),
    ("statx", libc::SYS_statx, Args::Any),
    ("getdents64", libc::SYS_getdents64, Args::Any),
    (
        "openat",
        libc::SYS_openat,
        Args::Masked(2, OPEN_WRITE_FLAGS, 0),
    ),
    ("openat2", libc::SYS_openat2, Args::Any),
    ("readlinkat", libc::SYS_readlinkat, Args::Any),
    ("getcwd", libc::SYS_getcwd, Args::Any),
    // A permission check by path, like stat: seen once per server in the suite's
    // 200,000-file test (the caller is in a dependency); Landlock does not govern it either.
    ("faccessat", libc::SYS_faccessat, Args::Any),
    ("faccessat2", libc::SYS_faccessat2, Args::Any),
];

/// glibc's realpath (canonicalizing absolute inputs) uses the legacy calls: the server's and
/// the spawner's. Only x86_64 has them.
#[cfg(target_arch = "x86_64")]
const LEGACY_FILES: &[Allowed] = &[
    ("readlink", libc::SYS_readlink, Args::Any),
    ("access", libc::SYS_access, Args::Any),
    ("stat", libc::SYS_stat, Args::Any),
    ("lstat", libc::SYS_lstat, Args::Any),
    ("getrlimit", libc::SYS_getrlimit, Args::Any),
];
#[cfg(not(target_arch = "x86_64"))]
const LEGACY_FILES: &[Allowed] = &[];

/// musl's `open` (std's `File::open`, `opendir`) is the legacy `open`, not `openat` as
/// glibc's: the same call on the working directory, checked the same way (its flags are
/// argument 1).
#[cfg(target_arch = "x86_64")]
const OPEN: Allowed = ("open", libc::SYS_open, Args::Masked(1, OPEN_WRITE_FLAGS, 0));

/// The server's `open`: musl's only; glibc builds do not list it.
#[cfg(all(target_arch = "x86_64", target_env = "musl"))]
const MUSL_OPEN: &[Allowed] = &[OPEN];
#[cfg(not(all(target_arch = "x86_64", target_env = "musl")))]
const MUSL_OPEN: &[Allowed] = &[];

/// The `fcntl` operations of the server and the front door: get or set descriptor and status
/// flags, or duplicate with close-on-exec (the front door's second handle on a connection not
/// yet authenticated, so that it can be closed to make room for a new one).
const FCNTL_FLAGS_AND_DUP: &[u64] = &[
    libc::F_GETFD as u64,
    libc::F_SETFD as u64,
    libc::F_GETFL as u64,
    libc::F_SETFL as u64,
    libc::F_DUPFD_CLOEXEC as u64,
];

/// `prctl(PR_SET_VMA)`: glibc names its mappings.
const PR_SET_VMA: u64 = 0x5356_4d41;

/// Signal handlers, masks and alternate stacks: every list's.
const SIGNAL_HANDLERS: &[Allowed] = &[
    ("rt_sigaction", libc::SYS_rt_sigaction, Args::Any),
    ("rt_sigprocmask", libc::SYS_rt_sigprocmask, Args::Any),
    ("rt_sigreturn", libc::SYS_rt_sigreturn, Args::Any),
    ("sigaltstack", libc::SYS_sigaltstack, Args::Any),
];

/// A signal to this process only: `tgkill` to itself (`abort`). The server's, a parse
/// worker's and the front door's.
#[cfg(not(target_env = "musl"))]
const OWN_KILL: &[Allowed] = &[("tgkill", libc::SYS_tgkill, Args::OwnPid(0))];
/// As above, and for musl also `tkill` to the thread whose id is this process's pid: musl's
/// `raise` (so `abort`) is `tkill(gettid(), sig)` where glibc's is `tgkill`. Only the main
/// thread has that id (a single-threaded parse worker's only thread), so it reaches less than
/// `tgkill` to this process does. Without it musl's `abort` falls back to a fault (`SIGSEGV`
/// instead of `SIGABRT`, which a parse worker's death is classified by). glibc builds do not
/// list it.
#[cfg(target_env = "musl")]
const OWN_KILL: &[Allowed] = &[
    ("tgkill", libc::SYS_tgkill, Args::OwnPid(0)),
    ("tkill", libc::SYS_tkill, Args::OwnPid(0)),
];

/// `clone` for plain threads only (no namespaces): the server's and the front door's.
const THREAD_CLONE: Allowed = (
    "clone",
    libc::SYS_clone,
    Args::Masked(
        0,
        CLONE_NAMESPACES | libc::CLONE_THREAD as u64,
        libc::CLONE_THREAD as u64,
    ),
);

/// A thread's own bookkeeping and exit: the server's, the front door's and the spawner's (a
/// parse worker takes some).
const THREAD_BOOKKEEPING: &[Allowed] = &[
    ("futex", libc::SYS_futex, Args::Any),
    ("set_robust_list", libc::SYS_set_robust_list, Args::Any),
    ("rseq", libc::SYS_rseq, Args::Any),
    ("set_tid_address", libc::SYS_set_tid_address, Args::Any),
    ("sched_getaffinity", libc::SYS_sched_getaffinity, Args::Any),
    ("sched_yield", libc::SYS_sched_yield, Args::Any),
    ("gettid", libc::SYS_gettid, Args::Any),
    ("getpid", libc::SYS_getpid, Args::Any),
    ("exit", libc::SYS_exit, Args::Any),
    ("exit_group", libc::SYS_exit_group, Args::Any),
];

/// Time and randomness: the server's, the front door's and the spawner's (a parse worker
/// takes some).
const TIME: &[Allowed] = &[
    ("restart_syscall", libc::SYS_restart_syscall, Args::Any),
    ("clock_gettime", libc::SYS_clock_gettime, Args::Any),
    ("clock_getres", libc::SYS_clock_getres, Args::Any),
    ("clock_nanosleep", libc::SYS_clock_nanosleep, Args::Any),
    ("nanosleep", libc::SYS_nanosleep, Args::Any),
    ("gettimeofday", libc::SYS_gettimeofday, Args::Any),
    ("getrandom", libc::SYS_getrandom, Args::Any),
];

/// An allow-list made of rows: the shared ones above, each list's own named where it is built.
fn rows(parts: &[&[Allowed]]) -> Vec<Allowed> {
    parts.concat()
}

/// Of the shared `rows`, only the calls `names` (in the rows' order).
fn only(rows: &[Allowed], names: &[&str]) -> Vec<Allowed> {
    debug_assert!(
        names.iter().all(|n| rows.iter().any(|(r, _, _)| r == n)),
        "a name that is not in its rows: {names:?}"
    );
    rows.iter()
        .filter(|(name, _, _)| names.contains(name))
        .copied()
        .collect()
}

/// The served server's allow-list (what [`install`] puts in force), in the order
/// `--sandbox-status` shows it.
fn allow_list() -> Vec<Allowed> {
    use Args::*;
    let prctl = OneOf(
        0,
        &[
            libc::PR_SET_NAME as u64,
            libc::PR_GET_NAME as u64,
            libc::PR_GET_NO_NEW_PRIVS as u64,
            libc::PR_GET_DUMPABLE as u64,
            libc::PR_GET_SECCOMP as u64,
            PR_SET_VMA,
        ],
    );
    rows(&[
        READ_FILES,
        &[
            ("fcntl", libc::SYS_fcntl, OneOf(1, FCNTL_FLAGS_AND_DUP)),
            ("ioctl", libc::SYS_ioctl, OneOf(1, SERVER_IOCTLS)),
        ],
        MEMORY,
        &[THREAD_CLONE],
        THREAD_BOOKKEEPING,
        SIGNAL_HANDLERS,
        OWN_KILL,
        TIME,
        &[
            // Reading limits only.
            ("prlimit64", libc::SYS_prlimit64, Null(2)),
            // Names.
            ("prctl", libc::SYS_prctl, prctl),
        ],
        LEGACY_FILES,
        MUSL_OPEN,
    ])
}

/// The calls a parse worker ([`crate::workers`]) makes once it serves: read and write on the
/// descriptors it already holds, memory, its own signals (`abort`, the alarm that ends an
/// overlong parse), clocks and exit. No file is opened, no process or thread created, no socket
/// made: a grammar driven into a fault by hostile input can reach nothing but its own socket.
fn worker_list() -> Vec<Allowed> {
    use Args::*;
    rows(&[
        &[
            ("read", libc::SYS_read, Any),
            ("write", libc::SYS_write, Any),
            // Peeking for a cancellation, on the socket it holds (it cannot make another).
            ("recvfrom", libc::SYS_recvfrom, Any),
            ("close", libc::SYS_close, Any),
            // Descriptor flags only (std checks a descriptor it drops).
            ("fcntl", libc::SYS_fcntl, OneOf(1, &[libc::F_GETFD as u64])),
            // The alarm that ends an overlong parse.
            ("setitimer", libc::SYS_setitimer, Any),
            #[cfg(target_arch = "x86_64")]
            ("alarm", libc::SYS_alarm, Any),
        ],
        MEMORY,
        &only(
            THREAD_BOOKKEEPING,
            &[
                "futex",
                "sched_yield",
                "getpid",
                "gettid",
                "exit",
                "exit_group",
            ],
        ),
        SIGNAL_HANDLERS,
        OWN_KILL,
        &only(
            TIME,
            &[
                "restart_syscall",
                "clock_gettime",
                "gettimeofday",
                "getrandom",
            ],
        ),
    ])
}

/// The calls the HTTP front door of `gnaw-mcp --listen` ([`crate::front_door`]) makes once it
/// serves: accepting on the socket it holds, reading and writing connections and its workers'
/// pipes, socket options and peeking, passing descriptors with the spawner, threads, memory,
/// its own signals, clocks and randomness. No file is opened (`openat` is refused besides
/// Landlock), no process created, no socket made, bound or connected.
fn front_door_list() -> Vec<Allowed> {
    use Args::*;
    let prctl = OneOf(
        0,
        &[
            libc::PR_SET_NAME as u64,
            libc::PR_GET_NAME as u64,
            PR_SET_VMA,
        ],
    );
    rows(&[
        &[
            ("read", libc::SYS_read, Any),
            ("write", libc::SYS_write, Any),
            ("writev", libc::SYS_writev, Any),
            ("close", libc::SYS_close, Any),
            ("accept4", libc::SYS_accept4, Any),
            ("recvfrom", libc::SYS_recvfrom, Any),
            ("sendto", libc::SYS_sendto, Any),
            ("recvmsg", libc::SYS_recvmsg, Any),
            ("sendmsg", libc::SYS_sendmsg, Any),
            ("setsockopt", libc::SYS_setsockopt, Any),
            ("getsockopt", libc::SYS_getsockopt, Any),
            ("shutdown", libc::SYS_shutdown, Any),
            // The reload thread waits for SIGHUP (blocked in every thread).
            ("rt_sigtimedwait", libc::SYS_rt_sigtimedwait, Any),
            ("fcntl", libc::SYS_fcntl, OneOf(1, FCNTL_FLAGS_AND_DUP)),
            (
                "ioctl",
                libc::SYS_ioctl,
                OneOf(1, &[FIONBIO, FIOCLEX, FIONCLEX]),
            ),
            ("prlimit64", libc::SYS_prlimit64, Null(2)),
            ("prctl", libc::SYS_prctl, prctl),
            #[cfg(target_arch = "x86_64")]
            ("getrlimit", libc::SYS_getrlimit, Any),
        ],
        MEMORY,
        &[THREAD_CLONE],
        THREAD_BOOKKEEPING,
        SIGNAL_HANDLERS,
        OWN_KILL,
        TIME,
    ])
}

/// The calls of the tenant spawner of `gnaw-mcp --listen` ([`crate::spawner`]) and of every
/// process it starts, before each confines itself further: a filter is inherited across
/// `fork` and `execve`, so this list holds what a worker's start-up needs (the loader, reading
/// its settings and its own `/proc` entries, forking its parse workers, installing its own
/// Landlock ruleset, capability drop and filter) and what the server and the parse workers
/// then make, measured by tracing the spawner's whole tree through every tool. What stays
/// refused: every `socket` (pairs only), `connect`, `bind`, `listen`, `accept`, `ptrace`,
/// `process_vm_*`, `mount` and the namespace calls (`clone` only without a namespace flag),
/// `bpf`, `io_uring_*`, `perf_event_open`, keyrings, `memfd_create`, `execveat`,
/// `userfaultfd`, `open_by_handle_at`, and every write-side file call (`openat` without any
/// write, create, truncate or append flag; Landlock refuses them too).
fn spawner_list() -> Vec<Allowed> {
    use Args::*;
    rows(&[
        READ_FILES,
        &[
            ("close_range", libc::SYS_close_range, Any),
            ("fcntl", libc::SYS_fcntl, Any),
            ("ioctl", libc::SYS_ioctl, OneOf(1, SPAWNER_IOCTLS)),
            // Starting a worker, and a worker starting its parse workers.
            ("execve", libc::SYS_execve, Any),
            ("clone", libc::SYS_clone, Masked(0, CLONE_NAMESPACES, 0)),
            ("wait4", libc::SYS_wait4, Any),
            ("waitid", libc::SYS_waitid, Any),
            ("pipe2", libc::SYS_pipe2, Any),
            ("dup", libc::SYS_dup, Any),
            ("dup3", libc::SYS_dup3, Any),
            ("pidfd_open", libc::SYS_pidfd_open, Any),
            ("ppoll", libc::SYS_ppoll, Any),
            ("socketpair", libc::SYS_socketpair, Any),
            ("sendmsg", libc::SYS_sendmsg, Any),
            ("recvmsg", libc::SYS_recvmsg, Any),
            ("sendto", libc::SYS_sendto, Any),
            ("recvfrom", libc::SYS_recvfrom, Any),
            ("setsockopt", libc::SYS_setsockopt, Any),
            ("getsockopt", libc::SYS_getsockopt, Any),
            ("getppid", libc::SYS_getppid, Any),
            // Each process confining itself.
            (
                "landlock_create_ruleset",
                libc::SYS_landlock_create_ruleset,
                Any,
            ),
            ("landlock_add_rule", libc::SYS_landlock_add_rule, Any),
            (
                "landlock_restrict_self",
                libc::SYS_landlock_restrict_self,
                Any,
            ),
            ("seccomp", libc::SYS_seccomp, Any),
            ("prctl", libc::SYS_prctl, Any),
            ("capget", libc::SYS_capget, Any),
            ("capset", libc::SYS_capset, Any),
            ("getuid", libc::SYS_getuid, Any),
            ("geteuid", libc::SYS_geteuid, Any),
            ("getgid", libc::SYS_getgid, Any),
            ("getegid", libc::SYS_getegid, Any),
            // Signals beyond the handlers: Landlock scopes them to the spawner's domain;
            // `abort`, the parse workers' alarm, the supervisor's kill of a stuck parse worker.
            ("tgkill", libc::SYS_tgkill, Any),
            ("tkill", libc::SYS_tkill, Any),
            ("kill", libc::SYS_kill, Any),
            ("setitimer", libc::SYS_setitimer, Any),
            // Limits (a parse worker sets its data limit).
            ("prlimit64", libc::SYS_prlimit64, Any),
        ],
        MEMORY,
        SIGNAL_HANDLERS,
        THREAD_BOOKKEEPING,
        TIME,
        LEGACY_FILES,
        #[cfg(target_arch = "x86_64")]
        &[
            OPEN,
            ("arch_prctl", libc::SYS_arch_prctl, Any),
            ("setrlimit", libc::SYS_setrlimit, Any),
            ("dup2", libc::SYS_dup2, Any),
            ("poll", libc::SYS_poll, Any),
            ("alarm", libc::SYS_alarm, Any),
            // musl's `fork` is this call where glibc's is `clone(SIGCHLD)`: the reloader forks
            // each generation's spawner with it. It takes no flags, so it can do nothing the
            // `clone` row does not already allow.
            ("fork", libc::SYS_fork, Any),
        ],
    ])
}

/// The calls answered with `ENOSYS` by the second filter.
const ENOSYS_CALLS: &[(&str, libc::c_long)] = &[("clone3", libc::SYS_clone3)];

/// The filter's description for `--sandbox-status`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeccompStatus {
    /// Whether the filter is in force in this process.
    pub installed: bool,
    /// `allow-list`: everything not listed is refused.
    pub mode: &'static str,
    /// The architecture the filter checks (`null` when none is supported).
    pub arch: Option<&'static str>,
    /// Number of allowed system calls.
    pub allowed_syscalls: usize,
    /// Of which this many with their arguments checked.
    pub argument_checked: usize,
    /// The allowed calls, by name.
    pub allowed: Vec<&'static str>,
    /// What a refused call gets.
    pub default_action: &'static str,
    /// Calls answered otherwise, and how.
    pub exceptions: Vec<String>,
    /// What a call from another architecture (i386 `int 0x80`) gets.
    pub foreign_arch_action: &'static str,
    /// BPF instructions of the two filters.
    pub bpf_instructions: usize,
    /// Why the filter is not installed, if it is not.
    pub error: Option<String>,
}

impl SeccompStatus {
    /// The filter as it would be installed, without installing it.
    pub fn planned() -> SeccompStatus {
        let list = allow_list();
        let (instructions, error) = match build(&list, 0) {
            Ok((a, b)) => (a.len() + b.len(), None),
            Err(e) => (0, Some(e)),
        };
        SeccompStatus {
            installed: false,
            mode: "allow-list",
            arch: arch().map(|_| std::env::consts::ARCH),
            allowed_syscalls: list.len(),
            argument_checked: list
                .iter()
                .filter(|(_, _, a)| !matches!(a, Args::Any))
                .count(),
            allowed: list.iter().map(|(n, _, _)| *n).collect(),
            default_action: "errno EPERM",
            exceptions: ENOSYS_CALLS
                .iter()
                .map(|(n, _)| format!("{n}: errno ENOSYS"))
                .collect(),
            foreign_arch_action: "kill process",
            bpf_instructions: instructions,
            error,
        }
    }
}

/// seccompiler's architecture for this build, if the policy supports it.
fn arch() -> Option<TargetArch> {
    match std::env::consts::ARCH {
        "x86_64" => Some(TargetArch::x86_64),
        "aarch64" => Some(TargetArch::aarch64),
        _ => None,
    }
}

/// Compile both filters for a process whose pid is `pid`.
fn build(list: &[Allowed], pid: u32) -> Result<(BpfProgram, BpfProgram), String> {
    let arch = arch().ok_or_else(|| {
        format!(
            "no seccomp policy for the {} architecture (only x86_64 and aarch64)",
            std::env::consts::ARCH
        )
    })?;
    let err = |e: seccompiler::BackendError| format!("compiling the seccomp filter: {e}");
    let cond =
        |index: u8, len, op, value| SeccompCondition::new(index, len, op, value).map_err(err);
    // The ENOSYS calls pass the allow-list; the older filter answers them.
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = ENOSYS_CALLS
        .iter()
        .map(|&(_, nr)| (nr, Vec::new()))
        .collect();
    for &(_, nr, args) in list {
        let chain = match args {
            Args::Any => Vec::new(),
            Args::OneOf(index, values) => values
                .iter()
                .map(|&v| {
                    SeccompRule::new(vec![cond(
                        index,
                        SeccompCmpArgLen::Dword,
                        SeccompCmpOp::Eq,
                        v,
                    )?])
                    .map_err(err)
                })
                .collect::<Result<_, _>>()?,
            Args::Masked(index, mask, value) => vec![
                SeccompRule::new(vec![cond(
                    index,
                    SeccompCmpArgLen::Qword,
                    SeccompCmpOp::MaskedEq(mask),
                    value,
                )?])
                .map_err(err)?,
            ],
            Args::Null(index) => vec![
                SeccompRule::new(vec![cond(
                    index,
                    SeccompCmpArgLen::Qword,
                    SeccompCmpOp::Eq,
                    0,
                )?])
                .map_err(err)?,
            ],
            Args::OwnPid(index) => vec![
                SeccompRule::new(vec![cond(
                    index,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::Eq,
                    u64::from(pid),
                )?])
                .map_err(err)?,
            ],
        };
        rules.insert(nr, chain);
    }
    let allow = SeccompFilter::new(
        rules,
        SeccompAction::Errno(DENY_ERRNO as u32),
        SeccompAction::Allow,
        arch,
    )
    .map_err(err)?;
    let enosys = SeccompFilter::new(
        ENOSYS_CALLS
            .iter()
            .map(|&(_, nr)| (nr, Vec::new()))
            .collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(err)?;
    Ok((
        BpfProgram::try_from(allow).map_err(err)?,
        BpfProgram::try_from(enosys).map_err(err)?,
    ))
}

/// Install both filters on this (single-threaded) process: the `ENOSYS` one, then the
/// allow-list. On error the message says which, if any, is in force.
pub fn install() -> Result<SeccompStatus, String> {
    let mut status = SeccompStatus::planned();
    apply(&allow_list())?;
    status.installed = true;
    Ok(status)
}

/// Install the `ENOSYS` filter, then an allow-list of `list`, on this single-threaded process.
fn apply(list: &[Allowed]) -> Result<(), String> {
    let (allow, enosys) = build(list, std::process::id())?;
    seccompiler::apply_filter(&enosys)
        .map_err(|e| format!("installing the seccomp clone3 filter failed: {e}"))?;
    seccompiler::apply_filter(&allow).map_err(|e| {
        format!(
            "installing the seccomp allow-list failed (only the clone3 filter is in force): {e}"
        )
    })
}

/// Install the parse worker's allow-list (`worker_list`) on this single-threaded process.
pub fn install_worker() -> Result<(), String> {
    apply(&worker_list())
}

/// Install the front door's allow-list (`front_door_list`) on this single-threaded process.
pub fn install_front_door() -> Result<(), String> {
    apply(&front_door_list())
}

/// The `ioctl` requests under the spawner's filter: the server's, and setting a descriptor
/// non-blocking.
#[cfg(not(target_env = "musl"))]
const SPAWNER_IOCTLS: &[u64] = &[TCGETS, FIONBIO, FIOCLEX, FIONCLEX];
#[cfg(target_env = "musl")]
#[allow(clippy::unnecessary_cast)]
const SPAWNER_IOCTLS: &[u64] = &[TCGETS, libc::TIOCGWINSZ as u64, FIONBIO, FIOCLEX, FIONCLEX];

/// Install the spawner's filter (its own allow-list) on the spawner, single-threaded.
pub fn install_spawner() -> Result<(), String> {
    apply(&spawner_list())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each list as rows `list call number arguments`: the server's in its order (the order
    /// `--sandbox-status` shows), the others sorted by name.
    fn lists_as_rows() -> String {
        let mut out = String::new();
        for (label, list, keep_order) in [
            ("server", allow_list(), true),
            ("worker", worker_list(), false),
            ("front_door", front_door_list(), false),
            ("spawner", spawner_list(), false),
        ] {
            let mut rows: Vec<String> = list
                .iter()
                .map(|(name, nr, args)| format!("{label} {name} {nr} {args:?}\n"))
                .collect();
            if !keep_order {
                rows.sort();
            }
            out.extend(rows);
        }
        out
    }

    /// The four lists are exactly what they were when they were written out one by one (the
    /// snapshot was taken from that construction): the same calls, argument checks and, for
    /// the server's, order. The snapshot is of an x86_64 glibc build.
    #[cfg(all(target_arch = "x86_64", target_env = "gnu"))]
    #[test]
    fn each_list_holds_the_calls_and_checks_of_its_snapshot() {
        let snapshot = include_str!("../testdata/seccomp-lists.txt");
        let now = lists_as_rows();
        if now != snapshot {
            let mut diff = String::new();
            for line in now.lines().filter(|l| !snapshot.lines().any(|s| s == *l)) {
                diff.push_str(&format!("+ {line}\n"));
            }
            for line in snapshot.lines().filter(|l| !now.lines().any(|s| s == *l)) {
                diff.push_str(&format!("- {line}\n"));
            }
            panic!("the seccomp lists differ from their snapshot (or the order):\n{diff}");
        }
    }

    #[test]
    fn the_front_doors_policy_compiles_and_opens_connects_and_executes_nothing() {
        build(&front_door_list(), std::process::id()).unwrap();
        let allowed: Vec<libc::c_long> = front_door_list().iter().map(|(_, nr, _)| *nr).collect();
        for (name, nr) in [
            ("openat", libc::SYS_openat),
            ("openat2", libc::SYS_openat2),
            ("socket", libc::SYS_socket),
            ("socketpair", libc::SYS_socketpair),
            ("bind", libc::SYS_bind),
            ("listen", libc::SYS_listen),
            ("connect", libc::SYS_connect),
            ("execve", libc::SYS_execve),
            ("execveat", libc::SYS_execveat),
            ("kill", libc::SYS_kill),
            ("ptrace", libc::SYS_ptrace),
            ("io_uring_setup", libc::SYS_io_uring_setup),
            ("unshare", libc::SYS_unshare),
            ("bpf", libc::SYS_bpf),
            ("memfd_create", libc::SYS_memfd_create),
            ("getdents64", libc::SYS_getdents64),
        ] {
            assert!(!allowed.contains(&nr), "the front door may call {name}");
        }
    }

    #[test]
    fn the_spawners_policy_holds_every_later_filters_calls_and_no_dangerous_one() {
        build(&spawner_list(), std::process::id()).unwrap();
        let allowed: Vec<libc::c_long> = spawner_list().iter().map(|(_, nr, _)| *nr).collect();
        // A worker and its parse workers run under this filter and their own: every call
        // their own lists allow must pass this one too.
        for (name, nr, _) in allow_list().iter().chain(worker_list().iter()) {
            assert!(allowed.contains(nr), "the spawner's filter refuses {name}");
        }
        for (name, nr) in [
            ("socket", libc::SYS_socket),
            ("connect", libc::SYS_connect),
            ("bind", libc::SYS_bind),
            ("listen", libc::SYS_listen),
            ("accept4", libc::SYS_accept4),
            ("ptrace", libc::SYS_ptrace),
            ("process_vm_readv", libc::SYS_process_vm_readv),
            ("process_vm_writev", libc::SYS_process_vm_writev),
            ("mount", libc::SYS_mount),
            ("unshare", libc::SYS_unshare),
            ("setns", libc::SYS_setns),
            ("bpf", libc::SYS_bpf),
            ("io_uring_setup", libc::SYS_io_uring_setup),
            ("perf_event_open", libc::SYS_perf_event_open),
            ("keyctl", libc::SYS_keyctl),
            ("add_key", libc::SYS_add_key),
            ("memfd_create", libc::SYS_memfd_create),
            ("execveat", libc::SYS_execveat),
            ("userfaultfd", libc::SYS_userfaultfd),
            ("open_by_handle_at", libc::SYS_open_by_handle_at),
            ("unlinkat", libc::SYS_unlinkat),
            ("renameat2", libc::SYS_renameat2),
            ("mkdirat", libc::SYS_mkdirat),
        ] {
            assert!(!allowed.contains(&nr), "the spawner may call {name}");
        }
    }

    #[test]
    fn the_policy_compiles_and_allows_no_dangerous_call() {
        let status = SeccompStatus::planned();
        assert_eq!(status.error, None);
        assert!(status.allowed_syscalls > 40, "{status:?}");
        assert!(status.bpf_instructions < 4096, "{status:?}");
        let allowed: Vec<libc::c_long> = allow_list().iter().map(|(_, nr, _)| *nr).collect();
        let denied: &[(&str, libc::c_long)] = &[
            ("socket", libc::SYS_socket),
            ("socketpair", libc::SYS_socketpair),
            ("connect", libc::SYS_connect),
            ("sendto", libc::SYS_sendto),
            ("sendmsg", libc::SYS_sendmsg),
            ("execve", libc::SYS_execve),
            ("execveat", libc::SYS_execveat),
            ("memfd_create", libc::SYS_memfd_create),
            ("io_uring_setup", libc::SYS_io_uring_setup),
            ("io_uring_enter", libc::SYS_io_uring_enter),
            ("io_uring_register", libc::SYS_io_uring_register),
            ("unshare", libc::SYS_unshare),
            ("setns", libc::SYS_setns),
            ("mount", libc::SYS_mount),
            ("umount2", libc::SYS_umount2),
            ("pivot_root", libc::SYS_pivot_root),
            ("fsopen", libc::SYS_fsopen),
            ("open_tree", libc::SYS_open_tree),
            ("ptrace", libc::SYS_ptrace),
            ("process_vm_readv", libc::SYS_process_vm_readv),
            ("process_vm_writev", libc::SYS_process_vm_writev),
            ("bpf", libc::SYS_bpf),
            ("perf_event_open", libc::SYS_perf_event_open),
            ("keyctl", libc::SYS_keyctl),
            ("add_key", libc::SYS_add_key),
            ("request_key", libc::SYS_request_key),
            ("fanotify_init", libc::SYS_fanotify_init),
            ("inotify_init1", libc::SYS_inotify_init1),
            ("userfaultfd", libc::SYS_userfaultfd),
            ("kexec_load", libc::SYS_kexec_load),
            ("kexec_file_load", libc::SYS_kexec_file_load),
            ("init_module", libc::SYS_init_module),
            ("finit_module", libc::SYS_finit_module),
            ("open_by_handle_at", libc::SYS_open_by_handle_at),
            ("name_to_handle_at", libc::SYS_name_to_handle_at),
            ("kill", libc::SYS_kill),
            ("capset", libc::SYS_capset),
            ("pidfd_open", libc::SYS_pidfd_open),
            ("seccomp", libc::SYS_seccomp),
            ("renameat2", libc::SYS_renameat2),
            ("unlinkat", libc::SYS_unlinkat),
            ("mkdirat", libc::SYS_mkdirat),
            ("linkat", libc::SYS_linkat),
            ("symlinkat", libc::SYS_symlinkat),
            ("mknodat", libc::SYS_mknodat),
            ("truncate", libc::SYS_truncate),
            ("ftruncate", libc::SYS_ftruncate),
        ];
        for (name, nr) in denied {
            assert!(!allowed.contains(nr), "{name} is allowed");
            assert!(!status.allowed.contains(name), "{name} is listed");
        }
        // clone3 passes the allow-list only to be answered ENOSYS by the first filter.
        assert!(!status.allowed.contains(&"clone3"));
        let mut names = status.allowed.clone();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), status.allowed.len(), "no call listed twice");
    }
}
