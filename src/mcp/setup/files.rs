//! The file operations of `gnaw-mcp setup`, the one place gnaw-mcp writes a file: it runs from
//! the command line only (never through the protocol, never under the sandbox) and writes only
//! the MCP client's own configuration file, which the user named by choosing the client.
//!
//! Every open goes through the sandbox's one door to user files ([`gnaw_sandbox::user_file`]):
//! the client's directory is opened once and the file reached through its descriptor, never
//! through a link at the file itself, never waiting on a FIFO, only a regular file read (at
//! most [`MAX_FILE_BYTES`]) or replaced. In a workspace (`setup vscode`), which the repository
//! controls, no link is followed at any level below it: `.vscode` is reached without following
//! one too. The home clients' directories (`~/.cursor`, `~/.config/zed`) are the user's own and
//! may be links of theirs (a dotfile manager's).
//!
//! A replaced file is written whole to a temporary file in the same directory, flushed to disk,
//! and renamed over the old one, if the old one is still the file read (a crash leaves the old
//! file or the new one, never half of either); the old bytes are first kept in a new backup,
//! `FILE.bak` or the first free `FILE.bak.N`, with the old file's permissions: a backup never
//! overwrites a file, ours or the user's.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use gnaw_sandbox::user_file::{Contents, Expect, UserDir, UserFileError};

use crate::vocab::display_path;

/// Largest client file read (Claude Code's `~/.claude.json` grows with its history).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// `path` made absolute and free of links, which must be a directory (a root, the workspace).
#[allow(clippy::disallowed_methods)] // a directory the user named on the command line
pub fn canonical_dir(path: &Path) -> Result<PathBuf, String> {
    let shown = display_path(path.as_os_str().as_bytes());
    let dir = fs::canonicalize(path).map_err(|e| format!("{shown}: {e}"))?;
    if !dir.is_dir() {
        return Err(format!("{shown} is not a directory"));
    }
    Ok(dir)
}

/// This program's own path, absolute and free of links: what the client will start.
#[allow(clippy::disallowed_methods)] // this binary's own path
pub fn own_executable() -> Result<PathBuf, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find gnaw-mcp's own path ({e})"))?;
    fs::canonicalize(&exe).map_err(|e| format!("cannot resolve {} ({e})", exe.display()))
}

/// A client's file: the directory it lies below, the directories on the way and its name.
pub struct ClientFile {
    base: PathBuf,
    dirs: Vec<OsString>,
    name: OsString,
    /// The base is a workspace the repository controls: no link below it is followed.
    workspace: bool,
}

/// The client's file as it was read, with the directory it was read through.
pub struct Read {
    dir: Option<UserDir>,
    pub previous: Option<Contents>,
}

impl ClientFile {
    /// The file `rel` (`/`-separated, as the client table writes it) below `base`.
    pub fn new(base: PathBuf, rel: &str, workspace: bool) -> ClientFile {
        let mut parts: Vec<OsString> = rel.split('/').map(OsString::from).collect();
        let name = parts.pop().unwrap_or_default();
        ClientFile {
            base,
            dirs: parts,
            name,
            workspace,
        }
    }

    /// The directory the file lies below (the workspace, `$HOME`, `$XDG_CONFIG_HOME`).
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The file's path, for messages (escaped).
    pub fn shown(&self) -> String {
        self.shown_name(&self.name)
    }

    fn shown_name(&self, name: &OsStr) -> String {
        let mut path = self.base.clone();
        path.extend(&self.dirs);
        path.push(name);
        display_path(path.as_os_str().as_bytes())
    }

    /// The directory the file is in, opened (and created, with `create`) by the rules above;
    /// `None` when it does not exist and `create` is false.
    fn open_dir(&self, create: bool) -> Result<Option<UserDir>, String> {
        let missing = |e: &UserFileError| matches!(e, UserFileError::Io(io) if io.kind() == std::io::ErrorKind::NotFound);
        let refused = |path: String, e: UserFileError| self.refusal(&path, e);
        if !self.workspace {
            let mut path = self.base.clone();
            path.extend(&self.dirs);
            let shown = display_path(path.as_os_str().as_bytes());
            let opened = if create {
                UserDir::create_all(&path, 0o777)
            } else {
                UserDir::open(&path)
            };
            return match opened {
                Ok(dir) => Ok(Some(dir)),
                Err(e) if !create && missing(&e) => Ok(None),
                Err(e) => Err(refused(shown, e)),
            };
        }
        let mut dir = UserDir::open(&self.base)
            .map_err(|e| refused(display_path(self.base.as_os_str().as_bytes()), e))?;
        let mut path = self.base.clone();
        for name in &self.dirs {
            path.push(name);
            dir = match dir.child(name, create.then_some(0o777)) {
                Ok(child) => child,
                Err(e) if !create && missing(&e) => return Ok(None),
                Err(e) => return Err(refused(display_path(path.as_os_str().as_bytes()), e)),
            };
        }
        Ok(Some(dir))
    }

    /// Read the client file: `previous` is `None` when it does not exist yet.
    pub fn read(&self) -> Result<Read, String> {
        let Some(dir) = self.open_dir(false)? else {
            return Ok(Read {
                dir: None,
                previous: None,
            });
        };
        let previous = dir
            .read(&self.name, MAX_FILE_BYTES)
            .map_err(|e| self.refusal(&self.shown(), e))?;
        Ok(Read {
            dir: Some(dir),
            previous,
        })
    }

    /// Replace (or create) the file with `bytes`, keeping what `read` found in a new backup
    /// first. Returns the backup's path (for messages), when there was a file to keep.
    pub fn replace(&self, read: Read, bytes: &[u8]) -> Result<Option<String>, String> {
        let dir = match read.dir {
            Some(dir) => dir,
            None => self
                .open_dir(true)?
                .ok_or_else(|| format!("cannot create the directory of {}", self.shown()))?,
        };
        let shown = self.shown();
        let (mode, expect, backup) = match &read.previous {
            Some(old) => {
                let backup = dir.backup(&self.name, &old.bytes, old.mode).map_err(|e| {
                    format!(
                        "cannot keep a backup of {shown}: {}; nothing was changed",
                        self.reason(e)
                    )
                })?;
                (old.mode, Expect::Same(old.identity), Some(backup))
            }
            // A new file may hold tokens a client adds later: readable by its owner only.
            None => (0o600, Expect::Absent, None),
        };
        dir.replace(&self.name, bytes, mode, expect).map_err(|e| {
            let kept = backup
                .as_ref()
                .map(|b| format!(" (its backup {} stays)", self.shown_name(b)))
                .unwrap_or_default();
            format!(
                "cannot replace {shown}{kept}: {}; it was left as it was",
                self.reason(e)
            )
        })?;
        Ok(backup.map(|b| self.shown_name(&b)))
    }

    /// Why `path` was refused, and what to do.
    fn refusal(&self, path: &str, e: UserFileError) -> String {
        format!("{path} {}", self.reason(e))
    }

    fn reason(&self, e: UserFileError) -> String {
        match e {
            UserFileError::Link(target) => {
                let to = target
                    .map(|t| format!(" (to {})", display_path(t.as_bytes())))
                    .unwrap_or_default();
                let whose = if self.workspace {
                    "in a workspace, the repository decides what a link points to"
                } else {
                    "gnaw-mcp writes through no link"
                };
                format!(
                    "is a symbolic link{to}; setup does not follow it ({whose}): run without \
                     --write to print the entry, and add it to the file yourself"
                )
            }
            UserFileError::NotRegular(_) | UserFileError::NotDirectory(_) => format!(
                "{e}; move it aside, or run without --write to print the entry and add it by \
                 hand"
            ),
            UserFileError::TooLarge(limit) => {
                format!("is larger than {limit} bytes; is it the right file?")
            }
            UserFileError::Changed => {
                "changed while setup was writing it (another program wrote it); run again"
                    .to_owned()
            }
            UserFileError::BackupsTaken => {
                format!("{e}; remove the backups you do not need, then run again")
            }
            e => e.to_string(),
        }
    }
}
