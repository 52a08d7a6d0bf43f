//! Capabilities: read this process's five capability sets and drop them all.
//!
//! gnaw-mcp needs no capability: it reads files beneath its root, which Landlock and the file
//! permissions already allow. Started as root it would otherwise keep every one of them
//! (`CAP_SYS_ADMIN`, `CAP_NET_RAW`, `CAP_DAC_OVERRIDE`, ...), and a compromised server could use
//! them against whatever Landlock does not cover (raw sockets, mounts, `setns`, bpf).
//!
//! [`drop_all`] runs after Landlock and before the seccomp filter (whose allow-list has no
//! `capset` or `prctl(PR_CAPBSET_DROP)`). The order inside matters: the bounding set and the
//! securebits need `CAP_SETPCAP`, so they go first; then the ambient set is cleared; then
//! `capset` empties the effective, permitted and inheritable sets, which gives up `CAP_SETPCAP`
//! too. A process that holds nothing (a normal user) gets a no-op that says so; its bounding
//! set, which it cannot drop without `CAP_SETPCAP`, is harmless once `no_new_privs` is set
//! (nothing can raise a capability from it again).
//!
//! Every set is read with system calls (`capget`, `PR_CAPBSET_READ`, `PR_CAP_AMBIENT_IS_SET`,
//! `PR_GET_SECUREBITS`), never from `/proc/self/status`, which Landlock hides after
//! confinement.

use std::io;

use serde::Serialize;

/// The five capability sets and the securebits of this process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CapSets {
    pub effective: u64,
    pub permitted: u64,
    pub inheritable: u64,
    pub bounding: u64,
    pub ambient: u64,
    pub securebits: u32,
}

/// [`CapSets`] as the hex strings `/proc/PID/status` uses (`CapEff` and so on).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CapSetsHex {
    #[serde(rename = "CapEff")]
    pub effective: String,
    #[serde(rename = "CapPrm")]
    pub permitted: String,
    #[serde(rename = "CapInh")]
    pub inheritable: String,
    #[serde(rename = "CapBnd")]
    pub bounding: String,
    #[serde(rename = "CapAmb")]
    pub ambient: String,
    pub securebits: String,
}

impl CapSets {
    /// This process's sets, read with system calls.
    pub fn current() -> io::Result<CapSets> {
        let (effective, permitted, inheritable) = capget()?;
        let mut bounding = 0u64;
        let mut ambient = 0u64;
        for cap in 0..64u32 {
            match prctl2(libc::PR_CAPBSET_READ, cap.into()) {
                Ok(1) => bounding |= 1 << cap,
                Ok(_) => {}
                // EINVAL: past the kernel's last capability.
                Err(_) => break,
            }
            if let Ok(1) = prctl3(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_IS_SET as u64,
                cap.into(),
            ) {
                ambient |= 1 << cap;
            }
        }
        let securebits = prctl2(libc::PR_GET_SECUREBITS, 0).unwrap_or(0);
        Ok(CapSets {
            effective,
            permitted,
            inheritable,
            bounding,
            ambient,
            securebits: u32::try_from(securebits).unwrap_or(0),
        })
    }

    /// The sets of another process, parsed from its `/proc/PID/status` text (securebits are not
    /// listed there and read as 0).
    pub fn from_proc_status(status: &str) -> Option<CapSets> {
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        };
        Some(CapSets {
            effective: field("CapEff:")?,
            permitted: field("CapPrm:")?,
            inheritable: field("CapInh:")?,
            bounding: field("CapBnd:")?,
            ambient: field("CapAmb:")?,
            securebits: 0,
        })
    }

    /// No effective, permitted, inheritable or ambient capability (the bounding set aside).
    pub fn holds_none(&self) -> bool {
        self.effective == 0 && self.permitted == 0 && self.inheritable == 0 && self.ambient == 0
    }

    /// The sets as 16-digit hex strings.
    pub fn hex(&self) -> CapSetsHex {
        let h = |v: u64| format!("{v:016x}");
        CapSetsHex {
            effective: h(self.effective),
            permitted: h(self.permitted),
            inheritable: h(self.inheritable),
            bounding: h(self.bounding),
            ambient: h(self.ambient),
            securebits: format!("{:#x}", self.securebits),
        }
    }

    fn has_effective(&self, cap: u32) -> bool {
        self.effective & (1 << cap) != 0
    }
}

/// What [`drop_all`] did, for `--sandbox-status`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CapStatus {
    /// `dropped`, `none_held` (nothing to drop), `not_applied` (a probe, or the sandbox is
    /// off) or `failed`.
    pub state: &'static str,
    /// Sets before the drop (`null` when they could not be read).
    pub before: Option<CapSetsHex>,
    /// Sets after the drop (`null` when not applied or unreadable).
    pub after: Option<CapSetsHex>,
    /// Anything a person should know: a kept bounding set, a failure.
    pub notes: Vec<String>,
}

impl CapStatus {
    /// The status before anything is dropped.
    pub fn not_applied() -> CapStatus {
        CapStatus {
            state: "not_applied",
            before: CapSets::current().ok().map(|c| c.hex()),
            after: None,
            notes: Vec::new(),
        }
    }

    /// No effective, permitted, inheritable or ambient capability is left.
    pub fn holds_none(&self) -> bool {
        matches!(self.state, "dropped" | "none_held")
    }
}

/// The securebits locked on by [`drop_all`] when it can: `NOROOT`, `NO_SETUID_FIXUP`,
/// `NO_CAP_AMBIENT_RAISE` and all their locks, plus `KEEP_CAPS_LOCKED` (with `KEEP_CAPS` off).
/// uid 0 then never regains capabilities, whatever is executed.
const SECUREBITS: u32 = 0b1110_1111;

/// `CAP_SETPCAP` (linux/capability.h): needed to drop from the bounding set.
const CAP_SETPCAP: u32 = 8;

/// Drop every capability of this process (see the module documentation). Returns the status
/// whether or not it succeeded; `state` is `failed` and `notes` say why when a set is left.
pub fn drop_all() -> CapStatus {
    let before = match CapSets::current() {
        Ok(c) => c,
        Err(e) => {
            return CapStatus {
                state: "failed",
                before: None,
                after: None,
                notes: vec![format!("cannot read the capability sets (capget: {e})")],
            };
        }
    };
    let mut notes = Vec::new();
    if before.holds_none() {
        if before.bounding != 0 {
            notes.push(
                "no capability held; the bounding set is kept (dropping it needs CAP_SETPCAP) \
                 and is harmless under no_new_privs"
                    .into(),
            );
        }
        return CapStatus {
            state: "none_held",
            before: Some(before.hex()),
            after: Some(before.hex()),
            notes,
        };
    }

    if before.has_effective(CAP_SETPCAP) {
        if let Err(e) = prctl2(libc::PR_SET_SECUREBITS, SECUREBITS.into()) {
            notes.push(format!("locking the securebits failed: {e}"));
        }
        for cap in 0..64u32 {
            if before.bounding & (1 << cap) != 0
                && let Err(e) = prctl2(libc::PR_CAPBSET_DROP, cap.into())
            {
                notes.push(format!(
                    "dropping capability {cap} from the bounding set: {e}"
                ));
            }
        }
    } else if before.bounding != 0 {
        notes.push(
            "the bounding set is kept (dropping it needs CAP_SETPCAP, which this process lacks); \
             harmless under no_new_privs"
                .into(),
        );
    }
    if let Err(e) = prctl3(
        libc::PR_CAP_AMBIENT,
        libc::PR_CAP_AMBIENT_CLEAR_ALL as u64,
        0,
    ) {
        notes.push(format!("clearing the ambient set failed: {e}"));
    }
    if let Err(e) = capset_empty() {
        notes.push(format!("capset to empty sets failed: {e}"));
    }

    let after = CapSets::current();
    let ok = match &after {
        Ok(a) => a.holds_none() && (a.bounding == 0 || !before.has_effective(CAP_SETPCAP)),
        Err(e) => {
            notes.push(format!(
                "cannot read the capability sets after the drop: {e}"
            ));
            false
        }
    };
    CapStatus {
        state: if ok { "dropped" } else { "failed" },
        before: Some(before.hex()),
        after: after.ok().map(|a| a.hex()),
        notes,
    }
}

/// `struct __user_cap_header_struct`.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

/// `struct __user_cap_data_struct`; version 3 takes two of them (capabilities 0-31, 32-63).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// Effective, permitted and inheritable sets of this process.
#[allow(unsafe_code)]
fn capget() -> io::Result<(u64, u64, u64)> {
    let mut header = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: capget reads the header and writes two `CapData` (the count version 3 requires);
    // both are live, properly laid out (`repr(C)`, the kernel's structs) and writable.
    let rc = unsafe { libc::syscall(libc::SYS_capget, &raw mut header, data.as_mut_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    let join = |lo: u32, hi: u32| u64::from(lo) | (u64::from(hi) << 32);
    Ok((
        join(data[0].effective, data[1].effective),
        join(data[0].permitted, data[1].permitted),
        join(data[0].inheritable, data[1].inheritable),
    ))
}

/// Empty the effective, permitted and inheritable sets of this process.
#[allow(unsafe_code)]
fn capset_empty() -> io::Result<()> {
    let mut header = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let data = [CapData::default(); 2];
    // SAFETY: capset reads the header and two `CapData`, all live and laid out as the kernel
    // expects; the kernel may write the header's version, which is mutable.
    let rc = unsafe { libc::syscall(libc::SYS_capset, &raw mut header, data.as_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `prctl(option, arg)` with the remaining arguments zero; the non-negative result or errno.
#[allow(unsafe_code)]
fn prctl2(option: libc::c_int, arg: u64) -> io::Result<i32> {
    // SAFETY: the options used here (PR_CAPBSET_READ/DROP, PR_GET/SET_SECUREBITS) take integer
    // arguments only and touch no memory of this process.
    let rc = unsafe { libc::prctl(option, arg as libc::c_ulong, 0 as libc::c_ulong, 0, 0) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(rc)
}

/// `prctl(option, a, b)` with the remaining arguments zero.
#[allow(unsafe_code)]
fn prctl3(option: libc::c_int, a: u64, b: u64) -> io::Result<i32> {
    // SAFETY: PR_CAP_AMBIENT (IS_SET, CLEAR_ALL) takes integer arguments only and touches no
    // memory of this process.
    let rc = unsafe {
        libc::prctl(
            option,
            a as libc::c_ulong,
            b as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(rc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_agrees_with_proc_status() {
        let sets = CapSets::current().expect("capget");
        let status = std::fs::read_to_string("/proc/self/status").expect("status");
        let proc = CapSets::from_proc_status(&status).expect("Cap lines");
        assert_eq!(
            CapSets {
                securebits: 0,
                ..sets
            },
            proc
        );
        assert_eq!(sets.hex().effective.len(), 16);
    }
}
