//! Where the CLI writes: the `-o` file and its `--split-output` parts, through the sandbox's
//! one door to user files ([`gnaw_sandbox::user_file`]). The directory is opened once, before
//! the run, and every file is reached through its descriptor by name: never through a link
//! (`O_NOFOLLOW`), never waiting (`O_NONBLOCK`), created if missing, and truncated only once it
//! is proven a regular file. A committed `prompt.md -> ~/.bashrc` link, a dangling link to
//! `~/.ssh/authorized_keys`, a FIFO or a device named like the output is refused with a
//! message, and nothing is written. `/dev/null` itself is accepted.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use gnaw_sandbox::user_file::{self, UserDir, UserFileError};

use crate::vocab::display_path;

/// The `-o` file (or one part of it): its directory, opened once, and its name there.
pub struct OutputFile {
    dir: std::rc::Rc<UserDir>,
    name: OsString,
    /// The path as given, for messages.
    path: std::path::PathBuf,
    shown: String,
}

/// A path as a message shows it: control and invisible characters escaped.
pub fn shown(path: &Path) -> String {
    display_path(path.as_os_str().as_bytes())
}

impl OutputFile {
    /// Open `path`'s directory and check the file there before a run: refused when it is a
    /// link or not a regular file. Creates nothing; a missing file is fine.
    pub fn new(path: &Path) -> Result<OutputFile, String> {
        let shown = shown(path);
        let (dir, name) = user_file::split(path).map_err(|e| refusal(&shown, &e))?;
        let dir = UserDir::open(&dir).map_err(|e| {
            format!(
                "cannot write {shown}: its directory {} {e}; create it first, or choose \
                 another output file",
                self::shown(&dir)
            )
        })?;
        let file = OutputFile {
            dir: std::rc::Rc::new(dir),
            name,
            path: path.to_path_buf(),
            shown,
        };
        file.check()?;
        Ok(file)
    }

    /// Part `k` of the output, beside it: `prompt.md` -> `prompt.K.md`, `prompt` -> `prompt.K`
    /// (see `super::split::part_name`), in the same directory descriptor.
    pub fn part(&self, k: usize) -> OutputFile {
        let name = super::split::part_name(&self.name, k);
        OutputFile {
            dir: self.dir.clone(),
            shown: shown(&self.path.with_file_name(&name)),
            path: self.path.with_file_name(&name),
            name,
        }
    }

    /// Refused when the name is now a link or not a regular file.
    pub fn check(&self) -> Result<(), String> {
        self.dir
            .check_writable(&self.name)
            .map_err(|e| refusal(&self.shown, &e))
    }

    /// Open the file for the prompt, or say why not in words for the person who typed `-o`.
    pub fn open(&self) -> Result<File, String> {
        self.dir
            .writer(&self.name, 0o644)
            .map_err(|e| refusal(&self.shown, &e))
    }

    /// Whether anything has this name.
    pub fn exists(&self) -> bool {
        !matches!(self.dir.kind(&self.name), Ok(None))
    }

    /// The path as messages show it.
    pub fn shown(&self) -> &str {
        &self.shown
    }
}

/// Why `-o`'s file was refused, and what to do.
fn refusal(shown: &str, e: &UserFileError) -> String {
    match e {
        UserFileError::Link(_) => format!(
            "{shown} is a symbolic link; gnaw does not write through links (a repository could \
             point one at a file of yours); remove the link or choose another output file"
        ),
        UserFileError::NotRegular(_) => {
            format!("{shown} {e}; choose a regular output file, or omit -o to write to stdout")
        }
        UserFileError::BadName => format!(
            "-o {shown} names a directory, not a file; give a file's name, e.g. -o prompt.md"
        ),
        _ => format!("cannot open {shown} for writing: {e}"),
    }
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
