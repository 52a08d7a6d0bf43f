//! The file operations of `gnaw-mcp setup`, the one place gnaw-mcp writes a file: it runs from
//! the command line only (never through the protocol, never under the sandbox) and writes only
//! the MCP client's own configuration file, which the user named by choosing the client. Each
//! function below opens paths by name, which `clippy.toml` keeps out of the rest of the crate;
//! each is allowed on its own, for this reason.
//!
//! A replaced file is written whole to a temporary file in the same directory, flushed to disk,
//! and renamed over the old one (a crash leaves the old file or the new one, never half of
//! either); the old bytes are first kept in `FILE.bak`, with the old file's permissions.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Largest client file read (Claude Code's `~/.claude.json` grows with its history).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// A client file as found.
pub struct Existing {
    pub bytes: Vec<u8>,
    /// Its permission bits, given to the new file and the backup.
    pub mode: u32,
}

/// `path` made absolute and free of links, which must be a directory (a root, the workspace).
#[allow(clippy::disallowed_methods)] // a directory the user named on the command line
pub fn canonical_dir(path: &Path) -> Result<PathBuf, String> {
    let dir = fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !dir.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
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

/// The file to write for the client file `path`: `path` itself, or, when it is a symbolic link
/// (a dotfile manager's), the file it points to, so the link stays a link.
#[allow(clippy::disallowed_methods)] // the client's own file, chosen by the user
pub fn through_link(path: &Path) -> Result<PathBuf, String> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path).map_err(|e| {
            format!(
                "{} is a symbolic link that does not resolve ({e}); fix or remove the link",
                path.display()
            )
        }),
        _ => Ok(path.to_path_buf()),
    }
}

/// Read the client file, or `None` when it does not exist yet.
#[allow(clippy::disallowed_methods)] // the client's own file, chosen by the user
pub fn read_existing(path: &Path) -> Result<Option<Existing>, String> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot open {}: {e}", path.display())),
    };
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "{} is larger than {MAX_FILE_BYTES} bytes; is it the right file?",
            path.display()
        ));
    }
    Ok(Some(Existing {
        bytes,
        mode: meta.permissions().mode() & 0o7777,
    }))
}

/// Replace (or create) `path` with `bytes`, atomically, keeping `previous` in `FILE.bak` first.
/// Creates the parent directories. Returns the backup's path, when there was a file to keep.
#[allow(clippy::disallowed_methods)] // the client's own file, chosen by the user
pub fn replace(
    path: &Path,
    bytes: &[u8],
    previous: Option<&Existing>,
) -> Result<Option<PathBuf>, String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .ok_or_else(|| format!("{} has no directory", path.display()))?;
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let name = path
        .file_name()
        .ok_or_else(|| format!("{} names no file", path.display()))?
        .to_string_lossy()
        .into_owned();
    // A new file may hold tokens a client adds later: readable by its owner only.
    let mode = previous.map_or(0o600, |p| p.mode);
    let backup = match previous {
        Some(old) => {
            let backup = dir.join(format!("{name}.bak"));
            write_synced(&backup, &old.bytes, mode)?;
            Some(backup)
        }
        None => None,
    };
    let temp = dir.join(format!(".{name}.gnaw-setup.{}.tmp", std::process::id()));
    let _ = fs::remove_file(&temp); // a leftover of a run that died at this very step
    if let Err(e) = write_synced(&temp, bytes, mode) {
        let _ = fs::remove_file(&temp);
        return Err(e);
    }
    if let Err(e) = fs::rename(&temp, path) {
        let _ = fs::remove_file(&temp);
        return Err(format!("cannot replace {}: {e}", path.display()));
    }
    // The rename itself reaches the disk with the directory.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(backup)
}

/// Write `bytes` to `path` (created or truncated, with `mode`), then flush it to disk.
#[allow(clippy::disallowed_methods)] // a file beside the client's own file
fn write_synced(path: &Path, bytes: &[u8], mode: u32) -> Result<(), String> {
    let fail = |e: io::Error| format!("cannot write {}: {e}", path.display());
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(fail)?;
    file.set_permissions(fs::Permissions::from_mode(mode))
        .map_err(fail)?;
    file.write_all(bytes).map_err(fail)?;
    file.sync_all().map_err(fail)
}
