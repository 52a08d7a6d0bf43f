//! Confinement of the HTTP front door of `gnaw-mcp --listen`: the process that parses,
//! authenticates and routes, and reads no repository.
//!
//! [`confine_front_door`] runs once the listening socket is bound and the tenant spawner is
//! forked ([`crate::spawner`]), while the process is still single-threaded. It handles every
//! Landlock filesystem right and grants none (no file can be opened, read, written or
//! executed: the process reads no file at all from then on), handles TCP bind and connect and
//! grants none (its one listening socket was bound before; it can bind no other port and
//! connect nowhere), scopes signals and abstract UNIX sockets, sets `no_new_privs`, makes the
//! process not dumpable and without core dumps, drops every capability, and installs a seccomp
//! allow-list of its own (`accept4`, socket and pipe I/O, descriptor passing with the spawner,
//! threads, memory, clocks: no `open`, no `socket`, `bind`, `connect`, no process). Descriptors
//! already open keep working: the listener, stderr, the spawner's socket and the workers'
//! pipes.

use landlock::{
    Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetStatus,
};
use nix::sys::resource::{Resource, setrlimit};

use crate::confine::SandboxMode;

/// What was applied, for the log.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FrontDoorStatus {
    /// `fully_enforced`, `partially_enforced`, `not_enforced` or `off`.
    pub ruleset: &'static str,
    /// Whether every capability is gone.
    pub capabilities_dropped: bool,
    /// Whether the front door's seccomp allow-list is installed.
    pub seccomp: bool,
}

/// Confine the front door (see the module documentation). `strict` refuses to go on when the
/// kernel does not enforce the whole ruleset; `off` applies nothing.
pub fn confine_front_door(mode: SandboxMode) -> Result<FrontDoorStatus, String> {
    if mode == SandboxMode::Off {
        return Ok(FrontDoorStatus {
            ruleset: "off",
            capabilities_dropped: false,
            seccomp: false,
        });
    }
    crate::forked::one_thread(|n| {
        format!("the front door must be confined while it has one thread (it has {n})")
    })?;
    let strict = mode == SandboxMode::Strict;
    let _ = nix::sys::prctl::set_dumpable(false);
    let _ = setrlimit(Resource::RLIMIT_CORE, 0, 0);
    let err = |e: landlock::RulesetError| format!("Landlock: {e}");
    let level = if strict {
        CompatLevel::HardRequirement
    } else {
        CompatLevel::BestEffort
    };
    let status = crate::confine::handle_all(
        Ruleset::default()
            .set_compatibility(level)
            .handle_access(AccessFs::from_all(landlock::ABI::V3))
            .map_err(err)?
            .handle_access(AccessNet::from_all(landlock::ABI::V4))
            .map_err(err)?
            .set_compatibility(CompatLevel::BestEffort),
    )
    .map_err(err)?
    .create()
    .map_err(err)?
    .no_new_privs(true)
    .restrict_self()
    .map_err(err)?;
    let ruleset = crate::confine::ruleset_name(&status.ruleset);
    if strict && status.ruleset == RulesetStatus::NotEnforced {
        return Err("the kernel did not enforce the front door's Landlock ruleset".into());
    }
    let (capabilities_dropped, seccomp) =
        crate::confine::drop_caps_then_filter(strict, crate::seccomp::install_front_door)?;
    Ok(FrontDoorStatus {
        ruleset,
        capabilities_dropped,
        seccomp,
    })
}

/// Adopt descriptor `fd`, inherited from whoever started the process, as the writer of the
/// audit trail (`GNAW_MCP_AUDIT_FD`): checked to be open and writable, and marked
/// close-on-exec so that no worker the spawner starts inherits it. Call it once, before
/// confining (the check reads the descriptor's flags, which the front door's seccomp filter
/// also allows; Landlock does not restrict a descriptor already open).
#[allow(unsafe_code)]
pub fn adopt_audit_fd(fd: i32) -> Result<std::fs::File, String> {
    use std::os::fd::{FromRawFd, OwnedFd};
    if fd <= 2 {
        return Err(format!(
            "descriptor {fd} is a standard stream; the audit trail goes to stderr without \
             GNAW_MCP_AUDIT_FD"
        ));
    }
    // SAFETY: fcntl(F_GETFL) reads the flags of a descriptor number; on a closed one it fails
    // with EBADF and touches nothing.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(format!(
            "descriptor {fd} is not open ({}); open it for writing when starting gnaw-mcp, \
             e.g. `{fd}>>/var/log/gnaw-mcp/audit.log`",
            std::io::Error::last_os_error()
        ));
    }
    let mode = flags & libc::O_ACCMODE;
    if mode != libc::O_WRONLY && mode != libc::O_RDWR {
        return Err(format!(
            "descriptor {fd} is open for reading only; open it for writing (`{fd}>>FILE`)"
        ));
    }
    // SAFETY: FD_CLOEXEC on an open descriptor (checked above) changes only whether it
    // survives an exec.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) } < 0 {
        return Err(format!(
            "descriptor {fd}: cannot mark it close-on-exec: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: the descriptor is open (checked above) and this process takes it over: the
    // caller adopts it once, at startup, and nothing else in gnaw-mcp uses that number.
    Ok(std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// Block `SIGHUP` (the reload signal) in this thread, and so in every thread it starts from now
/// on, so that only [`wait_reload_signal`] takes it. Call it before the first thread starts.
pub fn block_reload_signal() -> Result<(), String> {
    let mut set = nix::sys::signal::SigSet::empty();
    set.add(nix::sys::signal::Signal::SIGHUP);
    set.thread_block().map_err(|e| e.to_string())
}

/// Wait for the next `SIGHUP` (blocked in every thread: [`block_reload_signal`]).
pub fn wait_reload_signal() {
    let mut set = nix::sys::signal::SigSet::empty();
    set.add(nix::sys::signal::Signal::SIGHUP);
    loop {
        if set.wait().is_ok() {
            return;
        }
    }
}
