//! `gnaw -c`: the prompt copied to the system clipboard by the platform's own tool: `wl-copy`
//! under Wayland, `xclip` or `xsel` under X11, `pbcopy` on macOS. A tool, not a library: on X11
//! and Wayland the clipboard belongs to a live process, and a command that exits would take its
//! copy with it; these tools stay behind to serve it (as a clipboard manager would), gnaw does
//! not. Which tool is chosen before the run, so a host without a clipboard is told so at once,
//! with what to do instead.

use gnaw_sandbox::user_file::UserDir;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A clipboard tool found on this host.
#[derive(Debug)]
pub struct Clipboard {
    /// What it is called, for messages.
    name: &'static str,
    program: PathBuf,
    args: &'static [&'static str],
}

/// How long the whole hand-over may take: starting the tool, writing the prompt to it, and its
/// exit (it forks to serve the selection, so this is only the hand-over).
const HANDOVER: Duration = Duration::from_secs(20);

/// The candidates, in order: each with the environment variable that says its display is
/// there (none for macOS's).
const TOOLS: [(&str, Option<&str>, &[&str]); 4] = [
    ("wl-copy", Some("WAYLAND_DISPLAY"), &[]),
    (
        "xclip",
        Some("DISPLAY"),
        &["-selection", "clipboard", "-in"],
    ),
    ("xsel", Some("DISPLAY"), &["--clipboard", "--input"]),
    ("pbcopy", None, &[]),
];

impl Clipboard {
    /// The clipboard tool to use here, or why there is none, in words for the user.
    pub fn find() -> Result<Clipboard, String> {
        let has = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty());
        let mut missing = Vec::new();
        for (name, display, args) in TOOLS {
            if name == "pbcopy" && !cfg!(target_os = "macos") {
                continue;
            }
            if display.is_some_and(|d| !has(d)) {
                continue;
            }
            match on_path(name) {
                Some(program) => {
                    return Ok(Clipboard {
                        name,
                        program,
                        args,
                    });
                }
                None => missing.push(name),
            }
        }
        Err(if missing.is_empty() {
            "-c: this host has no clipboard (neither DISPLAY nor WAYLAND_DISPLAY is set: no \
             graphical session); write the prompt to a file with -o FILE, or pipe stdout where it \
             is wanted"
                .to_string()
        } else {
            let install = if missing.contains(&"wl-copy") {
                "wl-clipboard (wl-copy)"
            } else {
                "xclip or xsel"
            };
            format!(
                "-c: a display is set but no clipboard tool is installed (looked for {} on PATH); \
                 install {install}, or write the prompt to a file with -o FILE",
                missing.join(", ")
            )
        })
    }

    /// The tool's name, for the summary.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Hand `text` to the tool and wait for it to take it, all within the hand-over bound
    /// (`HANDOVER`).
    pub fn copy(&self, text: &str) -> Result<(), String> {
        self.copy_within(text, HANDOVER)
    }

    /// [`Clipboard::copy`] with its bound given: the whole hand-over (starting the tool,
    /// writing the prompt to it, waiting for it to exit) ends within `bound`, whatever the tool
    /// does. The prompt is written by a thread of its own, so a tool that never reads cannot
    /// hold gnaw on a full pipe; past the bound the tool is killed (which closes the pipe and
    /// ends that thread's write).
    fn copy_within(&self, text: &str, bound: Duration) -> Result<(), String> {
        let deadline = Instant::now() + bound;
        let late = || {
            format!(
                "-c: {} did not take the prompt within {} seconds; check that the display is \
                 reachable, or write the prompt with -o FILE",
                self.name,
                bound.as_secs_f32()
            )
        };
        let mut child = Command::new(&self.program)
            .args(self.args)
            .stdin(Stdio::piped())
            // The tool stays behind to serve the clipboard: it must hold none of our pipes, or
            // whoever reads gnaw's output would wait for it.
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("-c: cannot run {}: {e}", self.program.display()))?;
        let mut stderr = child.stderr.take();
        // Its messages, read aside: a forked server may keep the pipe open after the tool exits.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut msg = Vec::new();
            if let Some(e) = stderr.as_mut() {
                let _ = e.take(4096).read_to_end(&mut msg);
            }
            let _ = tx.send(msg);
        });
        // The prompt, written aside: the write blocks while the tool does not read.
        let (fed_tx, fed_rx) = std::sync::mpsc::channel();
        if let Some(mut stdin) = child.stdin.take() {
            let bytes = text.as_bytes().to_vec();
            std::thread::spawn(move || {
                // Dropping `stdin` at the end closes the pipe: the tool sees its end of input.
                let _ = fed_tx.send(stdin.write_all(&bytes));
            });
        }
        let kill = |child: &mut std::process::Child| {
            let _ = child.kill();
            let _ = child.wait();
        };
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Ok(None) => {
                    kill(&mut child);
                    return Err(late());
                }
                Err(e) => {
                    kill(&mut child);
                    return Err(format!("-c: cannot wait for {}: {e}", self.name));
                }
            }
        };
        if status.success() {
            // The tool exited: the write has ended too, unless a server it left behind holds
            // the pipe without reading, which the bound covers as well.
            let left = deadline.saturating_duration_since(Instant::now());
            return match fed_rx.recv_timeout(left) {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(format!("-c: cannot write the prompt to {}: {e}", self.name)),
                Err(_) => Err(late()),
            };
        }
        let msg = rx.recv_timeout(Duration::from_secs(1)).unwrap_or_default();
        let msg = String::from_utf8_lossy(&msg);
        let msg = crate::vocab::display_path(msg.trim().as_bytes());
        Err(format!(
            "-c: {} failed ({status}){}; check the display (DISPLAY, WAYLAND_DISPLAY), or write \
             the prompt with -o FILE",
            self.name,
            if msg.is_empty() {
                String::new()
            } else {
                format!(": {msg}")
            }
        ))
    }
}

/// `name` in one of `$PATH`'s directories, as an executable file (through the one door to
/// user files: a `stat` of the entry, which may be a link, as installed tools often are).
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| !d.as_os_str().is_empty())
        .find(|d| UserDir::open(d).is_ok_and(|dir| dir.is_executable(OsStr::new(name))))
        .map(|d| d.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool that never reads its input (`sleep`), handed more than a pipe holds: the whole
    /// hand-over still ends within its bound.
    #[test]
    fn a_tool_that_never_reads_cannot_hold_gnaw_past_the_bound() {
        let Some(program) = on_path("sleep") else {
            panic!("no sleep on PATH");
        };
        let tool = Clipboard {
            name: "sleep",
            program,
            args: &["30"],
        };
        let prompt = "x".repeat(4 << 20);
        let start = Instant::now();
        let e = tool
            .copy_within(&prompt, Duration::from_millis(300))
            .unwrap_err();
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        assert!(
            e.contains("did not take the prompt within 0.3 seconds"),
            "{e}"
        );
    }

    /// A tool that reads everything and exits is a success; one that exits without reading
    /// says the prompt was not written.
    #[test]
    fn a_tool_that_takes_the_prompt_succeeds_and_one_that_does_not_is_named() {
        let cat = Clipboard {
            name: "cat",
            program: on_path("cat").expect("cat on PATH"),
            args: &[],
        };
        cat.copy_within(&"y".repeat(1 << 20), Duration::from_secs(20))
            .unwrap();
        let t = Clipboard {
            name: "true",
            program: on_path("true").expect("true on PATH"),
            args: &[],
        };
        let e = t
            .copy_within(&"z".repeat(4 << 20), Duration::from_secs(20))
            .unwrap_err();
        assert!(e.contains("cannot write the prompt to true"), "{e}");
    }
}
