//! Read stage: open one candidate beneath the repo, prove it is the regular file the walk saw,
//! read it with a bound, and decide whether it is text.
//!
//! - The walk's file type decides first: FIFOs, sockets and devices are never opened.
//! - Opens go through [`BeneathDir`], so the kernel refuses any path that leaves the repo, and
//!   are non-blocking; `fstat` on the open file then must show a regular file with the device and
//!   inode the walk saw, which closes the check-then-open race.
//! - At most `max_file_size + 1` bytes are read, whatever `st_size` claims.
//! - A NUL byte, or mostly control bytes, in the first 8 KiB means binary.
//! - Text that is not UTF-8 is decoded lossily (U+FFFD) and marked, never dropped.
//! - A link is followed only through [`open_link`]: the kernel opens the target beneath the repo,
//!   and the sandbox's own resolution ([`Root::contain`], component by component through
//!   directory fds) names it: the target's path relative to the repo, free of links, proven to
//!   be the very file that was opened. The caller checks that path as it would the target's own
//!   (sensitive, hidden, ignored) before reading it with [`read_opened`].

use crate::bounded::{os_message, read_capped};
pub use crate::vocab::Text;
use crate::vocab::{Candidate, EntryKind, SkipReason};
use gnaw_sandbox::{BeneathDir, Rejection, Root};
use std::fs::{File, Metadata};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// How many leading bytes binary detection looks at.
pub const SNIFF_BYTES: usize = 8 << 10;

/// The read stage's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    /// The largest file read, in bytes; larger ones are skipped.
    pub max_file_size: u64,
    /// Follow symbolic links (a target must lie inside the repository).
    pub follow_links: bool,
    /// Skip files with more than one hard link.
    pub skip_hard_links: bool,
}

/// Read one candidate, or say why it is skipped. A link is not followed here, whatever
/// `opts.follow_links` says: its target must be checked first, so it goes through
/// [`open_link`] and [`read_opened`].
pub fn read(dir: &BeneathDir, c: &Candidate, opts: &ReadOptions) -> Result<Text, SkipReason> {
    let rel = Path::new(std::ffi::OsStr::from_bytes(&c.rel));
    let (file, meta) = match c.kind {
        EntryKind::Other(kind) => return Err(SkipReason::NotRegular { kind }),
        EntryKind::Symlink if !opts.follow_links => {
            return Err(SkipReason::Symlink {
                detail: "not followed (pass -L to follow links that stay inside the repository)",
            });
        }
        EntryKind::Symlink => {
            return Err(SkipReason::Symlink {
                detail: "not followed: its target was not checked",
            });
        }
        EntryKind::File => match dir.open_file_expecting(rel, false, c.dev, c.ino) {
            Ok(opened) => opened,
            // O_NOFOLLOW met a link, or the identity changed: something was swapped in.
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(SkipReason::Changed),
            Err(e) if gnaw_sandbox::is_file_changed(&e) => return Err(SkipReason::Changed),
            Err(e) => return Err(unreadable(&e)),
        },
    };
    // The open's own fstat, which proved the identity: no second one.
    read_checked(file, &meta, opts)
}

/// A followed link: the open target, and its path relative to the repo.
#[derive(Debug)]
pub struct Link {
    /// The target, opened.
    pub file: File,
    /// The target's path relative to the repo, `/`-separated, with no link, `.` or `..` in it.
    pub target: Vec<u8>,
}

/// Follow the link at `rel`: the kernel opens the target beneath `dir` (refusing any target
/// outside), then `repo` (the same directory as a [`Root`]) resolves `rel` through directory
/// fds, and the two must agree on the file (device and inode), or the tree changed in between.
pub fn open_link(dir: &BeneathDir, repo: &Root, rel: &[u8]) -> Result<Link, SkipReason> {
    let path = Path::new(std::ffi::OsStr::from_bytes(rel));
    let file = dir.open_file(path, true).map_err(|e| match e.kind() {
        io::ErrorKind::CrossesDevices => SkipReason::Symlink {
            detail: "target is outside the repository",
        },
        io::ErrorKind::NotFound => SkipReason::Symlink {
            detail: "dangling (target does not exist)",
        },
        _ if e.raw_os_error() == Some(libc::ELOOP) => SkipReason::Symlink {
            detail: "too many levels of links (a loop)",
        },
        _ => unreadable(&e),
    })?;
    let meta = file.metadata().map_err(|e| unreadable(&e))?;
    let proof = repo.contain(path.as_os_str()).map_err(|r| match r {
        Rejection::OutsideRoot => SkipReason::Symlink {
            detail: "target is outside the repository",
        },
        Rejection::InvalidPath(_) => SkipReason::Symlink {
            detail: "too many levels of links (a loop)",
        },
        // The kernel found it a moment ago: the tree changed in between (or the repository
        // itself was moved or replaced).
        Rejection::NotFound | Rejection::NotADirectory | Rejection::RootChanged => {
            SkipReason::Changed
        }
    })?;
    if (proof.stat().dev, proof.stat().ino) != (meta.dev(), meta.ino()) {
        return Err(SkipReason::Changed);
    }
    Ok(Link {
        file,
        target: proof.relative().as_os_str().as_bytes().to_vec(),
    })
}

/// Read an opened candidate: it must be a regular file (with one link when the policy skips
/// hard links), read with a bound, and text.
pub fn read_opened(file: File, opts: &ReadOptions) -> Result<Text, SkipReason> {
    let meta = file.metadata().map_err(|e| unreadable(&e))?;
    read_checked(file, &meta, opts)
}

/// [`read_opened`] with the open file's metadata already taken.
fn read_checked(file: File, meta: &Metadata, opts: &ReadOptions) -> Result<Text, SkipReason> {
    let ft = meta.file_type();
    if !ft.is_file() {
        let kind = if ft.is_dir() {
            return Err(SkipReason::Symlink {
                detail: "points to a directory; its files appear under their real path",
            });
        } else if ft.is_fifo() {
            "fifo"
        } else if ft.is_socket() {
            "socket"
        } else if ft.is_char_device() || ft.is_block_device() {
            "device"
        } else {
            "unknown type"
        };
        return Err(SkipReason::NotRegular { kind });
    }
    if opts.skip_hard_links && meta.nlink() > 1 {
        return Err(SkipReason::HardLinked);
    }
    read_bounded(file, meta.size(), opts.max_file_size)
}

fn read_bounded(file: File, st_size: u64, max: u64) -> Result<Text, SkipReason> {
    let buf = read_capped(file, max, st_size)
        .map_err(|e| unreadable(&e))?
        .ok_or(SkipReason::TooLarge { limit: max })?;
    if is_binary(&buf[..buf.len().min(SNIFF_BYTES)]) {
        return Err(SkipReason::Binary);
    }
    let bytes = buf.len() as u64;
    let (text, lossy) = match String::from_utf8(buf) {
        Ok(s) => (s, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    };
    Ok(Text::new(text, bytes, lossy))
}

/// Binary when the sample holds a NUL, or when more than 10% of it is control bytes that text
/// does not use (tab, newline, carriage return, form feed and escape are fine).
pub fn is_binary(sample: &[u8]) -> bool {
    if sample.contains(&0) {
        return true;
    }
    // Counted branch-free in byte lanes, 255 bytes at a time, which the compiler vectorizes.
    let odd: usize = sample
        .chunks(255)
        .map(|chunk| {
            let n: u8 = chunk
                .iter()
                .map(|&b| {
                    let control = b < 0x20;
                    let allowed =
                        (b == b'\t') | (b == b'\n') | (b == b'\r') | (b == 0x0c) | (b == 0x1b);
                    u8::from((control & !allowed) | (b == 0x7f))
                })
                .fold(0u8, u8::wrapping_add);
            usize::from(n)
        })
        .sum();
    odd * 10 > sample.len()
}

fn unreadable(e: &io::Error) -> SkipReason {
    SkipReason::Unreadable {
        error: os_message(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_detection() {
        assert!(is_binary(b"abc\0def"));
        assert!(!is_binary(b"plain text\n\twith tabs\r\n"));
        assert!(!is_binary("ünïcödé".as_bytes()));
        assert!(is_binary(&[1u8, 2, 3, 4, 5, b'a']));
        assert!(!is_binary(b"\x1b[31mred\x1b[0m"));
    }

    #[test]
    fn binary_detection_counts_as_the_plain_definition() {
        let plain = |sample: &[u8]| {
            let odd = sample
                .iter()
                .filter(|&&b| {
                    (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b)) || b == 0x7f
                })
                .count();
            !sample.contains(&0) && odd * 10 > sample.len() || sample.contains(&0)
        };
        // Every byte at densities around the 10% line, over lengths crossing the 255-byte lanes.
        let mut x: u32 = 7;
        for byte in 1..=255u8 {
            for len in [1usize, 9, 10, 11, 254, 255, 256, 511, 8192] {
                for every in [2usize, 9, 10, 11] {
                    let sample: Vec<u8> = (0..len)
                        .map(|i| {
                            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                            if i % every == 0 {
                                byte
                            } else {
                                b'a' + (x >> 16) as u8 % 26
                            }
                        })
                        .collect();
                    assert_eq!(is_binary(&sample), plain(&sample), "{byte} {len} {every}");
                }
            }
        }
    }
}
