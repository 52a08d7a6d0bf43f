//! The tenant spawner of `gnaw-mcp --listen`: a small process, forked before the HTTP front
//! door confines itself, that starts a tenant's worker (this same binary, in stdio mode, with
//! the tenant's roots) when the front door asks, and hands back the worker's stdin and stdout.
//!
//! Landlock domains are inherited and a child can only add restrictions, so the front door,
//! which reads no file at all once confined, could not start a worker that reads a tenant's
//! roots. The spawner can, and it takes nothing from the network: every worker it can start
//! was fixed when it was forked ([`WorkerSpec`], one per tenant, from the tenants file), and a
//! request names one by its index, nothing else. It holds its socket and stderr only (every
//! other descriptor, the listening socket included, is closed), dies with the front door
//! (`PR_SET_PDEATHSIG`), keeps no capability, and denies itself, and so every worker, TCP bind
//! and connect (Landlock's network rules) and signals and abstract sockets outside its domain
//! (Landlock scopes). Workers then confine themselves to their tenant's roots exactly as the
//! stdio server does.
//!
//! The socket is `SOCK_SEQPACKET`; a request is the tenant's index (4 bytes, little-endian);
//! the answer is `0` and the pid (4 bytes) with the worker's stdin and stdout as
//! `SCM_RIGHTS`, or `1` and the reason as text.

#![allow(unsafe_code)]

use std::ffi::OsString;
use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use landlock::{Access, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope};
use nix::sys::socket::{
    AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags, SockFlag, SockType, recvmsg,
    sendmsg, socketpair,
};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::{ForkResult, Pid, fork};

use crate::confine::TESTED_ABI;

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
}

/// A started worker: its pid, and the front door's ends of its stdin and stdout.
#[derive(Debug)]
pub struct Spawned {
    pub pid: u32,
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
}

/// The front door's handle on the spawner process.
pub struct Spawner {
    sock: Mutex<OwnedFd>,
}

impl Spawner {
    /// Fork the spawner with the workers it may start. Must be called while the process is
    /// single-threaded (it checks) and not yet confined.
    pub fn fork(specs: Vec<WorkerSpec>) -> io::Result<Spawner> {
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
                serve(parent, theirs, &specs)
            }
        }
    }

    /// Start the worker of tenant `index`.
    pub fn spawn(&self, index: usize) -> io::Result<Spawned> {
        let sock = self.sock.lock().unwrap_or_else(|e| e.into_inner());
        let request = u32::try_from(index)
            .map_err(|_| io::Error::other("tenant index out of range"))?
            .to_le_bytes();
        sendmsg::<()>(
            sock.as_raw_fd(),
            &[IoSlice::new(&request)],
            &[],
            MsgFlags::empty(),
            None,
        )
        .map_err(|e| io::Error::other(format!("the spawner is gone ({e})")))?;
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
            .map_err(|e| io::Error::other(format!("the spawner is gone ({e})")))?;
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
        match (buf.first(), bytes) {
            (_, 0) => Err(io::Error::other("the spawner is gone (its socket closed)")),
            (Some(0), 5) if fds.len() == 2 => {
                let pid = u32::from_le_bytes([buf[1], buf[2], buf[3], buf[4]]);
                let mut fds = fds.into_iter();
                let (Some(stdin), Some(stdout)) = (fds.next(), fds.next()) else {
                    unreachable!("two descriptors were counted")
                };
                Ok(Spawned { pid, stdin, stdout })
            }
            _ => Err(io::Error::other(format!(
                "the worker could not start: {}",
                String::from_utf8_lossy(buf.get(1..bytes).unwrap_or_default())
            ))),
        }
    }
}

/// The spawner's life: confine, then start workers on request until the front door is gone.
fn serve(parent: Pid, sock: OwnedFd, specs: &[WorkerSpec]) -> ! {
    crate::workers::die_with_parent(parent);
    crate::workers::close_all_but(&[sock.as_raw_fd(), 2]);
    if let Err(e) = confine_self() {
        eprintln!("gnaw-mcp: the worker spawner could not confine itself ({e}); it stops");
        std::process::exit(3);
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
            None => Err(format!("no tenant number {index}")),
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
            Err(why) => {
                let mut message = vec![1u8];
                message.extend(why.bytes().take(1000));
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
/// door's log).
fn start(spec: &WorkerSpec) -> Result<(u32, OwnedFd, OwnedFd), String> {
    let mut command = Command::new(&spec.exe);
    command.args(&spec.args);
    for name in &spec.env_remove {
        command.env_remove(name);
    }
    for (name, value) in &spec.env {
        command.env(name, value);
    }
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = command
        .spawn()
        .map_err(|e| format!("{}: {e}", spec.exe.display()))?;
    let pid = child.id();
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("the worker's pipes are missing".into());
    };
    Ok((pid, OwnedFd::from(stdin), OwnedFd::from(stdout)))
}

/// No TCP bind or connect, signals and abstract UNIX sockets scoped, `no_new_privs`, no
/// capability, not dumpable. The filesystem is left alone: the workers confine it.
fn confine_self() -> Result<(), String> {
    let _ = nix::sys::prctl::set_dumpable(false);
    let err = |e: landlock::RulesetError| format!("Landlock: {e}");
    Ruleset::default()
        .handle_access(AccessNet::from_all(TESTED_ABI))
        .map_err(err)?
        .scope(Scope::from_all(TESTED_ABI))
        .map_err(err)?
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
