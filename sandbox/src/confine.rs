//! Process confinement: a Landlock read-only ruleset on the root, process hardening, the
//! capability drop and the seccomp filter.
//!
//! [`confine`] must run in `main` before any thread exists (Landlock before ABI 8 restricts only
//! the calling thread and its future children, and a seccomp filter is inherited only by threads
//! created after it), so it counts the process's threads first and refuses if there is more
//! than one. It then:
//!
//! 1. probes the per-open mechanism ([`BeneathDir::mechanism`]) while `/` is still reachable;
//! 2. sets `PR_SET_DUMPABLE` to 0 and `RLIMIT_CORE` to 0 (no core dumps, no ptrace by peers);
//! 3. handles every filesystem right of the tested ABI ([`TESTED_ABI`]) and grants only
//!    `ReadFile | ReadDir` beneath the root (one rule per root when there are several,
//!    [`Readable`]): no execute, no write, truncate, refer or ioctl;
//! 4. handles TCP bind and connect with no rule (all denied) and scopes abstract UNIX sockets
//!    and signals, where the kernel's ABI has them;
//! 5. sets `no_new_privs` and restricts itself;
//! 6. drops every capability ([`caps::drop_all`]);
//! 7. installs the seccomp allow-list ([`seccomp::install`]), which refuses every call the
//!    server does not make, among them all that Landlock cannot see.
//!
//! Modes: `strict` requires the read-only filesystem part to be enforced by the kernel (every
//! write right, truncate included: Landlock ABI 3 or newer; the crate's `HardRequirement`), no
//! capability left and the seccomp filter installed, and refuses to start otherwise.
//! `best-effort` applies what the kernel supports and lists the rest in
//! [`SandboxStatus::not_enforced`]. `off` applies nothing; the caller must say so loudly.
//!
//! [`confine_layers`] applies only some of the layers. It exists for the tests that prove each
//! probe of [`crate::selftest`] succeeds when the layer that stops it is left out; gnaw-mcp
//! calls [`confine`] only, and nothing in its environment or arguments selects layers.
//!
//! `--sandbox-status`: the recommended use is to call [`confine`] and print the status it
//! returns, since that status is read back from the kernel after the restriction is in force.
//! [`probe_status`] describes what `confine` would do without restricting anything.
//!
//! Read whatever the process needs from outside the root (CPU count, cgroup quota) before calling
//! `confine`: afterwards only the root is readable. Already-open fds (stdin, stdout, stderr)
//! keep working.

use std::fmt;
use std::str::FromStr;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use nix::sys::resource::{Resource, getrlimit, setrlimit};
use serde::Serialize;

use crate::beneath::BeneathDir;
use crate::caps::{self, CapStatus};
use crate::contain::Root;
use crate::roots::Roots;
use crate::seccomp::{self, SeccompStatus};

/// Which layers [`confine_layers`] applies. gnaw-mcp always applies [`Layers::ALL`] through
/// [`confine`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layers {
    /// The Landlock ruleset and the process hardening (dumpable, core limit).
    pub landlock: bool,
    /// Dropping every capability.
    pub capabilities: bool,
    /// The seccomp filter.
    pub seccomp: bool,
}

impl Layers {
    /// Everything: what the server runs under.
    pub const ALL: Layers = Layers {
        landlock: true,
        capabilities: true,
        seccomp: true,
    };
    /// Nothing (still the same code path: thread check, mode handling).
    pub const NONE: Layers = Layers {
        landlock: false,
        capabilities: false,
        seccomp: false,
    };
    /// Landlock and hardening alone.
    pub const LANDLOCK: Layers = Layers {
        landlock: true,
        ..Layers::NONE
    };
    /// The capability drop alone.
    pub const CAPABILITIES: Layers = Layers {
        capabilities: true,
        ..Layers::NONE
    };
    /// The seccomp filter alone.
    pub const SECCOMP: Layers = Layers {
        seccomp: true,
        ..Layers::NONE
    };
}

/// The Landlock ABI whose rights this crate handles and is tested against. Newer kernels keep
/// this exact behaviour; older ones get the subset they support (strict needs at least ABI 3).
pub const TESTED_ABI: ABI = ABI::V7;

/// The oldest ABI whose filesystem rights make a complete read-only ruleset (ABI 3 added
/// `truncate`; ABI 2 `refer`).
const READ_ONLY_ABI: ABI = ABI::V3;

/// How hard to confine (`GNAW_MCP_SANDBOX`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SandboxMode {
    /// Refuse to start unless the kernel enforces a read-only filesystem ruleset.
    #[default]
    Strict,
    /// Apply what the kernel supports and report what is missing.
    BestEffort,
    /// Apply nothing (debugging only).
    Off,
}

impl SandboxMode {
    /// `"strict"`, `"best-effort"` or `"off"`.
    pub fn name(self) -> &'static str {
        match self {
            SandboxMode::Strict => "strict",
            SandboxMode::BestEffort => "best-effort",
            SandboxMode::Off => "off",
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SandboxMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "strict" => Ok(SandboxMode::Strict),
            "best-effort" => Ok(SandboxMode::BestEffort),
            "off" => Ok(SandboxMode::Off),
            other => Err(format!(
                "unknown sandbox mode {other:?}; valid values are: strict (default), best-effort, off"
            )),
        }
    }
}

/// Why [`confine`] refused or failed. Nothing has been restricted when this is returned, except
/// for a failure of the final `landlock_restrict_self` call itself.
#[derive(Debug)]
pub enum ConfineError {
    /// More than one thread exists, so Landlock would not cover them all.
    MultiThreaded { threads: usize },
    /// The thread count could not be read from `/proc/self/status`.
    ThreadCountUnknown(String),
    /// Strict mode, and the kernel cannot enforce a read-only filesystem ruleset.
    Unenforceable { missing: Vec<String> },
    /// A system call of the sandbox setup failed.
    Setup(String),
}

const OPT_OUT: &str = "to run with reduced protection anyway, set GNAW_MCP_SANDBOX=best-effort";

impl fmt::Display for ConfineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfineError::MultiThreaded { threads } => write!(
                f,
                "refusing to enter the sandbox: the process has {threads} threads, and Landlock \
                 only confines the calling thread; call confine() in main before starting any thread"
            ),
            ConfineError::ThreadCountUnknown(e) => write!(
                f,
                "refusing to enter the sandbox: cannot check that the process is single-threaded \
                 ({e}); is /proc mounted?"
            ),
            ConfineError::Unenforceable { missing } => write!(
                f,
                "this kernel cannot enforce a read-only filesystem sandbox (missing: {}); \
                 enable Landlock (Linux 6.2 or newer, `landlock` in the lsm= boot parameter), or {OPT_OUT}",
                missing.join("; ")
            ),
            ConfineError::Setup(e) => write!(f, "setting up the sandbox failed: {e}; {OPT_OUT}"),
        }
    }
}

impl std::error::Error for ConfineError {}

/// TCP rights under Landlock.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct NetworkStatus {
    /// `"denied"` when handled with no rule, `"allowed"` otherwise.
    pub tcp_bind: &'static str,
    /// `"denied"` when handled with no rule, `"allowed"` otherwise.
    pub tcp_connect: &'static str,
}

/// Landlock scopes.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ScopeStatus {
    /// Connecting to abstract UNIX sockets created outside the sandbox is denied.
    pub abstract_unix_socket: bool,
    /// Signalling processes outside the sandbox is denied.
    pub signal: bool,
}

/// A root as the status names it: its canonical path and its identity when proven.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RootIdentity {
    pub path: String,
    pub dev: u64,
    pub ino: u64,
}

/// `RLIMIT_CORE`, soft and hard.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CoreLimit {
    pub soft: u64,
    pub hard: u64,
}

/// What the sandbox enforces (or would enforce). Serialize it, or use [`SandboxStatus::to_json`].
#[derive(Clone, Debug, Serialize)]
pub struct SandboxStatus {
    /// The canonical root (the first, when there are several).
    pub root: String,
    /// Every canonical root, in the operator's order: reading is granted beneath each.
    pub roots: Vec<String>,
    /// Each root by its device and inode as proven: the directory Landlock's rule is bound
    /// to, whatever its path names later.
    pub root_ids: Vec<RootIdentity>,
    /// `strict`, `best-effort` or `off`.
    pub mode: &'static str,
    /// Whether the restrictions are in force in this process (false for a probe and for `off`).
    pub applied: bool,
    /// The kernel's Landlock ABI, or `None` when Landlock is unavailable.
    pub kernel_landlock_abi: Option<i32>,
    /// The ABI this crate handles (its tested ABI).
    pub tested_landlock_abi: i32,
    /// `fully_enforced`, `partially_enforced`, `not_enforced`, `off` or `not_applied` (probe).
    pub ruleset: &'static str,
    /// Filesystem rights handled (denied unless granted).
    pub fs_handled: Vec<&'static str>,
    /// Filesystem rights granted beneath the root.
    pub fs_granted: Vec<&'static str>,
    pub network: NetworkStatus,
    pub scopes: ScopeStatus,
    pub no_new_privs: bool,
    pub dumpable: bool,
    pub core_rlimit: CoreLimit,
    /// Per-open containment: `openat2` or `nofollow-components`.
    pub per_open: &'static str,
    /// Threads counted before restricting (`None` when not checked).
    pub threads_checked: Option<usize>,
    /// The capability sets before and after the drop.
    pub capabilities: CapStatus,
    /// The seccomp filter.
    pub seccomp: SeccompStatus,
    /// Everything the tested ABI would enforce that is not enforced, in words.
    pub not_enforced: Vec<String>,
}

impl SandboxStatus {
    /// The status as a JSON value.
    pub fn to_json(&self) -> serde_json::Value {
        // Serializing plain strings, numbers and lists cannot fail.
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// True when the sandbox is applied and nothing the tested ABI offers is missing.
    pub fn fully_enforced(&self) -> bool {
        self.applied
            && self.ruleset == "fully_enforced"
            && self.no_new_privs
            && !self.dumpable
            && self.core_rlimit.soft == 0
            && self.capabilities.holds_none()
            && self.seccomp.installed
            && self.not_enforced.is_empty()
    }
}

/// The directories a sandbox grants reading beneath: one [`Root`], or each of [`Roots`].
pub trait Readable {
    /// The proven roots, at least one. Landlock's rule for each is bound to the root's own
    /// descriptor, opened when it was proven, never to its path resolved again.
    fn readable(&self) -> Vec<&Root>;
}

impl Readable for Root {
    fn readable(&self) -> Vec<&Root> {
        vec![self]
    }
}

impl Readable for Roots {
    fn readable(&self) -> Vec<&Root> {
        self.iter().map(|r| r.root()).collect()
    }
}

/// What [`confine`] would do with `root` and `mode`, without restricting anything.
pub fn probe_status(root: &(impl Readable + ?Sized), mode: SandboxMode) -> SandboxStatus {
    let plan = Plan::new(kernel_abi());
    let mut status = plan.status(root, mode);
    status.ruleset = if mode == SandboxMode::Off {
        "off"
    } else {
        "not_applied"
    };
    status.threads_checked = thread_count().ok();
    status
}

/// Confine this process to reading beneath `root` (see the module documentation).
pub fn confine(
    root: &(impl Readable + ?Sized),
    mode: SandboxMode,
) -> Result<SandboxStatus, ConfineError> {
    confine_layers(root, mode, Layers::ALL)
}

/// [`confine`] with only `layers` applied: for the tests that leave one layer out to prove a
/// probe needs it. The status lists every layer left out in `not_enforced`, so it is never
/// [`SandboxStatus::fully_enforced`] unless `layers` is [`Layers::ALL`].
pub fn confine_layers(
    root: &(impl Readable + ?Sized),
    mode: SandboxMode,
    layers: Layers,
) -> Result<SandboxStatus, ConfineError> {
    let plan = Plan::new(kernel_abi());
    if mode == SandboxMode::Off {
        let mut status = plan.status(root, mode);
        status.ruleset = "off";
        status.not_enforced = vec!["sandbox is off (GNAW_MCP_SANDBOX=off)".into()];
        log::warn!(
            "SANDBOX OFF: no Landlock ruleset, no hardening, capabilities kept, no seccomp \
             filter; for debugging only"
        );
        return Ok(status);
    }
    let strict = mode == SandboxMode::Strict;

    let threads = thread_count().map_err(ConfineError::ThreadCountUnknown)?;
    if threads > 1 {
        return Err(ConfineError::MultiThreaded { threads });
    }
    if strict && layers.landlock && !plan.read_only_enforceable() {
        return Err(ConfineError::Unenforceable {
            missing: plan.missing(),
        });
    }

    // Probe while `/` can still be opened.
    let _ = BeneathDir::mechanism();
    let mut failures = Vec::new();
    let mut ruleset = None;
    if layers.landlock {
        if let Err(e) = nix::sys::prctl::set_dumpable(false) {
            failures.push(format!("PR_SET_DUMPABLE 0 failed: {e}"));
        }
        if let Err(e) = setrlimit(Resource::RLIMIT_CORE, 0, 0) {
            failures.push(format!("RLIMIT_CORE 0 failed: {e}"));
        }
        if strict && !failures.is_empty() {
            return Err(ConfineError::Setup(failures.join("; ")));
        }

        let applied = restrict(root, strict).map_err(ConfineError::Setup)?;
        if strict && applied == RulesetStatus::NotEnforced {
            return Err(ConfineError::Unenforceable {
                missing: vec!["the kernel did not enforce the Landlock ruleset".into()],
            });
        }
        ruleset = Some(applied);
    } else {
        failures.push("Landlock left out (test-only layer selection)".into());
    }
    // Read back now: after the seccomp filter, prctl and capget are refused.
    let mut status = plan.status(root, mode);

    // After Landlock (whose setup needs no capability either), before seccomp (whose allow-list
    // has no capset).
    let capabilities = if layers.capabilities {
        let dropped = caps::drop_all();
        if !dropped.holds_none() {
            let why = format!("capabilities not dropped: {}", dropped.notes.join("; "));
            if strict {
                return Err(ConfineError::Setup(format!(
                    "{why} (the Landlock ruleset is already in force)"
                )));
            }
            failures.push(why);
        }
        dropped
    } else {
        failures.push("capabilities kept (test-only layer selection)".into());
        CapStatus::not_applied()
    };

    let seccomp_status = if layers.seccomp {
        match seccomp::install() {
            Ok(s) => s,
            Err(e) => {
                if strict {
                    return Err(ConfineError::Setup(format!(
                        "{e} (Landlock and the capability drop are already in force)"
                    )));
                }
                let mut s = SeccompStatus::planned();
                failures.push(format!("seccomp filter not installed: {e}"));
                s.error = Some(e);
                s
            }
        }
    } else {
        failures.push("seccomp filter left out (test-only layer selection)".into());
        SeccompStatus::planned()
    };

    status.applied = true;
    status.threads_checked = Some(threads);
    status.capabilities = capabilities;
    status.seccomp = seccomp_status;
    status.ruleset = ruleset.as_ref().map_or("not_enforced", ruleset_name);
    status.not_enforced.extend(failures);
    if ruleset == Some(RulesetStatus::NotEnforced) && status.not_enforced.is_empty() {
        status
            .not_enforced
            .push("the Landlock ruleset is not enforced".into());
    }
    // Landlock sets no_new_privs, and so does the seccomp installation (it needs it once the
    // capabilities are gone); PR_GET_NO_NEW_PRIVS passes the filter.
    status.no_new_privs = nix::sys::prctl::get_no_new_privs().unwrap_or(false);
    if !status.no_new_privs {
        status.not_enforced.push("no_new_privs is not set".into());
    }
    Ok(status)
}

/// `ruleset` handling every right of [`TESTED_ABI`]: filesystem, network and scopes. Nothing
/// is granted yet; what the caller then grants is all the process may do.
pub(crate) fn handle_all(ruleset: Ruleset) -> Result<Ruleset, landlock::RulesetError> {
    ruleset
        .handle_access(AccessFs::from_all(TESTED_ABI))?
        .handle_access(AccessNet::from_all(TESTED_ABI))?
        .scope(Scope::from_all(TESTED_ABI))
}

/// The ruleset a helper process of `--listen` (the reloader, a spawner) starts from: ABI 3's
/// filesystem rights handled, a hard requirement in strict mode; every other right and scope
/// this build knows handled best effort.
pub(crate) fn helper_ruleset(strict: bool) -> Result<Ruleset, landlock::RulesetError> {
    let level = if strict {
        CompatLevel::HardRequirement
    } else {
        CompatLevel::BestEffort
    };
    handle_all(
        Ruleset::default()
            .set_compatibility(level)
            .handle_access(AccessFs::from_all(landlock::ABI::V3))?
            .set_compatibility(CompatLevel::BestEffort),
    )
}

/// How a ruleset was enforced, as the statuses name it.
pub(crate) fn ruleset_name(status: &RulesetStatus) -> &'static str {
    match status {
        RulesetStatus::FullyEnforced => "fully_enforced",
        RulesetStatus::PartiallyEnforced => "partially_enforced",
        RulesetStatus::NotEnforced => "not_enforced",
    }
}

/// A helper process's last two layers: every capability dropped (in strict mode, all or an
/// error), then the seccomp filter `install` (in strict mode, in force or its error). Whether
/// no capability is held, and whether the filter is in force.
pub(crate) fn drop_caps_then_filter(
    strict: bool,
    install: fn() -> Result<(), String>,
) -> Result<(bool, bool), String> {
    let caps = crate::caps::drop_all();
    if strict && !caps.holds_none() {
        return Err(format!(
            "capabilities not dropped: {}",
            caps.notes.join("; ")
        ));
    }
    let seccomp = match install() {
        Ok(()) => true,
        Err(e) if strict => return Err(e),
        Err(_) => false,
    };
    Ok((caps.holds_none(), seccomp))
}

/// Build and apply the ruleset. Strict mode makes the read-only filesystem set a hard
/// requirement of the `landlock` crate; everything else is best effort.
fn restrict(root: &(impl Readable + ?Sized), strict: bool) -> Result<RulesetStatus, String> {
    let err = |e: landlock::RulesetError| format!("Landlock: {e}");
    let mut ruleset = Ruleset::default();
    if strict {
        ruleset = ruleset
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(READ_ONLY_ABI))
            .map_err(err)?;
    }
    let ruleset = handle_all(ruleset.set_compatibility(CompatLevel::BestEffort)).map_err(err)?;
    let mut created = ruleset.create().map_err(err)?.no_new_privs(true);
    for root in root.readable() {
        created = created
            .add_rule(PathBeneath::new(root.fd(), granted()))
            .map_err(err)?;
    }
    let status = created.restrict_self().map_err(err)?;
    Ok(status.ruleset)
}

fn granted() -> BitFlags<AccessFs> {
    AccessFs::ReadFile | AccessFs::ReadDir
}

/// What the sandbox handles on this kernel: the tested ABI's rights that the kernel supports.
struct Plan {
    kernel: Option<i32>,
    fs: BitFlags<AccessFs>,
    net: BitFlags<AccessNet>,
    scope: BitFlags<Scope>,
}

impl Plan {
    fn new(kernel: Option<i32>) -> Plan {
        // ABI::from is used only to describe what the kernel supports; the ruleset itself is
        // built from TESTED_ABI and the crate's compatibility levels.
        let abi = ABI::from(kernel.unwrap_or(0));
        Plan {
            kernel,
            fs: AccessFs::from_all(TESTED_ABI) & AccessFs::from_all(abi),
            net: AccessNet::from_all(TESTED_ABI) & AccessNet::from_all(abi),
            scope: Scope::from_all(TESTED_ABI) & Scope::from_all(abi),
        }
    }

    fn read_only_enforceable(&self) -> bool {
        let required = AccessFs::from_all(READ_ONLY_ABI);
        !required.is_empty() && self.fs.contains(required)
    }

    /// Everything the tested ABI would enforce that this kernel cannot, in words.
    fn missing(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self.kernel {
            None => out.push("Landlock is not available on this kernel".to_string()),
            Some(v) => {
                let absent = AccessFs::from_all(TESTED_ABI) & !self.fs;
                if !absent.is_empty() {
                    out.push(format!(
                        "kernel Landlock ABI {v} cannot restrict filesystem rights: {}",
                        fs_names(absent).join(", ")
                    ));
                }
                let net = AccessNet::from_all(TESTED_ABI) & !self.net;
                if !net.is_empty() {
                    out.push(format!(
                        "kernel Landlock ABI {v} cannot deny TCP bind/connect (needs ABI 4)"
                    ));
                }
                let scope = Scope::from_all(TESTED_ABI) & !self.scope;
                if !scope.is_empty() {
                    out.push(format!(
                        "kernel Landlock ABI {v} cannot scope abstract UNIX sockets and signals (needs ABI 6)"
                    ));
                }
            }
        }
        out
    }

    fn status(&self, root: &(impl Readable + ?Sized), mode: SandboxMode) -> SandboxStatus {
        let denied = |a: AccessNet| {
            if self.net.contains(a) {
                "denied"
            } else {
                "allowed"
            }
        };
        let (soft, hard) = getrlimit(Resource::RLIMIT_CORE).unwrap_or((u64::MAX, u64::MAX));
        SandboxStatus {
            root: root.readable()[0].path().display().to_string(),
            roots: root
                .readable()
                .iter()
                .map(|r| r.path().display().to_string())
                .collect(),
            root_ids: root
                .readable()
                .iter()
                .map(|r| RootIdentity {
                    path: r.path().display().to_string(),
                    dev: r.id().dev,
                    ino: r.id().ino,
                })
                .collect(),
            mode: mode.name(),
            applied: false,
            kernel_landlock_abi: self.kernel,
            tested_landlock_abi: TESTED_ABI as i32,
            ruleset: "not_applied",
            fs_handled: fs_names(self.fs),
            fs_granted: if self.fs.is_empty() {
                Vec::new()
            } else {
                fs_names(granted())
            },
            network: NetworkStatus {
                tcp_bind: denied(AccessNet::BindTcp),
                tcp_connect: denied(AccessNet::ConnectTcp),
            },
            scopes: ScopeStatus {
                abstract_unix_socket: self.scope.contains(Scope::AbstractUnixSocket),
                signal: self.scope.contains(Scope::Signal),
            },
            no_new_privs: nix::sys::prctl::get_no_new_privs().unwrap_or(false),
            dumpable: nix::sys::prctl::get_dumpable().unwrap_or(true),
            core_rlimit: CoreLimit { soft, hard },
            per_open: BeneathDir::mechanism(),
            threads_checked: None,
            capabilities: CapStatus::not_applied(),
            seccomp: SeccompStatus::planned(),
            not_enforced: self.missing(),
        }
    }
}

/// Kernel names of filesystem rights.
fn fs_names(set: BitFlags<AccessFs>) -> Vec<&'static str> {
    set.iter()
        .map(|a| match a {
            AccessFs::Execute => "execute",
            AccessFs::WriteFile => "write_file",
            AccessFs::ReadFile => "read_file",
            AccessFs::ReadDir => "read_dir",
            AccessFs::RemoveDir => "remove_dir",
            AccessFs::RemoveFile => "remove_file",
            AccessFs::MakeChar => "make_char",
            AccessFs::MakeDir => "make_dir",
            AccessFs::MakeReg => "make_reg",
            AccessFs::MakeSock => "make_sock",
            AccessFs::MakeFifo => "make_fifo",
            AccessFs::MakeBlock => "make_block",
            AccessFs::MakeSym => "make_sym",
            AccessFs::Refer => "refer",
            AccessFs::Truncate => "truncate",
            AccessFs::IoctlDev => "ioctl_dev",
            AccessFs::ResolveUnix => "resolve_unix",
            _ => "unknown",
        })
        .collect()
}

/// The kernel's Landlock ABI version, or `None` when Landlock is not available.
#[allow(unsafe_code)]
fn kernel_abi() -> Option<i32> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) only returns the
    // ABI version (or -1 with errno); it reads no memory (the attr pointer is NULL with size 0)
    // and creates no fd. The landlock crate does not expose this probe publicly.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    (v > 0).then(|| i32::try_from(v).unwrap_or(i32::MAX))
}

/// Number of threads of this process, from `/proc/self/status`.
pub(crate) fn thread_count() -> Result<usize, String> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("reading /proc/self/status: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| "no Threads: line in /proc/self/status".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_name_round_trip() {
        for mode in [
            SandboxMode::Strict,
            SandboxMode::BestEffort,
            SandboxMode::Off,
        ] {
            assert_eq!(mode.name().parse::<SandboxMode>(), Ok(mode));
        }
        assert_eq!(SandboxMode::default(), SandboxMode::Strict);
        let err = "permissive".parse::<SandboxMode>().unwrap_err();
        assert!(err.contains("strict") && err.contains("best-effort") && err.contains("off"));
    }

    #[test]
    fn strict_needs_abi_3() {
        assert!(!Plan::new(None).read_only_enforceable());
        assert!(!Plan::new(Some(2)).read_only_enforceable());
        assert!(Plan::new(Some(3)).read_only_enforceable());
        assert!(Plan::new(Some(7)).missing().is_empty());
        let missing = Plan::new(Some(2)).missing().join(" ");
        assert!(
            missing.contains("truncate") && missing.contains("ioctl_dev"),
            "{missing}"
        );
        assert!(Plan::new(None).missing()[0].contains("not available"));
    }
}
