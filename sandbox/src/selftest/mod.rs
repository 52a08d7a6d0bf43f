//! The sandbox probes: raw system calls that bypass every userspace check, run inside the
//! sandbox to prove what the kernel itself enforces. `gnaw-mcp --self-test`, the crate's
//! real-Landlock test (`tests/landlock.rs`) and its layer-by-layer test (`tests/layers.rs`) run
//! this same list ([`PROBES`]).
//!
//! Each [`Probe`] says which layer stops it, and with which errno: Landlock (files, TCP, abstract
//! sockets, signals, ptrace), the capability drop, or the seccomp filter (everything Landlock
//! does not see: UDP, UNIX pathname, raw, packet, netlink and MPTCP sockets, TCP fast open,
//! io_uring, memfd + execveat, namespaces, bpf, perf, keyrings, fanotify, x32 calls). So the
//! expected result under any set of [`Layers`](crate::Layers) follows from the table, and the
//! layer test proves both directions: each probe is stopped with its layer and succeeds without
//! it.
//!
//! The parent side ([`run`]) prepares targets while still unconfined ([`Prepared`]): a scratch
//! directory and file *outside* the root, TCP, UDP, abstract and pathname UNIX listeners to
//! reach, its own pid to signal, a forked victim process to trace and read, and an existing
//! readable file *inside* the root for the positive control. With several roots it also finds a
//! readable file in the second root (`read_other_root`, which runs only then), and every probe
//! aims outside *all* roots; `list_above_roots` lists the nearest directory above every root and
//! under none (between sibling roots, or above nested ones). It re-executes the binary as a
//! child, which enters the sandbox through the same [`confine`](crate::confine()) the server
//! uses ([`child`]), runs [`run_probes`] and prints one wire line per probe, then waits while the
//! parent reads its capability sets from `/proc/PID/status`. The parent checks every expected
//! probe answered; a missing one counts as failed, so a crashed child never passes. A second
//! child makes one i386 (`int 0x80`) system call and must be killed by the filter's architecture
//! check. In the HTTP mode (`--self-test` with a tenants file) one more child per tenant is
//! handed that tenant's roots as the spawner hands them to its worker, adopts them, confines
//! itself, and must not reach another tenant's root (`read_other_tenant`, `list_other_tenant`).
//!
//! The probes never damage the root, even on a host where the sandbox does not hold: writes open
//! an existing file for writing without writing to it, `truncate` keeps the current length,
//! `rename` moves a file onto itself, and anything a create probe manages to make (a file,
//! directory, link or FIFO under a unique `.gnaw-self-test-*` name) is removed at once. Only
//! such an unexpected success touches the root at all, and it is reported as `UNEXPECTED`.
//!
//! | module | job |
//! | --- | --- |
//! | [`probes`] | the probe table and running it in this process |
//! | [`targets`] | what the probes aim at, prepared unconfined and carried to the child |
//! | [`outcome`] | a probe's expectation and result, as a wire line and in words |
//! | [`runner`] | the parent's run and checks, the child's confinement and checkpoint |

pub mod outcome;
pub mod probes;
pub mod runner;
pub mod targets;

pub use outcome::{Expect, Observed, ProbeResult};
pub use probes::{PROBES, Probe, find_probe, run_probes};
pub use runner::{
    CONFINED, ChildRun, Summary, TenantRun, checkpoint, child, i386_probe, i386_verdict, run,
    run_child,
};
pub use targets::{OUTSIDE_MARKER, OtherTenant, Prepared, Targets, VICTIM_MARKER};
