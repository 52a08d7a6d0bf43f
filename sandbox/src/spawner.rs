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
//! The socket is `SOCK_SEQPACKET`; a request is the tenant's index (4 bytes, little-endian);
//! the answer is `0` and the pid (4 bytes) with the worker's stdin and stdout as
//! `SCM_RIGHTS`, `1` and the reason a start failed as text, or `2` and which root changed.

#![allow(unsafe_code)]

use std::ffi::OsString;
use std::fmt;
use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::sys::socket::{
    AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags, SockFlag, SockType, recvmsg,
    sendmsg, socketpair,
};
use nix::sys::stat::Mode;
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::{ForkResult, Pid, fork};

use crate::confine::{SandboxMode, TESTED_ABI};
use crate::contain::Root;
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
        match crate::confine::thread_count() {
            Ok(1) => {}
            Ok(n) => {
                return Err(io::Error::other(format!(
                    "the spawner must be forked while the process has one thread (it has {n})"
                )));
            }
            Err(e) => return Err(io::Error::other(e)),
        }
        let (ours, theirs) = socketpair(
            AddressFamily::Unix,
            SockType::SeqPacket,
            None,
            SockFlag::SOCK_CLOEXEC,
        )
        .map_err(io::Error::from)?;
        let parent = nix::unistd::getpid();
        // SAFETY: the process is single-threaded (checked above), so the child is a complete
        // copy with no lock held by a thread that does not exist in it.
        match unsafe { fork() }.map_err(io::Error::from)? {
            ForkResult::Parent { .. } => Ok(Spawner {
                sock: Mutex::new(ours),
            }),
            ForkResult::Child => {
                drop(ours);
                serve(parent, theirs, &specs, mode)
            }
        }
    }

    /// Start the worker of tenant `index`.
    pub fn spawn(&self, index: usize) -> Result<Spawned, SpawnError> {
        let gone = |e: nix::errno::Errno| SpawnError::Failed(format!("the spawner is gone ({e})"));
        let sock = self.sock.lock().unwrap_or_else(|e| e.into_inner());
        let request = u32::try_from(index)
            .map_err(|_| SpawnError::Failed("tenant index out of range".into()))?
            .to_le_bytes();
        sendmsg::<()>(
            sock.as_raw_fd(),
            &[IoSlice::new(&request)],
            &[],
            MsgFlags::empty(),
            None,
        )
        .map_err(gone)?;
        let mut buf = [0u8; 1024];
        let mut cmsg = nix::cmsg_space!([RawFd; 2]);
        let (bytes, fds) = {
            let mut iov = [IoSliceMut::new(&mut buf)];
            let msg = recvmsg::<()>(
                sock.as_raw_fd(),
                &mut iov,
                Some(&mut cmsg),
                MsgFlags::MSG_CMSG_CLOEXEC,
            )
            .map_err(gone)?;
            let mut fds = Vec::new();
            if let Ok(cmsgs) = msg.cmsgs() {
                for c in cmsgs {
                    if let ControlMessageOwned::ScmRights(raw) = c {
                        // SAFETY: the kernel just installed these descriptors in this process
                        // for this message; nothing else owns them.
                        fds.extend(
                            raw.into_iter()
                                .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }),
                        );
                    }
                }
            }
            (msg.bytes, fds)
        };
        let text = || String::from_utf8_lossy(buf.get(1..bytes).unwrap_or_default()).into_owned();
        match (buf.first(), bytes) {
            (_, 0) => Err(SpawnError::Failed(
                "the spawner is gone (its socket closed)".into(),
            )),
            (Some(0), 5) if fds.len() == 2 => {
                let pid = u32::from_le_bytes([buf[1], buf[2], buf[3], buf[4]]);
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
}

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
    loop {
        let mut request = [0u8; 16];
        let got = {
            let mut iov = [IoSliceMut::new(&mut request)];
            recvmsg::<()>(sock.as_raw_fd(), &mut iov, None, MsgFlags::empty()).map(|m| m.bytes)
        };
        match got {
            Ok(0) => std::process::exit(0),
            Ok(4) => {}
            Ok(_) => continue,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => std::process::exit(0),
        }
        // Reap the workers that ended since the last request (they are restarted on demand).
        while let Ok(status) = waitpid(Pid::from_raw(-1), Some(WaitPidFlag::WNOHANG)) {
            if status == nix::sys::wait::WaitStatus::StillAlive {
                break;
            }
        }
        let index = u32::from_le_bytes([request[0], request[1], request[2], request[3]]);
        let answer = match specs.get(index as usize) {
            Some(spec) => start(spec),
            None => Err(SpawnError::Failed(format!("no tenant number {index}"))),
        };
        let sent = match answer {
            Ok((pid, stdin, stdout)) => {
                let mut message = vec![0u8];
                message.extend_from_slice(&pid.to_le_bytes());
                let fds = [stdin.as_raw_fd(), stdout.as_raw_fd()];
                sendmsg::<()>(
                    sock.as_raw_fd(),
                    &[IoSlice::new(&message)],
                    &[ControlMessage::ScmRights(&fds)],
                    MsgFlags::empty(),
                    None,
                )
            }
            Err(e) => {
                let mut message = vec![match e {
                    SpawnError::RootChanged(_) => 2u8,
                    SpawnError::Failed(_) => 1u8,
                }];
                message.extend(e.to_string().bytes().take(1000));
                sendmsg::<()>(
                    sock.as_raw_fd(),
                    &[IoSlice::new(&message)],
                    &[],
                    MsgFlags::empty(),
                    None,
                )
            }
        };
        if sent.is_err() {
            std::process::exit(0);
        }
    }
}

/// Start one worker; its stdin and stdout are pipes, its stderr the spawner's (the front
/// door's log). Its roots are handed on as descriptors, once each still names the directory
/// that was proven.
fn start(spec: &WorkerSpec) -> Result<(u32, OwnedFd, OwnedFd), SpawnError> {
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
    let level = if strict {
        CompatLevel::HardRequirement
    } else {
        CompatLevel::BestEffort
    };
    let mut created = Ruleset::default()
        .set_compatibility(level)
        .handle_access(AccessFs::from_all(landlock::ABI::V3))
        .map_err(err)?
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TESTED_ABI))
        .map_err(err)?
        .handle_access(AccessNet::from_all(TESTED_ABI))
        .map_err(err)?
        .scope(Scope::from_all(TESTED_ABI))
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
    let ruleset = match status.ruleset {
        RulesetStatus::FullyEnforced => "fully_enforced",
        RulesetStatus::PartiallyEnforced => "partially_enforced",
        RulesetStatus::NotEnforced => "not_enforced",
    };
    if strict && status.ruleset != RulesetStatus::FullyEnforced {
        return Err(format!(
            "the kernel did not enforce the whole ruleset ({ruleset})"
        ));
    }
    let caps = crate::caps::drop_all();
    if strict && !caps.holds_none() {
        return Err(format!(
            "capabilities not dropped: {}",
            caps.notes.join("; ")
        ));
    }
    let seccomp = match crate::seccomp::install_spawner() {
        Ok(()) => true,
        Err(e) if strict => return Err(e),
        Err(_) => false,
    };
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
        capabilities_dropped: caps.holds_none(),
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
