//! Raw system calls for the attacks Landlock (ABI 7) does not cover, one function each, used
//! by the probes of [`crate::selftest`]. Each returns `Ok(())` when the attack *worked* (the
//! socket was created and reached its target, the binary ran, the namespace was entered, ...)
//! and the errno of the first step that failed otherwise.
//!
//! They are written to leave nothing behind even when they succeed: every descriptor is closed,
//! a bind mount is detached at once, a ptrace attachment is detached, the forked children exit
//! at once and are reaped. Targets are on this machine only (127.0.0.1, a socket or process the
//! self-test parent made). [`unshare_newuser`] moves the calling process into a new user
//! namespace when it succeeds, so it must be the last kernel probe a process runs.

use std::ffi::CStr;
use std::io::{self, Write};
use std::net::UdpSocket;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::Path;

/// The result of a raw call: the value, or the errno.
fn check(rc: libc::c_long) -> io::Result<libc::c_long> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// Take ownership of the descriptor a successful raw call returned.
#[allow(unsafe_code)]
fn owned(rc: libc::c_long) -> io::Result<OwnedFd> {
    let fd = check(rc)?;
    let fd = i32::try_from(fd).map_err(|_| io::Error::from_raw_os_error(libc::EBADF))?;
    // SAFETY: `fd` was just returned by the kernel as a new descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `socket(domain, kind, protocol)` with close-on-exec.
#[allow(unsafe_code)]
fn socket(domain: i32, kind: i32, protocol: i32) -> io::Result<OwnedFd> {
    // SAFETY: socket takes integers only and returns a new descriptor or -1.
    let rc = unsafe { libc::socket(domain, kind | libc::SOCK_CLOEXEC, protocol) };
    owned(rc.into())
}

/// `sockaddr_in` for 127.0.0.1:`port`.
fn loopback(port: u16) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes([127, 0, 0, 1]),
        },
        sin_zero: [0; 8],
    }
}

const SOCKADDR_IN_LEN: libc::socklen_t = std::mem::size_of::<libc::sockaddr_in>() as _;

/// A UDP datagram to 127.0.0.1:`port` (Landlock ABI 7 handles TCP only).
pub fn udp_sendto(port: u16) -> io::Result<()> {
    let socket = UdpSocket::bind(("127.0.0.1", 0))?;
    socket.send_to(b"gnaw-self-test", ("127.0.0.1", port))?;
    Ok(())
}

/// Connect to the pathname UNIX socket at `path` (Landlock ABI 7 does not govern it).
pub fn unix_pathname_connect(path: &Path) -> io::Result<()> {
    UnixStream::connect(path).map(drop)
}

/// A raw IPv4 ICMP socket (needs `CAP_NET_RAW`).
pub fn raw_socket() -> io::Result<()> {
    socket(libc::AF_INET, libc::SOCK_RAW, libc::IPPROTO_ICMP).map(drop)
}

/// A packet socket seeing every protocol (needs `CAP_NET_RAW`).
pub fn packet_socket() -> io::Result<()> {
    socket(
        libc::AF_PACKET,
        libc::SOCK_RAW,
        i32::from((libc::ETH_P_ALL as u16).to_be()),
    )
    .map(drop)
}

/// A routing netlink socket (no capability needed to open one).
pub fn netlink_socket() -> io::Result<()> {
    socket(libc::AF_NETLINK, libc::SOCK_RAW, libc::NETLINK_ROUTE).map(drop)
}

/// An MPTCP connection to 127.0.0.1:`port`.
#[allow(unsafe_code)]
pub fn mptcp_connect(port: u16) -> io::Result<()> {
    const IPPROTO_MPTCP: i32 = 262;
    let fd = socket(libc::AF_INET, libc::SOCK_STREAM, IPPROTO_MPTCP)?;
    let addr = loopback(port);
    // SAFETY: `addr` is a live sockaddr_in and the length is its size.
    let rc = unsafe { libc::connect(fd.as_raw_fd(), (&raw const addr).cast(), SOCKADDR_IN_LEN) };
    check(rc.into()).map(drop)
}

/// TCP fast open: `sendto(MSG_FASTOPEN)` connects and sends in one call, to 127.0.0.1:`port`.
#[allow(unsafe_code)]
pub fn tcp_fastopen_sendto(port: u16) -> io::Result<()> {
    let fd = socket(libc::AF_INET, libc::SOCK_STREAM, 0)?;
    let addr = loopback(port);
    let data = b"gnaw-self-test";
    // SAFETY: `data` and `addr` are live for the call; the lengths are theirs.
    let rc = unsafe {
        libc::sendto(
            fd.as_raw_fd(),
            data.as_ptr().cast(),
            data.len(),
            libc::MSG_FASTOPEN,
            (&raw const addr).cast(),
            SOCKADDR_IN_LEN,
        )
    };
    check(rc as libc::c_long).map(drop)
}

/// An io_uring instance with one entry.
#[allow(unsafe_code)]
pub fn io_uring_setup() -> io::Result<()> {
    // struct io_uring_params is 120 bytes; all zero asks for the defaults.
    let mut params = [0u32; 30];
    // SAFETY: the kernel writes at most sizeof(struct io_uring_params) = 120 bytes into
    // `params`, which is that large and writable.
    let rc = unsafe { libc::syscall(libc::SYS_io_uring_setup, 1u32, params.as_mut_ptr()) };
    owned(rc).map(drop)
}

/// The smallest static ELF executable for this architecture: it exits with status 42.
fn tiny_static_elf() -> Option<Vec<u8>> {
    #[cfg(target_arch = "x86_64")]
    let (machine, code): (u16, &[u8]) = (
        62,
        // mov edi, 42; mov eax, 60 (exit); syscall
        &[0xbf, 0x2a, 0, 0, 0, 0xb8, 0x3c, 0, 0, 0, 0x0f, 0x05],
    );
    #[cfg(target_arch = "aarch64")]
    let (machine, code): (u16, &[u8]) = (
        183,
        // mov x0, #42; mov x8, #93 (exit); svc #0
        &[
            0x40, 0x05, 0x80, 0xd2, 0xa8, 0x0b, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4,
        ],
    );
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    return None;
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        const BASE: u64 = 0x40_0000;
        const HEADERS: u64 = 64 + 56;
        let total = HEADERS + code.len() as u64;
        let mut elf = Vec::with_capacity(total as usize);
        elf.extend_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        elf.extend_from_slice(&2u16.to_le_bytes()); // ET_EXEC
        elf.extend_from_slice(&machine.to_le_bytes());
        elf.extend_from_slice(&1u32.to_le_bytes()); // EV_CURRENT
        elf.extend_from_slice(&(BASE + HEADERS).to_le_bytes()); // entry
        elf.extend_from_slice(&64u64.to_le_bytes()); // program headers offset
        elf.extend_from_slice(&0u64.to_le_bytes()); // no section headers
        elf.extend_from_slice(&0u32.to_le_bytes()); // flags
        for half in [64u16, 56, 1, 0, 0, 0] {
            // ehsize, phentsize, phnum, shentsize, shnum, shstrndx
            elf.extend_from_slice(&half.to_le_bytes());
        }
        elf.extend_from_slice(&1u32.to_le_bytes()); // PT_LOAD
        elf.extend_from_slice(&5u32.to_le_bytes()); // R + X
        for word in [0, BASE, BASE, total, total, 0x1000] {
            // offset, vaddr, paddr, filesz, memsz, align
            elf.extend_from_slice(&word.to_le_bytes());
        }
        elf.extend_from_slice(code);
        Some(elf)
    }
}

/// Copy a static executable into a `memfd_create` file and run it with `execveat(AT_EMPTY_PATH)`
/// in a forked child: no path, so Landlock's execute right never applies. `Ok` when it ran (its
/// exit status is 42).
#[allow(unsafe_code)]
pub fn memfd_exec() -> io::Result<()> {
    let elf = tiny_static_elf().ok_or_else(|| io::Error::from_raw_os_error(libc::ENOEXEC))?;
    // SAFETY: the name is a NUL-terminated string; memfd_create returns a new fd or -1.
    let rc = unsafe { libc::memfd_create(c"gnaw-self-test".as_ptr(), libc::MFD_CLOEXEC) };
    let fd = owned(rc.into())?;
    let mut file = std::fs::File::from(fd);
    file.write_all(&elf)?;
    let argv: [*const libc::c_char; 2] = [c"gnaw-self-test".as_ptr(), std::ptr::null()];
    let envp: [*const libc::c_char; 1] = [std::ptr::null()];
    let empty: &CStr = c"";
    // SAFETY: the child calls only execveat and _exit, both async-signal-safe, on memory that
    // the fork copied (argv, envp, the path); the parent only waits for it.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: see above; execveat only returns on failure, and _exit never returns.
        unsafe {
            libc::syscall(
                libc::SYS_execveat,
                file.as_raw_fd(),
                empty.as_ptr(),
                argv.as_ptr(),
                envp.as_ptr(),
                libc::AT_EMPTY_PATH,
            );
            libc::_exit(*libc::__errno_location() & 0x7f);
        }
    }
    match wait_exit_code(pid)? {
        42 => Ok(()),
        0 => Err(io::Error::other("the executable exited 0 instead of 42")),
        errno => Err(io::Error::from_raw_os_error(errno)),
    }
}

/// Wait for child `pid`; its exit code, or an error if a signal ended it.
#[allow(unsafe_code)]
fn wait_exit_code(pid: libc::pid_t) -> io::Result<i32> {
    let mut status = 0;
    loop {
        // SAFETY: `status` is a live int; waitpid writes only there.
        let rc = unsafe { libc::waitpid(pid, &raw mut status, libc::__WALL) };
        if rc >= 0 {
            break;
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
    if libc::WIFEXITED(status) {
        Ok(libc::WEXITSTATUS(status))
    } else {
        Err(io::Error::other(format!(
            "the child was ended by signal {}",
            libc::WTERMSIG(status)
        )))
    }
}

/// A one-element BPF array map (needs `CAP_BPF` while unprivileged bpf is disabled).
#[allow(unsafe_code)]
pub fn bpf_map_create() -> io::Result<()> {
    // union bpf_attr, BPF_MAP_CREATE part: map_type, key_size, value_size, max_entries; the
    // rest zero.
    let mut attr = [0u32; 32];
    attr[..4].copy_from_slice(&[2 /* BPF_MAP_TYPE_ARRAY */, 4, 4, 1]);
    // SAFETY: the kernel reads `size` bytes of `attr` (all of it, 128 bytes, live).
    let rc = unsafe {
        libc::syscall(
            libc::SYS_bpf,
            0, /* BPF_MAP_CREATE */
            attr.as_ptr(),
            std::mem::size_of_val(&attr),
        )
    };
    owned(rc).map(drop)
}

/// A software CPU clock counter on this process, user space only (what
/// `perf_event_paranoid` 2 still allows without a capability).
#[allow(unsafe_code)]
pub fn perf_event_open() -> io::Result<()> {
    // struct perf_event_attr, 128 bytes: type PERF_TYPE_SOFTWARE (1) and size in the first
    // word, config PERF_COUNT_SW_CPU_CLOCK (0), flags disabled | exclude_kernel | exclude_hv.
    let mut attr = [0u64; 16];
    attr[0] = 1 | (128 << 32);
    attr[5] = 1 | (1 << 5) | (1 << 6);
    // SAFETY: the kernel reads attr.size = 128 bytes of `attr`, which is that large and live.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            attr.as_ptr(),
            0,  // this process
            -1, // any CPU
            -1, // no group
            8,  // PERF_FLAG_FD_CLOEXEC
        )
    };
    owned(rc).map(drop)
}

/// Look up this user's keyring (`keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING)`).
#[allow(unsafe_code)]
pub fn keyctl() -> io::Result<()> {
    // SAFETY: integer arguments only.
    let rc = unsafe { libc::syscall(libc::SYS_keyctl, 0, -4, 0) };
    check(rc).map(drop)
}

/// A fanotify group (needs `CAP_SYS_ADMIN` for this class).
#[allow(unsafe_code)]
pub fn fanotify_init() -> io::Result<()> {
    // SAFETY: integer arguments only; returns a new fd or -1.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_fanotify_init,
            libc::FAN_CLASS_NOTIF | libc::FAN_CLOEXEC,
            libc::O_RDONLY,
        )
    };
    owned(rc).map(drop)
}

/// Attach to process `pid` with `PTRACE_SEIZE`, then stop and detach it again.
#[allow(unsafe_code)]
pub fn ptrace_seize(pid: i32) -> io::Result<()> {
    let null = std::ptr::null_mut::<libc::c_void>();
    // SAFETY: PTRACE_SEIZE with NULL addr and data reads or writes no memory of this process.
    let rc = unsafe { libc::ptrace(libc::PTRACE_SEIZE, pid, null, null) };
    check(rc).map(drop)?;
    // Leave the tracee as it was: stop it, wait for the stop, detach.
    // SAFETY: as above, integer arguments only.
    if unsafe { libc::ptrace(libc::PTRACE_INTERRUPT, pid, null, null) } == 0 {
        let mut status = 0;
        // SAFETY: `status` is a live int.
        unsafe { libc::waitpid(pid, &raw mut status, libc::__WALL) };
        // SAFETY: as above.
        unsafe { libc::ptrace(libc::PTRACE_DETACH, pid, null, null) };
    }
    Ok(())
}

/// Read `expected.len()` bytes at `addr` in process `pid`; `Ok` when they are `expected`.
#[allow(unsafe_code)]
pub fn process_vm_readv(pid: i32, addr: usize, expected: &[u8]) -> io::Result<()> {
    let mut buf = vec![0u8; expected.len()];
    let local = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let remote = libc::iovec {
        iov_base: addr as *mut libc::c_void,
        iov_len: expected.len(),
    };
    // SAFETY: the kernel writes at most `buf.len()` bytes into `buf` (live, writable) and reads
    // only the other process's memory.
    let n = unsafe { libc::process_vm_readv(pid, &raw const local, 1, &raw const remote, 1, 0) };
    let n = check(n as libc::c_long)?;
    if usize::try_from(n).ok() == Some(expected.len()) && buf == expected {
        Ok(())
    } else {
        Err(io::Error::other("read other bytes than the target holds"))
    }
}

/// Bind-mount `dir` onto itself, and detach it again at once when that worked.
#[allow(unsafe_code)]
pub fn mount_bind(dir: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: both paths are the same NUL-terminated string; fstype and data may be NULL for a
    // bind mount.
    let rc = unsafe {
        libc::mount(
            path.as_ptr(),
            path.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND,
            std::ptr::null(),
        )
    };
    check(rc.into())?;
    // SAFETY: a NUL-terminated path and a flag.
    unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH) };
    Ok(())
}

/// Enter a network namespace through a pidfd (this process's own: no change, but the same
/// permission checks as any other).
#[allow(unsafe_code)]
pub fn setns_net() -> io::Result<()> {
    // SAFETY: integer arguments only; returns a new fd or -1.
    let rc = unsafe { libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0) };
    let pidfd = owned(rc)?;
    // SAFETY: integer arguments only.
    let rc = unsafe { libc::setns(pidfd.as_raw_fd(), libc::CLONE_NEWNET) };
    check(rc.into()).map(drop)
}

/// `getpid` through the x32 system call table (number with bit 0x40000000). `ENOSYS` when the
/// kernel has no x32 support (then there is nothing to refuse).
#[allow(unsafe_code)]
pub fn x32_getpid() -> io::Result<()> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: getpid takes no argument and touches no memory.
        let rc = unsafe { libc::syscall(0x4000_0000 | libc::SYS_getpid) };
        check(rc).map(drop)
    }
    #[cfg(not(target_arch = "x86_64"))]
    Err(io::Error::from_raw_os_error(libc::ENOSYS))
}

/// `getpid` through the i386 entry point (`int 0x80`, number 20). A seccomp filter for x86_64
/// kills the process here. Returns what the call returned.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub fn i386_getpid() -> i64 {
    let mut rax: i64 = 20;
    // SAFETY: i386 getpid reads no register but eax and touches no memory; the kernel may
    // clobber r8-r11, declared as outputs.
    unsafe {
        std::arch::asm!(
            "int 0x80",
            inout("rax") rax,
            lateout("r8") _,
            lateout("r9") _,
            lateout("r10") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    rax
}

/// A process in a new user namespace, made with raw `clone(CLONE_NEWUSER)`; it exits at once.
#[allow(unsafe_code)]
pub fn clone_newuser() -> io::Result<()> {
    // SAFETY: without CLONE_VM this is a fork: the child gets a copy of the memory and only
    // calls _exit, which is async-signal-safe; the parent waits for it.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone,
            libc::CLONE_NEWUSER | libc::SIGCHLD,
            0,
            0,
            0,
            0,
        )
    };
    let pid = check(pid)?;
    if pid == 0 {
        // SAFETY: see above.
        unsafe { libc::_exit(0) };
    }
    match wait_exit_code(pid as libc::pid_t)? {
        0 => Ok(()),
        code => Err(io::Error::other(format!("the child exited {code}"))),
    }
}

/// Move this process into a new user namespace. Must be the last kernel probe it runs.
#[allow(unsafe_code)]
pub fn unshare_newuser() -> io::Result<()> {
    // SAFETY: integer argument only.
    let rc = unsafe { libc::unshare(libc::CLONE_NEWUSER) };
    check(rc.into()).map(drop)
}

/// `clone3` with a zero-sized argument: `EINVAL` from the kernel (nothing is created), `ENOSYS`
/// from the filter (so that glibc falls back to `clone`).
#[allow(unsafe_code)]
pub fn clone3_empty() -> io::Result<()> {
    // SAFETY: with size 0 the kernel reads no memory and creates nothing.
    let rc = unsafe { libc::syscall(libc::SYS_clone3, std::ptr::null::<u8>(), 0usize) };
    check(rc).map(drop)
}

/// Plain threads still work: a spawned and a scoped thread both run and join.
pub fn threads() -> io::Result<()> {
    let spawned = std::thread::Builder::new()
        .name("gnaw-self-test".into())
        .spawn(|| 20)?
        .join()
        .map_err(|_| io::Error::other("the spawned thread panicked"))?;
    let scoped = std::thread::scope(|s| s.spawn(|| 22).join())
        .map_err(|_| io::Error::other("the scoped thread panicked"))?;
    if spawned + scoped == 42 {
        Ok(())
    } else {
        Err(io::Error::other("threads returned wrong values"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tiny_elf_runs_unconfined() {
        // This test process is not sandboxed: the executable must run and exit 42.
        if tiny_static_elf().is_some() {
            memfd_exec().expect("memfd exec of the tiny ELF");
        }
    }

    #[test]
    fn threads_work_unconfined() {
        threads().expect("threads");
    }
}
