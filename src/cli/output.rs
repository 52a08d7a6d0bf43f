//! Where the CLI writes: the `-o` file, opened so that a repository can never redirect it. The
//! file is opened without following a link (`O_NOFOLLOW`) and without blocking (`O_NONBLOCK`),
//! created if missing, and truncated only once it is proven a regular file. A committed
//! `prompt.md -> ~/.bashrc` link, a dangling link to `~/.ssh/authorized_keys`, a FIFO or a
//! device named like the output is refused with a message, and nothing is written. `/dev/null`
//! itself is accepted.

use std::fs::File;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// Refuse an output path that is a link or not a regular file, before a run starts. Creates
/// nothing; a missing file is fine.
pub fn check_output(path: &Path) -> Result<(), String> {
    // As in open_output: the file the user named with -o, never a path from the repository.
    #[allow(clippy::disallowed_methods)]
    let meta = std::fs::symlink_metadata(path);
    match meta {
        Ok(m) if m.file_type().is_symlink() => Err(format!(
            "{} is a symbolic link; gnaw does not write through links (a repository could \
             point one at a file of yours); remove the link or choose another output file",
            path.display()
        )),
        Ok(m) if m.is_file() || is_dev_null(&m) => Ok(()),
        Ok(_) => Err(format!(
            "{} is not a regular file; choose a regular output file, or omit -o to write to \
             stdout",
            path.display()
        )),
        Err(_) => Ok(()),
    }
}

fn is_dev_null(meta: &std::fs::Metadata) -> bool {
    meta.file_type().is_char_device() && meta.rdev() == libc::makedev(1, 3)
}

/// Open `path` for the prompt, or say why not in words for the person who typed `-o`.
pub fn open_output(path: &Path) -> Result<File, String> {
    let shown = path.display();
    // The one place gnaw opens a path by name outside the sandbox crate: the file the user
    // named with -o. It is never a path taken from the repository.
    #[allow(clippy::disallowed_methods)]
    let opened = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path);
    let file = opened.map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => format!(
            "{shown} is a symbolic link; gnaw does not write through links (a repository could \
             point one at a file of yours); remove the link or choose another output file"
        ),
        Some(libc::ENXIO) => format!(
            "{shown} is a FIFO or socket, not a regular file; choose a regular output file, or \
             omit -o to write to stdout"
        ),
        _ => format!("cannot open {shown} for writing: {e}"),
    })?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot inspect {shown}: {e}"))?;
    // /dev/null (character device 1:3) is the one non-regular file accepted: discarding the
    // prompt is how timings are taken, and nothing can be redirected through it.
    if is_dev_null(&meta) {
        return Ok(file);
    }
    if !meta.is_file() {
        return Err(format!(
            "{shown} is not a regular file; choose a regular output file, or omit -o to write to \
             stdout"
        ));
    }
    file.set_len(0)
        .map_err(|e| format!("cannot truncate {shown}: {e}"))?;
    Ok(file)
}
