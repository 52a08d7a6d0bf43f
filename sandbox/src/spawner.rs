//! The tenant spawner of `gnaw-mcp --listen`: a small process, forked before the HTTP front
//! door confines itself, that starts a tenant's worker (this same binary, in stdio mode) when
//! the front door asks, and hands back the worker's stdin and stdout.
//!
//! Landlock domains are inherited and a child can only add restrictions, so the front door,
//! which reads no file at all once confined, could not start a worker that reads a tenant's
//! roots. The spawner can, and it takes nothing from the network: every worker it can start
//! was fixed when it was forked ([`WorkerSpec`], one per tenant, from the tenants file), and a
//! request names one by its index, nothing else.
//!
//! **Roots travel as descriptors.** Each tenant's roots were proven, and opened as directories,
//! by the front door before the spawner was forked ([`WorkerSpec::roots`]). A worker is handed
//! exactly its tenant's descriptors (duplicated without close-on-exec for that one start, the
//! spawner being single-threaded, then closed) and their canonical paths, and adopts them
//! ([`adopt_roots`], `--root-fds`) instead of resolving any path: a root relinked, swapped for
//! a link or replaced after startup is never followed. Before each start every root's path must
//! still name the proven directory ([`Root::check_in_place`]); otherwise the start is refused
//! with [`SpawnError::RootChanged`], and that tenant alone is refused.
//!
//! **Its own confinement** ([`SpawnerStatus`]), inherited by every worker it starts: Landlock
//! handles every filesystem right and grants only executing and reading the files this process
//! has mapped (the binary, and for a dynamic build its loader and libraries), reading the
//! loader's cache, `/proc` and the cgroup tree (what a worker reads of itself before it confines
//! itself), and reading the tenants' roots, by their descriptors; no TCP bind or connect; signals
//! and abstract UNIX sockets scoped to its domain; `no_new_privs`; no capability; not dumpable;
//! and a seccomp allow-list ([`crate::seccomp::install_spawner`]). It holds its socket and stderr
//! only (every other descriptor, the listening socket included, is closed) and dies with the
//! front door (`PR_SET_PDEATHSIG`). Workers then confine themselves to their tenant's roots
//! exactly as the stdio server does.
//!
//! The socket is `SOCK_SEQPACKET`. A request is one byte naming it, then its arguments,
//! little-endian: `S`, the tenant's index (4 bytes) and its worker's cache bound (8 bytes,
//! all ones for none), answered `0` and the pid (4 bytes) with the worker's stdin and stdout as
//! `SCM_RIGHTS`, `1` and the reason a start failed as text, or `2` and which root changed;
//! `P` (ping), answered `0`; `U`, answered `0` and, for each worker of this spawner not yet
//! ended, its pid and resident bytes with its parse workers' (read from `/proc/PID/statm`).

#![allow(unsafe_code)]

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use landlock::{AccessFs, BitFlags, PathBeneath, RulesetCreatedAttr, RulesetStatus};
use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::sys::stat::Mode;
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

use crate::confine::SandboxMode;
use crate::contain::Root;
use crate::forked::send;
use crate::roots::Roots;

/// The hidden flag that tells a worker its roots are already open: `--root-fds=5,6`, the
/// descriptors of the roots `GNAW_MCP_ROOT` lists, in its order ([`adopt_roots`]).
pub const ROOT_FDS_FLAG: &str = "--root-fds";

/// How to start one tenant's worker.
#[derive(Clone, Debug)]
pub struct WorkerSpec {
    /// The executable (gnaw-mcp itself).
    pub exe: PathBuf,
    /// Arguments.
    pub args: Vec<OsString>,
    /// Environment variables set for the worker (on top of the inherited environment).
    pub env: Vec<(OsString, OsString)>,
    /// Inherited environment variables removed first.
    pub env_remove: Vec<OsString>,
    /// The tenant's roots, proven (and opened) before the spawner was forked: the worker is
    /// handed these descriptors, and their canonical paths as `GNAW_MCP_ROOT`.
    pub roots: Roots,
}

/// A started worker: its pid, and the front door's ends of its stdin and stdout.
#[derive(Debug)]
pub struct Spawned {
    pub pid: u32,
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
}

/// Why no worker was started.
#[derive(Debug)]
pub enum SpawnError {
    /// A root of the tenant is no longer the directory proven at startup (the text says
    /// which, and what its path names now).
    RootChanged(String),
    /// The worker could not be started, or the spawner is gone.
    Failed(String),
}

impl fmt::Display for SpawnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpawnError::RootChanged(why) | SpawnError::Failed(why) => f.write_str(why),
        }
    }
}

/// What the spawner enforces on itself (and so on every worker it starts), for the log.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SpawnerStatus {
    /// `fully_enforced`, `partially_enforced`, `not_enforced` or `off`.
    pub ruleset: &'static str,
    /// The files it may execute (and read): its binary and what the loader maps.
    pub executable: Vec<String>,
    /// The directories it may read beneath: the tenants' roots, `/proc`, the cgroup tree.
    pub readable: Vec<String>,
    pub capabilities_dropped: bool,
    pub seccomp: bool,
}

/// The front door's handle on the spawner process.
pub struct Spawner {
    sock: Mutex<OwnedFd>,
}

impl Spawner {
    /// Fork the spawner with the workers it may start, confined as `mode` says. Must be called
    /// while the process is single-threaded (it checks) and not yet confined. The spawner
    /// reports how it confined itself on stderr; in strict mode it refuses to serve (every
    /// start then fails) unless everything was enforced.
    pub fn fork(specs: Vec<WorkerSpec>, mode: SandboxMode) -> io::Result<Spawner> {
        let sock = crate::forked::fork_helper(
            |n| format!("the spawner must be forked while the process has one thread (it has {n})"),
            crate::forked::seqpacket_pair,
            |parent, theirs| serve(parent, theirs, &specs, mode),
        )?;
        Ok(Spawner {
            sock: Mutex::new(sock),
        })
    }

    /// The front door's end of a spawner forked by another process (the reloader), passed
    /// here as a descriptor.
    pub fn from_socket(sock: OwnedFd) -> Spawner {
        Spawner {
            sock: Mutex::new(sock),
        }
    }

    /// This handle's socket, to pass to another process.
    pub fn into_socket(self) -> OwnedFd {
        self.sock.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// Send one request and read its answer (at most 64 KiB) and the descriptors passed with
    /// it.
    fn exchange(&self, request: &[u8]) -> Result<(Vec<u8>, Vec<OwnedFd>), SpawnError> {
        let gone = |e: nix::errno::Errno| SpawnError::Failed(format!("the spawner is gone ({e})"));
        let sock = self.sock.lock().unwrap_or_else(|e| e.into_inner());
        crate::forked::send(&sock, request, &[]).map_err(gone)?;
        let mut buf = vec![0u8; ANSWER_BYTES];
        let mut cmsg = nix::cmsg_space!([RawFd; 2]);
        let (bytes, fds) = crate::forked::receive(&sock, &mut buf, &mut cmsg).map_err(gone)?;
        if bytes == 0 {
            return Err(SpawnError::Failed(
                "the spawner is gone (its socket closed)".into(),
            ));
        }
        buf.truncate(bytes);
        Ok((buf, fds))
    }

    /// Start the worker of tenant `index`; `cache_bytes`, when given, bounds its warm cache
    /// (`GNAW_MCP_CACHE_BYTES`).
    pub fn spawn(&self, index: usize, cache_bytes: Option<u64>) -> Result<Spawned, SpawnError> {
        let index = u32::try_from(index)
            .map_err(|_| SpawnError::Failed("tenant index out of range".into()))?;
        let mut request = vec![START];
        request.extend_from_slice(&index.to_le_bytes());
        request.extend_from_slice(&cache_bytes.unwrap_or(u64::MAX).to_le_bytes());
        let (answer, fds) = self.exchange(&request)?;
        let text = || String::from_utf8_lossy(answer.get(1..).unwrap_or_default()).into_owned();
        match (answer.first(), answer.len()) {
            (Some(0), 5) if fds.len() == 2 => {
                let pid = u32::from_le_bytes([answer[1], answer[2], answer[3], answer[4]]);
                let mut fds = fds.into_iter();
                let (Some(stdin), Some(stdout)) = (fds.next(), fds.next()) else {
                    unreachable!("two descriptors were counted")
                };
                Ok(Spawned { pid, stdin, stdout })
            }
            (Some(2), _) => Err(SpawnError::RootChanged(text())),
            _ => Err(SpawnError::Failed(format!(
                "the worker could not start: {}",
                text()
            ))),
        }
    }

    /// Whether the spawner answers (`/healthz`).
    pub fn ping(&self) -> bool {
        matches!(self.exchange(&[PING]), Ok((answer, _)) if answer == [0])
    }

    /// The resident memory of every worker this spawner started that has not ended (those on
    /// their way out included), each with its parse workers, in bytes (read from
    /// `/proc/PID/statm`); at most [`USAGE_PIDS`] of them.
    pub fn usage(&self) -> Vec<(u32, u64)> {
        let Ok((answer, _)) = self.exchange(&[USAGE]) else {
            return Vec::new();
        };
        answer
            .get(1..)
            .unwrap_or_default()
            .chunks_exact(12)
            .map(|c| {
                let pid = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                let mut rss = [0u8; 8];
                rss.copy_from_slice(&c[4..12]);
                (pid, u64::from_le_bytes(rss))
            })
            .collect()
    }
}

/// A request to start a worker: the tenant's index (u32) and its cache bound (u64, `MAX`: none).
const START: u8 = b'S';
/// A request for the answer `0`.
const PING: u8 = b'P';
/// A request for the resident memory of every worker not yet ended.
const USAGE: u8 = b'U';
/// The most workers one usage answer names (12 bytes each, within the answer's bound).
pub const USAGE_PIDS: usize = 4096;
/// The longest answer.
const ANSWER_BYTES: usize = 1 + 12 * USAGE_PIDS;

/// The spawner's life: confine, then start workers on request until the front door is gone.
fn serve(parent: Pid, sock: OwnedFd, specs: &[WorkerSpec], mode: SandboxMode) -> ! {
    crate::workers::die_with_parent(parent);
    // Its socket, stderr, and the tenants' roots (each handed only to its own tenant's
    // workers).
    let mut keep: Vec<RawFd> = vec![sock.as_raw_fd(), 2];
    keep.extend(
        specs
            .iter()
            .flat_map(|s| s.roots.iter())
            .map(|r| r.root().fd().as_raw_fd()),
    );
    crate::workers::close_all_but(&keep);
    match confine_self(specs, mode) {
        Ok(status) => log::info!(
            "worker spawner confined: {}",
            serde_json::to_string(&status).unwrap_or_default()
        ),
        Err(e) => {
            log::error!("the worker spawner could not confine itself ({e}); it stops");
            std::process::exit(3);
        }
    }
    crate::workers::die_with_parent(parent);
    // The workers started and not yet reaped: usage is answered for these only.
    let mut children: Vec<u32> = Vec::new();
    let mut request = vec![0u8; 64];
    loop {
        let n = crate::forked::next_request(&sock, &mut request);
        // Reap the workers that ended since the last request (they are restarted on demand).
        while let Ok(status) = waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
            match status.pid() {
                Some(pid) => children.retain(|c| i64::from(*c) != i64::from(pid.as_raw())),
                None => break,
            }
        }
        let sent = match (request[0], n) {
            (START, 13) => {
                let index = u32::from_le_bytes([request[1], request[2], request[3], request[4]]);
                let mut cache = [0u8; 8];
                cache.copy_from_slice(&request[5..13]);
                let cache = Some(u64::from_le_bytes(cache)).filter(|c| *c != u64::MAX);
                let answer = match specs.get(index as usize) {
                    Some(spec) => start(spec, cache),
                    None => Err(SpawnError::Failed(format!("no tenant number {index}"))),
                };
                if let Ok((pid, _, _)) = &answer {
                    children.push(*pid);
                }
                send_started(&sock, answer)
            }
            (PING, 1) => send(&sock, &[0], &[]),
            (USAGE, 1) => {
                let parents = parents();
                let mut answer = vec![0u8];
                for pid in children.iter().take(USAGE_PIDS) {
                    if let Some(rss) = resident_bytes(*pid, &parents) {
                        answer.extend_from_slice(&pid.to_le_bytes());
                        answer.extend_from_slice(&rss.to_le_bytes());
                    }
                }
                send(&sock, &answer, &[])
            }
            _ => send(&sock, b"\x01unknown request", &[]),
        };
        if sent.is_err() {
            std::process::exit(0);
        }
    }
}

/// Answer a start: `0` and the pid with the worker's pipes, or `1`/`2` and why not.
fn send_started(
    sock: &OwnedFd,
    answer: Result<(u32, OwnedFd, OwnedFd), SpawnError>,
) -> nix::Result<usize> {
    match answer {
        Ok((pid, stdin, stdout)) => {
            let mut message = vec![0u8];
            message.extend_from_slice(&pid.to_le_bytes());
            send(sock, &message, &[stdin.as_raw_fd(), stdout.as_raw_fd()])
        }
        Err(e) => {
            let mut message = vec![match e {
                SpawnError::RootChanged(_) => 2u8,
                SpawnError::Failed(_) => 1u8,
            }];
            message.extend(e.to_string().bytes().take(1000));
            send(sock, &message, &[])
        }
    }
}

/// Every process's parent, from `/proc/*/stat`: how a worker's descendants (its parse workers)
/// are found.
fn parents() -> Vec<(u32, u32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((pid, ppid))
        })
        .collect()
}

/// A worker's resident memory in bytes: its own and its descendants' (its parse workers), each
/// from `/proc/PID/statm`. Pages a worker shares with the parse workers it forked count in
/// each, so the sum is an upper bound.
fn resident_bytes(pid: u32, parents: &[(u32, u32)]) -> Option<u64> {
    let mut total = process_bytes(pid)?;
    let mut queue = vec![pid];
    while let Some(p) = queue.pop() {
        for (child, _) in parents.iter().filter(|(_, pp)| *pp == p) {
            total += process_bytes(*child).unwrap_or(0);
            queue.push(*child);
        }
    }
    Some(total)
}

/// One process's resident memory in bytes, from `/proc/PID/statm` (resident pages).
fn process_bytes(pid: u32) -> Option<u64> {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).unwrap_or(4096))
}

/// Start one worker; its stdin and stdout are pipes, its stderr the spawner's (the front
/// door's log). Its roots are handed on as descriptors, once each still names the directory
/// that was proven.
fn start(
    spec: &WorkerSpec,
    cache_bytes: Option<u64>,
) -> Result<(u32, OwnedFd, OwnedFd), SpawnError> {
    for named in spec.roots.iter() {
        if named.root().check_in_place().is_err() {
            return Err(SpawnError::RootChanged(format!(
                "root {:?} ({}) is no longer the directory proven when the server started \
                 ({}): it was moved, replaced or removed",
                named.name(),
                named.root().path().display(),
                named.root().id()
            )));
        }
    }
    let handed = hand_over(&spec.roots).map_err(SpawnError::Failed)?;
    let mut command = Command::new(&spec.exe);
    command.args(&spec.args);
    command.arg(&handed.arg);
    for name in &spec.env_remove {
        command.env_remove(name);
    }
    for (name, value) in &spec.env {
        command.env(name, value);
    }
    command.env("GNAW_MCP_ROOT", &handed.root_env);
    if let Some(bytes) = cache_bytes {
        command.env("GNAW_MCP_CACHE_BYTES", bytes.to_string());
    }
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let spawned = command.spawn();
    drop(handed);
    let mut child =
        spawned.map_err(|e| SpawnError::Failed(format!("{}: {e}", spec.exe.display())))?;
    let pid = child.id();
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(SpawnError::Failed("the worker's pipes are missing".into()));
    };
    Ok((pid, OwnedFd::from(stdin), OwnedFd::from(stdout)))
}

/// A tenant's roots made ready for one child process ([`hand_over`]).
pub struct HandOver {
    /// Each root's descriptor again, without close-on-exec, so that the child started next
    /// inherits it; drop them once it has started (the spawner is single-threaded, so no other
    /// child inherits them).
    pub fds: Vec<OwnedFd>,
    /// `--root-fds=N,M`: the descriptors, in the roots' order.
    pub arg: OsString,
    /// `GNAW_MCP_ROOT`: the roots' canonical paths, in the same order.
    pub root_env: OsString,
}

/// Make `roots` ready to hand to one child: what the spawner does before each worker, and
/// what a worker undoes with [`adopt_roots`].
pub fn hand_over(roots: &Roots) -> Result<HandOver, String> {
    let mut fds: Vec<OwnedFd> = Vec::new();
    for named in roots.iter() {
        let fd = fcntl(named.root().fd(), FcntlArg::F_DUPFD(3))
            .map_err(|e| format!("cannot hand a root on: {e}"))?;
        // SAFETY: F_DUPFD just made this descriptor for this process; nothing else owns it.
        fds.push(unsafe { OwnedFd::from_raw_fd(fd) });
    }
    let list: Vec<String> = fds.iter().map(|fd| fd.as_raw_fd().to_string()).collect();
    let root_env = std::env::join_paths(roots.iter().map(|r| r.root().path()))
        .map_err(|e| format!("a root cannot be passed on ({e})"))?;
    Ok(HandOver {
        fds,
        arg: format!("{ROOT_FDS_FLAG}={}", list.join(",")).into(),
        root_env,
    })
}

/// In a worker started by the spawner: adopt the roots it handed on. `fds` are the descriptors
/// of `--root-fds`, `paths` the canonical paths `GNAW_MCP_ROOT` lists, in the same order. Each
/// descriptor must be open and a directory, and its path must still name it
/// ([`Root::adopt`]); nothing is resolved through a path. Call it once, at startup.
pub fn adopt_roots(paths: &[PathBuf], fds: &[RawFd]) -> Result<Roots, String> {
    if paths.len() != fds.len() {
        return Err(format!(
            "{ROOT_FDS_FLAG} names {} descriptors for {} roots",
            fds.len(),
            paths.len()
        ));
    }
    let mut roots = Vec::with_capacity(fds.len());
    for (i, (path, &fd)) in paths.iter().zip(fds).enumerate() {
        if fd <= 2 || fds[..i].contains(&fd) {
            return Err(format!(
                "{ROOT_FDS_FLAG}: descriptor {fd} is a standard stream or listed twice"
            ));
        }
        // SAFETY: fcntl(F_GETFD) reads a descriptor number's flags; on a closed one it fails
        // with EBADF and touches nothing.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        if flags < 0 {
            return Err(format!("{ROOT_FDS_FLAG}: descriptor {fd} is not open"));
        }
        // SAFETY: the descriptor is open (checked above) and was placed in this process by the
        // spawner for this adoption; this process takes it over once, at startup, and nothing
        // else in it uses that number.
        let owned = unsafe { OwnedFd::from_raw_fd(fd) };
        let _ = fcntl(&owned, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC));
        roots.push(Root::adopt(owned, path).map_err(|e| e.to_string())?);
    }
    Roots::from_proven(roots).map_err(|e| e.to_string())
}

/// Confine the spawner (see the module documentation). `off` applies nothing; strict
/// refuses unless the ruleset is fully enforced, the capabilities are gone and the seccomp
/// filter is installed.
fn confine_self(specs: &[WorkerSpec], mode: SandboxMode) -> Result<SpawnerStatus, String> {
    if mode == SandboxMode::Off {
        return Ok(SpawnerStatus {
            ruleset: "off",
            executable: Vec::new(),
            readable: Vec::new(),
            capabilities_dropped: false,
            seccomp: false,
        });
    }
    let strict = mode == SandboxMode::Strict;
    let _ = nix::sys::prctl::set_dumpable(false);
    let err = |e: landlock::RulesetError| format!("Landlock: {e}");
    let executable = mapped_files();
    let system_dirs: Vec<(PathBuf, OwnedFd)> = ["/proc", "/sys/fs/cgroup"]
        .into_iter()
        .filter_map(|p| Some((PathBuf::from(p), open_path(Path::new(p))?)))
        .collect();
    let loader_cache = open_path(Path::new("/etc/ld.so.cache"));
    let read_dir: BitFlags<AccessFs> = AccessFs::ReadFile | AccessFs::ReadDir;
    let exec: BitFlags<AccessFs> = AccessFs::Execute | AccessFs::ReadFile;
    let mut created = crate::confine::helper_ruleset(strict)
        .map_err(err)?
        .create()
        .map_err(err)?;
    for (_, fd) in &executable {
        created = created.add_rule(PathBeneath::new(fd, exec)).map_err(err)?;
    }
    if let Some(fd) = &loader_cache {
        created = created
            .add_rule(PathBeneath::new(fd, AccessFs::ReadFile))
            .map_err(err)?;
    }
    for (_, fd) in &system_dirs {
        created = created
            .add_rule(PathBeneath::new(fd, read_dir))
            .map_err(err)?;
    }
    let roots: Vec<&Root> = specs
        .iter()
        .flat_map(|s| s.roots.iter())
        .map(|r| r.root())
        .collect();
    for root in &roots {
        created = created
            .add_rule(PathBeneath::new(root.fd(), read_dir))
            .map_err(err)?;
    }
    let status = created.no_new_privs(true).restrict_self().map_err(err)?;
    let ruleset = crate::confine::ruleset_name(&status.ruleset);
    if strict && status.ruleset != RulesetStatus::FullyEnforced {
        return Err(format!(
            "the kernel did not enforce the whole ruleset ({ruleset})"
        ));
    }
    let (capabilities_dropped, seccomp) =
        crate::confine::drop_caps_then_filter(strict, crate::seccomp::install_spawner)?;
    let mut readable: Vec<String> = roots
        .iter()
        .map(|r| r.path().display().to_string())
        .collect();
    readable.extend(system_dirs.iter().map(|(p, _)| p.display().to_string()));
    Ok(SpawnerStatus {
        ruleset,
        executable: executable
            .iter()
            .map(|(p, _)| p.display().to_string())
            .collect(),
        readable,
        capabilities_dropped,
        seccomp,
    })
}

/// `O_PATH` descriptor of `path` (a system file or directory the operator's host provides),
/// or `None` when it is absent.
fn open_path(path: &Path) -> Option<OwnedFd> {
    nix::fcntl::open(path, OFlag::O_PATH | OFlag::O_CLOEXEC, Mode::empty()).ok()
}

/// The files this process has mapped from disk (its binary, and for a dynamic build the loader
/// and its libraries: what a worker's exec needs), each opened `O_PATH`. The binary is opened
/// through `/proc/self/exe`, so a binary replaced on disk since is still the one run.
fn mapped_files() -> Vec<(PathBuf, OwnedFd)> {
    let mut out: Vec<(PathBuf, OwnedFd)> = Vec::new();
    if let Some(fd) = open_path(Path::new("/proc/self/exe")) {
        out.push((PathBuf::from("/proc/self/exe"), fd));
    }
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let mut seen: Vec<String> = Vec::new();
    for line in maps.lines() {
        // address perms offset dev inode path
        let mut fields = line.split_whitespace();
        let inode = fields.nth(4).unwrap_or("0");
        let path: Vec<&str> = fields.collect();
        let path = path.join(" ");
        if inode == "0" || !path.starts_with('/') || path.ends_with(" (deleted)") {
            continue;
        }
        if seen.contains(&path) {
            continue;
        }
        if let Some(fd) = open_path(Path::new(&path)) {
            out.push((PathBuf::from(&path), fd));
        }
        seen.push(path);
    }
    out
}
