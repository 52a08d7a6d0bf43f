//! Where the CLI writes: the `-o` file, opened so that a repository can never redirect it. The
//! file is opened without following a link (`O_NOFOLLOW`) and without blocking (`O_NONBLOCK`),
//! created if missing, and truncated only once it is proven a regular file. A committed
//! `prompt.md -> ~/.bashrc` link, a dangling link to `~/.ssh/authorized_keys`, a FIFO or a
//! device named like the output is refused with a message, and nothing is written. `/dev/null`
//! itself is accepted.

use std::fs::File;
use std::io;
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

/// A writer for a terminal: control characters from the files (ESC, which starts colour,
/// cursor and OSC sequences such as hyperlinks and title changes, and every other C0 and C1
/// control but tab, newline and carriage return) are shown in caret notation (`^[`) or as
/// `\u{9b}` instead of being passed to the terminal raw. Used only when stdout is a terminal:
/// a file or a pipe gets the prompt's exact bytes.
pub struct TerminalSafe<W: io::Write>(pub W);

impl<W: io::Write> io::Write for TerminalSafe<W> {
    /// Takes whole UTF-8 pieces, as the pipeline writes them.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut start = 0;
        let mut i = 0;
        while i < buf.len() {
            let b = buf[i];
            let c1 = b == 0xC2 && buf.get(i + 1).is_some_and(|n| (0x80..=0x9F).contains(n));
            let c0 = (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7F;
            if c0 || c1 {
                self.0.write_all(&buf[start..i])?;
                if c1 {
                    write!(self.0, "\\u{{{:x}}}", buf[i + 1])?;
                    i += 2;
                } else {
                    self.0.write_all(&[b'^', b ^ 0x40])?;
                    i += 1;
                }
                start = i;
            } else {
                i += 1;
            }
        }
        self.0.write_all(&buf[start..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn escapes_and_osc_never_reach_a_terminal_raw() {
        let mut out = TerminalSafe(Vec::new());
        out.write_all("a\x1b]8;;http://x\x07link\x1b[31m\tb\n\u{9b}2J ok".as_bytes())
            .unwrap();
        let shown = String::from_utf8(out.0).unwrap();
        assert_eq!(shown, "a^[]8;;http://x^Glink^[[31m\tb\n\\u{9b}2J ok");
        assert!(!shown.bytes().any(|b| b == 0x1b || b == 0x07));
    }
}
