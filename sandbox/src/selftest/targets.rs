//! What the probes aim at: [`Targets`], filled in on the unconfined side by [`Prepared`] (a
//! scratch directory and file outside every root, listeners to reach, a victim process to trace,
//! a readable file inside the root) and carried to the child as one environment variable.

use std::fs;
use std::net::{TcpListener, UdpSocket};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use nix::unistd::{AccessFlags, access};

use crate::contain::Root;
use crate::roots::Roots;

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
    /// In a tenant's run of `--listen`'s self-test: another tenant's root, which this
    /// tenant's worker must not reach.
    pub other_tenant: Option<OtherTenant>,
}

/// Another tenant's root, as a tenant's self-test child aims at it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OtherTenant {
    #[serde(with = "path_bytes")]
    pub root: PathBuf,
    /// A regular file in it this user can read (unconfined).
    #[serde(with = "path_bytes")]
    pub file: Option<PathBuf>,
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
    pub(super) fn writable_inside(&self) -> Result<&Path, &'static str> {
        self.inside_if(self.inside_writable, NOT_WRITABLE)
    }

    /// The inside file, when this user could make entries beside it without the sandbox.
    pub(super) fn inside_writable_root(&self) -> Result<&Path, &'static str> {
        self.inside_if(self.root_writable, ROOT_RO)
    }

    /// The name a create probe uses in the root.
    pub(super) fn scratch(&self) -> PathBuf {
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

/// Whether `p` lies under `root`, component-wise.
pub(super) fn under(root: &Path, p: &Path) -> bool {
    p.starts_with(root)
}

/// Why a probe is skipped when what it needs was not prepared.
pub(super) const NO_FILE: &str = "the root holds no regular file this user can read";
pub(super) const NOT_WRITABLE: &str =
    "this user cannot write the chosen file even without the sandbox; nothing to prove";
pub(super) const ROOT_RO: &str =
    "this user cannot create entries in the root even without the sandbox; nothing to prove";
pub(super) const NO_OUTSIDE_FILE: &str = "no place outside the root for a scratch file";
pub(super) const NO_OUTSIDE_DIR: &str = "no place outside the root for a scratch directory";
pub(super) const NO_TCP: &str = "no TCP listener was prepared";
pub(super) const NO_VICTIM: &str = "no victim process was prepared";

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
            other_tenant: None,
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

impl Prepared {
    /// [`Prepared::for_roots`] for one tenant's worker of `--listen`, aiming besides at
    /// `other`, another tenant's root.
    pub fn for_tenant(roots: &Roots, other: &Root) -> Prepared {
        let mut prepared = Prepared::for_roots(roots);
        prepared.targets.other_tenant = Some(OtherTenant {
            root: other.path().to_path_buf(),
            file: find_inside_file(other.path()),
        });
        prepared
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

#[cfg(test)]
mod tests {
    use super::*;

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
            other_tenant: Some(OtherTenant {
                root: "/b".into(),
                file: Some("/b/f".into()),
            }),
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
