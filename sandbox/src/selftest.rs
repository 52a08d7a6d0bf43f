//! The sandbox probes: raw system calls that bypass every userspace check, run inside the
//! sandbox to prove what the kernel itself enforces. `gnaw-mcp --self-test`, the crate's
//! real-Landlock test (`tests/landlock.rs`) and its layer-by-layer test (`tests/layers.rs`) run
//! this same list ([`PROBES`]).
//!
//! Each [`Probe`] says which layer stops it, and with which errno: Landlock (files, TCP, abstract
//! sockets, signals, ptrace), the capability drop, or the seccomp filter (everything Landlock
//! does not see: UDP, UNIX pathname, raw, packet, netlink and MPTCP sockets, TCP fast open,
//! io_uring, memfd + execveat, namespaces, bpf, perf, keyrings, fanotify, x32 calls). So the
//! expected result under any set of [`Layers`] follows from the table, and the layer test proves
//! both directions: each probe is stopped with its layer and succeeds without it.
//!
//! The parent side ([`run`]) prepares targets while still unconfined ([`Prepared`]): a scratch
//! directory and file *outside* the root, TCP, UDP, abstract and pathname UNIX listeners to
//! reach, its own pid to signal, a forked victim process to trace and read, and an existing
//! readable file *inside* the root for the positive control. With several roots it also finds a
//! readable file in the second root (`read_other_root`, which runs only then), and every probe
//! aims outside *all* roots; `list_above_roots` lists the nearest directory above every root and
//! under none (between sibling roots, or above nested ones). It re-executes the binary as a
//! child, which enters the sandbox through the same [`confine`] the server uses ([`child`]), runs
//! [`run_probes`] and prints one wire line per probe, then waits while the parent reads its
//! capability sets from `/proc/PID/status`. The parent checks every expected probe answered; a
//! missing one counts as failed, so a crashed child never passes. A second child makes one i386
//! (`int 0x80`) system call and must be killed by the filter's architecture check.
//!
//! The probes never damage the root, even on a host where the sandbox does not hold: writes open
//! an existing file for writing without writing to it, `truncate` keeps the current length,
//! `rename` moves a file onto itself, and anything a create probe manages to make (a file,
//! directory, link or FIFO under a unique `.gnaw-self-test-*` name) is removed at once. Only
//! such an unexpected success touches the root at all, and it is reported as `UNEXPECTED`.

use std::fmt;
use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use nix::errno::Errno;
use nix::unistd::{AccessFlags, access};

use crate::caps::CapSets;
use crate::confine::{Layers, SandboxMode, confine, probe_status};
use crate::contain::Root;
use crate::report::{Format, Report, Verdict};
use crate::roots::Roots;
use crate::syscall_probes as sys;

/// What a probe must observe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// The operation succeeds (positive control).
    Allowed,
    /// The operation fails with this errno.
    Denied(i32),
}

/// What a probe observed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Observed {
    /// `0` for success, else the errno (`-1` when the error carried none).
    Code(i32),
    /// Not run, and why (e.g. the root holds no readable file).
    Skipped(String),
}

/// One probe's expectation and result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeResult {
    pub name: String,
    pub expect: Expect,
    pub observed: Observed,
}

impl ProbeResult {
    /// `Some(true)` when the result is the expected one, `None` when skipped.
    pub fn passed(&self) -> Option<bool> {
        match (&self.observed, self.expect) {
            (Observed::Skipped(_), _) => None,
            (Observed::Code(c), Expect::Allowed) => Some(*c == 0),
            (Observed::Code(c), Expect::Denied(e)) => Some(*c == e),
        }
    }

    /// One line for the child-to-parent pipe: `probe NAME EXPECT OBSERVED`.
    pub fn to_wire(&self) -> String {
        let expect = match self.expect {
            Expect::Allowed => "allow".to_string(),
            Expect::Denied(e) => e.to_string(),
        };
        match &self.observed {
            Observed::Code(c) => format!("probe {} {expect} {c}", self.name),
            Observed::Skipped(why) => {
                format!(
                    "probe {} {expect} skip {}",
                    self.name,
                    why.replace('\n', " ")
                )
            }
        }
    }

    /// Parse a line made by [`ProbeResult::to_wire`].
    pub fn from_wire(line: &str) -> Option<ProbeResult> {
        let mut parts = line.splitn(5, ' ');
        if parts.next()? != "probe" {
            return None;
        }
        let name = parts.next()?.to_string();
        let expect = match parts.next()? {
            "allow" => Expect::Allowed,
            e => Expect::Denied(e.parse().ok()?),
        };
        let observed = match parts.next()? {
            "skip" => Observed::Skipped(parts.next().unwrap_or_default().to_string()),
            c => Observed::Code(c.parse().ok()?),
        };
        Some(ProbeResult {
            name,
            expect,
            observed,
        })
    }
}

impl ProbeResult {
    /// How it ended.
    pub fn verdict(&self) -> Verdict {
        match self.passed() {
            None => Verdict::Skipped,
            Some(true) => Verdict::Passed,
            Some(false) => Verdict::Failed,
        }
    }

    /// What it expected, in words.
    pub fn expectation(&self) -> String {
        match self.expect {
            Expect::Allowed => "allowed".to_string(),
            Expect::Denied(e) => format!("denied with {}", errno_name(e)),
        }
    }

    /// What happened, in words.
    pub fn detail(&self) -> String {
        match (&self.observed, self.passed()) {
            (Observed::Skipped(why), _) => why.clone(),
            (Observed::Code(0), Some(true)) => "allowed".to_string(),
            (Observed::Code(c), Some(true)) => format!("denied with {}", errno_name(*c)),
            (Observed::Code(c), _) => {
                let got = if *c == 0 {
                    "succeeded".to_string()
                } else {
                    format!("failed with {}", errno_name(*c))
                };
                let want = match self.expect {
                    Expect::Allowed => "success".to_string(),
                    Expect::Denied(e) => errno_name(e),
                };
                format!("{got}, expected {want}")
            }
        }
    }
}

impl fmt::Display for ProbeResult {
    /// `ok NAME: ...`, `UNEXPECTED NAME: ...` or `skipped NAME: ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tag = match self.verdict() {
            Verdict::Passed => "ok",
            Verdict::Failed => "UNEXPECTED",
            Verdict::Skipped => "skipped",
        };
        write!(f, "{tag:<10} {}: {}", self.name, self.detail())
    }
}

fn errno_name(code: i32) -> String {
    if code < 0 {
        return "an error without errno".into();
    }
    format!("{:?}", Errno::from_raw(code))
}

/// Everything the probes aim at. [`Prepared`] fills it in on the unconfined side; it crosses to
/// the child as one environment variable holding it as JSON ([`Targets::to_env`],
/// [`Targets::from_env`]), paths as their bytes so that any root's name crosses.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Targets {
    /// The canonical root (the first, when there are several).
    #[serde(with = "path_bytes")]
    pub root: PathBuf,
    /// The other roots, when the server reads several: the child confines itself to all.
    #[serde(with = "path_bytes")]
    pub other_roots: Vec<PathBuf>,
    /// A readable regular file in the second root (positive control across roots).
    #[serde(with = "path_bytes")]
    pub other_inside_file: Option<PathBuf>,
    /// A directory above every root and under none (their nearest common ancestor, or its
    /// parent when that is a root itself): what lies between and above roots is unreadable.
    #[serde(with = "path_bytes")]
    pub above_roots: Option<PathBuf>,
    /// An existing regular file under the root that this user can read (positive control).
    #[serde(with = "path_bytes")]
    pub inside_file: Option<PathBuf>,
    /// Whether this user could write `inside_file` without the sandbox (else write probes on
    /// it would prove nothing and are skipped).
    pub inside_writable: bool,
    /// Whether this user could create entries in the root without the sandbox.
    pub root_writable: bool,
    /// A directory outside the root, and a file in it.
    #[serde(with = "path_bytes")]
    pub outside_dir: Option<PathBuf>,
    #[serde(with = "path_bytes")]
    pub outside_file: Option<PathBuf>,
    /// A listening TCP port on 127.0.0.1.
    pub tcp_port: Option<u16>,
    /// A bound abstract UNIX socket name.
    pub abstract_socket: Option<String>,
    /// A process outside the sandbox to signal (signal 0: nothing is delivered).
    pub signal_pid: Option<i32>,
    /// A bound UDP socket on 127.0.0.1.
    pub udp_port: Option<u16>,
    /// A listening pathname UNIX socket, outside the root.
    #[serde(with = "path_bytes")]
    pub unix_socket: Option<PathBuf>,
    /// A process outside the sandbox to trace and read, and the address of [`VICTIM_MARKER`]
    /// in it.
    pub victim_pid: Option<i32>,
    pub victim_addr: Option<usize>,
    /// A name unused in the root, for the create probes.
    pub scratch_name: String,
}

/// The variable that carries the targets to the child.
const TARGETS_VAR: &str = "GNAW_SELF_TEST_TARGETS";

impl Targets {
    /// Every root the child confines itself to: [`Targets::root`], then the others.
    pub fn roots(&self) -> Vec<PathBuf> {
        let mut roots = vec![self.root.clone()];
        roots.extend(self.other_roots.iter().cloned());
        roots
    }

    /// The targets as the child's environment: one variable, the targets as JSON.
    pub fn to_env(&self) -> Vec<(String, std::ffi::OsString)> {
        let json = serde_json::to_string(self).unwrap_or_default();
        vec![(TARGETS_VAR.to_string(), json.into())]
    }

    /// Read the targets back in the child. `None` when there are none (not a self-test
    /// child).
    pub fn from_env() -> Option<Targets> {
        Targets::from_vars(|k| std::env::var_os(k))
    }

    fn from_vars(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<Targets> {
        serde_json::from_str(var(TARGETS_VAR)?.to_str()?).ok()
    }

    /// The inside file, for a probe that needs `allowed` (this user's right to write it, or to
    /// make entries beside it) to prove anything; or why the probe is skipped.
    fn inside_if(&self, allowed: bool, why: &'static str) -> Result<&Path, &'static str> {
        match self.inside_file.as_deref() {
            None => Err(NO_FILE),
            Some(_) if !allowed => Err(why),
            Some(p) => Ok(p),
        }
    }

    /// The inside file, when this user could write it without the sandbox.
    fn writable_inside(&self) -> Result<&Path, &'static str> {
        self.inside_if(self.inside_writable, NOT_WRITABLE)
    }

    /// The inside file, when this user could make entries beside it without the sandbox.
    fn inside_writable_root(&self) -> Result<&Path, &'static str> {
        self.inside_if(self.root_writable, ROOT_RO)
    }

    /// The name a create probe uses in the root.
    fn scratch(&self) -> PathBuf {
        self.root.join(&self.scratch_name)
    }
}

/// Paths as their bytes in JSON (a path need not be UTF-8), for [`PathBuf`], `Option` of one
/// and a `Vec` of them.
mod path_bytes {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::ffi::OsString;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::path::PathBuf;

    /// A type whose paths travel as bytes.
    pub trait AsBytes: Sized {
        type Bytes: Serialize + for<'de> Deserialize<'de>;
        fn to_bytes(&self) -> Self::Bytes;
        fn from_bytes(b: Self::Bytes) -> Self;
    }

    impl AsBytes for PathBuf {
        type Bytes = Vec<u8>;
        fn to_bytes(&self) -> Vec<u8> {
            self.as_os_str().as_bytes().to_vec()
        }
        fn from_bytes(b: Vec<u8>) -> PathBuf {
            OsString::from_vec(b).into()
        }
    }

    impl<T: AsBytes> AsBytes for Option<T> {
        type Bytes = Option<T::Bytes>;
        fn to_bytes(&self) -> Self::Bytes {
            self.as_ref().map(T::to_bytes)
        }
        fn from_bytes(b: Self::Bytes) -> Self {
            b.map(T::from_bytes)
        }
    }

    impl<T: AsBytes> AsBytes for Vec<T> {
        type Bytes = Vec<T::Bytes>;
        fn to_bytes(&self) -> Self::Bytes {
            self.iter().map(T::to_bytes).collect()
        }
        fn from_bytes(b: Self::Bytes) -> Self {
            b.into_iter().map(T::from_bytes).collect()
        }
    }

    pub fn serialize<T: AsBytes, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        value.to_bytes().serialize(s)
    }

    pub fn deserialize<'de, T: AsBytes, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        T::Bytes::deserialize(d).map(T::from_bytes)
    }
}

/// One probe and the layers that stop it. `None` in a column: that layer alone does not stop
/// it. With several layers applied the first that stops it answers, in the order seccomp (it
/// refuses the call at entry), Landlock, capabilities.
#[derive(Clone, Copy)]
pub struct Probe {
    pub name: &'static str,
    /// What the probe does: the system call it tries, on what was prepared for it.
    run: fn(&Targets) -> Observed,
    pub seccomp: Option<i32>,
    pub landlock: Option<i32>,
    pub capabilities: Option<i32>,
    /// Only meaningful when the sandbox holds several roots; left out with one.
    pub several_roots: bool,
}

impl fmt::Debug for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Probe")
            .field("name", &self.name)
            .field("seccomp", &self.seccomp)
            .field("landlock", &self.landlock)
            .field("capabilities", &self.capabilities)
            .field("several_roots", &self.several_roots)
            .finish()
    }
}

impl Probe {
    /// Try it, in this process.
    pub fn run(&self, t: &Targets) -> Observed {
        (self.run)(t)
    }

    /// Whether the probe runs for these targets (one that needs several roots does not run
    /// with one).
    pub fn applies(&self, t: &Targets) -> bool {
        !self.several_roots || !t.other_roots.is_empty()
    }

    /// What this probe must observe under `layers`.
    pub fn expect(&self, layers: Layers) -> Expect {
        let by = |on: bool, errno: Option<i32>| errno.filter(|_| on);
        by(layers.seccomp, self.seccomp)
            .or(by(layers.landlock, self.landlock))
            .or(by(layers.capabilities, self.capabilities))
            .map_or(Expect::Allowed, Expect::Denied)
    }

    /// The layer that stops it when every layer is on (`seccomp` answers first, then
    /// `landlock`, then `capabilities`), or `control` for a positive control.
    pub fn layer(&self) -> &'static str {
        if self.seccomp.is_some() {
            "seccomp"
        } else if self.landlock.is_some() {
            "landlock"
        } else if self.capabilities.is_some() {
            "capabilities"
        } else {
            "control"
        }
    }

    /// A positive control: no layer stops it.
    pub fn is_control(&self) -> bool {
        self.seccomp.is_none() && self.landlock.is_none() && self.capabilities.is_none()
    }
}

const fn probe(
    name: &'static str,
    run: fn(&Targets) -> Observed,
    seccomp: Option<i32>,
    landlock: Option<i32>,
    capabilities: Option<i32>,
) -> Probe {
    Probe {
        name,
        run,
        seccomp,
        landlock,
        capabilities,
        several_roots: false,
    }
}

/// A probe that only runs when the sandbox holds several roots.
const fn across_roots(
    name: &'static str,
    run: fn(&Targets) -> Observed,
    landlock: Option<i32>,
) -> Probe {
    Probe {
        several_roots: true,
        ..probe(name, run, None, landlock, None)
    }
}

const EPERM: Option<i32> = Some(libc::EPERM);
const EACCES: Option<i32> = Some(libc::EACCES);

/// Every probe, in the order they run: its name, what it does, and the errno each layer stops
/// it with. [`run_probes`] answers each once. `unshare_newuser` moves the process into a new
/// user namespace when it succeeds, so it is the last kernel probe.
pub const PROBES: &[Probe] = &[
    // Positive controls: reading inside the root, threads.
    probe(
        "read_inside",
        |t| with(t.inside_file.as_ref(), NO_FILE, read),
        None,
        None,
        None,
    ),
    probe("list_root", |t| code(list(&t.root)), None, None, None),
    across_roots(
        "read_other_root",
        |t| {
            with(
                t.other_inside_file.as_ref(),
                "the second root holds no regular file this user can read",
                read,
            )
        },
        None,
    ),
    probe("threads", |_| code(sys::threads()), None, None, None),
    // Landlock: files outside the root (seccomp allows read-only opens: Landlock decides).
    probe(
        "read_outside",
        |t| with(t.outside_file.as_ref(), NO_OUTSIDE_FILE, read),
        None,
        EACCES,
        None,
    ),
    probe(
        "list_outside",
        |t| with(t.outside_dir.as_ref(), NO_OUTSIDE_DIR, list),
        None,
        EACCES,
        None,
    ),
    probe(
        "list_above_roots",
        |t| {
            with(
                t.above_roots.as_ref(),
                "no directory lies above the roots (the root is /)",
                list,
            )
        },
        None,
        EACCES,
        None,
    ),
    probe(
        "read_etc_passwd",
        |t| read_outside_root(t, "/etc/passwd"),
        None,
        EACCES,
        None,
    ),
    probe(
        "read_proc_self_status",
        |t| read_outside_root(t, "/proc/self/status"),
        None,
        EACCES,
        None,
    ),
    // Writes inside the root: Landlock, and seccomp refuses every write-side call.
    probe(
        "open_write_inside",
        |t| open_inside(t, false),
        EPERM,
        EACCES,
        None,
    ),
    probe(
        "open_append_inside",
        |t| open_inside(t, true),
        EPERM,
        EACCES,
        None,
    ),
    probe("truncate_inside", truncate_inside, EPERM, EACCES, None),
    // Onto itself: a no-op when allowed, but the kernel still asks Landlock first.
    probe(
        "rename_inside",
        |t| {
            t.inside_writable_root()
                .map_or_else(skip, |p| code(fs::rename(p, p)))
        },
        EPERM,
        EACCES,
        None,
    ),
    probe(
        "create_file_inside",
        |t| create_inside(t, |p| fs::File::create_new(p).map(drop)),
        EPERM,
        EACCES,
        None,
    ),
    probe(
        "mkdir_inside",
        |t| create_inside(t, |p| fs::create_dir(p)),
        EPERM,
        EACCES,
        None,
    ),
    probe(
        "symlink_inside",
        |t| create_inside(t, |p| std::os::unix::fs::symlink(".", p)),
        EPERM,
        EACCES,
        None,
    ),
    probe(
        "mkfifo_inside",
        |t| {
            create_inside(t, |p| {
                nix::unistd::mkfifo(p, nix::sys::stat::Mode::S_IRUSR).map_err(io::Error::from)
            })
        },
        EPERM,
        EACCES,
        None,
    ),
    probe("hardlink_inside", hardlink_inside, EPERM, EACCES, None),
    // Execute, TCP, abstract UNIX sockets, signals, ptrace: Landlock and seccomp.
    probe("exec_bin_true", exec_bin_true, EPERM, EACCES, None),
    probe(
        "tcp_connect",
        |t| {
            with(t.tcp_port, NO_TCP, |port| {
                TcpStream::connect(("127.0.0.1", port)).map(drop)
            })
        },
        EPERM,
        EACCES,
        None,
    ),
    probe(
        "tcp_bind",
        |_| code(TcpListener::bind(("127.0.0.1", 0)).map(drop)),
        EPERM,
        EACCES,
        None,
    ),
    probe(
        "abstract_unix_connect",
        abstract_unix_connect,
        EPERM,
        EPERM,
        None,
    ),
    probe(
        "signal_other_process",
        |t| {
            with(t.signal_pid, "no process to signal", |pid| {
                // Signal 0 delivers nothing but goes through the same permission check.
                nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None)
                    .map_err(io::Error::from)
            })
        },
        EPERM,
        EPERM,
        None,
    ),
    // Without capabilities a process cannot trace one whose permitted set is not a subset of
    // its own (a victim started as root), hence the third column.
    probe(
        "ptrace_attach",
        |t| with(t.victim_pid, NO_VICTIM, sys::ptrace_seize),
        EPERM,
        EPERM,
        EPERM,
    ),
    probe(
        "process_vm_readv",
        |t| match (t.victim_pid, t.victim_addr) {
            (Some(pid), Some(addr)) => code(sys::process_vm_readv(pid, addr, &VICTIM_MARKER)),
            _ => skip(NO_VICTIM),
        },
        EPERM,
        EPERM,
        EPERM,
    ),
    // What Landlock ABI 7 does not see: seccomp, and for some the capability drop.
    probe(
        "udp_sendto",
        |t| with(t.udp_port, "no UDP socket was prepared", sys::udp_sendto),
        EPERM,
        None,
        None,
    ),
    probe(
        "unix_pathname_connect",
        |t| {
            with(
                t.unix_socket.as_ref(),
                "no pathname UNIX socket was prepared",
                |p| sys::unix_pathname_connect(p),
            )
        },
        EPERM,
        None,
        None,
    ),
    probe(
        "raw_socket",
        |_| code(sys::raw_socket()),
        EPERM,
        None,
        EPERM,
    ),
    probe(
        "packet_socket",
        |_| code(sys::packet_socket()),
        EPERM,
        None,
        EPERM,
    ),
    probe(
        "netlink_socket",
        |_| code(sys::netlink_socket()),
        EPERM,
        None,
        None,
    ),
    probe(
        "mptcp_connect",
        |t| with(t.tcp_port, NO_TCP, sys::mptcp_connect),
        EPERM,
        None,
        None,
    ),
    probe(
        "tcp_fastopen_sendto",
        |t| with(t.tcp_port, NO_TCP, sys::tcp_fastopen_sendto),
        EPERM,
        None,
        None,
    ),
    probe(
        "io_uring_setup",
        |_| code(sys::io_uring_setup()),
        EPERM,
        None,
        None,
    ),
    probe(
        "memfd_execveat",
        |_| code(sys::memfd_exec()),
        EPERM,
        None,
        None,
    ),
    probe(
        "bpf_map_create",
        |_| code(sys::bpf_map_create()),
        EPERM,
        None,
        EPERM,
    ),
    probe(
        "perf_event_open",
        |_| code(sys::perf_event_open()),
        EPERM,
        None,
        None,
    ),
    probe("keyctl", |_| code(sys::keyctl()), EPERM, None, None),
    probe(
        "fanotify_init",
        |_| code(sys::fanotify_init()),
        EPERM,
        None,
        EPERM,
    ),
    probe(
        "mount_bind",
        |t| {
            with(t.outside_dir.as_ref(), NO_OUTSIDE_DIR, |d| {
                sys::mount_bind(d)
            })
        },
        EPERM,
        EPERM,
        EPERM,
    ),
    probe("setns_net", |_| code(sys::setns_net()), EPERM, None, EPERM),
    probe("x32_syscall", x32_syscall, EPERM, None, None),
    probe(
        "clone_newuser",
        |_| code(sys::clone_newuser()),
        EPERM,
        None,
        None,
    ),
    probe(
        "unshare_newuser",
        |_| code(sys::unshare_newuser()),
        EPERM,
        None,
        None,
    ),
    probe(
        "stdout_still_works",
        |_| code(io::stdout().flush()),
        None,
        None,
        None,
    ),
];

/// The probe named `name`.
pub fn find_probe(name: &str) -> Option<&'static Probe> {
    PROBES.iter().find(|p| p.name == name)
}

fn code(r: io::Result<()>) -> Observed {
    Observed::Code(match r {
        Ok(()) => 0,
        Err(e) => e.raw_os_error().unwrap_or(-1),
    })
}

fn skip(why: &str) -> Observed {
    Observed::Skipped(why.to_string())
}

/// Whether `p` lies under `root`, component-wise.
fn under(root: &Path, p: &Path) -> bool {
    p.starts_with(root)
}

/// Run every probe of [`PROBES`] in this process (normally after [`confine`] or
/// [`crate::confine_layers`] with `layers`), in order, each expecting what `layers` implies.
pub fn run_probes(t: &Targets, layers: Layers) -> Vec<ProbeResult> {
    PROBES
        .iter()
        .filter(|p| p.applies(t))
        .map(|p| ProbeResult {
            name: p.name.to_string(),
            expect: p.expect(layers),
            observed: p.run(t),
        })
        .collect()
}

const NO_FILE: &str = "the root holds no regular file this user can read";
const NOT_WRITABLE: &str =
    "this user cannot write the chosen file even without the sandbox; nothing to prove";
const ROOT_RO: &str =
    "this user cannot create entries in the root even without the sandbox; nothing to prove";
const NO_OUTSIDE_FILE: &str = "no place outside the root for a scratch file";
const NO_OUTSIDE_DIR: &str = "no place outside the root for a scratch directory";
const NO_TCP: &str = "no TCP listener was prepared";
const NO_VICTIM: &str = "no victim process was prepared";

fn read(p: &PathBuf) -> io::Result<()> {
    fs::read(p).map(drop)
}

fn list(p: &PathBuf) -> io::Result<()> {
    fs::read_dir(p).map(drop)
}

/// Read a well-known file, unless it lies inside the root (then it proves nothing).
fn read_outside_root(t: &Targets, path: &str) -> Observed {
    let p = Path::new(path);
    if under(&t.root, p) {
        skip("the path is inside the root")
    } else {
        code(fs::read(p).map(drop))
    }
}

/// Open the inside file for writing (`append`: for appending), never writing to it.
fn open_inside(t: &Targets, append: bool) -> Observed {
    t.writable_inside().map_or_else(skip, |p| {
        let mut o = fs::OpenOptions::new();
        if append {
            o.append(true);
        } else {
            o.write(true);
        }
        code(o.custom_flags(libc::O_NONBLOCK).open(p).map(drop))
    })
}

/// Truncate the inside file to its current length: the content is unchanged even if this
/// succeeds.
fn truncate_inside(t: &Targets) -> Observed {
    t.writable_inside().map_or_else(skip, |p| {
        let len = fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let len = libc::off_t::try_from(len).unwrap_or(libc::off_t::MAX);
        code(nix::unistd::truncate(p, len).map_err(io::Error::from))
    })
}

/// Make an entry at the scratch name with `make`, and remove it at once if that worked.
fn create_inside(t: &Targets, make: impl FnOnce(&Path) -> io::Result<()>) -> Observed {
    if !t.root_writable {
        return skip(ROOT_RO);
    }
    let scratch = t.scratch();
    let r = make(&scratch);
    undo(&scratch, &r);
    code(r)
}

fn hardlink_inside(t: &Targets) -> Observed {
    t.inside_writable_root().map_or_else(skip, |p| {
        let scratch = t.scratch();
        let r = fs::hard_link(p, &scratch);
        undo(&scratch, &r);
        code(r)
    })
}

fn exec_bin_true(t: &Targets) -> Observed {
    let p = Path::new("/bin/true");
    if under(&t.root, p) {
        skip("/bin/true is inside the root")
    } else {
        // Inherited stdio: opening /dev/null would be refused before the exec is tried.
        code(Command::new(p).status().map(drop))
    }
}

fn abstract_unix_connect(t: &Targets) -> Observed {
    with(
        t.abstract_socket.as_ref(),
        "no abstract UNIX socket was prepared",
        |n| {
            SocketAddr::from_abstract_name(n.as_bytes())
                .and_then(|a| UnixStream::connect_addr(&a))
                .map(drop)
        },
    )
}

fn x32_syscall(_: &Targets) -> Observed {
    match sys::x32_getpid() {
        Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => {
            skip("this kernel has no x32 system calls (ENOSYS): nothing to refuse")
        }
        r => code(r),
    }
}

/// The probe `run` on what was prepared for it, or skipped (`why`) when nothing was.
fn with<T>(prepared: Option<T>, why: &str, run: impl FnOnce(T) -> io::Result<()>) -> Observed {
    prepared.map_or_else(|| skip(why), |p| code(run(p)))
}

/// Remove what a create probe unexpectedly made.
fn undo<T>(scratch: &Path, r: &io::Result<T>) {
    if r.is_ok() {
        let _ = fs::remove_dir(scratch).or_else(|_| fs::remove_file(scratch));
    }
}

/// Parent-side state that must live while the child runs: the outside scratch directory, the
/// listeners. Dropping it removes the scratch directory.
pub struct Prepared {
    pub targets: Targets,
    _tcp: Option<TcpListener>,
    _udp: Option<UdpSocket>,
    _unix: Option<UnixListener>,
    _unix_path: Option<UnixListener>,
    victim: Option<Victim>,
    scratch_dir: Option<PathBuf>,
}

/// What the ptrace and `process_vm_readv` probes look for in the victim's memory.
pub static VICTIM_MARKER: [u8; 32] = *b"gnaw-self-test: victim memory.\n\0";

/// A forked copy of the preparing process that waits until its pipe closes. It holds
/// [`VICTIM_MARKER`] at the same address as its parent.
struct Victim {
    pid: i32,
    pipe: Option<std::os::fd::OwnedFd>,
}

impl Victim {
    #[allow(unsafe_code)]
    fn fork() -> Option<Victim> {
        use std::os::fd::AsRawFd;
        let (read, write) = nix::unistd::pipe().ok()?;
        // SAFETY: the child calls only close, read and _exit (async-signal-safe) on descriptors
        // it owns a copy of, so forking a multi-threaded parent is sound; the parent keeps the
        // write end and closes it on drop, which ends the child.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let mut byte = 0u8;
            // SAFETY: see above; `byte` is live and one byte long.
            unsafe {
                libc::close(write.as_raw_fd());
                while libc::read(read.as_raw_fd(), (&raw mut byte).cast(), 1) > 0 {}
                libc::_exit(0);
            }
        }
        (pid > 0).then_some(Victim {
            pid,
            pipe: Some(write),
        })
    }
}

impl Drop for Victim {
    fn drop(&mut self) {
        drop(self.pipe.take());
        let _ = nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(self.pid), None);
    }
}

impl Prepared {
    /// Prepare targets for `root` without writing anything inside it.
    pub fn new(root: &Root) -> Prepared {
        Prepared::for_roots(&Roots::single(root.clone()))
    }

    /// Prepare targets for every root of `roots` without writing anything inside them.
    pub fn for_roots(roots: &Roots) -> Prepared {
        let all: Vec<PathBuf> = roots
            .iter()
            .map(|r| r.root().path().to_path_buf())
            .collect();
        let root_path = all[0].clone();
        let other_roots = all[1..].to_vec();
        let other_inside_file = other_roots.first().and_then(|r| find_inside_file(r));
        let above_roots = above(&all);
        let unique = format!(
            "{}-{}",
            std::process::id(),
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        );
        let (scratch_dir, outside_file) = outside_scratch(&all, &unique);
        let (inside_file, inside_writable) = match find_inside_file(&root_path) {
            Some(p) => {
                let w = access(&p, AccessFlags::W_OK).is_ok();
                (Some(p), w)
            }
            None => (None, false),
        };
        let root_writable = access(&root_path, AccessFlags::W_OK | AccessFlags::X_OK).is_ok();
        let tcp = TcpListener::bind(("127.0.0.1", 0)).ok();
        let tcp_port = tcp
            .as_ref()
            .and_then(|l| l.local_addr().ok())
            .map(|a| a.port());
        let abstract_name = format!("gnaw-self-test-{unique}");
        let unix = SocketAddr::from_abstract_name(abstract_name.as_bytes())
            .and_then(|a| UnixListener::bind_addr(&a))
            .ok();
        let udp = UdpSocket::bind(("127.0.0.1", 0)).ok();
        let udp_port = udp
            .as_ref()
            .and_then(|s| s.local_addr().ok())
            .map(|a| a.port());
        let unix_socket = scratch_dir.as_ref().map(|d| d.join("socket"));
        let unix_path = unix_socket
            .as_ref()
            .and_then(|p| UnixListener::bind(p).ok());
        let victim = Victim::fork();
        let targets = Targets {
            root: root_path,
            other_roots,
            other_inside_file,
            above_roots,
            inside_file,
            inside_writable,
            root_writable,
            outside_dir: scratch_dir.clone(),
            outside_file,
            tcp_port,
            abstract_socket: unix.as_ref().map(|_| abstract_name),
            signal_pid: i32::try_from(std::process::id()).ok(),
            udp_port,
            unix_socket: unix_socket.filter(|_| unix_path.is_some()),
            victim_pid: victim.as_ref().map(|v| v.pid),
            victim_addr: victim.as_ref().map(|_| VICTIM_MARKER.as_ptr() as usize),
            scratch_name: format!(".gnaw-self-test-{unique}"),
        };
        Prepared {
            targets,
            _tcp: tcp,
            _udp: udp,
            _unix: unix,
            _unix_path: unix_path,
            victim,
            scratch_dir,
        }
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        drop(self.victim.take());
        if let Some(dir) = &self.scratch_dir {
            let _ = fs::remove_dir_all(dir);
        }
        // Only if a create probe unexpectedly succeeded and could not undo itself.
        let leftover = self.targets.root.join(&self.targets.scratch_name);
        if fs::symlink_metadata(&leftover).is_ok() {
            let _ = fs::remove_dir(&leftover).or_else(|_| fs::remove_file(&leftover));
        }
    }
}

/// The marker the outside scratch file holds; it must never be readable from the child.
pub const OUTSIDE_MARKER: &str = "gnaw-self-test: this file lies outside the root\n";

/// The nearest directory above every root that lies under none of them: their longest common
/// ancestor, or its parent when that ancestor is a root itself. `None` when that would be `/`'s
/// parent.
fn above(roots: &[PathBuf]) -> Option<PathBuf> {
    let mut common = roots.first()?.clone();
    while !roots.iter().all(|r| r.starts_with(&common)) {
        if !common.pop() {
            return None;
        }
    }
    if roots.contains(&common) {
        common.parent().map(Path::to_path_buf)
    } else {
        Some(common)
    }
}

/// Make a private directory with one file, somewhere under none of the roots.
fn outside_scratch(roots: &[PathBuf], unique: &str) -> (Option<PathBuf>, Option<PathBuf>) {
    let mut bases = vec![std::env::temp_dir(), "/dev/shm".into(), "/var/tmp".into()];
    if let Some(parent) = roots.first().and_then(|r| r.parent()) {
        bases.push(parent.to_path_buf());
    }
    for base in bases {
        let Ok(base) = fs::canonicalize(&base) else {
            continue;
        };
        if roots.iter().any(|root| under(root, &base)) {
            continue;
        }
        let dir = base.join(format!("gnaw-self-test-{unique}"));
        let made = fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .and_then(|()| fs::write(dir.join("outside.txt"), OUTSIDE_MARKER));
        match made {
            Ok(()) => {
                let file = dir.join("outside.txt");
                return (Some(dir), Some(file));
            }
            Err(_) => {
                let _ = fs::remove_dir_all(&dir);
            }
        }
    }
    (None, None)
}

/// The first regular file under the root this user can open for reading, breadth first, looking
/// at no more than a few thousand entries. Prefers one this user may also write.
fn find_inside_file(root: &Path) -> Option<PathBuf> {
    let mut queue = std::collections::VecDeque::from([root.to_path_buf()]);
    let mut seen = 0usize;
    let mut readable: Option<PathBuf> = None;
    while let Some(dir) = queue.pop_front() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > 5000 {
                return readable;
            }
            let Ok(ft) = entry.file_type() else { continue };
            let path = entry.path();
            if ft.is_dir() {
                queue.push_back(path);
            } else if ft.is_file()
                && fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(&path)
                    .is_ok()
            {
                if access(&path, AccessFlags::W_OK).is_ok() {
                    return Some(path);
                }
                readable.get_or_insert(path);
            }
        }
    }
    readable
}

/// The self-test's outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
}

/// What a probe child printed, how it ended, and its capability sets read from
/// `/proc/PID/status` while it waited after confining itself.
#[derive(Debug)]
pub struct ChildRun {
    pub stdout: String,
    pub stderr: String,
    pub status: std::process::ExitStatus,
    /// `None` when the child never printed [`CONFINED`] or its status could not be read.
    pub caps: Option<CapSets>,
}

/// The line a probe child prints once confined, before any probe; it then waits for a line on
/// stdin ([`checkpoint`]). Read then, its capabilities are the sandbox's own: a probe that
/// succeeds (a new user namespace) could change them later.
pub const CONFINED: &str = "confined";

/// Spawn a probe child (`cmd` must lead to [`child`] or an equivalent that calls
/// [`checkpoint`] once confined), read its output, and read its capabilities from outside while
/// it waits at the checkpoint.
pub fn run_child(mut cmd: Command) -> io::Result<ChildRun> {
    let mut proc = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdin = proc.stdin.take();
    let stdout = proc.stdout.take();
    let mut stderr_pipe = proc.stderr.take();
    let stderr_thread = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(pipe) = stderr_pipe.as_mut() {
            let _ = io::Read::read_to_string(pipe, &mut text);
        }
        text
    });
    let mut out = String::new();
    let mut caps = None;
    let mut stdin = stdin;
    if let Some(pipe) = stdout {
        for line in BufReader::new(pipe).lines() {
            let line = line?;
            if line == CONFINED && caps.is_none() {
                caps = fs::read_to_string(format!("/proc/{}/status", proc.id()))
                    .ok()
                    .and_then(|s| CapSets::from_proc_status(&s));
                if let Some(mut pipe) = stdin.take() {
                    let _ = pipe.write_all(b"go\n");
                }
            }
            out.push_str(&line);
            out.push('\n');
        }
    }
    drop(stdin);
    let status = proc.wait()?;
    let stderr = stderr_thread.join().unwrap_or_default();
    Ok(ChildRun {
        stdout: out,
        stderr,
        status,
        caps,
    })
}

/// The environment variable that makes [`child`] make one i386 system call instead of the
/// probes. Only the self-test parent sets it, for its second child.
const I386_ONLY: &str = "GNAW_SELF_TEST_I386";

/// The parent side of the self-test: prepare targets for `root`, re-execute `exe` with
/// `child_args` (which must lead to [`child`]), and write a report of every check to `out` in
/// `format` (lines ending in `N passed, N failed`, JSON, or JUnit XML: [`crate::report`]).
/// Never reports success when the host lacks Landlock or when the child did not answer every
/// probe.
pub fn run(
    exe: &Path,
    child_args: &[std::ffi::OsString],
    roots: &Roots,
    mode: SandboxMode,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<Summary> {
    let report = checks(exe, child_args, roots, mode)?;
    report.write(format, out)?;
    Ok(Summary {
        passed: report.count(Verdict::Passed),
        failed: report.count(Verdict::Failed),
    })
}

/// Run every check and gather the report.
fn checks(
    exe: &Path,
    child_args: &[std::ffi::OsString],
    roots: &Roots,
    mode: SandboxMode,
) -> io::Result<Report> {
    let mut report = Report {
        roots: roots
            .iter()
            .map(|r| r.root().path().display().to_string())
            .collect(),
        mode: mode.to_string(),
        ..Report::default()
    };
    let status = probe_status(roots, mode);
    match status.kernel_landlock_abi {
        Some(v) => report.push(
            "landlock_available",
            "landlock",
            "a kernel with Landlock",
            Verdict::Passed,
            format!("kernel Landlock ABI {v}"),
        ),
        None => report.push(
            "landlock_available",
            "landlock",
            "a kernel with Landlock",
            Verdict::Failed,
            "this host lacks Landlock (not built into the kernel or not enabled in the lsm= \
             boot parameter); the sandbox cannot be enforced",
        ),
    }
    let prepared = Prepared::for_roots(roots);
    let mut cmd = Command::new(exe);
    cmd.args(child_args).envs(prepared.targets.to_env());
    let output = run_child(cmd)?;
    let mut i386_cmd = Command::new(exe);
    i386_cmd
        .args(child_args)
        .envs(prepared.targets.to_env())
        .env(I386_ONLY, "1");
    let i386 = run_child(i386_cmd)?;
    drop(prepared);

    let mut answered: Vec<ProbeResult> = Vec::new();
    let mut enforced = None;
    let mut errors = Vec::new();
    for line in output.stdout.lines() {
        if let Some(r) = ProbeResult::from_wire(line) {
            answered.push(r);
        } else if let Some(rest) = line.strip_prefix("enforced ") {
            enforced = Some(rest.to_string());
        } else if let Some(rest) = line.strip_prefix("error ") {
            errors.push(rest.to_string());
        }
    }
    for e in &errors {
        report.push(
            "sandbox",
            "sandbox",
            "confine() succeeds",
            Verdict::Failed,
            e.clone(),
        );
    }
    let enforced_case = |verdict, detail: &str| {
        (
            "sandbox_fully_enforced",
            "sandbox",
            "every layer enforced",
            verdict,
            detail.to_string(),
        )
    };
    let case = match enforced.as_deref() {
        Some("true") => Some(enforced_case(Verdict::Passed, "true")),
        Some(detail) => Some(enforced_case(Verdict::Failed, detail)),
        None if errors.is_empty() => Some(enforced_case(
            Verdict::Failed,
            "the child did not report its sandbox status",
        )),
        None => None,
    };
    if let Some((name, layer, expect, verdict, detail)) = case {
        report.push(name, layer, expect, verdict, detail);
    }
    // What the parent process holds shows what the child could have kept.
    let parent_caps = CapSets::current().ok();
    let (verdict, detail) = match &output.caps {
        Some(c) if c.holds_none() => {
            let h = c.hex();
            (
                Verdict::Passed,
                format!(
                    "none held (CapEff {}, CapPrm {}, CapInh {}, CapAmb {}, CapBnd {})",
                    h.effective, h.permitted, h.inheritable, h.ambient, h.bounding
                ),
            )
        }
        Some(c) => {
            let h = c.hex();
            (
                Verdict::Failed,
                format!(
                    "the sandboxed child holds CapEff {}, CapPrm {}, CapInh {}, CapAmb {}",
                    h.effective, h.permitted, h.inheritable, h.ambient
                ),
            )
        }
        None if parent_caps.is_some_and(|c| c.holds_none()) => (
            Verdict::Skipped,
            "the child's sets could not be read, and this user holds none to drop".to_string(),
        ),
        None => (
            Verdict::Failed,
            "the child's capability sets could not be read from /proc".to_string(),
        ),
    };
    report.push("capabilities", "capabilities", "none held", verdict, detail);
    for p in PROBES
        .iter()
        .filter(|p| roots.len() > 1 || !p.several_roots)
    {
        let expect = p.expect(Layers::ALL);
        let r = answered
            .iter()
            .find(|r| r.name == p.name && r.expect == expect);
        match r {
            Some(r) => report.push(p.name, p.layer(), r.expectation(), r.verdict(), r.detail()),
            None => {
                let wanted = ProbeResult {
                    name: p.name.to_string(),
                    expect,
                    observed: Observed::Code(0),
                };
                report.push(
                    p.name,
                    p.layer(),
                    wanted.expectation(),
                    Verdict::Failed,
                    "the sandboxed child did not run it",
                );
            }
        }
    }
    if !output.status.success() {
        report.push(
            "child_exit",
            "sandbox",
            "the sandboxed child exits 0",
            Verdict::Failed,
            format!("the sandboxed child exited with {}", output.status),
        );
    }
    let (verdict, line) = match i386_verdict(&i386) {
        (Some(true), line) => (Verdict::Passed, line),
        (Some(false), line) => (Verdict::Failed, line),
        (None, line) => (Verdict::Skipped, line),
    };
    report.push(
        "i386_syscall",
        "seccomp",
        "killed by the filter's architecture check",
        verdict,
        line,
    );
    if report.count(Verdict::Failed) > 0 {
        report.child_stderr = output.stderr.lines().take(20).map(str::to_string).collect();
    }
    Ok(report)
}

/// Whether the i386 child was killed by the filter (`Some(true)`), got through (`Some(false)`)
/// or could not try (`None`), with the line to print.
pub fn i386_verdict(run: &ChildRun) -> (Option<bool>, String) {
    use std::os::unix::process::ExitStatusExt;
    if run.status.signal() == Some(libc::SIGSYS) {
        return (
            Some(true),
            "killed by SIGSYS (the filter checks the architecture)".into(),
        );
    }
    if let Some(rest) = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("i386 skip "))
    {
        return (None, rest.to_string());
    }
    if let Some(rest) = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("i386 returned "))
    {
        return (
            Some(false),
            format!("int 0x80 getpid returned {rest}; the 32-bit entry point is open"),
        );
    }
    (
        Some(false),
        format!("the child ended with {} without reporting", run.status),
    )
}

/// The child side: enter the sandbox with the identical [`confine`] the server uses, on the
/// root the parent passed, stop at the [`checkpoint`], then run [`run_probes`] and print wire
/// lines. Returns the exit code. This only ever adds restrictions to the
/// process and never serves requests.
pub fn child(mode: SandboxMode) -> i32 {
    let Some(targets) = Targets::from_env() else {
        println!("error the self-test child was started without its targets");
        return 1;
    };
    // The parent validated the roots already (including the `/` refusal).
    let roots = match Roots::new(&targets.roots(), true) {
        Ok(roots) => roots,
        Err(e) => {
            println!("error {e}");
            return 1;
        }
    };
    let status = match confine(&roots, mode) {
        Ok(status) => status,
        Err(e) => {
            println!("error {}", e.to_string().replace('\n', " "));
            return 1;
        }
    };
    if std::env::var_os(I386_ONLY).is_some() {
        i386_probe();
        return 0;
    }
    checkpoint();
    if status.fully_enforced() {
        println!("enforced true");
    } else {
        println!(
            "enforced false (ruleset {}, mode {}; not enforced: {})",
            status.ruleset,
            status.mode,
            status.not_enforced.join("; ")
        );
    }
    for r in run_probes(&targets, Layers::ALL) {
        println!("{}", r.to_wire());
    }
    let _ = io::stdout().flush();
    0
}

/// Print [`CONFINED`] and wait for the parent's line on stdin (it reads `/proc/PID/status`
/// first). Returns at once when stdin is closed or not a pipe.
pub fn checkpoint() {
    println!("{CONFINED}");
    let _ = io::stdout().flush();
    let _ = io::stdin().read_line(&mut String::new());
}

/// Make one i386 system call and print what came back (if this process survives it).
pub fn i386_probe() {
    #[cfg(target_arch = "x86_64")]
    {
        let _ = io::stdout().flush();
        let got = sys::i386_getpid();
        println!("i386 returned {got}");
    }
    #[cfg(not(target_arch = "x86_64"))]
    println!("i386 skip this architecture has no i386 entry point");
    let _ = io::stdout().flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_lines_round_trip() {
        for r in [
            ProbeResult {
                name: "read_outside".into(),
                expect: Expect::Denied(libc::EACCES),
                observed: Observed::Code(0),
            },
            ProbeResult {
                name: "read_inside".into(),
                expect: Expect::Allowed,
                observed: Observed::Skipped("no file here".into()),
            },
        ] {
            assert_eq!(ProbeResult::from_wire(&r.to_wire()), Some(r));
        }
        assert_eq!(ProbeResult::from_wire("probe x"), None);
        assert_eq!(ProbeResult::from_wire("enforced true"), None);
    }

    #[test]
    fn verdicts() {
        let r = |expect, observed| ProbeResult {
            name: "p".into(),
            expect,
            observed,
        };
        let denied = Expect::Denied(libc::EACCES);
        assert_eq!(r(denied, Observed::Code(libc::EACCES)).passed(), Some(true));
        assert_eq!(r(denied, Observed::Code(0)).passed(), Some(false));
        assert_eq!(r(denied, Observed::Code(libc::EPERM)).passed(), Some(false));
        assert_eq!(r(Expect::Allowed, Observed::Code(0)).passed(), Some(true));
        assert_eq!(
            r(Expect::Allowed, Observed::Skipped("x".into())).passed(),
            None
        );
        let text = r(denied, Observed::Code(0)).to_string();
        assert!(
            text.starts_with("UNEXPECTED p: succeeded, expected EACCES"),
            "{text}"
        );
    }

    #[test]
    fn targets_round_trip_through_the_environment() {
        use std::os::unix::ffi::OsStringExt;
        let t = Targets {
            root: "/r".into(),
            // A root whose name is not UTF-8 crosses too.
            other_roots: vec![
                std::ffi::OsString::from_vec(b"/q\xff".to_vec()).into(),
                "/p".into(),
            ],
            other_inside_file: Some("/q/f".into()),
            above_roots: Some("/".into()),
            inside_file: Some("/r/f".into()),
            inside_writable: true,
            root_writable: false,
            outside_dir: Some("/o".into()),
            outside_file: Some("/o/f".into()),
            tcp_port: Some(4242),
            abstract_socket: Some("abs".into()),
            signal_pid: Some(7),
            udp_port: Some(53),
            unix_socket: Some("/o/s".into()),
            victim_pid: Some(8),
            victim_addr: Some(4096),
            scratch_name: ".s".into(),
        };
        let env = t.to_env();
        let back = Targets::from_vars(|k| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()));
        assert_eq!(back, Some(t));
        assert_eq!(Targets::from_vars(|_| None), None);
        assert_eq!(env.len(), 1, "one variable carries them");
    }

    #[test]
    fn above_the_roots_is_under_none_of_them() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(above(&[p("/w/a"), p("/w/b")]), Some(p("/w")));
        assert_eq!(above(&[p("/w/a"), p("/w/a/b")]), Some(p("/w")));
        assert_eq!(above(&[p("/w/a/x"), p("/v/b")]), Some(p("/")));
        assert_eq!(above(&[p("/w/a")]), Some(p("/w")));
        assert_eq!(above(&[p("/")]), None);
    }

    #[test]
    fn outside_scratch_is_not_under_the_root() {
        let tmp = std::env::temp_dir();
        let root = fs::canonicalize(&tmp).unwrap_or(tmp);
        let (dir, file) = outside_scratch(
            std::slice::from_ref(&root),
            &format!("unit-{}", std::process::id()),
        );
        let dir = dir.expect("/dev/shm, /var/tmp or / is writable on a test machine");
        assert!(!dir.starts_with(&root), "{dir:?} is under {root:?}");
        assert_eq!(
            fs::read_to_string(file.expect("file")).ok().as_deref(),
            Some(OUTSIDE_MARKER)
        );
        fs::remove_dir_all(&dir).ok();
    }
}
