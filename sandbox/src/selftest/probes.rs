//! The probe table ([`PROBES`]): each probe's system call and the errno each layer stops it
//! with, and [`run_probes`], which runs them in this process.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::net::{TcpListener, TcpStream};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::{SocketAddr, UnixStream};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::outcome::{Expect, Observed, ProbeResult};
use super::targets::{
    NO_FILE, NO_OUTSIDE_DIR, NO_OUTSIDE_FILE, NO_TCP, NO_VICTIM, ROOT_RO, Targets, VICTIM_MARKER,
    under,
};
use crate::confine::Layers;
use crate::syscall_probes as sys;

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
    /// Only meaningful for a tenant's worker of `--listen` with another tenant beside it
    /// ([`Targets::other_tenant`]); left out otherwise.
    pub other_tenant: bool,
}

impl fmt::Debug for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Probe")
            .field("name", &self.name)
            .field("seccomp", &self.seccomp)
            .field("landlock", &self.landlock)
            .field("capabilities", &self.capabilities)
            .field("several_roots", &self.several_roots)
            .field("other_tenant", &self.other_tenant)
            .finish()
    }
}

impl Probe {
    /// Try it, in this process.
    pub fn run(&self, t: &Targets) -> Observed {
        (self.run)(t)
    }

    /// Whether the probe runs for these targets (one that needs several roots does not run
    /// with one, one about another tenant only in a tenant's run).
    pub fn applies(&self, t: &Targets) -> bool {
        (!self.several_roots || !t.other_roots.is_empty())
            && (!self.other_tenant || t.other_tenant.is_some())
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
        other_tenant: false,
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

/// A probe that only runs in a tenant's worker with another tenant beside it: the kernel
/// alone (the probe opens raw, no containment) must keep the other tenant's root out.
const fn across_tenants(name: &'static str, run: fn(&Targets) -> Observed) -> Probe {
    Probe {
        other_tenant: true,
        ..probe(name, run, None, EACCES, None)
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
    // Another tenant's root, from a tenant's worker: its roots handed over as descriptors and
    // adopted as the spawner hands them, the probe opening raw.
    across_tenants("read_other_tenant", |t| {
        with(
            t.other_tenant.as_ref().and_then(|o| o.file.as_ref()),
            "the other tenant's root holds no regular file this user can read",
            read,
        )
    }),
    across_tenants("list_other_tenant", |t| {
        with(
            t.other_tenant.as_ref().map(|o| &o.root),
            NO_OUTSIDE_DIR,
            list,
        )
    }),
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

/// Run every probe of [`PROBES`] in this process (normally after [`confine`](crate::confine()) or
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
