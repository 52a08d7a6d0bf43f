//! The proof of a call's path arguments inside the repository ([`prove`], a [`Proven`] path),
//! and how an argument is quoted in a message ([`quote`]).
//!
//! Path arguments are spelled as gnaw shows paths ([`crate::vocab::display_path`]): `\\`, `\n`,
//! `\t`, `\r`, `\u{..}` and `\xNN` stand for the bytes they show, so every path a tool prints can
//! be passed back as it is; a backslash that starts no such escape stands for itself. The decoded
//! bytes are then proven inside the repo component by component, through directory fds, with the
//! same containment as `--stdin` ([`gnaw_sandbox::ContainedDir::as_root`] then
//! [`gnaw_sandbox::Root::contain`]): escaping cannot get around the proof, it only names bytes.
//!
//! A path shown with a secret redacted in it (`keys/key_[REDACTED:github-token].txt`) is passed
//! back as shown: each component holding a redaction marker names the entry of its directory
//! whose shown name it is (`resolve_shown`); the bytes found are then proven like any others.
//! The raw name is never needed and never echoed. Two entries that show the same (their names
//! differ only inside a secret) cannot be told apart by their shown name, and are refused as
//! ambiguous.

use super::request::{NavError, Request};
use crate::driver::repo_open_error;
use crate::stages::name::Namer;
use crate::stages::source;
use crate::vocab::{Candidate, ErrorKind};
use gnaw_sandbox::beneath::{FileKind, Stat};
use gnaw_sandbox::{Rejection, Root};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

/// The request's repository as a root of its own, to prove paths given relative to it. Done
/// before anything in the repository is read.
pub fn repo_root(req: &Request<'_>) -> Result<Root, NavError> {
    req.repo.as_root().map_err(|e| repo_open_error(&e).into())
}

/// A path argument proven inside the repo.
#[derive(Clone, Debug)]
pub struct Proven {
    /// Relative to the repo, resolved (no links, `.` or `..`), raw bytes; empty for the repo.
    pub rel: Vec<u8>,
    /// What the proof saw of it.
    pub stat: Stat,
}

impl Proven {
    /// Whether the proven path is a directory.
    pub fn is_dir(&self) -> bool {
        self.stat.kind == FileKind::Dir
    }

    /// The candidate the read stage opens: the proof's own identity, so a file swapped after
    /// the proof is refused at the open.
    pub fn candidate(&self) -> Candidate {
        source::candidate(self.rel.clone(), &self.stat)
    }

    /// Whether it lies inside `.git` (never read).
    pub fn in_git(&self) -> bool {
        self.rel.split(|&b| b == b'/').any(|part| part == b".git")
    }
}

/// Prove the path argument `given` (named `what` in messages, e.g. `paths[2]`) inside the repo
/// `root`, or the `-32602` answer naming why not.
pub fn prove(root: &Root, what: &str, given: &str) -> Result<Proven, NavError> {
    let raw = parse_display(given);
    let contained = match root.contain(OsStr::from_bytes(&raw)) {
        Err(Rejection::NotFound) if given.contains(REDACTION_MARK) => {
            match resolve_shown(root, given) {
                Shown::One(raw) => root.contain(OsStr::from_bytes(&raw)),
                Shown::None => Err(Rejection::NotFound),
                Shown::Ambiguous(n) => {
                    return Err(NavError::argument(
                        ErrorKind::InvalidPath,
                        format!(
                            "{what} {}: {n} entries show as this name (their names differ                              only inside a redacted secret), so it names none of them; reach                              their contents with grep or extract",
                            quote(given)
                        ),
                    ));
                }
            }
        }
        other => other,
    };
    match contained {
        Ok(c) => Ok(Proven {
            rel: c.relative().as_os_str().as_bytes().to_vec(),
            stat: *c.stat(),
        }),
        Err(r) => Err(NavError::argument(
            ErrorKind::from(&r),
            rejected(what, given, &r),
        )),
    }
}

/// What every redaction marker starts with (`[REDACTED:<rule>]`).
const REDACTION_MARK: &str = "[REDACTED:";

/// The entries a shown path names.
enum Shown {
    /// Exactly one: its raw path, relative to the root.
    One(Vec<u8>),
    None,
    /// More than one entry of a directory shows as the same component.
    Ambiguous(usize),
}

/// The raw path whose shown form (escaped, secrets redacted) is `given`: component by
/// component, a component without a redaction marker stands for the bytes it spells; one with
/// a marker names the entry of the directory reached so far whose name shows as it. Only
/// names are chosen here: the caller proves the path found like any other.
fn resolve_shown(root: &Root, given: &str) -> Shown {
    let namer = Namer::redacting();
    let Ok(mut dir) = root.as_dir().open() else {
        return Shown::None;
    };
    let parts: Vec<&str> = given.split('/').filter(|p| !p.is_empty()).collect();
    let mut raw: Vec<u8> = Vec::with_capacity(given.len());
    for (i, part) in parts.iter().enumerate() {
        let name = if part.contains(REDACTION_MARK) {
            let Ok(entries) = dir.entries() else {
                return Shown::None;
            };
            let mut found = entries
                .into_iter()
                .filter(|e| namer.path(e.name.as_bytes()).as_str() == *part);
            let (Some(first), rest) = (found.next(), found.count()) else {
                return Shown::None;
            };
            if rest > 0 {
                return Shown::Ambiguous(rest + 1);
            }
            first.name.as_bytes().to_vec()
        } else {
            parse_display(part)
        };
        if !raw.is_empty() {
            raw.push(b'/');
        }
        raw.extend_from_slice(&name);
        if i + 1 < parts.len() {
            // `..`, `.` and links are the proof's business; here they only stop the search.
            match dir.child_dir(OsStr::from_bytes(&name)) {
                Ok(d) => dir = d,
                Err(_) => return Shown::None,
            }
        }
    }
    if given.ends_with('/') {
        raw.push(b'/');
    }
    Shown::One(raw)
}

/// The message for a refused path argument: only the caller's own input is echoed.
fn rejected(what: &str, given: &str, r: &Rejection) -> String {
    let shown = quote(given);
    match r {
        Rejection::OutsideRoot => format!(
            "{what} {shown} resolves outside the repository; give a path inside it, relative to \
             the repository, as tree and grep show them"
        ),
        Rejection::NotFound => format!(
            "{what} {shown}: no such file or directory in the repository; find paths with tree \
             or grep"
        ),
        Rejection::InvalidPath(why) => format!("{what} {shown} is not a usable path: {why}"),
        Rejection::NotADirectory => format!("{what} {shown} ends with / but is not a directory"),
        Rejection::RootChanged => format!("{what} {shown}: {r}"),
    }
}

/// Quote an argument for a message: escaped, and cut after 200 bytes.
pub fn quote(given: &str) -> String {
    if given.len() > 200 {
        let mut cut = 200;
        while !given.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{:?}… ({} bytes)", &given[..cut], given.len())
    } else {
        format!("{given:?}")
    }
}

/// The bytes a path spelled as [`crate::vocab::display_path`] shows it stand for: the inverse
/// of `display_path` on everything it produces; a backslash that starts no escape it writes is
/// kept as it is.
pub fn parse_display(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let rest = &s[i + 1..];
        let simple = match rest.as_bytes().first() {
            Some(b'\\') => Some(b'\\'),
            Some(b'n') => Some(b'\n'),
            Some(b'r') => Some(b'\r'),
            Some(b't') => Some(b'\t'),
            _ => None,
        };
        if let Some(byte) = simple {
            out.push(byte);
            i += 2;
            continue;
        }
        if let Some(hex) = rest.strip_prefix('x')
            && hex.len() >= 2
            && hex.as_bytes()[..2].iter().all(u8::is_ascii_hexdigit)
            && let Ok(byte) = u8::from_str_radix(&hex[..2], 16)
        {
            out.push(byte);
            i += 4;
            continue;
        }
        if let Some(body) = rest.strip_prefix("u{")
            && let Some(close) = body.find('}')
            && (1..=6).contains(&close)
            && let Ok(n) = u32::from_str_radix(&body[..close], 16)
            && let Some(c) = char::from_u32(n)
        {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            i += 1 + 2 + close + 1;
            continue;
        }
        out.push(b'\\');
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::display_path;

    #[test]
    fn parse_display_inverts_display_path() {
        let names: [&[u8]; 9] = [
            b"a/b.rs",
            b"nl\nname",
            b"back\\slash",
            b"lit\\nname",
            b"bad\xffname\x80",
            "rlo\u{202e}txt".as_bytes(),
            b"ansi\x1b[31m",
            b"tab\tcr\r",
            "caf\u{e9}/\u{1F600}".as_bytes(),
        ];
        for name in names {
            assert_eq!(parse_display(&display_path(name)), name, "{name:?}");
        }
        // Backslashes that start no escape stand for themselves.
        assert_eq!(parse_display("back\\slash"), b"back\\slash");
        assert_eq!(parse_display("a\\x4"), b"a\\x4");
        assert_eq!(parse_display("a\\u{zz}"), b"a\\u{zz}");
        assert_eq!(parse_display("end\\"), b"end\\");
    }
}
