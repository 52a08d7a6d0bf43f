//! `gnaw -c`: the prompt copied to the system clipboard by the platform's own tool: `wl-copy`
//! under Wayland, `xclip` or `xsel` under X11, `pbcopy` on macOS. A tool, not a library: on X11
//! and Wayland the clipboard belongs to a live process, and a command that exits would take its
//! copy with it; these tools stay behind to serve it (as a clipboard manager would), gnaw does
//! not. Which tool is chosen before the run, so a host without a clipboard is told so at once,
//! with what to do instead.

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

/// How long the tool may take to take the text (it forks to serve the selection, so this is
/// only the handover).
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

    /// Hand `text` to the tool and wait for it to take it.
    pub fn copy(&self, text: &str) -> Result<(), String> {
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
        let fed = child
            .stdin
            .take()
            .map(|mut stdin| stdin.write_all(text.as_bytes()));
        let deadline = Instant::now() + HANDOVER;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Ok(None) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "-c: {} did not take the prompt within {} seconds; check that the \
                         display is reachable, or write the prompt with -o FILE",
                        self.name,
                        HANDOVER.as_secs()
                    ));
                }
                Err(e) => return Err(format!("-c: cannot wait for {}: {e}", self.name)),
            }
        };
        if status.success() {
            if let Some(Err(e)) = fed {
                return Err(format!("-c: cannot write the prompt to {}: {e}", self.name));
            }
            return Ok(());
        }
        let msg = rx.recv_timeout(Duration::from_secs(1)).unwrap_or_default();
        let msg = String::from_utf8_lossy(&msg);
        let msg = msg.trim();
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

/// `name` in one of `$PATH`'s directories, as an executable file.
fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            // A stat of a directory of $PATH, never of the repository.
            #[allow(clippy::disallowed_methods)]
            let meta = std::fs::metadata(p);
            meta.is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}
