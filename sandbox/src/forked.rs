//! The helper processes the sandbox forks (the reloader, the tenant spawner, the parse
//! workers' supervisor): forking one while the process is single-threaded and handing it its
//! ends of the sockets, and the messages its parent and it exchange on a `SOCK_SEQPACKET`
//! socket, descriptors included.

#![allow(unsafe_code)]

use std::convert::Infallible;
use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use nix::sys::socket::{
    AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags, SockFlag, SockType, recvmsg,
    sendmsg, socketpair,
};
use nix::unistd::{ForkResult, Pid, fork};

/// `Ok` when the process has one thread; otherwise `refusal` of the number it has (or why it
/// could not be counted).
pub(crate) fn one_thread(refusal: impl FnOnce(usize) -> String) -> Result<(), String> {
    match crate::confine::thread_count() {
        Ok(1) => Ok(()),
        Ok(n) => Err(refusal(n)),
        Err(e) => Err(e),
    }
}

/// A close-on-exec `SOCK_SEQPACKET` pair (message boundaries kept, descriptors passed).
pub(crate) fn seqpacket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    socketpair(
        AddressFamily::Unix,
        SockType::SeqPacket,
        None,
        SockFlag::SOCK_CLOEXEC,
    )
    .map_err(io::Error::from)
}

/// Fork a helper process: checks that the process is single-threaded (`refusal` says what
/// must be, for the error), makes the descriptors (`ends`: the parent's and the child's),
/// forks. The parent drops the child's ends and gets its own; the child drops the parent's and
/// runs `child` with the parent's pid and its ends, never to return (`Infallible`: it
/// exits).
pub(crate) fn fork_helper<Ours, Theirs>(
    refusal: impl FnOnce(usize) -> String,
    ends: impl FnOnce() -> io::Result<(Ours, Theirs)>,
    child: impl FnOnce(Pid, Theirs) -> Infallible,
) -> io::Result<Ours> {
    one_thread(refusal).map_err(io::Error::other)?;
    let (ours, theirs) = ends()?;
    let parent = nix::unistd::getpid();
    // SAFETY: the process is single-threaded (checked above), so the child is a complete copy
    // with no lock held by a thread that does not exist in it.
    match unsafe { fork() }.map_err(io::Error::from)? {
        ForkResult::Parent { .. } => Ok(ours),
        // `child` exits: the compiler knows the value after it is never reached.
        #[allow(unreachable_code)]
        ForkResult::Child => {
            drop(ours);
            match child(parent, theirs) {}
        }
    }
}

/// Send one message on `sock`, with the descriptors `fds` (none when empty).
pub(crate) fn send(sock: &OwnedFd, message: &[u8], fds: &[RawFd]) -> nix::Result<usize> {
    let rights = [ControlMessage::ScmRights(fds)];
    sendmsg::<()>(
        sock.as_raw_fd(),
        &[IoSlice::new(message)],
        if fds.is_empty() { &[] } else { &rights },
        MsgFlags::empty(),
        None,
    )
}

/// Receive one message into `buf`: its length (0 when the other end closed), and the
/// descriptors that came with it, at most what `cmsg` has room for (`nix::cmsg_space!`), each
/// close-on-exec.
pub(crate) fn receive(
    sock: &OwnedFd,
    buf: &mut [u8],
    cmsg: &mut [u8],
) -> nix::Result<(usize, Vec<OwnedFd>)> {
    let mut iov = [IoSliceMut::new(buf)];
    let msg = recvmsg::<()>(
        sock.as_raw_fd(),
        &mut iov,
        Some(cmsg),
        MsgFlags::MSG_CMSG_CLOEXEC,
    )?;
    let mut fds = Vec::new();
    if let Ok(cmsgs) = msg.cmsgs() {
        for c in cmsgs {
            if let ControlMessageOwned::ScmRights(raw) = c {
                // SAFETY: the kernel just installed these descriptors in this process for this
                // message; nothing else owns them.
                fds.extend(
                    raw.into_iter()
                        .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }),
                );
            }
        }
    }
    Ok((msg.bytes, fds))
}

/// Receive one message without descriptors into `buf`: its length (0 when the other end
/// closed).
pub(crate) fn receive_plain(sock: &OwnedFd, buf: &mut [u8]) -> nix::Result<usize> {
    let mut iov = [IoSliceMut::new(buf)];
    recvmsg::<()>(sock.as_raw_fd(), &mut iov, None, MsgFlags::empty()).map(|m| m.bytes)
}

/// A helper's wait for its parent's next request, into `buf`: its length. When the parent is
/// gone (the socket closed or failed) the helper exits; an interrupted wait is waited again.
pub(crate) fn next_request(sock: &OwnedFd, buf: &mut [u8]) -> usize {
    loop {
        match receive_plain(sock, buf) {
            Ok(0) => std::process::exit(0),
            Ok(n) => return n,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => std::process::exit(0),
        }
    }
}
