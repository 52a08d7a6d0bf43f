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

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::sync::Mutex;

use landlock::{AccessFs, PathBeneath, PathFd, RulesetCreatedAttr, RulesetStatus};
use nix::unistd::Pid;

use crate::confine::SandboxMode;
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
        let sock = crate::forked::fork_helper(
            |n| {
                format!("the reloader must be forked while the process has one thread (it has {n})")
            },
            crate::forked::seqpacket_pair,
            |parent, theirs| serve(parent, theirs, load, mode),
        )?;
        Ok(Reloader {
            sock: Mutex::new(sock),
        })
    }

    /// Ask for a generation: the tenants read and proven now, and a spawner for them; or why
    /// not (the caller keeps what it has).
    pub fn load(&self) -> Result<(Vec<u8>, Spawner), String> {
        let gone = |e: nix::errno::Errno| format!("the reloader is gone ({e})");
        let sock = self.sock.lock().unwrap_or_else(|e| e.into_inner());
        crate::forked::send(&sock, b"L", &[]).map_err(gone)?;
        // The head: `0` and the description's length (u32) with the spawner's socket, or `1`
        // and why not.
        let mut head = vec![0u8; CHUNK];
        let mut cmsg = nix::cmsg_space!([RawFd; 1]);
        let (n, fds) = crate::forked::receive(&sock, &mut head, &mut cmsg).map_err(gone)?;
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
                    let got = crate::forked::receive_plain(&sock, &mut chunk).map_err(gone)?;
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
        crate::forked::next_request(&sock, &mut request);
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
                crate::forked::send(&sock, &message, &[]).map(drop)
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
    crate::forked::send(sock, &head, &[socket.as_raw_fd()])?;
    drop(socket);
    for chunk in description.chunks(CHUNK) {
        crate::forked::send(sock, chunk, &[])?;
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
    let everywhere = PathFd::new(Path::new("/")).map_err(|e| format!("Landlock: {e}"))?;
    let status = crate::confine::helper_ruleset(strict)
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
    crate::confine::drop_caps_then_filter(strict, crate::seccomp::install_spawner).map(drop)
}
