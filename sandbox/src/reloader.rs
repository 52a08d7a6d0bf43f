//! The reloader of `gnaw-mcp --listen`: a small process, forked before the front door confines
//! itself, that reads the tenants, proves their roots and forks each generation's spawner:
//! once at startup, and again at every reload (`SIGHUP`, `systemctl reload`).
//!
//! The front door reads no file once confined, and a spawner's Landlock domain (which its
//! workers inherit) holds only the roots it was forked with and cannot grow; so a tenant added
//! at a reload needs a new spawner, forked by a process that can still read its roots. That is
//! this one. On each request it runs the caller's `load` (read the tenants file, prove every
//! root by descriptor, check the tenants apart), forks a [`Spawner`] for the result, confined to
//! those roots, and answers with the generation's description (opaque bytes the caller's `load`
//! made, at most [`MAX_DESCRIPTION`]) and the new spawner's socket (`SCM_RIGHTS`); or with the
//! reason `load` refused, in which case the caller keeps its current generation.
//!
//! It is confined for that job alone: Landlock handles every filesystem right and grants only
//! reading and executing (nothing can be written, created or removed anywhere), TCP bind and
//! connect are denied, signals and abstract sockets scoped; `no_new_privs`, no capability, not
//! dumpable, the spawner's seccomp allow-list; it holds its socket and stderr only, and dies
//! with the front door. A generation's spawner then confines itself further, to its roots.

#![allow(unsafe_code)]

use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::sync::Mutex;

use landlock::{
    Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use nix::sys::socket::{
    AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags, SockFlag, SockType, recvmsg,
    sendmsg, socketpair,
};
use nix::unistd::{ForkResult, Pid, fork};

use crate::confine::{SandboxMode, TESTED_ABI};
use crate::spawner::{Spawner, WorkerSpec};

/// The largest description of a generation (the tenants, as the caller's `load` writes them).
pub const MAX_DESCRIPTION: usize = 8 << 20;

/// One part of a description on the socket.
const CHUNK: usize = 32 << 10;

/// What `load` makes of the tenants: the spawner's workers and a description for the caller.
pub struct Generation {
    pub specs: Vec<WorkerSpec>,
    pub description: Vec<u8>,
}

/// What the caller's `load` is: read the tenants and prove their roots, in the reloader.
pub type Load = Box<dyn Fn() -> Result<Generation, String>>;

/// The front door's handle on the reloader.
pub struct Reloader {
    sock: Mutex<OwnedFd>,
}

impl Reloader {
    /// Fork the reloader, which answers each [`Reloader::load`] with `load`'s generation.
    /// Must be called while the process is single-threaded (it checks) and not yet confined.
    pub fn fork(load: Load, mode: SandboxMode) -> io::Result<Reloader> {
        match crate::confine::thread_count() {
            Ok(1) => {}
            Ok(n) => {
                return Err(io::Error::other(format!(
                    "the reloader must be forked while the process has one thread (it has {n})"
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
            ForkResult::Parent { .. } => Ok(Reloader {
                sock: Mutex::new(ours),
            }),
            ForkResult::Child => {
                drop(ours);
                serve(parent, theirs, load, mode)
            }
        }
    }

    /// Ask for a generation: the tenants read and proven now, and a spawner for them; or why
    /// not (the caller keeps what it has).
    pub fn load(&self) -> Result<(Vec<u8>, Spawner), String> {
        let gone = |e: nix::errno::Errno| format!("the reloader is gone ({e})");
        let sock = self.sock.lock().unwrap_or_else(|e| e.into_inner());
        sendmsg::<()>(
            sock.as_raw_fd(),
            &[IoSlice::new(b"L")],
            &[],
            MsgFlags::empty(),
            None,
        )
        .map_err(gone)?;
        // The head: `0` and the description's length (u32) with the spawner's socket, or `1`
        // and why not.
        let mut head = vec![0u8; CHUNK];
        let mut cmsg = nix::cmsg_space!([RawFd; 1]);
        let (n, fds) = {
            let mut iov = [IoSliceMut::new(&mut head)];
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
        match (head.first(), n) {
            (_, 0) => Err("the reloader is gone (its socket closed)".into()),
            (Some(0), 5) if fds.len() == 1 => {
                let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
                if len > MAX_DESCRIPTION {
                    return Err("the reloader's answer is too long".into());
                }
                let mut description = Vec::with_capacity(len);
                let mut chunk = vec![0u8; CHUNK];
                while description.len() < len {
                    let got = {
                        let mut iov = [IoSliceMut::new(&mut chunk)];
                        recvmsg::<()>(sock.as_raw_fd(), &mut iov, None, MsgFlags::empty())
                            .map_err(gone)?
                            .bytes
                    };
                    if got == 0 {
                        return Err("the reloader is gone (mid-answer)".into());
                    }
                    description.extend_from_slice(&chunk[..got]);
                }
                description.truncate(len);
                let socket = fds.into_iter().next().ok_or("no spawner came")?;
                Ok((description, Spawner::from_socket(socket)))
            }
            _ => Err(String::from_utf8_lossy(head.get(1..n).unwrap_or_default()).into_owned()),
        }
    }
}

/// The reloader's life: confine, then make a generation per request until the front door is
/// gone.
fn serve(parent: Pid, sock: OwnedFd, load: Load, mode: SandboxMode) -> ! {
    crate::workers::die_with_parent(parent);
    crate::workers::close_all_but(&[sock.as_raw_fd(), 2]);
    if let Err(e) = confine_self(mode) {
        log::error!("the reloader could not confine itself ({e}); it stops");
        std::process::exit(3);
    }
    crate::workers::die_with_parent(parent);
    let mut request = [0u8; 16];
    loop {
        let got = {
            let mut iov = [IoSliceMut::new(&mut request)];
            recvmsg::<()>(sock.as_raw_fd(), &mut iov, None, MsgFlags::empty()).map(|m| m.bytes)
        };
        match got {
            Ok(0) => std::process::exit(0),
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => std::process::exit(0),
        }
        // Reap generations' spawners that ended (their front door let go of them).
        while let Ok(status) = nix::sys::wait::waitpid(
            Pid::from_raw(-1),
            Some(nix::sys::wait::WaitPidFlag::WNOHANG),
        ) {
            if status.pid().is_none() {
                break;
            }
        }
        let made = load().and_then(|generation| {
            if generation.description.len() > MAX_DESCRIPTION {
                return Err(format!(
                    "the tenants' description is over {MAX_DESCRIPTION} bytes"
                ));
            }
            let spawner = Spawner::fork(generation.specs, mode)
                .map_err(|e| format!("cannot start the spawner: {e}"))?;
            Ok((generation.description, spawner))
        });
        let sent = match made {
            Ok((description, spawner)) => send_generation(&sock, &description, spawner),
            Err(why) => {
                let mut message = vec![1u8];
                message.extend(why.bytes().take(CHUNK - 1));
                sendmsg::<()>(
                    sock.as_raw_fd(),
                    &[IoSlice::new(&message)],
                    &[],
                    MsgFlags::empty(),
                    None,
                )
                .map(drop)
            }
        };
        if sent.is_err() {
            std::process::exit(0);
        }
    }
}

/// Send a generation: the head with the spawner's socket, then the description in chunks.
fn send_generation(sock: &OwnedFd, description: &[u8], spawner: Spawner) -> nix::Result<()> {
    let socket = spawner.into_socket();
    let mut head = vec![0u8];
    head.extend_from_slice(&(description.len() as u32).to_le_bytes());
    let fds = [socket.as_raw_fd()];
    sendmsg::<()>(
        sock.as_raw_fd(),
        &[IoSlice::new(&head)],
        &[ControlMessage::ScmRights(&fds)],
        MsgFlags::empty(),
        None,
    )?;
    drop(socket);
    for chunk in description.chunks(CHUNK) {
        sendmsg::<()>(
            sock.as_raw_fd(),
            &[IoSlice::new(chunk)],
            &[],
            MsgFlags::empty(),
            None,
        )?;
    }
    Ok(())
}

/// Read and execute only, everywhere; no TCP; scoped; no capability; the spawner's seccomp
/// allow-list (it forks spawners, which start workers). `off` applies nothing.
fn confine_self(mode: SandboxMode) -> Result<(), String> {
    if mode == SandboxMode::Off {
        return Ok(());
    }
    let strict = mode == SandboxMode::Strict;
    let _ = nix::sys::prctl::set_dumpable(false);
    let err = |e: landlock::RulesetError| format!("Landlock: {e}");
    let level = if strict {
        CompatLevel::HardRequirement
    } else {
        CompatLevel::BestEffort
    };
    let everywhere = PathFd::new(Path::new("/")).map_err(|e| format!("Landlock: {e}"))?;
    let status = Ruleset::default()
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
        .map_err(err)?
        .add_rule(PathBeneath::new(
            everywhere,
            AccessFs::ReadFile | AccessFs::ReadDir | AccessFs::Execute,
        ))
        .map_err(err)?
        .no_new_privs(true)
        .restrict_self()
        .map_err(err)?;
    if strict && status.ruleset != RulesetStatus::FullyEnforced {
        return Err("the kernel did not enforce the reloader's whole ruleset".into());
    }
    let caps = crate::caps::drop_all();
    if strict && !caps.holds_none() {
        return Err(format!(
            "capabilities not dropped: {}",
            caps.notes.join("; ")
        ));
    }
    match crate::seccomp::install_spawner() {
        Err(e) if strict => Err(e),
        _ => Ok(()),
    }
}
